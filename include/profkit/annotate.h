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
