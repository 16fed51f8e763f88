/*
 * formats/cube/write_plan.c — which values the Cube gets: the Cube
 * metrics a model's metrics become (a file read from Cube keeps its data
 * types, composite ones included, and its metric kinds; any other model's
 * metrics become DOUBLE, MINDOUBLE or MAXDOUBLE), the one scope each
 * stores (the file's own, else inclusive, exclusive, or point values
 * summed over the contexts folded into a cnode), and whether those come
 * from the per-location values or, for a profile that has none, from its
 * summary location's statistics (docs/cube.md, "Writing").
 */
#include <stdlib.h>
#include <string.h>

#include "cw.h"
#include "util/error.h"

enum { SLOT_INCL, SLOT_EXCL, SLOT_POINT, N_SLOTS };

static const char *attr_of(const pk_profile *p, pk_index m, const char *k)
{
    return pk_attribute_find(p, PK_ENTITY_METRIC, m, k);
}

/* Summary mode: no plain location holds a value, and a summary location
 * holds some (or there is no plain location at all to write). */
static void choose_mode(cube_writer *w)
{
    const pk_profile *p = w->p;
    uint32_t n_plain = 0;
    int plain_values = 0;
    w->sum_loc = PK_NONE;
    for (uint32_t l = 0; l < p->n_locs; l++) {
        const pk_loc_rec *L = &p->locs[l];
        if (!L->is_summary) {
            n_plain++;
            uint64_t nv = L->plane.nvals;
            uint32_t nc;
            if (!plain_values && pk_model_has_rows(p)) /* values still in the rows */
                pk_model_location_counts(p, l, &nv, &nc);
            plain_values |= nv > 0;
        } else if (w->sum_loc == PK_NONE || (L->plane.nvals && !p->locs[w->sum_loc].plane.nvals)) {
            w->sum_loc = l;
        }
    }
    w->summary = !plain_values && w->sum_loc != PK_NONE &&
                 (p->locs[w->sum_loc].plane.nvals > 0 || n_plain == 0);
}

/* The summary statistic that stands for a metric's per-location values
 * when only the summary is left: their sum, or their min or max for
 * metrics combined that way. */
static pk_stat stat_for(pk_combine how)
{
    return how == PK_COMBINE_MIN ? PK_STAT_MIN : how == PK_COMBINE_MAX ? PK_STAT_MAX : PK_STAT_SUM;
}

/* Column of (metric, slot) for every metric: one pass over the columns,
 * so planning stays linear in the number of metrics. */
static pk_status column_table(cube_writer *w, pk_index **out)
{
    const pk_profile *p = w->p;
    pk_index *t = malloc(((size_t)p->n_metrics * N_SLOTS + 1) * sizeof *t);
    if (!t) return pk_fail_nomem("planning Cube metrics");
    for (size_t i = 0; i < (size_t)p->n_metrics * N_SLOTS; i++)
        t[i] = PK_NONE;
    for (uint32_t c = 0; c < p->n_columns; c++) {
        const pk_column *col = &p->columns[c];
        if (col->metric >= p->n_metrics || col->scope >= p->n_scopes) continue;
        if (w->summary ? !col->is_summary || col->stat != stat_for(p->metrics[col->metric].combine)
                       : col->is_summary)
            continue;
        pk_scope_kind k = p->scopes[col->scope].kind;
        int slot = k == PK_SCOPE_INCLUSIVE   ? SLOT_INCL
                   : k == PK_SCOPE_EXCLUSIVE ? SLOT_EXCL
                   : k == PK_SCOPE_POINT     ? SLOT_POINT
                                             : -1;
        pk_index *at = slot < 0 ? NULL : &t[(size_t)col->metric * N_SLOTS + (size_t)slot];
        if (at && *at == PK_NONE) *at = c;
    }
    *out = t;
    return PK_OK;
}

static int derived_kind(const char *k)
{
    return k && (strcmp(k, "POSTDERIVED") == 0 || strncmp(k, "PREDERIVED", 10) == 0);
}

/* The scope a Cube metric stores and hence its type along the call tree:
 * the file's own when it came from Cube and is still there, else
 * inclusive, exclusive or (folded) point values, in that order. */
static void choose_columns(const pk_profile *p, const pk_index *tab, cw_metric *cm,
                           const char *kind)
{
    static const char *const names[] = {"INCLUSIVE", "EXCLUSIVE", "EXCLUSIVE"};
    for (uint32_t k = 0; k < cm->n_comp; k++)
        cm->cols[k] = PK_NONE;
    cm->excl_col = PK_NONE;
    cm->kind = kind ? kind : "EXCLUSIVE";
    cm->data = !derived_kind(kind) && cm->type.dt != DT_UNKNOWN;
    if (derived_kind(kind)) return;
    int want = !kind ? -1 : strcmp(kind, "INCLUSIVE") == 0 ? SLOT_INCL : SLOT_EXCL;
    for (int pass = want < 0 ? 1 : 0; pass < 2; pass++) {
        for (int s = 0; s < N_SLOTS; s++) {
            if (pass == 0 && s != want) continue;
            if (tab[(size_t)cm->metric * N_SLOTS + (size_t)s] == PK_NONE) continue;
            for (uint32_t k = 0; k < cm->n_comp; k++)
                cm->cols[k] = tab[(size_t)(cm->metric + k) * N_SLOTS + (size_t)s];
            cm->fold = s == SLOT_POINT;
            if (pass == 1) cm->kind = names[s]; /* the file's own scope is gone */
            cm->inclusive = strcmp(cm->kind, "INCLUSIVE") == 0;
            cm->combine = p->metrics[cm->metric].combine;
            if (s == SLOT_INCL) cm->excl_col = tab[(size_t)cm->metric * N_SLOTS + SLOT_EXCL];
            return;
        }
    }
}

static int is_component(const pk_profile *p, pk_index m, pk_index main)
{
    return !attr_of(p, m, "cube:dtype") && attr_of(p, m, "cube:component") &&
           p->metrics[m].parent == main;
}

/* Data type of the Cube metric starting at model metric m: its own when
 * its components are all there, else a double of its combine kind. */
static void choose_type(const pk_profile *p, cw_metric *cm)
{
    pk_index m = cm->metric;
    const char *dt = attr_of(p, m, "cube:dtype");
    cm->n_comp = 1;
    while (m + cm->n_comp < p->n_metrics && is_component(p, m + cm->n_comp, m))
        cm->n_comp++;
    cube_dtype t = cube_parse_dtype(dt);
    int unknown = dt && t.dt == DT_UNKNOWN && cm->n_comp == 1; /* SCALE_FUNC...: no values */
    if (!unknown && (!dt || t.dt == DT_UNKNOWN || t.n_comp != cm->n_comp)) {
        cm->n_comp = 1; /* components stay metrics of their own */
        pk_combine how = p->metrics[m].combine;
        dt = how == PK_COMBINE_MIN ? "MINDOUBLE" : how == PK_COMBINE_MAX ? "MAXDOUBLE" : "DOUBLE";
        t = cube_parse_dtype(dt);
    }
    cm->type = t, cm->dtype = dt;
}

pk_status cw_plan_metrics(cube_writer *w)
{
    const pk_profile *p = w->p;
    choose_mode(w);
    pk_index *tab = NULL;
    uint32_t *cube_of = malloc(((size_t)p->n_metrics + 1) * sizeof *cube_of);
    w->m = calloc((size_t)p->n_metrics + 1, sizeof *w->m);
    pk_status st = cube_of && w->m ? column_table(w, &tab) : pk_fail_nomem("planning Cube metrics");
    for (pk_index m = 0; m < p->n_metrics && !st;) {
        cw_metric *cm = &w->m[w->n_m];
        cm->metric = m;
        choose_type(p, cm);
        cm->cols = pk_arena_array(&w->arena, cm->n_comp, sizeof *cm->cols);
        if (!cm->cols) {
            st = pk_fail_nomem("planning Cube metrics");
            break;
        }
        pk_index parent = p->metrics[m].parent;
        cm->parent = parent != PK_NONE && parent < m ? cube_of[parent] : CUBE_NONE;
        choose_columns(p, tab, cm, attr_of(p, m, "cube:type"));
        for (uint32_t k = 0; k < cm->n_comp; k++)
            cube_of[m + k] = w->n_m;
        m += cm->n_comp;
        w->n_m++;
    }
    if (!st && !w->n_m) { /* Cube needs a metric: an empty one stands in */
        cw_metric *cm = &w->m[0];
        cm->cols = pk_arena_array(&w->arena, 1, sizeof *cm->cols);
        if (!cm->cols) st = pk_fail_nomem("planning Cube metrics");
        if (cm->cols) cm->cols[0] = PK_NONE;
        cm->metric = PK_NONE, cm->n_comp = 1, cm->type = cube_parse_dtype("DOUBLE");
        cm->excl_col = PK_NONE;
        cm->dtype = "DOUBLE", cm->kind = "EXCLUSIVE", cm->data = 1, cm->parent = CUBE_NONE;
        w->n_m = 1;
    }
    free(cube_of), free(tab);
    return st;
}
