/*
 * formats/hpcrun/measure.h — an hpcrun measurement directory (or one
 * .hpcrun file) as one profile: the builder shared by measure*.c.
 *
 * Every .hpcrun file becomes a location; its CCT nodes are turned into
 * model contexts the way hpcprof turns them (src/hpcprof/sources/
 * hpcrun4.cpp, docs/hpcrun-measurements.md) and merged across files by
 * their path of (module, offset) / placeholder steps; values are scaled by
 * the metric's period and attributed at the node (or, for move2proc
 * metrics, at the call site); .hpctrace records are mapped through the
 * same node ids. Files are read one at a time and released: the profile
 * keeps copies (values, samples, interned strings), never the mappings.
 */
#ifndef PK_FORMATS_HPCRUN_MEASURE_H
#define PK_FORMATS_HPCRUN_MEASURE_H

#include <stdint.h>

#include "formats/hpcrun/hpcrun.h"
#include "formats/hpcrun/symbols.h"
#include "model/model.h"
#include "util/kmap.h"
#include "util/radix.h"

/* Scopes of every measured metric, in hpcprof's order; raw column ids are
 * HM_N_SCOPES * metric + scope in both id spaces (hpcprof numbers its
 * propMetricIds and statMetricIds the same way). */
enum { HM_POINT = 0, HM_FUNCTION = 1, HM_LEX_AWARE = 2, HM_EXECUTION = 3, HM_N_SCOPES = 4 };

/* Words of a function's key in fn_map: {1, ip} for a placeholder's
 * function, {2, module, entry, name} for a symbol, {3, module, 0, name}
 * for an inlined one (names as interned pointers). */
#define HM_FN_KEY_WORDS 4

/* A context under construction (indexes into hm_build.ctx). */
typedef struct hm_ctx {
    uint32_t parent; /* PK_NONE for the root */
    uint8_t kind, relation, entry;
    uint32_t flags;
    uint32_t function, file, line, module;
    uint64_t offset;
    const char *entry_name;
} hm_ctx;

/* One point value of a location: (context under construction, metric). */
typedef struct hm_val {
    uint32_t ctx, metric;
    double v;
} hm_val;

typedef struct hm_sample {
    uint64_t time;
    uint32_t ctx; /* PK_NONE: not running */
    uint32_t seq; /* record number, for a stable sort of disordered traces */
} hm_sample;

typedef struct hm_loc {
    const char *file; /* base name of the .hpcrun file (interned) */
    const hr_id *ids; /* raw id tuple (arena copy) */
    uint16_t n_ids;
    hm_val *vals; /* malloc */
    size_t n_vals, cap_vals;
    hm_sample *samples; /* malloc; NULL when there is no trace */
    uint64_t n_samples;
    int has_trace;
} hm_loc;

typedef struct hm_metric {
    const char *name, *desc, *formula, *format;
    uint32_t model; /* model metric index */
    uint8_t show;   /* hpcrun show flag of the first file naming it */
    int has_values; /* measured (no formula) */
} hm_metric;

/* How one node of the file being read maps to contexts. */
enum { HM_NODE_SINGLE = 0, HM_NODE_DROPPED = 1 };
typedef struct hm_node {
    uint32_t full, rel; /* contexts: where values go, where move2proc values go */
    uint8_t state;
} hm_node;

/* The contexts of (parent, module, offset) found before: most CCT nodes
 * are such points, and most of a file's were met in the files before it,
 * so this small table (key inline, one probe or two) answers them before
 * the symbols and the general map. */
typedef struct hm_point {
    uint64_t key; /* (parent + 1) << 32 | module; 0 = empty */
    uint64_t offset;
    uint32_t full, rel; /* as hm_node's */
} hm_point;

/* What symbols say about one (module, offset), cached across files. */
#define HM_MAX_INLINE 8
typedef struct hm_frame {
    uint32_t fn; /* PK_NONE: not resolved */
    uint32_t file, line, n_inl;
    uint32_t inl_fn[HM_MAX_INLINE], inl_file[HM_MAX_INLINE], inl_line[HM_MAX_INLINE];
} hm_frame;

/* The metric of the file being read: model metric and how to scale it. */
typedef struct hm_fmetric {
    uint32_t metric; /* hm_build.metrics index, PK_NONE for formula metrics */
    uint64_t period;
    uint8_t is_int, move2proc;
} hm_fmetric;

typedef struct hm_build {
    pk_profile *p;
    uint32_t flags;   /* PK_OPEN_* */
    const char *dir;  /* directory of the measurement (for relative module paths) */
    const char *file; /* file being read (for errors) */

    hm_ctx *ctx;
    uint32_t n_ctx;
    size_t cap_ctx;
    pk_kmap ctx_map;  /* (parent, tag, function, module, offset, file, line) -> ctx */
    hm_point *points; /* the front table of point contexts (power-of-two size) */
    size_t cap_points, n_points;

    pk_kmap mod_map, fn_map, file_map, metric_map, frame_map;
    uint64_t (*fn_keys)[HM_FN_KEY_WORDS]; /* fn_map's key of each function */
    size_t cap_fn_keys;
    size_t cap_modules, cap_functions, cap_files;
    hm_metric *metrics;
    uint32_t n_metrics;
    size_t cap_metrics;

    hm_loc *locs;
    uint32_t n_locs;
    size_t cap_locs;

    /* the file being read */
    pk_kmap node_map; /* node id -> index in nodes, when ids are sparse */
    /* node id -> (file generation, index in nodes), when ids are dense
     * (hpcrun's are): no hashing, and nothing to clear between files */
    uint64_t *node_slot;
    size_t cap_node_slot;
    uint32_t node_gen;
    int node_direct;
    hm_node *nodes;
    size_t cap_nodes;
    uint32_t *lm_module; /* loadmap id -> model module (PK_NONE if absent) */
    size_t cap_lm;
    hm_fmetric *fmetrics;
    size_t cap_fmetrics;
    uint64_t dropped_nodes, dropped_values, formula_values, unmapped_samples;

    hs_resolver *sym; /* NULL when symbols are not resolved */
    int sym_note;     /* report n_resolved of n_frames even so (a parallel build's) */
    hm_frame *frames;
    uint32_t n_frames;
    size_t cap_frames;
    uint32_t n_resolved;      /* (module, offset) pairs symbols resolved */
    pk_radix_kv *kv, *kv_tmp; /* sorting room for a location's values */
    size_t cap_kv, cap_kv_tmp;
    uint64_t hpcrun_bytes, hpctrace_bytes;
    uint32_t n_traces;
    unsigned major, minor;
} hm_build;

/* measure_cct.c: contexts, functions, files */
pk_status hm_function_of(hm_build *b, const uint64_t key[PK_KMAP_WORDS], const pk_function *f,
                         uint32_t *out);
pk_status hm_file_of(hm_build *b, const char *path, uint32_t *out);
pk_status hm_ctx_get(hm_build *b, const hm_ctx *proto, uint32_t *out);
/* Read the nodes of one epoch into b->nodes / b->node_map. */
pk_status hm_read_nodes(hm_build *b, const hr_file *f, const hr_epoch *e);
/* The node state of hpcrun node `id` of the file being read, or NULL. */
const hm_node *hm_node_find(const hm_build *b, uint32_t id);
/* Lay the contexts out breadth-first into the model; new_index[tmp] gives
 * each context's model index (= its id). */
pk_status hm_layout(hm_build *b, uint32_t **new_index);

/* measure_values.c: metrics, values, traces, locations */
pk_status hm_read_metrics(hm_build *b, const hr_epoch *e);
pk_status hm_read_values(hm_build *b, const hr_file *f, const hr_epoch *e, hm_loc *loc);
pk_status hm_read_trace(hm_build *b, const hr_trace *t, int micro, hm_loc *loc);
/* `plain`: point values only, nothing derived (a parallel build derives). */
pk_status hm_finish_model(hm_build *b, const uint32_t *new_index, int plain);

/* measure_loc.c: identifier tuples, locations, planes */
pk_status hm_build_locations(hm_build *b, const uint32_t *new_index);

/* measure.c */
pk_status hm_build_init(hm_build *b, pk_profile *p, const pk_open_options *opts, const char *dir,
                        int symbols);
void hm_build_free(hm_build *b);
/* The module of a path (added on first use). */
pk_status hm_module_of(hm_build *b, const char *path, size_t len, uint32_t *out);
/* Read dir/names[i] (and its .hpctrace) into b, in order; the first
 * damaged file fails it (as hm_open does without PK_OPEN_KEEP_GOING). */
pk_status hm_read_files(hm_build *b, const char *dir, char **names, size_t n);
/* The tree, metrics, locations and values after the last file. */
pk_status hm_finish(hm_build *b, const char *path, int plain);
/* p's malloc'ed dimension arrays become the profile's to free. */
pk_status hm_adopt_arrays(pk_profile *p);
/* The *.hpcrun names of a directory, sorted (strcmp). */
pk_status hm_list_dir(const char *dir, char ***names, size_t *n);
void hm_free_names(char **names, size_t n);
pk_status hm_fail(const hm_build *b, uint64_t offset, const char *fmt, ...) PK_PRINTF(3, 4);
/* Directory detection and opening (formats/detect.c). */
int hm_detect_path(const char *path);
pk_status hm_open(const char *path, const pk_open_options *opts, pk_profile **out);
/* In-memory images (tests, fuzzing): profiles and traces by name. */
pk_status hm_open_memory(size_t n, const char *const *names, const void *const *data,
                         const uint64_t *sizes, const pk_open_options *opts, pk_profile **out);

#endif
