/*
 * output/csv_export.c — every stored value of a profile as a tidy CSV
 * table, one row per (location, context, metric, scope) value, ready for
 * pandas.read_csv(): no reshaping needed to group, pivot or plot.
 *
 * The context path is the chain of context names from the root, ';'
 * separated as in folded stacks. Values come location by location,
 * context by context, so each context's path is built once per location
 * (by walking its parents) and reused for its columns.
 */
#include <stdlib.h>
#include <string.h>

#include "profkit/output.h"
#include "util/error.h"

static void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* "<program root>;main;solve" into buf (outermost first, truncated at the
 * front when too long). */
static void context_path(const pk_profile *p, pk_index c, char *buf, size_t size)
{
    char name[512];
    size_t end = size - 1;
    buf[end] = 0;
    for (pk_index i = c; i != PK_NONE;) {
        pk_context ctx;
        pk_context_get(p, i, &ctx);
        size_t len = pk_context_name(p, i, name, sizeof name);
        if (len >= sizeof name) len = sizeof name - 1;
        if (len + 1 > end) break;
        end -= len;
        memcpy(buf + end, name, len);
        if (ctx.parent != PK_NONE && end > 0) buf[--end] = ';';
        i = ctx.parent;
    }
    memmove(buf, buf + end, size - end);
}

static void write_row(FILE *out, const pk_profile *p, const char *loc, const char *path,
                      const pk_value *v)
{
    pk_column col;
    pk_metric met;
    pk_scope scope;
    char num[40];
    pk_column_get(p, v->column, &col);
    pk_metric_get(p, col.metric, &met);
    pk_scope_get(p, col.scope, &scope);
    pk_format_double(num, sizeof num, v->value);
    csv_field(out, loc);
    fprintf(out, ",%u,", v->context);
    csv_field(out, path);
    fputc(',', out);
    csv_field(out, met.name);
    fputc(',', out);
    csv_field(out, scope.name ? scope.name : "");
    fprintf(out, ",%s\n", num);
}

pk_status pk_export_csv(FILE *out, const pk_profile *p)
{
    if (!out || !p) return pk_fail(PK_ERR_INVALID_ARG, "csv: bad arguments");
    size_t cap = 16384;
    char *path = malloc(cap), loc_name[256];
    if (!path) return pk_fail_nomem("csv export");
    fprintf(out, "location,context,path,metric,scope,value\n");
    for (pk_index l = 0; l < pk_location_count(p); l++) {
        pk_location loc;
        pk_location_get(p, l, &loc);
        if (loc.is_summary) continue;
        pk_location_name(p, l, loc_name, sizeof loc_name);
        pk_cursor cur;
        pk_value v;
        pk_index last = PK_NONE;
        pk_location_values_begin(p, l, &cur);
        while (pk_cursor_next(&cur, &v)) {
            if (v.column == PK_NONE || v.context == PK_NONE) continue;
            if (v.context != last) context_path(p, v.context, path, cap);
            last = v.context;
            write_row(out, p, loc_name, path, &v);
        }
    }
    free(path);
    return ferror(out) ? pk_fail(PK_ERR_IO, "csv: write error") : PK_OK;
}
