/*
 * formats/callgrind/cgrd.h — the Callgrind reader's internals: the call
 * graph builder (build.c), the line parser (parse.c, parse_names.c) and the
 * input layer (read.c: files, parts of a run, gzip).
 */
#ifndef PK_FORMATS_CALLGRIND_CGRD_H
#define PK_FORMATS_CALLGRIND_CGRD_H

#include <stdint.h>

#include "model/callgraph.h"
#include "profkit/dump.h"
#include "util/inline.h"
#include "util/kmap.h"

/* ------------------------------------------------------------------ */
/* The builder: call graph under construction                         */
/* ------------------------------------------------------------------ */

/* Rows of per-event costs that grow and are added to in place (rows.c):
 * row i holds len[i] values at v[off[i]..], room for cap[i]; dense
 * (nnz[i] = how many are non-zero) of events 0..len-1, or sparse
 * (nnz[i] = CGB_SPARSE) of events ev[off[i]..] (ascending). A row that
 * must grow moves to the end of the pools with twice the room (rare: a
 * row reaches its final events after a few lines), so the pools stay
 * within twice the values the file really wrote: what it holds, not what
 * its list of events could hold. */
#define CGB_SPARSE UINT32_MAX
typedef struct cgb_rows {
    double *v;
    uint32_t *ev;
    uint64_t n_v;
    size_t cap_v, cap_ev;
    uint64_t *off;
    uint32_t *len, *cap, *nnz;
    uint64_t n;
    size_t cap_n;
} cgb_rows;

void cgb_rows_free(cgb_rows *r);
/* A new empty row; its index in *out. */
pk_status cgb_rows_new(cgb_rows *r, uint64_t *out);
/* Row i += values[nz[j]] for the k events nz[] (ascending). */
pk_status cgb_rows_add(cgb_rows *r, uint64_t i, const double *values, const uint32_t *nz,
                       uint32_t k);
/* A new row of the non-zero ones of v[0, n), of events ev[] (ascending). */
pk_status cgb_rows_put(cgb_rows *r, const double *v, const uint32_t *ev, uint32_t n);
/* Row i of src as a new row of dst; `ev` is scratch for a dense row's
 * events (room for its length). */
pk_status cgb_rows_copy(cgb_rows *dst, const cgb_rows *src, uint64_t i, uint32_t *ev);
/* The rows in the model's smallest layout (model/callgraph.h: `off` NULL
 * for fixed rows, `ev` NULL for dense ones); the pools are taken over
 * when they already are it. r is emptied either way. */
pk_status cgb_rows_settle(cgb_rows *r, uint32_t ne, double **v, uint64_t **off, uint32_t **ev);

/* What rows hold: non-zero values, dense span (to each row's last
 * non-zero), and whether the pools already are a final layout (compact:
 * rows back to back; all_dense/all_sparse: every non-empty row so). */
typedef struct cgb_row_stats {
    uint64_t nnz, span, used;
    int compact, all_dense, all_sparse;
} cgb_row_stats;
typedef enum { CGB_LAYOUT_FIXED, CGB_LAYOUT_DENSE, CGB_LAYOUT_SPARSE } cgb_layout;
/* The layout cgb_rows_settle() gives n rows of ne events with these
 * stats (the smallest; *adopt: the pools as they are, when near it). */
cgb_layout cgb_rows_layout(uint64_t n, uint32_t ne, const cgb_row_stats *s, int *adopt);

/* A self cost as parsed (per position), before same-position records are
 * merged; its `len` values and their events follow the previous record's
 * in raw_v and raw_ev; `at` is its place in the file's order. As big as a
 * pk_cg_self_rec, which the merge writes over it (build_merge.c). */
typedef struct cgb_raw {
    uint64_t instr, bb;
    uint32_t acc, line, len, at;
} cgb_raw;

/* What one part's columns mean. */
typedef struct cgb_part {
    uint32_t *col_event; /* part column -> global event (malloc) */
    uint32_t n_cols;
    double *summary, *totals; /* n_cols each, or NULL (malloc) */
} cgb_part;

/* A direct-mapped memo in front of a name map: the same few files,
 * objects and functions come back line after line, and a probe of the
 * big map is a cache miss each time. */
#define CGB_MEMO 512
typedef struct cgb_memo {
    uint64_t k[3];
    uint32_t v, used;
} cgb_memo;
enum { CGB_MEMO_FILE, CGB_MEMO_MODULE, CGB_MEMO_FUNCTION, CGB_MEMO_ACC, CGB_MEMO_KINDS };

/* Recent call arcs by (part, caller, callee), by function (build.c). */
#define CGB_CALL_MEMO 8192
typedef struct cgb_call_memo {
    uint32_t part, caller, callee, arc; /* arc PK_NONE: empty */
} cgb_call_memo;

typedef struct cg_build {
    pk_profile *p;
    pk_cg *cg;
    int by_function;
    int tree;              /* reconstruct the calling-context tree (not PK_OPEN_NO_TREE) */
    double tree_threshold; /* pk_open_options.tree_threshold */
    unsigned threads;      /* pk_open_options.threads: 0 automatic */
    size_t cap_events, cap_parts, cap_bparts, cap_calls, cap_jumps, cap_fn, cap_file, cap_mod;
    cgb_part *bparts;
    uint32_t n_bparts;
    uint32_t stride; /* events known so far (= cg->n_events): the parser's row width */
    /* accumulators: one per (part, function, file) */
    uint32_t *acc_key; /* 3 per accumulator */
    uint32_t n_acc;
    size_t cap_acc;
    cgb_rows acc_rows; /* by_function: the accumulators' self costs */
    cgb_raw *raw;      /* per position: self costs as parsed */
    uint64_t n_raw;
    size_t cap_raw;
    double *raw_v;
    uint32_t *raw_ev;
    uint64_t n_raw_v;
    size_t cap_raw_v, cap_raw_ev;
    cgb_rows call_rows;   /* inclusive costs of cg->calls[i] */
    uint64_t *call_slots; /* open addressing over cg->calls: hash << 32 | record index */
    size_t cap_call_slots;
    pk_kmap fn_map, file_map, mod_map, acc_map, jump_map;
    /* by line (PK_OPEN_BY_LINE): self costs per (accumulator, line) */
    int by_line;
    pk_kmap line_map;
    uint32_t *line_key; /* 2 per line accumulator: accumulator, line */
    uint32_t n_line, memo_acc, memo_line, memo_idx;
    size_t cap_line;
    cgb_rows line_rows;
    cgb_memo *memo;           /* CGB_MEMO_KINDS * CGB_MEMO (malloc) */
    cgb_call_memo *call_memo; /* CGB_CALL_MEMO, by function only (malloc) */
} cg_build;

pk_status cgb_init(cg_build *b, pk_profile *p, const pk_open_options *opts);
void cgb_free(cg_build *b);
/* Index of the event called `name` (added if new; formula/long name kept). */
pk_status cgb_event(cg_build *b, const char *name, uint32_t *out);
pk_status cgb_new_part(cg_build *b, const char *file, uint32_t *out);
pk_status cgb_file(cg_build *b, const char *path, uint32_t *out);
pk_status cgb_module(cg_build *b, const char *path, uint32_t *out);
pk_status cgb_function(cg_build *b, const char *name, uint32_t module, uint32_t file,
                       uint32_t *out);
pk_status cgb_acc(cg_build *b, uint32_t part, uint32_t fn, uint32_t file, uint32_t *out);
/* Add self cost: values[nz[i]] for the k events nz[] (ascending); the
 * other events' costs are 0. */
pk_status cgb_self(cg_build *b, uint32_t acc, uint32_t line, uint64_t instr, uint64_t bb,
                   const double *values, const uint32_t *nz, uint32_t k);
/* Add calls: the arc `key` (same caller, callee, site: summed) with the
 * inclusive costs values[nz[i]] as above. */
pk_status cgb_call(cg_build *b, const pk_cg_call_rec *key, const double *values, const uint32_t *nz,
                   uint32_t k);
pk_status cgb_jump(cg_build *b, const pk_cg_jump_rec *key);
/* Merge records and attach the call graph to the profile (marked
 * pending: the rest of the model is derived from it when opened). */
pk_status cgb_finish(cg_build *b);
/* formulas.c: warn about event formulas that cannot be computed (a
 * cycle, an unknown event). */
pk_status cgb_check_formulas(cg_build *b);
/* build_merge.c: the self costs per position, same positions merged, as
 * the call graph's self records and rows (b->raw becomes cg->self). */
pk_status cgb_merge_positions(cg_build *b);

/* ------------------------------------------------------------------ */
/* The parser                                                         */
/* ------------------------------------------------------------------ */

enum { CG_NAME_FILE = 0, CG_NAME_FN = 1, CG_NAME_OBJ = 2, CG_NAME_KINDS = 3 };

/* cob=/cfi= that named "???": the callee's object/file is unknown (as
 * opposed to not given, which means the caller's). */

/* A function id's last answer (cgp_function()): the function, and the
 * object and file it was for; fn PK_NONE: none. */
typedef struct cg_fn_memo {
    uint32_t fn, ob, fl;
} cg_fn_memo;

typedef struct cg_names {
    const char **name;   /* by compressed id (malloc) */
    uint32_t *gen;       /* part generation that defined it */
    cg_fn_memo *fn_memo; /* functions only: by compressed id */
    uint32_t cap;
} cg_names;

typedef struct cg_parser {
    cg_build *b;
    pk_profile *p;
    const char *file; /* display name */
    uint32_t flags;
    uint64_t line_no, line_off;
    /* part state */
    int have_part, part_body, part_closed;
    uint32_t part, gen;
    uint32_t n_pos;
    uint8_t pos_kind[3]; /* PK_POS_* per subposition column */
    uint64_t last[3];
    cgb_part *bp;
    /* current names (model indexes or PK_NONE) */
    uint32_t ob, fl, fi, fn;
    uint32_t cob, cfi, jfi, jfn;
    const char *cfn_name;
    uint32_t cfn_id; /* its compressed id, PK_NONE */
    uint32_t acc;
    int acc_dirty;
    /* pending association: 0 none, 1 call, 2 jump */
    int pending;
    uint64_t pending_line;
    double call_count, jump_followed, jump_executed;
    uint32_t call_callee, call_to_file;
    int jump_cond;
    uint64_t target[3];
    int relative_costs;
    int unterminated;  /* the last line had no newline */
    double *cols;      /* parsed costs of one line, by part column */
    double *values;    /* by global event: values[nz[0, n_nz)] set, the rest 0 */
    double *prev_cols; /* previous cost line (speedscope's relative costs) */
    size_t cap_cols;
    uint32_t *nz;             /* events with a cost on the line, ascending */
    uint32_t n_nz, n_prev;    /* ... how many; costs on the previous line */
    size_t clean_cap, cap_nz; /* values[0, clean_cap) known to be 0 but at nz */
    const char *creator, *cmd;
    uint64_t pid;
    cg_names names[CG_NAME_KINDS];
    uint32_t named; /* CG_NAMED_* */
    /* the name of the line being read, hashed ahead by a pipeline worker
     * (pipeline.c): interned with this hash when it is exactly the name
     * the line turns out to hold, hashed here otherwise */
    const char *known_name;
    size_t known_len;
    uint64_t known_hash;
    const char *unknown; /* "???" interned: a name is it when it is this pointer */
} cg_parser;

/* What name lines said so far (cg_parser.named). */
enum {
    CG_NAMED_COB = 1u << 0,     /* cob= for the next call (maybe "???": unknown) */
    CG_NAMED_CFI = 1u << 1,     /* cfi=/cfl= for the next call */
    CG_NAMED_FL = 1u << 2,      /* fl= in this file (or fn= without it, said once) */
    CG_NAMED_FN = 1u << 3,      /* fn= in this file */
    CG_NAMED_EVENTS = 1u << 4,  /* events: in this part's header */
    CG_NAMED_PROFKIT = 1u << 5, /* written by profkit: its escapes and desc: lines apply */
    CG_NAMED_PARTS = 1u << 6    /* this file has more than one part (said once) */
};

pk_status cgp_init(cg_parser *ps, cg_build *b, const char *file, uint32_t flags);
void cgp_free(cg_parser *ps);
/* Parse the complete lines of data[0..len); *used receives how many bytes
 * were consumed (all of them when `final`). `offset` is data's offset in
 * the (uncompressed) file. */
pk_status cgp_feed(cg_parser *ps, const char *data, size_t len, uint64_t offset, int final,
                   size_t *used);
/* End of file: check the last part, close pending state. */
pk_status cgp_end(cg_parser *ps);

/* Line-level helpers shared by parse.c, parse_names.c and pipeline.c. */
/* Whether a line whose first token starts with byte c is a cost line. */
static inline int cgp_cost_start(unsigned c)
{
    return c - '0' < 10 || c == '+' || c == '-' || c == '*';
}

static inline int cgp_is_space(char c)
{
    return c == ' ' || c == '\t';
}

static inline const char *cgp_skip_space(const char *s, const char *e)
{
    while (s < e && cgp_is_space(*s))
        s++;
    return s;
}

/* An unsigned decimal or 0x-hex number at *sp (moved past it). 0 if there
 * is none or it overflows 64 bits. */
int cgp_u64(const char **sp, const char *e, uint64_t *out);
pk_status cgp_bad(cg_parser *ps, const char *fmt, ...) PK_PRINTF(2, 3);
void cgp_diag(cg_parser *ps, pk_severity sev, const char *code, const char *fmt, ...)
    PK_PRINTF(4, 5);
/* Header line "key: value" (key already split). */
pk_status cgp_header(cg_parser *ps, const char *key, size_t klen, const char *v, const char *e);
/* Name line "key=..." for ob/fl/fi/fe/fn/cob/cfi/cfl/cfn/jfi/jfn. 0 if not one. */
int cgp_is_name_key(const char *key, size_t klen);
pk_status cgp_name_line(cg_parser *ps, const char *key, size_t klen, const char *v, const char *e);
/* The builder's function of `name` in object ob and file fl
 * (cgb_function()), remembered per compressed id (id, or PK_NONE). */
pk_status cgp_function(cg_parser *ps, const char *name, uint32_t id, uint32_t ob, uint32_t fl,
                       uint32_t *out);
pk_status cgp_start_part(cg_parser *ps);
/* The object and file of the callee of "calls=COUNT": cob=/cfi= when
 * given (unknown ones included), else the current ones. Warns about what
 * callgrind_annotate misreads (a count of 0). */
void cgp_callee_place(cg_parser *ps, uint64_t count, uint32_t *obj, uint32_t *file);
/* The call's cost line was read: cob=, cfi= and cfn= applied to it only. */
void cgp_callee_done(cg_parser *ps);

/* Each hex digit's value plus one; 0 for any other byte (scan.c). */
extern const unsigned char cgs_hex_digit[256];

/* An unsigned decimal or 0x-hex number at *p; 0 if none or it overflows.
 * A hex digit's value comes from a table: a branch on digit or letter was
 * wrong one time in three on addresses. (Reading a decimal's digits eight
 * bytes at once was slower: most are one to three digits.) */
#define CGS_INLINE PK_ALWAYS_INLINE
/* Whether the number at p is written in hex: "0x" or "0X" and a byte more
 * (else "0" is a decimal, and the 'x' a stray byte). checked = 0: the
 * caller knows a newline follows p before end (no digit stops the scan
 * there), so no byte is compared with end. */
CGS_INLINE int cgs_hex_prefix(const char *p, const char *end, int checked)
{
    return (!checked || end - p > 2) && p[0] == '0' && (p[1] | 32) == 'x';
}
CGS_INLINE int cgs_number_in(const char **pp, const char *end, uint64_t *out, int checked)
{
    const char *p = *pp;
    uint64_t v = 0;
    if (cgs_hex_prefix(p, end, checked)) {
        const char *d = p += 2;
        for (unsigned h; (!checked || p < end) && (h = cgs_hex_digit[(unsigned char)*p]) != 0;
             p++) {
            if (v >> 60) return 0;
            v = v << 4 | (h - 1);
        }
        if (p == d) return 0;
    } else {
        const char *d = p;
        for (unsigned h; (!checked || p < end) && (h = (unsigned)(*p - '0')) < 10; p++) {
            if (v > (UINT64_MAX - 9) / 10) return 0;
            v = v * 10 + h;
        }
        if (p == d) return 0;
    }
    *pp = p;
    *out = v;
    return 1;
}
static inline int cgs_number(const char **pp, const char *end, uint64_t *out)
{
    return cgs_number_in(pp, end, out, 1);
}

/* The fused scanner (scan.c): the cost line at s, subpositions into pos
 * and costs into ps->cols[0, *n_costs), *next after its newline: 1; 0 when
 * the general parser must read it; -1 when its newline is not in
 * [s, end) yet. */
int cgs_cost_line(cg_parser *ps, const char *s, const char *end, const char **next, uint64_t *pos,
                  uint32_t *n_costs);

/* Whether subposition column i's values are not kept, so that one out of
 * range is no error: all of them by function, all but the line by line. */
static inline int cgp_loose(const cg_parser *ps, uint32_t i)
{
    return ps->b->by_function || (ps->b->by_line && ps->pos_kind[i] != PK_POS_LINE);
}
/* The column of the line subposition in the current part, CG_NO_COLUMN
 * if none (parse.c). */
uint32_t cgp_line_column(const cg_parser *ps);

/* The parallel reader (pipeline.c): a mapped plain file by function or by
 * line, from byte `start` on (a line's start: the parser has read what
 * is before), tokenized on `threads` more threads and fed to the parser
 * in order. By line, `split_col` is the line subposition's column
 * (CG_NO_COLUMN: none, or by function). */
#define CG_NO_COLUMN UINT32_MAX
pk_status cg_feed_parallel(cg_parser *ps, const pk_mapfile *m, uint64_t start, uint32_t split_col,
                           unsigned threads);
/* A name line [s, e) (no newline) at byte `offset` whose name key the
 * pipeline has found: n bytes at k, then '=' and the value. What
 * cgp_line() does with it, without finding the key again. */
pk_status cgp_name_text(cg_parser *ps, const char *k, size_t n, const char *e, uint64_t offset,
                        int unterminated);
/* One line [s, e) (no newline) at byte `offset`, as cgp_feed() reads it. */
pk_status cgp_line(cg_parser *ps, const char *s, const char *e, uint64_t offset, int unterminated);
/* A run of cost lines the pipeline summed: sums and the last line's
 * tokens of n_tok columns (subpositions first), but for the first `skip`
 * (by function, the subpositions: sum[0] is column skip's). */
typedef struct cg_run {
    const char *s, *e;            /* its lines, newlines included */
    uint64_t offset, last_offset; /* of its first and its last line */
    uint32_t n_lines;
    const double *sum, *last;
    uint32_t skip, n_tok, min_tok, last_tok;
    uint64_t rel_mask;  /* columns with a '+N' or '*' token; bit 63: any beyond */
    int bad;            /* a token the sum does not stand for */
    uint32_t split_col; /* by line: the column the run was cut by (CG_NO_COLUMN: none) */
    char line_sign;     /* ... its first line's token there: '*', '+', '-', 0 (absolute) */
    uint64_t line_value;
} cg_run;
/* The run as one cost line of its summed costs (by function, or by line
 * at its one line), or, where the sums cannot stand for its lines, its
 * lines read one by one. */
pk_status cgp_run(cg_parser *ps, const cg_run *run);

/* Whether a file looks like Callgrind/Cachegrind data (first 2 KB). */
int cg_detect(const unsigned char *data, size_t len);

#endif
