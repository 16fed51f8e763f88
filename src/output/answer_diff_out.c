/*
 * output/answer_diff_out.c — the diff answer as JSON (profkit.diff/1):
 * both totals, per function and per calling path (or call arc) the shown
 * rows with every column's values in A and B (B's in A's unit) and the
 * changes the library computed (pk_diff_entry).
 */
#include "analysis/qry.h"

static void json_values(pk_json *j, const pk_diff_answer *a, const pk_diff_entry *e)
{
    pk_json_key(j, "values");
    pk_json_array_begin(j);
    for (size_t c = 0; c < a->head.n_columns; c++) {
        pk_json_object_begin(j);
        pk_json_key(j, "a_self"), pk_json_double(j, e->a_self[c]);
        pk_json_key(j, "b_self"), pk_json_double(j, e->b_self[c]);
        pk_json_key(j, "a_exclusive"), pk_json_double(j, e->a_self[c]);
        pk_json_key(j, "b_exclusive"), pk_json_double(j, e->b_self[c]);
        pk_json_key(j, "a_inclusive"), pk_json_double(j, e->a_inclusive[c]);
        pk_json_key(j, "b_inclusive"), pk_json_double(j, e->b_inclusive[c]);
        pk_json_key(j, "change"), pk_json_double(j, e->change[c]);
        pk_json_key(j, "change_percent"), pk_json_double(j, e->change_percent[c]);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

static void json_rows(pk_json *j, const pk_diff_answer *a, const pk_diff_entry *r, size_t n,
                      int paths)
{
    pk_json_array_begin(j);
    for (size_t i = 0; i < n; i++) {
        const pk_diff_entry *e = &r[i];
        pk_json_object_begin(j);
        pk_json_key(j, "name"), pk_json_string(j, e->name);
        pk_json_key(j, paths ? "path" : "function"),
            pk_json_string(j, e->name); /* as diff/1 began */
        if (e->caller) {                /* a call arc's ends */
            pk_json_key(j, "caller"), pk_json_string(j, e->caller);
            pk_json_key(j, "callee"), pk_json_string(j, e->callee);
        }
        pk_json_key(j, "status"), pk_json_string(j, e->status);
        if (!paths || e->caller) pk_json_key(j, "in_cycle"), pk_json_bool(j, e->in_cycle);
        pk_json_key(j, "folded"), pk_json_bool(j, e->folded);
        pk_json_key(j, "a_inclusive"), pk_json_double(j, e->a_inclusive[0]);
        pk_json_key(j, "b_inclusive"), pk_json_double(j, e->b_inclusive[0]);
        pk_json_key(j, "a_self"), pk_json_double(j, e->a_self[0]);
        pk_json_key(j, "b_self"), pk_json_double(j, e->b_self[0]);
        if (!paths) { /* the same, as diff/1 began */
            pk_json_key(j, "a_exclusive"), pk_json_double(j, e->a_self[0]);
            pk_json_key(j, "b_exclusive"), pk_json_double(j, e->b_self[0]);
        }
        pk_json_key(j, "change"), pk_json_double(j, e->change[0]);
        pk_json_key(j, "change_percent"), pk_json_double(j, e->change_percent[0]);
        pk_json_key(j, "inclusive_change"), pk_json_double(j, e->inclusive_change);
        pk_json_key(j, "change_share"), pk_json_double(j, e->change_share);
        json_values(j, a, e);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

pk_status pk_diff_answer_write_json(pk_json *j, const pk_diff_answer *a)
{
    pk_json_object_begin(j);
    pkq_json_head(j, "profkit.diff/1", &a->head);
    pkq_json_columns(j, &a->head, a->b_totals);
    pk_json_key(j, "a_total"), pk_json_double(j, a->head.columns[0].total);
    pk_json_key(j, "b_total"), pk_json_double(j, a->b_totals[0]);
    pk_json_key(j, "total_change"), pk_json_double(j, a->total_change[0]);
    pk_json_key(j, "total_change_percent"), pk_json_double(j, a->total_change_percent[0]);
    pk_json_key(j, "b_metric"), pk_json_string(j, a->b_metric);
    pk_json_key(j, "b_scale"), pk_json_double(j, a->b_scale);
    pk_json_key(j, "any_change"), pk_json_bool(j, a->any_change);
    pk_json_key(j, "paths_are"), pk_json_string(j, a->arcs ? "call_arcs" : "calling_paths");
    pk_json_key(j, "functions");
    json_rows(j, a, a->functions, a->n_functions, 0);
    pk_json_key(j, "hidden_functions"), pk_json_uint(j, a->hidden_functions);
    pk_json_key(j, "folded_functions"), pk_json_uint(j, a->folded_functions);
    pk_json_key(j, "paths");
    json_rows(j, a, a->paths, a->n_paths, 1);
    pk_json_key(j, "hidden_paths"), pk_json_uint(j, a->hidden_paths);
    pk_json_key(j, "folded_paths"), pk_json_uint(j, a->folded_paths);
    return pk_json_object_end(j);
}
