/*
 * formats/hpctoolkit/hpctk.h — shared internals of the HPCToolkit v4
 * database reader (meta.db, profile.db, cct.db, trace.db).
 *
 * Layout reference: shared/specs/hpctoolkit-database-v4.0-upstream.md and
 * the field notes (what real files do that the spec does not say). The
 * reader never trusts a number from the file: every pointer, size, count
 * and stride goes through hk_check_range() (or a string through
 * hk_string_interned()) before any byte it designates is touched.
 *
 * The same code serves pk_profile_open() and pk_dump(): when a record
 * callback is attached, each parser also emits the structures it decodes.
 */
#ifndef PK_FORMATS_HPCTK_H
#define PK_FORMATS_HPCTK_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "profkit/dump.h"
#include "util/budget.h"
#include "util/bytes.h"
#include "util/idset.h"

/* Sizes of v4.0 structures: a stored size may be larger (newer minor
 * version), never smaller. */
#define HK_SZ_FILE_HEADER_MIN 0x10
#define HK_SZ_META_HEADER     0x90
#define HK_SZ_PROF_HEADER     0x30
#define HK_SZ_CCT_HEADER      0x20
#define HK_SZ_TRACE_HEADER    0x20
#define HK_SZ_MD              0x20
#define HK_SZ_PSI             0x10
#define HK_SZ_SS              0x18
#define HK_SZ_PS              0x10
#define HK_SZ_MODULE          0x10
#define HK_SZ_FILE            0x10
#define HK_SZ_FUNCTION        0x28
#define HK_SZ_ENTRY           0x20
#define HK_SZ_CTX             0x20
#define HK_SZ_PROFILE         0x30
#define HK_SZ_CCT_CTX         0x20
#define HK_SZ_TRACE_HDR       0x18
#define HK_SZ_ID              0x10

/* The intermediate v4.0 layout (shared/specs/hpctoolkit-database-v4.md,
 * docs/hpctoolkit-v4.0-intermediate.md): same magic and version numbers,
 * smaller structures. meta.db's szMetric tells the layouts apart (24 here,
 * 32 in the final layout); profile.db, cct.db and trace.db are read in the
 * layout of their meta.db. */
#define HK_V40I_SZ_METRICS_HDR 0x0f
#define HK_V40I_SZ_MD          0x18
#define HK_V40I_SZ_PS          0x18
#define HK_V40I_SZ_SS          0x10
#define HK_V40I_SZ_CONTEXT_HDR 0x10
#define HK_V40I_SZ_CTX         0x18
#define HK_V40I_SZ_PROFILE     0x28
#define HK_V40I_SZ_TRACE_SECT  0x0d

enum hk_file_id { HK_META, HK_PROFILE, HK_CCT, HK_TRACE, HK_NFILES };

/* meta.db sections, in the order of its header. */
enum hk_meta_section {
    HK_MS_GENERAL,
    HK_MS_ID_NAMES,
    HK_MS_METRICS,
    HK_MS_CONTEXT,
    HK_MS_STRINGS,
    HK_MS_MODULES,
    HK_MS_FILES,
    HK_MS_FUNCTIONS
};

/* Dump sections (bit numbers of hk_reader.sections). */
enum hk_section {
    HK_S_HEADERS,
    HK_S_GENERAL,
    HK_S_ID_NAMES,
    HK_S_SCOPES,
    HK_S_METRICS,
    HK_S_MODULES,
    HK_S_SOURCE_FILES,
    HK_S_FUNCTIONS,
    HK_S_CONTEXTS,
    HK_S_PROFILES,
    HK_S_PROFILE_VALUES,
    HK_S_CCT,
    HK_S_CCT_VALUES,
    HK_S_TRACES,
    HK_S_TRACE_SAMPLES,
    HK_S_COUNT
};

/* A byte range [lo, hi) of a file, with a name for error messages. */
typedef struct hk_region {
    uint64_t lo, hi;
    const char *name; /* "Strings section", or NULL for the whole file */
} hk_region;

typedef struct hk_file {
    const char *name; /* "meta.db", ... */
    const unsigned char *data;
    uint64_t size;
    int present;
    unsigned major, minor;
    hk_region sect[8]; /* sections from the file header */
    unsigned n_sect;
    pk_source_rec *source;
} hk_file;

/* A structure array found through (pointer, count, stride). */
typedef struct hk_array {
    uint64_t base;
    uint64_t count;
    uint64_t stride;
} hk_array;

typedef struct hk_reader {
    pk_profile *p;
    int intermediate; /* meta.db is in the intermediate v4.0 layout (decided by szMetric) */
    const char *dir;  /* the database directory (metrics/default.yaml), or NULL */
    int null_strings; /* General Properties pointers that are 0: 1 title, 2 description */
    uint32_t flags;   /* PK_OPEN_* */
    unsigned threads; /* pk_open_options.threads */
    hk_file f[HK_NFILES];

    /* dump */
    pk_record_fn emit;
    void *emit_user;
    uint32_t sections; /* bit set of hk_section */
    int stopped;

    /* meta.db arrays, to turn pointers into indexes */
    hk_array modules, files, functions, scopes;
    uint64_t n_kinds;
    const char **kind_names;

    /* ids seen in profile.db / cct.db that meta.db does not list, per file
     * (so a dropped file's ids can be forgotten); `noted` is a bitmap over
     * small ids that spares the set a lookup for every repetition */
    pk_idset unlisted[HK_NFILES];
    uint64_t *noted[HK_NFILES];
    uint64_t noted_bits;
    uint32_t n_profiles;                     /* profile.db profiles, for cct.db/trace.db checks */
    const unsigned char *profile_is_summary; /* per profile, or NULL */
    pk_plane *cct_planes;                    /* cct.db planes by context id (malloc) */
    uint32_t n_cct_planes;
    /* cct.db values naming no plain profile (model.h, cm_unplaced) */
    uint64_t cct_unplaced;
    /* the plain profiles' value blocks (and cct.db's) are validated when
     * a question reads them, not at open (read_lazy.c) */
    int deferred;
    uint64_t max_memory; /* pk_open_options.max_memory */
    pk_budget budget;    /* what the files claim beyond their bytes (util/budget.h) */
    struct hk_claim_s {
        uint64_t bytes, charged;
    } strings; /* the bytes of the strings read (hk_strings_add) */
} hk_reader;

/* The value blocks (or sample ranges) the entries of one file point to,
 * added up: honest files give each entry its own bytes, so more than the
 * file holds means blocks shared between entries, work and memory that
 * the bytes do not pay for (a small profile.db whose thousand profiles all
 * point at one large block). The excess is charged to the budget as it
 * grows. */
typedef struct hk_claim_s hk_claim;
pk_status hk_claim_add(hk_reader *r, const hk_file *f, hk_claim *c, uint64_t bytes,
                       const char *what, uint32_t index);
/* A string of `bytes` (its NUL included) at `off` of f was read: charged
 * as far as all strings read pass f's size. */
pk_status hk_strings_add(hk_reader *r, const hk_file *f, uint64_t bytes, uint64_t off);

/* ---- errors and checks (common.c) ---- */

/* Fail with "<file>: <message>". */
pk_status hk_fail(const hk_file *f, const char *fmt, ...) PK_PRINTF(2, 3);
/* Report a tolerated problem with its location. */
pk_status hk_diag(hk_reader *r, pk_severity sev, const char *code, const hk_file *f,
                  const char *structure, uint64_t offset, const char *fmt, ...) PK_PRINTF(7, 8);
/* Severity for an unknown enumeration value: expected in a newer minor
 * version (note), a real problem otherwise (warning). */
pk_severity hk_unknown_enum_severity(const hk_file *f);

static inline hk_region hk_whole(const hk_file *f)
{
    return (hk_region){0, f->size, NULL};
}

/* 1 if `count` elements of `elem` bytes at `off` lie inside `in` (no
 * overflow whatever the numbers). */
static inline int hk_fits(hk_region in, uint64_t off, uint64_t count, uint64_t elem)
{
    return off >= in.lo && off <= in.hi && (elem == 0 || count <= (in.hi - off) / elem);
}

/* The checks below take a printf-style label of the pointer being checked
 * ("profile %u value block: pValues"); it is formatted only when the check
 * fails, so checks in per-structure loops cost no formatting. */

/* Check that `count` elements of `elem` bytes at `off` lie inside `in`;
 * `count_name` names the count in the message ("nValues"), or NULL. */
pk_status hk_check_range(const hk_file *f, hk_region in, uint64_t off, uint64_t count,
                         uint64_t elem, const char *count_name, const char *what_fmt, ...)
    PK_PRINTF(7, 8);

/* The NUL-terminated string at `off`, which must end inside `in`, interned
 * into the profile; off == 0 gives NULL when allow_null. */
pk_status hk_string_interned(hk_reader *r, const hk_file *f, hk_region in, uint64_t off,
                             int allow_null, const char **out, const char *what_fmt, ...)
    PK_PRINTF(7, 8);

/* Turn a pointer into an element index of `a`: it must point exactly at
 * an element. */
pk_status hk_array_index(const hk_file *f, const hk_array *a, uint64_t ptr, uint32_t *index,
                         const char *what_fmt, ...) PK_PRINTF(5, 6);

/* The index of a sparse value block (profile.db: by context, cct.db: by
 * metric): records of `stride` bytes, a `key_size`-byte key (u32 ctxId or
 * u16 metricId), then a u64 start index into the block's values. */
typedef struct hk_index {
    const pk_plane *plane;
    unsigned stride, key_size;
    const char *record; /* "context index", "metric index" */
    const char *key;    /* "ctxId", "metric id" */
} hk_index;

/* Record k of the index: its key (strictly greater than *prev, which it
 * updates) and its run of values [*start, *end), which must lie in
 * [0, nValues) and, for k == 0, start at 0. `block_fmt` names the block. */
pk_status hk_index_record(const hk_file *f, const hk_index *ix, uint32_t k, int64_t *prev,
                          uint32_t *key, uint64_t *start, uint64_t *end, const char *block_fmt, ...)
    PK_PRINTF(8, 9);

/* Start of section `i` of f, which must be at least `min_size` bytes. */
pk_status hk_section_header(const hk_file *f, unsigned i, uint64_t min_size, uint64_t *hdr);
/* Check a stored stride against the v4.0 minimum and the array against
 * section `sec`; fills *a. Dumps it as an "array" record of the section. */
pk_status hk_array_in_section(hk_reader *r, const hk_file *f, unsigned sec, const char *what,
                              uint64_t ptr, uint64_t count, uint64_t stride, uint64_t min_stride,
                              hk_array *a);

/* Validate magic, format id, version, footer and the section table of
 * a file; `n_sect` sections are required. A NULL footer is not checked
 * (the intermediate layout's trace.db has none). */
pk_status hk_read_file_header(hk_reader *r, hk_file *f, const char *format_id, const char *footer,
                              unsigned n_sect, uint64_t header_size);

/* ---- dump emission (common.c) ---- */

static inline int hk_want(const hk_reader *r, enum hk_section s)
{
    return r->emit && !r->stopped && (r->sections >> s & 1u);
}

void hk_emit(hk_reader *r, const hk_file *f, uint64_t off, enum hk_section s, const char *type,
             const pk_field *fields, size_t n);

#define HK_U(k, x) ((pk_field){(k), PK_FIELD_UINT, {.u = (uint64_t)(x)}})
#define HK_X(k, x) ((pk_field){(k), PK_FIELD_HEX, {.u = (uint64_t)(x)}})
#define HK_R(k, x) ((pk_field){(k), PK_FIELD_REAL, {.d = (x)}})
#define HK_S(k, x) ((pk_field){(k), PK_FIELD_STR, {.s = (x)}})
#define HK_B(k, x) ((pk_field){(k), PK_FIELD_BOOL, {.u = (uint64_t) !!(x)}})
#define HK_EMIT(r, f, off, s, type, ...)                                                           \
    do {                                                                                           \
        if (hk_want((r), (s))) {                                                                   \
            const pk_field hk_fields_[] = {__VA_ARGS__};                                           \
            hk_emit((r), (f), (off), (s), (type), hk_fields_,                                      \
                    sizeof hk_fields_ / sizeof hk_fields_[0]);                                     \
        }                                                                                          \
    } while (0)

/* ---- the parsers ---- */
pk_status hk_read_meta(hk_reader *r);         /* read_meta.c */
pk_status hk_read_metrics(hk_reader *r);      /* read_metrics.c */
pk_status hk_read_context_tree(hk_reader *r); /* read_contexts.c */
pk_status hk_read_profiles(hk_reader *r);     /* read_profile.c */
pk_status hk_read_cct(hk_reader *r);          /* read_cct.c */
pk_status hk_read_traces(hk_reader *r);       /* read_trace.c */
/* metrics/default.yaml of r->dir, and what hpcviewer would choke on
 * (read_viewer.c). */
pk_status hk_read_yaml(hk_reader *r, const char *dir);
void hk_viewer_checks(hk_reader *r);
/* Deferred validation (read_lazy.c): profiles whose blocks together are
 * at least hk_defer_min_bytes (16 MiB; tests lower it) are validated when
 * read. Block i of profile.db, every block of it skip[] (may be NULL)
 * does not mark, every block of cct.db: with r as the open left it, r->p
 * the opened profile. */
extern uint64_t hk_defer_min_bytes;
pk_status hk_profile_check_block(hk_reader *r, uint32_t i);
pk_status hk_profile_check_blocks(hk_reader *r, const unsigned char *skip);
pk_status hk_cct_check_blocks(hk_reader *r);
/* Hand a deferred open's validation to the profile (read.c, at the end). */
pk_status hk_defer_attach(hk_reader *r);

/* Remember, for file `fid`, a context id that meta.db does not list. */
pk_status hk_note_unlisted(hk_reader *r, int fid, uint64_t id);

/* First and one-past-last byte of a plane's values and index together. */
static inline const unsigned char *hk_plane_lo(const pk_plane *pl)
{
    return pl->vals < pl->idx ? pl->vals : pl->idx;
}
static inline const unsigned char *hk_plane_hi(const pk_plane *pl, unsigned vsize, unsigned isize)
{
    const unsigned char *v = pl->vals ? pl->vals + pl->nvals * vsize : NULL,
                        *i = pl->idx ? pl->idx + (uint64_t)pl->nidx * isize : NULL;
    return v > i ? v : i;
}

/* Scanning many value blocks on several workers (common.c). Block i is
 * plane(user, i), with values of vsize and index records of isize bytes;
 * scan(user, worker, i) validates it (touching only the worker's own
 * state). Workers take contiguous ranges by bytes and give the pages of
 * `map` back behind them. Returns the first failure in block order (its
 * message raised again on this thread) and its index in *failed_at, or
 * PK_OK and PK_NONE. */
typedef struct hk_block_scan {
    const pk_plane *(*plane)(void *user, uint32_t i);
    pk_status (*scan)(void *user, unsigned worker, uint32_t i);
    unsigned vsize, isize;
    const pk_mapfile *map;
    void *user;
} hk_block_scan;
pk_status hk_scan_blocks(const hk_block_scan *bs, unsigned workers, uint32_t n,
                         uint32_t *failed_at);

/* Workers for scanning `bytes` of value blocks (read.c). */
unsigned hk_workers(const hk_reader *r, uint64_t bytes);

/* Entry points (read.c). */
pk_status hk_open_dir(const char *path, const pk_open_options *opts, pk_record_fn emit, void *user,
                      const char *sections, pk_profile **out);
pk_status hk_open_memory(size_t n, const char *const *names, const void *const *data,
                         const uint64_t *sizes, const pk_open_options *opts, pk_record_fn emit,
                         void *user, const char *sections, pk_profile **out);
int hk_detect_dir(const char *path);
extern const char *const hk_section_names[HK_S_COUNT + 1];

#endif
