/*
 * analysis/context_groups.c — inclusive values of contexts summed into
 * groups once per call path (see context_groups.h).
 */
#include "analysis/context_groups.h"

#include <math.h>
#include <stdlib.h>

#include "util/error.h"

static pk_status walk(const pk_profile *p, const uint32_t *group, size_t n_groups,
                      const double *incl, double *out, size_t stride, pk_combine how)
{
    /* per group: how many contexts of the current path are in it */
    uint32_t *active = calloc(n_groups + 1, sizeof *active);
    uint32_t *stack = malloc(((size_t)p->n_ctx + 1) * sizeof *stack);
    uint32_t *next = malloc(((size_t)p->n_ctx + 1) * sizeof *next);
    if (!active || !stack || !next) {
        free(active), free(stack), free(next);
        return pk_fail_nomem("summing inclusive values");
    }
    uint32_t depth = 0;
    if (p->n_ctx) stack[depth] = 0, next[depth++] = 0;
    while (depth) {
        uint32_t c = stack[depth - 1], k = next[depth - 1]++, g = group[c];
        if (k == 0 && g != PK_NONE && active[g]++ == 0) {
            double *slot = (double *)((char *)out + (size_t)g * stride);
            if (how == PK_COMBINE_MIN || how == PK_COMBINE_MAX)
                pk_combine_slot(slot, incl[c], how);
            else
                *slot += incl[c];
        }
        if (k < p->ctx[c].n_children) {
            stack[depth] = p->ctx[c].first_child + k, next[depth++] = 0;
            continue;
        }
        if (g != PK_NONE) active[g]--;
        depth--;
    }
    free(active), free(stack), free(next);
    return PK_OK;
}

pk_status pk_group_inclusive_once(const pk_profile *p, const uint32_t *group, size_t n_groups,
                                  const double *incl, double *out, size_t stride)
{
    return walk(p, group, n_groups, incl, out, stride, PK_COMBINE_SUM);
}

pk_status pk_group_inclusive_combined(const pk_profile *p, const uint32_t *group, size_t n_groups,
                                      const double *incl, double *out, size_t stride,
                                      pk_combine how)
{
    for (size_t g = 0; g < n_groups; g++) /* none yet */
        *(double *)((char *)out + g * stride) = NAN;
    pk_status st = walk(p, group, n_groups, incl, out, stride, how);
    for (size_t g = 0; g < n_groups; g++) {
        double *slot = (double *)((char *)out + g * stride);
        if (*slot != *slot) *slot = 0;
    }
    return st;
}
