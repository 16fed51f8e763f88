/*
 * cli/cmd_info.c — `profkit info`: what a profile holds, at a glance or
 * as JSON (schema in docs/json.md, "profkit.info/1").
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

static const char info_help[] =
    "Usage: profkit info [--json] PATH\n\n"
    "Show what a profile holds: format and version, title, which files exist,\n"
    "counts (contexts, metrics, locations, functions, modules, files, traces),\n"
    "what the format says about the whole profile beyond that (pprof's period,\n"
    "time, duration, comments, mappings; Cube's titles...), and for every\n"
    "metric the total of each scope's stored values over all contexts and all\n"
    "non-summary locations (from the summary statistics a file stores when\n"
    "they hold them: HPCToolkit's summary profile; the global option\n"
    "--recompute adds up the locations' values instead), and its program\n"
    "total. Metrics that nest (Cube's metric tree) are shown as the tree\n"
    "CubeGUI shows: each with its program total (inclusive: with the metrics\n"
    "below it) and its own part (exclusive).\n\n"
    "Options:\n"
    "  --json       machine-readable output (schema: docs/json.md, profkit.info/1)\n"
    "  -h, --help   show this help\n";

typedef struct info {
    pk_profile *p;
    pk_profile_info pi;
    double *totals;                       /* per column */
    double *programs;                     /* per metric, NaN if undefined */
    double *own;                          /* per metric: its own part along the metric tree */
    pk_index *first_child, *next_sibling; /* per metric: the metric tree, in index order */
    pk_values_from from;                  /* where the totals came from */
    size_t n_ctx_listed, n_ctx_unlisted, n_locs, n_summary_locs;
    uint64_t n_samples;
    size_t n_diag[3];
} info;

static int gather(info *in)
{
    pk_profile *p = in->p;
    pk_profile_get_info(p, &in->pi);
    size_t n_cols = pk_column_count(p);
    in->totals = calloc(n_cols ? n_cols : 1, sizeof *in->totals);
    if (!in->totals) return CLI_BAD;
    in->programs = calloc(pk_metric_count(p) + 1, sizeof *in->programs);
    if (!in->programs) return CLI_BAD;
    pk_status st = pk_profile_totals(p, in->totals, n_cols, in->programs, pk_metric_count(p));
    if (!st) st = pk_totals_source(p, &in->from);
    if (st) return cli_library_error("info", st);
    in->own = calloc(pk_metric_count(p) + 1, sizeof *in->own);
    if (!in->own) return CLI_BAD;
    st = pk_metric_tree_exclusive(p, in->programs, in->own, pk_metric_count(p));
    if (st) return cli_library_error("info", st);
    size_t nm = pk_metric_count(p);
    in->first_child = malloc((nm + 1) * sizeof *in->first_child);
    in->next_sibling = malloc((nm + 1) * sizeof *in->next_sibling);
    if (!in->first_child || !in->next_sibling) return CLI_BAD;
    for (size_t m = 0; m < nm; m++)
        in->first_child[m] = in->next_sibling[m] = PK_NONE;
    for (size_t m = nm; m-- > 0;) { /* prepended from the last: lists in index order */
        pk_metric met;
        pk_metric_get(p, (pk_index)m, &met);
        if (met.parent != PK_NONE && met.parent < nm && met.parent != m)
            in->next_sibling[m] = in->first_child[met.parent],
            in->first_child[met.parent] = (pk_index)m;
    }
    for (pk_index i = 1; i < pk_context_count(p); i++) {
        pk_context c;
        pk_context_get(p, i, &c);
        if (c.flags & PK_CTXF_UNLISTED)
            in->n_ctx_unlisted++;
        else
            in->n_ctx_listed++;
    }
    for (pk_index i = 0; i < pk_location_count(p); i++) {
        pk_location l;
        pk_location_get(p, i, &l);
        if (l.is_summary)
            in->n_summary_locs++;
        else
            in->n_locs++;
    }
    for (pk_index t = 0; t < pk_trace_count(p); t++) {
        pk_trace tr;
        pk_trace_get(p, t, &tr);
        in->n_samples += tr.n_samples;
    }
    for (size_t i = 0; i < pk_diagnostic_count(p); i++) {
        pk_diagnostic d;
        pk_diagnostic_get(p, i, &d);
        in->n_diag[d.severity]++;
    }
    return CLI_OK;
}

static const char *scope_kind_name(pk_scope_kind k)
{
    static const char *const names[] = {"point", "exclusive", "inclusive", "lex_aware", "other"};
    return (unsigned)k < 5 ? names[k] : "other";
}

static const char *stat_name(pk_stat s)
{
    static const char *const names[] = {"none", "sum", "count", "sumsq", "min", "max", "other"};
    return (unsigned)s < 7 ? names[s] : "other";
}

static const char *combine_name(pk_combine c)
{
    static const char *const names[] = {"sum", "min", "max", "other"};
    return (unsigned)c < 4 ? names[c] : "other";
}

/* ---- JSON ---- */

static void json_files(pk_json *j, const pk_profile *p)
{
    pk_json_key(j, "files");
    pk_json_array_begin(j);
    for (size_t i = 0; i < pk_source_count(p); i++) {
        pk_source s;
        pk_source_get(p, i, &s);
        char version[32];
        snprintf(version, sizeof version, "%u.%u", s.version_major, s.version_minor);
        pk_json_object_begin(j);
        pk_json_key(j, "name");
        pk_json_string(j, s.name);
        pk_json_key(j, "present");
        pk_json_bool(j, s.present);
        pk_json_key(j, "loaded");
        pk_json_bool(j, s.loaded);
        pk_json_key(j, "size");
        pk_json_uint(j, s.size);
        pk_json_key(j, "version");
        pk_json_string(j, s.present ? version : NULL);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

static void json_counts(pk_json *j, const info *in)
{
    const pk_profile *p = in->p;
    pk_json_key(j, "counts");
    pk_json_object_begin(j);
    cli_json_count(j, "contexts", in->n_ctx_listed);
    cli_json_count(j, "contexts_unlisted", in->n_ctx_unlisted);
    cli_json_count(j, "metrics", pk_metric_count(p));
    cli_json_count(j, "scopes", pk_scope_count(p));
    cli_json_count(j, "columns", pk_column_count(p));
    cli_json_count(j, "locations", in->n_locs);
    cli_json_count(j, "summary_locations", in->n_summary_locs);
    cli_json_count(j, "functions", pk_function_count(p));
    cli_json_count(j, "modules", pk_module_count(p));
    cli_json_count(j, "files", pk_file_count(p));
    cli_json_count(j, "trace_lines", pk_trace_count(p));
    cli_json_count(j, "trace_samples", in->n_samples);
    pk_json_object_end(j);
}

/* One metric's columns: plain ones under "scopes", summary ones under
 * "summaries". */
static void json_metric_columns(pk_json *j, const info *in, pk_index m, int summary)
{
    const pk_profile *p = in->p;
    pk_json_key(j, summary ? "summaries" : "scopes");
    pk_json_array_begin(j);
    for (pk_index c = 0; c < pk_column_count(p); c++) {
        pk_column col;
        pk_scope sc;
        pk_column_get(p, c, &col);
        if (col.metric != m || col.is_summary != summary) continue;
        pk_scope_get(p, col.scope, &sc);
        pk_json_object_begin(j);
        pk_json_key(j, "scope");
        pk_json_string(j, sc.name);
        pk_json_key(j, "kind");
        pk_json_string(j, scope_kind_name(sc.kind));
        if (summary) {
            pk_json_key(j, "formula");
            pk_json_string(j, col.formula);
            pk_json_key(j, "combine");
            pk_json_string(j, combine_name(col.combine));
            pk_json_key(j, "stat");
            pk_json_string(j, stat_name(col.stat));
        }
        pk_json_key(j, "total");
        pk_json_double(j, in->totals[c]);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

/* Its place in the metric tree: parent, children (names), and its own
 * part of the program total (less the children that add into it). */
static void json_metric_tree(pk_json *j, const info *in, pk_index m)
{
    const pk_profile *p = in->p;
    pk_metric met, other;
    pk_metric_get(p, m, &met);
    pk_json_key(j, "parent");
    if (met.parent != PK_NONE && pk_metric_get(p, met.parent, &other) == PK_OK)
        pk_json_string(j, other.name);
    else
        pk_json_null(j);
    pk_json_key(j, "children");
    pk_json_array_begin(j);
    for (pk_index c = in->first_child[m]; c != PK_NONE; c = in->next_sibling[c])
        if (pk_metric_get(p, c, &other) == PK_OK) pk_json_string(j, other.name);
    pk_json_array_end(j);
    pk_json_key(j, "exclusive_total");
    if (!isnan(in->own[m]))
        pk_json_double(j, in->own[m]);
    else
        pk_json_null(j);
}

static void json_metrics(pk_json *j, const info *in)
{
    const pk_profile *p = in->p;
    pk_json_key(j, "metrics");
    pk_json_array_begin(j);
    for (pk_index m = 0; m < pk_metric_count(p); m++) {
        pk_metric met;
        double total;
        pk_metric_get(p, m, &met);
        pk_json_object_begin(j);
        pk_json_key(j, "name");
        pk_json_string(j, met.name);
        pk_json_key(j, "unit");
        pk_json_string(j, met.unit);
        pk_json_key(j, "program_total");
        if (!isnan(total = in->programs[m]))
            pk_json_double(j, total);
        else
            pk_json_null(j);
        if ((met.combine == PK_COMBINE_MIN || met.combine == PK_COMBINE_MAX) &&
            pk_metric_cell_total(p, m, &total) == PK_OK) { /* CubeLib's figure (docs/json.md) */
            pk_json_key(j, "program_total_all_cells");
            pk_json_double(j, total);
        }
        double lines;
        if (pk_metric_stated_total(p, m, NULL, &lines) == PK_OK) { /* the file states the total */
            pk_json_key(j, "cost_lines_total");
            pk_json_double(j, lines);
        }
        json_metric_tree(j, in, m);
        json_metric_columns(j, in, m, 0);
        json_metric_columns(j, in, m, 1);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

/* The profile's attributes (what its format says beyond the model). */
static void json_attributes(pk_json *j, const pk_profile *p)
{
    size_t first, n;
    pk_json_key(j, "attributes");
    pk_json_array_begin(j);
    if (pk_attribute_range(p, PK_ENTITY_PROFILE, 0, &first, &n) != PK_OK) n = 0;
    for (size_t i = first; i < first + n; i++) {
        pk_attribute a;
        if (pk_attribute_get(p, i, &a)) continue;
        pk_json_object_begin(j);
        pk_json_key(j, "key");
        pk_json_string(j, a.key);
        pk_json_key(j, "value");
        pk_json_string(j, a.value);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

static void json_trace_range(pk_json *j, const pk_profile *p)
{
    uint64_t b, e;
    pk_json_key(j, "trace_range");
    if (pk_trace_range(p, &b, &e) != PK_OK) {
        pk_json_null(j);
        return;
    }
    pk_json_object_begin(j);
    pk_json_key(j, "begin_ns");
    pk_json_uint(j, b);
    pk_json_key(j, "end_ns");
    pk_json_uint(j, e);
    pk_json_object_end(j);
}

static int print_json(const info *in)
{
    pk_json j;
    char version[32];
    snprintf(version, sizeof version, "%u.%u", in->pi.version_major, in->pi.version_minor);
    pk_json_init(&j, stdout, 1);
    pk_json_object_begin(&j);
    pk_json_key(&j, "schema");
    pk_json_string(&j, "profkit.info/1");
    pk_json_key(&j, "path");
    pk_json_string(&j, in->pi.path);
    pk_json_key(&j, "format");
    pk_json_string(&j, in->pi.format_name);
    pk_json_key(&j, "version");
    pk_json_string(&j, version);
    if (in->pi.layout) { /* only for formats with several layouts under one version */
        pk_json_key(&j, "layout");
        pk_json_string(&j, in->pi.layout);
    }
    pk_json_key(&j, "title");
    pk_json_string(&j, in->pi.title);
    pk_json_key(&j, "description");
    pk_json_string(&j, in->pi.description);
    pk_json_completeness(&j, in->p);
    pk_json_key(&j, "reconstructed");
    pk_json_bool(&j, in->pi.reconstructed);
    json_files(&j, in->p);
    json_counts(&j, in);
    json_trace_range(&j, in->p);
    pk_json_key(&j, "values_from"); /* the totals' source (docs/json.md) */
    pk_json_string(&j, pk_values_from_name(in->from));
    json_attributes(&j, in->p);
    cli_info_callgraph_json(&j, in->p);
    json_metrics(&j, in);
    pk_index dm;
    pk_metric dmet;
    pk_json_key(&j, "default_metric"); /* what views show when no metric is named */
    if (pk_metric_default(in->p, &dm) == PK_OK && pk_metric_get(in->p, dm, &dmet) == PK_OK)
        pk_json_string(&j, dmet.name);
    else
        pk_json_null(&j);
    pk_json_key(&j, "diagnostics");
    pk_json_object_begin(&j);
    cli_json_count(&j, "errors", in->n_diag[PK_SEV_ERROR]);
    cli_json_count(&j, "warnings", in->n_diag[PK_SEV_WARNING]);
    cli_json_count(&j, "notes", in->n_diag[PK_SEV_NOTE]);
    pk_json_object_end(&j);
    pk_json_object_end(&j);
    return cli_json_done("info", &j);
}

/* ---- text ---- */

static void text_files(const pk_profile *p)
{
    printf("  %-12s ", "files");
    for (size_t i = 0; i < pk_source_count(p); i++) {
        pk_source s;
        char size[32];
        pk_source_get(p, i, &s);
        if (s.present)
            printf("%s%s %s%s", i ? ", " : "", cli_text(s.name),
                   cli_bytes(size, sizeof size, s.size), s.loaded ? "" : " (not loaded)");
        else
            printf("%s%s absent", i ? ", " : "", cli_text(s.name));
    }
    printf("\n");
}

/* The identifier kinds of the first non-summary location: "NODE / THREAD". */
static void text_id_kinds(const pk_profile *p)
{
    for (pk_index i = 0; i < pk_location_count(p); i++) {
        pk_location l;
        pk_location_get(p, i, &l);
        if (l.is_summary || l.n_ids == 0) continue;
        printf(", identified by ");
        for (size_t k = 0; k < l.n_ids; k++)
            printf("%s%s", k ? " / " : "", l.ids[k].kind_name ? cli_text(l.ids[k].kind_name) : "?");
        break;
    }
    printf("\n");
}

static void text_traces(const info *in)
{
    uint64_t b, e;
    if (pk_trace_range(in->p, &b, &e) != PK_OK) {
        printf("  %-12s none\n", "traces");
        return;
    }
    time_t secs = (time_t)(b / 1000000000u);
    struct tm tm;
    char when[32] = "?";
    if (gmtime_r(&secs, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    printf("  %-12s %zu lines, %llu samples, %.6f s from %s UTC\n", "traces", pk_trace_count(in->p),
           (unsigned long long)in->n_samples, (double)(e - b) / 1e9, when);
}

/* A time in ns since the epoch, or a duration in ns, said in words. */
static void nanos_note(const char *key, const char *value)
{
    size_t n = strlen(key);
    long long v = strtoll(value, NULL, 10);
    if (n >= 10 && strcmp(key + n - 10, "time_nanos") == 0 && v > 0) {
        time_t secs = (time_t)(v / 1000000000);
        struct tm tm;
        char when[40];
        if (gmtime_r(&secs, &tm) && strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm))
            printf(" (%s)", when);
    } else if (n >= 14 && strcmp(key + n - 14, "duration_nanos") == 0) {
        printf(" (%.6g s)", (double)v / 1e9);
    }
}

/* The profile's attributes, one line each (a long or multi-line value by
 * its size: `profkit info --json` has it whole). */
static void text_attributes(const pk_profile *p)
{
    size_t first, n;
    if (pk_attribute_range(p, PK_ENTITY_PROFILE, 0, &first, &n) != PK_OK || !n) return;
    printf("  attributes\n");
    for (size_t i = first; i < first + n; i++) {
        pk_attribute a;
        if (pk_attribute_get(p, i, &a)) continue;
        size_t len = strlen(a.value), lines = 1;
        for (const char *c = a.value; *c; c++)
            lines += *c == '\n' && c[1];
        printf("    %-28s ", cli_text(a.key));
        if (len > 200 || lines > 1)
            printf("(%zu bytes, %zu lines)\n", len, lines);
        else
            printf("%s", cli_text(a.value)), nanos_note(a.key, a.value), printf("\n");
    }
}

static void text_metric(const info *in, pk_index m)
{
    const pk_profile *p = in->p;
    pk_metric met;
    pk_metric_get(p, m, &met);
    int first = 1;
    for (pk_index c = 0; c < pk_column_count(p); c++) {
        pk_column col;
        pk_scope sc;
        pk_column_get(p, c, &col);
        if (col.metric != m || col.is_summary) continue;
        pk_scope_get(p, col.scope, &sc);
        printf("  %-30s %-10s %.10g\n", first ? cli_text(met.name) : "", cli_text(sc.name),
               in->totals[c]);
        first = 0;
    }
    if (first) printf("  %-30s (no values)\n", cli_text(met.name));
}

static void print_text(const info *in)
{
    const pk_profile *p = in->p;
    char version[48] = ""; /* a format with no version number (pprof) says none */
    if (in->pi.version_major || in->pi.version_minor)
        snprintf(version, sizeof version, ", format %u.%u", in->pi.version_major,
                 in->pi.version_minor);
    printf("%s: %s %s%s%s%s%s%s\n", cli_text(in->pi.path), in->pi.format_name,
           in->pi.format == PK_FORMAT_HPCTOOLKIT_V4 ? "database" : "profile", version,
           in->pi.layout ? " (" : "", in->pi.layout ? in->pi.layout : "",
           in->pi.layout ? " layout)" : "",
           in->pi.complete ? "" : " (INCOMPLETE: damaged parts were not loaded)");
    printf("  %-12s %s\n", "title", cli_text(in->pi.title));
    text_files(p);
    pk_cg_summary cgs;
    if (!in->n_ctx_listed && pk_callgraph_summary(p, &cgs) == PK_OK)
        printf("  %-12s none: a call graph (tree, flame and convert reconstruct a tree)\n",
               "contexts");
    else
        printf("  %-12s %zu in the tree, %zu unlisted (values only)%s\n", "contexts",
               in->n_ctx_listed, in->n_ctx_unlisted,
               in->pi.reconstructed
                   ? "\n               RECONSTRUCTED from the call graph: approximate"
                   : "");
    printf("  %-12s %zu functions, %zu load modules, %zu source files\n", "code",
           pk_function_count(p), pk_module_count(p), pk_file_count(p));
    printf("  %-12s %zu (+%zu summary)", "locations", in->n_locs, in->n_summary_locs);
    text_id_kinds(p);
    text_traces(in);
    text_attributes(p);
    cli_info_callgraph(p);
    printf("  %-12s %zu\n\n", "metrics", pk_metric_count(p));
    int tree = cli_info_has_metric_tree(p);
    if (tree) {
        cli_info_metric_tree(p, in->programs, in->own);
    } else {
        printf("  %-30s %-10s %s\n", "metric", "scope", "total over contexts and locations");
        for (pk_index m = 0; m < pk_metric_count(p); m++)
            text_metric(in, m);
    }
    if (in->from == PK_VALUES_SUMMARY) /* not the profiles' values added up here */
        printf("  (totals from the summary profile's statistics over the %zu profiles;\n"
               "   'profkit --recompute info' adds up the profiles' values)\n",
               in->n_locs);
    printf("\n");
    for (pk_index m = 0; m < pk_metric_count(p); m++) {
        pk_metric met;
        double total;
        pk_metric_get(p, m, &met);
        if (!isnan(total = in->programs[m]) && !tree)
            printf("  program total of %s: %.15g\n", cli_text(met.name), total);
        double stated, lines;
        if (pk_metric_stated_total(p, m, &stated, &lines) == PK_OK && stated != lines)
            printf("    (as the file's summary:/totals: lines state it; its cost lines add up "
                   "to %.15g)\n",
                   lines);
        double cells;
        if ((met.combine == PK_COMBINE_MIN || met.combine == PK_COMBINE_MAX) && !isnan(total) &&
            pk_metric_cell_total(p, m, &cells) == PK_OK && cells != total)
            printf("  %s%s%s(over all cells, an unvisited one as 0, as CubeLib and pycubexr: "
                   "%.15g)\n",
                   tree ? "program total of " : "  ", tree ? cli_text(met.name) : "",
                   tree ? " " : "", cells);
    }
    size_t n = in->n_diag[0] + in->n_diag[1] + in->n_diag[2];
    if (n)
        printf("\n  %zu errors, %zu warnings, %zu notes: run 'profkit check %s' for details\n",
               in->n_diag[2], in->n_diag[1], in->n_diag[0], cli_text(in->pi.path));
}

int cmd_info(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {0}};
    int json = 0, c;
    while ((c = cli_getopt("info", argc, argv, "h", opts)) != -1) {
        if (c == 'j')
            json = 1;
        else if (c == 'h')
            return fputs(info_help, stdout), CLI_OK;
        else
            return cli_bad_option("info");
    }
    info in = {0};
    /* a call graph needs no tree for what info says: its totals are the
     * call graph's (at the root) */
    int rc = cli_open_arg("info", argc, argv, PK_OPEN_BY_FUNCTION | PK_OPEN_NO_TREE, NULL, &in.p);
    if (rc) return rc;
    rc = gather(&in);
    if (rc == CLI_OK && json)
        rc = print_json(&in);
    else if (rc == CLI_OK)
        print_text(&in);
    free(in.totals);
    free(in.programs);
    free(in.own);
    free(in.first_child);
    free(in.next_sibling);
    return cli_close("info", in.p, rc);
}
