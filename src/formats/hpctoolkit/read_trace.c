/*
 * formats/hpctoolkit/read_trace.c — trace.db: per-profile trace lines of
 * (timestamp, ctxId) samples.
 *
 * Lines stay in place in the mapped file. Each is checked to be a whole
 * number of 12-byte elements inside the file; its samples are scanned for
 * what the spec promises (increasing time, no two "not running" samples in
 * a row, ids meta.db lists, times inside the header's range) and
 * departures are reported, not fatal: a trace remains usable with them.
 *
 * The intermediate v4.0 layout's trace.db has no footer and no
 * [minTimestamp, maxTimestamp] in its section header (13 bytes): the
 * range is then that of the samples.
 */
#include <stdint.h>
#include <stdio.h>

#include "hpctk.h"

typedef struct trace_stats {
    uint64_t backwards, double_idle, unknown_ctx, out_of_range;
    uint64_t first_off;
    uint64_t min_time, max_time; /* over the samples scanned */
} trace_stats;

static void note_first(trace_stats *ts, uint64_t off)
{
    if (!ts->first_off) ts->first_off = off;
}

static void scan_samples(hk_reader *r, const hk_file *f, uint32_t t, const pk_trace_rec *tr,
                         uint64_t lo, uint64_t hi, trace_stats *ts)
{
    int emit = hk_want(r, HK_S_TRACE_SAMPLES);
    uint64_t prev_time = 0;
    uint32_t prev_id = 1;
    pk_release rel; /* the pages behind the scan go back: a long trace.db stays small in memory */
    pk_release_start(&rel, pk_model_mapping_of(r->p, tr->samples));
    for (uint64_t s = 0; s < tr->n; s++) {
        const unsigned char *rec = tr->samples + s * PK_SAMPLE_SIZE;
        uint64_t time = pk_le64(rec), off = (uint64_t)(rec - f->data);
        uint32_t id = pk_le32(rec + 8);
        if (s > 0 && time < prev_time && ts->backwards++ == 0) note_first(ts, off);
        if (id == 0 && prev_id == 0 && ts->double_idle++ == 0) note_first(ts, off);
        if (id != 0 && pk_model_ctx_find(r->p, id) == PK_NONE && ts->unknown_ctx++ == 0)
            note_first(ts, off);
        if ((time < lo || time > hi) && ts->out_of_range++ == 0) note_first(ts, off);
        if (time < ts->min_time) ts->min_time = time;
        if (time > ts->max_time) ts->max_time = time;
        prev_time = time;
        prev_id = id;
        if (emit)
            HK_EMIT(r, f, off, HK_S_TRACE_SAMPLES, "sample", HK_U("trace", t), HK_U("index", s),
                    HK_U("timestamp", time), HK_U("ctx_id", id));
        if ((s & 0xffff) == 0) pk_release_advance(&rel, rec);
    }
    pk_release_finish(&rel, tr->samples + tr->n * PK_SAMPLE_SIZE);
}

static void report_trace_stats(hk_reader *r, const hk_file *f, uint32_t t, const trace_stats *ts)
{
    if (ts->backwards)
        hk_diag(r, PK_SEV_WARNING, "trace-order", f, "trace line", ts->first_off,
                "trace %u: time goes backwards %llu times", t, (unsigned long long)ts->backwards);
    if (ts->double_idle)
        hk_diag(r, PK_SEV_WARNING, "trace-idle-repeat", f, "trace line", ts->first_off,
                "trace %u: %llu consecutive 'not running' (ctxId 0) samples", t,
                (unsigned long long)ts->double_idle);
    if (ts->unknown_ctx)
        hk_diag(r, PK_SEV_WARNING, "trace-unknown-context", f, "trace line", ts->first_off,
                "trace %u: %llu samples name contexts meta.db does not list", t,
                (unsigned long long)ts->unknown_ctx);
    if (ts->out_of_range)
        hk_diag(r, PK_SEV_WARNING, "trace-time-range", f, "trace line", ts->first_off,
                "trace %u: %llu samples lie outside the header's [minTimestamp, maxTimestamp]", t,
                (unsigned long long)ts->out_of_range);
}

/* Tie trace t to its profile's location. */
static void link_location(hk_reader *r, const hk_file *f, uint32_t t, uint64_t e, uint32_t prof,
                          pk_trace_rec *tr)
{
    pk_profile *p = r->p;
    tr->location = PK_NONE;
    if (!r->f[HK_PROFILE].present || !p->n_locs) return;
    if (prof >= p->n_locs) {
        hk_diag(r, PK_SEV_WARNING, "bad-profile-index", f, "Context Trace Header", e,
                "trace %u names profile %u; profile.db has %u", t, prof, p->n_locs);
        return;
    }
    if (p->locs[prof].trace != PK_NONE) {
        hk_diag(r, PK_SEV_WARNING, "duplicate-trace", f, "Context Trace Header", e,
                "trace %u is a second trace of profile %u (kept, but not linked)", t, prof);
        return;
    }
    tr->location = prof;
    p->locs[prof].trace = t;
}

static pk_status read_trace_line(hk_reader *r, const hk_file *f, uint32_t t, uint64_t e,
                                 uint64_t lo, uint64_t hi, pk_trace_rec *tr, trace_stats *ts,
                                 hk_claim *claim)
{
    const unsigned char *d = f->data + e;
    uint32_t prof = pk_le32(d);
    uint64_t start = pk_le64(d + 8), end = pk_le64(d + 0x10);
    HK_EMIT(r, f, e, HK_S_TRACES, "trace", HK_U("index", t), HK_U("profile", prof),
            HK_X("pStart", start), HK_X("pEnd", end));
    if (end < start || (end - start) % PK_SAMPLE_SIZE != 0)
        return hk_fail(f,
                       "trace %u header at 0x%llx: [pStart 0x%llx, pEnd 0x%llx) is not a whole "
                       "number of 12-byte elements",
                       t, (unsigned long long)e, (unsigned long long)start,
                       (unsigned long long)end);
    pk_status st = hk_check_range(f, hk_whole(f), start, (end - start) / PK_SAMPLE_SIZE,
                                  PK_SAMPLE_SIZE, "elements", "trace %u header: pStart", t);
    if (!st) st = hk_claim_add(r, f, claim, end - start, "trace", t); /* before the samples' scan */
    if (st) return st;
    tr->samples = f->data + start;
    tr->n = (end - start) / PK_SAMPLE_SIZE;
    link_location(r, f, t, e, prof, tr);
    *ts = (trace_stats){.min_time = UINT64_MAX};
    scan_samples(r, f, t, tr, lo, hi, ts);
    report_trace_stats(r, f, t, ts);
    return PK_OK;
}

pk_status hk_read_traces(hk_reader *r)
{
    hk_file *f = &r->f[HK_TRACE];
    pk_profile *p = r->p;
    hk_array a;
    uint64_t h;
    int inter = r->intermediate;
    pk_status st =
        hk_read_file_header(r, f, "trce", inter ? NULL : "trace.db", 1, HK_SZ_TRACE_HEADER);
    if (!st) st = hk_section_header(f, 0, inter ? HK_V40I_SZ_TRACE_SECT : 0x20, &h);
    if (!st)
        st = hk_array_in_section(r, f, 0, "Context Trace Headers: pTraces", pk_le64(f->data + h),
                                 pk_le32(f->data + h + 8), f->data[h + 0x0c], HK_SZ_TRACE_HDR, &a);
    if (st) return st;
    uint64_t lo = inter ? 0 : pk_le64(f->data + h + 0x10);
    uint64_t hi = inter ? UINT64_MAX : pk_le64(f->data + h + 0x18);
    if (!inter)
        HK_EMIT(r, f, h, HK_S_TRACES, "trace-range", HK_U("nTraces", a.count),
                HK_U("minTimestamp", lo), HK_U("maxTimestamp", hi));
    uint32_t n = (uint32_t)a.count;
    pk_trace_rec *traces = pk_arena_array(&p->arena, n ? n : 1, sizeof *traces);
    if (!traces) return pk_fail_nomem("reading traces");
    uint64_t min_time = UINT64_MAX, max_time = 0;
    hk_claim claim = {0};
    for (uint32_t t = 0; t < n && !st; t++) {
        trace_stats ts = {.min_time = UINT64_MAX};
        st = read_trace_line(r, f, t, a.base + (uint64_t)t * a.stride, lo, hi, &traces[t], &ts,
                             &claim);
        min_time = ts.min_time < min_time ? ts.min_time : min_time;
        max_time = ts.max_time > max_time ? ts.max_time : max_time;
    }
    if (st) {
        for (uint32_t l = 0; l < p->n_locs; l++)
            p->locs[l].trace = PK_NONE;
        return st;
    }
    if (lo > hi)
        hk_diag(r, PK_SEV_WARNING, "trace-time-range", f, "Context Trace Headers", h + 0x10,
                "minTimestamp %llu is after maxTimestamp %llu", (unsigned long long)lo,
                (unsigned long long)hi);
    p->traces = traces;
    p->n_traces = n;
    if (inter) { /* no stored range: the samples' own, if there are any */
        lo = min_time;
        hi = max_time;
    }
    p->trace_begin = lo;
    p->trace_end = hi;
    p->has_trace_range = !inter || min_time <= max_time;
    return PK_OK;
}
