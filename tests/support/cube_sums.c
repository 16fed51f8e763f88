/*
 * tests/support/cube_sums.c — see cube_sums.h.
 */
#include "cube_sums.h"

#include <stdlib.h>
#include <string.h>

/* A model metric starts a Cube metric unless it is a later component. */
static int starts_cube_metric(const pk_profile *p, pk_index m)
{
    return pk_attribute_find(p, PK_ENTITY_METRIC, m, "cube:dtype") != NULL ||
           pk_attribute_find(p, PK_ENTITY_METRIC, m, "cube:component") == NULL;
}

tu_cube_metric *tu_cube_metrics(const pk_profile *p, size_t *n)
{
    size_t nm = pk_metric_count(p), k = 0;
    tu_cube_metric *out = calloc(nm + 1, sizeof *out);
    pk_index *owner = calloc(nm + 1, sizeof *owner);
    for (pk_index m = 0; m < nm; m++) {
        if (starts_cube_metric(p, m) || k == 0) {
            pk_metric md;
            pk_metric_get(p, m, &md);
            out[k++] = (tu_cube_metric){md.name, m, 0, 0, {0}};
        }
        owner[m] = (pk_index)(k - 1);
        out[k - 1].n_comp++;
    }
    for (pk_index l = 0; l < pk_location_count(p); l++) {
        pk_cursor c;
        pk_value v;
        pk_location_values_begin(p, l, &c);
        while (pk_cursor_next(&c, &v)) {
            pk_context ctx;
            pk_column col;
            pk_context_get(p, v.context, &ctx);
            if (ctx.kind == PK_CTX_ROOT || v.column == PK_NONE) continue;
            pk_column_get(p, v.column, &col);
            tu_cube_metric *cm = &out[owner[col.metric]];
            cm->sum += v.value;
            unsigned comp = col.metric - cm->metric;
            if (comp < 16) cm->comp_sum[comp] += v.value;
        }
    }
    free(owner);
    *n = k;
    return out;
}
