/*
 * model/model.h — the in-memory profile, as the library sees it inside.
 *
 * The public header (profkit/profile.h) exposes this through accessors;
 * readers fill it through the helpers declared here. docs/model.md explains
 * the design; the short version:
 *   - dimensions (modules, files, functions, contexts, metrics, scopes,
 *     columns, locations, traces) are plain arrays indexed from 0;
 *   - strings are interned into the profile's arena;
 *   - values are sparse "planes" in profile.db's own packed layout, so an
 *     HPCToolkit reader points them straight into the mapped file;
 *   - nothing is allocated per value.
 */
#ifndef PK_MODEL_MODEL_H
#define PK_MODEL_MODEL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/profile.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/intern.h"
#include "util/mapfile.h"

/* Packed record layouts of value planes (little-endian, unaligned). */
#define PK_LM_VAL_SIZE 10 /* location-major value: u16 raw column id, f64 value */
#define PK_LM_IDX_SIZE 12 /* location-major index: u32 context id, u64 first value */
#define PK_CM_VAL_SIZE 12 /* context-major value: u32 location, f64 value */
#define PK_CM_IDX_SIZE 10 /* context-major index: u16 raw column id, u64 first value */
#define PK_SAMPLE_SIZE 12 /* trace sample: u64 time, u32 context id */

/* Sparse values of one location (or one context): `nidx` index records,
 * each naming a key and where its run of values starts in `vals`. */
typedef struct pk_plane {
    const unsigned char *vals;
    const unsigned char *idx;
    uint64_t nvals;
    uint32_t nidx;
} pk_plane;

/* One past a plane's last value / index record; NULL for an empty plane
 * with no storage (NULL + 0 is undefined behaviour in C). */
static inline const unsigned char *pk_plane_vals_end(const pk_plane *pl)
{
    return pl->vals ? pl->vals + pl->nvals * PK_LM_VAL_SIZE : NULL;
}
static inline const unsigned char *pk_plane_idx_end(const pk_plane *pl)
{
    return pl->idx ? pl->idx + (uint64_t)pl->nidx * PK_LM_IDX_SIZE : NULL;
}

/* Plane values vals[lo..hi) (one context's) in column order, ties kept in
 * order: by insertion when few, by a merge sort when many (no quadratic
 * cost). -1 when the merge sort's memory cannot be had (nothing moved),
 * else 0. */
int pk_plane_sort_columns(unsigned char *vals, uint64_t lo, uint64_t hi);

/* A value on its way into a location-major plane: a context (id or
 * index, as the plane is keyed), a raw column id, the value. */
typedef struct pk_triple {
    uint32_t ctx;
    uint16_t col;
    double v;
} pk_triple;

/* Values a plane builder reads once per pass from storage it does not
 * own (a plane of a mapped input): next() gives the next one, 0 at the
 * end; pass_done() is called after each whole pass and starts the next
 * one; its error (the values changed since the first pass) stops the
 * build. */
typedef struct pk_triple_stream {
    void *user;
    int (*next)(void *user, pk_triple *out);
    pk_status (*pass_done)(void *user);
} pk_triple_stream;

/* p's plane (owned by p) of the stream's values (s may be NULL) and then
 * t[0..nt): ordered by context, then by column, ties in the order given.
 * Counted out by context when the contexts' range is not much wider than
 * the values, else stably sorted (plane_pack.c); the plane is the same
 * either way. t may be reordered. */
pk_status pk_plane_pack(pk_profile *p, const pk_triple_stream *s, pk_triple *t, uint64_t nt,
                        pk_plane *out);

/* Metric-major values as a format stores them (Cube): per column, rows of
 * one value per plain location, each row a context's. A reader that keeps
 * its values like this attaches a row store to the profile instead of
 * filling the location planes; rows.c reads it and builds location planes
 * only when a question needs them (docs/model.md, "Value stores"). */
typedef struct pk_rows {
    uint32_t n_rows;
    const uint32_t *ctx; /* context index of each row */
    /* Row i's values of locations [l0, l0 + n), as doubles (0 = none). */
    void (*get)(const struct pk_rows *v, uint32_t i, uint32_t l0, uint32_t n, double *out);
    /* Row i's values of every location where the store holds them as
     * doubles in native byte order (any alignment: read with memcpy),
     * valid until the next call; NULL (the pointer, or its result) when
     * get() must convert them. Saves a copy per value in whole scans. */
    const unsigned char *(*raw)(const struct pk_rows *v, uint32_t i);
    const void *impl; /* the store's, for get() */
    void *own;        /* the store's, freed by close() */
    uint32_t comp;    /* the store's: component of a multi-value type */
} pk_rows;

typedef struct pk_row_store {
    void *user;
    /* Column col's rows into *out (n_rows 0 when it has none); the rows
     * stay valid until close(). Thread-safe: several columns may be open. */
    pk_status (*open)(void *user, uint32_t col, pk_rows *out);
    void (*close)(void *user, pk_rows *v);
    /* Every location's plane at once, for questions that walk locations
     * (faster than building them one at a time). */
    pk_status (*planes)(void *user);
    void (*destroy)(void *user);
} pk_row_store;

/* Value planes a reader placed without validating them yet (a big
 * HPCToolkit database: docs/model.md, "Deferred validation"). Every plane
 * a question reads is validated first, with the reader's own checks:
 * check_location() one location's, check_rest() every plane not checked
 * yet and the context-major view. A failed check is the question's error. */
typedef struct pk_deferred {
    void *user;
    pk_status (*check_location)(void *user, uint32_t loc);
    pk_status (*check_rest)(void *user);
    void (*destroy)(void *user);
} pk_deferred;

typedef struct pk_ctx_rec {
    uint64_t id;
    uint32_t parent, first_child, n_children, depth;
    uint32_t function, file, module, line;
    uint64_t offset;
    const char *entry_name;
    uint16_t propagation, raw_entry;
    uint8_t kind, relation, entry, flags, raw_kind, raw_relation;
} pk_ctx_rec;

typedef struct pk_loc_rec {
    uint32_t raw_index;
    int is_summary;
    uint32_t n_ids;
    const pk_ident *ids;
    pk_plane plane; /* location-major values; column ids in the space below */
    uint32_t trace;
} pk_loc_rec;

typedef struct pk_trace_rec {
    uint32_t location;
    const unsigned char *samples; /* n × PK_SAMPLE_SIZE */
    uint64_t n;
} pk_trace_rec;

typedef struct pk_attr_rec {
    uint32_t entity, index;
    uint64_t seq; /* insertion order, for a stable sort */
    const char *key, *value;
} pk_attr_rec;

typedef struct pk_diag_rec {
    pk_diagnostic d; /* strings live in the arena */
} pk_diag_rec;

#define PK_MAX_SOURCES    8
#define PK_ID_SPACES      2 /* raw column ids: 0 = plain (propMetricId), 1 = summary (statMetricId) */
#define PK_MAX_DIAG_CODES 32

typedef struct pk_source_rec {
    const char *name;
    int present, loaded;
    uint64_t size;
    unsigned major, minor;
    pk_mapfile map; /* owned mapping, if the profile mapped the file */
} pk_source_rec;

struct pk_profile {
    pk_arena arena;
    pk_interner strings;

    pk_format format;
    const char *format_name;
    unsigned major, minor;
    const char *layout; /* variant of the format's layout, or NULL (pk_profile_info) */
    const char *title, *description, *path;
    int complete;
    int reconstructed; /* CCT reconstructed from the call graph */
    struct pk_cg *cg;  /* call graph (callgraph.h), or NULL */

    pk_source_rec sources[PK_MAX_SOURCES];
    size_t n_sources;

    pk_module *modules;
    uint32_t n_modules;
    pk_file *files;
    uint32_t n_files;
    pk_function *functions;
    uint32_t n_functions;

    pk_ctx_rec *ctx; /* malloc; [0] is the root */
    uint32_t n_ctx, cap_ctx;
    uint32_t *ctx_dense; /* id -> index, PK_NONE where absent (malloc) */
    uint64_t ctx_dense_len;
    uint64_t *ctx_sorted; /* (id << 32 | index) sorted, when ids are sparse (malloc) */

    pk_metric *metrics;
    uint32_t n_metrics;
    pk_scope *scopes;
    uint32_t n_scopes;
    pk_column *columns;
    uint32_t n_columns;
    uint32_t *col_of_raw[PK_ID_SPACES]; /* raw id -> column, PK_NONE if unmapped */
    uint32_t n_raw[PK_ID_SPACES];

    const char **id_kind_names; /* names of identifier kinds, by kind (arena) */
    uint32_t n_id_kinds;

    pk_loc_rec *locs;
    uint32_t n_locs;

    pk_trace_rec *traces;
    uint32_t n_traces;
    uint64_t trace_begin, trace_end;
    int has_trace_range;

    /* Context-major view: one plane per context index, column ids in the
     * plain space, locations as indexes. From cct.db, or built lazily. */
    pk_plane *cm;
    int cm_from_file;
    /* Values of the view read from a file that name no plain location
     * (cct.db naming a profile profile.db lacks, or a summary one): a
     * writer cannot write them as they are. */
    uint64_t cm_unplaced;
    pthread_mutex_t cm_lock;
    unsigned char *cm_built;  /* storage of a built transpose (malloc) */
    int cm_sorted_only;       /* tests: take the sorted transpose even when small */
    uint64_t cct_chunk_bytes; /* tests: cct.db's blocks written in chunks this big (0: 16 MiB) */
    /* tests: called between counting cct.db's values and placing them, as
     * if another program changed the input then */
    void (*cct_between_passes)(const struct pk_profile *p);
    /* tests: called between the HPCToolkit writer's passes over a
     * location's plane while shaping it (write_shape_vals.c) */
    void (*shape_between_passes)(const struct pk_profile *p);
    /* tests: locations of this many values or more keep their plain
     * values in their plane while shaped (0: write_shape_vals.c's) */
    uint64_t shape_in_plane_values;

    /* Metric-major row store (Cube), or NULL: then the plain locations'
     * planes are empty until pk_model_ensure_planes() builds them. */
    pk_row_store *rows;
    uint64_t *row_nvals; /* per location: non-zero values in the rows (malloc), counted once */
    uint32_t *row_nctx;  /* per location: contexts holding one */
    int planes_ready;
    unsigned char *loc_alone; /* per location: its plane was built alone (loc_plane.c) */
    uint32_t n_alone;
    pthread_mutex_t planes_lock;
    /* Planes not validated yet (NULL: all were at open), and which
     * locations' planes have been since (read and set under planes_lock,
     * or with atomic loads: the byte is set once). */
    pk_deferred *deferred;
    unsigned char *loc_checked;
    uint32_t n_checked;
    int deferred_done;
    /* The summary locations hold exact statistics of the plain locations'
     * stored values (hpcprof's profile 0; not opened PK_OPEN_RECOMPUTE):
     * questions the summary holds are answered from it (analysis/summary.c). */
    int summary_exact;
    /* The summary holds sums kept from a source where they are not the
     * plain locations' (legacy experiment.xml's): an HPCToolkit database
     * written from it says so in metrics/default.yaml (HK_YAML_INEXACT),
     * and its reader then never answers from the summary. */
    int summary_inexact;

    void **owned; /* blocks from pk_model_alloc_owned(), freed with the profile */
    size_t n_owned, cap_owned;

    pk_attr_rec *attrs; /* malloc; sorted by pk_model_sort_attrs() */
    size_t n_attrs, cap_attrs;

    pk_diag_rec *diags; /* malloc */
    size_t n_diags, cap_diags;
    const char *diag_codes[PK_MAX_DIAG_CODES];
    size_t diag_code_counts[PK_MAX_DIAG_CODES];
};

/* --- lifecycle (profile.c) --- */
pk_status pk_model_new(pk_profile **out);
/* Add a source file record; returns its slot or NULL if full. */
pk_source_rec *pk_model_add_source(pk_profile *p, const char *name);

/* Uninitialised memory of `size` bytes that lives as long as the profile:
 * for value planes a reader or an analysis builds itself (too big or too
 * short-lived for the arena). NULL (and the error set) when out of memory. */
void *pk_model_alloc_owned(pk_profile *p, size_t size);

/* Take ownership of a malloc'ed block (freed with the profile). On
 * failure the block is freed and PK_ERR_NOMEM returned. */
pk_status pk_model_adopt_owned(pk_profile *p, void *block);

/* The mapped source file holding `ptr`, or NULL (caller memory, arena). */
const pk_mapfile *pk_model_mapping_of(const pk_profile *p, const void *ptr);

/* --- diagnostics (diag.c) --- */
/* Record a diagnostic. At most PK_DIAG_PER_CODE are kept per code; the
 * rest are counted and summarised by pk_model_finish_diagnostics(). */
#define PK_DIAG_PER_CODE 20
pk_status pk_model_diag(pk_profile *p, pk_severity sev, const char *code, const char *file,
                        const char *structure, int has_offset, uint64_t offset, const char *fmt,
                        ...) PK_PRINTF(8, 9);
pk_status pk_model_finish_diagnostics(pk_profile *p);
/* The profile is incomplete: data is missing. The last diagnostic, if it
 * has `code`, is the reason (pk_diagnostic.incomplete). */
void pk_model_mark_incomplete(pk_profile *p, const char *code);

/* --- attributes (attrs.c) --- */
/* Add an attribute; key and value are interned (value may be NULL = ""). */
pk_status pk_model_add_attr(pk_profile *p, pk_entity entity, uint32_t index, const char *key,
                            const char *value, size_t value_len);
/* Order attributes by entity and index (stable). Readers call it once
 * their entities are numbered; the public accessors need the order. */
void pk_model_sort_attrs(pk_profile *p);

/* --- contexts (contexts.c) --- */
/* Append a context record (zeroed but for PK_NONE links); returns its
 * index via *out. */
pk_status pk_model_add_context(pk_profile *p, pk_ctx_rec **rec, uint32_t *index);
/* Room for `more` contexts added next, in one block (a builder that knows
 * how many: growing 590,000 records of 72 bytes by doubling copied and
 * faulted them in several times). */
pk_status pk_model_reserve_contexts(pk_profile *p, size_t more);
/* Build the id -> index map. Call after all contexts are added; fails on
 * duplicate ids. */
pk_status pk_model_index_contexts(pk_profile *p);
/* Index of the context with source id `id`, or PK_NONE. */
uint32_t pk_model_ctx_find(const pk_profile *p, uint64_t id);
/* The same, the dense map's case inline: for loops over every value's
 * context (a call per index entry was 1-2 % of a conversion). */
static inline uint32_t pk_model_ctx_at(const pk_profile *p, uint64_t id)
{
    if (p->ctx_dense) return id < p->ctx_dense_len ? p->ctx_dense[id] : PK_NONE;
    return pk_model_ctx_find(p, id);
}
/* Is c's parent a real context that encloses it lexically (a loop or
 * line inside its function)? */
static inline int pk_lexical_child(const pk_profile *p, uint32_t c)
{
    return p->ctx[c].relation == PK_REL_LEXICAL && p->ctx[c].parent < p->n_ctx;
}
/* Context indexes ordered deepest first (each before its parent);
 * malloc'ed, NULL when out of memory. */
uint32_t *pk_deepest_first(const pk_profile *p);

/* --- locations (values.c) --- */
/* 1 if some location holds plain (non-summary) values: a legacy
 * HPCToolkit database without metric-db files has only trace-only plain
 * locations, and its values are the summary's. */
int pk_has_plain_locations(const pk_profile *p);
/* Add a tree of `n` nodes given by parent links (node 0 the root, every
 * other node after its parent: parent[i] < i) as the profile's contexts,
 * breadth-first (tree_layout.c): fill() sets a context's own fields
 * (kind, relation, function...), the layout its id (= index), parent,
 * children and depth; new_index[node] gets each node's index. Indexes
 * the contexts when done. */
pk_status pk_model_layout_tree(pk_profile *p, uint32_t n, const uint32_t *parent,
                               void (*fill)(void *user, uint32_t node, pk_ctx_rec *rec), void *user,
                               uint32_t *new_index);

/* --- columns (profile.c) --- */
/* Map raw id `raw` in `space` to column `col`. Fails on a duplicate. */
pk_status pk_model_map_column(pk_profile *p, int space, uint32_t raw, uint32_t col);
static inline uint32_t pk_model_col_of(const pk_profile *p, int space, uint32_t raw)
{
    return raw < p->n_raw[space] ? p->col_of_raw[space][raw] : PK_NONE;
}

/* --- values (values.c) --- */
/* Build the context-major view by transposing the location-major planes
 * (if it does not exist yet). Thread-safe. */
pk_status pk_model_ensure_cm(const pk_profile *p);
/* Workers for a pass over the planes by ranges of locations (what
 * pk_parallel_ranges() hands out, each worker counting into cells of its
 * own): as many as the values' bytes warrant, and no more than there are
 * plain locations, since an idle worker's cells cost as much (cc1's one
 * location: 9.6 MB). transpose.c. */
unsigned pk_model_plane_workers(const pk_profile *p);

/* Value of (context, plain column, location) in the context-major view:
 * 1 and *out if stored, else 0 (and *out = 0). The view must exist. */
int pk_model_cm_lookup(const pk_profile *p, uint32_t ctx, uint32_t col, uint32_t loc, double *out);

/* --- value stores (rows.c) --- */
/* Attach deferred validation (owned from then on; deferred.c). */
void pk_model_attach_deferred(pk_profile *p, pk_deferred *d);
/* Validate every deferred plane (pk_model_ensure_planes() does), or
 * location loc's alone. PK_OK without deferred planes. Thread-safe. */
pk_status pk_model_check_deferred(const pk_profile *p);
pk_status pk_model_check_location(const pk_profile *p, uint32_t loc);
/* Attach a row store (owned from then on: destroyed with the profile). */
void pk_model_attach_rows(pk_profile *p, pk_row_store *store);
/* 1 if the plain values live in a row store: analyses that scan whole
 * columns read them with pk_model_rows_open() (the same answer whether or
 * not the location planes were built meanwhile). */
static inline int pk_model_has_rows(const pk_profile *p)
{
    return p->rows != NULL;
}
/* Build every location plane from the row store, and validate every
 * deferred plane (no-op without either, or when done). Thread-safe. Code
 * that reads p->locs[].plane or p->cm directly calls it first. */
pk_status pk_model_ensure_planes(const pk_profile *p);
/* Every plain column's rows, split between `workers` threads by column:
 * fn sees each row's values of all locations summed (compensated: the
 * sum is sum + comp; model/rowsum.c) with the row's context, on the
 * worker that owns the column. The first scan also counts each location's
 * values for pk_model_location_counts(). */
typedef void (*pk_rows_fn)(void *user, unsigned worker, uint32_t col, uint32_t ctx, double sum,
                           double comp);
pk_status pk_model_rows_scan(const pk_profile *p, unsigned workers, pk_rows_fn fn, void *user);
/* A location's stored non-zero values and the contexts holding them, from
 * its plane, or counted over the rows (once, then kept) before the planes
 * are built. */
pk_status pk_model_location_counts(const pk_profile *p, uint32_t loc, uint64_t *n_values,
                                   uint32_t *n_contexts);
/* Location loc's plane: as stored (validated first when its validation
 * was deferred), or built from the row store for that location alone (a
 * few locations; after that, every plane at once). Thread-safe. */
pk_status pk_model_location_plane(const pk_profile *p, uint32_t loc, const pk_plane **out);
/* Build the planes and let the row store go: for code that changes the
 * planes (pk_profile_derive), after which the rows would be stale. */
pk_status pk_model_planes_only(pk_profile *p);
/* Column col's rows (plain columns only; n_rows 0 for others or when the
 * profile has no row store); close them with pk_model_rows_close(). */
pk_status pk_model_rows_open(const pk_profile *p, uint32_t col, pk_rows *out);
void pk_model_rows_close(const pk_profile *p, pk_rows *v);

#endif
