/*
 * profkit/analysis.h — questions answered on an opened profile.
 *
 * Everything here works on the model only (never on file bytes), so it
 * answers the same way whatever format the profile came from.
 */
#ifndef PROFKIT_ANALYSIS_H
#define PROFKIT_ANALYSIS_H

#include <stddef.h>

#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Total of every column: the sum of its stored values over all contexts
 * (the root included) and all non-summary locations. `out` must hold
 * pk_column_count() doubles. Summary columns get the sum of their stored
 * values over the summary locations. This is a checksum any reader of the
 * same file can reproduce. */
PK_API pk_status pk_column_totals(const pk_profile *profile, double *out, size_t n_out);

/* Value of `column` at every context, combined over the non-summary
 * locations with the metric's combine function (sum, min or max).
 * `out` must hold pk_context_count() doubles; contexts with no value get 0.
 * A profile with only summary locations (hpcprof --no-thread-local) answers
 * from the summary's SUM statistic of the same metric and scope. */
PK_API pk_status pk_context_totals(const pk_profile *profile, pk_index column, double *out,
                                   size_t n_out);

/* Value of `metric` in scope `kind` (PK_SCOPE_INCLUSIVE or
 * PK_SCOPE_EXCLUSIVE) at every context, combined over the non-summary
 * locations as pk_context_totals() does. When the profile stores only the
 * other scope, the values are derived along the calling-context tree
 * (docs/model.md, "Deriving a scope") and *derived (may be NULL) is set to
 * 1. An exclusive value derived from a PK_METRIC_UNSIGNED metric is clamped
 * at 0 per location. PK_ERR_UNSUPPORTED for the exclusive values of a
 * min/max metric stored inclusive; PK_ERR_NOT_FOUND when the metric has
 * neither scope. `out` must hold pk_context_count() doubles. */
PK_API pk_status pk_context_scope_values(const pk_profile *profile, pk_index metric,
                                         pk_scope_kind kind, double *out, size_t n_out,
                                         int *derived);

/* How per-context values of several locations become one. */
typedef enum pk_across {
    PK_ACROSS_SUM = 0,    /* the metric's own combine: sum (min/max for min/max metrics) */
    PK_ACROSS_MEAN = 1,   /* sum / number of selected locations */
    PK_ACROSS_MIN = 2,    /* smallest value of a selected location (0 if one has none) */
    PK_ACROSS_MAX = 3,    /* largest value of a selected location */
    PK_ACROSS_STDDEV = 4, /* population standard deviation over the selected locations */
} pk_across;

/* Mark the non-summary locations `selector` names in selected[0..n) (n =
 * pk_location_count()): a comma-separated list of KIND=ID terms matched
 * case-insensitively against the identifier tuple's kind names and
 * logical ids ("rank=3,thread=0"; a term absent from a tuple does not
 * match), or "#N" for location index N. *n_matched (may be NULL) gets the
 * count. PK_ERR_INVALID_ARG for a malformed selector, PK_ERR_NOT_FOUND
 * when it names no location. */
PK_API pk_status pk_location_select(const pk_profile *profile, const char *selector,
                                    unsigned char *selected, size_t n, size_t *n_matched);

/* pk_context_scope_values() over a chosen set of locations with a chosen
 * statistic: `selected` (n = pk_location_count() flags, NULL = every
 * non-summary location) and `stat`. Each location's values are taken in
 * `kind` (derived per location when stored in the other scope, unsigned
 * metrics clamped per location) before the statistic combines them.
 * With selected == NULL and PK_ACROSS_SUM this is exactly
 * pk_context_scope_values(). A selected location without a value at a
 * context counts as 0 for sum-like metrics, and as absent for min/max
 * metrics (whose PK_ACROSS_SUM is their own min/max). Other statistics need per-location values:
 * PK_ERR_UNSUPPORTED on a profile holding only summary statistics. */
PK_API pk_status pk_context_stat_values(const pk_profile *profile, pk_index metric,
                                        pk_scope_kind kind, const unsigned char *selected,
                                        pk_across stat, double *out, size_t n_out, int *derived);

/* Where an answer's values come from. */
typedef enum pk_values_from {
    PK_VALUES_PROFILES = 0, /* every selected location's stored values, added up */
    PK_VALUES_SUMMARY = 1,  /* statistics the file stores over all locations */
} pk_values_from;

/* Where pk_context_stat_values() with the same arguments (and so
 * pk_context_scope_values(), pk_context_totals() of the metric's column in
 * that scope and pk_metric_program_total()) takes its values from. A file
 * that stores statistics over all its locations (HPCToolkit: hpcprof's
 * summary profile) answers from them the questions they hold exactly: the
 * sum and the mean over every location (selected == NULL) of a
 * sum-combined metric, and the maximum where the stored minimum shows no
 * value below 0 (docs/model.md, "Answers from the summary"); everything
 * else, a chosen set of locations, and every question on a profile opened
 * with PK_OPEN_RECOMPUTE add up the locations' values. Both ways give the
 * same numbers (to the rounding of the sums: 1e-12 relative on every
 * corpus database). For --json answers: "values_from": "summary" or
 * "profiles" (pk_values_from_name()). */
PK_API pk_status pk_values_source(const pk_profile *profile, pk_index metric, pk_scope_kind kind,
                                  const unsigned char *selected, pk_across stat,
                                  pk_values_from *out);
/* The same for pk_profile_totals() and pk_column_totals(): the summary
 * when it stands in for every plain column. */
PK_API pk_status pk_totals_source(const pk_profile *profile, pk_values_from *out);
/* "summary" or "profiles". */
PK_API const char *pk_values_from_name(pk_values_from from);

/* Each location's program total of `metric` (its inclusive value at the
 * root: read there when stored, else the sum of its exclusive values over
 * contexts that are not lexically inside another), NaN for summary
 * locations. `out` holds pk_location_count() doubles. */
PK_API pk_status pk_location_totals(const pk_profile *profile, pk_index metric, double *out,
                                    size_t n_out);

/* Narrow per-context inclusive and exclusive values (either may be NULL)
 * in place to part of the program, by POSIX extended regular expressions
 * matched against context names (pk_context_name()); NULL or "" skips a
 * filter. `focus`: only what runs inside a matching context counts
 * (pprof's -focus): values inside the outermost matching contexts stay,
 * values elsewhere become 0, and ancestors' inclusive values shrink to
 * the sum of the matching subtrees below them. `hide`: matching contexts
 * and everything below them are dropped (pprof's -ignore), their inclusive
 * values taken off their ancestors. Sum-like metrics only (PK_ERR_UNSUPPORTED
 * otherwise); PK_ERR_INVALID_ARG for a bad expression. *n_matched (may be
 * NULL) counts contexts matching either expression. */
PK_API pk_status pk_context_filter(const pk_profile *profile, pk_index metric, const char *focus,
                                   const char *hide, double *inclusive, double *exclusive,
                                   size_t *n_matched);

/* The human-facing total of a metric: its inclusive value at the root,
 * combined over the non-summary locations (or, without any, the summary's
 * SUM statistic). A metric stored only exclusive gets the inclusive value
 * derived at the root (pk_context_scope_values()). PK_ERR_NOT_FOUND when
 * the metric has neither scope (then no such total is defined). */
PK_API pk_status pk_metric_program_total(const pk_profile *profile, pk_index metric, double *out);

/* The metric a view shows when none is named: the one the file names as
 * its default (metric attribute "profkit:default": pprof's
 * default_sample_type) when its program total is non-zero; else the
 * first time metric (a name containing "time", or unit "sec") with a
 * non-zero program total,
 * else the first metric with a non-zero total that is no call count
 * (pk_metric_is_call_count()), else the first with one, else metric 0.
 * PK_ERR_NOT_FOUND when the profile has no metrics. */
PK_API pk_status pk_metric_default(const pk_profile *profile, pk_index *out);

/* 1 if the metric counts calls rather than measuring a cost: Score-P's
 * and Cube's `visits` (unit "occ"), a metric named `calls` or `visits`
 * with no unit or a count unit. Views show it as the `calls` column, not
 * as a cost; pk_metric_default() never picks it while a cost has a
 * non-zero total. */
PK_API int pk_metric_is_call_count(const pk_metric *metric);
/* The profile's call-count metric (the first such), PK_ERR_NOT_FOUND
 * when it has none. */
PK_API pk_status pk_metric_call_count(const pk_profile *profile, pk_index *out);

/* The same total as CubeLib and pycubexr define it for a metric that
 * combines by min or max (Cube's min_time, max_time): over every cell of
 * the calling-context tree × the non-summary locations, a cell without a
 * value counting as 0. So it is min(total, 0) (max(total, 0)) as soon as
 * one location never reached one context, where pk_metric_program_total()
 * combines the values measured only (docs/model.md, "Min/max metrics").
 * For other metrics it equals pk_metric_program_total(). */
PK_API pk_status pk_metric_cell_total(const pk_profile *profile, pk_index metric, double *out);

/* pk_column_totals() and pk_metric_program_total() of every metric in one
 * pass over the values (what `profkit info` shows; on big profiles much
 * cheaper than asking each metric separately). `programs[m]` is NaN for a
 * metric with neither scope. Results equal the separate calls up
 * to the rounding of the (compensated) sums. */
PK_API pk_status pk_profile_totals(const pk_profile *profile, double *columns, size_t n_columns,
                                   double *programs, size_t n_metrics);

/* Along the metric tree (Cube nests metrics: time > execution > mpi >
 * ...), each metric's own part of its program total, as CubeGUI shows an
 * expanded metric: programs[m] (pk_profile_totals()'s) less the program
 * totals of its child metrics that measure the same thing (same unit,
 * combined by sum; the components of a composite Cube value are no such
 * children). A metric without such children keeps its total; NaN where
 * programs[m] is NaN. n: the metric count. */
PK_API pk_status pk_metric_tree_exclusive(const pk_profile *profile, const double *programs,
                                          double *exclusive, size_t n);

/* The flat profile: values per function, source file, load module or
 * source line instead of per calling context. */
typedef enum pk_group_by {
    PK_BY_FUNCTION = 0,
    PK_BY_FILE = 1,   /* the context's source file, else its function's */
    PK_BY_MODULE = 2, /* the context's load module, else its function's */
    PK_BY_LINE = 3,   /* the context's file:line, else its function's definition */
} pk_group_by;

typedef struct pk_flat_row {
    uint64_t key;        /* function, file or module index; file << 32 | line for lines */
    double exclusive;    /* own values of the contexts in the group */
    double inclusive;    /* recursion counted once */
    uint64_t n_contexts; /* contexts naming the group themselves */
    double calls;        /* pk_callgraph_flat(): times called from outside the group */
} pk_flat_row;

/* One row per group that some context names, sorted by exclusive value
 * (largest first), from per-context `inclusive` and `exclusive` values
 * (pk_context_scope_values(); either may be NULL, leaving that column 0).
 * A context's own value (exclusive minus its lexical children's) counts
 * for the group it names or, failing that, its nearest lexical ancestor
 * names; its inclusive value counts unless a caller on its path is in the
 * same group (recursion counted once). Free *rows with pk_flat_free(). */
PK_API pk_status pk_flat_profile(const pk_profile *profile, const double *inclusive,
                                 const double *exclusive, pk_group_by by, pk_flat_row **rows,
                                 size_t *n_rows);
PK_API void pk_flat_free(pk_flat_row *rows);
/* The same for a metric whose values combine by `how`: for min and max
 * (Cube's min_time, max_time) a group's exclusive value is the smallest
 * (largest) stored exclusive value of its contexts and its inclusive
 * value the smallest (largest) of its outermost contexts' (values of
 * min/max metrics do not add up); sum as pk_flat_profile(). */
PK_API pk_status pk_flat_profile_combined(const pk_profile *profile, const double *inclusive,
                                          const double *exclusive, pk_group_by by, pk_combine how,
                                          pk_flat_row **rows, size_t *n_rows);
/* For a profile with a call graph (Callgrind), grouped by function: each
 * row's inclusive value replaced by the call graph's for metric `metric`
 * (exact, with recursion and cycles handled as KCachegrind does;
 * pk_callgraph_function_costs()) instead of the reconstructed tree's.
 * *used is 1 if it was done, 0 if the profile has no call graph. */
PK_API pk_status pk_flat_callgraph_inclusive(const pk_profile *profile, pk_index metric,
                                             pk_flat_row *rows, size_t n_rows, int *used);
/* The flat profile of a profile with a call graph (Callgrind), answered
 * from the call graph alone, exactly, with no calling-context tree: per
 * group, the self cost of `event` (the group's self cost records; a line
 * or file is the one the record names, inlined code included), the
 * inclusive cost (the self cost plus the calls leaving the group, where
 * groups that call each other in a cycle count their calls to each other
 * once, as pk_callgraph_function_costs() does for functions; by line:
 * the line's self cost plus the calls made on it that leave the calling
 * function), and how many times the group was called from outside it
 * (rows' `calls`; by line: the calls made on it). Functions come with
 * their cycles ("<cycle N>") as rows. At one location or over all
 * (PK_NONE); sorted by self cost, largest first. PK_ERR_NOT_FOUND
 * without a call graph, PK_ERR_UNSUPPORTED for lines when the profile
 * was opened PK_OPEN_BY_FUNCTION. Free *rows with pk_flat_free(). */
PK_API pk_status pk_callgraph_flat(const pk_profile *profile, pk_index location, size_t event,
                                   pk_group_by by, pk_flat_row **rows, size_t *n_rows);
/* A row's display name ("main", "src/a.c", "/lib/libc.so.6", "a.c:12");
 * returns the length it needed, as snprintf. */
PK_API size_t pk_flat_row_name(const pk_profile *profile, pk_group_by by, const pk_flat_row *row,
                               char *buf, size_t size);

/* The calling-context tree as stacks of function frames (what flame
 * graphs, folded stacks, callers and callees show): only function
 * contexts open a frame, loops, lines and instructions fold into the
 * function around them, and sibling frames of equal name merge. Frame 0 is
 * the root; a frame's parent comes before it; children are linked through
 * first_child/next_sibling (PK_NONE ends). Contexts without a known parent
 * (unlisted) are left out, as the tree leaves them out. */
typedef struct pk_frame {
    pk_index parent; /* PK_NONE for frame 0 */
    pk_index first_child, next_sibling;
    pk_index context;   /* the first context merged into it: its name */
    uint32_t depth;     /* root 0 */
    uint64_t name_hash; /* equal names, equal hashes */
    double inclusive;   /* sum over the merged contexts */
    double self;        /* inclusive minus the children's */
} pk_frame;

/* Frames from per-context inclusive values (pk_context_stat_values()).
 * Free *frames with pk_frames_free(). */
PK_API pk_status pk_frames_build(const pk_profile *profile, const double *inclusive,
                                 pk_frame **frames, size_t *n);
PK_API void pk_frames_free(pk_frame *frames);
/* The contexts' display names (pk_context_name()) as a categorical
 * column, what a table with a name on every row needs: names[0..n_names)
 * distinct, each made well-formed UTF-8 (an ill-formed subpart replaced by
 * U+FFFD, as Python's decode(errors="replace") does) and sorted bytewise
 * (so by code point), lengths[k] names[k]'s, and codes[i] the index of
 * context i's name among them (pk_context_count() entries). Free with
 * pk_name_codes_free(). */
typedef struct pk_name_codes {
    const char **names; /* NUL-terminated */
    size_t *lengths;
    size_t n_names;
    uint32_t *codes;
    void *storage; /* private: where the names live */
} pk_name_codes;
PK_API pk_status pk_context_name_codes(const pk_profile *profile, pk_name_codes *out);
PK_API void pk_name_codes_free(pk_name_codes *codes);
/* The frame's display name (its context's, pk_context_name()). */
PK_API size_t pk_frame_name(const pk_profile *profile, const pk_frame *frame, char *buf,
                            size_t size);
/* The frames named `name` (exactly, or else matching it as a POSIX
 * extended regular expression), each counted once under recursion: only
 * frames with no matching ancestor count. `callers` = 0 gives the
 * top-down tree below them (callees, merged by name path; frame 0 is the
 * merged function itself); 1 gives the bottom-up tree above them (frame 0
 * the function, its children its callers, theirs the callers' callers,
 * each with the function's inclusive and self values on that path: a
 * frame's `self` there is the function's own value, not the caller's).
 * PK_ERR_NOT_FOUND when no frame matches. */
PK_API pk_status pk_frames_around(const pk_profile *profile, const pk_frame *frames, size_t n,
                                  const char *name, int callers, pk_frame **out, size_t *n_out);
/* Frames for comparing calling paths across formats (diffs): as
 * pk_frames_build(), but only functions open a frame, and not the
 * functions a writer makes up for what its format cannot hold (an entry
 * point written as a function "main thread", a call site known only by
 * its address as "libfoo.so+0x1a86d"): their values fold into the frame
 * around them, as the entry points and instruction contexts they stand
 * for do. An unknown function is named after its module's file name. */
PK_API pk_status pk_frames_build_paths(const pk_profile *profile, const double *inclusive,
                                       pk_frame **frames, size_t *n);
/* As pk_frames_build(), but loops open frames of their own ("loop at
 * f.c:12" under its function): a function-level tree that keeps loops. */
PK_API pk_status pk_frames_build_loops(const pk_profile *profile, const double *inclusive,
                                       pk_frame **frames, size_t *n);
/* For every frame of `a` (of profile pa), the frame of `b` (profile pb)
 * at the same path of names, or PK_NONE: b_of_a holds n_a indexes. */
PK_API pk_status pk_frames_match(const pk_profile *pa, const pk_frame *a, size_t n_a,
                                 const pk_profile *pb, const pk_frame *b, size_t n_b,
                                 pk_index *b_of_a);

/* One line of a comparison between profile A (the base) and B: indexes
 * of the matched entities in each (PK_NONE where one lacks it: added in
 * B, or removed from A) with their inclusive and self/exclusive values. */
typedef struct pk_diff_row {
    pk_index a, b;
    double a_incl, b_incl;
    double a_self, b_self;
    int same; /* set by pk_diff_settle(): no change beyond rounding */
    /* 1 when a side has a call graph (pk_diff_exact) and the function is
     * in one of its cycles: that side's inclusive value is then the call
     * graph's (self plus the calls leaving the cycle, as KCachegrind
     * counts it) or, compared with a tree, the tree reconstructed from it
     * (an estimate where calls go round): a tree's (recursion counted
     * once per path) differs from either by definition. Same-named
     * functions of a call graph that call each other count as a cycle. */
    int in_cycle;
    int self_same; /* set by pk_diff_settle(): the self value alone did not
                      change (an ancestor changed only through its callees) */
    int incl_same; /* set by pk_diff_settle(): the inclusive value alone did
                      not change (a table of inclusive changes leaves it out) */
} pk_diff_row;
/* Every frame of either profile, matched by its path of names, sorted by
 * the absolute change of the inclusive value (largest first), then of
 * the self value. Free *rows with pk_diff_free(). */
PK_API pk_status pk_diff_frames(const pk_profile *pa, const pk_frame *a, size_t n_a,
                                const pk_profile *pb, const pk_frame *b, size_t n_b,
                                pk_diff_row **rows, size_t *n_rows);
/* Every row of two flat profiles (pk_flat_profile(), same `by`) matched
 * by display name (rows of one side sharing a name summed into the first), sorted by the absolute
 * change of the exclusive value (largest first), then of the inclusive value; a/b index the rows.
 */
PK_API pk_status pk_diff_flat(const pk_profile *pa, const pk_flat_row *ra, size_t n_a,
                              const pk_profile *pb, const pk_flat_row *rb, size_t n_b,
                              pk_group_by by, pk_diff_row **rows, size_t *n_rows);
/* Per function, from two frame trees (pk_frames_build_paths()): the sum
 * of each function's self values, and of its inclusive values where no
 * caller on the path is the same function (recursion counted once);
 * functions matched by name; a/b index one frame of the function. Sorted
 * as pk_diff_flat(). Free *rows with pk_diff_free(). */
PK_API pk_status pk_diff_functions(const pk_profile *pa, const pk_frame *a, size_t n_a,
                                   const pk_profile *pb, const pk_frame *b, size_t n_b,
                                   pk_diff_row **rows, size_t *n_rows);
/* Exact per-function values of one side (indexed by function; a call
 * graph's pk_callgraph_function_costs()), in place of what its frames
 * add up to; functions flagged in `hidden` (may be NULL: a call graph's
 * "<cycle N>" pseudo-functions) are left out of the rows. */
typedef struct pk_diff_exact {
    /* may both be NULL: the side keeps its tree's values (its flags
     * below still apply) */
    const double *self, *inclusive;
    const unsigned char *hidden;
    const unsigned char *in_cycle; /* may be NULL: functions in a cycle */
} pk_diff_exact;
/* pk_diff_functions() with a side's values taken from `ea`/`eb` where
 * not NULL. */
PK_API pk_status pk_diff_functions_exact(const pk_profile *pa, const pk_frame *a, size_t n_a,
                                         const pk_diff_exact *ea, const pk_profile *pb,
                                         const pk_frame *b, size_t n_b, const pk_diff_exact *eb,
                                         pk_diff_row **rows, size_t *n_rows);
/* Mark the rows whose values differ only by the rounding of sums (both
 * the inclusive and the self value: |a - b| <= 1e-9 x max(|a|, |b|,
 * |total|), total being A's program total) as `same` (and `self_same`,
 * `incl_same` for each value alone), and move them after the others,
 * keeping the order. Unmatched rows whose values are all
 * within that of 0 are `same` too. */
PK_API void pk_diff_settle(pk_diff_row *rows, size_t n, double total);
PK_API void pk_diff_free(pk_diff_row *rows);
/* The factor that turns values of metric `from` into the unit of metric
 * `to`, when their units (pk_metric.unit, else a time unit ending the
 * name: "CPUTIME (sec)") differ by a known power of 1000 ("sec" and "us":
 * 1e6 from sec to us; "1e-9" and none); 1 when they are the same.
 * PK_ERR_NOT_FOUND when they do not compare so. */
PK_API pk_status pk_metric_unit_factor(const pk_metric *from, const pk_metric *to, double *factor);

/* What one trace says about time (nanoseconds). A sample holds until the
 * next; the last one counts for nothing; a timestamp earlier than the one
 * before counts as that one's. In a sampled trace an interval
 * longer than ten times the median interval (`period_ns`) is a gap:
 * counted in n_gaps and gap_ns, credited to no context. A trace with "not
 * running" samples (context id 0) records events (GPU streams) and has no
 * gaps: event_based is 1. */
typedef struct pk_trace_summary {
    uint64_t n_samples, begin, end;
    uint64_t period_ns; /* median interval between samples */
    int event_based;    /* has "not running" samples: no gap detection */
    double running_ns;  /* in samples with a context */
    double idle_ns;     /* in samples saying "not running" (or an unknown context) */
    uint64_t n_gaps;
    double gap_ns, largest_gap_ns;
} pk_trace_summary;
/* Summarise trace `trace`; when by_context is not NULL (n_ctx =
 * pk_context_count() doubles), add each context's running time to it.
 * For a selection of locations, a window, focus/hide and time per
 * function, see pk_trace_answer_compute() (profkit/trace.h). */
PK_API pk_status pk_trace_summarize(const pk_profile *profile, pk_index trace, double *by_context,
                                    size_t n_ctx, pk_trace_summary *out);

/* Recomputing what hpcprof computes from raw measurements. */
typedef struct pk_derive_options {
    uint32_t flags;   /* reserved, 0 */
    unsigned threads; /* workers; 0 = automatic */
} pk_derive_options;

typedef struct pk_derive_report {
    uint32_t n_metrics;    /* metrics with point values (derived) */
    uint32_t n_statistics; /* summary statistics recomputed */
    uint32_t n_kept;       /* summary statistics kept as stored (other formulas) */
    uint64_t n_values;     /* values in the profile afterwards */
} pk_derive_report;

/* Replace the profile's propagated values by ones recomputed from its
 * point (raw) values, exactly as hpcprof computes them (docs/derive.md):
 * for every metric with a point column, its function (exclusive),
 * lex_aware and execution (inclusive) columns in every non-summary
 * location, then every summary statistic over those scopes with formula
 * $$, 1 or ($$^2) and combine sum, min or max. Other columns are kept.
 * Point values of contexts whose parent is unknown (unlisted) stay where
 * they are: they cannot reach their ancestors. PK_ERR_UNSUPPORTED when
 * there is nothing to derive from (no point column, or summary-only). On
 * failure the profile is unchanged or, if memory ran out midway, still
 * consistent (old values). `opts` and `rep` may be NULL. */
PK_API pk_status pk_profile_derive(pk_profile *profile, const pk_derive_options *opts,
                                   pk_derive_report *rep);

/* Problems found by pk_profile_verify(). */
typedef void (*pk_problem_fn)(void *user, const pk_diagnostic *problem);

/* Checks that need the whole model: the values read from different files
 * agree (HPCToolkit: profile.db and cct.db hold the same values
 * transposed). Each disagreement is reported through `fn` (may be NULL);
 * *n_problems (may be NULL) receives how many there were. Returns PK_OK
 * even when problems were found: the count tells. */
PK_API pk_status pk_profile_verify(const pk_profile *profile, pk_problem_fn fn, void *user,
                                   size_t *n_problems);

/* ------------------------------------------------------------------ */
/* Merging profiles                                                   */
/* ------------------------------------------------------------------ */

typedef struct pk_merge_options {
    /* 0: append every location of every input (when two inputs have a
     * location with the same identifier tuple, every location gets a
     * leading RUN element with its input's position, so none is lost).
     * 1: locations with the same identifier tuple become one location
     * holding the mean over the inputs that have it; traces are left out
     * (a mean of timelines is not a timeline). */
    int mean;
} pk_merge_options;

/* Unite `n` profiles (any formats) into a new, self-contained *out: the
 * inputs may be freed afterwards. Modules, files, functions, metrics and
 * scopes are matched by name; contexts by their path from the root (each
 * step's kind, relation, function, source position and code point), so a
 * context only some inputs have is kept with their values. Summary
 * locations are dropped (statistics of the inputs are not statistics of
 * the union; writers recompute them). `opts` may be NULL. */
PK_API pk_status pk_profile_merge(const pk_profile *const *profiles, size_t n,
                                  const pk_merge_options *opts, pk_profile **out);

/* Derived metrics: an arithmetic expression over metric names
 * ("D1mr/Dr", "(Ir - Dr) * 2", "\"CPUTIME (sec)\" / 2"; grammar in
 * docs/derived.md), evaluated on values a view has aggregated. x/0 gives
 * NaN. */
typedef struct pk_expr pk_expr;
PK_API pk_status pk_expr_parse(const char *text, pk_expr **out);
/* The metric names the expression uses, each once, in order of first use. */
PK_API size_t pk_expr_var_count(const pk_expr *e);
PK_API const char *pk_expr_var_name(const pk_expr *e, size_t i);
/* The value for vars[i] = the value of pk_expr_var_name(e, i). */
PK_API double pk_expr_eval(const pk_expr *e, const double *vars);
PK_API void pk_expr_free(pk_expr *e);

#ifdef __cplusplus
}
#endif

#endif /* PROFKIT_ANALYSIS_H */
