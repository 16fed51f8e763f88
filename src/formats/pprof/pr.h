/*
 * formats/pprof/pr.h — the pprof (profile.proto) reader's state, shared
 * by its passes:
 *
 *   read.c        detection, the file (mapped, or inflated within the
 *                 memory budget), errors, the driver;
 *   read_index.c  pass 1: the string table, functions, mappings,
 *                 locations with their lines, sample types and the
 *                 profile's scalars, every index checked;
 *   read_tree.c   a location's frames as calling contexts (function,
 *                 inlined functions, line, instruction, as hpcprof lays
 *                 them out), merged by their path;
 *   read_samples.c pass 2: the samples, their labels and label sets
 *                 (locations), values summed per (location, context);
 *   read_model.c  metrics, locations, value planes and attributes.
 *
 * Nothing is allocated per sample: samples add to hash maps keyed by
 * what they name (a context path, a label set, a location and context),
 * whose size follows what the file holds, charged to the open's budget.
 */
#ifndef PK_FORMATS_PPROF_PR_H
#define PK_FORMATS_PPROF_PR_H

#include <stdint.h>

#include "model/model.h"
#include "pb.h"
#include "util/budget.h"
#include "util/kmap.h"

/* A string of the string table: where its bytes are in the stream. */
typedef struct pr_str {
    uint64_t off;
    uint32_t len;
} pr_str;

typedef struct pr_vtype {
    uint64_t type, unit, at; /* string indexes; offset of the message */
} pr_vtype;

typedef struct pr_fn {
    uint64_t id, name, sys, file, at;
    int64_t start;
    uint32_t model; /* model function, made on first use (PK_NONE before) */
} pr_fn;

typedef struct pr_map {
    uint64_t id, start, limit, offset, file, build, at;
    uint32_t module; /* model module, made on first use (PK_NONE before) */
    uint32_t unsym;  /* the "[name]" function of its unsymbolized frames, or PK_NONE */
} pr_map;

typedef struct pr_line {
    uint64_t fn_id;
    int64_t line;
    uint32_t fn; /* index into pr.fns, once checked */
} pr_line;

typedef struct pr_loc {
    uint64_t id, address, at, mapping_id;
    uint32_t map; /* index into pr.maps, PK_NONE without a mapping */
    uint32_t first_line, n_lines;
} pr_loc;

/* Ids to indexes: a dense table when the ids are (as every producer
 * writes them), else sorted pairs searched by bisection. */
typedef struct pr_idmap {
    uint32_t *dense;
    uint64_t dense_len;
    uint64_t *sorted; /* (id, index) pairs by id */
    uint32_t n;
} pr_idmap;

/* A context under construction. */
typedef struct pr_ctx {
    uint32_t parent;
    uint8_t kind, relation;
    uint8_t flags;
    uint32_t function, file, line, module;
    uint64_t offset;
} pr_ctx;

/* One label of the sample being read. */
typedef struct pr_label {
    uint64_t key, str, unit, at;
    int64_t num;
    int is_num;
} pr_label;

/* The (label set, context) a row of values belongs to. */
typedef struct pr_rowkey {
    uint32_t set, ctx;
} pr_rowkey;

/* A distinct label set: its labels in pr.set_labels. */
typedef struct pr_set {
    uint64_t hash;
    uint32_t first, n;
} pr_set;

typedef struct pr {
    pk_profile *p;
    const char *file; /* for messages */
    int inflated;     /* offsets are of the decompressed stream */
    pk_budget budget;
    const unsigned char *data;
    uint64_t size;
    const char *locations_from; /* pk_open_options.locations_from */

    /* pass 1 */
    pr_str *strs;
    uint32_t n_strs;
    size_t cap_strs;
    pr_vtype *types, period_type;
    uint32_t n_types;
    size_t cap_types;
    pr_fn *fns;
    uint32_t n_fns;
    size_t cap_fns;
    pr_map *maps;
    uint32_t n_maps;
    size_t cap_maps;
    pr_loc *locs;
    uint32_t n_locs;
    size_t cap_locs;
    pr_line *lines;
    uint32_t n_lines;
    size_t cap_lines;
    uint64_t *comments;
    uint32_t n_comments;
    size_t cap_comments;
    uint64_t n_samples, drop_frames, keep_frames, default_type;
    int64_t time_nanos, duration_nanos, period;
    int has_period_type, has_period, has_time, has_duration;
    uint64_t field_at[16]; /* offset of the last top-level field of each number */
    pr_idmap fn_ids, map_ids, loc_ids;
    uint64_t lost_mappings; /* locations naming a mapping id no mapping has */

    /* the calling-context tree */
    pr_ctx *ctx;
    uint32_t n_ctx;
    size_t cap_ctx;
    pk_kmap ctx_map;  /* (parent, what) -> context */
    pk_kmap memo;     /* (parent context, location) -> the location's deepest context */
    pk_kmap file_map; /* string index -> model file */
    pk_kmap mod_map;  /* string index -> model module */
    size_t cap_files, cap_modules, cap_functions;
    uint32_t unknown_fn; /* "<unknown>": frames with neither lines nor a mapping */

    /* pass 2: the sample at hand */
    uint32_t *stack;
    size_t cap_stack;
    int64_t *values;
    size_t cap_values;
    pr_label *labels;
    size_t cap_labels;
    uint32_t *path_loc, *path_ctx; /* the previous sample's path from the root */
    size_t n_path, cap_path, cap_path_ctx;

    /* label sets: which labels make a location, and the distinct sets */
    uint64_t *chosen; /* string indexes of --locations-from's labels; NULL: all */
    uint32_t n_chosen;
    int one_location;     /* --locations-from none */
    pr_label *set_labels; /* every distinct set's labels, one after the other */
    size_t n_set_labels, cap_set_labels;
    pr_set *sets;
    uint32_t n_sets;
    size_t cap_sets;
    uint32_t *set_slots; /* open addressing: 1 + set index, 0 empty */
    size_t cap_slots;
    uint64_t unchosen_labels; /* labels summed over (not chosen) */

    uint64_t chosen_seen;  /* labels kept that --locations-from names */
    uint64_t seen_keys[8]; /* some label keys of the samples, for messages */
    uint32_t n_seen_keys;

    /* values: one row of n_types doubles per (set, context) */
    pk_kmap row_map;
    pr_rowkey *rows;
    double *row_vals;
    uint32_t n_rows;
    size_t cap_rows, cap_row_vals;
} pr;

/* ---- read.c ---- */
/* Fail with "FILE: [decompressed] byte AT: WHAT: message". */
pk_status pr_fail(pr *r, uint64_t at, const char *what, const char *fmt, ...) PK_PRINTF(4, 5);
/* A wire-level error of `in` while reading `what`. */
pk_status pr_wire_fail(pr *r, const pb_in *in, const char *what);
/* Grow *v (elem bytes each) to hold `need`, charging growth to the budget. */
pk_status pr_grow(pr *r, void **v, size_t *cap, size_t need, size_t elem, const char *what);
/* The row of values of (label set, context): found, or made with zeros. */
pk_status pr_row_of(pr *r, uint32_t set, uint32_t ctx, uint32_t *row);
/* The bytes of string index i (checked by the caller). */
static inline const char *pr_str_at(const pr *r, uint64_t i, uint32_t *len)
{
    *len = r->strs[i].len;
    return (const char *)r->data + r->strs[i].off;
}
/* Check a string index read at `at` for field `what`. */
pk_status pr_check_str(pr *r, uint64_t idx, uint64_t at, const char *what);

/* ---- read_index.c ---- */
pk_status pr_index(pr *r);
uint32_t pr_idmap_find(const pr_idmap *m, uint64_t id);
void pr_idmap_free(pr_idmap *m);

/* ---- read_tree.c ---- */
/* The deepest context of location `loc` entered from context `parent`. */
pk_status pr_loc_ctx(pr *r, uint32_t parent, uint32_t loc, uint32_t *out);
/* Lay the contexts out breadth-first into the model; new_index[tmp]. */
pk_status pr_layout(pr *r, uint32_t **new_index);
pk_status pr_tree_init(pr *r);

/* ---- read_samples.c ---- */
pk_status pr_samples(pr *r);
pk_status pr_choose_labels(pr *r);

/* ---- read_model.c ---- */
pk_status pr_build_model(pr *r);

void pr_free(pr *r);

#endif
