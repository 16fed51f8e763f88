/*
 * profkit/annotate.h — source annotation: the lines of a source file with
 * their costs beside them, as callgrind_annotate and `pprof list` show.
 *
 * The costs come from a flat profile grouped by line (pk_flat_profile()
 * on the calling-context tree, or pk_callgraph_flat() on a call graph,
 * which also counts the calls made on each line). What this header adds:
 * those rows per file and line, the source lines a function spans, where
 * a source file is on this machine, which lines to show around the costly
 * ones, and the listing itself (text or JSON, docs/json.md
 * profkit.annotate/1). `profkit annotate` (docs/cli.md) is built on it.
 */
#ifndef PROFKIT_ANNOTATE_H
#define PROFKIT_ANNOTATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis.h"
#include "output.h"
#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The cost of one source line. */
typedef struct pk_line_cost {
    pk_index file;
    uint32_t line;    /* 1-based */
    double self;      /* the line's own cost */
    double inclusive; /* self plus what the calls made on it cost (recursion once) */
    double calls;     /* calls made on the line (a call graph's counts), else 0 */
} pk_line_cost;

/* Flat rows grouped by line (PK_BY_LINE) as line costs sorted by file,
 * then line. Rows without a known file or with line 0 (a module's
 * "[libc.so]:0", a function's unknown line) are left out: no source line
 * shows them. Free *out with pk_line_costs_free(). */
PK_API pk_status pk_line_costs(const pk_flat_row *rows, size_t n_rows, pk_line_cost **out,
                               size_t *n_out);
PK_API void pk_line_costs_free(pk_line_cost *lines);

/* The lines of one file: [*first, *first + *n) of `lines` (sorted as
 * pk_line_costs() makes them) whose file is `file`; *n may be 0. */
PK_API void pk_line_costs_of_file(const pk_line_cost *lines, size_t n_lines, pk_index file,
                                  size_t *first, size_t *n);

/* One function's own costs by source line, as `pprof list` shows a
 * function: only the costs of code that belongs to it, never another
 * function's on the same line. */
typedef struct pk_function_lines {
    pk_line_cost *lines; /* sorted by file, then line; in every file it has code in */
    size_t n_lines;
    double self;    /* its whole self cost (flat's exclusive value of it) */
    double unlined; /* the part of `self` on no source line */
    /* PK_NONE, or k' < k: functions[k] has the name and module of
     * functions[k'] and its costs are there (flat counts such functions,
     * which differ only in their index, as one) */
    pk_index same_as;
} pk_function_lines;

/* The lines of `n` functions (out[k] for functions[k]) from the
 * calling-context tree, with `inclusive`/`exclusive` values per context
 * (as pk_flat_profile() takes them). A context belongs to the nearest
 * function frame it is in through lexical relations (loops, lines,
 * instructions); an inlined function is a frame of its own, its call site
 * (the line context it is under, or the frame's own line) its caller's.
 * Self: each context's own cost on its line (an instruction without a
 * line: its enclosing line's), a frame's own cost on no line (`unlined`).
 * Inclusive: each line context's, and each frame's on its call site's
 * line, counted once on a call path (recursion). One pass over the
 * contexts for all the functions. Free with pk_function_lines_free(). */
PK_API pk_status pk_function_line_costs(const pk_profile *profile, const double *inclusive,
                                        const double *exclusive, const pk_index *functions,
                                        size_t n, pk_function_lines *out);

/* The same from a call graph (Callgrind) for `event` over `locations`
 * (NULL: all): a function's own cost records on their lines, and the calls
 * it makes on their call lines with their inclusive costs and counts
 * (calls inside it or its cycle of recursion add no cost, as
 * pk_callgraph_flat() by line counts them). */
PK_API pk_status pk_callgraph_function_lines(const pk_profile *profile, size_t event,
                                             const pk_index *locations, size_t n_locations,
                                             const pk_index *functions, size_t n,
                                             pk_function_lines *out);
/* Free each out[k].lines of n results (not `fl` itself). */
PK_API void pk_function_lines_free(pk_function_lines *fl, size_t n);

/* Where a function's code is: a file and the range of lines it spans. */
typedef struct pk_source_span {
    pk_index file;  /* PK_NONE when no line of it is known */
    uint32_t first; /* its definition line when known, else its first line with code */
    uint32_t last;
} pk_source_span;

/* The spans of `n` functions: from the lines of the contexts inside each
 * (a calling-context tree: the line, loop and instruction contexts whose
 * nearest enclosing function context is it) or its cost records and call
 * sites (a call graph with line positions), in the function's own file
 * (its definition's, else the file most of its lines are in). One pass
 * over the contexts or records for all of them. */
PK_API pk_status pk_function_spans(const pk_profile *profile, const pk_index *functions, size_t n,
                                   pk_source_span *out);

/* Find source file `file` of the profile on this machine, trying in turn:
 * the copy an HPCToolkit database keeps (PK_FILE_COPIED: "src/..." in the
 * database directory), the path as recorded (a relative one against the
 * profile's directory, then the working directory), a copied file's
 * original path, and under each of `dirs` the path and every tail of it
 * ("/build/app/src/a.c" as DIR/build/app/src/a.c, DIR/app/src/a.c,
 * DIR/src/a.c, DIR/a.c), and for a copied file the same tails under the
 * database's src/. Only a readable regular file counts. The path
 * found goes to buf (NUL-terminated); PK_ERR_NOT_FOUND when there is
 * none, PK_ERR_LIMIT when the path does not fit buf. */
PK_API pk_status pk_source_locate(const pk_profile *profile, pk_index file, const char *const *dirs,
                                  size_t n_dirs, char *buf, size_t size);
/* pk_source_locate() confined to the profile's own copy of its sources
 * (a database's src/) and `dirs`: only the places under them are tried,
 * and the file found must lie under one of them once symbolic links and
 * ".." are resolved. A path the profile records elsewhere is never read:
 * what a server answering for other programs uses (profkit view). */
PK_API pk_status pk_source_locate_within(const pk_profile *profile, pk_index file,
                                         const char *const *dirs, size_t n_dirs, char *buf,
                                         size_t size);

/* Lines to show, inclusive ranges. */
typedef struct pk_line_range {
    uint32_t first, last;
} pk_line_range;

/* Which lines of one file to show: every line in [first, last] whose
 * self or inclusive cost reaches `min_cost` in magnitude (and is not 0),
 * with `context` lines either side (which may reach outside [first,
 * last]), overlapping or touching windows merged; `first` itself too when
 * `show_first` (a function's first line). `lines` are one file's, sorted by line. Free *out
 * with free(). */
PK_API pk_status pk_annotate_ranges(const pk_line_cost *lines, size_t n_lines, uint32_t first,
                                    uint32_t last, double min_cost, unsigned context,
                                    int show_first, pk_line_range **out, size_t *n_out);

/* One annotated listing: a file's lines in `ranges` (NULL: the whole
 * file) with the costs of `lines` beside them. */
typedef struct pk_annotation {
    const char *heading;       /* what is shown ("function main"), or NULL */
    const char *recorded;      /* the file's path as the profile records it */
    const char *source;        /* the file found (pk_source_locate()), NULL if none */
    const pk_line_cost *lines; /* this file's, sorted by line */
    size_t n_lines;
    const pk_line_range *ranges;
    size_t n_ranges;
    double total;     /* percentages are of this */
    const char *unit; /* the metric's unit, or NULL */
    int inclusive;    /* show the inclusive column */
    int calls;        /* show the calls column (a call graph counts them) */
    /* text: how values are written (pk_number_format_for() of the metric
     * and total, so the lines read as the other views); NULL: plain */
    const pk_number_format *format;
    /* a function's listing: its self cost and the part on no line (said
     * under the heading when not 0); NULL for a file's */
    const pk_function_lines *function;
    /* the file found, as it was checked to lie where the query allowed
     * (sources=within): its device and inode, and the reader refuses any
     * other file at `source` then (a link swapped in); 0 0: unchecked */
    uint64_t source_dev, source_ino;
} pk_annotation;

/* As text: a heading, then per line self (and inclusive, calls) with its
 * percentage of the total, the line number and the source line ("." for
 * no cost, as callgrind_annotate), a "-- line N --" mark where lines are
 * skipped, and costs of lines past the file's end listed after it. Without
 * a source file: a note saying so and the per-line costs alone. Source text
 * is shown as text output shows names (pk_text_escape(); tabs expanded). */
PK_API pk_status pk_annotation_write_text(FILE *out, const pk_annotation *a);
/* As one JSON object of profkit.annotate/1's "files" array (docs/json.md). */
PK_API pk_status pk_annotation_write_json(pk_json *j, const pk_annotation *a);

#ifdef __cplusplus
}
#endif

#endif /* PROFKIT_ANNOTATE_H */
