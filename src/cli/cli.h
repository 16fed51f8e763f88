/*
 * cli/cli.h — what the subcommands of the profkit executable share.
 *
 * Each subcommand lives in its own cmd_<name>.c and is a thin layer over
 * the public library API: parse options, call the library, render.
 * Exit status: 0 ok, 1 bad data or no answer, 2 usage error.
 */
#ifndef PK_CLI_H
#define PK_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "profkit/profkit.h"

enum { CLI_OK = 0, CLI_BAD = 1, CLI_USAGE = 2 };

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
} cli_command;

int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_flat(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_flame(int argc, char **argv);
int cmd_threads(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_callers(int argc, char **argv);
int cmd_callees(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_view(int argc, char **argv);

/* Print "profkit CMD: <message>" and a hint to stderr; returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print the library's last error; returns the exit status it deserves. */
int cli_library_error(const char *cmd, pk_status st);
/* pk_loss_fn for writers: names on stderr what the output (the `output`
 * path) leaves out and why, one line per item. */
void cli_report_loss(void *output, const char *item, const char *reason);
/* Open a profile, reporting failure; returns CLI_OK or an exit status. An
 * incomplete profile is said so on stderr. */
int cli_open(const char *cmd, const char *path, uint32_t flags, pk_profile **out);
/* A size: N with an optional K, M, G or T (powers of 1024, "KiB"/"KB"
 * too), or "unlimited" (UINT64_MAX). 0 when it is not one. */
int cli_parse_size(const char *s, uint64_t *out);
/* The memory budget PROFKIT_MAX_MEMORY (or `profkit --max-memory`) sets,
 * 0 (the library's default) when unset; CLI_USAGE, reported, when it is
 * not a size. */
int cli_max_memory(uint64_t *out);
/* Free a profile a command is done with, and return `rc`, or CLI_BAD when
 * one of its files shrank while the command used it (pk_profile_intact):
 * what it printed then came partly from zeros, and stderr says so. */
int cli_close(const char *cmd, pk_profile *p, int rc);
int cli_open_opts(const char *cmd, const char *path, const pk_open_options *opts, pk_profile **out);
/* What a view showing contexts of at least `percent` % asks of a call
 * graph's reconstructed tree (pk_open_options.tree_threshold): built a
 * good way below that, so no other metric's context of that size is
 * missed; 0 (the whole tree) when every context is wanted. */
double cli_tree_threshold(double percent);
/* `info`'s call graph section (info_callgraph.c); nothing without one. */
void cli_info_callgraph(const pk_profile *p);
/* 1 if colour should be used on `f`: a terminal, NO_COLOR unset, TERM not dumb. */
int cli_use_color(FILE *f, int disabled);
/* Columns of the terminal `f` is, 0 when it is not one (never shorten). */
unsigned cli_terminal_width(FILE *f);
/* A name from a profile as text output shows it (pk_text_escape: escape
 * sequences, newlines, invalid UTF-8 made visible), in one of a few
 * rotating buffers: valid until the eighth call after it, enough for one
 * printf with several names. NULL gives "-". */
const char *cli_text(const char *s);
/* A function name for a text view: demangled unless keep_mangled,
 * escaped, shortened to `room` columns (0: whole); from a ring of 8
 * buffers, like cli_text. */
const char *cli_name(const char *raw, int keep_mangled, unsigned room);
/* Human-readable byte count ("1.6 KiB"). */
const char *cli_bytes(char *buf, size_t size, unsigned long long n);
/* Exactly one positional argument expected after options; returns it or NULL (after
 * printing a usage error). */
const char *cli_one_path(const char *cmd, int argc, char **argv, int optind_);

/* The one PATH left after getopt (argv[optind]) opened with `flags`;
 * *path (may be NULL) gets it. CLI_OK or an exit status (reported). */
int cli_open_arg(const char *cmd, int argc, char **argv, uint32_t flags, const char **path,
                 pk_profile **out);

/* The metric `spec` names: "NAME" or "NAME:inclusive|exclusive" (exact, or
 * the one metric it is a case-insensitive prefix of, or the one spelled
 * alike; *scope, if not NULL, gets the suffix's kind or PK_SCOPE_OTHER), or
 * with no spec the first time-like metric with a non-zero total, else the
 * first with one, else the first (metric_pick.c). Returns 0 when nothing
 * or several match, reporting it with the candidates under `cmd` (quiet
 * when cmd is NULL). */
int cli_pick_metric(const char *cmd, const pk_profile *p, const char *spec, pk_index *out,
                    pk_scope_kind *scope);
/* One line saying the tree is reconstructed from a call graph, if it is. */
void cli_say_reconstructed(const pk_profile *p, FILE *out);
/* 1 if the profile's calling-context tree was reconstructed. */
int cli_is_reconstructed(const pk_profile *p);

/* --- parallel.c: convert and merge over threads and MPI ranks --- */
/* The ranks profkit-mpi runs on (NULL in profkit): convert and merge then
 * take the parallel path. */
extern const pk_team *cli_team;
int cli_parse_threads(const char *cmd, const char *arg, unsigned *out);
/* A measurement directory to a database (pk_build_database); exit status. */
int cli_parallel_convert(const char *input, const char *output, unsigned threads,
                         uint32_t write_flags, int quiet, double seconds_start);
/* Profiles merged into one database (pk_merge_database); exit status,
 * and what it reports in *s and *st. */
int cli_parallel_merge(const char *const *inputs, int n, const char *output, unsigned threads,
                       int mean, uint32_t write_flags, int quiet, double seconds_start,
                       pk_parallel_stats *s, pk_status *st);
/* SIGINT/SIGTERM/SIGHUP remove this process's temporary outputs first. */
void cli_install_cleanup(void);
/* Monotonic seconds. */
double cli_now(void);

/* --- formats.c: the written format named by --to NAME, or implied by an
 * output path ("x.d", "x.cubex", "callgrind.out.x"); 0 if none --- */
int cli_format_from_name(const char *name, pk_format *out);
int cli_format_from_path(const char *path, pk_format *out);

/* --- convert_export.c: one-way exports of `convert` --- */
enum { CLI_EXPORT_FOLDED = 1, CLI_EXPORT_SPEEDSCOPE = 2, CLI_EXPORT_CSV = 3 };
/* The export --to names (or OUTPUT's suffix implies), else 0. */
int cli_export_kind(const char *to, const char *output);
/* Read INPUT and write the export; returns the exit status. */
int cli_export(int kind, const char *input, const char *output, const char *metric, int force,
               int quiet);

/* --- callgraph.c: views answered from a call graph (Callgrind) --- */
typedef struct cli_view cli_view;
typedef struct cli_cg_view {
    pk_index metric;
    pk_metric met;
    size_t event;        /* the call graph event of the metric */
    pk_index *locations; /* --location's, or NULL for all */
    size_t n_locations;
    double total;        /* self costs of the selection */
    pk_number_format nf; /* how the values read for people */
} cli_cg_view;
/* Metric, event and locations of a view on profile p, which has a call
 * graph; CLI_OK or an exit status (reported). */
int cli_cg_view_init(const char *cmd, const pk_profile *p, const cli_view *v, cli_cg_view *out);
void cli_cg_view_free(cli_cg_view *v);
/* The flat profile of the view's locations (summed), largest self first. */
pk_status cli_cg_flat(const pk_profile *p, const cli_cg_view *cv, pk_group_by by,
                      pk_flat_row **rows, size_t *n_rows);
/* The header lines of such a view: metric, total, locations, exactness. */
void cli_cg_describe(const pk_profile *p, const cli_view *v, const cli_cg_view *cv, FILE *out);

/* --- suggest.c: "did you mean" ---------------------------------------- */

struct option;
/* The name nearest to `word` (a typo away), or NULL. */
const char *cli_nearest(const char *word, const char *const *names, size_t n);
/* getopt_long that reports a bad option itself, naming it and the
 * nearest long option ("did you mean '--threshold'?"); then returns '?'. */
int cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
               const struct option *opts);
/* After cli_getopt's '?': "Try 'profkit CMD --help'.", CLI_USAGE. */
int cli_bad_option(const char *cmd);

/* --- several and derived metrics (metric_columns.c) ------------------ */

/* Is -m's text a list or a derived metric ("Ir,Dr", "miss=D1mr/Dr"),
 * not the name of one of p's metrics? */
int cli_metric_list(const pk_profile *p, const char *spec);

#define CLI_MAX_COLUMNS 16
#define CLI_MAX_BASES   32
typedef struct cli_column {
    char label[64];
    pk_expr *e;
    size_t base[CLI_MAX_BASES]; /* index in cli_columns.base of each of e's names */
    int plain;                  /* a metric named, no expression: its unit applies */
} cli_column;
/* The columns of -m 'A,B,name=EXPR' and the metrics (bases) they need. */
typedef struct cli_columns {
    cli_column col[CLI_MAX_COLUMNS];
    size_t n_col;
    pk_metric base[CLI_MAX_BASES];
    pk_index base_index[CLI_MAX_BASES];
    size_t n_base;
} cli_columns;
/* Parse the -m text; CLI_OK or an exit status (reported under cmd). */
int cli_columns_parse(const char *cmd, const pk_profile *p, const char *spec, cli_columns *out);
/* Column c's value given every base's value (base_values[b]); NaN for x/0. */
double cli_columns_eval(const cli_columns *t, size_t c, const double *base_values);
void cli_columns_free(cli_columns *t);

/* --- flat: several and derived metrics (flat_columns.c) -------------- */

/* A flat row's key and the value it is ranked by; cli_ranked_by_value()
 * (a qsort comparator) puts the largest first, NaN last, ties by key. */
typedef struct cli_ranked {
    uint64_t key;
    double v;
} cli_ranked;
int cli_ranked_by_value(const void *a, const void *b);

/* The flat profile with one column per metric or expression. */
int cli_flat_columns(const pk_profile *p, const cli_view *v, pk_group_by by);
/* Rows of `flat -m view->metric` grouped by `by` (cmd_flat.c), and the
 * metric's total; free *rows with pk_flat_free(). CLI_OK or an exit
 * status (reported). */
int cli_flat_rows(const pk_profile *p, const cli_view *view, pk_group_by by, pk_flat_row **rows,
                  size_t *n, pk_number_format *nf, double *total);
/* 1 when flat answers view v from p's call graph (cmd_flat.c). */
int cli_flat_from_callgraph(const pk_profile *p, const cli_view *v);
/* flat_extra.c: rows[].calls from the profile's call-count metric (Cube
 * visits: each group's own visits), *has 1, unless it has none or it is
 * the metric shown; CLI_OK or an exit status (reported). */
int cli_flat_call_counts(const pk_profile *p, const cli_view *v, pk_group_by by,
                         const char *shown_metric, pk_flat_row *rows, size_t n, int *has);
/* CSV fields "name,module,file,line" of a flat row on stdout (by
 * function: where it is defined; by line: its file and line). */
void cli_flat_csv_name(const pk_profile *p, pk_group_by by, const pk_flat_row *r);
void cli_flat_csv_place(const pk_profile *p, pk_group_by by, const pk_flat_row *r);

/* `annotate --json` of `target` (a function or file name; NULL: the top
 * v->top functions) written to `out` (cmd_annotate.c); CLI_OK or an exit
 * status (reported on stderr). */
int cli_annotate_json(const pk_profile *p, const cli_view *v, const char *target, FILE *out);

/* `diff --json` of two open profiles, A = pa, B = pb, with the view's
 * metric, locations and --top, written to `out` (cmd_diff.c). */
int cli_diff_json(const pk_profile *pa, const pk_profile *pb, const cli_view *v, FILE *out);

/* A value for people followed by its unit ("7.025 s", "1,234"). */
void cli_put_number(FILE *out, double v, const pk_number_format *nf);

/* --- view.c: the options every analysis command shares --------------- */

/* getopt codes of the shared long options without a short form. */
enum {
    CLI_OPT_LOCATION = 1000,
    CLI_OPT_STAT,
    CLI_OPT_FOCUS,
    CLI_OPT_HIDE,
    CLI_OPT_JSON,
    CLI_OPT_CSV,
    CLI_OPT_NO_COLOR,
    CLI_OPT_NO_DEMANGLE,
};
/* Entries for a struct option array (short forms: -m, -t, -n). */
#define CLI_VIEW_LONG_OPTIONS                                                                      \
    {"metric", required_argument, NULL, 'm'}, {"threshold", required_argument, NULL, 't'},         \
        {"top", required_argument, NULL, 'n'},                                                     \
        {"location", required_argument, NULL, CLI_OPT_LOCATION},                                   \
        {"stat", required_argument, NULL, CLI_OPT_STAT},                                           \
        {"focus", required_argument, NULL, CLI_OPT_FOCUS},                                         \
        {"hide", required_argument, NULL, CLI_OPT_HIDE},                                           \
        {"json", no_argument, NULL, CLI_OPT_JSON}, {"csv", no_argument, NULL, CLI_OPT_CSV},        \
        {"no-color", no_argument, NULL, CLI_OPT_NO_COLOR},                                         \
    {                                                                                              \
        "no-demangle", no_argument, NULL, CLI_OPT_NO_DEMANGLE                                      \
    }
/* Help text of the shared options, for each command's --help. */
#define CLI_VIEW_HELP                                                                              \
    "  -m, --metric NAME[:SCOPE]  metric (exact name, or a case-insensitive\n"                     \
    "                        prefix; SCOPE inclusive or exclusive); default:\n"                    \
    "                        the first time metric with a non-zero total\n"                        \
    "      --location SEL    only the locations SEL names: KIND=ID[,KIND=ID...]\n"                 \
    "                        (rank=3,thread=0; rank=3 is all threads of rank 3)\n"                 \
    "                        or #N (index N in 'profkit threads')\n"                               \
    "      --stat STAT       combine locations by sum (default), mean, min, max\n"                 \
    "                        or stddev\n"                                                          \
    "      --focus REGEX     only what runs inside contexts whose name matches\n"                  \
    "      --hide REGEX      drop contexts whose name matches, with their callees\n"               \
    "      --no-color        no colours even on a terminal\n"                                      \
    "      --no-demangle     C++ names as the file stores them (default: demangled;\n"             \
    "                        long names shortened to COLUMNS, 80 off a terminal)\n"

struct cli_view {
    const char *metric, *location, *focus, *hide;
    pk_across stat;
    double threshold;
    size_t top;
    int json, csv, no_color, no_demangle;
};

/* What a view selects: the metric and its per-context values. */
typedef struct cli_view_values {
    pk_index metric;
    pk_metric met;
    pk_scope_kind scope; /* from NAME:SCOPE, else PK_SCOPE_OTHER */
    double *incl, *excl; /* excl NULL when it cannot be had (min/max metric) */
    double total;        /* root inclusive before --focus/--hide */
    int derived;         /* scope kind derived from the other, or 0 */
    unsigned char *selected;
    size_t n_selected, n_matched;
    pk_number_format nf; /* how the values read for people */
} cli_view_values;

const char *cli_stat_name(pk_across stat);
/* Apply shared option `c` (a getopt code); returns 0 or a usage status. */
int cli_view_option(const char *cmd, cli_view *v, int c, const char *arg);
/* Checks between options once all are read; 0 or a usage status. */
int cli_view_check(const char *cmd, const cli_view *v);
/* Pick the metric and compute its values; CLI_OK or an exit status (the
 * error reported). Free with cli_view_values_free(). */
int cli_view_compute(const char *cmd, const pk_profile *p, const cli_view *v, cli_view_values *out);
void cli_view_values_free(cli_view_values *vals);
/* What a tree shows (lexical): functions only, with loops, or every
 * context (loops, lines, instructions). */
enum { CLI_TREE_FUNCTIONS = 0, CLI_TREE_LOOPS = 1, CLI_TREE_LINES = 2 };
/* Options of the tree-shaped views (tree, callers, callees): the shared
 * ones plus -d/--depth into o->max_depth, --tree into *want_tree when
 * want_tree is not NULL (callers, callees), --loops/--lines into *lexical
 * when lexical is not NULL (tree). Returns 0, -1 after printing `help`,
 * or a usage status. */
int cli_parse_tree_options(const char *cmd, const char *help, int argc, char **argv, cli_view *v,
                           pk_tree_options *o, int *want_tree, int *lexical);
/* The header lines: metric, total, locations, derivations, filters. */
void cli_view_describe(const pk_profile *p, const cli_view *v, const cli_view_values *vals,
                       FILE *out);

/* A flat row's name as a JSON string value, whole (json_names.c). */
pk_status cli_json_flat_row_name(pk_json *j, const pk_profile *p, pk_group_by by,
                                 const pk_flat_row *row);
/* After a --json document: CLI_OK, or the writer's or the stream's error
 * reported (json_names.c). */
int cli_json_done(const char *cmd, pk_json *j);
/* stdout flushed: CLI_OK, or its write error reported. */
int cli_output_done(const char *cmd);

/* --- tree views with several metrics and call counts (tree_columns.c) */

/* How a tree view makes its nodes from one metric's per-context
 * inclusive values (pk_frames_build() and kin); NULL: the contexts. */
typedef struct cli_tree_build {
    pk_status (*fn)(const pk_profile *p, const double *incl, const void *arg, pk_frame **frames,
                    size_t *n);
    const void *arg;
} cli_tree_build;
typedef struct cli_tree_base {
    pk_metric met;
    double total;
    pk_number_format nf;
    double *incl, *self; /* per node; self NULL when not known */
    pk_frame *frames;    /* the nodes, when built as frames */
    size_t n;
} cli_tree_base;
typedef struct cli_tree_values {
    cli_view_values vals; /* one metric: its view (values per context) */
    pk_frame *frames;     /* the nodes, with the first column's values */
    size_t n;             /* nodes (frames, or contexts) */
    double total;         /* of the first column */
    pk_number_format nf;  /* of the first column */
    const char *label;    /* the first column's name */
    size_t n_col;         /* 0 for one metric */
    cli_columns cols;
    cli_tree_base base[CLI_MAX_BASES];
    double *incl[CLI_MAX_COLUMNS], *self[CLI_MAX_COLUMNS];
    pk_value_column out[CLI_MAX_COLUMNS];
    cli_tree_base calls_base;
    const double *calls; /* per node, or NULL */
} cli_tree_values;
/* The view's metric(s) and call counts per node; CLI_OK or an exit
 * status (reported). Free with cli_tree_values_free(). */
int cli_tree_values_compute(const char *cmd, const pk_profile *p, const cli_view *v,
                            const cli_tree_build *build, cli_tree_values *t);
/* Fill o's metric, numbers, columns and calls from t. */
void cli_tree_options(const cli_tree_values *t, pk_tree_options *o);
/* The header lines of such a view. */
void cli_tree_describe(const pk_profile *p, const cli_view *v, const cli_tree_values *t, FILE *out);
void cli_tree_values_free(cli_tree_values *t);

/* --- diff with several metrics (diff_columns.c) ---------------------- */

typedef struct cli_diff_base {
    pk_diff_row *fr, *pr; /* function and path rows, sorted by frames */
    size_t nf, np;
    double a_total, b_total;
    int set;
} cli_diff_base;
typedef struct cli_diff_cols {
    cli_columns cols;
    cli_diff_base base[CLI_MAX_BASES];
} cli_diff_cols;
/* Parse -m on profile A; the first item must be a metric (the tables are
 * of it). CLI_OK or an exit status (reported). */
int cli_diff_cols_parse(const pk_profile *pa, const char *spec, cli_diff_cols *d);
/* The name of the metric the tables are of. */
const char *cli_diff_cols_main(const cli_diff_cols *d);
/* Base `base`'s rows (copied) and totals. */
pk_status cli_diff_cols_set(cli_diff_cols *d, size_t base, const pk_diff_row *fr, size_t nf,
                            const pk_diff_row *pr, size_t np, double a_total, double b_total);
/* Column c's values in A and B of the row matching r (functions or
 * paths; self or inclusive values), and its totals. */
void cli_diff_cols_values(const cli_diff_cols *d, size_t c, const pk_diff_row *r, int paths,
                          int inclusive, double *a, double *b);
void cli_diff_cols_totals(const cli_diff_cols *d, size_t c, double *a, double *b);
void cli_diff_cols_free(cli_diff_cols *d);

/* --- diff's report for people (diff_text.c, diff_paths.c) ------------ */

/* One profile of a diff: its values of the metric, its frame tree. */
typedef struct cli_diff_side {
    pk_profile *p;
    cli_view_values vals;
    pk_frame *frames;
    size_t n_frames;
    double scale; /* B's values x scale are in A's unit */
} cli_diff_side;
/* The settled rows: per function (fr) and per calling path (pr). */
typedef struct cli_diff_tables {
    const pk_diff_row *fr, *pr;
    size_t nf, np;
} cli_diff_tables;
/* The text report on stdout; nf_of[c] is further column c's number
 * format (NULL for a derived one). CLI_OK or an exit status (reported). */
int cli_diff_write_text(const cli_diff_side *a, const cli_diff_side *b, const cli_diff_tables *d,
                        const cli_view *v, const char *pa, const char *pb,
                        const cli_diff_cols *cols, const pk_number_format *const *nf_of);
/* 1 if row r (the k-th shown) is within --top and --threshold of total
 * (by its self value when self, else its inclusive one) and changed. */
int cli_diff_row_shown(const cli_view *v, const pk_diff_row *r, double total, size_t k, int self);
/* frames[i]'s calling path for a terminal, "... > solve > dot", in
 * `room` columns: its own function always (shortened by the name rule
 * when it alone is too long), then as many callers as fit; names escaped
 * and demangled unless keep_mangled. Valid until the next call. */
const char *cli_diff_path_text(const pk_profile *p, const pk_frame *frames, pk_index i,
                               int keep_mangled, unsigned room);
/* frames[i]'s whole path with names as stored, like snprintf (JSON). */
size_t cli_diff_path_whole(const pk_profile *p, const pk_frame *frames, pk_index i, char *buf,
                           size_t size);
/* A percentage for people, never capped: "+0.4%", "+2591.0%", from
 * 10,000% on scaled like counts ("+10.80M%"); "-" for NaN. */
void cli_percent_text(char *buf, size_t size, double pct);
/* The change from a to b in percent of a; "new" where only b is not 0
 * (a NaN a: a derived value undefined in A), "0" where both are, "-"
 * where b is NaN. */
void cli_change_text(char *buf, size_t size, double a, double b);

/* --- annotate --asm (annotate_asm.c) --------------------------------- */

/* Where an annotation's per-instruction costs come from. */
typedef struct cli_asm_source {
    int from_callgraph;
    size_t event;              /* call graph: the metric's event */
    const pk_index *locations; /* call graph: --location's, or NULL */
    size_t n_locations;
    const double *excl; /* tree: exclusive values per context */
    double total;
    const char *metric;
    const pk_number_format *nf;
    int keep_mangled;
} cli_asm_source;
/* The machine code of function fn with its costs; CLI_OK or an exit
 * status (reported). */
int cli_annotate_asm(const pk_profile *p, pk_index fn, const cli_asm_source *src);

#endif
