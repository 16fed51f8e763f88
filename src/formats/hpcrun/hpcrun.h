/*
 * formats/hpcrun/hpcrun.h — hpcrun measurement files (.hpcrun profiles and
 * .hpctrace traces) as parsed structures.
 *
 * THIS HEADER IS THE CONTRACT FOR THE MEASUREMENT-DIRECTORY CODE: the model
 * builder for hpcrun measurement directories reads files only through
 * hr_parse() / hr_trace_parse() and the structures below, and the dump
 * (hpcproftt-compatible text, dump records) renders the same structures.
 * Change it only together with its users.
 *
 * Zero-copy: a parsed file points into the caller's buffer (usually a
 * pk_mapfile). Strings are pointer + length into that buffer, NOT
 * NUL-terminated; the arrays of nodes, metrics, ... live in the caller's
 * arena. The buffer and the arena must outlive the parsed structures.
 * Bulk data (sparse values, dense values, trace records) stays in the
 * buffer and is read with the inline accessors at the end of this file;
 * the parser has checked every byte they touch.
 *
 * Versions read (specs/notes/hpctoolkit-field-notes.md §c, docs/hpcrun.md):
 *   profile 04.00  sparse, footer-indexed sections (one epoch)
 *   profile 02.00, 03.00  dense, one or more epochs
 *   trace 01.01 (flags word), and 01.00 and older (no flags word)
 * All integers are big-endian. Everything a parse returns has been checked
 * against the bytes that exist; on failure the error (pk_error_last())
 * names the file, the structure and the byte offset, and *out must not be
 * used.
 */
#ifndef PK_FORMATS_HPCRUN_H
#define PK_FORMATS_HPCRUN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "profkit/status.h"
#include "util/arena.h"
#include "util/bytes.h"

/* ---------------------------------------------------------------------
 * Primitives
 * ------------------------------------------------------------------- */

/* A string inside the file: len bytes at p (may contain anything,
 * including NULs; no terminator). An empty string has len 0. */
typedef struct hr_str {
    const char *p;
    uint32_t len;
} hr_str;

/* 1 if s equals the NUL-terminated `lit`. */
static inline int hr_str_eq(hr_str s, const char *lit)
{
    size_t n = strlen(lit);
    return s.len == n && (n == 0 || memcmp(s.p, lit, n) == 0);
}

typedef struct hr_nvpair {
    hr_str name, value;
} hr_nvpair;

typedef struct hr_nvpairs {
    uint32_t n;
    const hr_nvpair *v;
} hr_nvpairs;

/* The value of the first pair called `name`, or 0 (and *value untouched)
 * when there is none — hpcrun's header lookups take the first match. */
int hr_nvpairs_find(const hr_nvpairs *nv, const char *name, hr_str *value);

/* ---------------------------------------------------------------------
 * Profile (.hpcrun)
 * ------------------------------------------------------------------- */

#define HR_PROFILE_MAGIC     "HPCRUN-profile____" /* 18 bytes */
#define HR_TRACE_MAGIC       "HPCRUN-trace______" /* 18 bytes */
#define HR_MAGIC_LEN         18
#define HR_FOOTER_MAGIC      UINT64_C(0x48504352554E736D) /* "HPCRUNsm" */
#define HR_FOOTER_SIZE       112                          /* 14 x u64 */
#define HR_SPARSE_END_ID     UINT32_C(0x656E6421)         /* "end!" */
#define HR_LM_ANALYZE        UINT64_C(1)                  /* loadmap flag bit 0 */
#define HR_PLACEHOLDER_LM    0  /* lm_id of placeholder nodes: lm_ip is 8 ASCII chars */
#define HR_CCT_NODE_SIZE_V4  19 /* u32 id, u32 parent, u16 lm, u64 ip, u8 flags */
#define HR_SPARSE_VALUE_SIZE 10 /* u64 value, u16 metric id */
#define HR_SPARSE_INDEX_SIZE 12 /* u32 cct id, u64 start */

/* Byte offsets of the file structures a later error or a dump names. */
typedef struct hr_span {
    uint64_t start, end; /* [start, end) in the file */
} hr_span;

typedef struct hr_loadmap_entry {
    uint16_t id;    /* ids ascend from 1 in what hpcrun writes */
    hr_str path;    /* may be relative ("gpubin/...") or "<vdso>" */
    uint64_t flags; /* bit 0: HR_LM_ANALYZE */
    uint64_t offset;
} hr_loadmap_entry;

/* Metric value type (flags byte 1) and value format (byte 2). */
enum { HR_VALTY_NULL = 0, HR_VALTY_INCL = 1, HR_VALTY_EXCL = 2 };
enum { HR_VALFMT_NULL = 0, HR_VALFMT_INT = 1, HR_VALFMT_REAL = 2 };
/* Metric type (byte 0). */
enum { HR_MTY_NULL = 0, HR_MTY_RAW = 1, HR_MTY_FINAL = 2, HR_MTY_DERIVED = 3 };

typedef struct hr_metric {
    hr_str name, desc;
    /* The 16 flag bytes as stored (the writer's in-memory struct, host
     * order of the machine that ran hpcrun) and their decoding. When the
     * bytes look like the old packed layout (type not raw/final, or bytes
     * 8..15 non-zero) they are decoded as two big-endian u64 bit-fields,
     * as hpcrun-fmt.c does; old_layout says so. */
    uint8_t raw_flags[16];
    int old_layout;
    uint8_t type;      /* HR_MTY_* */
    uint8_t val_ty;    /* HR_VALTY_* */
    uint8_t val_fmt;   /* HR_VALFMT_*: how to read the 8-byte value words */
    uint8_t move2proc; /* 1: attribute to the call site (GPU operation metrics) */
    uint16_t partner;
    uint8_t show;         /* 0 hide, 1 show, 2 incl only, 3 excl only, 4 invisible */
    uint8_t show_percent; /* 0/1 */
    uint64_t period;
    hr_str formula; /* "" for measured metrics; "#N" names metric N */
    hr_str format;  /* printf format, "" when none */
    uint16_t is_frequency;
    uint16_t is_multiplexed;
    double threshold_mean; /* hpcproftt prints it as "period-mean" */
    uint64_t num_samples;
    uint64_t offset;
} hr_metric;

typedef struct hr_cct_node {
    int32_t id;       /* 04.00: as written; 02/03: negative marks a leaf */
    int32_t parent;   /* 0 = no parent (root) */
    uint16_t lm_id;   /* HR_PLACEHOLDER_LM: lm_ip holds 8 ASCII chars */
    uint64_t lm_ip;   /* offset in the load module */
    uint8_t unwound;  /* 04.00 flag bit 0; 02/03 have no flag: 1 */
    uint8_t has_lush; /* 02/03 epochs with the logical-unwind flag */
    uint32_t lush_assoc;
    uint64_t lip[2]; /* LUSH logical IP, 02/03 logical epochs only */
    uint64_t offset; /* of the node in the file */
    /* 02.00/03.00 only: n_metrics big-endian u64 words at `dense`, one per
     * metric of the epoch's table (read with hr_dense_value()). */
    const uint8_t *dense;
} hr_cct_node;

/* Identifier tuple element: kind bits 0-13, interpretation bits 14-15. */
enum {
    HR_IDKIND_SUMMARY = 0,
    HR_IDKIND_NODE = 1,
    HR_IDKIND_RANK = 2,
    HR_IDKIND_THREAD = 3,
    HR_IDKIND_GPUDEVICE = 4,
    HR_IDKIND_GPUCONTEXT = 5,
    HR_IDKIND_GPUSTREAM = 6,
    HR_IDKIND_CORE = 7
};
enum {
    HR_IDINTERP_BOTH = 0,
    HR_IDINTERP_GEN_LOCAL = 1,
    HR_IDINTERP_GEN_GLOBAL = 2,
    HR_IDINTERP_SINGLE = 3
};

typedef struct hr_id {
    uint16_t raw_kind; /* as stored */
    uint16_t kind;     /* raw_kind & 0x3fff */
    uint8_t interp;    /* raw_kind >> 14 */
    uint64_t physical, logical;
} hr_id;

typedef struct hr_idtuple {
    uint16_t n;
    const hr_id *ids;
    uint64_t offset;
} hr_idtuple;

typedef struct hr_idkind_name {
    uint16_t kind;
    hr_str name;
} hr_idkind_name;

/* One epoch: 02.00/03.00 files may hold several; a 04.00 file holds one
 * made of its sections (flags/granularity/nvpairs empty). */
typedef struct hr_epoch {
    uint64_t offset; /* of the "EPOCH___" tag (02/03), of the loadmap (04) */
    uint64_t flags;  /* bit 0: logical unwind (LUSH) */
    uint64_t granularity;
    uint32_t ra_distance; /* formerly return-address offset, now 0 */
    hr_nvpairs nvps;
    uint32_t n_metrics;
    const hr_metric *metrics; /* metric id = index */
    uint32_t n_loadmap;
    const hr_loadmap_entry *loadmap;
    uint64_t n_nodes;
    const hr_cct_node *nodes; /* file order: parents before children */
} hr_epoch;

/* 04.00 sparse metrics: per CCT node, (metric id, raw 8-byte word) pairs.
 * Node k of the index (k < n_nz_nodes) owns values [start_k, start_{k+1});
 * the parser checked that starts do not decrease and stay <= n_values and
 * that the last index entry is ("end!", n_values). */
typedef struct hr_sparse {
    hr_idtuple idtuple;
    uint64_t n_values;
    uint32_t n_nz_nodes;
    const uint8_t *values; /* n_values x HR_SPARSE_VALUE_SIZE bytes */
    const uint8_t *index;  /* (n_nz_nodes + 1) x HR_SPARSE_INDEX_SIZE bytes */
    uint64_t values_offset, index_offset;
} hr_sparse;

/* 04.00 footer: the 14 words at the end of the file. */
typedef struct hr_footer {
    hr_span hdr, loadmap, cct, metrics, iddict, sparse;
    uint64_t footer_start;
    uint64_t magic;
} hr_footer;

typedef struct hr_file {
    const char *name; /* as passed to hr_parse(), used in errors */
    const uint8_t *data;
    uint64_t size;
    char version[6];   /* "04.00" etc., NUL-terminated copy */
    int major, minor;  /* 4, 0 */
    char endian;       /* 'b' */
    hr_nvpairs hdr;    /* header name/value pairs, file order */
    uint32_t n_epochs; /* 1 for 04.00 */
    const hr_epoch *epochs;
    /* 04.00 only (has_sparse = 1): */
    int has_sparse;
    uint16_t n_idkinds;
    const hr_idkind_name *idkinds;
    uint64_t iddict_offset;
    hr_sparse sparse;
    hr_footer footer;
} hr_file;

/* Parse a .hpcrun file image. `name` (kept, not copied) is used in errors;
 * data[0..size) and `arena` must outlive *out. */
pk_status hr_parse(const char *name, const void *data, uint64_t size, pk_arena *arena,
                   hr_file *out);

/* ---------------------------------------------------------------------
 * Trace (.hpctrace)
 * ------------------------------------------------------------------- */

#define HR_TRACE_DATA_CENTRIC UINT64_C(1) /* records carry a u32 metric id */
#define HR_TRACE_LCA_RECORDED UINT64_C(2) /* no longer used; hpcproftt prints ", 0" */
#define HR_TRACE_CALL_TRACE   UINT64_C(4)

typedef struct hr_trace {
    const char *name;
    const uint8_t *data;
    uint64_t size;
    char version[6];
    char endian;
    int has_flags;        /* version > 1.0: a u64 flags word follows */
    uint64_t flags;       /* 0 when there is no flags word */
    uint64_t header_size; /* 24 or 32 */
    uint32_t record_size; /* 12, or 16 when data-centric */
    uint64_t n_records;
    const uint8_t *records; /* n_records x record_size bytes */
} hr_trace;

/* Parse a .hpctrace file image. A partial record at the end is an error
 * (hpcproftt stops with one too). */
pk_status hr_trace_parse(const char *name, const void *data, uint64_t size, hr_trace *out);

/* What the first bytes are: */
enum { HR_KIND_NONE = 0, HR_KIND_PROFILE = 1, HR_KIND_TRACE = 2 };
int hr_detect(const void *data, uint64_t size);
/* Same for a path (reads the first bytes of the file). */
int hr_detect_path(const char *path);

/* ---------------------------------------------------------------------
 * Accessors for the bulk data (bounds were checked by the parser)
 * ------------------------------------------------------------------- */

/* A raw 8-byte value word as a double (val_fmt REAL) — integer-format
 * words are used as uint64_t directly. */
static inline double hr_word_real(uint64_t word)
{
    double d;
    memcpy(&d, &word, sizeof d);
    return d;
}

/* Sparse value i: its 0-based metric id and raw 8-byte word. */
static inline void hr_sparse_value(const hr_sparse *s, uint64_t i, uint16_t *metric, uint64_t *word)
{
    const uint8_t *p = s->values + i * HR_SPARSE_VALUE_SIZE;
    *word = pk_be64(p);
    *metric = pk_be16(p + 8);
}

/* Index entry k (k <= n_nz_nodes; entry n_nz_nodes is the "end!" one):
 * CCT node id and the position of its first value. */
static inline void hr_sparse_index(const hr_sparse *s, uint32_t k, uint32_t *node_id,
                                   uint64_t *start)
{
    const uint8_t *p = s->index + (uint64_t)k * HR_SPARSE_INDEX_SIZE;
    *node_id = pk_be32(p);
    *start = pk_be64(p + 4);
}

/* 02/03 dense value word of metric m of a node. */
static inline uint64_t hr_dense_value(const hr_cct_node *n, uint32_t m)
{
    return pk_be64(n->dense + (uint64_t)m * 8);
}

/* Trace record i. metric is HR_TRACE_NO_METRIC unless data-centric. */
#define HR_TRACE_NO_METRIC UINT32_C(0x7fffffff) /* hpcrun's INT_MAX "none" */
static inline void hr_trace_record(const hr_trace *t, uint64_t i, uint64_t *time, uint32_t *node_id,
                                   uint32_t *metric)
{
    const uint8_t *p = t->records + i * t->record_size;
    *time = pk_be64(p);
    *node_id = pk_be32(p + 8);
    *metric = (t->flags & HR_TRACE_DATA_CENTRIC) ? pk_be32(p + 12) : HR_TRACE_NO_METRIC;
}

/* The pretty name hpcproftt prints for a placeholder (lm_id 0) node, e.g.
 * "<program root>" for "| Main  ", or NULL when it has none. */
const char *hr_placeholder_name(uint64_t lm_ip);

#endif /* PK_FORMATS_HPCRUN_H */
