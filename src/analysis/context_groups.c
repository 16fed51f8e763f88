/*
 * analysis/context_groups.c — inclusive values of contexts summed into
 * groups once per call path (see context_groups.h).
 */
#include "analysis/context_groups.h"

#include <stdlib.h>

#include "util/error.h"

pk_status pk_group_inclusive_once(const pk_profile *p, const uint32_t *group, size_t n_groups,
                                  const double *incl, double *out, size_t stride)
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
        if (k == 0 && g != PK_NONE && active[g]++ == 0)
            *(double *)((char *)out + (size_t)g * stride) += incl[c];
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
