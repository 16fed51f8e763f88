/*
 * analysis/qry.h — the query layer's insides (include/profkit/query.h is
 * its public face): the parsed options, the metric columns a query names,
 * the per-context values of one selection that a session caches, and the
 * helpers the answers share.
 */
#ifndef PK_ANALYSIS_QRY_H
#define PK_ANALYSIS_QRY_H

#include <stdio.h>

#include "profkit/callgraph.h"
#include "profkit/query.h"
#include "util/arena.h"

enum {
    PKQ_METRIC,
    PKQ_LOCATION,
    PKQ_STAT,
    PKQ_FOCUS,
    PKQ_HIDE,
    PKQ_THRESHOLD,
    PKQ_TOP,
    PKQ_DEPTH,
    PKQ_BY,
    PKQ_LEVEL,
    PKQ_SORT,
    PKQ_SEARCH,
    PKQ_FUNCTION,
    PKQ_CALLGRAPH,
    PKQ_CONTEXT,
    PKQ_DIRS,
    PKQ_ASM,
    PKQ_CHAINS,
    PKQ_SOURCES,
    PKQ_N_OPTIONS
};

struct pk_query {
    char *text[PKQ_N_OPTIONS]; /* as set; NULL: the default */
    pk_across stat;
    double threshold;
    size_t top, sort;
    uint32_t depth;
    unsigned context;
    pk_group_by by;
    pk_tree_level level;
    int use_callgraph;
    int assembly;
    int fold_chains;    /* tree: pass-through frames fold into the frame below */
    int sources_within; /* sources=within: pk_source_locate_within() */
};

int pkq_option(const char *name);
void pkq_copy_parsed(pk_query *q, const pk_query *from, int opt);
/* The option's text, NULL when unset or empty. */
const char *pkq_text(const pk_query *q, int opt);
/* --focus or --hide is set. */
int pkq_filtered(const pk_query *q);
const char *pkq_stat_name(pk_across stat);
const char *pkq_by_name(pk_group_by by);
const char *pkq_level_name(pk_tree_level level);

/* ---- cg_views.c ------------------------------------------------------ */

/* The functions named exactly `name` (*n may be 0), as
 * pk_functions_matching() lists them before it tries `name` as a
 * regular expression; free *out with free(). */
pk_status pkq_functions_named(const pk_profile *p, const char *name, pk_index **out, size_t *n);

/* ---- query_metric.c: which metrics a query names -------------------- */

/* The metric `spec` names ("NAME" or "NAME:inclusive|exclusive"), or the
 * default one (spec NULL); *scope gets the suffix's kind or
 * PK_SCOPE_OTHER. PK_ERR_NOT_FOUND with the candidates in the message. */
pk_status pkq_metric_pick(const pk_profile *p, const char *spec, pk_index *out,
                          pk_scope_kind *scope);

/* A column: a metric, or an expression over metrics (the bases). */
typedef struct pkq_column {
    char *label;
    pk_expr *e;          /* NULL for a plain metric */
    size_t *base;        /* index in pkq_columns.base of each of e's names; [0] for a metric */
    int plain;           /* a metric named, no expression */
    pk_scope_kind scope; /* NAME:inclusive / NAME:exclusive, else PK_SCOPE_OTHER */
} pkq_column;

typedef struct pkq_columns {
    pkq_column *col;
    size_t n_col;
    pk_index *base; /* metric indexes, each once */
    pk_metric *base_met;
    size_t n_base;
} pkq_columns;

/* The columns of the query's metric option on p (its default metric when
 * unset): one when the text names a metric (names may hold ',' or '='),
 * else one per comma-separated item. */
pk_status pkq_columns_parse(const pk_profile *p, const pk_query *q, pkq_columns *out);
void pkq_columns_free(pkq_columns *c);
/* Column c's value given every base's value (NaN for x/0). */
double pkq_columns_eval(const pkq_columns *t, size_t c, const double *base_values);

/* ---- query_values.c / query_session.c: one selection's values ------- */

/* One metric's per-context values under a query's location, stat, focus
 * and hide, and the trees built from them (kept by the session). */
typedef struct pkq_values {
    pk_index metric;
    pk_metric met;
    char *location, *focus, *hide; /* the selection (copies) */
    pk_across stat;
    double *incl, *excl;  /* excl NULL when it cannot be had (a min/max metric) */
    double total;         /* root inclusive before focus/hide (the program total when summed;
                             a min/max metric's: over every cell, as CubeLib) */
    double total_visited; /* a min/max metric's over the cells with a value */
    int derived;          /* PK_SCOPE_* derived from the other, or 0 */
    int empty;            /* the metric has no values at all: every value 0 */
    size_t n_selected, n_matched;
    pk_number_format nf;
    pk_frame *frames[3]; /* per pk_tree_level (LINES: contexts as frames) */
    size_t n_frames[3];
    unsigned long long used;
} pkq_values;

/* The values of `metric` under q's selection, from the session's cache or
 * computed. Valid until the next call on the session. */
pk_status pkq_values_get(pk_session *s, pk_index metric, const pk_query *q, const pkq_values **out);
/* The nodes of those values at `level` (built once, then cached). */
pk_status pkq_values_frames(pk_session *s, const pkq_values *v, pk_tree_level level,
                            const pk_frame **frames, size_t *n);
/* The same nodes, the caller's to change and free: the cached ones handed
 * over (a later pkq_values_frames() builds them again), else built. A
 * tree answer keeps its nodes; taking them spares a second copy of every
 * frame (600,000 of them, 29 MB, for cc1) at the cost of a rebuild when
 * a session asks for the same tree again. */
pk_status pkq_values_frames_take(pk_session *s, const pkq_values *v, pk_tree_level level,
                                 pk_frame **frames, size_t *n);
/* Compute (no cache): what pkq_values_get() caches. */
pk_status pkq_values_compute(const pk_profile *p, pk_index metric, const pk_query *q,
                             pkq_values *out);
void pkq_values_clear(pkq_values *v);

/* ---- query_callgraph.c: answers from a call graph ------------------- */

/* A call-graph view of one metric over the query's locations. */
typedef struct pkq_cg {
    pk_index metric;
    pk_metric met;
    size_t event;
    pk_index *locations; /* NULL: all */
    size_t n_locations;
    double total; /* self costs of the selection */
    pk_number_format nf;
} pkq_cg;

/* Does the query get its answer from the profile's call graph? (It has
 * one, the query allows it, and needs no contexts: no focus, hide or
 * statistic other than the sum.) */
int pkq_uses_callgraph(const pk_profile *p, const pk_query *q);
pk_status pkq_cg_init(const pk_profile *p, pk_index metric, const pk_query *q, pkq_cg *out);
void pkq_cg_free(pkq_cg *cg);
/* pk_callgraph_flat()'s rows in key order, not ranked: every user
 * re-sorts them (by key to look values up, or by its own ranking). */
pk_status pkq_callgraph_flat_by_key(const pk_profile *p, pk_index location, size_t event,
                                    pk_group_by by, pk_flat_row **rows, size_t *n_rows);
/* qsort() order of pk_flat_rows (or of records that start with the same
 * uint64_t key): by key (query_flatrows.c). */
int pkq_flat_row_by_key(const void *a, const void *b);
/* The flat rows of the view's locations (summed), in key order. */
pk_status pkq_cg_flat(const pk_profile *p, const pkq_cg *cg, pk_group_by by, pk_flat_row **rows,
                      size_t *n_rows);
/* 1 if the profile's calling-context tree was rebuilt from a call graph. */
int pkq_reconstructed(const pk_profile *p);

/* ---- answer_flat_apart.c ------------------------------------------- */

/* Grouped by function: the shown rows (rows[0..shown), the first of the
 * ranked keys[0..n)) whose name another key's function shares get
 * `differs` and `differs_by`. */
pk_status pkq_flat_tell_apart(const pk_profile *p, pk_arena *a, const uint64_t *keys, size_t n,
                              pk_flat_entry *rows, size_t shown);

/* ---- query_head.c: what every answer carries ------------------------ */

/* Start an answer's head: profile, source, stat, location, columns. */
pk_status pkq_head_init(pk_answer_head *h, pk_arena *a, const pk_profile *p, const pk_query *q,
                        const char *source, size_t n_columns);
/* A note, once per code. */
pk_status pkq_note(pk_answer_head *h, pk_arena *a, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The notes a values-based answer carries: reconstructed tree, derived
 * scope, focus/hide, no caller. */
pk_status pkq_notes_of_values(pk_answer_head *h, pk_arena *a, const pk_query *q,
                              const pkq_values *v);
/* The notes of the metric's values themselves: none at all (empty), a
 * min/max metric's (extreme, cells). */
pk_status pkq_notes_of_metric(pk_answer_head *h, pk_arena *a, const pkq_values *v);
/* Column `c` of a head from a plain metric's values (name, unit, total,
 * numbers), or from an expression (label, total evaluated). */
void pkq_column_of_metric(pk_answer_column *c, const pk_metric *met, pk_index m, double total,
                          const pk_number_format *nf, int has_self);
char *pkq_strdup(pk_arena *a, const char *s);
/* An expression column's name (the label) and what it lacks (unit,
 * scale, shares of a total). */
void pkq_column_expression(pk_answer_column *c, pk_arena *a, const char *label);
/* The members of an answer's head every JSON document carries: schema
 * first, then metric, unit, source, reconstructed, complete (and
 * incomplete), stat, location, location_count, total, notes. */
void pkq_json_head(pk_json *j, const char *schema, const pk_answer_head *h);
/* The nodes of a tree answer as the value of the member being written
 * (output/answer_tree_out.c); *written and *pruned count them. */
pk_status pkq_tree_json_root(pk_json *j, const pk_tree_answer *a, const pk_tree_json_options *o,
                             size_t *written, size_t *pruned);
/* "metrics": [{name, unit, expression, combine, total, percent}], with
 * a_total and b_total for a comparison (b_totals not NULL). */
void pkq_json_columns(pk_json *j, const pk_answer_head *h, const double *b_totals);

#endif
