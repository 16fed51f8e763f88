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

/* First thing in main(): run again with malloc on transparent huge pages
 * where that helps (hugepages.c); returns when it does not, or in the
 * process executed again. */
void cli_use_huge_pages(char **argv);

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
/* `info`'s call graph section (info_callgraph.c); nothing without one. */
void cli_info_callgraph(const pk_profile *p);
void cli_info_callgraph_json(pk_json *j, const pk_profile *p);
/* 1 if the profile's metrics nest (a metric tree, as Cube's); then
 * `info` shows them as a tree with each metric's program total
 * (`programs`, per metric) and own part (`exclusive`, of
 * pk_metric_tree_exclusive()) (info_metrics.c). */
int cli_info_has_metric_tree(const pk_profile *p);
int cli_info_metric_tree(const pk_profile *p, const double *programs, const double *exclusive);
/* 1 if colour should be used on `f`: a terminal, NO_COLOR unset, TERM not dumb. */
int cli_use_color(FILE *f, int disabled);
/* How many columns names may take on `f`: COLUMNS when it is set, else
 * the width of the terminal `f` is, else 0 (not a terminal: names are
 * never shortened, as ls and git do off a terminal). */
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
/* The names of one table for a text view, as cli_name() makes each, but
 * shortened together (pk_names_shorten()): different names never read
 * alike. Free with cli_labels_free(); NULL when out of memory. */
char **cli_labels(const char *const *names, size_t n, int keep_mangled, unsigned room);
void cli_labels_free(char **labels, size_t n);
/* Human-readable byte count ("1.6 KiB"). */
const char *cli_bytes(char *buf, size_t size, unsigned long long n);
/* Exactly one positional argument expected after options; returns it or NULL (after
 * printing a usage error). */
const char *cli_one_path(const char *cmd, int argc, char **argv, int optind_);

/* The one PATH left after getopt (argv[optind]) opened with `flags`;
 * *path (may be NULL) gets it. CLI_OK or an exit status (reported). */
int cli_open_arg(const char *cmd, int argc, char **argv, uint32_t flags, const char **path,
                 pk_profile **out);

/* --- output.c: writing to `-o -` (standard output, as git, coreutils
 * and pprof read it; the library writes there for "-") --- */
/* 1 when OUTPUT is "-". */
int cli_is_stdout(const char *output);
/* Where a command's own lines about OUTPUT ("wrote ...") go: stderr when
 * OUTPUT is standard output, so they never mix with the data. */
FILE *cli_messages(const char *output);
/* Binary data is not sent to a terminal (it garbles it): CLI_USAGE,
 * reported, when OUTPUT is "-" and standard output is a terminal; `what`
 * names the data ("a Cube archive"). Else CLI_OK. */
int cli_binary_ok(const char *cmd, const char *output, const char *what);

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
enum {
    CLI_EXPORT_FOLDED = 1,
    CLI_EXPORT_SPEEDSCOPE = 2,
    CLI_EXPORT_CSV = 3,
    CLI_EXPORT_CHROME = 4
};
/* The export --to names (or OUTPUT's suffix implies), else 0. */
int cli_export_kind(const char *to, const char *output);
/* Read INPUT and write the export; returns the exit status. */
int cli_export(int kind, const char *input, const char *output, const char *metric, int force,
               int quiet);
/* --- convert_chrome.c: `convert --to chrome`, a trace selection (the
 * options of `trace`) as a Chrome Trace Event file; gzip when asked or
 * when OUTPUT ends in ".gz". Returns the exit status. --- */
int cli_export_chrome(const char *input, const char *output, const pk_trace_selection *sel,
                      int force, int gzip, int quiet);

typedef struct cli_view cli_view;

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
    CLI_OPT_WIDTH,
};
/* --width N of the text views (not flame's, whose --width is pixels). */
#define CLI_WIDTH_LONG_OPTION                                                                      \
    {                                                                                              \
        "width", required_argument, NULL, CLI_OPT_WIDTH                                            \
    }
#define CLI_WIDTH_HELP                                                                             \
    "      --width N         shorten long names to fit N columns (0: whole names);\n"              \
    "                        default: COLUMNS when set, else the terminal's width,\n"              \
    "                        else (a pipe, a file) whole names\n"
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
    "                        the file's own (pprof), else the first time metric\n"                 \
    "                        with a non-zero total\n"                                              \
    "      --location SEL    only the locations SEL names: KIND=ID[,KIND=ID...]\n"                 \
    "                        (rank=3,thread=0; rank=3 is all threads of rank 3)\n"                 \
    "                        or #N (index N in 'profkit threads')\n"                               \
    "      --stat STAT       combine locations by sum (default), mean, min, max\n"                 \
    "                        or stddev\n"                                                          \
    "      --focus REGEX     only what runs inside contexts whose name matches\n"                  \
    "      --hide REGEX      drop contexts whose name matches, with their callees\n"               \
    "      --no-color        no colours even on a terminal\n"                                      \
    "      --no-demangle     C++ names as the file stores them (default: demangled)\n"

struct cli_view {
    const char *metric, *location, *focus, *hide;
    pk_across stat;
    double threshold;
    size_t top;
    int json, csv, no_color, no_demangle;
    int top_given;   /* -n was given */
    unsigned width;  /* --width N */
    int width_given; /* --width was given */
    /* The question, made by cli_view_check() from the options above
     * (which carry each command's defaults); freed by cli_view_free(). */
    pk_query *q;
};

const char *cli_stat_name(pk_across stat);
/* The columns names may fill on standard output: --width, else
 * cli_terminal_width(stdout); 0: whole names. */
unsigned cli_view_width(const cli_view *v);
/* Apply shared option `c` (a getopt code); returns 0 or a usage status. */
int cli_view_option(const char *cmd, cli_view *v, int c, const char *arg);
/* Checks between options once all are read, and makes v->q; 0 or a
 * usage status. */
int cli_view_check(const char *cmd, cli_view *v);
void cli_view_free(cli_view *v);
/* Set a further query option (by, level, depth...); 0 or a usage status
 * naming --NAME. */
int cli_query_set(const char *cmd, cli_view *v, const char *name, const char *value);
/* The first line of a view's header (metric, total, locations, statistic)
 * and its notes, each "(note)" on a line of its own. */
void cli_describe(const pk_answer_head *h, FILE *out);
/* The same for a tree of several columns: the metrics, the first one's
 * total, what the further columns are, the notes. */
void cli_describe_columns(const pk_answer_head *h, const cli_view *v);
/* What a tree shows (lexical): functions only, with loops, or every
 * context (loops, lines, instructions). */
enum { CLI_TREE_FUNCTIONS = 0, CLI_TREE_LOOPS = 1, CLI_TREE_LINES = 2 };
/* Options of the tree-shaped views (tree, callers, callees): the shared
 * ones plus -d/--depth into o->max_depth, --tree into *want_tree when
 * want_tree is not NULL (callers, callees), --loops/--lines into *lexical
 * and --show-chains into the query (chains=show) when lexical is not NULL
 * (tree). Returns 0, -1 after printing `help`,
 * or a usage status. */
int cli_parse_tree_options(const char *cmd, const char *help, int argc, char **argv, cli_view *v,
                           pk_tree_options *o, int *want_tree, int *lexical);
/* After a --json document: CLI_OK, or the writer's or the stream's error
 * reported (json_names.c). */
int cli_json_done(const char *cmd, pk_json *j);
/* A member "key": v of the object being written (json_names.c). */
void cli_json_count(pk_json *j, const char *key, uint64_t v);
/* stdout flushed: CLI_OK, or its write error reported. */
int cli_output_done(const char *cmd);
/* Set once a write error on stdout was reported, so main.c's check after
 * every command does not say it twice. */
extern int cli_output_reported;

/* A tree answer on stdout as the view's options ask: text, --json or
 * --csv (cmd_tree.c; callers and callees render their trees alike). */
int cli_tree_render(const char *cmd, const pk_tree_answer *a, const cli_view *v);

/* --- diff's report for people (diff_text.c, diff_paths.c) ------------ */

/* The text report of a diff answer on stdout (pa, pb: the inputs' paths). */
int cli_diff_write_text(const pk_diff_answer *d, const cli_view *v, const char *pa, const char *pb);
/* frames[i]'s calling path for a terminal, "... > solve > dot", in
 * `room` columns: its own function always (shortened by the name rule
 * when it alone is too long), then as many callers as fit; names escaped
 * and demangled unless keep_mangled. Valid until the next call. */
/* A call arc as text, "caller > callee", in `room` columns. */
const char *cli_diff_arc_text(const char *caller, const char *callee, int keep_mangled,
                              unsigned room);
const char *cli_diff_path_text(const pk_profile *p, const pk_frame *frames, pk_index i,
                               int keep_mangled, unsigned room);
/* A percentage for people, never capped: "+0.4%", "+2591.0%", from
 * 10,000% on scaled like counts ("+10.80M%"); "-" for NaN. */
void cli_percent_text(char *buf, size_t size, double pct);
/* A change in percent as the library gives it (NaN: none), shown with
 * the new value b: "new" where only b is not 0 (or the old value is a
 * derived one undefined in A), "0" where both are, "-" where b is NaN. */
void cli_change_text(char *buf, size_t size, double pct, double b);

#endif
