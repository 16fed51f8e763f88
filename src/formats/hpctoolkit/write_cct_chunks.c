/*
 * formats/hpctoolkit/write_cct_chunks.c — cct.db's blocks straight from
 * the location planes, a chunk of context ids at a time (hpctk_write.h).
 *
 * cct.db holds every value again, context-major. Built whole (the model's
 * transpose, model/transpose.c) it is a second copy of all the values,
 * held beside the planes, touched once and written: the writer's peak
 * memory and most of its page faults. Here the values are counted per
 * (context, metric) first — on all cores, by ranges of locations, as the
 * transpose's dense path does — which gives every block's size, so the
 * {CI} table is written first, then the blocks in id order, CHUNK_BYTES
 * at a time: each chunk's values are placed by the same workers and
 * counters (worker 0's locations first, so every run stays in location
 * order) and written. The bytes are those of the whole transpose.
 *
 * While a chunk is filled, the one before it is written by a thread of
 * its own (two buffers, in turns): the copy into the file's pages runs
 * beside the filling instead of after it.
 *
 * The planes may be a mapping of the input (profile.db), which another
 * program can change between the two passes: then a chunk would get
 * other values than were counted, and a cell's values run into the next
 * one's. Each pass sums, per location, a mix of every value it takes
 * (context, metric and bits); the write fails unless both sums agree.
 * Planes in the profile's own memory (no input is mapped: an hpcrun
 * measurement, a conversion) cannot change, and are not mixed.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpctk_write.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/inline.h"
#include "util/outfile.h"
#include "util/parallel.h"

#define CHUNK_BYTES (4u << 20) /* cc1: the conversion's peak memory was this phase's */
/* Each chunk visits every location (a few cache misses each): with many
 * locations, chunks grow so that this stays small beside the values. */
#define CHUNK_PER_LOCATION 1024u
#define DENSE_CELLS        (1u << 24) /* as model/transpose.c: counters affordable */

struct hk_cct_src {
    const pk_profile *p;
    const hk_order *o; /* filling: profile indexes of locations */
    unsigned workers;
    uint32_t nr;                  /* raw ids (columns' space 0) */
    uint64_t *at;                 /* per worker, per (ctx, raw): count, then slot in the chunk */
    uint64_t *nvals;              /* per ctx */
    uint32_t *nidx;               /* per ctx */
    uint32_t *next;               /* per location: the index entry its next chunk starts at */
    uint64_t *mix;                /* per location: what counting took, then what filling took */
    int guarded;                  /* an input is mapped: the planes are mixed */
    unsigned char *chunk;         /* filling */
    uint64_t chunk_len;           /* its bytes */
    uint64_t id_lo, id_hi;        /* filling: the chunk's ids */
    int unsorted[PK_MAX_WORKERS]; /* a plane's index is not in id order: no chunks */
};

static uint64_t location_weight(void *user, uint32_t l)
{
    return ((hk_cct_src *)user)->p->locs[l].plane.nvals;
}

static uint64_t *cells_of(hk_cct_src *s, unsigned w)
{
    return s->at + (size_t)w * s->p->n_ctx * s->nr;
}

/* A value the transpose keeps: a plain column's, of a known context. */
static int kept(const pk_profile *p, const unsigned char *rec)
{
    uint32_t raw = pk_le16(rec);
    return raw < p->n_raw[0] && p->col_of_raw[0][raw] != PK_NONE;
}

/* One value's part of a location's mix: where it goes and what it is. */
static uint64_t mix_of(uint32_t ctx, uint32_t nr, const unsigned char *rec)
{
    uint64_t where = ((uint64_t)ctx * nr + pk_le16(rec) + 1) * 0x9E3779B97F4A7C15ull;
    return where ^ pk_le64(rec + 2);
}

/* Pass over index entries [k, nidx) of location l's plane with ids below
 * hi; fill: place the values, else count them; guarded: mix them. Returns
 * where it stopped. Inlined with constant fill and guarded: a copy each. */
PK_ALWAYS_INLINE uint32_t pass(hk_cct_src *s, unsigned w, uint32_t l, uint32_t k, uint64_t hi,
                               int fill, int guarded)
{
    const pk_profile *p = s->p;
    const pk_plane *pl = &p->locs[l].plane;
    uint64_t *cells = cells_of(s, w);
    uint32_t prof = fill && !s->o->identity ? s->o->prof_of_loc[l] : l; /* l < n_locs */
    uint64_t mix = 0;
    for (; k < pl->nidx; k++) {
        const unsigned char *x = pl->idx + (uint64_t)k * PK_LM_IDX_SIZE;
        uint64_t id = pk_le32(x);
        if (id >= hi) break;
        if (k && id <= pk_le32(x - PK_LM_IDX_SIZE)) s->unsorted[w] = 1;
        uint32_t ctx = pk_model_ctx_at(p, id);
        uint64_t b = pk_le64(x + 4);
        uint64_t e = k + 1 < pl->nidx ? pk_le64(x + 4 + PK_LM_IDX_SIZE) : pl->nvals;
        if (ctx == PK_NONE || e > pl->nvals) continue;
        for (uint64_t v = b; v < e; v++) {
            const unsigned char *rec = pl->vals + v * PK_LM_VAL_SIZE;
            if (!kept(p, rec)) continue;
            uint64_t *c = &cells[(size_t)ctx * s->nr + pk_le16(rec)];
            if (guarded) mix += mix_of(ctx, s->nr, rec);
            if (!fill) {
                (*c)++;
                continue;
            }
            if (*c + PK_CM_VAL_SIZE > s->chunk_len) continue; /* changed: the mixes differ */
            unsigned char *dst = s->chunk + *c;
            *c += PK_CM_VAL_SIZE;
            pk_put_le32(dst, prof);
            memcpy(dst + 4, rec + 2, 8);
        }
    }
    if (guarded) s->mix[(fill ? p->n_locs : 0) + l] += mix; /* one worker per location */
    return k;
}

static void count_range(void *user, unsigned w, uint32_t l0, uint32_t l1)
{
    hk_cct_src *s = user;
    for (uint32_t l = l0; l < l1; l++)
        if (!s->p->locs[l].is_summary)
            s->next[l] = s->guarded ? pass(s, w, l, 0, UINT64_MAX, 0, 1)
                                    : pass(s, w, l, 0, UINT64_MAX, 0, 0);
}

static void fill_range(void *user, unsigned w, uint32_t l0, uint32_t l1)
{
    hk_cct_src *s = user;
    for (uint32_t l = l0; l < l1; l++)
        if (!s->p->locs[l].is_summary)
            s->next[l] = s->guarded ? pass(s, w, l, s->next[l], s->id_hi, 1, 1)
                                    : pass(s, w, l, s->next[l], s->id_hi, 1, 0);
}

/* Whether some input is mapped (a plane may be its pages). */
static int any_input_mapped(const pk_profile *p)
{
    for (size_t i = 0; i < p->n_sources; i++)
        if (p->sources[i].map.mapped) return 1;
    return 0;
}

void hk_cct_src_free(hk_cct_src *s)
{
    if (!s) return;
    free(s->at), free(s->nvals), free(s->nidx), free(s->next), free(s->mix);
    free(s);
}

/* Every context's counts, from all values (one pass, all cores). */
static void count_all(hk_cct_src *s)
{
    const pk_profile *p = s->p;
    pk_parallel_ranges(s->workers, p->n_locs, location_weight, count_range, s);
    for (uint32_t ctx = 0; ctx < p->n_ctx; ctx++)
        for (uint32_t r = 0; r < s->nr; r++) {
            uint64_t c = 0;
            for (unsigned w = 0; w < s->workers; w++)
                c += cells_of(s, w)[(size_t)ctx * s->nr + r];
            s->nvals[ctx] += c, s->nidx[ctx] += c != 0;
        }
    memset(s->next, 0, ((size_t)p->n_locs + 1) * sizeof *s->next); /* fills start over */
}

pk_status hk_cct_src_make(const pk_profile *p, hk_cct_src **out)
{
    *out = NULL;
    if (p->cm || p->cm_sorted_only || !p->n_ctx || (uint64_t)p->n_ctx * p->n_raw[0] > DENSE_CELLS)
        return PK_OK; /* the model's transpose: written as it is */
    pk_status st = pk_model_ensure_planes(p);
    if (st) return st;
    hk_cct_src *s = calloc(1, sizeof *s);
    if (!s) return pk_fail_nomem("writing cct.db");
    *s = (hk_cct_src){.p = p,
                      .workers = pk_model_plane_workers(p),
                      .nr = p->n_raw[0],
                      .guarded = any_input_mapped(p)};
    s->at = calloc((size_t)s->workers * p->n_ctx * s->nr + 1, sizeof *s->at);
    s->nvals = calloc(p->n_ctx, sizeof *s->nvals);
    s->nidx = calloc(p->n_ctx, sizeof *s->nidx);
    s->next = calloc((size_t)p->n_locs + 1, sizeof *s->next);
    s->mix = calloc(2 * (size_t)p->n_locs + 1, sizeof *s->mix);
    if (!s->at || !s->nvals || !s->nidx || !s->next || !s->mix) {
        hk_cct_src_free(s);
        return pk_fail_nomem("writing cct.db");
    }
    count_all(s);
    int unsorted = 0;
    for (unsigned w = 0; w < s->workers; w++)
        unsorted |= s->unsorted[w];
    if (unsorted) { /* chunks need each plane in id order */
        hk_cct_src_free(s);
        return PK_OK;
    }
    *out = s;
    return PK_OK;
}

uint64_t hk_cct_src_nvals(const hk_cct_src *s, uint32_t ctx)
{
    return s->nvals[ctx];
}

uint32_t hk_cct_src_nidx(const hk_cct_src *s, uint32_t ctx)
{
    return s->nidx[ctx];
}

static uint64_t block_size(uint64_t nvals, uint32_t nidx)
{
    return (nvals * PK_CM_VAL_SIZE + (uint64_t)nidx * PK_CM_IDX_SIZE + 7) & ~7ull;
}

/* Ids [lo, hi) into the chunk: counters become slots (worker 0's first),
 * index records and pads written. */
static void place(hk_cct_src *s, uint64_t lo, uint64_t hi)
{
    uint64_t at = 0;
    for (uint64_t id = lo; id < hi; id++) {
        uint32_t ctx = pk_model_ctx_find(s->p, id);
        if (ctx == PK_NONE) continue;
        uint64_t n = 0, used = s->nvals[ctx] * PK_CM_VAL_SIZE + s->nidx[ctx] * PK_CM_IDX_SIZE;
        unsigned char *idx = s->chunk + at + s->nvals[ctx] * PK_CM_VAL_SIZE;
        for (uint32_t r = 0; r < s->nr; r++) {
            uint64_t start = n;
            for (unsigned w = 0; w < s->workers; w++) {
                uint64_t *c = &cells_of(s, w)[(size_t)ctx * s->nr + r], count = *c;
                *c = at + n * PK_CM_VAL_SIZE; /* a byte offset in the chunk */
                n += count;
            }
            if (n == start) continue;
            pk_put_le16(idx, (uint16_t)r), pk_put_le64(idx + 2, start);
            idx += PK_CM_IDX_SIZE;
        }
        uint64_t size = block_size(s->nvals[ctx], s->nidx[ctx]);
        memset(s->chunk + at + used, 0, size - used);
        at += size;
    }
}

/* A chunk's bytes: CHUNK_BYTES, or 1 KiB per location if more (or the
 * profile's test setting). */
static uint64_t chunk_limit(const pk_profile *p)
{
    uint64_t limit = (uint64_t)p->n_locs * CHUNK_PER_LOCATION;
    if (limit < CHUNK_BYTES) limit = CHUNK_BYTES;
    return p->cct_chunk_bytes ? p->cct_chunk_bytes : limit;
}

/* Ids [lo, *hi) of one chunk: blocks while they fit in the limit (at least
 * one block); returns its bytes. */
static uint64_t chunk_of(const hk_cct_src *s, uint64_t lo, uint64_t n_ids, uint64_t *hi)
{
    uint64_t bytes = 0, id = lo, limit = chunk_limit(s->p);
    for (; id < n_ids; id++) {
        uint32_t ctx = pk_model_ctx_find(s->p, id);
        uint64_t b = ctx == PK_NONE ? 0 : block_size(s->nvals[ctx], s->nidx[ctx]);
        if (id > lo && bytes + b > limit) break;
        bytes += b;
    }
    *hi = id;
    return bytes;
}

/* Did filling take the values counting took, at every location? */
static pk_status same_values(const hk_cct_src *s)
{
    const pk_profile *p = s->p;
    for (uint32_t l = 0; l < p->n_locs; l++)
        if (s->mix[l] != s->mix[p->n_locs + l])
            return pk_fail(PK_ERR_FORMAT,
                           "%s: the values of location %u changed while cct.db was written "
                           "from them (the input changed while it was read): nothing written",
                           p->path ? p->path : "the profile", l);
    return PK_OK;
}

/* The write of one filled chunk, on a thread of its own. The pk_out and
 * the chunk are the thread's until writer_wait(). */
typedef struct chunk_writer {
    pthread_t tid;
    int running;
    struct pk_out *out;
    const unsigned char *buf;
    uint64_t bytes;
    char msg[1024]; /* the thread's error message */
} chunk_writer;

static void *write_chunk(void *arg)
{
    chunk_writer *cw = arg;
    pk_out_bytes(cw->out, cw->buf, cw->bytes);
    if (cw->out->status) snprintf(cw->msg, sizeof cw->msg, "%s", pk_error_last());
    return NULL;
}

/* The last chunk handed over is written; its error, if any, is the
 * calling thread's now. */
static void writer_wait(chunk_writer *cw)
{
    if (!cw->running) return;
    pthread_join(cw->tid, NULL);
    cw->running = 0;
    if (cw->out->status) cw->out->status = pk_fail(cw->out->status, "%s", cw->msg);
}

/* Write bytes of buf: on the writer's thread when asked and one starts. */
static void writer_start(chunk_writer *cw, int threaded, const unsigned char *buf, uint64_t bytes)
{
    cw->buf = buf, cw->bytes = bytes;
    cw->running = threaded && pthread_create(&cw->tid, NULL, write_chunk, cw) == 0;
    if (!cw->running) pk_out_bytes(cw->out, buf, bytes);
}

/* A writer thread pays when cct.db's blocks (every context's, which
 * count_all() sized) take more than one chunk and are worth a second
 * core (pk_workers_for()); the tests' small chunks use it always, so that
 * its hand-overs are exercised. */
static int writer_wanted(const hk_cct_src *s)
{
    uint64_t total = 0;
    for (uint32_t ctx = 0; ctx < s->p->n_ctx; ctx++)
        total += block_size(s->nvals[ctx], s->nidx[ctx]);
    if (total <= chunk_limit(s->p)) return 0; /* one chunk */
    return s->p->cct_chunk_bytes || pk_workers_for(total) > 1;
}

/* A buffer of at least `bytes` + 1 for the next chunk (one of two). */
static unsigned char *chunk_buffer(const hk_cct_src *s, unsigned char **buf, size_t *cap,
                                   uint64_t bytes)
{
    if (bytes + 1 <= *cap) return *buf;
    free(*buf);
    *cap = bytes + 1 > chunk_limit(s->p) ? bytes + 1 : chunk_limit(s->p);
    if (!(*buf = malloc(*cap))) *cap = 0;
    return *buf;
}

void hk_cct_put_chunks(struct pk_out *out, hk_cct_src *s, const hk_order *o, uint64_t n_ids)
{
    s->o = o;
    if (s->p->cct_between_passes) s->p->cct_between_passes(s->p); /* tests: the input changes */
    unsigned char *buf[2] = {NULL, NULL};
    size_t cap[2] = {0, 0};
    chunk_writer cw = {.out = out};
    int threaded = writer_wanted(s), cur = 0;
    pk_status st = out->status;
    for (uint64_t lo = 0, hi; lo < n_ids && !st; lo = hi, cur ^= 1) {
        uint64_t bytes = chunk_of(s, lo, n_ids, &hi);
        if (!chunk_buffer(s, &buf[cur], &cap[cur], bytes)) {
            writer_wait(&cw); /* its error first, if it had one */
            st = out->status ? out->status : pk_fail_nomem("writing cct.db");
            break;
        }
        s->chunk = buf[cur], s->chunk_len = bytes, s->id_lo = lo, s->id_hi = hi;
        place(s, lo, hi);
        pk_parallel_ranges(s->workers, s->p->n_locs, location_weight, fill_range, s);
        writer_wait(&cw); /* the chunk before: the other buffer is free again */
        if ((st = out->status)) break;
        writer_start(&cw, threaded, buf[cur], bytes);
        if (!cw.running) st = out->status;
    }
    writer_wait(&cw);
    if (!out->status && st) out->status = st;
    free(buf[0]), free(buf[1]);
    if (!out->status) out->status = same_values(s);
}
