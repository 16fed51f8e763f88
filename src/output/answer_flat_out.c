/*
 * output/answer_flat_out.c — the flat answer written for machines: the
 * one JSON document (profkit.flat/1) that `flat --json`, the view's
 * /api/flat and Python's column names all follow, and its CSV form.
 */
#include <math.h>
#include <string.h>

#include "analysis/qry.h"

static const char *const by_names[] = {"function", "file", "module", "line"};

static void json_values(pk_json *j, const pk_flat_answer *a, const pk_flat_entry *e)
{
    pk_json_key(j, "values");
    pk_json_array_begin(j);
    for (size_t c = 0; c < a->head.n_columns; c++) {
        pk_json_object_begin(j);
        pk_json_key(j, "self"), pk_json_double(j, e->self[c]);
        pk_json_key(j, "exclusive"), pk_json_double(j, e->self[c]);
        pk_json_key(j, "inclusive"), pk_json_double(j, e->inclusive[c]);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

static void json_row(pk_json *j, const pk_flat_answer *a, const pk_flat_entry *e)
{
    pk_json_object_begin(j);
    pk_json_key(j, "name"), pk_json_string(j, e->name);
    pk_json_key(j, "module"), pk_json_string(j, e->module);
    pk_json_key(j, "file"), pk_json_string(j, e->file);
    pk_json_key(j, "line"), pk_json_uint(j, e->line);
    pk_json_key(j, "differs"), pk_json_string(j, e->differs);
    pk_json_key(j, "differs_by"), pk_json_string(j, e->differs_by);
    pk_json_key(j, "self"), pk_json_double(j, e->self[0]);
    pk_json_key(j, "exclusive"), pk_json_double(j, e->self[0]); /* as flat/1 first named it */
    pk_json_key(j, "inclusive"), pk_json_double(j, e->inclusive[0]);
    if (a->has_calls) pk_json_key(j, "calls"), pk_json_double(j, e->calls);
    if (a->has_contexts) pk_json_key(j, "contexts"), pk_json_uint(j, e->contexts);
    json_values(j, a, e);
    pk_json_object_end(j);
}

pk_status pk_flat_answer_write_json(pk_json *j, const pk_flat_answer *a)
{
    pk_json_object_begin(j);
    pkq_json_head(j, "profkit.flat/1", &a->head);
    pkq_json_columns(j, &a->head, NULL);
    pk_json_key(j, "by"), pk_json_string(j, by_names[a->by]);
    pk_json_key(j, "sorted_by"), pk_json_string(j, a->sorted_by_inclusive ? "inclusive" : "self");
    pk_json_key(j, "rows");
    pk_json_array_begin(j);
    for (size_t i = 0; i < a->n_rows; i++)
        json_row(j, a, &a->rows[i]);
    pk_json_array_end(j);
    pk_json_key(j, "hidden"), pk_json_uint(j, a->hidden);
    return pk_json_object_end(j);
}

static void csv_number(FILE *out, double v)
{
    char num[40];
    if (isnan(v)) return;
    pk_format_double(num, sizeof num, v);
    fputs(num, out);
}

/* name,module,file,line of a row: a function's definition, a file, a
 * module, a line. */
static void csv_place(FILE *out, const pk_flat_answer *a, const pk_flat_entry *e)
{
    pk_csv_field(out, e->name);
    fputc(',', out);
    if (a->by == PK_BY_FUNCTION) { /* where it is defined */
        pk_csv_function_place(out, a->head.profile, (pk_index)e->key);
        return;
    }
    pk_csv_field(out, e->module);
    fputc(',', out);
    pk_csv_field(out, e->file);
    fputc(',', out);
    if (a->by == PK_BY_LINE) fprintf(out, "%u", e->line);
}

static void csv_header(FILE *out, const pk_flat_answer *a)
{
    fputs("name,module,file,line", out);
    if (a->head.n_columns == 1) {
        fputs(",exclusive,inclusive", out);
        if (a->has_contexts) fputs(",contexts", out);
        if (a->has_calls) fputs(",calls", out);
    } else {
        for (size_t c = 0; c < a->head.n_columns; c++)
            for (int k = 0; k < 2; k++) {
                char label[1024];
                snprintf(label, sizeof label, "%s:%s", a->head.columns[c].name,
                         k ? "inclusive" : "exclusive");
                fputc(',', out);
                pk_csv_field(out, label);
            }
    }
    fputc('\n', out);
}

pk_status pk_flat_answer_write_csv(FILE *out, const pk_flat_answer *a)
{
    csv_header(out, a);
    for (size_t i = 0; i < a->n_rows; i++) {
        const pk_flat_entry *e = &a->rows[i];
        csv_place(out, a, e);
        for (size_t c = 0; c < a->head.n_columns; c++) {
            fputc(',', out), csv_number(out, e->self[c]);
            fputc(',', out), csv_number(out, e->inclusive[c]);
        }
        if (a->head.n_columns == 1 && a->has_contexts)
            fprintf(out, ",%llu", (unsigned long long)e->contexts);
        if (a->head.n_columns == 1 && a->has_calls) fprintf(out, ",%.0f", e->calls);
        fputc('\n', out);
    }
    return ferror(out) ? PK_ERR_IO : PK_OK;
}
