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

#define PK_JSON_MAX_DEPTH 64

/* Streaming JSON writer. Members are private; use the functions. */
typedef struct pk_json {
    FILE *out;
    int pretty;
    int depth;
    int need_comma[PK_JSON_MAX_DEPTH];
    int after_key;
} pk_json;

/* Start writing to `out`; pretty != 0 indents with two spaces. */
PK_API void pk_json_init(pk_json *j, FILE *out, int pretty);
PK_API void pk_json_object_begin(pk_json *j);
PK_API void pk_json_object_end(pk_json *j);
PK_API void pk_json_array_begin(pk_json *j);
PK_API void pk_json_array_end(pk_json *j);
/* Member name inside an object; the next value call gives its value. */
PK_API void pk_json_key(pk_json *j, const char *key);
PK_API void pk_json_string(pk_json *j, const char *s); /* NULL writes null */
/* Shortest text that reads back to the same double; NaN/inf write null. */
PK_API void pk_json_double(pk_json *j, double v);
PK_API void pk_json_uint(pk_json *j, uint64_t v);
PK_API void pk_json_int(pk_json *j, int64_t v);
PK_API void pk_json_bool(pk_json *j, int v);
PK_API void pk_json_null(pk_json *j);
/* Finish the document with a newline. */
PK_API void pk_json_finish(pk_json *j);

/* One dump record as a text line (docs/dump.md). */
PK_API void pk_record_write_text(FILE *out, const pk_record *record);
/* One dump record as a JSON object on one line. */
PK_API void pk_record_write_json(FILE *out, const pk_record *record);

/* Shortest "%.17g"-or-shorter text of v that reads back exactly. */
PK_API size_t pk_format_double(char *buf, size_t size, double v);
/* Compact human-facing number with about 4 significant digits
 * ("1.210", "0.6053", "1.235e+08"). */
PK_API size_t pk_format_value(char *buf, size_t size, double v);

/* A top-down tree of per-context values (see pk_context_totals()). */
typedef struct pk_tree_options {
    double threshold;   /* hide contexts below this % of the total (0 shows all) */
    uint32_t max_depth; /* 0: no limit */
    int color;          /* ANSI colours */
    unsigned width;     /* text: shorten names in the middle to fit this many
                           columns; 0 never shortens */
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
/* Same tree as nested JSON objects {"name","kind","id","inclusive",
 * "exclusive","children":[...]} (docs/json.md, profkit.tree/1). */
PK_API pk_status pk_tree_write_json(FILE *out, const pk_profile *profile, const double *inclusive,
                                    const double *exclusive, double total,
                                    const pk_tree_options *opts);

#ifdef __cplusplus
}
#endif

#endif /* PROFKIT_OUTPUT_H */
