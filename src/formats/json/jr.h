/*
 * formats/json/jr.h — the profkit.model/1 reader's state, shared by the
 * streaming driver (read.c), the record handlers (read_rec.c, read_loc.c)
 * and the call graph (read_cg.c).
 *
 * yajl parses the document as a stream of events; the driver keeps a
 * small stack of frames that knows where in the schema it is. Records
 * (one context, one row of values, one trace sample...) are short: their
 * scalars are buffered as tokens and handed to the record's handler when
 * the record closes, which checks and stores them in the model. Memory is
 * what the model needs plus one record: nothing is kept per JSON value.
 */
#ifndef PK_FORMATS_JSON_JR_H
#define PK_FORMATS_JSON_JR_H

#include <yajl/yajl_parse.h>

#include "json.h"
#include "model/callgraph.h"
#include "model/model.h"

/* Record kinds: what a frame holds. */
typedef enum jr_kind {
    R_TOP,
    R_PROFILE,
    R_SOURCE,
    R_IDKINDS,
    R_MODULE,
    R_FILE,
    R_FUNCTION,
    R_METRIC,
    R_SCOPE,
    R_COLUMN,
    R_CONTEXT,
    R_LOCATION,
    R_IDENT,
    R_VALROW,
    R_TRACE,
    R_SAMPLE,
    R_ATTR,
    R_DIAG,
    R_CG,
    R_CG_EXTRA,
    R_EVENT,
    R_PART,
    R_SELF,
    R_CALL,
    R_JUMP,
    R_COUNT
} jr_kind;

typedef enum jr_frame_type {
    F_SECTION, /* object whose members are handled as they come (top, callgraph) */
    F_OBJREC,  /* object record: scalars buffered, handler at the end */
    F_ARRREC,  /* array record (positional scalars) */
    F_LIST,    /* array of records of one kind */
    F_SCALARS, /* array of scalars inside an object record */
} jr_frame_type;

typedef enum jr_type { JT_NULL, JT_BOOL, JT_NUM, JT_STR, JT_LIST } jr_type;

/* One buffered scalar. Text (string contents or number spelling) lives
 * in the reader's text buffer, NUL-terminated. */
typedef struct jr_tok {
    uint32_t key;  /* offset of the key in text; UINT32_MAX: positional */
    uint32_t text; /* offset of the value text */
    uint32_t len;
    uint8_t type;    /* jr_type; JT_LIST marks the start of a nested array */
    uint8_t in_list; /* an element of the nested array named by key */
    uint8_t b;       /* JT_BOOL value */
    uint64_t at;     /* byte offset just past the token */
} jr_tok;

typedef struct jr_frame {
    uint8_t type, kind;
    int8_t last_member; /* F_SECTION: rank of the last known member seen */
    uint32_t seen;      /* F_SECTION: members seen (bit per rank) */
    char key[40];       /* current member key (objects) */
    uint64_t index;     /* current element index (arrays); count at the end */
    size_t tok_start;   /* first token of this record */
    size_t text_start;  /* text buffer length when it began */
} jr_frame;

#define JR_MAX_FRAMES 12

/* A location being read: its value plane grows here. */
typedef struct jr_plane {
    unsigned char *vals, *idx;
    size_t cap_vals, cap_idx;
    uint64_t nvals;
    uint32_t nidx;
    int64_t last_ctx; /* previous row's context id, -1 before the first */
    pk_ident *ids;
    size_t n_ids, cap_ids;
} jr_plane;

typedef struct jr {
    pk_profile *p;
    const char *file; /* for messages */
    yajl_handle h;
    uint64_t base; /* offset of the chunk being parsed */
    pk_status st;

    jr_frame fr[JR_MAX_FRAMES];
    int depth;     /* frames in use */
    uint64_t skip; /* nesting depth inside an ignored member */
    jr_tok *toks;
    size_t n_toks, cap_toks;
    char *text;
    size_t n_text, cap_text;

    /* growing model arrays (adopted by the profile at the end) */
    size_t cap_modules, cap_files, cap_functions, cap_metrics, cap_scopes, cap_columns;
    size_t cap_locs, cap_traces, cap_id_kinds;
    jr_plane loc;           /* the location being read */
    unsigned char *samples; /* the trace being read */
    size_t cap_samples;
    uint64_t n_samples;
    int contexts_done, have_cg, done;
    uint32_t last_parent; /* parent of the previous context, PK_NONE before one */
    /* call graph being read */
    size_t cap_events, cap_parts, cap_self, cap_calls, cap_jumps, cap_self_cost, cap_call_cost;
    uint32_t cg_positions, cg_model_functions;
    int cg_by_function;
    uint32_t n_extra;
} jr;

/* --- the driver (read.c) --- */
/* Fail with "FILE: byte N, $.path[.field]: message"; `t` gives the byte
 * offset (NULL: the end of the current record). Returns PK_ERR_FORMAT. */
pk_status jr_err(jr *r, const jr_tok *t, const char *field, const char *fmt, ...) PK_PRINTF(4, 5);
/* The current record's tokens (r->toks is allocated when the reader
 * starts, so a record with none is an empty range, never NULL + 0). */
static inline jr_tok *jr_rec_toks(jr *r, size_t *n)
{
    size_t start = r->fr[r->depth - 1].tok_start;
    *n = r->n_toks - start;
    return r->toks + start;
}
static inline const char *jr_text(const jr *r, const jr_tok *t)
{
    return r->text + t->text;
}
/* Offset just past the last token parsed. */
uint64_t jr_offset(const jr *r);

/* --- field access (read_rec.c) --- */
/* The token of member `key` of the current object record, or NULL. */
const jr_tok *jr_field(jr *r, const char *key);
/* Typed access: a clear error when the member is missing or has the wrong
 * type or range. `null_ok` accepts null (as PK_NONE / NULL). */
pk_status jr_u64(jr *r, const jr_tok *t, const char *field, uint64_t max, uint64_t *out);
pk_status jr_get_u64(jr *r, const char *key, uint64_t max, uint64_t *out);
pk_status jr_get_u32(jr *r, const char *key, uint32_t *out);
pk_status jr_get_index(jr *r, const char *key, uint64_t n, int null_ok, uint32_t *out);
pk_status jr_get_bool(jr *r, const char *key, int *out);
pk_status jr_get_str(jr *r, const char *key, int null_ok, const char **out);
pk_status jr_get_enum(jr *r, const char *key, const char *const *names, int *out);
pk_status jr_double(jr *r, const jr_tok *t, const char *field, double *out);
pk_status jr_tok_index(jr *r, const jr_tok *t, const char *field, uint64_t n, int null_ok,
                       uint32_t *out);
/* The elements of nested array `key`: *first and *n (tokens after the
 * JT_LIST marker). *present is 0 for null (when null_ok). */
pk_status jr_get_list(jr *r, const char *key, int null_ok, const jr_tok **first, size_t *n,
                      int *present);
/* Intern a string token (NULL for null). */
pk_status jr_intern(jr *r, const jr_tok *t, const char *field, const char **out);

/* --- record handlers --- */
pk_status jr_record(jr *r, jr_kind kind, uint64_t index);        /* read_rec.c */
pk_status jr_list_begin(jr *r, jr_kind kind);                    /* read_rec.c */
pk_status jr_list_end(jr *r, jr_kind kind, uint64_t n);          /* read_rec.c */
pk_status jr_record_begin(jr *r, jr_kind kind);                  /* read_loc.c */
pk_status jr_loc_record(jr *r, jr_kind kind, uint64_t index);    /* read_loc.c */
pk_status jr_loc_finish(jr *r);                                  /* read_loc.c */
pk_status jr_cg_record(jr *r, jr_kind kind, uint64_t index);     /* read_cg.c */
pk_status jr_cg_scalar(jr *r, const char *key, const jr_tok *t); /* read_cg.c */
pk_status jr_cg_begin(jr *r);                                    /* read_cg.c */
pk_status jr_cg_finish(jr *r);                                   /* read_cg.c */
pk_status jr_free(jr *r); /* read_loc.c: also hands the model's tables to the profile */
/* The nested array `key` of the current record must be there. */
pk_status jr_require_array(jr *r, const char *key);

#endif
