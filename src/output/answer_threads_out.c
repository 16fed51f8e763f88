/*
 * output/answer_threads_out.c — the per-location answer as JSON
 * (profkit.threads/1, what `threads --json` and the view's /api/locations
 * write) and CSV.
 */
#include "analysis/qry.h"

pk_status pk_threads_answer_write_json(pk_json *j, const pk_threads_answer *a)
{
    pk_json_object_begin(j);
    pkq_json_head(j, "profkit.threads/1", &a->head);
    pkq_json_columns(j, &a->head, NULL);
    pk_json_key(j, "function"), pk_json_string(j, a->function);
    pk_json_key(j, "count"), pk_json_uint(j, a->n_rows);
    pk_json_key(j, "sum"), pk_json_double(j, a->sum);
    pk_json_key(j, "min"), pk_json_double(j, a->min);
    pk_json_key(j, "max"), pk_json_double(j, a->max);
    pk_json_key(j, "mean"), pk_json_double(j, a->mean);
    pk_json_key(j, "stddev"), pk_json_double(j, a->stddev);
    pk_json_key(j, "imbalance"), pk_json_double(j, a->imbalance);
    pk_json_key(j, "locations");
    pk_json_array_begin(j);
    for (size_t i = 0; i < a->n_rows; i++) {
        const pk_thread_entry *e = &a->rows[i];
        pk_json_object_begin(j);
        pk_json_key(j, "index"), pk_json_uint(j, e->location);
        pk_json_key(j, "name"), pk_json_string(j, e->name);
        pk_json_key(j, "location"), pk_json_string(j, e->name); /* as threads/1 began */
        pk_json_key(j, "total"), pk_json_double(j, e->inclusive);
        pk_json_key(j, "inclusive"), pk_json_double(j, e->inclusive);
        pk_json_key(j, "self"), pk_json_double(j, e->self);
        pk_json_key(j, "exclusive"), pk_json_double(j, e->self);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
    return pk_json_object_end(j);
}

pk_status pk_threads_answer_write_csv(FILE *out, const pk_threads_answer *a)
{
    char v[40];
    fputs(a->function ? "index,location,inclusive,self\n" : "index,location,total\n", out);
    for (size_t i = 0; i < a->n_rows; i++) {
        const pk_thread_entry *e = &a->rows[i];
        fprintf(out, "%u,", e->location);
        pk_csv_field(out, e->name);
        pk_format_double(v, sizeof v, e->inclusive);
        fprintf(out, ",%s", v);
        if (a->function && e->self == e->self) pk_format_double(v, sizeof v, e->self);
        if (a->function) fprintf(out, ",%s", e->self == e->self ? v : "");
        fputc('\n', out);
    }
    return ferror(out) ? PK_ERR_IO : PK_OK;
}
