/*
 * formats/callgrind/parse.c — the Callgrind line parser: dispatching each
 * line, cost lines (subpositions and costs), calls= / jump= / jcnd=
 * associations. Header lines and name specs live in parse_names.c.
 *
 * The hot path is the cost line: numbers are parsed in place from the
 * input bytes (no copy, no allocation), and the costs are added to the
 * current function's record. Every token is bounded by the line's end.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgrd.h"
#include "util/error.h"
#include "util/vec.h"

void cgp_diag(cg_parser *ps, pk_severity sev, const char *code, const char *fmt, ...)
{
    char msg[512], where[48];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(where, sizeof where, "line %llu", (unsigned long long)ps->line_no);
    pk_model_diag(ps->p, sev, code, ps->file, where, 1, ps->line_off, "line %llu: %s",
                  (unsigned long long)ps->line_no, msg);
}

/* A line that cannot be read: the open fails, or with KEEP_GOING the line
 * is skipped, reported as an error, and the profile marked incomplete. */
pk_status cgp_bad(cg_parser *ps, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (ps->flags & PK_OPEN_KEEP_GOING) {
        cgp_diag(ps, PK_SEV_ERROR, "bad-line", "%s; line skipped", msg);
        pk_model_mark_incomplete(ps->p, "bad-line");
        return PK_OK;
    }
    return pk_fail(PK_ERR_FORMAT, "%s:%llu: %s (byte offset %llu)", ps->file,
                   (unsigned long long)ps->line_no, msg, (unsigned long long)ps->line_off);
}

int cgp_u64(const char **sp, const char *e, uint64_t *out)
{
    const char *s = *sp;
    uint64_t v = 0;
    if (cgs_hex_prefix(s, e, 1)) {
        s += 2;
        const char *d = s;
        for (; s < e; s++) {
            unsigned c = (unsigned char)*s, h;
            if (c - '0' < 10)
                h = c - '0';
            else if ((c | 32) - 'a' < 6)
                h = (c | 32) - 'a' + 10;
            else
                break;
            if (v >> 60) return 0;
            v = v << 4 | h;
        }
        if (s == d) return 0;
    } else {
        const char *d = s;
        for (; s < e && (unsigned)(*s - '0') < 10; s++) {
            uint64_t digit = (uint64_t)(*s - '0'); /* up to 2^64 - 1 exactly */
            if (v > UINT64_MAX / 10 || (v == UINT64_MAX / 10 && digit > UINT64_MAX % 10)) return 0;
            v = v * 10 + digit;
        }
        if (s == d) return 0;
    }
    *sp = s;
    *out = v;
    return 1;
}

/* One subposition: absolute, +N / -N relative to `base`, or '*'. With
 * `loose` (by function, positions are not kept; by line, only the line:
 * cgp_loose()) a relative one that leaves 0..2^64-1 is not an error: its
 * value does not matter, and every way of reading the file, in parallel
 * too (pipeline.c), agrees then. */
static int parse_subpos(const char **sp, const char *e, uint64_t base, int loose, uint64_t *out)
{
    const char *s = *sp;
    uint64_t v;
    if (s < e && *s == '*') {
        *out = base;
        *sp = s + 1;
        return 1;
    }
    if (s < e && (*s == '+' || *s == '-')) {
        char sign = *s++;
        if (!cgp_u64(&s, e, &v)) return 0;
        if (!loose && (sign == '+' ? v > UINT64_MAX - base : v > base)) return 0;
        *out = sign == '+' ? base + v : base - v;
    } else {
        if (!cgp_u64(&s, e, &v)) return 0;
        *out = v;
    }
    *sp = s;
    return 1;
}

/* Subpositions of a cost line (moving the base) or of a target (not). */
static int parse_position(cg_parser *ps, const char **sp, const char *e, uint64_t *pos)
{
    const char *s = *sp;
    for (uint32_t i = 0; i < ps->n_pos; i++) {
        s = cgp_skip_space(s, e);
        if (!parse_subpos(&s, e, ps->last[i], cgp_loose(ps, i), &pos[i])) return 0;
        if (s < e && !cgp_is_space(*s)) return 0;
    }
    *sp = s;
    return 1;
}

static void split_position(const cg_parser *ps, const uint64_t *pos, uint32_t *line,
                           uint64_t *instr, uint64_t *bb)
{
    *line = 0, *instr = 0, *bb = 0;
    for (uint32_t i = 0; i < ps->n_pos; i++) {
        if (ps->pos_kind[i] == PK_POS_LINE)
            *line = pos[i] > UINT32_MAX ? UINT32_MAX : (uint32_t)pos[i];
        else if (ps->pos_kind[i] == PK_POS_INSTR)
            *instr = pos[i];
        else
            *bb = pos[i];
    }
}

/* Speedscope's fixtures write costs relative to the previous cost line
 * ('*', '+N'); the format has no such thing and real files write negative
 * costs as '-N' (Cachegrind's own tests). The first '*' or '+N' cost
 * switches the file to speedscope's reading, with a warning. */
static void relative_costs_seen(cg_parser *ps)
{
    if (ps->relative_costs) return;
    ps->relative_costs = 1;
    cgp_diag(ps, PK_SEV_WARNING, "relative-costs",
             "a cost is written as a relative subposition ('*' or '+N'); the format has no "
             "relative costs: read from here on as speedscope does (relative to the previous "
             "cost line)");
}

static int parse_cost(cg_parser *ps, const char **sp, const char *e, double prev, double *out)
{
    const char *s = *sp;
    if (*s == '*') {
        relative_costs_seen(ps);
        *out = prev;
        *sp = s + 1;
        return 1;
    }
    char sign = *s == '-' || *s == '+' ? *s++ : 0;
    if (sign == '+') relative_costs_seen(ps);
    uint64_t v;
    if (!cgp_u64(&s, e, &v) || (sign == '-' && v > (1ull << 63))) return 0; /* any u64 cost */
    double d = sign == '-' ? -(double)v : (double)v;
    *out = ps->relative_costs && sign ? prev + d : d;
    *sp = s;
    return 1;
}

/* ps->values all 0 again: the entries the last line set, and any room
 * size_scratch() added since; ps->nz as long as a line's costs can be.
 * Work in proportion to the costs written. */
static pk_status clear_values(cg_parser *ps)
{
    for (uint32_t i = 0; i < ps->n_nz; i++)
        ps->values[ps->nz[i]] = 0;
    ps->n_nz = 0;
    if (ps->clean_cap < ps->cap_cols) {
        memset(ps->values + ps->clean_cap, 0, (ps->cap_cols - ps->clean_cap) * sizeof *ps->values);
        ps->clean_cap = ps->cap_cols;
    }
    if (ps->cap_nz < ps->cap_cols) {
        uint32_t *nz = realloc(ps->nz, ps->cap_cols * sizeof *nz);
        if (!nz) return pk_fail_nomem("reading costs");
        ps->nz = nz, ps->cap_nz = ps->cap_cols;
    }
    return PK_OK;
}

/* Costs after the position into ps->cols, *k of them (missing trailing
 * costs are zero), or *k = UINT32_MAX for a line that is skipped. */
static pk_status parse_costs(cg_parser *ps, const char *s, const char *e, uint32_t *k)
{
    uint32_t n = ps->bp->n_cols;
    double *cols = ps->cols;
    for (*k = 0;; ++*k) {
        s = cgp_skip_space(s, e);
        if (s >= e) break;
        uint32_t i = *k;
        *k = UINT32_MAX;
        if (i >= n) return cgp_bad(ps, "more costs than the %u events of 'events:'", n);
        double prev = i < ps->n_prev ? ps->prev_cols[i] : 0.0;
        if (!parse_cost(ps, &s, e, prev, &cols[i]) || (s < e && !cgp_is_space(*s)))
            return cgp_bad(ps, "cost %u is not a number", i + 1);
        *k = i;
    }
    return PK_OK;
}

static int cmp_event(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The line's costs (ps->cols[0, k)) to ps->values by global event, and
 * the events that have one to ps->nz, ascending (a part that lists its
 * events in another order than the first part's is sorted per line). */
static pk_status costs_by_event(cg_parser *ps, uint32_t k)
{
    const double *cols = ps->cols;
    memcpy(ps->prev_cols, cols, k * sizeof *cols);
    ps->n_prev = k;
    pk_status st = clear_values(ps);
    if (st) return st;
    int sorted = 1;
    for (uint32_t i = 0; i < k; i++) {
        if (cols[i] == 0.0) continue;
        uint32_t ev = ps->bp->col_event[i];
        ps->values[ev] = cols[i];
        if (ps->n_nz && ps->nz[ps->n_nz - 1] > ev) sorted = 0;
        ps->nz[ps->n_nz++] = ev;
    }
    if (!sorted) qsort(ps->nz, ps->n_nz, sizeof *ps->nz, cmp_event);
    return PK_OK;
}

static pk_status current_function(cg_parser *ps)
{
    if (ps->fn != PK_NONE) return PK_OK;
    const char *name = pk_intern_cstr(&ps->p->strings, "<unspecified>");
    if (!name) return pk_fail_nomem("reading names");
    return cgb_function(ps->b, name, ps->ob, ps->fl, &ps->fn);
}

static pk_status record_self(cg_parser *ps, uint32_t line, uint64_t instr, uint64_t bb)
{
    pk_status st = current_function(ps);
    if (!st && ps->acc_dirty) st = cgb_acc(ps->b, ps->part, ps->fn, ps->fi, &ps->acc);
    if (st) return st;
    ps->acc_dirty = 0;
    return cgb_self(ps->b, ps->acc, line, instr, bb, ps->values, ps->nz, ps->n_nz);
}

static pk_status record_call(cg_parser *ps, uint32_t line, uint64_t instr, uint64_t bb)
{
    pk_cg_call_rec c = {
        ps->part, ps->fn, ps->call_callee, ps->fi, line, ps->call_to_file, 0, 0, instr, bb,
        0,        0,      ps->call_count};
    split_position(ps, ps->target, &c.to_line, &c.to_instr, &c.to_bb);
    pk_status st = current_function(ps);
    c.caller = ps->fn;
    cgp_callee_done(ps);
    return st ? st : cgb_call(ps->b, &c, ps->values, ps->nz, ps->n_nz);
}

static pk_status record_jump(cg_parser *ps, uint32_t line, uint64_t instr, uint64_t bb)
{
    pk_cg_jump_rec j = {ps->part,
                        ps->fn,
                        ps->fi,
                        line,
                        ps->jfn != PK_NONE ? ps->jfn : ps->fn,
                        ps->jfi != PK_NONE ? ps->jfi : ps->fi,
                        0,
                        (uint32_t)ps->jump_cond,
                        instr,
                        bb,
                        0,
                        0,
                        ps->jump_followed,
                        ps->jump_executed};
    split_position(ps, ps->target, &j.to_line, &j.to_instr, &j.to_bb);
    pk_status st = current_function(ps);
    j.fn = ps->fn;
    if (j.to_fn == PK_NONE) j.to_fn = ps->fn;
    ps->jfi = ps->jfn = PK_NONE;
    if (st || ps->b->by_function || ps->b->by_line) return st;
    return cgb_jump(ps->b, &j);
}

/* A cost line read: its costs (ps->cols[0, k)) by event, and recorded as
 * the pending call's or jump's, or as self cost. */
static pk_status cost_read(cg_parser *ps, const uint64_t *pos, uint32_t k)
{
    int pending = ps->pending;
    ps->pending = 0;
    pk_status st = costs_by_event(ps, k);
    if (st) return st;
    memcpy(ps->last, pos, sizeof ps->last);
    ps->part_body = 1;
    uint32_t line;
    uint64_t instr, bb;
    split_position(ps, pos, &line, &instr, &bb);
    if (pending == 1) return record_call(ps, line, instr, bb);
    if (pending == 2) return record_jump(ps, line, instr, bb);
    if (pending == 3) return PK_OK; /* the cost of a call we could not name */
    return record_self(ps, line, instr, bb);
}

static pk_status cost_line(cg_parser *ps, const char *s, const char *e)
{
    if (!ps->bp || !ps->bp->n_cols) {
        ps->pending = 0;
        return cgp_bad(ps, "cost line before any 'events:' line");
    }
    uint64_t pos[3] = {0, 0, 0};
    if (!parse_position(ps, &s, e, pos)) {
        ps->pending = 0;
        return cgp_bad(ps, "invalid position (expected %u subposition%s)", ps->n_pos,
                       ps->n_pos == 1 ? "" : "s");
    }
    uint32_t k;
    pk_status st = parse_costs(ps, s, e, &k);
    if (st || k == UINT32_MAX) {
        ps->pending = 0;
        return st;
    }
    return cost_read(ps, pos, k);
}

/* calls=COUNT TARGET: the next line is the call's source position and
 * inclusive cost. The callee is cfn= in cob=/cfi= (defaults: the current
 * object and source file); those apply to this one call only. */
static pk_status calls_line(cg_parser *ps, const char *s, const char *e)
{
    uint64_t count;
    s = cgp_skip_space(s, e);
    if (!cgp_u64(&s, e, &count)) return cgp_bad(ps, "calls= without a call count");
    ps->pending_line = ps->line_no;
    if (!ps->cfn_name) {
        cgp_diag(ps, PK_SEV_WARNING, "call-without-callee",
                 "calls= with no cfn= before it: the call cannot be attributed and is skipped");
        ps->pending = 3;
        return PK_OK;
    }
    const char *rest = s;
    memcpy(ps->target, ps->last, sizeof ps->target);
    /* Xdebug writes extra fields: tolerated. By function an arc keeps no
     * position (build.c), so what the target says is not read at all. */
    if (!ps->b->by_function && !parse_position(ps, &rest, e, ps->target))
        memcpy(ps->target, ps->last, sizeof ps->target);
    uint32_t obj;
    cgp_callee_place(ps, count, &obj, &ps->call_to_file);
    pk_status st =
        cgp_function(ps, ps->cfn_name, ps->cfn_id, obj, ps->call_to_file, &ps->call_callee);
    ps->call_count = (double)count;
    ps->pending = 1;
    return st;
}

/* jump=COUNT TARGET, jcnd=FOLLOWED/EXECUTED TARGET (what valgrind
 * writes) or jcnd=EXECUTED FOLLOWED TARGET (the spec's grammar). */
static pk_status jump_line(cg_parser *ps, int conditional, const char *s, const char *e)
{
    uint64_t a, b = 0;
    s = cgp_skip_space(s, e);
    if (!cgp_u64(&s, e, &a)) return cgp_bad(ps, "jump without a count");
    ps->jump_followed = (double)a, ps->jump_executed = 0;
    if (conditional) {
        if (s < e && *s == '/') {
            s++;
            if (!cgp_u64(&s, e, &b)) return cgp_bad(ps, "jcnd= without an execution count");
            ps->jump_executed = (double)b;
        } else {
            s = cgp_skip_space(s, e);
            if (!cgp_u64(&s, e, &b)) return cgp_bad(ps, "jcnd= without a jump count");
            ps->jump_executed = (double)a, ps->jump_followed = (double)b;
        }
    }
    memcpy(ps->target, ps->last, sizeof ps->target);
    if (!parse_position(ps, &s, e, ps->target)) return cgp_bad(ps, "invalid jump target");
    ps->jump_cond = conditional;
    ps->pending = 2;
    ps->pending_line = ps->line_no;
    return PK_OK;
}

/* The first body line of a part starts it. */
static pk_status in_part(cg_parser *ps)
{
    return ps->have_part ? PK_OK : cgp_start_part(ps);
}

static pk_status body_key(cg_parser *ps, const char *k, size_t n, const char *v, const char *e)
{
    pk_status st = in_part(ps);
    if (st) return st;
    if (cgp_is_name_key(k, n)) return cgp_name_line(ps, k, n, v, e);
    if (n == 5 && memcmp(k, "calls", 5) == 0) return calls_line(ps, v, e);
    if (n == 6 && memcmp(k, "rcalls", 6) == 0) {
        cgp_diag(ps, PK_SEV_NOTE, "old-format", "rcalls= (old format) read as calls=");
        return calls_line(ps, v, e);
    }
    if (n == 4 && memcmp(k, "jump", 4) == 0) return jump_line(ps, 0, v, e);
    if (n == 4 && memcmp(k, "jcnd", 4) == 0) return jump_line(ps, 1, v, e);
    static const char *const debug_keys[] = {"bb", "ln", "rec", "frfn"};
    for (size_t i = 0; i < sizeof debug_keys / sizeof *debug_keys; i++)
        if (strlen(debug_keys[i]) == n && memcmp(k, debug_keys[i], n) == 0) {
            cgp_diag(ps, PK_SEV_NOTE, "debug-line", "'%.*s=' (callgrind debug output) ignored",
                     (int)n, k);
            return PK_OK;
        }
    cgp_diag(ps, PK_SEV_WARNING, "unknown-key", "unknown specification '%.*s=' ignored", (int)n, k);
    return PK_OK;
}

static int is_alpha(char c)
{
    return (unsigned)((c | 32) - 'a') < 26;
}

static pk_status key_line(cg_parser *ps, const char *s, const char *e)
{
    const char *k = s;
    while (s < e && (is_alpha(*s) || *s == '_'))
        s++;
    size_t n = (size_t)(s - k);
    /* names and header values are kept as C strings: a NUL would cut them
     * (numbers that meet a NUL are "not a number" anyway) */
    int text = (s < e && *s == ':') || cgp_is_name_key(k, n);
    if (text && memchr(s, 0, (size_t)(e - s))) return cgp_bad(ps, "a NUL byte in a text line");
    if (s < e && *s == '=') return body_key(ps, k, n, s + 1, e);
    if (s < e && *s == ':') return cgp_header(ps, k, n, s + 1, e);
    const char *colon = memchr(s, ':', (size_t)(e - s));
    if (colon && colon - k < 40) { /* "timeframe (BB): ..." and such */
        cgp_diag(ps, PK_SEV_NOTE, "unknown-header", "header '%.*s' ignored", (int)(colon - k), k);
        return PK_OK;
    }
    return cgp_bad(ps, "not a Callgrind line: '%.*s'", (int)(e - k > 40 ? 40 : e - k), k);
}

/* A calls=/jump= line whose cost line never came: say so and forget it. */
static void drop_pending(cg_parser *ps)
{
    cgp_diag(ps, PK_SEV_WARNING, "association-without-cost",
             "the %s at line %llu is not followed by its cost line: dropped",
             ps->pending == 2 ? "jump" : "call", (unsigned long long)ps->pending_line);
    ps->pending = 0;
}

static pk_status one_line(cg_parser *ps, const char *s, const char *e)
{
    if (e > s && e[-1] == '\r') e--;
    s = cgp_skip_space(s, e);
    if (s == e || *s == '#') return PK_OK;
    char c = *s;
    int cost = cgp_cost_start((unsigned char)c);
    if (ps->pending && !cost) drop_pending(ps);
    if (cost) return cost_line(ps, s, e); /* a NUL there is "not a number" */
    if (is_alpha(c)) return key_line(ps, s, e);
    return cgp_bad(ps, "not a Callgrind line (starts with byte 0x%02x)", (unsigned char)c);
}

pk_status cgp_line(cg_parser *ps, const char *s, const char *e, uint64_t offset, int unterminated)
{
    ps->line_no++, ps->line_off = offset, ps->unterminated = unterminated;
    return one_line(ps, s, e);
}

pk_status cgp_name_text(cg_parser *ps, const char *k, size_t n, const char *e, uint64_t offset,
                        int unterminated)
{
    ps->line_no++, ps->line_off = offset, ps->unterminated = unterminated;
    if (e > k && e[-1] == '\r') e--;
    if (ps->pending) drop_pending(ps); /* first, as one_line() does */
    /* tested here, not by the worker, and over the key too: a file cut
     * while read turns bytes to zeros between the two (util/busguard.h) */
    if (memchr(k, 0, (size_t)(e - k))) return cgp_bad(ps, "a NUL byte in a text line");
    pk_status st = in_part(ps);
    return st ? st : cgp_name_line(ps, k, n, k + n + 1, e);
}

/* A run's lines read one by one, as cgp_feed() reads them. */
static pk_status reread_run(cg_parser *ps, const cg_run *r)
{
    pk_status st = PK_OK;
    for (const char *s = r->s; s < r->e && !st;) {
        const char *nl = memchr(s, '\n', (size_t)(r->e - s));
        const char *e = nl ? nl : r->e;
        st = cgp_line(ps, s, e, r->offset + (uint64_t)(s - r->s), !nl);
        s = nl ? nl + 1 : r->e;
    }
    return st;
}

/* The column of the line subposition, CG_NO_COLUMN if none. */
uint32_t cgp_line_column(const cg_parser *ps)
{
    for (uint32_t i = 0; i < ps->n_pos; i++)
        if (ps->pos_kind[i] == PK_POS_LINE) return i;
    return CG_NO_COLUMN;
}

/* By line: the positions of a run's lines, all at one line, into pos
 * (the others are not kept: 0); 0 if the run was cut by another column
 * than this part's line or its line leaves 0..2^64-1 (the lines are then
 * read one by one, which says so). */
static int run_position(const cg_parser *ps, const cg_run *r, uint64_t *pos)
{
    uint32_t col = cgp_line_column(ps);
    if (r->split_col != col) return 0;
    if (col == CG_NO_COLUMN) return 1;
    uint64_t base = ps->last[col], v = r->line_value;
    switch (r->line_sign) {
    case 0:
        pos[col] = v;
        return 1;
    case '*':
        pos[col] = base;
        return 1;
    case '+':
        pos[col] = base + v;
        return v <= UINT64_MAX - base;
    case '-':
        pos[col] = base - v;
        return v <= base;
    default:
        return 0;
    }
}

pk_status cgp_run(cg_parser *ps, const cg_run *r)
{
    uint32_t np = ps->n_pos;
    uint64_t pos[3] = {0, 0, 0}; /* by function: positions are not kept; by line, only one */
    int sums_ok = !r->bad && ps->bp && ps->bp->n_cols && !ps->relative_costs &&
                  (ps->b->by_function || (ps->b->by_line && run_position(ps, r, pos))) &&
                  r->min_tok >= np && r->n_tok - np <= ps->bp->n_cols && !(r->rel_mask >> np) &&
                  (!r->skip || r->skip == np); /* skipped as many subpositions as this part has */
    if (!sums_ok) return reread_run(ps, r);
    uint32_t k = r->n_tok - np, kl = r->last_tok - np, at = np - r->skip;
    memcpy(ps->cols, r->sum + at, k * sizeof *ps->cols);
    ps->line_no += r->n_lines, ps->line_off = r->last_offset, ps->unterminated = 0;
    pk_status st = cost_read(ps, pos, k);
    memcpy(ps->prev_cols, r->last + at, kl * sizeof *ps->prev_cols); /* as after its last line */
    ps->n_prev = kl;
    return st;
}

pk_status cgp_feed(cg_parser *ps, const char *data, size_t len, uint64_t offset, int final,
                   size_t *used)
{
    const char *s = data, *end = data + len;
    pk_status st = PK_OK;
    while (s < end && !st) {
        unsigned c = (unsigned char)*s;
        if (cgp_cost_start(c) && ps->bp && ps->bp->n_cols &&
            !ps->relative_costs) { /* the common line first, in one pass */
            uint64_t pos[3] = {0, 0, 0};
            uint32_t k;
            const char *next;
            int r = cgs_cost_line(ps, s, end, &next, pos, &k);
            if (r < 0 && !final) break;
            if (r > 0) {
                ps->line_no++, ps->unterminated = 0;
                ps->line_off = offset + (uint64_t)(s - data);
                st = cost_read(ps, pos, k);
                s = next;
                continue;
            }
        }
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl && !final) break;
        const char *e = nl ? nl : end;
        ps->unterminated = !nl;
        ps->line_no++;
        ps->line_off = offset + (uint64_t)(s - data);
        st = one_line(ps, s, e);
        s = nl ? nl + 1 : end;
    }
    *used = (size_t)(s - data);
    return st;
}

/* Text formats have no length field, so a cut file still parses: say so
 * when the file shows the signs of it. Tools end their last line (hand-
 * written files may not, as speedscope's: a note), and valgrind's
 * callgrind closes every part with 'totals:': a callgrind file whose last
 * part has none is cut short, and every view says it is incomplete. */
static void check_truncation(cg_parser *ps)
{
    const cgb_part *bp = ps->bp;
    int valgrind = ps->creator && strncmp(ps->creator, "callgrind-", 10) == 0;
    if (ps->unterminated)
        cgp_diag(ps, PK_SEV_NOTE, "truncated",
                 "the last line has no newline: the file may be truncated");
    if (valgrind && bp && !bp->totals) {
        cgp_diag(ps, PK_SEV_WARNING, "truncated",
                 "the last part has no 'totals:' line, which callgrind always writes: the file "
                 "is cut short, its costs and calls are incomplete");
        pk_model_mark_incomplete(ps->p, "truncated");
    }
}

pk_status cgp_end(cg_parser *ps)
{
    if (ps->pending) drop_pending(ps);
    if (ps->line_no) check_truncation(ps);
    return PK_OK;
}
