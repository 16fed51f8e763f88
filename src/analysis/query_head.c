/*
 * analysis/query_head.c — what every answer carries whatever it lists:
 * the profile, where its values come from, the selection, its columns,
 * and its notes, each said once (a reconstructed tree, a derived scope, a
 * focus), written by one function into every JSON document.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/qry.h"
#include "util/error.h"

char *pkq_strdup(pk_arena *a, const char *s)
{
    return s ? pk_arena_strndup(a, s, strlen(s)) : NULL;
}

pk_status pkq_head_init(pk_answer_head *h, pk_arena *a, const pk_profile *p, const pk_query *q,
                        const char *source, size_t n_columns)
{
    memset(h, 0, sizeof *h);
    h->profile = p;
    h->source = source;
    h->stat = pkq_stat_name(q->stat);
    h->location = pkq_strdup(a, pkq_text(q, PKQ_LOCATION));
    h->n_columns = n_columns;
    h->columns = pk_arena_array(a, n_columns ? n_columns : 1, sizeof *h->columns);
    h->notes = pk_arena_array(a, 8, sizeof *h->notes);
    if (!h->columns || !h->notes || (pkq_text(q, PKQ_LOCATION) && !h->location))
        return pk_fail_nomem("an answer");
    return PK_OK;
}

pk_status pkq_note(pk_answer_head *h, pk_arena *a, const char *code, const char *fmt, ...)
{
    for (size_t i = 0; i < h->n_notes; i++)
        if (strcmp(h->notes[i].code, code) == 0) return PK_OK;
    if (h->n_notes == 8) return PK_OK; /* there are fewer kinds than that */
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    pk_answer_note *n = &h->notes[h->n_notes];
    n->code = code;
    if (!(n->text = pkq_strdup(a, text))) return pk_fail_nomem("an answer's note");
    h->n_notes++;
    return PK_OK;
}

/* A reconstructed tree's "<no caller>" entry: how much of the cost the
 * call graph gives no caller (the program's entry aside). */
static pk_status note_no_caller(pk_answer_head *h, pk_arena *a, const pkq_values *v)
{
    pk_context root, c;
    if (pk_context_get(h->profile, 0, &root) != PK_OK) return PK_OK;
    for (uint32_t k = 0; k < root.n_children; k++) {
        pk_index i = root.first_child + k;
        if (pk_context_get(h->profile, i, &c) || !c.entry_name ||
            strcmp(c.entry_name, "<no caller>"))
            continue;
        return pkq_note(h, a, "no_caller",
                        "%.3g%% of the cost has no caller in the call graph: under <no caller>",
                        v->total ? 100.0 * v->incl[i] / v->total : 0.0);
    }
    return PK_OK;
}

pk_status pkq_notes_of_metric(pk_answer_head *h, pk_arena *a, const pkq_values *v)
{
    pk_status st = PK_OK;
    if (v->empty)
        st = pkq_note(h, a, "empty", "the profile holds no value of %s: every value is 0",
                      v->met.name ? v->met.name : "the metric");
    int extreme = v->met.combine == PK_COMBINE_MIN || v->met.combine == PK_COMBINE_MAX;
    const char *how = v->met.combine == PK_COMBINE_MIN ? "minimum" : "maximum";
    if (!st && extreme)
        st = pkq_note(h, a, "extreme",
                      "%s combines by its %s: values are no shares of a total (no "
                      "percentages; a threshold is a share of the largest value)",
                      v->met.name ? v->met.name : "the metric", how);
    if (!st && extreme && v->total != v->total_visited)
        st = pkq_note(h, a, "cells",
                      "the program total as CubeLib and pycubexr give it, over every cell (one "
                      "without a value counting as 0); over the cells with a value: %.7g",
                      v->total_visited);
    return st;
}

pk_status pkq_notes_of_values(pk_answer_head *h, pk_arena *a, const pk_query *q,
                              const pkq_values *v)
{
    pk_status st = PK_OK;
    int rebuilt = pkq_reconstructed(h->profile);
    if (rebuilt)
        st = pkq_note(h, a, "reconstructed",
                      "calling contexts RECONSTRUCTED from the call graph: approximate");
    if (!st && rebuilt) st = note_no_caller(h, a, v);
    if (!st && v->derived && !rebuilt) /* a reconstructed tree stores exclusive only */
        st = pkq_note(h, a, "derived", "%s values derived from the stored %s ones",
                      v->derived == PK_SCOPE_INCLUSIVE ? "inclusive" : "exclusive",
                      v->derived == PK_SCOPE_INCLUSIVE ? "exclusive" : "inclusive");
    if (!st) st = pkq_notes_of_metric(h, a, v);
    const char *focus = pkq_text(q, PKQ_FOCUS), *hide = pkq_text(q, PKQ_HIDE);
    if (!st && (focus || hide))
        st = pkq_note(h, a, "filtered",
                      "%s%s%s%s%s%s%s: %zu contexts match; percentages of the unfiltered total",
                      focus ? "focus on '" : "", focus ? focus : "", focus ? "'" : "",
                      focus && hide ? "; " : "", hide ? "'" : "", hide ? hide : "",
                      hide ? "' hidden" : "", v->n_matched);
    return st;
}

void pkq_column_of_metric(pk_answer_column *c, const pk_metric *met, pk_index m, double total,
                          const pk_number_format *nf, int has_self)
{
    memset(c, 0, sizeof *c);
    c->name = met->name;
    c->unit = met->unit;
    c->metric = m;
    c->combine = met->combine;
    c->total = total;
    c->percent = met->combine == PK_COMBINE_SUM;
    c->has_self = has_self;
    if (nf) c->numbers = *nf;
}

static void json_note_list(pk_json *j, const pk_answer_head *h)
{
    pk_json_key(j, "notes");
    pk_json_array_begin(j);
    for (size_t i = 0; i < h->n_notes; i++) {
        pk_json_object_begin(j);
        pk_json_key(j, "code"), pk_json_string(j, h->notes[i].code);
        pk_json_key(j, "text"), pk_json_string(j, h->notes[i].text);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

void pkq_json_columns(pk_json *j, const pk_answer_head *h, const double *b_totals)
{
    pk_json_key(j, "metrics");
    pk_json_array_begin(j);
    for (size_t c = 0; c < h->n_columns; c++) {
        const pk_answer_column *col = &h->columns[c];
        pk_json_object_begin(j);
        if (b_totals) { /* a comparison: both sides' totals */
            pk_json_key(j, "a_total"), pk_json_double(j, col->total);
            pk_json_key(j, "b_total"), pk_json_double(j, b_totals[c]);
        }
        pk_json_key(j, "name"), pk_json_string(j, col->name);
        pk_json_key(j, "unit"), pk_json_string(j, col->unit);
        pk_json_key(j, "expression"), pk_json_string(j, col->expression);
        pk_json_key(j, "combine");
        pk_json_string(j, col->combine == PK_COMBINE_MIN   ? "min"
                          : col->combine == PK_COMBINE_MAX ? "max"
                                                           : "sum");
        pk_json_key(j, "total"), pk_json_double(j, col->total);
        pk_json_key(j, "percent"), pk_json_bool(j, col->percent);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

void pkq_json_head(pk_json *j, const char *schema, const pk_answer_head *h)
{
    const pk_answer_column *c0 = h->n_columns ? &h->columns[0] : NULL;
    pk_json_key(j, "schema"), pk_json_string(j, schema);
    pk_json_key(j, "metric"), pk_json_string(j, c0 ? c0->name : NULL);
    pk_json_key(j, "unit"), pk_json_string(j, c0 ? c0->unit : NULL);
    pk_json_key(j, "source"), pk_json_string(j, h->source);
    pk_json_key(j, "reconstructed"), pk_json_bool(j, pkq_reconstructed(h->profile));
    pk_json_completeness(j, h->profile);
    pk_json_key(j, "stat"), pk_json_string(j, h->stat);
    pk_json_key(j, "location"), pk_json_string(j, h->location);
    pk_json_key(j, "location_count"), pk_json_uint(j, h->n_locations);
    pk_json_key(j, "total"), pk_json_double(j, c0 ? c0->total : 0);
    json_note_list(j, h);
}
