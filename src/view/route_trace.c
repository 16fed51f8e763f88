/*
 * view/route_trace.c — /api/trace: the traces of a range of locations,
 * each downsampled to `width` pixels between `begin` and `end`: within a
 * pixel the function (a sample's context's enclosing function) with the
 * most time there wins, and runs of pixels with the same winner become
 * one span. Work is the samples inside the range plus the pixels; the
 * first sample is found by bisection, never by reading from the start.
 */
#include <stdlib.h>
#include <string.h>

#include "view/view.h"

#define CHUNK 4096

static const char *const trace_params[] = {"begin", "end", "width", "first", "count", NULL};

typedef struct pixels {
    const pk_profile *p;
    const pk_index *ctx_function;
    pk_json *j;
    size_t n_contexts;
    int *rid;            /* function -> response id, -1 unassigned */
    pk_index *functions; /* response id -> function */
    size_t n_functions;
    double *acc;     /* time per slot (0 idle, 1 + response id) in the pixel */
    size_t *touched; /* slots with time in the pixel */
    size_t n_touched;
    uint64_t begin, end;
    unsigned width;
    unsigned cur, last; /* pixel being filled; the last one closed */
    size_t run;         /* slot of the open span */
    unsigned run_from;
    int open;
} pixels;

static pk_index *context_functions(const pk_profile *p)
{
    size_t n = pk_context_count(p);
    pk_index *f = malloc((n ? n : 1) * sizeof *f);
    for (size_t i = 0; f && i < n; i++) { /* parents come first: one pass */
        pk_context c;
        pk_context_get(p, (pk_index)i, &c);
        f[i] = c.function != PK_NONE                 ? c.function
               : c.parent != PK_NONE && c.parent < i ? f[c.parent]
                                                     : PK_NONE;
    }
    return f;
}

/* Slot of a sample's context in acc: 0 idle, else 1 + its function's
 * response id. */
static size_t slot_of(pixels *px, pk_index ctx)
{
    pk_index fn = ctx == PK_NONE || ctx >= px->n_contexts ? PK_NONE : px->ctx_function[ctx];
    if (fn == PK_NONE) return 0;
    if (px->rid[fn] < 0) {
        px->rid[fn] = (int)px->n_functions;
        px->functions[px->n_functions++] = fn;
    }
    return (size_t)px->rid[fn] + 1;
}

/* Write the open span, ending at pixel `to` (exclusive). */
static void flush_span(pixels *px, unsigned to)
{
    if (!px->open) return;
    double w = (double)(px->end - px->begin) / px->width;
    pk_json_array_begin(px->j);
    pk_json_uint(px->j, px->begin + (uint64_t)(px->run_from * w));
    pk_json_uint(px->j, to >= px->width ? px->end : px->begin + (uint64_t)(to * w));
    pk_json_int(px->j, (int64_t)px->run - 1);
    pk_json_array_end(px->j);
    px->open = 0;
}

/* Close pixel px->cur: its winner extends the open span or starts one. */
static void close_pixel(pixels *px)
{
    if (!px->n_touched) return;
    size_t best = px->touched[0];
    for (size_t i = 0; i < px->n_touched; i++) {
        size_t k = px->touched[i];
        if (px->acc[k] > px->acc[best]) best = k;
    }
    for (size_t i = 0; i < px->n_touched; i++)
        px->acc[px->touched[i]] = 0;
    px->n_touched = 0;
    if (px->open && (px->run != best || px->last + 1 != px->cur)) flush_span(px, px->last + 1);
    if (!px->open) px->open = 1, px->run = best, px->run_from = px->cur;
    px->last = px->cur;
}

static void add(pixels *px, unsigned pixel, size_t slot, double t)
{
    if (pixel != px->cur) close_pixel(px), px->cur = pixel;
    if (px->acc[slot] == 0) px->touched[px->n_touched++] = slot;
    px->acc[slot] += t > 0 ? t : 1e-300; /* a zero-length sample still counts as seen */
}

/* Sample time [t0, t1) of slot into the pixels it covers. */
static void sample(pixels *px, uint64_t t0, uint64_t t1, size_t slot)
{
    if (t1 < t0) t1 = t0; /* out of order: a sample of no length */
    if (t1 <= px->begin || t0 >= px->end) return;
    if (t0 < px->begin) t0 = px->begin;
    if (t1 > px->end) t1 = px->end;
    double w = (double)(px->end - px->begin) / px->width;
    unsigned a = (unsigned)((t0 - px->begin) / w), b = (unsigned)((t1 - px->begin) / w);
    if (a >= px->width) a = px->width - 1;
    if (b >= px->width) b = px->width - 1;
    for (unsigned k = a; k <= b; k++) {
        double lo = px->begin + k * w, hi = lo + w;
        double from = t0 > lo ? (double)t0 : lo, to = t1 < hi ? (double)t1 : hi;
        add(px, k, slot, to - from);
    }
}

/* The index of the last sample at or before `t` (0 if none). */
static uint64_t bisect(const pk_profile *p, pk_index tr, uint64_t n, uint64_t t)
{
    uint64_t lo = 0, hi = n;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        pk_sample s;
        size_t got = 0;
        if (pk_trace_samples(p, tr, mid, 1, &s, &got) || !got || s.time > t)
            hi = mid;
        else
            lo = mid;
    }
    return lo;
}

static pk_status one_trace(pixels *px, pk_index tr, pk_sample *buf)
{
    pk_trace t;
    pk_status st = pk_trace_get(px->p, tr, &t);
    if (st || !t.n_samples) return st;
    uint64_t at = bisect(px->p, tr, t.n_samples, px->begin);
    px->cur = px->last = (unsigned)-2, px->open = 0, px->n_touched = 0;
    pk_sample prev = {0};
    int have = 0;
    while (at < t.n_samples) {
        size_t got = 0;
        if ((st = pk_trace_samples(px->p, tr, at, CHUNK, buf, &got)) || !got) break;
        for (size_t i = 0; i < got; i++) {
            if (have) sample(px, prev.time, buf[i].time, slot_of(px, prev.context));
            prev = buf[i], have = 1;
        }
        at += got;
        if (prev.time >= px->end) break;
    }
    if (have && prev.time < t.time_end)
        sample(px, prev.time, t.time_end, slot_of(px, prev.context));
    close_pixel(px);
    flush_span(px, px->last + 1);
    return st;
}

static void write_functions(pk_json *j, const pixels *px)
{
    pk_json_key(j, "functions");
    pk_json_array_begin(j);
    for (size_t i = 0; i < px->n_functions; i++) {
        pk_function fn;
        pk_json_object_begin(j);
        pk_json_key(j, "id"), pk_json_uint(j, i);
        pk_json_key(j, "name");
        pk_json_string(j, pk_function_get(px->p, px->functions[i], &fn) ? NULL : fn.name);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

static pk_status write_rows(pk_json *j, pixels *px, size_t first, size_t count)
{
    size_t nt = pk_trace_count(px->p);
    pk_sample *buf = malloc(CHUNK * sizeof *buf);
    pk_status st = buf ? PK_OK : PK_ERR_NOMEM;
    pk_json_key(j, "locations");
    pk_json_array_begin(j);
    for (size_t i = first; !st && i < nt && i < first + count; i++) {
        pk_trace t;
        if ((st = pk_trace_get(px->p, (pk_index)i, &t)) != PK_OK) break;
        pk_json_object_begin(j);
        pk_json_key(j, "index"), pk_json_uint(j, t.location);
        pk_json_key(j, "name"), pk_json_location_name(j, px->p, t.location);
        pk_json_key(j, "spans");
        pk_json_array_begin(j);
        st = one_trace(px, (pk_index)i, buf);
        pk_json_array_end(j);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
    free(buf);
    return st;
}

/* begin/end of the request, defaulting to the traces' range. */
static int range(const pkv_query *q, const pk_profile *p, pixels *px, char *err, size_t size)
{
    uint64_t b = 0, e = 0;
    unsigned long long v;
    if (pk_trace_range(p, &b, &e) || e <= b)
        for (size_t i = 0; i < pk_trace_count(p); i++) {
            pk_trace t;
            if (pk_trace_get(p, (pk_index)i, &t) || !t.n_samples) continue;
            if (b == e || t.time_begin < b) b = t.time_begin;
            if (t.time_end > e) e = t.time_end;
        }
    if (!pkv_uint(q, "begin", 0, UINT64_MAX, b, &v, err, size)) return 400;
    px->begin = v;
    if (!pkv_uint(q, "end", 0, UINT64_MAX, e > b ? e : b + 1, &v, err, size)) return 400;
    px->end = v;
    if (px->end <= px->begin) return snprintf(err, size, "end must come after begin"), 400;
    return 200;
}

int pkv_route_trace(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size)
{
    const pk_profile *p = s->side[0].p;
    unsigned long long width, first, count;
    if (!pkv_only(q, trace_params, err, size)) return 400;
    if (!pk_trace_count(p)) return snprintf(err, size, "the profile has no traces"), 404;
    pixels px = {.p = p, .j = j, .n_contexts = pk_context_count(p)};
    int rc = range(q, p, &px, err, size);
    if (rc != 200) return rc;
    if (!pkv_uint(q, "width", 1, 20000, 1200, &width, err, size) ||
        !pkv_uint(q, "first", 0, UINT32_MAX, 0, &first, err, size) ||
        !pkv_uint(q, "count", 1, 1024, 64, &count, err, size))
        return 400;
    px.width = (unsigned)width;
    if (!s->ctx_function && !(s->ctx_function = context_functions(p)))
        return snprintf(err, size, "out of memory"), 500;
    px.ctx_function = s->ctx_function;
    size_t nf = pk_function_count(p);
    px.rid = malloc((nf ? nf : 1) * sizeof *px.rid);
    px.functions = malloc((nf ? nf : 1) * sizeof *px.functions);
    px.acc = calloc(nf + 1, sizeof *px.acc);
    px.touched = malloc((nf + 1) * sizeof *px.touched);
    pk_status st = px.rid && px.functions && px.acc && px.touched ? PK_OK : PK_ERR_NOMEM;
    for (size_t i = 0; !st && i < nf; i++)
        px.rid[i] = -1;
    if (!st) {
        pk_json_object_begin(j);
        pk_json_key(j, "schema"), pk_json_string(j, "profkit.view.trace/1");
        pk_json_key(j, "begin_ns"), pk_json_uint(j, px.begin);
        pk_json_key(j, "end_ns"), pk_json_uint(j, px.end);
        pk_json_key(j, "width"), pk_json_uint(j, px.width);
        pk_json_key(j, "locations_total"), pk_json_uint(j, pk_trace_count(p));
        st = write_rows(j, &px, (size_t)first, (size_t)count);
        write_functions(j, &px);
        pk_json_object_end(j);
    }
    free(px.rid), free(px.functions), free(px.acc), free(px.touched);
    if (st) return snprintf(err, size, "%s", pk_error_last()), 500;
    return 200;
}
