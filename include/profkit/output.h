/*
 * profkit/output.h — writing what profkit computes: a streaming JSON
 * writer, dump records as text or JSON lines, and number formatting for
 * human-facing tables.
 *
 * Everything writes to a FILE * the caller provides; the library never
 * chooses a stream on its own.
 */
#ifndef PROFKIT_OUTPUT_H
#define PROFKIT_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dump.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Streaming JSON writer behind every --json output (docs/json.md).
 *
 * It keeps the grammar: commas, member names and nesting are its job, and
 * a call the grammar has no place for (a value without a member name, a
 * name without a value, closing what is not open, a second top-level
 * value) writes nothing, and nothing is written after it; the first such
 * error, an out-of-memory or a failed stream is what pk_json_finish()
 * returns. So the output is a valid document or visibly cut short.
 *
 * Nesting depth is unlimited (a few levels inline, the rest on the heap);
 * pretty indentation stops growing after PK_JSON_INDENT_LEVELS levels, so
 * the text stays linear in what it holds. Strings: any bytes in, valid
 * UTF-8 out (ill-formed sequences become U+FFFD, control characters
 * \u escapes); doubles: the shortest text that reads back to the same
 * value, NaN and infinities null.
 *
 * The struct lives wherever the caller wants it (no allocation for
 * shallow documents); its members are private, use the functions. Every
 * function returns the writer's status: PK_OK, or its first error. */
#define PK_JSON_INLINE_DEPTH  48
#define PK_JSON_INDENT_LEVELS 32
typedef struct pk_json {
    FILE *out;
    int pretty;
    int complete;       /* the top-level value is written */
    pk_status status;   /* first error; nothing is written after it */
    const char *why;    /* what that error was */
    size_t error_depth; /* nesting depth where it happened */
    size_t depth;       /* open containers */
    size_t heap_cap;
    unsigned char *heap; /* levels beyond the inline ones */
    char *scratch;       /* pk_json_string_fn()'s long strings */
    size_t scratch_cap;
    unsigned char inline_levels[PK_JSON_INLINE_DEPTH];
} pk_json;

/* Start a document on `out`; pretty != 0 puts members and items on their
 * own lines, indented by two spaces a level. */
PK_API pk_status pk_json_init(pk_json *j, FILE *out, int pretty);
PK_API pk_status pk_json_object_begin(pk_json *j);
PK_API pk_status pk_json_object_end(pk_json *j);
PK_API pk_status pk_json_array_begin(pk_json *j);
PK_API pk_status pk_json_array_end(pk_json *j);
/* Member name inside an object; the next value call gives its value. */
PK_API pk_status pk_json_key(pk_json *j, const char *key);
PK_API pk_status pk_json_string(pk_json *j, const char *s); /* NULL writes null */
/* A string made by `fn`, which works like snprintf: writes at most `size`
 * bytes with the NUL and returns the length it needed (pk_context_name(),
 * pk_location_name(), pk_flat_row_name()...). Written whole however long:
 * machine output never shortens a name. */
typedef size_t (*pk_json_text_fn)(void *user, char *buf, size_t size);
PK_API pk_status pk_json_string_fn(pk_json *j, pk_json_text_fn fn, void *user);
/* The display name of a context (pk_context_name()), a location
 * (pk_location_name()) or a frame (pk_frame_name(), profkit/analysis.h)
 * as a string value, whole. */
struct pk_frame;
PK_API pk_status pk_json_context_name(pk_json *j, const pk_profile *profile, pk_index context);
PK_API pk_status pk_json_location_name(pk_json *j, const pk_profile *profile, pk_index location);
PK_API pk_status pk_json_frame_name(pk_json *j, const pk_profile *profile,
                                    const struct pk_frame *frame);
/* Shortest text that reads back to the same double; NaN/inf write null. */
PK_API pk_status pk_json_double(pk_json *j, double v);
PK_API pk_status pk_json_uint(pk_json *j, uint64_t v);
PK_API pk_status pk_json_int(pk_json *j, int64_t v);
PK_API pk_status pk_json_bool(pk_json *j, int v);
PK_API pk_status pk_json_null(pk_json *j);
/* The members every JSON view of a profile carries: "complete", and when
 * it is false "incomplete": [{"code", "message"}...], the diagnostics
 * saying what is missing (docs/json.md). */
PK_API pk_status pk_json_completeness(pk_json *j, const pk_profile *profile);
/* End the document with a newline and free what the writer holds. PK_OK
 * only if one complete value was written and the stream has no error;
 * otherwise the first error, with pk_error_last() saying what it was.
 * Always call it (it frees the nesting stack); the writer is then ready
 * for the next document on the same stream (JSON lines). */
PK_API pk_status pk_json_finish(pk_json *j);

/* One dump record as a text line (docs/dump.md). */
PK_API void pk_record_write_text(FILE *out, const pk_record *record);
/* One dump record as a JSON object on one line (docs/json.md,
 * profkit.dump/1); PK_OK, or the JSON writer's error. */
PK_API pk_status pk_record_write_json(FILE *out, const pk_record *record);

/* hpcproftt's text for hpcrun measurement files (.hpcrun, .hpctrace),
 * line for line (docs/hpcrun.md): a banner with the path, then every
 * structure. The whole file is checked before anything but the banner is
 * written; on damage the error names file, structure and byte offset. */
typedef struct pk_hpcrun_text_options {
    int load_modules_only; /* hpcproftt --lm: only the paths of modules to analyze */
    int easy_grep;         /* hpcproftt -g: sparse values one line per CCT node */
} pk_hpcrun_text_options;
PK_API pk_status pk_hpcrun_write_text(FILE *out, const char *path,
                                      const pk_hpcrun_text_options *opts);
/* 1 if `path` starts with the .hpcrun magic, 2 with the .hpctrace one, else 0. */
PK_API int pk_hpcrun_file_kind(const char *path);

/* Shortest "%.17g"-or-shorter text of v that reads back exactly. */
PK_API size_t pk_format_double(char *buf, size_t size, double v);
/* A number for people, with no unit: pk_format_number() with a NULL
 * format ("7,386,556", "3.025", "26.16G" when wider than 10 columns). */
PK_API size_t pk_format_value(char *buf, size_t size, double v);

/* How a column of one metric's values reads: every value is multiplied
 * by `scale` and then is in `unit` ("ms", "MiB", "" for a count). */
typedef struct pk_number_format {
    double scale;
    char unit[24];
    unsigned width;  /* wider counts become "26.16G"; 0: 10 columns */
    unsigned digits; /* significant digits of fractions; 0: 4 */
    int compact;     /* every value of 1000 and more as "213.1M" (the column's
                        largest would not fit grouped), so a column reads alike */
    int integers;    /* the metric counts (no unit, or an unsigned count in a
                        unit of its own, unscaled): every value is rounded to an
                        integer, though a reconstructed tree apportions them */
} pk_number_format;
/* The format for values of `metric` whose largest magnitude is about
 * `magnitude` (the program total): times in s/ms/us/ns and bytes in
 * B/KiB/MiB/GiB/TiB so that the magnitude is at least 1 in the unit,
 * a scale the unit states ("1e-9 B") applied, other units kept; counts
 * (see `integers`) as integers. A view of a statistic that is no sum of
 * counts (a mean, a standard deviation) clears `integers`. */
PK_API pk_status pk_number_format_for(const pk_metric *metric, double magnitude,
                                      pk_number_format *out);
/* v in the format (NULL: any number; `integers` rounds it first):
 * integers (and values within float
 * noise of one) with digit grouping, "7,386,556"; fractions with 4
 * significant digits ("3.025", "0.125"); values of 1000 and more rounded
 * to integers; K/M/G/T with 4 significant digits when the grouped integer
 * is wider than the format's width. No unit in the text; into buf,
 * always NUL-terminated; returns the length. */
PK_API size_t pk_format_number(char *buf, size_t size, double v, const pk_number_format *f);
/* "inclusive (ms)": a column header with the format's unit, into buf.
 * A label that ends in a unit of its own, as HPCToolkit's metric names do
 * ("GKER (sec)"), states the shown unit instead: "GKER (ms)". */
PK_API size_t pk_format_header(char *buf, size_t size, const char *label,
                               const pk_number_format *f);
/* A metric's name without the unit that closes it ("GKER (sec)" gives
 * "GKER", "GXCOPY:H2D (B)" "GXCOPY:H2D"; a time or byte unit only), for
 * labels that add the unit values are shown in. Returns the length. */
PK_API size_t pk_metric_label(const char *name, char *buf, size_t size);

/* Names for a terminal. A name from a file may hold escape sequences,
 * newlines, bytes that are not UTF-8, direction overrides: text output
 * shows them visibly instead of sending them raw (\n \t \r, \xHH for
 * other control characters, DEL and invalid bytes, \uXXXX for C1 controls
 * and bidirectional formatting characters; everything else unchanged).
 * pk_text_escape writes the visible form into buf (always NUL-terminated,
 * cut only between whole characters or escapes) and returns the length it
 * needed; pk_text_put writes it to a stream. Every text renderer of the
 * library uses them, and so does the CLI for every name it prints. */
PK_API size_t pk_text_escape(const char *s, char *buf, size_t size);
PK_API void pk_text_put(FILE *out, const char *s);

/* A C++ name (possibly followed by " [module]" or other decoration)
 * demangled by the toolchain's demangler, other names as they are; into
 * buf, always NUL-terminated; returns the length needed. */
PK_API size_t pk_name_demangle(const char *name, char *buf, size_t size);
/* Shorten a name in place to at most `room` columns (0: no limit), by
 * rule and only as far as needed: template arguments to "<...>", then
 * parameter lists to "(...)", then the " [module]" after the name, then
 * leading namespaces, then a cut in the
 * middle ("std::vec...>::at"). Returns the new length in bytes. */
PK_API size_t pk_name_shorten(char *name, size_t room);
/* Shorten names[0..n) (each a NUL-terminated buffer it may rewrite) as
 * pk_name_shorten() does, but never so far that different names read
 * alike: where the rule would make two alike, they keep both ends (only
 * bracketed parts collapse, then a cut in the middle), and where even
 * that would, they stay whole. For the names of one table or one node's
 * children. */
PK_API void pk_names_shorten(char **names, size_t n, size_t room);

/* One metric of a tree shown with several (pk_tree_options.columns). */
typedef struct pk_value_column {
    const char *name;                       /* header, and JSON "metrics" name */
    const char *unit;                       /* JSON "unit" (NULL writes null) */
    double total;                           /* JSON "total": its program total */
    const double *inclusive;                /* per node of the tree drawn (context or frame) */
    const double *self;                     /* per node, or NULL (JSON null) */
    const struct pk_number_format *numbers; /* text (NULL: counts) */
} pk_value_column;

/* A top-down tree of per-context values (see pk_context_totals()). */
typedef struct pk_tree_options {
    double threshold;   /* hide contexts below this % of the total (0 shows all) */
    uint32_t max_depth; /* 0: no limit */
    int color;          /* ANSI colours */
    unsigned width;     /* text: shorten names in the middle to fit this many
                           columns; 0 never shortens */
    const char *metric; /* JSON: the metric the values are of ("metric") */
    const struct pk_number_format *numbers; /* text: how values read (NULL: counts) */
    int keep_mangled;                       /* text: C++ names as stored, not demangled */
    /* Several metrics: columns[0] is the one the tree is drawn, sorted
     * and pruned by (the values passed), columns[1..] more of them. Text
     * adds a column of inclusive values per further metric; JSON adds
     * "metrics" [{name,unit,total}] and per node "values"
     * [{exclusive,inclusive}] aligned with it (docs/json.md). */
    const pk_value_column *columns;
    size_t n_columns;
    /* Call counts per node (pk_metric_is_call_count(): Cube visits), or
     * NULL: a "calls" column in text, "calls" in JSON. */
    const double *calls;
    /* What a tree answer decided (pk_answer_tree(), profkit/query.h), or
     * NULL for the rules above: per node, shown or not (threshold and
     * depth, under a shown parent), and on the hot path or not. */
    const unsigned char *shown;
    const unsigned char *hot;
    /* Frame trees (pk_frames_write_text()): per node, folded into the
     * frame below (pk_tree_answer.folded), or NULL: none is. */
    const unsigned char *folded;
    /* What the threshold is a share of, for the note on hidden nodes
     * (NULL: "the total"). */
    const char *threshold_of;
} pk_tree_options;

/* Render the calling-context tree with inclusive and (if not NULL)
 * exclusive values per context, as percentages of `total`. Children are
 * sorted by inclusive value, largest first. The hot path is marked ('*'
 * in text, "hot": true in JSON): from the root, the largest child as long
 * as it holds at least half of its parent's inclusive value (hpcviewer's
 * rule). */
PK_API pk_status pk_tree_write_text(FILE *out, const pk_profile *profile, const double *inclusive,
                                    const double *exclusive, double total,
                                    const pk_tree_options *opts);

/* Flame graphs of a frame tree (pk_frames_build(), profkit/analysis.h). */
typedef struct pk_flame_options {
    const char *title;    /* NULL: "Flame Graph" */
    const char *subtitle; /* a line under the title (metric, total), or NULL */
    int icicle;           /* root at the top, growing down */
    unsigned width;       /* drawing width in pixels; 0: 1200 */
    /* Differential: the base profile's inclusive and self values of each
     * frame (NaN where the base has no such frame), or NULL. Widths stay
     * this profile's; colour shows the change of the self value, where the
     * cost itself moved (red grew, blue shrank, deeper for more); tooltips
     * give the change of the inclusive value. */
    const double *base;
    const double *base_self;
    /* The metric's unit for tooltips ("sec", "bytes"), or NULL. */
    const char *unit;
} pk_flame_options;
/* A self-contained interactive SVG (tooltips with total, self, unit and
 * module; click to zoom; a search box): static labels clipped to their
 * frames, so it reads without scripts (<img>, PNG); as wide as the window
 * (viewBox, width 100%); a legend of the colours when diffing. Siblings
 * sorted widest first, frames narrower than 0.1 pixel left out.
 * `frames` needs PK_FRAME-style values as pk_frames_build() makes them;
 * the frame struct is declared in profkit/analysis.h. */
struct pk_frame;
PK_API pk_status pk_flame_write_svg(FILE *out, const pk_profile *profile,
                                    const struct pk_frame *frames, size_t n,
                                    const pk_flame_options *opts);
/* Folded stacks, one line per frame with a positive self value:
 * "main;solve;dot 2.5" (the root left out; ';' inside names becomes ':'),
 * what flamegraph.pl, speedscope and inferno read. */
PK_API pk_status pk_flame_write_folded(FILE *out, const pk_profile *profile,
                                       const struct pk_frame *frames, size_t n);
/* A frame tree (pk_frames_build(), pk_frames_around()) as an indented
 * text tree with inclusive and self values and percentages of `total`,
 * children largest first, pruned like pk_tree_write_text(); `value_label`
 * names the first column ("inclusive" by default). */
PK_API pk_status pk_frames_write_text(FILE *out, const pk_profile *profile,
                                      const struct pk_frame *frames, size_t n, double total,
                                      const pk_tree_options *opts);
/* speedscope's file format (https://www.speedscope.app/file-format-schema.json):
 * one "sampled" profile per non-summary location, the stacks of its frame
 * tree (pk_frames_build()) weighted by their self values of `metric`,
 * frames shared by name; `name` titles the file. */
PK_API pk_status pk_export_speedscope(FILE *out, const pk_profile *profile, pk_index metric,
                                      const char *name);
/* CSV (RFC 4180) pieces the CSV outputs share: one field, quoted when it
 * holds ',', '"', CR or LF (NULL writes nothing); and "module,file,line",
 * three fields saying where a context is (its own or its function's) or
 * where a function is defined, empty where unknown. */
PK_API void pk_csv_field(FILE *out, const char *s);
PK_API void pk_csv_context_place(FILE *out, const pk_profile *profile, pk_index context);
PK_API void pk_csv_function_place(FILE *out, const pk_profile *profile, pk_index function);
/* A tree as CSV, one row per node the text would show (pruned alike),
 * parents before children: id,parent,depth,name,module,file,line,kind,
 * inclusive,self, then calls (with opts->calls) and NAME:inclusive,
 * NAME:self per further metric (opts->columns). pk_tree_write_csv's
 * nodes are contexts (id: the context index), pk_frames_write_csv's
 * frames (id: the frame index; place and kind those of the frame's first
 * context). Values in full precision. */
PK_API pk_status pk_tree_write_csv(FILE *out, const pk_profile *profile, const double *inclusive,
                                   const double *exclusive, double total,
                                   const pk_tree_options *opts);
PK_API pk_status pk_frames_write_csv(FILE *out, const pk_profile *profile,
                                     const struct pk_frame *frames, size_t n, double total,
                                     const pk_tree_options *opts);
/* Every stored value of the non-summary locations as a tidy CSV table:
 * location,context,parent,name,module,file,line,metric,scope,value
 * (module, file and line the context's own or its function's, empty when
 * unknown; context is the context index, parent its parent's, empty for
 * the root). */
PK_API pk_status pk_export_csv(FILE *out, const pk_profile *profile);
#ifdef __cplusplus
}
#endif

#endif /* PROFKIT_OUTPUT_H */
