/*
 * profkit/query.h — questions and their answers, computed once for every
 * front end.
 *
 * A user's question is a query (which metrics, including expressions over
 * them; which locations and how they combine; which part of the program;
 * how many rows, how deep, grouped how) asked of a session (an opened
 * profile with the caches its answers share). Each answer comes back as
 * plain data, with one JSON writer per answer (docs/json.md). The CLI,
 * `profkit view` and the Python package only render these answers, so
 * the same question gets the same answer in each (docs/query.md).
 *
 * Options are set by name, as text: the names are the CLI's long option
 * names, the view's URL parameters and Python's keyword arguments alike.
 * A session is used by one thread at a time.
 */
#ifndef PROFKIT_QUERY_H
#define PROFKIT_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "annotate.h"
#include "disasm.h"
#include "output.h"
#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* The question                                                       */
/* ------------------------------------------------------------------ */

typedef struct pk_query pk_query;

/* A query with every option at its default: the default metric, every
 * non-summary location summed, the whole program, no threshold, every
 * row, function level, grouped by function. */
PK_API pk_status pk_query_new(pk_query **out);
PK_API void pk_query_free(pk_query *q);
/* A copy of q (the options; nothing is shared). */
PK_API pk_status pk_query_copy(const pk_query *q, pk_query **out);

/* Set option `name` from text; NULL or "" restores its default. The
 * options (docs/query.md):
 *   metric     "NAME[:inclusive|:exclusive]", or columns "A,B,NAME=EXPR"
 *              (docs/derived.md); names resolve against the profile when
 *              an answer is asked for (exact, else a case-insensitive
 *              prefix, else the one spelled alike)
 *   location   which locations: "KIND=ID[,KIND=ID...]" or "#N"
 *   stat       how locations combine: sum, mean, min, max, stddev
 *   focus      only what runs inside contexts matching this pattern
 *   hide       leave out contexts matching this pattern, with their callees
 *   threshold  leave out rows/nodes below this percentage (0-100)
 *   top        at most N rows (0: all)
 *   depth      at most N levels below the root (0: all)
 *   by         flat grouping: function, file, module, line
 *   level      tree nodes: functions, loops, lines
 *   sort       flat: rank rows by this column (0-based)
 *   search     flat: only rows whose name matches this pattern
 *   function   callers, callees, threads, annotate: an exact function name,
 *              else a pattern; annotate also takes a source file name
 *   callgraph  auto (answer from a call graph where the profile has one)
 *              or tree (always from the calling-context tree)
 *   context    annotate: lines of context around costly ones
 *   dirs       annotate: where sources may be, ':'-separated
 *   chains     tree: fold (default) runs of frames that only pass calls on
 *              into the frame below (pk_tree_answer.folded), or show them
 *   sources    annotate: any (default: wherever pk_source_locate() finds a
 *              file) or within (only under the profile's src/ and dirs,
 *              pk_source_locate_within(): what a server reads)
 * Patterns are POSIX extended regular expressions. PK_ERR_INVALID_ARG
 * with a message naming the option for an unknown name or a bad value. */
PK_API pk_status pk_query_set(pk_query *q, const char *name, const char *value);
/* The query's options as one text, the same for the same question
 * (options in a fixed order, values escaped): a key for caching answers.
 * Returns the length it needs, as snprintf. */
PK_API size_t pk_query_key(const pk_query *q, char *buf, size_t size);
/* The threshold option's value (percent; 0 when unset). */
PK_API double pk_query_threshold(const pk_query *q);
/* 1 if `name` is an option pk_query_set() takes. */
PK_API int pk_query_has_option(const char *name);
/* The option's text as set, or NULL when it has its default. */
PK_API const char *pk_query_get(const pk_query *q, const char *name);

/* The metric `spec` names on profile p by the `metric` option's rules
 * ("NAME" or "NAME:inclusive|exclusive"; exact, else a case-insensitive
 * prefix, else spelled alike), or the default metric (pk_metric_default())
 * when spec is NULL or "". PK_ERR_NOT_FOUND, naming the candidates, when
 * none or several match. */
PK_API pk_status pk_metric_lookup(const pk_profile *p, const char *spec, pk_index *out);

/* The answers, for pk_query_open_options(). */
typedef enum pk_answer_kind {
    PK_ANSWER_FLAT = 0,
    PK_ANSWER_TREE = 1,
    PK_ANSWER_CALLERS = 2, /* callers and callees */
    PK_ANSWER_THREADS = 3,
    PK_ANSWER_DIFF = 4,
    PK_ANSWER_ANNOTATE = 5,
    PK_ANSWER_FLAME = 6, /* a tree drawn `width` pixels wide: nodes of a tenth of a pixel */
} pk_answer_kind;

/* What to read of a profile to answer `kind` of q (pk_profile_open()'s
 * flags and tree threshold): no traces, no cct.db, and for a call graph
 * no tree or only as deep as the answer shows, so memory follows what
 * the answer needs. Options other than these keep their values. */
PK_API void pk_query_open_options(const pk_query *q, pk_answer_kind kind, unsigned width,
                                  pk_open_options *o);

/* How a tree answer makes its nodes. */
typedef enum pk_tree_level {
    PK_LEVEL_FUNCTIONS = 0, /* loops, lines, instructions fold into their function */
    PK_LEVEL_LOOPS = 1,     /* loops stay apart from their function */
    PK_LEVEL_LINES = 2,     /* every context */
} pk_tree_level;

/* ------------------------------------------------------------------ */
/* The session                                                        */
/* ------------------------------------------------------------------ */

typedef struct pk_session pk_session;

/* A session on an opened profile, which must outlive it. Answers of one
 * session share their per-context values and trees (a few selections,
 * least recently used dropped first). */
PK_API pk_status pk_session_new(const pk_profile *profile, pk_session **out);
PK_API void pk_session_free(pk_session *s);
PK_API const pk_profile *pk_session_profile(const pk_session *s);

/* ------------------------------------------------------------------ */
/* What every answer has                                              */
/* ------------------------------------------------------------------ */

/* One column of values: a metric, or an expression over metrics. */
typedef struct pk_answer_column {
    const char *name;         /* the metric's name, or the expression's label */
    const char *unit;         /* the metric's unit; NULL for an expression */
    pk_index metric;          /* PK_NONE for an expression */
    const char *expression;   /* "D1mr/Dr", or NULL for a metric */
    pk_combine combine;       /* how the metric's values combine (sum for expressions) */
    double total;             /* what percentages are of (see `percent`) */
    int percent;              /* 1: values read as a share of `total`; 0: they do not
                                 (a min/max metric has no total to share out) */
    int has_self;             /* self values are known */
    pk_number_format numbers; /* how values read for people */
} pk_answer_column;

/* A note an answer carries once, whatever it lists: where the values come
 * from or what was done to them ("reconstructed", "derived", "focus"...). */
typedef struct pk_answer_note {
    const char *code; /* stable word: see docs/query.md */
    const char *text; /* a sentence for people */
} pk_answer_note;

/* Where the values of an answer come from: "tree", "reconstructed tree"
 * (a calling-context tree rebuilt from a call graph: approximate) or
 * "callgraph" (a call graph's own exact costs). */
typedef struct pk_answer_head {
    const pk_profile *profile;
    const char *source;
    const char *stat;     /* "sum", "mean", ... */
    const char *location; /* the selector, or NULL for every location */
    size_t n_locations;   /* locations combined */
    pk_answer_column *columns;
    size_t n_columns;
    pk_answer_note *notes;
    size_t n_notes;
} pk_answer_head;

/* ------------------------------------------------------------------ */
/* flat: values per function, file, module or line                    */
/* ------------------------------------------------------------------ */

typedef struct pk_flat_entry {
    uint64_t key;       /* as pk_flat_row.key */
    const char *name;   /* whole, as stored */
    const char *module; /* where it is: NULL when unknown */
    const char *file;
    uint32_t line;
    double *self;      /* per column; NaN where an expression has no value */
    double *inclusive; /* per column */
    double calls;      /* times called (call graph, or a call-count metric), NaN if unknown */
    uint64_t contexts; /* contexts naming it (0 from a call graph) */
    /* When another row has the same name (different functions: statics of
     * one name, one name in two libraries): what tells this one apart, its
     * module's or file's name (whole where the base names agree) or
     * "line N"; differs_by "module", "file" or "line". Else both NULL. */
    const char *differs, *differs_by;
} pk_flat_entry;

typedef struct pk_flat_answer {
    pk_answer_head head;
    pk_group_by by;
    int sorted_by_inclusive; /* column 0's inclusive values rank the rows */
    pk_flat_entry *rows;     /* shown, ranked */
    size_t n_rows;
    size_t hidden; /* rows left out by top, threshold (search excludes) */
    int has_calls, has_contexts;
    void *arena_; /* private: what the answer's memory comes from */
} pk_flat_answer;

/* The flat profile: options metric, location, stat, focus, hide, by,
 * threshold, top, sort, search, callgraph. */
PK_API pk_status pk_answer_flat(pk_session *s, const pk_query *q, pk_flat_answer **out);
PK_API void pk_flat_answer_free(pk_flat_answer *a);
/* profkit.flat/1 */
PK_API pk_status pk_flat_answer_write_json(pk_json *j, const pk_flat_answer *a);
/* RFC 4180 CSV: name,module,file,line, then per column NAME:exclusive,
 * NAME:inclusive (one column: exclusive,inclusive), then calls/contexts. */
PK_API pk_status pk_flat_answer_write_csv(FILE *out, const pk_flat_answer *a);

/* ------------------------------------------------------------------ */
/* tree: the calling-context tree, top down                           */
/* ------------------------------------------------------------------ */

typedef struct pk_tree_answer {
    pk_answer_head head;
    pk_tree_level level;
    const char *level_name; /* "functions", "loops", "lines" */
    /* Nodes: frames (function and loop levels) or contexts (lines). Node
     * 0 is the root; a node's parent comes before it. */
    const pk_frame *nodes;
    size_t n_nodes;
    const double *const *inclusive; /* [column][node] */
    const double *const *self;      /* [column][node], a column's NULL when unknown */
    const double *calls;            /* per node (a call-count metric), or NULL */
    const char *calls_metric;
    const unsigned char *hot; /* per node: on the hot path */
    /* Per node, its children ranked (largest inclusive first):
     * children[child_start[i] .. child_start[i + 1]) */
    const pk_index *children;
    const size_t *child_start;
    /* What the query shows: node i is shown when shown[i]; `hidden`
     * counts nodes left out by threshold and depth. */
    const unsigned char *shown;
    size_t hidden;
    /* Node i is folded when folded[i]: a shown frame that only passes
     * calls on (one shown child, its own cost below the threshold), in a
     * run of two or more, which the text draws as part of the frame below
     * ("name (via N frames: a > b)"). Only the tree answer folds, with
     * the option chains=fold (the default); n_folded counts them. */
    const unsigned char *folded;
    size_t n_folded;
    double threshold;         /* percent, as asked */
    const char *threshold_of; /* of what: "the total", "its inclusive value" */
    uint32_t depth;
    void *arena_; /* private */
} pk_tree_answer;

/* The tree: options metric, location, stat, focus, hide, level,
 * threshold, depth, chains. */
PK_API pk_status pk_answer_tree(pk_session *s, const pk_query *q, pk_tree_answer **out);
PK_API void pk_tree_answer_free(pk_tree_answer *a);
/* Whether a flame graph can draw the answer's first column: its widths
 * must add up, children within their parent. PK_ERR_UNSUPPORTED, saying
 * why, for a metric that combines by its minimum or maximum. */
PK_API pk_status pk_tree_answer_flame_ready(const pk_tree_answer *a);
/* The display name of node i. */
PK_API size_t pk_tree_answer_node_name(const pk_tree_answer *a, pk_index i, char *buf, size_t size);
/* Which part of a tree answer a JSON document holds. */
typedef struct pk_tree_json_options {
    pk_index from;       /* the node it starts at (0: the root) */
    uint32_t depth;      /* levels of children below it (0: every shown level) */
    size_t max_children; /* per node (0: all); "more" counts the shown ones left out */
    size_t max_nodes;    /* per document (0: no limit); later nodes come without children */
    /* A flame graph's nodes: children narrower than this percentage of
     * the first node's |inclusive| value are left out (0: none), counted
     * in "pruned". */
    double min_share;
    /* Per node, the same calling path's inclusive and self value in a
     * base profile (pk_tree_answer_match()), written as "base_inclusive"
     * and "base_self"; NULL: none. */
    const double *base_inclusive, *base_self;
    /* Draw folded runs as the text does: a folded node (pk_tree_answer.
     * folded) is not written, the frame below its run takes its place
     * (with its "via"), and "path" leaves folded nodes out. 0: every
     * shown node, folded ones marked "folded": true. */
    int lift_folded;
} pk_tree_json_options;
/* profkit.tree/1: the shown nodes below a node, nested; a node whose
 * children are not in the document has "children": null and its
 * "child_count" (opts NULL: the whole shown tree from the root). */
PK_API pk_status pk_tree_answer_write_json(pk_json *j, const pk_tree_answer *a,
                                           const pk_tree_json_options *opts);

/* For every node of `a`, the inclusive and self value of the node of
 * `base` (another profile's tree answer at the same level) at the same
 * path of names, NaN where base has none: base_inclusive and base_self hold
 * a->n_nodes doubles each. */
PK_API pk_status pk_tree_answer_match(const pk_tree_answer *a, const pk_tree_answer *base,
                                      double *base_inclusive, double *base_self);

/* How text for a terminal looks: names shortened to `width` columns (0:
 * whole), ANSI colours, C++ names as stored instead of demangled. */
typedef struct pk_text_options {
    unsigned width;
    int color;
    int keep_mangled;
} pk_text_options;
/* The shown tree as indented text (output.h's tree renderers): inclusive
 * and self per node, percentages where the column has a total, the hot
 * path marked, further columns' inclusive values, calls. */
PK_API pk_status pk_tree_answer_write_text(FILE *out, const pk_tree_answer *a,
                                           const pk_text_options *o);
/* One row per shown node (docs/json.md, CSV). */
PK_API pk_status pk_tree_answer_write_csv(FILE *out, const pk_tree_answer *a);

/* ------------------------------------------------------------------ */
/* callers and callees                                                */
/* ------------------------------------------------------------------ */

/* One caller (callees: callee) of a function: the calls between them and
 * what they cost. */
typedef struct pk_arc_entry {
    const char *name;
    pk_index function; /* PK_NONE when the tree knows it only by name */
    double calls;      /* NaN where the profile does not count calls */
    double inclusive;  /* the cost of the function on those calls (callees: of the callee) */
    double self;       /* callers: the function's own cost on those calls; NaN from a call graph */
    uint32_t cycle;    /* <cycle N> of the other function, 0 for none */
} pk_arc_entry;

typedef struct pk_callers_block {
    const char *name;
    pk_index function;
    const char *module, *file; /* where the function is (functions of one name differ here) */
    double self, inclusive;    /* recursion counted once */
    double called;             /* times called, NaN if unknown */
    uint32_t cycle;
    pk_arc_entry *arcs; /* shown, largest inclusive first */
    size_t n_arcs;
    size_t hidden_arcs; /* below the threshold: a share of this function's inclusive value */
    /* The tree around the function (callers: bottom-up, callees: top-down,
     * frame 0 the function), or NULL from a call graph's lists. */
    pk_tree_answer *tree;
} pk_callers_block;

typedef struct pk_callers_answer {
    pk_answer_head head;
    int callees;                 /* 0: callers, 1: callees */
    const char *pattern;         /* what was asked */
    pk_callers_block *functions; /* each matching function, largest inclusive first */
    size_t n_functions;
    size_t hidden_functions; /* beyond top */
    double total;            /* the program total (column 0) */
    void *arena_;            /* private */
} pk_callers_answer;

/* Who calls the functions `function` names (exactly, else as a pattern),
 * or what they call: one block per function, each with its own values.
 * Options metric, location, stat, focus, hide, threshold (a share of each
 * function's inclusive value), top (functions), depth, callgraph. */
PK_API pk_status pk_answer_callers(pk_session *s, const pk_query *q, int callees,
                                   pk_callers_answer **out);
PK_API void pk_callers_answer_free(pk_callers_answer *a);
/* profkit.callers/1 */
PK_API pk_status pk_callers_answer_write_json(pk_json *j, const pk_callers_answer *a);

/* ------------------------------------------------------------------ */
/* threads: per location                                              */
/* ------------------------------------------------------------------ */

typedef struct pk_thread_entry {
    pk_index location;
    const char *name;
    double inclusive; /* the location's total (of the function: its inclusive value) */
    double self;      /* a function's own value there; NaN for totals */
} pk_thread_entry;

typedef struct pk_threads_answer {
    pk_answer_head head;
    const char *function;  /* NULL: the locations' totals */
    pk_thread_entry *rows; /* every selected location, largest first */
    size_t n_rows;
    double sum, min, max, mean, stddev, imbalance; /* over rows' inclusive values */
    void *arena_;                                  /* private */
} pk_threads_answer;

/* Each location's total of the metric, or with option `function` that
 * function's values on each location. Options metric, location,
 * function. */
PK_API pk_status pk_answer_threads(pk_session *s, const pk_query *q, pk_threads_answer **out);
PK_API void pk_threads_answer_free(pk_threads_answer *a);
/* profkit.threads/1 */
PK_API pk_status pk_threads_answer_write_json(pk_json *j, const pk_threads_answer *a);
/* index,location,total (with a function: index,location,inclusive,self). */
PK_API pk_status pk_threads_answer_write_csv(FILE *out, const pk_threads_answer *a);

/* ------------------------------------------------------------------ */
/* diff: what changed from A to B                                     */
/* ------------------------------------------------------------------ */

typedef struct pk_diff_entry {
    const char *name;   /* a function's name; a path's functions from the entry, " > " between */
    const char *status; /* "changed", "added" (only in B), "removed" (only in A) */
    int in_cycle;       /* a call graph's function in a cycle, or an arc with an end in
                           one (docs/cli.md, diff) */
    int folded;         /* its own value did not change, only its callees' */
    double *a_self, *b_self, *a_inclusive, *b_inclusive; /* per column; B's in A's unit */
    /* Per column: B's table value less A's (self per function, inclusive
     * per path or arc), and that in percent of |A| (NaN where A is 0 or
     * a value is NaN: the row is new, or has no such value). */
    double *change, *change_percent;
    double inclusive_change;     /* B's inclusive less A's, first column */
    double change_share;         /* that in percent of A's total (NaN: a min/max metric) */
    int side;                    /* the frame is of A's nodes (0) or of B's (1) */
    pk_index frame;              /* PK_NONE in a comparison of call arcs (pk_diff_answer.arcs) */
    const char *caller, *callee; /* a call arc's ends, else NULL */
} pk_diff_entry;

typedef struct pk_diff_answer {
    pk_answer_head head; /* A's selection; columns' totals are A's */
    const pk_profile *b;
    const char *b_metric; /* B's metric of the tables (the same name, or spelled alike) */
    const char *b_unit;   /* its unit, or NULL */
    double b_scale;       /* B's values x b_scale are in A's unit */
    double *b_totals;     /* per column */
    /* per column: B's total less A's, and that in percent of |A's| (NaN
     * where A's is 0) */
    double *total_change, *total_change_percent;
    int any_change; /* some function or path changed */
    /* 1: either side is a call graph, so `paths` are its call arcs (name
     * "caller > callee", caller and callee set, self values NaN) and
     * every value the call graphs' (what both hold), not calling paths
     * (a call graph's are reconstructed) */
    int arcs;
    int callgraphs;           /* which sides are call graphs: 1 A, 2 B, 3 both */
    pk_diff_entry *functions; /* changed ones, largest change of the self value first */
    size_t n_functions, hidden_functions, folded_functions;
    pk_diff_entry *paths; /* largest change of the inclusive value first */
    size_t n_paths, hidden_paths, folded_paths;
    /* The calling paths' frames (pk_frames_build_paths()) of A and B. */
    const pk_frame *a_frames, *b_frames;
    size_t n_a_frames, n_b_frames;
    void *arena_; /* private */
} pk_diff_answer;

/* Compare B against the base A: per function (self values; a call
 * graph's exact costs where both sides have one) and per calling path
 * (matched by their functions from the entry, whatever the formats);
 * where either side is a call graph, per function and per call arc, each
 * side's from its call graph (a tree's exact one): `arcs`.
 * Options metric (on A; B's metric is the one of the same name, its
 * values put in A's unit), location, stat, focus, hide, top (rows per
 * table, folded rows aside), threshold (of A's total). */
PK_API pk_status pk_answer_diff(pk_session *a, pk_session *b, const pk_query *q,
                                pk_diff_answer **out);
PK_API void pk_diff_answer_free(pk_diff_answer *a);
/* profkit.diff/1 */
PK_API pk_status pk_diff_answer_write_json(pk_json *j, const pk_diff_answer *a);
/* frames[i]'s whole calling path, names as stored, " > " between, like
 * snprintf ("<program root>" for the root). */
PK_API size_t pk_frames_path_name(const pk_profile *p, const pk_frame *frames, pk_index i,
                                  char *buf, size_t size);

/* ------------------------------------------------------------------ */
/* annotate: source lines (or machine code) with their costs          */
/* ------------------------------------------------------------------ */

/* A function's machine code with each instruction's cost. */
typedef struct pk_asm_answer {
    pk_index function;
    const char *name;
    const char *binary; /* the module's file read */
    pk_asm_listing listing;
    double self; /* its instructions' self values summed */
} pk_asm_answer;

typedef struct pk_annotate_answer {
    pk_answer_head head;
    const char *target;      /* the function or file asked for, NULL: the top functions */
    pk_annotation *listings; /* in order: a function's files, then the next function */
    size_t n_listings;
    const char **missing; /* functions without a known source line (left out) */
    size_t n_missing;
    pk_asm_answer *assembly; /* with option asm: per function */
    size_t n_assembly;
    void *private_; /* private */
} pk_annotate_answer;

/* Source lines with their costs, as callgrind_annotate and `pprof list`
 * show them: option function (an exact function name, else a source
 * file's path or its end, else a pattern over function names; unset:
 * the `top` functions with the largest self value that have a source
 * line), context (lines around costly ones), threshold (lines below this
 * share of the total are no reason to show a window), dirs (where the
 * sources may be), asm ("1": the functions' machine code instead),
 * metric, location, stat, focus, hide, callgraph. PK_ERR_NOT_FOUND when
 * nothing matches or no function asked for has a known line. */
PK_API pk_status pk_answer_annotate(pk_session *s, const pk_query *q, pk_annotate_answer **out);
PK_API void pk_annotate_answer_free(pk_annotate_answer *a);
/* profkit.annotate/1 */
PK_API pk_status pk_annotate_answer_write_json(pk_json *j, const pk_annotate_answer *a);

/* Get ready for per-location answers (pk_answer_threads() with option
 * `function`) of `n` function names at once: one pass per location over
 * the contexts for all of them, kept by the session, so a report of many
 * functions' per-location answers costs what one does. */
PK_API pk_status pk_session_prefetch_functions(pk_session *s, const pk_query *q,
                                               const char *const *names, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* PROFKIT_QUERY_H */
