/*
 * analysis/trace_facts.c — what does not change between questions about
 * one trace: whether it records events ("not running" samples), whether
 * its timestamps never decrease, and its median interval, which decides
 * what a gap is.
 *
 * The median is exact and found in bounded memory and linear time: a
 * short trace sorts its intervals; a longer one (over 4,096 intervals)
 * selects by radix, 16 bits of (interval - smallest interval) per pass,
 * counting into one 65,536-entry histogram, so a trace of any length is
 * read a few times (two radix passes for intervals spread over less than
 * 2^32 ns) but never held, and no input makes it slower.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "trace_scan.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/mapfile.h"

#define IN_MEMORY  4096 /* intervals sorted in memory at most: radix select beyond */
#define DIGIT_BITS 16

/* Calls fn(user, interval) for each interval of trace tr (a timestamp
 * earlier than the one before counts as that one: interval 0), giving
 * the pages back behind the pass. */
typedef void (*interval_fn)(void *user, uint64_t d);
static void each_interval(const pk_profile *p, const pk_trace_rec *tr, interval_fn fn, void *user)
{
    pk_release rel;
    pk_release_start(&rel, pk_model_mapping_of(p, tr->samples));
    uint64_t prev = tr->n ? pk_le64(tr->samples) : 0;
    for (uint64_t i = 1; i < tr->n; i++) {
        const unsigned char *rec = tr->samples + i * PK_SAMPLE_SIZE;
        uint64_t t = pk_le64(rec);
        fn(user, t > prev ? t - prev : 0);
        if (t > prev) prev = t;
        if ((i & 0xffff) == 0) pk_release_advance(&rel, rec);
    }
    pk_release_finish(&rel, tr->samples + tr->n * PK_SAMPLE_SIZE);
    ts_release(p, tr);
}

typedef struct first_pass {
    pk_trace_facts *f;
    uint64_t min, max;
} first_pass;

/* Order, events and the range of intervals, in one pass. */
static void first_facts(const pk_profile *p, const pk_trace_rec *tr, first_pass *fp)
{
    pk_release rel;
    pk_release_start(&rel, pk_model_mapping_of(p, tr->samples));
    fp->min = UINT64_MAX, fp->max = 0;
    fp->f->ordered = 1;
    uint64_t prev = 0;
    for (uint64_t i = 0; i < tr->n; i++) {
        const unsigned char *rec = tr->samples + i * PK_SAMPLE_SIZE;
        uint64_t t = pk_le64(rec);
        if (pk_le32(rec + 8) == 0) fp->f->event_based = 1;
        if (i > 0) {
            uint64_t d = t > prev ? t - prev : 0;
            if (t < prev) fp->f->ordered = 0;
            if (d < fp->min) fp->min = d;
            if (d > fp->max) fp->max = d;
        }
        if (i == 0 || t > prev) prev = t;
        if ((i & 0xffff) == 0) pk_release_advance(&rel, rec);
    }
    pk_release_finish(&rel, tr->samples + tr->n * PK_SAMPLE_SIZE);
    ts_release(p, tr);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct collect {
    uint64_t *v;
    size_t n;
} collect;

static void collect_one(void *user, uint64_t d)
{
    collect *c = user;
    c->v[c->n++] = d;
}

typedef struct radix {
    uint64_t base;   /* the smallest interval */
    uint64_t prefix; /* the digits found so far, above `shift` + DIGIT_BITS */
    int shift;       /* bit position of the digit counted in this pass */
    int known;       /* bits above the digit are known (0 in the first pass) */
    uint64_t *hist;
} radix;

static void radix_one(void *user, uint64_t d)
{
    radix *r = user;
    uint64_t x = d - r->base, top = r->shift + DIGIT_BITS >= 64 ? 0 : x >> (r->shift + DIGIT_BITS);
    if (r->known && top != r->prefix) return;
    r->hist[(x >> r->shift) & ((1u << DIGIT_BITS) - 1)]++;
}

/* The value of rank `rank` (0-based) among the intervals, by radix passes. */
static pk_status radix_select(const pk_profile *p, const pk_trace_rec *tr, uint64_t min,
                              uint64_t max, uint64_t rank, uint64_t *out)
{
    radix r = {.base = min, .hist = malloc(sizeof(uint64_t) << DIGIT_BITS)};
    if (!r.hist) return pk_fail_nomem("finding a trace's median interval");
    int bits = 0;
    for (uint64_t span = max - min; span; span >>= 1)
        bits++;
    r.shift = bits > DIGIT_BITS ? (bits - 1) / DIGIT_BITS * DIGIT_BITS : 0;
    for (;;) {
        memset(r.hist, 0, sizeof(uint64_t) << DIGIT_BITS);
        each_interval(p, tr, radix_one, &r);
        uint64_t digit = 0;
        while (rank >= r.hist[digit])
            rank -= r.hist[digit++];
        r.prefix = (r.known ? r.prefix << DIGIT_BITS : 0) | digit;
        r.known = 1;
        if (r.shift == 0) break;
        r.shift -= DIGIT_BITS;
    }
    *out = min + r.prefix;
    free(r.hist);
    return PK_OK;
}

pk_status pk_trace_facts_compute(const pk_profile *p, pk_index t, pk_trace_facts *out)
{
    if (!p || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_trace_facts_compute: NULL argument");
    if (t >= p->n_traces)
        return pk_fail(PK_ERR_NOT_FOUND, "trace index %u out of range (have %u)", t, p->n_traces);
    const pk_trace_rec *tr = &p->traces[t];
    pk_trace_facts f = {0};
    first_pass fp = {&f, 0, 0};
    first_facts(p, tr, &fp);
    if (tr->n < 2) f.event_based = 0;       /* one sample has no interval to judge */
    uint64_t k = tr->n > 1 ? tr->n - 1 : 0; /* intervals; the median is the (k/2)-th */
    pk_status st = PK_OK;
    if (k == 0) {
        f.period_ns = 0;
    } else if (fp.min == fp.max) {
        f.period_ns = fp.min;
    } else if (k <= IN_MEMORY) {
        collect c = {malloc(k * sizeof *c.v), 0};
        if (!c.v) return pk_fail_nomem("finding a trace's median interval");
        each_interval(p, tr, collect_one, &c);
        qsort(c.v, c.n, sizeof *c.v, cmp_u64);
        f.period_ns = c.v[k / 2];
        free(c.v);
    } else {
        st = radix_select(p, tr, fp.min, fp.max, k / 2, &f.period_ns);
    }
    if (st) return st;
    f.valid = 1;
    *out = f;
    return PK_OK;
}

pk_status ts_facts(const pk_profile *p, pk_index t, pk_trace_facts *cache, pk_trace_facts *out)
{
    if (cache && cache[t].valid) return *out = cache[t], PK_OK;
    pk_status st = pk_trace_facts_compute(p, t, out);
    if (!st && cache) cache[t] = *out;
    return st;
}
