/*
 * formats/callgrind/pipeline.c — a big plain Callgrind file read on
 * several cores, when only per-function costs are kept
 * (PK_OPEN_BY_FUNCTION: info, flat, tree, callers...) or per-line ones
 * (PK_OPEN_BY_LINE, below).
 *
 * By line (PK_OPEN_BY_LINE: annotate), a run also ends where the line
 * number changes: a line joins it only if its line subposition is '*' or
 * the same absolute number as the run's first line's, and the parser
 * places the run's sums at that line. The column of the line number comes
 * from the file's header, which the parser has read before (read.c); a
 * run cut by another column (a later part's header may say otherwise) is
 * read line by line.
 *
 * The file is cut into blocks before lines that name a function, file or
 * object (never the cost line that belongs to a calls=). Worker threads
 * tokenize blocks in parallel, knowing nothing of the parser's state:
 * lines that are not cost lines are handed on as they are, and each run of
 * cost lines between two of them is summed column by column, with the
 * last line's numbers kept and any token the sum cannot stand for noted (a
 * relative or '*' cost, a stray byte). By function, the subpositions (as
 * many as the file's header says) are only checked for their syntax:
 * nothing reads their values, and making doubles of cc1's addresses and
 * line numbers to sum them was a fifth of the tokenizer's instructions.
 * The line after calls= or jump= is a run of its own. The calling thread
 * then feeds the blocks, in order, to the one parser: a name or header
 * line as such, a run as one cost line of its summed costs (by function,
 * a run's lines all go to the same function). Where a run holds anything
 * the sum cannot stand for, the parser reads its lines itself, so what
 * comes out, diagnostics included, is what the sequential parser makes.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cgrd.h"
#include "util/error.h"
#include "util/hugebuf.h"
#include "util/parallel.h"
#include "util/vec.h"

#define BLOCK_MAX (2u << 20) /* bytes a block aims at: at most this, ... */
#define BLOCK_MIN (4u << 10) /* ... at least this, 8 blocks a thread between */
#define MAX_COLS  64         /* columns a run sums; more: the parser reads it */
#define F_BAD     1u         /* a token the sum cannot stand for */
#define F_SINGLE  2u         /* the line after calls= / jump= */
#define F_NO_NL   4u         /* the file's last line, without a newline */
#define AHEAD     4          /* names ahead of the parser whose interned copy is fetched */

enum { OP_TEXT = 1, OP_RUN = 2 };

/* One op; a run's sums and its last line's tokens follow it (2 x n_tok
 * doubles). [s, e) is the op's bytes: a text line without its newline, or
 * a run's lines with their newlines. */
typedef struct op {
    uint32_t kind, flags;
    uint32_t lines_before; /* blank and comment lines before it */
    uint32_t n_lines;      /* lines of a run (blank and comment ones between included) */
    uint32_t n_tok, min_tok, last_tok;
    uint32_t n_val;    /* columns in sum[] and last[]: n_tok less the pipe's skipped ones */
    char line_sign;    /* by line: a run's first line's line subposition's sign: '*', '+',
                          '-' or 0 (absolute); its number is line_value */
    uint64_t rel_mask; /* columns that held a '+N' or '*' token; bit 63: any beyond */
    const char *s, *e;
    union {
        struct {                   /* OP_RUN */
            const char *last_line; /* its last line */
            uint64_t line_value;
        };
        struct {              /* OP_TEXT */
            const char *name; /* a name line's name (NULL: none), its hash and length */
            uint64_t name_hash;
            size_t name_len;
            uint32_t key_at; /* a name line's key: at s + key_at, key_len bytes, '=' next */
            uint8_t key_len; /* 0: not a name line */
        };
    };
} op;

typedef struct block {
    const char *s, *e;
    unsigned char *ops; /* util/hugebuf.h: on whole huge pages */
    size_t n_ops_bytes, cap;
    uint64_t *hashes; /* of the names its ops hold, in order (malloc) */
    size_t n_hashes, cap_hashes;
    uint64_t lines; /* newlines in the block */
    int ready, failed;
} block;

/* Ops buffers of replayed blocks, for the next blocks: freeing and
 * growing them anew (megabytes each: mmap'd by malloc) made the kernel
 * shoot down the other thread's TLB every block. */
#define SPARE_MAX 2 * PK_MAX_WORKERS + 2

typedef struct pipe {
    cg_parser *ps;
    const char *base;
    uint32_t split_col; /* by line: the line subposition's column; else CG_NO_COLUMN */
    uint32_t skip;      /* by function: the subpositions, whose values nothing reads */
    block *blocks;
    uint32_t n_blocks, next, consumed, window;
    uint32_t released; /* blocks whose pages were given back */
    int stop, releasing;
    pk_release rel;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    unsigned char *spare[SPARE_MAX];
    size_t spare_cap[SPARE_MAX], n_spare;
} pipe_t;

/* Block j is about to be tokenized (the lock held): a spare buffer. */
static void take_spare(pipe_t *pp, block *b)
{
    if (!pp->n_spare || b->ops) return;
    pp->n_spare--;
    b->ops = pp->spare[pp->n_spare], b->cap = pp->spare_cap[pp->n_spare];
}

/* A replayed block's buffer back to the spares, or freed (lock held). */
static void give_spare(pipe_t *pp, block *b)
{
    if (b->ops && pp->n_spare < SPARE_MAX)
        pp->spare[pp->n_spare] = b->ops, pp->spare_cap[pp->n_spare++] = b->cap;
    else
        pk_hugebuf_free(b->ops, b->cap);
    b->ops = NULL, b->cap = 0;
}

/* ------------------------------------------------------------------ */
/* Tokenizing a block                                                 */
/* ------------------------------------------------------------------ */

/* The run being summed: an op once it ends (a line that cannot join it,
 * a text line, the block's end). Kept here, not in the ops buffer, so
 * that a line joining it costs no lookup, and a wider line no move. */
typedef struct open_run {
    int open;
    uint32_t flags, lines_before, n_lines, n_tok, n_val, min_tok, last_tok;
    char line_sign;
    uint64_t rel_mask, line_value;
    const char *s, *e, *last_line;
    double sum[MAX_COLS], last[MAX_COLS];
} open_run;

typedef struct tok {
    block *b;
    uint32_t pending_lines; /* blank/comment lines not yet given to an op */
    int after_call;         /* the previous line was calls= / jump= */
    int failed;
    open_run r;
} tok;

static op *op_at(const block *b, size_t off)
{
    return (op *)(b->ops + off);
}

/* The open run written as the block's next op. */
static void close_run(tok *t)
{
    open_run *r = &t->r;
    if (!r->open) return;
    r->open = 0;
    block *b = t->b;
    size_t vals = (size_t)r->n_val * sizeof(double), need = sizeof(op) + 2 * vals;
    if (pk_hugebuf_reserve((void **)&b->ops, &b->cap, b->n_ops_bytes + need)) {
        t->failed = 1;
        return;
    }
    op *o = op_at(b, b->n_ops_bytes);
    *o = (op){.kind = OP_RUN,
              .flags = r->flags,
              .lines_before = r->lines_before,
              .n_lines = r->n_lines,
              .n_tok = r->n_tok,
              .min_tok = r->min_tok,
              .last_tok = r->last_tok,
              .n_val = r->n_val,
              .line_sign = r->line_sign,
              .rel_mask = r->rel_mask,
              .s = r->s,
              .e = r->e,
              .last_line = r->last_line,
              .line_value = r->line_value};
    memcpy(o + 1, r->sum, vals);
    memcpy((char *)(o + 1) + vals, r->last, vals);
    b->n_ops_bytes += need;
}

/* A new text op at the end of the block's ops, after the open run. */
static size_t new_text_op(tok *t)
{
    close_run(t);
    block *b = t->b;
    size_t off = b->n_ops_bytes;
    if (t->failed || pk_hugebuf_reserve((void **)&b->ops, &b->cap, off + sizeof(op))) {
        t->failed = 1;
        return SIZE_MAX;
    }
    *op_at(b, off) = (op){.kind = OP_TEXT, .lines_before = t->pending_lines};
    t->pending_lines = 0;
    b->n_ops_bytes += sizeof(op);
    return off;
}

/* What ends a cost line's token: a blank, the line's end, or anything
 * else (a token the sum cannot stand for). One load where three
 * comparisons were, for every byte between tokens. */
enum { B_OTHER, B_BLANK, B_END };
static const unsigned char byte_class[256] = {
    [' '] = B_BLANK, ['\t'] = B_BLANK, ['\n'] = B_END, ['\r'] = B_END};

static int blank(char c)
{
    return byte_class[(unsigned char)c] == B_BLANK;
}

/* The tokenizer's steps are CGS_INLINE (cgrd.h): inlined into each of its
 * two copies (tokenize()) and each of cost_line()'s, with and without end
 * tests. */

/* A cost line's token in the column that splits runs (by line). */
typedef struct split_tok {
    uint32_t col;
    char sign; /* '*', '+', '-' or 0 (absolute); 1: the line has no such column */
    uint64_t value;
} split_tok;

/* A subposition whose value nothing reads (by function), at *pp: '*', or
 * a number with an optional sign, as the parser's syntax has it (cgp_u64),
 * its end in *pp; 0 if it is none, or has more digits than a sure fit
 * into 64 bits (the parser then reads the line and decides). Only its
 * bytes are walked: no value is made. */
CGS_INLINE int subposition_syntax(const char **pp, const char *end, int checked)
{
    const char *p = *pp, *d;
    long most;
    if (*p == '*') return *pp = p + 1, 1;
    if (*p == '+' || *p == '-') p++;
    if (cgs_hex_prefix(p, end, checked)) {
        d = p += 2, most = 16;
        while ((!checked || p < end) && cgs_hex_digit[(unsigned char)*p])
            p++;
    } else {
        d = p, most = 19;
        while ((!checked || p < end) && (unsigned)(*p - '0') < 10)
            p++;
    }
    *pp = p;
    return (unsigned long)(p - d) - 1 < (unsigned long)most; /* 1 to most digits */
}

/* The tokens of the cost line at s, read up to its newline (in one pass):
 * values (those of columns from `skip` on, into v[0...]), flags, relative
 * columns and the splitting column's token; *nl its newline, NULL if the
 * block ends first. checked = 0: a newline is known to follow before end,
 * and every scan stops at it, so no byte is compared with end (the
 * block's lines but its last, cut one). A file that shrinks while read
 * reads as zeros from the cut on (util/busguard.h): every scan stops at
 * a NUL too, and *nl may then be NULL even so. */
CGS_INLINE uint32_t line_tokens(const char *s, const char *end, uint32_t skip, double *v,
                                uint32_t *flags, uint64_t *rel, split_tok *sp, const char **nl,
                                int checked)
{
    uint32_t n = 0;
    const char *p = s;
    for (;;) {
        while ((!checked || p < end) && blank(*p))
            p++;
        if ((checked && p >= end) || byte_class[(unsigned char)*p] == B_END) break;
        char c = *p;
        if (n >= MAX_COLS) goto bad;
        if (n < skip) { /* no relative column is noted: only costs' are looked at */
            if (!subposition_syntax(&p, end, checked)) goto bad;
            n++;
        } else if (c == '*') {
            *rel |= 1ull << (n < 63 ? n : 63);
            if (n == sp->col) sp->sign = '*', sp->value = 0;
            v[n++ - skip] = 0, p++;
        } else {
            if (c == '+') *rel |= 1ull << (n < 63 ? n : 63);
            if (c == '+' || c == '-') p++;
            uint64_t u;
            /* below 2^63, a signed conversion (one instruction) is exact */
            if (!cgs_number_in(&p, end, &u, checked) || u >> 63) goto bad;
            if (n == sp->col) sp->sign = c == '+' || c == '-' ? c : 0, sp->value = u;
            double d = (double)(int64_t)u;
            v[n++ - skip] = c == '-' ? -d : d;
        }
        if ((!checked || p < end) && byte_class[(unsigned char)*p] == B_OTHER) goto bad;
    }
    if ((!checked || p < end) && *p == '\r' && ((checked && p + 1 >= end) || p[1] != '\n'))
        goto bad;
    *nl = !checked || p < end ? (*p == '\n' ? p : p + 1) : NULL;
    return n;
bad:
    *flags |= F_BAD;
    *nl = memchr(p, '\n', (size_t)(end - p));
    return n;
}

/* Whether a cost line whose splitting token is `sp` may join the run
 * `r` (always, unless by line): the same line, as far as can be told
 * without the parser's state. */
CGS_INLINE int same_line(const open_run *r, const split_tok *sp)
{
    if (sp->col == CG_NO_COLUMN) return 1;
    return sp->sign == '*' || (sp->sign == 0 && r->line_sign == 0 && sp->value == r->line_value);
}

/* The cost line at s summed into a run; its newline (NULL if the block
 * ends first: then nothing is done, the line is read as text). */
CGS_INLINE const char *cost_line(tok *t, uint32_t split_col, uint32_t skip, const char *line,
                                 const char *s, const char *end, int checked)
{
    double v[MAX_COLS];
    uint32_t flags = 0;
    uint64_t rel = 0;
    split_tok sp = {split_col, 1, 0};
    const char *nl;
    uint32_t n = line_tokens(s, end, skip, v, &flags, &rel, &sp, &nl, checked);
    if (!nl) return NULL;
    int single = t->after_call;
    t->after_call = 0;
    open_run *r = &t->r;
    uint32_t k = n > skip ? n - skip : 0;
    if (!r->open || single || (r->flags & F_SINGLE) || !same_line(r, &sp)) {
        close_run(t); /* the fields one by one: the sums start at n_val = 0 */
        r->open = 1, r->flags = single ? F_SINGLE : 0, r->lines_before = t->pending_lines;
        r->n_lines = r->n_tok = r->n_val = 0, r->min_tok = UINT32_MAX, r->rel_mask = 0;
        r->line_sign = sp.sign, r->line_value = sp.value, r->s = line;
        t->pending_lines = 0;
    } else {
        r->n_lines += t->pending_lines, t->pending_lines = 0;
    }
    if (k > r->n_val) { /* a wider line: the columns it adds start at 0 */
        memset(r->sum + r->n_val, 0, (k - r->n_val) * sizeof *r->sum);
        r->n_val = k;
    }
    double *restrict sum = r->sum, *restrict last = r->last;
    for (uint32_t i = 0; i < k; i++) /* most lines hold one or two costs: no vector loop */
        sum[i] += v[i], last[i] = v[i];
    if (n > r->n_tok) r->n_tok = n;
    if (n < r->min_tok) r->min_tok = n;
    r->flags |= flags, r->rel_mask |= rel, r->n_lines++, r->e = nl + 1, r->last_tok = n;
    r->last_line = line;
    return nl;
}

/* Whether s..e starts with the n bytes of key (a short constant: the
 * loop unrolls, where memcmp() was a library call per text line). */
static int starts_with(const char *s, const char *e, const char *key, size_t n)
{
    if ((size_t)(e - s) < n) return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != key[i]) return 0;
    return 1;
}

/* Whether the text line sets up an association (calls=, rcalls=, jump=,
 * jcnd=). */
static int association(const char *s, const char *e)
{
    return starts_with(s, e, "calls=", 6) || starts_with(s, e, "rcalls=", 7) ||
           starts_with(s, e, "jump=", 5) || starts_with(s, e, "jcnd=", 5);
}

/* The name a name line "fn=(id) name" at k..e would intern, as the
 * parser reads it (parse_names.c, parse_name()); NULL if none. The parser
 * uses the hash only for exactly these bytes, so a line it reads otherwise
 * costs a hash, never a wrong name. *key_len: the length of its name key
 * ("fn", "cob"...) if the line is a name line, else 0. */
static const char *line_name(const char *k, const char *e, size_t *len, uint8_t *key_len)
{
    if (e > k && e[-1] == '\r') e--;
    const char *v = k;
    while (v < e && v - k < 4 && (unsigned)((*v | 32) - 'a') < 26)
        v++;
    if (v >= e || *v != '=' || !cgp_is_name_key(k, (size_t)(v - k))) return NULL;
    *key_len = (uint8_t)(v - k);
    v++;
    if (e - v >= 2 && v[0] == '(' && (unsigned)(v[1] - '0') < 10) {
        v++;
        while (v < e && (unsigned)(*v - '0') < 10)
            v++;
        if (v >= e || *v != ')') return NULL;
        v++;
    }
    v = cgp_skip_space(v, e);
    *len = (size_t)(e - v);
    return v < e ? v : NULL;
}

static void text_line(tok *t, const char *s, const char *e, int no_nl)
{
    size_t off = new_text_op(t);
    if (off == SIZE_MAX) return;
    op *o = op_at(t->b, off);
    o->s = s, o->e = e, o->n_lines = 1, o->flags = no_nl ? F_NO_NL : 0;
    const char *k = s;
    while (k < e && blank(*k))
        k++;
    t->after_call = association(k, e);
    o->name = line_name(k, e, &o->name_len, &o->key_len);
    o->key_at = (uint32_t)(k - s);
    if (!o->name) return;
    o->name_hash = pk_hash_bytes(o->name, o->name_len);
    block *b = t->b;
    if (pk_vec_reserve((void **)&b->hashes, &b->cap_hashes, b->n_hashes + 1, sizeof *b->hashes))
        t->failed = 1;
    else
        b->hashes[b->n_hashes++] = o->name_hash;
}

CGS_INLINE void tokenize_with(block *b, uint32_t split_col, uint32_t skip)
{
    tok t = {.b = b};
    const char *whole = b->e; /* the last newline: a line starting before it ends in the block */
    while (whole > b->s && whole[-1] != '\n')
        whole--;
    whole = whole > b->s ? whole - 1 : b->s;
    for (const char *s = b->s; s < b->e && !t.failed;) {
        const char *k = s, *nl = NULL;
        while (k < b->e && blank(*k))
            k++;
        unsigned c = (unsigned char)(k < b->e ? *k : '#');
        if (cgp_cost_start(c) && (nl = k < whole ? cost_line(&t, split_col, skip, s, k, b->e, 0)
                                                 : cost_line(&t, split_col, skip, s, k, b->e, 1))) {
            b->lines++;
            s = nl + 1;
            /* the cost lines after it that start at their first byte (most
             * do), without the general line's tests; each ends before whole
             * (unless the file shrank while read: its pages read as zeros,
             * no newline is found, and the general path takes the line) */
            while (s < whole && !t.failed && cgp_cost_start((unsigned char)*s) &&
                   (nl = cost_line(&t, split_col, skip, s, s, b->e, 0))) {
                s = nl + 1;
                b->lines++;
            }
            continue;
        }
        nl = memchr(k, '\n', (size_t)(b->e - k));
        const char *e = nl ? nl : b->e, *le = e > k && e[-1] == '\r' ? e - 1 : e;
        b->lines += nl != NULL;
        if (nl && (k == le || c == '#')) /* blank and comment lines are nothing to the parser */
            t.pending_lines++;
        else /* a cut last line too, whatever it is: the parser reads it as it is */
            text_line(&t, s, e, !nl);
        s = nl ? nl + 1 : b->e;
    }
    if (t.pending_lines && !t.failed) { /* trailing blank lines: counted, nothing read */
        size_t off = new_text_op(&t);
        if (off != SIZE_MAX) op_at(b, off)->s = op_at(b, off)->e = b->e;
    }
    close_run(&t);
    b->failed = t.failed;
}

/* By function, a copy in which no column splits runs, as a constant: the
 * test for it on every token made the copy for both 5 % slower. */
static void tokenize(const pipe_t *pp, block *b)
{
    if (pp->split_col == CG_NO_COLUMN)
        tokenize_with(b, CG_NO_COLUMN, pp->skip);
    else
        tokenize_with(b, pp->split_col, 0);
}

/* ------------------------------------------------------------------ */
/* Blocks, workers, and feeding the parser                            */
/* ------------------------------------------------------------------ */

/* Where a block may start: after a newline, before fn= fl= fi= fe= ob=
 * (never the cost line of a calls=). NULL if none from `from` on. */
static const char *cut_after(const char *from, const char *end)
{
    for (const char *p = from; p + 4 < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p - 4));
        if (!nl) return NULL;
        const char *q = nl + 1;
        if (q[2] == '=' &&
            ((q[0] == 'f' && (q[1] == 'n' || q[1] == 'l' || q[1] == 'i' || q[1] == 'e')) ||
             (q[0] == 'o' && q[1] == 'b')))
            return q;
        p = q;
    }
    return NULL;
}

static pk_status cut_blocks(pipe_t *pp, const char *data, uint64_t size, unsigned threads)
{
    const char *end = data + size;
    size_t cap = 0;
    uint64_t aim = size / (8 * (uint64_t)threads);
    aim = aim < BLOCK_MIN ? BLOCK_MIN : aim > BLOCK_MAX ? BLOCK_MAX : aim;
    for (const char *s = data; s < end;) {
        const char *e = (uint64_t)(end - s) > 2 * aim ? cut_after(s + aim, end) : NULL;
        if (!e) e = end;
        if (pk_vec_reserve((void **)&pp->blocks, &cap, pp->n_blocks + 1u, sizeof *pp->blocks))
            return pk_fail_nomem("reading in parallel");
        pp->blocks[pp->n_blocks++] = (block){.s = s, .e = e};
        s = e;
    }
    return PK_OK;
}

/* The parsed blocks' pages given back, by a worker between blocks or while
 * it waits (the lock held, dropped meanwhile); 0 if there was nothing to
 * do. On the parser's thread, each madvise() and the TLB shootdown it sends
 * were time the parser spent, and it is as often the slower stage. */
static int release_consumed(pipe_t *pp)
{
    if (pp->releasing || pp->released >= pp->consumed) return 0;
    const char *to = pp->blocks[pp->consumed - 1].e;
    pp->released = pp->consumed, pp->releasing = 1;
    pthread_mutex_unlock(&pp->lock);
    pk_release_advance(&pp->rel, to);
    pthread_mutex_lock(&pp->lock);
    pp->releasing = 0;
    return 1;
}

/* Whether a worker has to wait (lock held): every block taken, or the
 * parser a window behind. */
static int nothing_to_take(const pipe_t *pp)
{
    return pp->next >= pp->n_blocks || pp->next >= pp->consumed + pp->window;
}

static void *worker(void *arg)
{
    pipe_t *pp = arg;
    pthread_mutex_lock(&pp->lock);
    for (;;) {
        /* between blocks too, not only when idle: a worker as busy as the
         * parser would otherwise leave the whole file mapped to the end */
        release_consumed(pp);
        while (!pp->stop && nothing_to_take(pp))
            if (!release_consumed(pp)) pthread_cond_wait(&pp->cond, &pp->lock);
        if (pp->stop) break;
        block *b = &pp->blocks[pp->next++];
        take_spare(pp, b);
        pthread_mutex_unlock(&pp->lock);
        tokenize(pp, b);
        pthread_mutex_lock(&pp->lock);
        b->ready = 1;
        pthread_cond_broadcast(&pp->cond);
    }
    pthread_mutex_unlock(&pp->lock);
    return NULL;
}

/* Block j, tokenized by a worker or here. While a worker tokenizes it, the
 * parser tokenizes the next untaken blocks of the window itself: by
 * function the parser's share of the work is the smaller one (cc1: a
 * third), and waiting left its core idle. */
static void await_block(pipe_t *pp, uint32_t j)
{
    pthread_mutex_lock(&pp->lock);
    while (!pp->blocks[j].ready) {
        if (nothing_to_take(pp)) {
            pthread_cond_wait(&pp->cond, &pp->lock);
            continue;
        }
        block *b = &pp->blocks[pp->next++];
        take_spare(pp, b);
        pthread_mutex_unlock(&pp->lock);
        tokenize(pp, b);
        pthread_mutex_lock(&pp->lock);
        b->ready = 1;
        pthread_cond_broadcast(&pp->cond);
    }
    pthread_mutex_unlock(&pp->lock);
}

static size_t op_size(const op *o)
{
    return sizeof *o + (o->kind == OP_RUN ? 2 * (size_t)o->n_val * sizeof(double) : 0);
}

/* Name k of the block made ready in the cache before the parser meets it:
 * 2 x AHEAD names before, its slot in the interner; AHEAD names before (the
 * slot there by then), the interned copy the parser compares it with. */
static void fetch_names(const pipe_t *pp, const block *b, size_t k)
{
    const pk_interner *in = &pp->ps->p->strings;
    if (k + 2 * AHEAD < b->n_hashes) pk_intern_prefetch(in, b->hashes[k + 2 * AHEAD]);
    if (k + AHEAD < b->n_hashes) pk_intern_prefetch_copy(in, b->hashes[k + AHEAD]);
}

static pk_status replay(pipe_t *pp, const block *b)
{
    cg_parser *ps = pp->ps;
    pk_status st = PK_OK;
    size_t names = 0;
    for (size_t k = 0; k < 2 * AHEAD && k < b->n_hashes; k++)
        pk_intern_prefetch(&ps->p->strings, b->hashes[k]);
    for (size_t off = 0; off < b->n_ops_bytes && !st;) {
        const op *o = op_at(b, off);
        off += op_size(o);
        ps->line_no += o->lines_before;
        uint64_t at = (uint64_t)(o->s - pp->base);
        if (o->kind == OP_TEXT) {
            if (o->name) fetch_names(pp, b, names++);
            ps->known_name = o->name, ps->known_len = o->name_len, ps->known_hash = o->name_hash;
            int no_nl = (o->flags & F_NO_NL) != 0;
            if (o->key_len)
                st = cgp_name_text(ps, o->s + o->key_at, o->key_len, o->e, at, no_nl);
            else if (o->n_lines)
                st = cgp_line(ps, o->s, o->e, at, no_nl);
            ps->known_name = NULL;
            continue;
        }
        const double *sum = (const double *)(o + 1);
        cg_run run = {o->s,
                      o->e,
                      at,
                      (uint64_t)(o->last_line - pp->base),
                      o->n_lines,
                      sum,
                      sum + o->n_val,
                      pp->skip,
                      o->n_tok,
                      o->min_tok,
                      o->last_tok,
                      o->rel_mask,
                      (o->flags & F_BAD) != 0,
                      pp->split_col,
                      o->line_sign,
                      o->line_value};
        st = cgp_run(ps, &run);
    }
    return st;
}

pk_status cg_feed_parallel(cg_parser *ps, const pk_mapfile *m, uint64_t start, uint32_t split_col,
                           unsigned threads)
{
    pipe_t pp = {.ps = ps,
                 .base = (const char *)m->data,
                 .split_col = split_col,
                 .skip = split_col == CG_NO_COLUMN && ps->b->by_function ? ps->n_pos : 0,
                 .window = 2 * threads + 2,
                 .lock = PTHREAD_MUTEX_INITIALIZER,
                 .cond = PTHREAD_COND_INITIALIZER};
    pthread_t tid[PK_MAX_WORKERS];
    unsigned started = 0;
    pk_status st = cut_blocks(&pp, pp.base + start, m->size - start, threads);
    pk_release_start(&pp.rel, m);
    pk_release_advance(&pp.rel, pp.base + start); /* released from here on, by the workers */
    for (unsigned w = 0; !st && w < threads && w < PK_MAX_WORKERS; w++)
        started += pthread_create(&tid[started], NULL, worker, &pp) == 0;
    for (uint32_t j = 0; j < pp.n_blocks && !st; j++) {
        await_block(&pp, j);
        block *b = &pp.blocks[j];
        st = b->failed ? pk_fail_nomem("reading in parallel") : replay(&pp, b);
        free(b->hashes);
        b->hashes = NULL, b->n_hashes = b->cap_hashes = 0;
        pthread_mutex_lock(&pp.lock);
        give_spare(&pp, b);
        pp.consumed = j + 1;
        pthread_cond_broadcast(&pp.cond);
        pthread_mutex_unlock(&pp.lock);
        if (!started) pk_release_advance(&pp.rel, b->e);
    }
    pthread_mutex_lock(&pp.lock);
    pp.stop = 1;
    pthread_cond_broadcast(&pp.cond);
    pthread_mutex_unlock(&pp.lock);
    for (unsigned w = 0; w < started; w++)
        pthread_join(tid[w], NULL);
    for (uint32_t j = 0; j < pp.n_blocks; j++)
        pk_hugebuf_free(pp.blocks[j].ops, pp.blocks[j].cap), free(pp.blocks[j].hashes);
    for (size_t k = 0; k < pp.n_spare; k++)
        pk_hugebuf_free(pp.spare[k], pp.spare_cap[k]);
    pk_release_finish(&pp.rel, pp.n_blocks ? pp.blocks[pp.n_blocks - 1].e : pp.base + start);
    free(pp.blocks);
    return st;
}
