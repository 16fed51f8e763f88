/*
 * profkit/profile.h — opening a profile and reading its model.
 *
 * A pk_profile is one in-memory profile: a sparse 3-D tensor
 * location x context x column plus the dimensions that give it meaning
 * (modules, source files, functions, the calling-context tree, metrics and
 * their scopes, locations with identifier tuples, traces). docs/model.md
 * describes the model; this header is its C interface.
 *
 * Conventions (shared by every profkit header):
 *   - Handles are opaque; every fallible function returns a pk_status and
 *     fills its out-parameters only on PK_OK.
 *   - Dimensions are numbered densely from 0 ("indexes"); PK_NONE means
 *     "no such entity" (an unknown function, a root's parent...).
 *   - Strings returned by the library belong to the profile and stay valid
 *     until pk_profile_free(). NULL means "not known".
 *   - A pk_profile is immutable once opened, so any number of threads may
 *     read it concurrently.
 */
#ifndef PROFKIT_PROFILE_H
#define PROFKIT_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_profile pk_profile;
typedef uint32_t pk_index;
#define PK_NONE ((pk_index)0xffffffffu)

/* ------------------------------------------------------------------ */
/* Opening                                                            */
/* ------------------------------------------------------------------ */

typedef enum pk_format {
    PK_FORMAT_UNKNOWN = 0,
    PK_FORMAT_HPCTOOLKIT_V4 = 1,    /* HPCToolkit database: meta.db + profile.db ... */
    PK_FORMAT_CALLGRIND = 2,        /* Callgrind / Cachegrind / Xdebug profile data file */
    PK_FORMAT_CUBE = 3,             /* Cube4 .cubex (Score-P, Scalasca, CubeLib) */
    PK_FORMAT_HPCRUN = 4,           /* hpcrun measurement: .hpcrun (+ .hpctrace) files */
    PK_FORMAT_HPCTOOLKIT_XML = 5,   /* legacy HPCToolkit database: experiment.xml 2.x + metric-db */
    PK_FORMAT_HPCTOOLKIT_DRAFT = 6, /* draft "Prof2" database: experiment.xml 4.0 + profile.db */
    PK_FORMAT_JSON = 7,             /* profkit's own full-model JSON (docs/json.md) */
    PK_FORMAT_PPROF = 8,            /* pprof profile.proto, plain or gzip (docs/pprof.md) */
} pk_format;

/* Open flags. */
enum {
    /* Load every part that is valid. A damaged optional file (profile.db,
     * cct.db, trace.db) is dropped, reported as an error diagnostic, and the
     * profile is marked incomplete instead of failing the whole open. Used by
     * `profkit check` to report every problem at once. */
    PK_OPEN_KEEP_GOING = 1u << 0,
    /* Do not read trace.db even when present. */
    PK_OPEN_NO_TRACES = 1u << 1,
    /* Do not read cct.db even when present. */
    PK_OPEN_NO_CCT = 1u << 2,
    /* Call-graph formats (Callgrind): keep self costs per function, not per
     * position (line, instruction). Memory stays bounded by the number of
     * functions and call arcs whatever the file size; what `info` and
     * `check` use on files that may be bigger than memory. */
    PK_OPEN_BY_FUNCTION = 1u << 3,
    /* hpcrun measurements: do not read the load modules named in the
     * loadmap for symbols; frames stay "module+0xoffset" (what hpcprof
     * makes without binaries). For output that must not depend on which
     * binaries this machine has. */
    PK_OPEN_NO_SYMBOLS = 1u << 4,
    /* Call-graph formats (Callgrind): read the call graph only, without
     * reconstructing a calling-context tree from it. The profile then has
     * the root context only and no values; everything is answered from
     * the call graph (profkit/callgraph.h: costs, callers and callees,
     * the flat profile). What views that need no tree open with. */
    PK_OPEN_NO_TREE = 1u << 5,
    /* Answer every question from the per-location values, never from
     * statistics the file stores. By default a question a stored summary
     * holds exactly (HPCToolkit: hpcprof's summary profile, for sums and
     * means over all profiles, unfiltered; pk_values_source() says which)
     * is answered from the summary, and the per-profile values of a big
     * database are validated only when a question reads them. With this
     * flag every value block is validated at open and every answer adds
     * up the per-location values (`profkit --recompute`): slower, and a
     * check of the summary. */
    PK_OPEN_RECOMPUTE = 1u << 6,
    /* Call-graph formats (Callgrind): keep self costs per source line
     * (function, file, line), not per instruction or basic block, and no
     * jumps; call arcs by their call site's line. Memory then grows with
     * the lines a profile touches, not its instructions: what source
     * annotation needs (`annotate` without --asm). The profile's
     * positions then say lines only. Ignored with PK_OPEN_BY_FUNCTION. */
    PK_OPEN_BY_LINE = 1u << 7,
};

typedef struct pk_open_options {
    uint32_t flags; /* PK_OPEN_* bits */
    /* Worker threads for validating big value files and for reading big
     * Callgrind files by function or by line: 0 = automatic (one thread for small
     * files, the online CPUs for big ones); N = exactly N workers whatever
     * the size (results never depend on it). */
    unsigned threads;
    /* Memory budget: the most a reader may allocate for what the input
     * implies rather than holds (inflated compressed data, rows marked all
     * zero, dense tables). 0 = the default, the larger of 256 MiB and 64
     * times the input's size in bytes; UINT64_MAX = no limit. Beyond it
     * the open fails with PK_ERR_LIMIT naming the file, the structure and
     * the offset (docs/robustness.md). */
    uint64_t max_memory;
    /* Call-graph formats: reconstruct the calling-context tree only down
     * to contexts of at least this fraction of the program total (of the
     * first metric), for a view that shows no smaller ones (`profkit tree
     * -t`, flame graphs). Every context that is kept then holds exactly
     * its share of the call graph's costs; what its callees below the
     * fraction cost hangs under one context "<below threshold>". 0: the
     * whole tree (as far as a budget of nodes goes), every function's
     * self cost exact over its contexts. */
    double tree_threshold;
    /* pprof: the sample labels that make a location, comma-separated
     * ("thread_id", "pid,tid"); samples with equal values of them are one
     * location, the other labels are summed over. NULL: every label (each
     * distinct label set is a location); "" or "none": one location.
     * Naming a label no sample has fails with PK_ERR_INVALID_ARG. Other
     * formats ignore it. */
    const char *locations_from;
} pk_open_options;

/* Open the profile at `path` (a database directory or a file), detecting
 * its format. `opts` may be NULL. On failure *out is untouched and
 * pk_error_last() names the file, structure and byte offset at fault. */
PK_API pk_status pk_profile_open(const char *path, const pk_open_options *opts, pk_profile **out);

/* Open a profile from in-memory file images instead of the file system.
 * `names[i]` is the file's name inside the database ("meta.db",
 * "profile.db", "cct.db", "trace.db"), `data[i]`/`sizes[i]` its bytes. The
 * buffers must outlive the profile (values are not copied). For
 * PK_FORMAT_CALLGRIND give exactly one file (plain or gzip); its name is
 * used in messages. Used by tests and fuzzers; behaves exactly like
 * pk_profile_open() otherwise. */
PK_API pk_status pk_profile_open_memory(pk_format format, size_t n_files, const char *const *names,
                                        const void *const *data, const uint64_t *sizes,
                                        const pk_open_options *opts, pk_profile **out);

/* PK_OK while the files the profile reads in place (mapped) are whole.
 * Another process may truncate a file while it is mapped: profkit then
 * reads zeros past the new end instead of crashing on SIGBUS
 * (docs/robustness.md), and this reports it, PK_ERR_FORMAT naming the file
 * and the offset. pk_profile_open() checks it before it returns; check it
 * again after computing from a profile whose files may change, before
 * trusting the result. */
PK_API pk_status pk_profile_intact(const pk_profile *profile);

/* Release a profile and everything it owns. NULL is a no-op. */
PK_API void pk_profile_free(pk_profile *profile);

/* ------------------------------------------------------------------ */
/* What was opened                                                    */
/* ------------------------------------------------------------------ */

typedef struct pk_profile_info {
    pk_format format;
    const char *format_name; /* stable short name, e.g. "hpctoolkit" */
    unsigned version_major;  /* format version as stored, e.g. 4.0 */
    unsigned version_minor;
    const char *title;       /* NULL if the file has none */
    const char *description; /* NULL if the file has none */
    const char *path;        /* what was opened */
    /* 0 if data is known to be missing: PK_OPEN_KEEP_GOING dropped
     * damaged parts, or the file is cut short (a text format's last part
     * without its closing line). The diagnostics with `incomplete` set
     * say why. */
    int complete;
    /* 1 if the calling-context tree is reconstructed from a call graph
     * (Callgrind): approximate, and every output showing it must say so. */
    int reconstructed;
    /* Which variant of the format's layout was read, when a format has
     * several under one version number: "intermediate" for the pre-release
     * HPCToolkit v4.0 layout (docs/hpctoolkit-v4.0-intermediate.md); NULL
     * for the format's only or final layout. */
    const char *layout;
} pk_profile_info;

PK_API pk_status pk_profile_get_info(const pk_profile *profile, pk_profile_info *out);

/* One file a profile was read from (or looked for). */
typedef struct pk_source {
    const char *name;       /* role inside the profile, e.g. "profile.db" */
    int present;            /* 0 if absent (optional file) */
    int loaded;             /* 1 if read into the model */
    uint64_t size;          /* bytes */
    unsigned version_major; /* as stored in that file */
    unsigned version_minor;
} pk_source;

PK_API size_t pk_source_count(const pk_profile *profile);
PK_API pk_status pk_source_get(const pk_profile *profile, size_t i, pk_source *out);

/* ------------------------------------------------------------------ */
/* Diagnostics: what the reader noticed but could tolerate            */
/* ------------------------------------------------------------------ */

typedef enum pk_severity {
    PK_SEV_NOTE = 0,    /* a known quirk of real files; the data is fine */
    PK_SEV_WARNING = 1, /* a real problem; the affected data is reported */
    PK_SEV_ERROR = 2,   /* a part could not be read (only with KEEP_GOING) */
} pk_severity;

typedef struct pk_diagnostic {
    pk_severity severity;
    const char *code;      /* stable identifier, e.g. "unlisted-context" */
    const char *file;      /* "profile.db", or NULL */
    const char *structure; /* e.g. "profile 17 value block", or NULL */
    uint64_t offset;       /* byte offset in `file`, valid if has_offset */
    int has_offset;
    const char *message; /* complete human-readable sentence */
    /* 1: this problem means data is missing, so the profile is incomplete
     * (pk_profile_info.complete == 0) and every view must say so */
    int incomplete;
} pk_diagnostic;

PK_API size_t pk_diagnostic_count(const pk_profile *profile);
PK_API pk_status pk_diagnostic_get(const pk_profile *profile, size_t i, pk_diagnostic *out);
/* Whether diagnostic d says why the profile is incomplete: flagged so
 * (`incomplete`), or, from a reader that flags none, an error. */
PK_API int pk_diagnostic_is_reason(const pk_profile *profile, const pk_diagnostic *d);

/* ------------------------------------------------------------------ */
/* Static dimensions: modules, source files, functions                */
/* ------------------------------------------------------------------ */

typedef struct pk_module {
    const char *path;
} pk_module;

enum { PK_FILE_COPIED = 1u << 0 }; /* the source was copied into the database */

typedef struct pk_file {
    const char *path;
    uint32_t flags; /* PK_FILE_* */
} pk_file;

typedef struct pk_function {
    const char *name; /* NULL for an anonymous function */
    pk_index module;  /* PK_NONE if unknown */
    uint64_t offset;  /* entry point in module, valid if module != PK_NONE */
    pk_index file;    /* PK_NONE if unknown */
    uint32_t line;    /* definition line, 0 if unknown */
} pk_function;

PK_API size_t pk_module_count(const pk_profile *profile);
PK_API pk_status pk_module_get(const pk_profile *profile, pk_index i, pk_module *out);
PK_API size_t pk_file_count(const pk_profile *profile);
PK_API pk_status pk_file_get(const pk_profile *profile, pk_index i, pk_file *out);
PK_API size_t pk_function_count(const pk_profile *profile);
PK_API pk_status pk_function_get(const pk_profile *profile, pk_index i, pk_function *out);

/* ------------------------------------------------------------------ */
/* The calling-context tree                                           */
/* ------------------------------------------------------------------ */

/* Context 0 is always the implicit global root (HPCToolkit's context 0).
 * Contexts are stored breadth-first: the children of a context are the
 * consecutive indexes [first_child, first_child + n_children). */

typedef enum pk_context_kind {
    PK_CTX_ROOT = 0,        /* the implicit global context (index 0) */
    PK_CTX_ENTRY = 1,       /* entry point: how the OS entered the program */
    PK_CTX_FUNCTION = 2,    /* function-like construct */
    PK_CTX_LOOP = 3,        /* loop; file + line give the loop header */
    PK_CTX_LINE = 4,        /* source line */
    PK_CTX_INSTRUCTION = 5, /* single instruction; module + offset */
    PK_CTX_UNKNOWN = 6,     /* kind not known (unlisted, or a newer enum value) */
} pk_context_kind;

typedef enum pk_relation {
    PK_REL_NONE = 0,         /* root and entry points */
    PK_REL_LEXICAL = 1,      /* parent encloses this context lexically */
    PK_REL_CALL = 2,         /* parent made a normal call to this context */
    PK_REL_INLINED_CALL = 3, /* parent made an inlined call */
    PK_REL_UNKNOWN = 4,      /* a relation value this reader does not know */
} pk_relation;

typedef enum pk_entry_kind {
    PK_ENTRY_NONE = 0,       /* not an entry point */
    PK_ENTRY_UNKNOWN = 1,    /* "unknown entry": unwinding found no outside caller */
    PK_ENTRY_MAIN = 2,       /* "main thread" */
    PK_ENTRY_APP_THREAD = 3, /* "application thread" */
    PK_ENTRY_OTHER = 4,      /* an entry-point value this reader does not know */
} pk_entry_kind;

enum {
    PK_CTXF_HAS_FUNCTION = 1u << 0, /* function is set */
    PK_CTXF_HAS_SRCLOC = 1u << 1,   /* file and line are set */
    PK_CTXF_HAS_POINT = 1u << 2,    /* module and offset are set */
    /* The context has values but its source dimension file does not list it
     * (HPCToolkit: instruction contexts hpcprof leaves out of meta.db). Its
     * parent is unknown: parent == PK_NONE. */
    PK_CTXF_UNLISTED = 1u << 3,
};

typedef struct pk_context {
    uint64_t id;          /* the id the source file uses (HPCToolkit ctxId) */
    pk_index parent;      /* PK_NONE for the root and unlisted contexts */
    pk_index first_child; /* valid if n_children > 0 */
    uint32_t n_children;
    uint32_t depth; /* root = 0 */
    pk_context_kind kind;
    pk_relation relation;
    pk_entry_kind entry;    /* for PK_CTX_ENTRY */
    const char *entry_name; /* entry point's pretty name, or NULL */
    uint32_t flags;         /* PK_CTXF_* */
    pk_index function;      /* PK_NONE unless PK_CTXF_HAS_FUNCTION */
    pk_index file;          /* PK_NONE unless PK_CTXF_HAS_SRCLOC */
    uint32_t line;
    pk_index module; /* PK_NONE unless PK_CTXF_HAS_POINT */
    uint64_t offset;
    uint16_t propagation; /* HPCToolkit propagation bitmask (transitive scopes) */
    uint8_t raw_kind;     /* kind/relation/entry as stored in the file */
    uint8_t raw_relation;
    uint16_t raw_entry;
} pk_context;

PK_API size_t pk_context_count(const pk_profile *profile);
PK_API pk_status pk_context_get(const pk_profile *profile, pk_index i, pk_context *out);
/* Find a context by the id its source file used. */
PK_API pk_status pk_context_find(const pk_profile *profile, uint64_t id, pk_index *out);
/* Write a short display name of context i ("main", "loop at foo.c:12",
 * "foo.c:15", "libfoo.so+0x10123", "main thread"...) into buf (always
 * NUL-terminated, truncated to size). Returns the length it needed. */
PK_API size_t pk_context_name(const pk_profile *profile, pk_index i, char *buf, size_t size);

/* ------------------------------------------------------------------ */
/* Metrics, scopes and value columns                                  */
/* ------------------------------------------------------------------ */

typedef enum pk_combine {
    PK_COMBINE_SUM = 0,
    PK_COMBINE_MIN = 1,
    PK_COMBINE_MAX = 2,
    PK_COMBINE_OTHER = 3, /* a combine value this reader does not know */
} pk_combine;

typedef struct pk_metric {
    const char *name;
    const char *description; /* NULL if none */
    const char *unit;        /* NULL if not known */
    pk_index parent;         /* metric tree parent, PK_NONE for roots */
    pk_combine combine;      /* how values of different locations combine */
    uint32_t flags;          /* PK_METRIC_* */
} pk_metric;

/* The file stores the metric as an unsigned integer: a count that cannot
 * be negative. Deriving exclusive values from inclusive ones clamps at 0
 * per location, as CubeLib and pycubexr do, where measurement noise makes
 * a parent's inclusive count smaller than its children's. */
enum { PK_METRIC_UNSIGNED = 1u << 0 };

/* What a scope means, whatever the file calls it. */
typedef enum pk_scope_kind {
    PK_SCOPE_POINT = 0,     /* raw, where measured (HPCToolkit "point") */
    PK_SCOPE_EXCLUSIVE = 1, /* summed over children not reached by a call ("function") */
    PK_SCOPE_INCLUSIVE = 2, /* summed over all descendants ("execution") */
    PK_SCOPE_LEX_AWARE = 3, /* HPCToolkit "lex_aware": exclusive, loops kept apart */
    PK_SCOPE_OTHER = 4,     /* a custom scope the model cannot interpret */
} pk_scope_kind;

typedef struct pk_scope {
    const char *name; /* the file's own name: "point", "function", ... */
    pk_scope_kind kind;
    uint8_t raw_type; /* HPCToolkit {PS}.type: 0 custom, 1 point, 2 execution, 3 transitive */
    uint8_t propagation_index; /* bit in pk_context.propagation, 255 if none */
} pk_scope;

/* Summary statistic a column holds (for summary locations). */
typedef enum pk_stat {
    PK_STAT_NONE = 0,  /* a plain per-location value */
    PK_STAT_SUM = 1,   /* formula $$, combine sum */
    PK_STAT_COUNT = 2, /* formula 1, combine sum: locations reaching the context */
    PK_STAT_SUMSQ = 3, /* formula ($$^2), combine sum */
    PK_STAT_MIN = 4,   /* formula $$, combine min */
    PK_STAT_MAX = 5,   /* formula $$, combine max */
    PK_STAT_OTHER = 6, /* some other formula/combine */
} pk_stat;

/* A column is what one stored value measures: a metric in a scope, and for
 * summary locations a statistic across locations. HPCToolkit's propMetricId
 * and statMetricId both map to columns. */
typedef struct pk_column {
    pk_index metric;
    pk_index scope;
    int is_summary;      /* 1: a statistic column, used by summary locations */
    pk_stat stat;        /* PK_STAT_NONE unless is_summary */
    const char *formula; /* summary formula as stored ("$$"), or NULL */
    pk_combine combine;  /* summary combine function */
    uint32_t raw_id;     /* propMetricId / statMetricId as stored */
} pk_column;

PK_API size_t pk_metric_count(const pk_profile *profile);
PK_API pk_status pk_metric_get(const pk_profile *profile, pk_index i, pk_metric *out);
PK_API size_t pk_scope_count(const pk_profile *profile);
PK_API pk_status pk_scope_get(const pk_profile *profile, pk_index i, pk_scope *out);
PK_API size_t pk_column_count(const pk_profile *profile);
PK_API pk_status pk_column_get(const pk_profile *profile, pk_index i, pk_column *out);
/* Find the plain (non-summary) column of `metric` in a scope of `kind`. */
PK_API pk_status pk_column_find(const pk_profile *profile, pk_index metric, pk_scope_kind kind,
                                pk_index *out);

/* ------------------------------------------------------------------ */
/* Locations (threads, ranks, GPU streams) and their values           */
/* ------------------------------------------------------------------ */

enum { PK_ID_PHYSICAL = 1u << 0 }; /* the physical id identifies it */

/* One element of a hierarchical identifier tuple, e.g. RANK 3. */
typedef struct pk_ident {
    uint16_t kind;
    const char *kind_name; /* "NODE", "RANK", "THREAD"...; NULL if unnamed */
    uint16_t flags;        /* PK_ID_* */
    uint32_t logical;
    uint64_t physical;
} pk_ident;

typedef struct pk_location {
    uint32_t raw_index; /* index in the source (profile.db profile index) */
    int is_summary;     /* statistics across locations, not one thread */
    size_t n_ids;       /* identifier tuple */
    const pk_ident *ids;
    uint64_t n_values;   /* stored non-zero values */
    uint32_t n_contexts; /* contexts with values */
    pk_index trace;      /* trace of this location, PK_NONE if none */
} pk_location;

PK_API size_t pk_location_count(const pk_profile *profile);
PK_API pk_status pk_location_get(const pk_profile *profile, pk_index i, pk_location *out);
/* Write "NODE 0 [0x11ac0300] / RANK 3 / THREAD 0" (or "summary") into buf. */
PK_API size_t pk_location_name(const pk_profile *profile, pk_index i, char *buf, size_t size);

/* One stored value. */
typedef struct pk_value {
    pk_index context;
    pk_index column; /* PK_NONE if the stored metric id maps to no column */
    pk_index location;
    double value;
} pk_value;

/* Cursor over stored values. Its members are private: initialise it with
 * one of the *_begin functions and read it only through pk_cursor_next(). */
typedef struct pk_cursor {
    const pk_profile *_p;
    const unsigned char *_idx, *_vals;
    uint64_t _i, _n, _v, _vend, _vn;
    uint32_t _outer, _pos, _mode, _idx_stride, _val_stride;
    pk_index _ctx, _col, _loc;
} pk_cursor;

/* Values of one location, by context (ascending id), then column. */
PK_API pk_status pk_location_values_begin(const pk_profile *profile, pk_index location,
                                          pk_cursor *c);
/* Values of one column in one location, by context (ascending id): the
 * values pk_location_values_begin() visits, filtered to the column inside
 * the cursor (no per-value column lookup or copy for the others). */
PK_API pk_status pk_location_column_begin(const pk_profile *profile, pk_index location,
                                          pk_index column, pk_cursor *c);
/* Values of one context across locations, by column then location. Uses
 * cct.db when it was read, else a transpose built on first use. */
PK_API pk_status pk_context_values_begin(const pk_profile *profile, pk_index context, pk_cursor *c);
/* Next value: returns 1 and fills *out, or 0 at the end. */
PK_API int pk_cursor_next(pk_cursor *c, pk_value *out);

/* Value of (location, context, column); 0.0 when not stored. */
PK_API pk_status pk_value_lookup(const pk_profile *profile, pk_index location, pk_index context,
                                 pk_index column, double *out);

/* ------------------------------------------------------------------ */
/* Attributes: what a format says about an entity beyond the model     */
/* ------------------------------------------------------------------ */

/* Formats carry facts the model has no field for (a Cube metric's data
 * type and CubePL expression, a call-tree node's parameters, a thread's
 * name). Readers keep them as key/value attributes of the entity, so
 * nothing is lost and a writer of the same format can put them back.
 * Keys are namespaced by format ("cube:dtype"); docs/model.md lists them.
 * One key may occur several times on an entity (in file order). */
typedef enum pk_entity {
    PK_ENTITY_PROFILE = 0,  /* index is 0 */
    PK_ENTITY_METRIC = 1,   /* index is a metric index */
    PK_ENTITY_FUNCTION = 2, /* index is a function index */
    PK_ENTITY_CONTEXT = 3,  /* index is a context index */
    PK_ENTITY_LOCATION = 4, /* index is a location index */
} pk_entity;

typedef struct pk_attribute {
    pk_entity entity;
    pk_index index;
    const char *key;
    const char *value;
} pk_attribute;

/* Attributes are ordered by entity, then index, then file order. */
PK_API size_t pk_attribute_count(const pk_profile *profile);
PK_API pk_status pk_attribute_get(const pk_profile *profile, size_t i, pk_attribute *out);
/* The attributes of one entity: [*first, *first + *n) (n may be 0). */
PK_API pk_status pk_attribute_range(const pk_profile *profile, pk_entity entity, pk_index index,
                                    size_t *first, size_t *n);
/* First value of `key` on an entity, or NULL when it has none. */
PK_API const char *pk_attribute_find(const pk_profile *profile, pk_entity entity, pk_index index,
                                     const char *key);

/* ------------------------------------------------------------------ */
/* Traces                                                             */
/* ------------------------------------------------------------------ */

typedef struct pk_trace {
    pk_index location;
    uint64_t n_samples;
    uint64_t time_begin; /* first and last timestamp (ns), 0 if empty */
    uint64_t time_end;
} pk_trace;

typedef struct pk_sample {
    uint64_t time;    /* nanoseconds since the epoch */
    pk_index context; /* PK_NONE: not running (id 0) or an unknown id */
    uint64_t raw_id;  /* context id as stored */
} pk_sample;

PK_API size_t pk_trace_count(const pk_profile *profile);
PK_API pk_status pk_trace_get(const pk_profile *profile, pk_index i, pk_trace *out);
/* Copy samples [first, first+n) of trace i into out; *n_out receives how
 * many were copied (fewer at the end of the trace). */
PK_API pk_status pk_trace_samples(const pk_profile *profile, pk_index i, uint64_t first, size_t n,
                                  pk_sample *out, size_t *n_out);
/* Timestamp range of all traces as the file states it. */
PK_API pk_status pk_trace_range(const pk_profile *profile, uint64_t *begin, uint64_t *end);

#ifdef __cplusplus
}
#endif

#endif /* PROFKIT_PROFILE_H */
