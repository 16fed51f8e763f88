/*
 * formats/pprof/pw.h — the pprof writer's state, shared by
 *
 *   write.c         the output (gzip or plain), the string table, the
 *                   Profile's own fields, the driver;
 *   write_plan.c    which metrics become sample types and at which scale
 *                   (pprof values are integers), what pprof cannot hold
 *                   (reported once per item);
 *   write_frames.c  calling contexts as pprof Locations (a frame's
 *                   inlined functions as its lines), Functions, Mappings;
 *   write_values.c  each location's values as samples: the point value
 *                   at every context, its stack, the location's labels.
 *
 * Samples are written as they are made; locations, functions, mappings
 * and strings are numbered as samples first need them and written after.
 */
#ifndef PK_FORMATS_PPROF_PW_H
#define PK_FORMATS_PPROF_PW_H

#include <zlib.h>

#include "model/model.h"
#include "pb.h"
#include "profkit/write.h"
#include "util/arena.h"
#include "util/kmap.h"
#include "util/outfile.h"

/* A metric written as a sample type. */
typedef struct pw_metric {
    uint32_t metric;
    uint32_t col;  /* the column its point values come from */
    uint8_t scope; /* that column's pk_scope_kind */
    double scale;  /* value x scale is written (rounded) */
    const char *unit;
    uint64_t negative; /* unsigned counts written negative */
} pw_metric;

/* One line of a Location (function and line, innermost first). */
typedef struct pw_line {
    uint32_t fn; /* pprof function id */
    uint32_t line;
} pw_line;

typedef struct pw_loc {
    uint64_t hash, address;
    uint32_t mapping; /* pprof mapping id, 0 for none */
    uint32_t first, n;
} pw_loc;

/* A mapping of the source (pprof's own, kept as a profile attribute), or
 * one made for a module. */
typedef struct pw_map {
    const char *path, *build;
    uint64_t start, limit, offset, max_addr;
    uint32_t module;
    uint8_t used, has_functions, made;
} pw_map;

typedef struct pw {
    const pk_profile *p;
    const char *path;
    const pk_write_options *opts;
    pk_write_stats *stats;
    pk_arena arena; /* names made while writing */

    /* output */
    pk_out out;
    int gzip, started;
    z_stream z;
    gz_header gzh;  /* deflate reads it while it writes the header */
    pb_out buf;     /* bytes not yet compressed or written */
    pb_out scratch; /* one message being built */

    /* strings: index by content */
    pk_kmap str_map;
    const char **strs;
    uint32_t n_strs;
    size_t cap_strs;

    /* metrics */
    pw_metric *m;
    uint32_t n_m;

    /* contexts: frame start and Location id (0: not yet) of each */
    uint32_t *fs, *loc_of, *call_loc;
    uint32_t *chain; /* scratch: one frame's contexts */
    size_t cap_chain;

    /* Locations, Functions, Mappings */
    pw_loc *locs;
    uint32_t n_locs;
    size_t cap_locs;
    pw_line *lines;
    uint64_t n_lines;
    size_t cap_lines;
    uint32_t *loc_slots; /* open addressing over locs: 1 + index */
    size_t cap_loc_slots;
    uint32_t *fn_id;  /* per model function: pprof id, 0 if unused */
    uint32_t *fn_ctx; /* per pprof function id - 1: a context naming it */
    uint32_t n_fns;
    size_t cap_fn_ctx;
    pk_kmap named; /* functions named after a context (no model function) */
    pw_map *maps;
    uint32_t n_maps;
    size_t cap_maps;
    uint32_t *map_of_module; /* the made mapping of each module, 0 if none */

    /* samples */
    uint64_t n_samples, n_frames;
    uint32_t empty_locations; /* locations with no value: no sample carries them */
    uint64_t *stack;
    size_t cap_stack;
    int reported_files; /* a line's file differs from its function's: said once */
} pw;

/* write.c */
void pw_emit(pw *w, const pb_out *msg, uint32_t field); /* a message as a Profile field */
uint64_t pw_str(pw *w, const char *s);                  /* string table index (0: NULL/"") */
pk_status pw_flush(pw *w, int final);

/* write_plan.c */
pk_status pw_plan(pw *w);
pk_status pw_report_late(pw *w); /* losses found while writing */
void pw_plan_free(pw *w);

/* write_frames.c */
pk_status pw_frames_init(pw *w);
/* The stack (Location ids, leaf first) of a value at context c into
 * w->stack; *n its length. */
pk_status pw_stack(pw *w, uint32_t c, size_t *n);
pk_status pw_write_tables(pw *w);
void pw_frames_free(pw *w);

/* write_values.c */
pk_status pw_samples(pw *w);

#endif
