/*
 * tests/support/model_compare.c — asserting that two profiles hold the
 * same model, through the public API only.
 */
#include "support/pk_cmocka.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/model_compare.h"

static const char *label_;
static int v40_;    /* b is a's intermediate v4.0 rewrite */
static int shaped_; /* b is a written by the HPCToolkit writer after shaping */

#define SAME(what, x, y)                                                                           \
    do {                                                                                           \
        if ((x) != (y))                                                                            \
            fail_msg("%s: %s differs: %llu != %llu", label_, what, (unsigned long long)(x),        \
                     (unsigned long long)(y));                                                     \
    } while (0)

static void same_str(const char *what, const char *x, const char *y)
{
    if ((x == NULL) != (y == NULL) || (x && strcmp(x, y) != 0))
        fail_msg("%s: %s differs: \"%s\" != \"%s\"", label_, what, x ? x : "(null)",
                 y ? y : "(null)");
}

static uint64_t bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static void same_dimensions(const pk_profile *a, const pk_profile *b)
{
    pk_profile_info ia, ib;
    pk_profile_get_info(a, &ia);
    pk_profile_get_info(b, &ib);
    same_str("title", ia.title, ib.title);
    same_str("description", ia.description, ib.description);
    SAME("module count", pk_module_count(a), pk_module_count(b));
    for (pk_index i = 0; i < pk_module_count(a); i++) {
        pk_module x, y;
        pk_module_get(a, i, &x);
        pk_module_get(b, i, &y);
        same_str("module path", x.path, y.path);
    }
    SAME("file count", pk_file_count(a), pk_file_count(b));
    for (pk_index i = 0; i < pk_file_count(a); i++) {
        pk_file x, y;
        pk_file_get(a, i, &x);
        pk_file_get(b, i, &y);
        same_str("file path", x.path, y.path);
        SAME("file flags", x.flags, y.flags);
    }
    if (!v40_) SAME("function count", pk_function_count(a), pk_function_count(b));
    for (pk_index i = pk_function_count(a); i < pk_function_count(b); i++) {
        pk_function y;
        pk_function_get(b, i, &y);
        if (!v40_ || !y.name || y.module != PK_NONE || y.file != PK_NONE)
            fail_msg("%s: function %u is extra and not a name-only placeholder", label_, i);
    }
    for (pk_index i = 0; i < pk_function_count(a); i++) {
        pk_function x, y;
        pk_function_get(a, i, &x);
        pk_function_get(b, i, &y);
        same_str("function name", x.name, y.name);
        SAME("function module", x.module, y.module);
        SAME("function offset", x.offset, y.offset);
        SAME("function file", x.file, y.file);
        SAME("function line", x.line, y.line);
    }
}

static void same_contexts(const pk_profile *a, const pk_profile *b)
{
    SAME("context count", pk_context_count(a), pk_context_count(b));
    for (pk_index i = 0; i < pk_context_count(a); i++) {
        pk_context x, y;
        pk_context_get(a, i, &x);
        pk_context_get(b, i, &y);
        SAME("context id", x.id, y.id);
        SAME("context parent", x.parent, y.parent);
        SAME("context n_children", x.n_children, y.n_children);
        if (x.n_children) SAME("context first_child", x.first_child, y.first_child);
        SAME("context depth", x.depth, y.depth);
        SAME("context kind", x.kind, y.kind);
        SAME("context relation", x.relation, y.relation);
        SAME("context entry", x.entry, y.entry);
        same_str("context entry name", x.entry_name, y.entry_name);
        SAME("context flags", x.flags, y.flags);
        SAME("context function", x.function, y.function);
        SAME("context file", x.file, y.file);
        SAME("context line", x.line, y.line);
        SAME("context module", x.module, y.module);
        SAME("context offset", x.offset, y.offset);
        if (shaped_) continue; /* bits and raw values are what the writer wrote */
        SAME("context propagation", x.propagation, y.propagation);
        SAME("context raw kind", x.raw_kind, y.raw_kind);
        SAME("context raw relation", x.raw_relation, y.raw_relation);
        SAME("context raw entry", x.raw_entry, y.raw_entry);
    }
}

static void same_metrics(const pk_profile *a, const pk_profile *b)
{
    SAME("metric count", pk_metric_count(a), pk_metric_count(b));
    for (pk_index i = 0; i < pk_metric_count(a); i++) {
        pk_metric x, y;
        pk_metric_get(a, i, &x);
        pk_metric_get(b, i, &y);
        same_str("metric name", x.name, y.name);
        if (!v40_) /* b's images carry no metrics/default.yaml, where descriptions are */
            same_str("metric description", x.description, y.description);
        same_str("metric unit", x.unit, y.unit);
        SAME("metric parent", x.parent, y.parent);
        SAME("metric combine", x.combine, y.combine);
    }
    SAME("scope count", pk_scope_count(a), pk_scope_count(b));
    for (pk_index i = 0; i < pk_scope_count(a); i++) {
        pk_scope x, y;
        pk_scope_get(a, i, &x);
        pk_scope_get(b, i, &y);
        same_str("scope name", x.name, y.name);
        SAME("scope kind", x.kind, y.kind);
        SAME("scope raw type", x.raw_type, y.raw_type);
        SAME("scope propagation index", x.propagation_index, y.propagation_index);
    }
    SAME("column count", pk_column_count(a), pk_column_count(b));
    for (pk_index i = 0; i < pk_column_count(a); i++) {
        pk_column x, y;
        pk_column_get(a, i, &x);
        pk_column_get(b, i, &y);
        SAME("column metric", x.metric, y.metric);
        SAME("column scope", x.scope, y.scope);
        SAME("column is_summary", x.is_summary, y.is_summary);
        SAME("column stat", x.stat, y.stat);
        same_str("column formula", x.formula, y.formula);
        SAME("column combine", x.combine, y.combine);
        SAME("column raw id", x.raw_id, y.raw_id);
    }
}

static void same_cursor(pk_cursor *ca, pk_cursor *cb, const char *where, pk_index outer)
{
    pk_value x, y;
    for (uint64_t k = 0;; k++) {
        int ha = pk_cursor_next(ca, &x), hb = pk_cursor_next(cb, &y);
        if (ha != hb)
            fail_msg("%s: %s %u: value count differs (one ends after %llu)", label_, where, outer,
                     (unsigned long long)k);
        if (!ha) return;
        if (x.context != y.context || x.column != y.column || x.location != y.location ||
            bits(x.value) != bits(y.value))
            fail_msg("%s: %s %u value %llu differs: (ctx %u, col %u, loc %u, %.17g) != "
                     "(ctx %u, col %u, loc %u, %.17g)",
                     label_, where, outer, (unsigned long long)k, x.context, x.column, x.location,
                     x.value, y.context, y.column, y.location, y.value);
    }
}

static void same_identifiers(const pk_location *x, const pk_location *y)
{
    SAME("identifier count", x->n_ids, y->n_ids);
    for (size_t k = 0; k < x->n_ids; k++) {
        SAME("identifier kind", x->ids[k].kind, y->ids[k].kind);
        same_str("identifier kind name", x->ids[k].kind_name, y->ids[k].kind_name);
        SAME("identifier flags", x->ids[k].flags, y->ids[k].flags);
        SAME("identifier logical id", x->ids[k].logical, y->ids[k].logical);
        SAME("identifier physical id", x->ids[k].physical, y->ids[k].physical);
    }
}

static void same_locations_and_values(const pk_profile *a, const pk_profile *b)
{
    SAME("location count", pk_location_count(a), pk_location_count(b));
    for (pk_index l = 0; l < pk_location_count(a); l++) {
        pk_location x, y;
        pk_location_get(a, l, &x);
        pk_location_get(b, l, &y);
        SAME("location is_summary", x.is_summary, y.is_summary);
        SAME("location n_values", x.n_values, y.n_values);
        SAME("location n_contexts", x.n_contexts, y.n_contexts);
        SAME("location trace", x.trace, y.trace);
        same_identifiers(&x, &y);
        pk_cursor ca, cb;
        pk_location_values_begin(a, l, &ca);
        pk_location_values_begin(b, l, &cb);
        same_cursor(&ca, &cb, "location", l);
    }
    for (pk_index c = 0; c < pk_context_count(a); c++) {
        pk_cursor ca, cb;
        if (pk_context_values_begin(a, c, &ca) || pk_context_values_begin(b, c, &cb))
            fail_msg("%s: context values: %s", label_, pk_error_last());
        same_cursor(&ca, &cb, "context", c);
    }
}

static void same_traces(const pk_profile *a, const pk_profile *b)
{
    SAME("trace count", pk_trace_count(a), pk_trace_count(b));
    uint64_t ba = 0, ea = 0, bb = 0, eb = 0;
    pk_status sa_ = pk_trace_range(a, &ba, &ea), sb_ = pk_trace_range(b, &bb, &eb);
    if (v40_) /* no stored range: b has its samples' own (checked below) */
        ba = UINT64_MAX, ea = 0;
    else {
        SAME("trace range status", sa_, sb_);
        SAME("trace range begin", ba, bb);
        SAME("trace range end", ea, eb);
    }
    for (pk_index t = 0; t < pk_trace_count(a); t++) {
        pk_trace x, y;
        pk_trace_get(a, t, &x);
        pk_trace_get(b, t, &y);
        SAME("trace location", x.location, y.location);
        SAME("trace samples", x.n_samples, y.n_samples);
        pk_sample sa[256], sb[256];
        for (uint64_t first = 0; first < x.n_samples; first += 256) {
            size_t na = 0, nb = 0;
            pk_trace_samples(a, t, first, 256, sa, &na);
            pk_trace_samples(b, t, first, 256, sb, &nb);
            SAME("trace sample batch", na, nb);
            for (size_t k = 0; k < na; k++) {
                SAME("sample time", sa[k].time, sb[k].time);
                SAME("sample context id", sa[k].raw_id, sb[k].raw_id);
                SAME("sample context", sa[k].context, sb[k].context);
                if (sa[k].time < ba) ba = sa[k].time;
                if (sa[k].time > ea) ea = sa[k].time;
            }
        }
    }
    if (v40_ && ba <= ea) {
        SAME("trace range status (samples)", PK_OK, sb_);
        SAME("trace range begin (samples)", ba, bb);
        SAME("trace range end (samples)", ea, eb);
    } else if (v40_) {
        SAME("trace range status (no samples)", PK_ERR_NOT_FOUND, sb_);
    }
}

void tu_assert_same_model_v40(const pk_profile *a, const pk_profile *b, const char *label)
{
    v40_ = 1;
    tu_assert_same_model(a, b, label);
    v40_ = 0;
}

void tu_assert_same_model(const pk_profile *a, const pk_profile *b, const char *label)
{
    label_ = label;
    same_dimensions(a, b);
    same_contexts(a, b);
    same_metrics(a, b);
    same_locations_and_values(a, b);
    same_traces(a, b);
}

/* ---- b written by the HPCToolkit writer from a model it had to shape ---- */

/* b's column holding a's column `i`: same metric, a scope of the same kind
 * (custom scopes: the same name), same statistic; PK_NONE when b holds no
 * such column (a statistic HPCToolkit keeps as partials instead). */
static pk_index image_of(const pk_profile *a, const pk_profile *b, pk_index i)
{
    pk_column x;
    pk_scope sx;
    pk_column_get(a, i, &x);
    pk_scope_get(a, x.scope, &sx);
    for (pk_index j = 0; j < pk_column_count(b); j++) {
        pk_column y;
        pk_scope sy;
        pk_column_get(b, j, &y);
        pk_scope_get(b, y.scope, &sy);
        if (y.metric != x.metric || y.is_summary != x.is_summary || sy.kind != sx.kind ||
            (sx.kind == PK_SCOPE_OTHER && strcmp(sx.name, sy.name) != 0))
            continue;
        if (!x.is_summary) return j;
        if (x.stat == PK_STAT_OTHER && x.formula && !strcmp(x.formula, "raw") &&
            y.stat == PK_STAT_SUM)
            return j; /* legacy "raw": the summary's own values, as its Sum */
        if (y.stat == x.stat && y.combine == x.combine && x.stat != PK_STAT_OTHER) return j;
    }
    return PK_NONE;
}

static void shaped_metrics(const pk_profile *a, const pk_profile *b, pk_index *map)
{
    SAME("metric count", pk_metric_count(a), pk_metric_count(b));
    for (pk_index i = 0; i < pk_metric_count(a); i++) {
        pk_metric x, y;
        pk_metric_get(a, i, &x);
        pk_metric_get(b, i, &y);
        same_str("metric name", x.name, y.name);
        same_str("metric description", x.description, y.description);
        same_str("metric unit", x.unit, y.unit);
        SAME("metric combine", x.combine, y.combine);
    }
    for (pk_index i = 0; i < pk_column_count(a); i++) {
        pk_column x;
        pk_column_get(a, i, &x);
        map[i] = image_of(a, b, i);
        if (map[i] == PK_NONE && (!x.is_summary || x.stat != PK_STAT_OTHER))
            fail_msg("%s: column %u (metric %u) has no counterpart", label_, i, x.metric);
    }
}

/* Every value of a (in a column b holds) is in b, bit for bit, and b
 * holds no other value in those columns. */
static void shaped_values(const pk_profile *a, const pk_profile *b, const pk_index *map)
{
    SAME("location count", pk_location_count(a), pk_location_count(b));
    unsigned char *image = calloc(pk_column_count(b) + 1, 1);
    for (pk_index i = 0; i < pk_column_count(a); i++)
        if (map[i] != PK_NONE) image[map[i]] = 1;
    for (pk_index l = 0; l < pk_location_count(a); l++) {
        pk_location x, y;
        pk_location_get(a, l, &x);
        pk_location_get(b, l, &y);
        SAME("location is_summary", x.is_summary, y.is_summary);
        SAME("identifier count", x.n_ids, y.n_ids);
        for (size_t k = 0; k < x.n_ids; k++) {
            char made[32]; /* a kind without a name is written under one */
            snprintf(made, sizeof made, "KIND%u", x.ids[k].kind);
            same_str("identifier kind name", x.ids[k].kind_name ? x.ids[k].kind_name : made,
                     y.ids[k].kind_name);
            SAME("identifier logical id", x.ids[k].logical, y.ids[k].logical);
            SAME("identifier physical id", x.ids[k].physical, y.ids[k].physical);
        }
        pk_cursor c;
        pk_value v;
        uint64_t na = 0, nb = 0;
        pk_location_values_begin(a, l, &c);
        while (pk_cursor_next(&c, &v)) {
            if (v.column == PK_NONE || map[v.column] == PK_NONE) continue;
            double w;
            pk_value_lookup(b, l, v.context, map[v.column], &w);
            if (bits(v.value) != bits(w))
                fail_msg("%s: location %u context %u column %u: %.17g != %.17g", label_, l,
                         v.context, v.column, v.value, w);
            na++;
        }
        pk_location_values_begin(b, l, &c);
        while (pk_cursor_next(&c, &v))
            nb += v.column != PK_NONE && image[v.column];
        SAME("values in the source's columns", na, nb);
    }
    free(image);
}

void tu_assert_same_model_shaped(const pk_profile *a, const pk_profile *b, const char *label)
{
    label_ = label;
    shaped_ = 1;
    pk_index *map = calloc(pk_column_count(a) + 1, sizeof *map);
    same_dimensions(a, b);
    same_contexts(a, b);
    shaped_metrics(a, b, map);
    shaped_values(a, b, map);
    same_traces(a, b);
    free(map);
    shaped_ = 0;
}
