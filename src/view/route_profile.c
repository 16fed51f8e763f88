/*
 * view/route_profile.c — /api/profile: what the page needs before any
 * view: title, format, completeness, the metrics with their totals, the
 * default metric, the locations (a bounded number), which panes apply,
 * and the same for the --base profile; in a report, what was pruned.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "view/view.h"

#define MAX_LOCATIONS 10000

static const char *const profile_params[] = {NULL};

static void write_metrics(pk_json *j, const pk_profile *p)
{
    size_t n = pk_metric_count(p), nc = pk_column_count(p);
    /* every metric's total in one pass over the values */
    double *columns = malloc((nc ? nc : 1) * sizeof *columns);
    double *totals = malloc((n ? n : 1) * sizeof *totals);
    if (!columns || !totals || pk_profile_totals(p, columns, nc, totals, n) != PK_OK)
        for (size_t m = 0; totals && m < n; m++)
            if (pk_metric_program_total(p, (pk_index)m, &totals[m])) totals[m] = NAN;
    pk_json_key(j, "metrics");
    pk_json_array_begin(j);
    for (pk_index m = 0; m < n; m++) {
        pk_metric met;
        pk_index col;
        pk_metric_get(p, m, &met);
        pk_json_object_begin(j);
        pk_json_key(j, "name");
        pk_json_string(j, met.name);
        pk_json_key(j, "unit");
        pk_json_string(j, met.unit);
        pk_json_key(j, "description");
        pk_json_string(j, met.description);
        pk_json_key(j, "total");
        pk_json_double(j, totals ? totals[m] : NAN);
        /* exclusive values exist when stored, or derivable (sum-like) */
        pk_json_key(j, "exclusive");
        pk_json_bool(j, met.combine == PK_COMBINE_SUM ||
                            pk_column_find(p, m, PK_SCOPE_EXCLUSIVE, &col) == PK_OK);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
    free(columns), free(totals);
}

static void write_locations(pk_json *j, const pk_profile *p, pk_index metric)
{
    size_t n = pk_location_count(p), listed = 0, real = 0;
    double *totals = calloc(n ? n : 1, sizeof *totals);
    if (totals && pk_location_totals(p, metric, totals, n) != PK_OK)
        for (size_t i = 0; i < n; i++)
            totals[i] = NAN;
    pk_json_key(j, "locations");
    pk_json_array_begin(j);
    for (pk_index i = 0; i < n; i++) {
        pk_location loc;
        if (pk_location_get(p, i, &loc) || loc.is_summary) continue;
        real++;
        if (listed == MAX_LOCATIONS) continue;
        listed++;
        pk_json_object_begin(j);
        pk_json_key(j, "index");
        pk_json_uint(j, i);
        pk_json_key(j, "name");
        pk_json_location_name(j, p, i);
        pk_json_key(j, "total");
        pk_json_double(j, totals ? totals[i] : NAN);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
    pk_json_key(j, "locations_total");
    pk_json_uint(j, real);
    free(totals);
}

static const char *base_name(const char *path)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    const char *slash = NULL;
    for (size_t i = 0; i + 1 < len; i++)
        if (path[i] == '/') slash = path + i;
    return slash ? slash + 1 : path;
}

static void write_side(pk_json *j, const pkv_side *sd)
{
    pk_profile_info info;
    pk_profile_get_info(sd->p, &info);
    pk_metric met;
    pk_metric_get(sd->p, sd->default_metric, &met);
    pk_json_key(j, "title");
    pk_json_string(j, info.title ? info.title : base_name(sd->path));
    pk_json_key(j, "path");
    pk_json_string(j, sd->path);
    pk_json_key(j, "format");
    pk_json_string(j, info.format_name);
    pk_json_completeness(j, sd->p);
    pk_json_key(j, "callgraph");
    pk_cg_summary cg;
    pk_json_bool(j, pk_callgraph_summary(sd->p, &cg) == PK_OK);
    pk_json_key(j, "reconstructed");
    pk_json_bool(j, info.reconstructed);
    write_metrics(j, sd->p);
    pk_json_key(j, "default_metric");
    pk_json_string(j, met.name);
    write_locations(j, sd->p, sd->default_metric);
}

static void write_features(pk_json *j, const pkv_session *s)
{
    pk_json_key(j, "features");
    pk_json_object_begin(j);
    pk_json_key(j, "trace");
    pk_json_bool(j, pk_trace_count(s->side[0].p) > 0);
    pk_json_key(j, "source");
    pk_json_bool(j, pk_file_count(s->side[0].p) > 0);
    pk_json_key(j, "base");
    pk_json_bool(j, s->side[1].p != NULL);
    pk_json_object_end(j);
}

static void write_report(pk_json *j, const pkv_session *s)
{
    pk_json_key(j, "report");
    if (!s->report) {
        pk_json_null(j);
        return;
    }
    pk_json_object_begin(j);
    pk_json_key(j, "threshold");
    pk_json_double(j, s->threshold);
    pk_json_key(j, "generated");
    pk_json_string(j, s->generated);
    pk_json_key(j, "note");
    pk_json_string(j, s->report_note);
    pk_json_object_end(j);
}

static void write_profile(pk_json *j, const pkv_session *s)
{
    pk_json_object_begin(j);
    pk_json_key(j, "schema");
    pk_json_string(j, "profkit.view.profile/1");
    write_side(j, &s->side[0]);
    write_report(j, s);
    pk_json_key(j, "page_threshold"); /* the page's default: what the server prepared */
    pk_json_double(j, PKV_PAGE_THRESHOLD);
    write_features(j, s);
    pk_json_key(j, "base");
    if (s->side[1].p) {
        pk_json_object_begin(j);
        write_side(j, &s->side[1]);
        pk_json_object_end(j);
    } else {
        pk_json_null(j);
    }
    pk_json_object_end(j);
}

/* Made once: the profiles never change while served (the report sets
 * its threshold before it asks). */
int pkv_route_profile(pkv_session *s, const pkv_query *q, FILE *out, char *err, size_t size)
{
    if (!pkv_only(q, profile_params, err, size)) return 400;
    if (!s->profile_doc) {
        FILE *f = open_memstream(&s->profile_doc, &s->profile_len);
        if (!f) return snprintf(err, size, "out of memory"), 500;
        pk_json j;
        pk_json_init(&j, f, 0);
        write_profile(&j, s);
        pk_status st = pk_json_finish(&j);
        fclose(f);
        if (st) {
            free(s->profile_doc), s->profile_doc = NULL;
            return snprintf(err, size, "%s", pk_error_last()), 500;
        }
    }
    fwrite(s->profile_doc, 1, s->profile_len, out);
    return 200;
}
