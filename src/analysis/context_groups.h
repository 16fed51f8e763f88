/*
 * analysis/context_groups.h — values of contexts summed into groups
 * (a flat profile's functions/files/lines, a function's source lines):
 * the point value a context adds to its group, and inclusive values
 * counted once per call path. Shared by flat.c and function_lines.c.
 */
#ifndef PK_ANALYSIS_CONTEXT_GROUPS_H
#define PK_ANALYSIS_CONTEXT_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* Context c's point value: its exclusive value less its lexical
 * children's (HPCToolkit's exclusive scope includes the loops and lines
 * inside a context; its own part is what is left). */
static inline double pk_point_value(const pk_profile *p, const double *excl, uint32_t c)
{
    const pk_ctx_rec *r = &p->ctx[c];
    double own = excl[c];
    for (uint32_t k = 0; k < r->n_children; k++)
        if (p->ctx[r->first_child + k].relation == PK_REL_LEXICAL) own -= excl[r->first_child + k];
    return own;
}

/* Adds to group g's total (the double at out + g * stride bytes: a field
 * of the caller's row array) the inclusive value of each context in g
 * that has no ancestor in g: a recursive function's line counts once per
 * path. group[c] is c's group (< n_groups) or PK_NONE. A depth-first walk
 * with explicit stacks, linear in the contexts whatever the tree's depth. */
pk_status pk_group_inclusive_once(const pk_profile *p, const uint32_t *group, size_t n_groups,
                                  const double *incl, double *out, size_t stride);
/* The same for a metric whose values combine by `how` (min, max): a
 * group's value is the smallest (largest) of those contexts' values; a
 * group none of them reaches keeps its 0. */
pk_status pk_group_inclusive_combined(const pk_profile *p, const uint32_t *group, size_t n_groups,
                                      const double *incl, double *out, size_t stride,
                                      pk_combine how);
/* A min/max value folded into a slot that starts as NaN (none yet). */
static inline void pk_combine_slot(double *slot, double v, pk_combine how)
{
    if (slot[0] != slot[0] || (how == PK_COMBINE_MIN ? v < *slot : v > *slot)) *slot = v;
}

#endif /* PK_ANALYSIS_CONTEXT_GROUPS_H */
