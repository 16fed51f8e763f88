/*
 * formats/callgrind/parse_names.c — the parser's state between lines:
 * parts and their header lines (events, positions, summary, totals...), and
 * name specifications with compression ("fn=(12) main", later "fn=(12)").
 *
 * Names share three id spaces, as valgrind writes them and every reader
 * (KCachegrind, callgrind_annotate, gprof2dot) reads them: files
 * (fl fi fe cfi cfl jfi), functions (fn cfn jfn) and objects (ob cob).
 * Ids are reset at every part.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgesc.h"
#include "cgrd.h"
#include "util/error.h"
#include "util/vec.h"

#define MAX_NAME_ID (1u << 24)

static const char *trim_end(const char *s, const char *e)
{
    while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    return e;
}

pk_status cgp_init(cg_parser *ps, cg_build *b, const char *file, uint32_t flags)
{
    memset(ps, 0, sizeof *ps);
    ps->b = b, ps->p = b->p, ps->file = file, ps->flags = flags;
    ps->ob = ps->fl = ps->fi = ps->fn = PK_NONE;
    ps->cob = ps->cfi = ps->jfi = ps->jfn = PK_NONE;
    ps->unknown = pk_intern_cstr(&ps->p->strings, "???"); /* NULL: compared by bytes */
    return PK_OK;
}

void cgp_free(cg_parser *ps)
{
    for (int k = 0; k < CG_NAME_KINDS; k++) {
        free(ps->names[k].name);
        free(ps->names[k].gen);
        free(ps->names[k].fn_memo);
    }
    free(ps->cols), free(ps->values), free(ps->prev_cols), free(ps->nz);
    memset(ps, 0, sizeof *ps);
}

/* Scratch rows sized for the part's columns and the global events. */
static pk_status size_scratch(cg_parser *ps)
{
    size_t need = ps->b->stride > ps->bp->n_cols ? ps->b->stride : ps->bp->n_cols;
    if (need <= ps->cap_cols) return PK_OK;
    double *a = realloc(ps->cols, need * sizeof *a);
    if (a) ps->cols = a;
    double *b = realloc(ps->values, need * sizeof *b);
    if (b) ps->values = b;
    double *c = realloc(ps->prev_cols, need * sizeof *c);
    if (c) ps->prev_cols = c;
    if (!a || !b || !c) return pk_fail_nomem("reading costs");
    memset(ps->prev_cols + ps->cap_cols, 0, (need - ps->cap_cols) * sizeof *c);
    ps->cap_cols = need;
    return PK_OK;
}

pk_status cgp_start_part(cg_parser *ps)
{
    const cgb_part *prev = ps->have_part ? ps->bp : NULL;
    if (prev && !(ps->named & CG_NAMED_PARTS))
        cgp_diag(ps, PK_SEV_WARNING, "several-parts",
                 "a second part in this file: callgrind_annotate reads one part per file (it "
                 "warns about the later headers, adds all parts' costs and takes its totals "
                 "from the last part)");
    ps->named = (ps->named | (prev ? CG_NAMED_PARTS : 0)) & ~CG_NAMED_EVENTS;
    uint32_t k;
    pk_status st = cgb_new_part(ps->b, ps->file, &k);
    if (st) return st;
    if (prev) prev = &ps->b->bparts[ps->part]; /* the array may have moved */
    cgb_part *bp = &ps->b->bparts[k];
    if (prev && prev->n_cols) { /* a part without events: inherits the previous ones */
        bp->col_event = malloc(prev->n_cols * sizeof *bp->col_event);
        if (!bp->col_event) return pk_fail_nomem("starting a part");
        memcpy(bp->col_event, prev->col_event, prev->n_cols * sizeof *bp->col_event);
        bp->n_cols = prev->n_cols;
    }
    pk_cg_part_rec *part = &ps->b->cg->parts[k];
    part->creator = ps->creator, part->cmd = ps->cmd, part->pid = ps->pid;
    if (!prev) ps->n_pos = 1, ps->pos_kind[0] = PK_POS_LINE;
    part->positions = 0;
    for (uint32_t i = 0; i < ps->n_pos; i++)
        part->positions |= ps->pos_kind[i];
    ps->b->cg->positions |= part->positions;
    ps->part = k, ps->bp = bp, ps->gen++;
    ps->have_part = 1, ps->part_body = 0, ps->part_closed = 0, ps->pending = 0;
    memset(ps->last, 0, sizeof ps->last);
    ps->ob = ps->fl = ps->fi = ps->fn = PK_NONE;
    ps->cob = ps->cfi = ps->jfi = ps->jfn = PK_NONE;
    ps->cfn_name = NULL;
    ps->acc_dirty = 1;
    return size_scratch(ps);
}

/* Header lines that begin a new part when the current one has data. */
static int starts_part(const char *k, size_t n)
{
    static const char *const keys[] = {"version", "creator", "pid",       "cmd",   "part",
                                       "thread",  "desc",    "positions", "events"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strlen(keys[i]) == n && memcmp(keys[i], k, n) == 0) return 1;
    return 0;
}

static int key_is(const char *k, size_t n, const char *name)
{
    return strlen(name) == n && memcmp(k, name, n) == 0;
}

/* A signed decimal or 0x-hex number as a double. */
static int number(const char **sp, const char *e, double *out)
{
    const char *s = cgp_skip_space(*sp, e);
    int neg = s < e && *s == '-';
    if (s < e && (*s == '-' || *s == '+')) s++;
    uint64_t v;
    if (!cgp_u64(&s, e, &v) || (s < e && !cgp_is_space(*s))) return 0;
    *out = neg ? -(double)v : (double)v;
    *sp = s;
    return 1;
}

static const char *intern(cg_parser *ps, const char *s, const char *e)
{
    size_t n = (size_t)(e - s);
    if (s == ps->known_name && n == ps->known_len)
        return pk_intern_hashed(&ps->p->strings, s, n, ps->known_hash);
    return pk_intern(&ps->p->strings, s, n);
}

/* v..e as text: in a file profkit wrote, with its escapes undone
 * (cgesc.h); other writers' names are taken byte for byte. */
static const char *intern_text(cg_parser *ps, const char *v, const char *e)
{
    size_t n = (size_t)(e - v);
    if (!(ps->named & CG_NAMED_PROFKIT) || !cg_has_escape(v, n)) return intern(ps, v, e);
    char *buf = malloc(n);
    if (!buf) return NULL;
    const char *r = pk_intern(&ps->p->strings, buf, cg_unescape(v, n, buf));
    free(buf);
    return r;
}

/* The value v..e without its surrounding blanks ("" if it is all blanks). */
static const char *intern_trimmed(cg_parser *ps, const char *v, const char *e)
{
    v = cgp_skip_space(v, e);
    return intern_text(ps, v, trim_end(v, e));
}

static pk_status header_positions(cg_parser *ps, const char *v, const char *e)
{
    uint32_t n = 0, mask = 0;
    while ((v = cgp_skip_space(v, e)) < e) {
        const char *t = v;
        while (v < e && *v != ' ' && *v != '\t')
            v++;
        size_t len = (size_t)(v - t);
        uint8_t kind = len == 5 && !memcmp(t, "instr", 5)  ? PK_POS_INSTR
                       : len == 2 && !memcmp(t, "bb", 2)   ? PK_POS_BB
                       : len == 4 && !memcmp(t, "line", 4) ? PK_POS_LINE
                                                           : 0;
        if (!kind) return cgp_bad(ps, "unknown position kind '%.*s'", (int)len, t);
        if (n == 3 || (mask & kind)) return cgp_bad(ps, "position kind '%.*s' twice", (int)len, t);
        ps->pos_kind[n++] = kind, mask |= kind;
    }
    if (!n) ps->pos_kind[n++] = PK_POS_LINE, mask = PK_POS_LINE;
    if (mask & PK_POS_BB)
        cgp_diag(ps, PK_SEV_WARNING, "bb-positions",
                 "'positions:' with 'bb': KCachegrind and callgrind_annotate read only 'instr' "
                 "and 'line', and misread these cost lines");
    ps->n_pos = n;
    ps->b->cg->parts[ps->part].positions = mask;
    ps->b->cg->positions |= mask;
    return PK_OK;
}

/* The file's first events: line orders the events (and so the metrics):
 * an event: line before it (valgrind writes "event: sysTime : ..." first)
 * must not make its event the first. Nothing refers to event numbers yet
 * then: no part has columns and no cost was read. */
static pk_status order_events(cg_parser *ps, uint32_t *cols, uint32_t n)
{
    pk_cg *cg = ps->b->cg;
    int in_order = 1;
    for (uint32_t i = 0; i < n && in_order; i++)
        in_order = cols[i] == i;
    if (ps->b->n_bparts != 1 || ps->bp->n_cols || ps->part_body || in_order) return PK_OK;
    pk_cg_event_rec *sorted = malloc(cg->n_events * sizeof *sorted);
    uint32_t *new_of = malloc(cg->n_events * sizeof *new_of), k = 0;
    if (!sorted || !new_of) {
        free(sorted), free(new_of);
        return pk_fail_nomem("reading events");
    }
    memset(new_of, 0xff, cg->n_events * sizeof *new_of);
    for (uint32_t i = 0; i < n; i++) /* an event listed twice (kept going past it) once */
        if (new_of[cols[i]] == PK_NONE) new_of[cols[i]] = k, sorted[k++] = cg->events[cols[i]];
    for (uint32_t i = 0; i < cg->n_events; i++)
        if (new_of[i] == PK_NONE) new_of[i] = k, sorted[k++] = cg->events[i];
    for (uint32_t i = 0; i < n; i++)
        cols[i] = new_of[cols[i]];
    memcpy(cg->events, sorted, cg->n_events * sizeof *sorted);
    free(sorted), free(new_of);
    return PK_OK;
}

static pk_status header_events(cg_parser *ps, const char *v, const char *e)
{
    uint32_t n = 0, cap = 0, *cols = NULL;
    pk_status st = PK_OK;
    while (!st && (v = cgp_skip_space(v, e)) < e) {
        const char *t = v;
        while (v < e && *v != ' ' && *v != '\t')
            v++;
        /* event: lines and formulas could not name it */
        if (memchr(t, '=', (size_t)(v - t)) || memchr(t, ':', (size_t)(v - t))) {
            st = cgp_bad(ps, "event name '%.*s' contains '=' or ':'", (int)(v - t), t);
            break;
        }
        const char *name = intern(ps, t, v);
        uint32_t ev;
        st = name ? cgb_event(ps->b, name, &ev) : pk_fail_nomem("reading events");
        for (uint32_t i = 0; i < n && !st; i++)
            if (cols[i] == ev) st = cgp_bad(ps, "event '%s' listed twice", name);
        size_t c = cap;
        if (!st && pk_vec_reserve((void **)&cols, &c, n + 1u, sizeof *cols))
            st = pk_fail_nomem("reading events");
        cap = (uint32_t)c;
        if (!st) cols[n++] = ev;
    }
    /* summary:/totals: values are stored by the columns of their time;
     * new columns would give them other meanings (and another length).
     * cgp_bad() returns PK_OK with PK_OPEN_KEEP_GOING: the line is skipped. */
    int refused = !st && (!n || ps->bp->summary || ps->bp->totals);
    if (refused)
        st = cgp_bad(ps, n ? "'events:' after 'summary:' or 'totals:' in the same part"
                           : "'events:' names no event");
    if (st || refused) {
        free(cols);
        return st ? st : size_scratch(ps); /* cgb_event() may have added events */
    }
    st = order_events(ps, cols, n);
    if (st) {
        free(cols);
        return st;
    }
    free(ps->bp->col_event);
    ps->bp->col_event = cols, ps->bp->n_cols = n;
    ps->named |= CG_NAMED_EVENTS;
    return size_scratch(ps);
}

/* "event: Name [= Ir + 2*Dr] [: long name]" */
static pk_status header_event(cg_parser *ps, const char *v, const char *e)
{
    v = cgp_skip_space(v, e);
    const char *t = v;
    while (v < e && *v != ' ' && *v != '\t' && *v != '=' && *v != ':')
        v++;
    if (v == t) return cgp_bad(ps, "'event:' without a name");
    const char *name = intern(ps, t, v), *formula = NULL, *lng = NULL;
    v = cgp_skip_space(v, e);
    if (v < e && *v == '=') {
        const char *f = cgp_skip_space(v + 1, e),
                   *fe = f < e ? memchr(f, ':', (size_t)(e - f)) : NULL;
        fe = fe ? fe : e;
        formula = intern_text(ps, f, trim_end(f, fe));
        v = fe;
    }
    if (v < e && *v == ':') {
        const char *l = cgp_skip_space(v + 1, e);
        lng = intern_text(ps, l, trim_end(l, e));
    }
    uint32_t ev;
    pk_status st = name ? cgb_event(ps->b, name, &ev) : pk_fail_nomem("reading events");
    if (st) return st;
    if (lng && *lng) ps->b->cg->events[ev].long_name = lng;
    if (formula) ps->b->cg->events[ev].formula = formula;
    return size_scratch(ps);
}

static pk_status header_numbers(cg_parser *ps, const char *v, const char *e, int totals)
{
    cgb_part *bp = ps->bp;
    if (!bp->n_cols) return cgp_bad(ps, "'%s:' before 'events:'", totals ? "totals" : "summary");
    double **dst = totals ? &bp->totals : &bp->summary;
    if (!*dst) *dst = calloc(bp->n_cols, sizeof **dst);
    if (!*dst) return pk_fail_nomem("reading totals");
    memset(*dst, 0, bp->n_cols * sizeof **dst);
    uint32_t i = 0;
    for (; (v = cgp_skip_space(v, e)) < e; i++) {
        if (i >= bp->n_cols) return cgp_bad(ps, "more values than events");
        if (!number(&v, e, &(*dst)[i])) return cgp_bad(ps, "value %u is not a number", i + 1);
    }
    pk_cg_part_rec *part = &ps->b->cg->parts[ps->part];
    if (totals)
        part->totals_line = ps->line_no, ps->part_closed = 1;
    else
        part->summary_line = ps->line_no;
    return PK_OK;
}

/* "Name of EVENT: metric name" and "Unit of EVENT: unit": what profkit
 * writes of a metric that "events:" cannot say. */
static pk_status event_metadata(cg_parser *ps, const char *d)
{
    int name = strncmp(d, "Name of ", 8) == 0, unit = strncmp(d, "Unit of ", 8) == 0;
    const char *ev = d + 8, *colon = strstr(ev, ": ");
    if (!(name || unit) || !colon || colon == ev) return PK_OK;
    const char *ename = pk_intern(&ps->p->strings, ev, (size_t)(colon - ev));
    const char *value = pk_intern_cstr(&ps->p->strings, colon + 2);
    uint32_t k;
    pk_status st = ename && value ? cgb_event(ps->b, ename, &k) : pk_fail_nomem("reading desc:");
    if (st) return st;
    if (name)
        ps->b->cg->events[k].metric_name = value;
    else
        ps->b->cg->events[k].unit = value;
    return size_scratch(ps);
}

static pk_status header_desc(cg_parser *ps, const char *v, const char *e)
{
    pk_cg_part_rec *part = &ps->b->cg->parts[ps->part];
    const char *d = intern_trimmed(ps, v, e);
    if (d && (ps->named & CG_NAMED_PROFKIT)) {
        pk_status st = event_metadata(ps, d);
        if (st) return st;
    }
    const char **a = realloc(part->descs, (part->n_descs + 1u) * sizeof *a);
    if (!d || !a) {
        if (a) part->descs = a;
        return pk_fail_nomem("reading desc: lines");
    }
    part->descs = a;
    a[part->n_descs++] = d;
    return PK_OK;
}

static pk_status header_uint(cg_parser *ps, const char *key, const char *v, const char *e,
                             uint64_t *out)
{
    double d;
    if (!number(&v, e, &d) || d < 0 || cgp_skip_space(v, e) != e)
        return cgp_bad(ps, "'%s:' is not a number", key);
    *out = (uint64_t)d;
    return PK_OK;
}

static pk_status header_value(cg_parser *ps, const char *k, size_t n, const char *v, const char *e)
{
    pk_cg_part_rec *part = &ps->b->cg->parts[ps->part];
    uint64_t u = 0;
    pk_status st = PK_OK;
    if (key_is(k, n, "creator")) {
        ps->creator = part->creator = intern_trimmed(ps, v, e);
        int ours = ps->creator && strncmp(ps->creator, "profkit", 7) == 0 &&
                   (ps->creator[7] == ' ' || !ps->creator[7]);
        ps->named = ours ? ps->named | CG_NAMED_PROFKIT : ps->named & ~CG_NAMED_PROFKIT;
    } else if (key_is(k, n, "cmd")) {
        ps->cmd = part->cmd = intern_trimmed(ps, v, e);
    } else if (key_is(k, n, "pid")) {
        if (!(st = header_uint(ps, "pid", v, e, &u))) ps->pid = part->pid = u;
    } else if (key_is(k, n, "part")) {
        if (!(st = header_uint(ps, "part", v, e, &u)))
            part->number = u > UINT32_MAX ? UINT32_MAX : (uint32_t)u;
    } else if (key_is(k, n, "thread")) {
        if (!(st = header_uint(ps, "thread", v, e, &u)))
            part->thread = u > UINT32_MAX ? UINT32_MAX : (uint32_t)u;
    } else if (key_is(k, n, "version")) {
        if (!(st = header_uint(ps, "version", v, e, &u)) && u != 1)
            cgp_diag(ps, PK_SEV_WARNING, "unknown-version",
                     "format version %llu (profkit knows version 1); read as version 1",
                     (unsigned long long)u);
    } else if (key_is(k, n, "desc")) {
        st = header_desc(ps, v, e);
    } else if (key_is(k, n, "positions")) {
        st = header_positions(ps, v, e);
    } else if (key_is(k, n, "events")) {
        st = header_events(ps, v, e);
    } else if (key_is(k, n, "event")) {
        st = header_event(ps, v, e);
    } else if (key_is(k, n, "summary") || key_is(k, n, "totals")) {
        st = header_numbers(ps, v, e, key_is(k, n, "totals"));
    } else {
        cgp_diag(ps, PK_SEV_NOTE, "unknown-header", "header '%.*s:' ignored", (int)n, k);
    }
    return st;
}

pk_status cgp_header(cg_parser *ps, const char *k, size_t n, const char *v, const char *e)
{
    int new_part = !ps->have_part || (starts_part(k, n) && (ps->part_body || ps->part_closed));
    if (new_part) {
        pk_status st = cgp_start_part(ps);
        if (st) return st;
    } else if ((ps->named & CG_NAMED_EVENTS) && !ps->part_body && !key_is(k, n, "summary") &&
               !key_is(k, n, "totals")) {
        cgp_diag(ps, PK_SEV_WARNING, "header-after-events",
                 "'%.*s:' after 'events:': callgrind_annotate takes 'events:' for the last "
                 "header line and warns that this line is malformed",
                 (int)n, k);
    }
    return header_value(ps, k, n, v, e);
}

/* ------------------------------------------------------------------ */
/* Names                                                              */
/* ------------------------------------------------------------------ */

/* fl fi fe fn ob, and with a c or j in front: asked on every key line,
 * so decided from the letters rather than by comparing strings. */
static int name_kind(const char *k, size_t n)
{
    if (n == 3) {
        if (k[0] != 'c' && k[0] != 'j') return -1;
        int kind = name_kind(k + 1, 2);
        if (k[0] == 'j')
            return kind == CG_NAME_FILE && k[2] == 'i' ? kind : kind == CG_NAME_FN ? kind : -1;
        return kind == CG_NAME_FILE && k[2] == 'e' ? -1 : kind; /* no cfe= */
    }
    if (n != 2) return -1;
    if (k[0] == 'f')
        return k[1] == 'l' || k[1] == 'i' || k[1] == 'e' ? CG_NAME_FILE
               : k[1] == 'n'                             ? CG_NAME_FN
                                                         : -1;
    return k[0] == 'o' && k[1] == 'b' ? CG_NAME_OBJ : -1;
}

int cgp_is_name_key(const char *key, size_t klen)
{
    return name_kind(key, klen) >= 0;
}

/* Room for ids below cap in the functions' per-id answers (none yet). */
static int grow_fn_memo(cg_names *t, uint32_t cap)
{
    cg_fn_memo *m = realloc(t->fn_memo, cap * sizeof *m);
    if (!m) return 0;
    for (uint32_t i = t->cap; i < cap; i++)
        m[i].fn = PK_NONE;
    t->fn_memo = m;
    return 1;
}

static pk_status define_name(cg_parser *ps, int kind, uint32_t id, const char *name)
{
    cg_names *t = &ps->names[kind];
    if (id >= t->cap) {
        uint32_t cap = t->cap ? t->cap : 64;
        while (cap <= id)
            cap *= 2;
        const char **nm = realloc(t->name, cap * sizeof *nm);
        if (nm) t->name = nm;
        uint32_t *g = realloc(t->gen, cap * sizeof *g);
        if (g) t->gen = g;
        if (!nm || !g || (kind == CG_NAME_FN && !grow_fn_memo(t, cap)))
            return pk_fail_nomem("reading names");
        memset(t->name + t->cap, 0, (cap - t->cap) * sizeof *nm);
        memset(t->gen + t->cap, 0, (cap - t->cap) * sizeof *g);
        t->cap = cap;
    }
    if (t->gen[id] == ps->gen && t->name[id] != name)
        cgp_diag(ps, PK_SEV_WARNING, "id-redefined",
                 "compressed id (%u) redefined from '%s' to '%s'", id, t->name[id], name);
    if (kind == CG_NAME_FN && t->name[id] != name) t->fn_memo[id].fn = PK_NONE; /* another name */
    t->name[id] = name, t->gen[id] = ps->gen;
    return PK_OK;
}

static pk_status lookup_name(cg_parser *ps, int kind, uint32_t id, const char **out)
{
    cg_names *t = &ps->names[kind];
    static const char *const what[] = {"file", "function", "object"};
    if (id < t->cap && t->name[id]) {
        if (t->gen[id] != ps->gen)
            cgp_diag(ps, PK_SEV_WARNING, "undefined-id",
                     "%s id (%u) is not defined in this part; using '%s' from an earlier part",
                     what[kind], id, t->name[id]);
        *out = t->name[id];
        return PK_OK;
    }
    cgp_diag(ps, PK_SEV_WARNING, "undefined-id", "%s id (%u) is used but never defined", what[kind],
             id);
    char buf[24];
    int len = snprintf(buf, sizeof buf, "(%u)", id);
    *out = pk_intern(&ps->p->strings, buf, (size_t)len);
    return *out ? define_name(ps, kind, id, *out) : pk_fail_nomem("reading names");
}

/* "(id) name", "(id)" or "name"; *id_out: the id, or PK_NONE. */
static pk_status parse_name(cg_parser *ps, int kind, const char *v, const char *e, const char **out,
                            uint32_t *id_out)
{
    *id_out = PK_NONE;
    if (e - v >= 2 && v[0] == '(' && (unsigned)(v[1] - '0') < 10) {
        uint32_t id = 0;
        const char *s = v + 1;
        for (; s < e && (unsigned)(*s - '0') < 10; s++) {
            id = id * 10 + (uint32_t)(*s - '0');
            if (id >= MAX_NAME_ID) return cgp_bad(ps, "compressed id too large");
        }
        if (s >= e || *s != ')') return cgp_bad(ps, "compressed name without ')'");
        s = cgp_skip_space(s + 1, e);
        *id_out = id;
        if (s == e) return lookup_name(ps, kind, id, out);
        *out = intern_text(ps, s, e); /* one_line() refused NUL bytes */
        return *out ? define_name(ps, kind, id, *out) : pk_fail_nomem("reading names");
    }
    v = cgp_skip_space(v, e); /* as after "(id)": blanks never start a name */
    *out = intern_text(ps, v, e);
    return *out ? PK_OK : pk_fail_nomem("reading names");
}

/* A function's costs and calls name it by id over and over; the
 * builder's table of functions (cc1: 58,000) missed the cache each time. */
pk_status cgp_function(cg_parser *ps, const char *name, uint32_t id, uint32_t ob, uint32_t fl,
                       uint32_t *out)
{
    cg_names *t = &ps->names[CG_NAME_FN];
    cg_fn_memo *m = id < t->cap && t->fn_memo && t->name[id] == name ? &t->fn_memo[id] : NULL;
    if (m && m->fn != PK_NONE && m->ob == ob && m->fl == fl) return *out = m->fn, PK_OK;
    pk_status st = cgb_function(ps->b, name, ob, fl, out);
    if (!st && m) *m = (cg_fn_memo){*out, ob, fl};
    return st;
}

static pk_status set_function(cg_parser *ps, const char *name, uint32_t id)
{
    ps->fi = ps->fl;
    ps->acc_dirty = 1;
    return cgp_function(ps, name, id, ps->ob, ps->fl, &ps->fn);
}

/* The name keys, as one code: the two or three letters packed. */
#define KEY2(a, b)    ((uint32_t)(unsigned char)(a) << 8 | (unsigned char)(b))
#define KEY3(a, b, c) (KEY2(a, b) << 8 | (unsigned char)(c))

static uint32_t key_code(const char *k, size_t n)
{
    return n == 2 ? KEY2(k[0], k[1]) : n == 3 ? KEY3(k[0], k[1], k[2]) : 0;
}

/* What callgrind_annotate chokes on: a function before any file, a
 * fi=/fe= before any function. */
static void check_order(cg_parser *ps, uint32_t key, const char *k, size_t n)
{
    if (key == KEY2('f', 'l')) ps->named |= CG_NAMED_FL;
    if (key == KEY2('f', 'n') && !(ps->named & CG_NAMED_FL)) {
        cgp_diag(ps, PK_SEV_WARNING, "function-without-file",
                 "'fn=' before any 'fl=': callgrind_annotate warns 'Use of uninitialized value "
                 "$curr_file' and KCachegrind shows the function without a file");
        ps->named |= CG_NAMED_FL; /* said once */
    }
    if ((key == KEY2('f', 'i') || key == KEY2('f', 'e')) && !(ps->named & CG_NAMED_FN))
        cgp_diag(ps, PK_SEV_WARNING, "file-before-function",
                 "'%.*s=' before the first 'fn=': callgrind_annotate stops there ('Unexpected "
                 "fi/fe line')",
                 (int)n, k);
    if (key == KEY2('f', 'n')) ps->named |= CG_NAMED_FN;
}

/* The name (or unknown: idx PK_NONE) goes where its key says. */
static pk_status place_name(cg_parser *ps, uint32_t key, const char *name, uint32_t idx,
                            uint32_t id)
{
    switch (key) {
    case KEY2('o', 'b'):
        ps->ob = idx;
        return PK_OK;
    case KEY2('f', 'i'):
        if (ps->fn != PK_NONE) { /* a file before any fn= (lsprof writers use fi=) is fl= */
            ps->fi = idx, ps->acc_dirty = 1;
            return PK_OK;
        }
        /* fall through */
    case KEY2('f', 'l'):
        ps->fl = ps->fi = idx;
        ps->fn = PK_NONE;
        ps->acc_dirty = 1;
        return PK_OK;
    case KEY2('f', 'e'):
        ps->fi = idx, ps->acc_dirty = 1;
        return PK_OK;
    case KEY2('f', 'n'):
        return set_function(ps, name, id);
    case KEY3('c', 'o', 'b'):
        ps->cob = idx, ps->named |= CG_NAMED_COB;
        return PK_OK;
    case KEY3('c', 'f', 'i'):
    case KEY3('c', 'f', 'l'):
        ps->cfi = idx, ps->named |= CG_NAMED_CFI;
        return PK_OK;
    case KEY3('c', 'f', 'n'):
        ps->cfn_name = name, ps->cfn_id = id;
        return PK_OK;
    case KEY3('j', 'f', 'i'):
        ps->jfi = idx;
        return PK_OK;
    case KEY3('j', 'f', 'n'):
        return cgp_function(ps, name, id, ps->ob, ps->jfi != PK_NONE ? ps->jfi : ps->fl, &ps->jfn);
    default:
        return PK_OK;
    }
}

pk_status cgp_name_line(cg_parser *ps, const char *k, size_t n, const char *v, const char *e)
{
    int kind = name_kind(k, n);
    uint32_t key = key_code(k, n);
    const char *name = NULL;
    check_order(ps, key, k, n);
    uint32_t id;
    pk_status st = parse_name(ps, kind, v, e, &name, &id);
    if (st || !name) return st;
    uint32_t idx = PK_NONE;
    /* "???" is how callgrind (and our writer) names an unknown file or
     * object: it stays unknown rather than becoming a file called "???" */
    int unknown =
        kind != CG_NAME_FN && (ps->unknown ? name == ps->unknown : strcmp(name, "???") == 0);
    if (kind == CG_NAME_FILE && !unknown) st = cgb_file(ps->b, name, &idx);
    if (kind == CG_NAME_OBJ && !unknown) st = cgb_module(ps->b, name, &idx);
    return st ? st : place_name(ps, key, name, idx, id);
}

void cgp_callee_place(cg_parser *ps, uint64_t count, uint32_t *obj, uint32_t *file)
{
    /* cob=??? and cfi=??? say "unknown", not "as the caller's" */
    *obj = ps->named & CG_NAMED_COB ? ps->cob : ps->ob;
    *file = ps->named & CG_NAMED_CFI ? ps->cfi : ps->fi;
    if (count == 0)
        cgp_diag(ps, PK_SEV_WARNING, "zero-call-count",
                 "'calls=0' (a call that began before this part): callgrind_annotate counts its "
                 "inclusive cost as the caller's self cost");
}

void cgp_callee_done(cg_parser *ps)
{
    ps->cob = ps->cfi = PK_NONE;
    ps->cfn_name = NULL;
    ps->named &= ~(CG_NAMED_COB | CG_NAMED_CFI);
}
