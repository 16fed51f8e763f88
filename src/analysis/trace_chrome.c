/*
 * analysis/trace_chrome.c — a profile's traces as a Chrome Trace Event
 * file (profkit/trace.h, docs/conversion.md), streamed: each selected
 * trace is scanned once (trace_scan.c) and every change of call path
 * becomes "E" events for the frames that end, innermost first, then "B"
 * events for those that begin, so each thread's events nest perfectly
 * (Perfetto's rule). Memory is the profile's contexts and one stack of
 * frames, never the samples.
 *
 * Each frame's text after the timestamp (name, and for "B" its module,
 * file and line) is made once per function and kept, so an event costs
 * a timestamp's digits and a few copies. Counting what would be written
 * goes through the same code with the stream left out, so the estimate
 * is exactly the bytes an export writes.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "trace_chrome.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/gzip_out.h"
#include "util/json_string.h"

#define SINK_BUF  (64u << 10)
#define LIMIT_256 (256ull << 20)

/* ---- the sink ---- */

static void flush(tc_sink *s)
{
    if (s->out && s->len && !s->failed && fwrite(s->buf, 1, s->len, s->out) != s->len)
        s->failed = 1;
    s->len = 0;
}

void tc_put(tc_sink *s, const char *p, size_t n)
{
    s->bytes += n;
    if (!s->out) return;
    if (s->len + n > SINK_BUF) flush(s);
    if (n > SINK_BUF) {
        if (!s->failed && fwrite(p, 1, n, s->out) != n) s->failed = 1;
        return;
    }
    memcpy(s->buf + s->len, p, n);
    s->len += n;
}

static void emit_escaped(void *user, const char *bytes, size_t n)
{
    tc_put(user, bytes, n);
}

void tc_put_string(tc_sink *s, const char *str)
{
    if (!str) return tc_put(s, "null", 4);
    tc_put(s, "\"", 1);
    pk_json_escape(str, strlen(str), emit_escaped, s);
    tc_put(s, "\"", 1);
}

void tc_separator(tc_sink *s)
{
    if (!s->first) tc_put(s, ",\n", 2);
    s->first = 0;
}

/* ---- per-frame text ---- */

typedef struct chrome {
    const pk_profile *p;
    ts_select s;
    ts_paths paths;
    ts_keymap km;
    tc_paths cp;
    tc_names names;
    pk_buf frag;               /* per dense id: the "B" suffix, then the "E" suffix */
    size_t *frag_at;           /* per dense id: where its text starts */
    uint32_t *frag_b, *frag_e; /* their lengths */
    size_t n_frag, cap_frag;
    uint64_t origin;
    pk_trace_facts *facts; /* the caller's cache, or NULL */
    tc_sink out;
    /* the thread being written */
    char pre_b[80], pre_e[80];
    size_t pre_b_len, pre_e_len;
    uint32_t *stack; /* path nodes of the open frames, outermost first */
    uint32_t *chain; /* scratch: the nodes of a new path's new frames, innermost first */
    uint32_t depth;
    uint32_t leaf; /* path node of the innermost open frame, UINT32_MAX: none open */
    uint64_t open_until;
    int nomem;
} chrome;

static void frag_escaped(void *user, const char *bytes, size_t n)
{
    pk_buf_bytes(user, bytes, n);
}

static void frag_string(pk_buf *b, const char *s)
{
    if (!s) return (void)pk_buf_bytes(b, "null", 4);
    pk_buf_bytes(b, "\"", 1);
    pk_json_escape(s, strlen(s), frag_escaped, b);
    pk_buf_bytes(b, "\"", 1);
}

/* The texts of dense id `id` (frame context f), made when first needed. */
static int frame_text(chrome *c, int32_t id, pk_index f)
{
    if ((size_t)id < c->n_frag) return 1;
    if (c->n_frag == c->cap_frag) {
        size_t cap = c->cap_frag ? 2 * c->cap_frag : 256;
        size_t *at = realloc(c->frag_at, cap * sizeof *at);
        if (at) c->frag_at = at;
        uint32_t *b = at ? realloc(c->frag_b, cap * sizeof *b) : NULL;
        if (b) c->frag_b = b;
        uint32_t *e = b ? realloc(c->frag_e, cap * sizeof *e) : NULL;
        if (!e) return c->nomem = 1, 0;
        c->frag_e = e, c->cap_frag = cap;
    }
    char small[512], *name = small, num[24];
    size_t need = pk_context_name(c->p, f, small, sizeof small);
    if (need >= sizeof small && (name = malloc(need + 1)) != NULL)
        pk_context_name(c->p, f, name, need + 1);
    const char *module, *file;
    uint32_t line;
    ts_frame_place(c->p, f, &module, &file, &line);
    pk_buf nm = {0};
    pk_buf_bytes(&nm, ",\"name\":", 8), frag_string(&nm, name ? name : small);
    size_t at = c->frag.len;
    pk_buf_bytes(&c->frag, nm.data, nm.len);
    pk_buf_bytes(&c->frag, ",\"args\":{\"module\":", 18), frag_string(&c->frag, module);
    pk_buf_bytes(&c->frag, ",\"file\":", 8), frag_string(&c->frag, file);
    pk_buf_bytes(&c->frag, num, (size_t)snprintf(num, sizeof num, ",\"line\":%u}}", line));
    size_t b_end = c->frag.len;
    pk_buf_bytes(&c->frag, nm.data, nm.len);
    pk_buf_bytes(&c->frag, "}", 1);
    if (nm.failed) c->frag.failed = 1;
    pk_buf_free(&nm);
    if (name != small) free(name);
    if (c->frag.failed) return c->nomem = 1, 0;
    c->frag_at[id] = at, c->frag_b[id] = (uint32_t)(b_end - at);
    c->frag_e[id] = (uint32_t)(c->frag.len - b_end);
    c->n_frag++;
    return 1;
}

/* ---- events ---- */

/* Microseconds after the origin with three decimals: exact nanoseconds. */
static size_t ts_text(char *b, uint64_t rel)
{
    char tmp[24];
    size_t n = 0;
    uint64_t us = rel / 1000;
    do
        tmp[n++] = (char)('0' + us % 10);
    while (us /= 10);
    for (size_t i = 0; i < n; i++)
        b[i] = tmp[n - 1 - i];
    unsigned ns = (unsigned)(rel % 1000);
    b[n] = '.', b[n + 1] = (char)('0' + ns / 100), b[n + 2] = (char)('0' + ns / 10 % 10);
    b[n + 3] = (char)('0' + ns % 10);
    return n + 4;
}

static void event(chrome *c, int begin, uint32_t node, uint64_t t)
{
    char ts[32];
    int32_t id = c->cp.text[node];
    if (id < 0) { /* the node's function: its dense id, and its texts made */
        pk_index f = c->cp.frame[node];
        id = ts_keymap_get(&c->km, &c->paths, f);
        if (id < 0 || !frame_text(c, id, f)) return (void)(c->nomem = 1);
        c->cp.text[node] = id;
    }
    uint64_t before = c->out.bytes;
    tc_separator(&c->out);
    tc_put(&c->out, begin ? c->pre_b : c->pre_e, begin ? c->pre_b_len : c->pre_e_len);
    tc_put(&c->out, ts, ts_text(ts, t - c->origin));
    const char *text = (const char *)c->frag.data + c->frag_at[id];
    if (begin)
        tc_put(&c->out, text, c->frag_b[id]);
    else
        tc_put(&c->out, text + c->frag_b[id], c->frag_e[id]);
    c->out.events++;
    pk_trace_estimate *e = c->out.est;
    if (e && t >= c->out.from && t < c->out.to) {
        __extension__ unsigned __int128 k = (unsigned __int128)(t - c->out.from) *
                                            PK_TRACE_ESTIMATE_BINS / (c->out.to - c->out.from);
        e->bins[(size_t)k] += c->out.bytes - before;
    }
}

/* Make the open frames those of frame context f (PK_NONE: none) at t:
 * up from f's path node to the first node the stack holds at its depth,
 * so the work is the frames that change. */
static void go_to(chrome *c, pk_index f, uint64_t t)
{
    uint32_t node = f == PK_NONE ? UINT32_MAX : c->cp.of[f], n = 0;
    if (node == c->leaf || c->nomem) return;
    uint32_t x = node;
    while (x != UINT32_MAX && !(c->cp.depth[x] <= c->depth && c->stack[c->cp.depth[x] - 1] == x))
        c->chain[n++] = x, x = c->cp.parent[x];
    uint32_t common = x == UINT32_MAX ? 0 : c->cp.depth[x];
    for (uint32_t d = c->depth; d-- > common;)
        event(c, 0, c->stack[d], t);
    for (uint32_t i = 0; i < n; i++)
        event(c, 1, c->stack[common + i] = c->chain[n - 1 - i], t);
    c->depth = common + n, c->leaf = node;
}

static void on_interval(void *user, uint64_t t0, uint64_t t1, int kind, pk_index ctx, uint64_t full)
{
    chrome *c = user;
    (void)full;
    if (kind != TS_RUN) return go_to(c, PK_NONE, t0);
    go_to(c, c->paths.frame[ctx], t0);
    c->open_until = t1;
}

/* ---- threads and the whole file ---- */

static pk_status thread_events(chrome *c, size_t i)
{
    const tc_thread *th = &c->names.threads[i];
    tc_write_thread(&c->out, &c->names, i);
    c->pre_b_len = (size_t)snprintf(
        c->pre_b, sizeof c->pre_b, "{\"ph\":\"B\",\"pid\":%u,\"tid\":%u,\"ts\":", th->pid, th->tid);
    c->pre_e_len = (size_t)snprintf(
        c->pre_e, sizeof c->pre_e, "{\"ph\":\"E\",\"pid\":%u,\"tid\":%u,\"ts\":", th->pid, th->tid);
    pk_trace_facts f;
    pk_status st = ts_facts(c->p, c->s.traces[i], c->facts, &f);
    c->depth = 0, c->leaf = UINT32_MAX;
    if (!st) st = ts_scan(&c->paths, c->s.traces[i], &f, c->s.from, c->s.to, on_interval, c, NULL);
    go_to(c, PK_NONE, c->open_until); /* the last frames end with the last running sample */
    if (!st && c->nomem) st = pk_fail_nomem("exporting a trace");
    if (!st && c->out.failed) st = pk_fail(PK_ERR_IO, "writing the trace failed");
    return st;
}

static void teardown(chrome *c)
{
    ts_select_free(&c->s);
    ts_paths_free(&c->paths);
    ts_keymap_free(&c->km);
    tc_paths_free(&c->cp);
    tc_names_free(&c->names);
    pk_buf_free(&c->frag);
    free(c->frag_at), free(c->frag_b), free(c->frag_e);
    free(c->stack), free(c->chain), free(c->out.buf);
}

static pk_status setup(chrome *c, const pk_profile *p, const pk_trace_selection *sel,
                       const pk_trace_export_options *o)
{
    c->p = p, c->leaf = UINT32_MAX, c->out.first = 1, c->facts = o ? o->facts : NULL;
    c->out.buf = malloc(SINK_BUF);
    if (!c->out.buf) return pk_fail_nomem("exporting a trace");
    pk_status st = ts_select_resolve(p, sel, &c->s);
    if (!st) st = ts_paths_build(p, sel ? sel->focus : NULL, sel ? sel->hide : NULL, &c->paths);
    if (!st) st = ts_keymap_init(&c->km, c->paths.n_keys);
    if (!st) st = tc_paths_build(&c->paths, &c->cp);
    if (!st) st = tc_names_make(p, &c->s, &c->names);
    if (st) return st;
    size_t depth = c->paths.max_depth ? c->paths.max_depth : 1;
    c->stack = malloc(depth * sizeof *c->stack);
    c->chain = malloc(depth * sizeof *c->chain);
    if (!c->stack || !c->chain) return pk_fail_nomem("exporting a trace");
    c->origin = c->s.from < c->s.origin ? c->s.from : c->s.origin;
    c->out.from = c->s.from, c->out.to = c->s.to;
    return PK_OK;
}

static void header(tc_sink *s)
{
    tc_put(s, "{\"traceEvents\":[\n", 17);
    s->first = 1;
}

static pk_status run(chrome *c, const pk_trace_selection *sel, const pk_trace_export_options *o)
{
    header(&c->out);
    tc_write_processes(&c->out, &c->names);
    pk_status st = PK_OK;
    for (size_t i = 0; !st && i < c->s.n_traces; i++)
        st = thread_events(c, i);
    if (!st) st = tc_write_footer(&c->out, c->p, &c->s, sel, o, c->origin);
    flush(&c->out);
    if (!st && c->out.failed) st = pk_fail(PK_ERR_IO, "writing the trace failed");
    return st;
}

/* A profile without traces: a valid file with no events, saying so. */
static pk_status empty(tc_sink *s, const pk_profile *p, const pk_trace_selection *sel,
                       const pk_trace_export_options *o)
{
    header(s);
    pk_status st = tc_write_footer(s, p, NULL, sel, o, 0);
    flush(s);
    return !st && s->failed ? pk_fail(PK_ERR_IO, "writing the trace failed") : st;
}

static pk_status write_all(FILE *out, const pk_profile *p, const pk_trace_selection *sel,
                           const pk_trace_export_options *o, pk_trace_export_stats *stats)
{
    chrome c = {0};
    c.out.out = out;
    pk_status st = pk_trace_count(p) ? setup(&c, p, sel, o) : PK_OK;
    if (!st && !pk_trace_count(p))
        st = (c.out.buf = malloc(SINK_BUF)) ? empty(&c.out, p, sel, o)
                                            : pk_fail_nomem("exporting a trace");
    else if (!st)
        st = run(&c, sel, o);
    if (stats)
        *stats = (pk_trace_export_stats){c.out.bytes, c.out.events, c.names.n_threads,
                                         c.names.n_processes};
    teardown(&c);
    return st;
}

pk_status pk_trace_export_chrome(FILE *out, const pk_profile *p, const pk_trace_selection *sel,
                                 const pk_trace_export_options *o, pk_trace_export_stats *stats)
{
    if (!out || !p) return pk_fail(PK_ERR_INVALID_ARG, "pk_trace_export_chrome: NULL argument");
    pk_gzout *gz = NULL;
    FILE *dst = o && o->gzip ? pk_gzout_open(out, 6, &gz) : out;
    if (!dst) return PK_ERR_NOMEM;
    pk_status st = write_all(dst, p, sel, o, stats);
    if (gz) {
        pk_status zs = pk_gzout_close(dst, gz);
        if (!st) st = zs;
    }
    if (!st) st = pk_profile_intact(p); /* nothing made from a file that shrank */
    return st;
}

pk_status pk_trace_export_estimate(const pk_profile *p, const pk_trace_selection *sel,
                                   const pk_trace_export_options *o, pk_trace_estimate *e)
{
    if (!p || !e) return pk_fail(PK_ERR_INVALID_ARG, "pk_trace_export_estimate: NULL argument");
    memset(e, 0, sizeof *e);
    chrome c = {0};
    c.out.est = e;
    pk_status st = pk_trace_count(p) ? setup(&c, p, sel, o) : PK_OK;
    if (!st && pk_trace_count(p)) st = run(&c, sel, o);
    e->threads = c.names.n_threads;
    uint64_t limit = o && o->limit ? o->limit : LIMIT_256, fixed = c.out.bytes;
    e->bytes = c.out.bytes, e->events = c.out.events;
    e->from_ns = c.s.from, e->to_ns = e->fits_to_ns = c.s.to;
    for (size_t b = 0; b < PK_TRACE_ESTIMATE_BINS; b++)
        fixed -= e->bins[b];
    e->over_limit = e->bytes > limit;
    uint64_t sum = fixed;
    for (size_t b = 0; e->over_limit && b < PK_TRACE_ESTIMATE_BINS; b++) {
        if ((sum += e->bins[b]) <= limit) continue;
        __extension__ unsigned __int128 span = (unsigned __int128)(e->to_ns - e->from_ns) * b;
        e->fits_to_ns = e->from_ns + (uint64_t)(span / PK_TRACE_ESTIMATE_BINS);
        break;
    }
    teardown(&c);
    return st;
}

/* The longest of the profile's function names, module and file paths. */
static size_t longest_names(const pk_profile *p)
{
    size_t most = 0, n;
    for (pk_index i = 0; i < pk_function_count(p); i++) {
        pk_function f;
        if (!pk_function_get(p, i, &f) && f.name && (n = strlen(f.name)) > most) most = n;
    }
    size_t mods = 0, files = 0;
    for (pk_index i = 0; i < pk_module_count(p); i++) {
        pk_module m;
        if (!pk_module_get(p, i, &m) && m.path && (n = strlen(m.path)) > mods) mods = n;
    }
    for (pk_index i = 0; i < pk_file_count(p); i++) {
        pk_file f;
        if (!pk_file_get(p, i, &f) && f.path && (n = strlen(f.path)) > files) files = n;
    }
    return (most > mods ? most : mods) + mods + files;
}

pk_status pk_trace_export_bound(const pk_profile *p, const pk_trace_selection *sel, uint64_t *bytes)
{
    if (!p || !bytes) return pk_fail(PK_ERR_INVALID_ARG, "pk_trace_export_bound: NULL argument");
    *bytes = 4096;
    if (!pk_trace_count(p)) return PK_OK;
    ts_select s;
    ts_paths paths;
    pk_status st = ts_select_resolve(p, sel, &s);
    if (!st) st = ts_paths_build(p, NULL, NULL, &paths);
    if (st) return ts_select_free(&s), st;
    /* an event: its fixed text, a timestamp, a name and place escaped (6 bytes a byte at most) */
    double event = 120.0 + 6.0 * (double)longest_names(p), total = 4096;
    for (size_t i = 0; i < s.n_traces; i++) {
        pk_trace tr;
        if (pk_trace_get(p, s.traces[i], &tr)) continue;
        total += 600 + 12.0 * (double)pk_location_name(p, tr.location, NULL, 0);
        total += (double)tr.n_samples * 2.0 * paths.max_depth * event;
    }
    *bytes = total >= 1.8e19 ? UINT64_MAX : (uint64_t)total;
    ts_paths_free(&paths);
    ts_select_free(&s);
    return PK_OK;
}
