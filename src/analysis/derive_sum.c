/*
 * analysis/derive_sum.c — the summary partials of pk_profile_derive()
 * folded in location order whatever the number of workers.
 *
 * One worker adds each location's partials into the statistics in
 * location order. Several workers used to fold their own ranges and add
 * the results up, which rounds differently: the database depended on the
 * machine's number of cores. Now each worker keeps what every location
 * contributes (per context, in the plane layout: statistic, partial), and
 * the statistics are folded afterwards by ranges of contexts, each range
 * walking every location in order: the same sums as one worker's, bit
 * for bit, and what a parallel build (profkit/parallel.h) computes too.
 */
#include <stdlib.h>
#include <string.h>

#include "derive_job.h"
#include "util/bytes.h"

void dj_emit_contrib(worker *w, const pk_profile *p, const dp_plan *plan, const uint8_t *only,
                     placed *where)
{
    size_t max = (size_t)w->n_touched * (plan->n_stat * PK_LM_VAL_SIZE + PK_LM_IDX_SIZE);
    size_t at = w->contrib.len;
    unsigned char *v = dj_grow(&w->contrib, max);
    if (!v) return;
    unsigned char *idx = v + (size_t)w->n_touched * plan->n_stat * PK_LM_VAL_SIZE, *v0 = v;
    uint32_t nidx = 0;
    uint64_t n = 0;
    for (uint32_t t = 0; t < w->n_touched; t++) { /* touched: sorted by id */
        uint32_t ctx = (uint32_t)w->touched[t];
        if (only && p->ctx[ctx].kind != PK_CTX_LOOP) continue;
        const double *r = w->rows + (size_t)w->row_of[ctx] * plan->n_slots;
        uint64_t first = n;
        double x;
        for (uint32_t s = 0; s < plan->n_stat; s++) {
            if (!plan->stat[s].derived || (only && !only[s]) ||
                !dj_partial(p, plan, &plan->stat[s], ctx, r, &x))
                continue;
            pk_put_le16(v, (uint16_t)s);
            pk_put_le64(v + 2, pk_f64_bits(x));
            v += PK_LM_VAL_SIZE, n++;
        }
        if (n == first) continue;
        pk_put_le32(idx + (size_t)nidx * PK_LM_IDX_SIZE, ctx);
        pk_put_le64(idx + (size_t)nidx * PK_LM_IDX_SIZE + 4, first);
        nidx++;
    }
    memmove(v0 + n * PK_LM_VAL_SIZE, idx, (size_t)nidx * PK_LM_IDX_SIZE);
    w->contrib.len = at + n * PK_LM_VAL_SIZE + (size_t)nidx * PK_LM_IDX_SIZE;
    *where = (placed){at, n, nidx, 0};
}

uint32_t *dj_twin_stats(const pk_profile *p, const dp_plan *plan, uint8_t **at_loops)
{
    int loops = 0;
    for (uint32_t i = 0; i < p->n_ctx && !loops; i++)
        loops = p->ctx[i].kind == PK_CTX_LOOP;
    uint32_t *map = malloc(((size_t)plan->n_raw + 1) * sizeof *map);
    uint8_t *loop_stat = calloc((size_t)plan->n_stat + 1, 1);
    int any_loop_stat = 0;
    *at_loops = NULL;
    if (!map || !loop_stat) { /* contributions are kept: slower, not wrong */
        free(map), free(loop_stat);
        return NULL;
    }
    memset(map, 0xff, ((size_t)plan->n_raw + 1) * sizeof *map);
    for (uint32_t s = 0; s < plan->n_stat; s++) {
        const dp_stat *st = &plan->stat[s];
        if (!st->derived) continue;
        uint32_t want = st->at, twin = PK_NONE;
        for (uint32_t i = 0; i < plan->n_plain && twin == PK_NONE; i++)
            if (plan->plain[i].role == st->role && plan->plain[i].slot == want) twin = i;
        int ok = st->formula == F_VALUE && st->combine == PK_COMBINE_SUM && twin != PK_NONE &&
                 plan->plain[twin].raw < plan->n_raw && map[plan->plain[twin].raw] == PK_NONE;
        if (!ok) {
            free(map), free(loop_stat);
            return NULL;
        }
        map[plan->plain[twin].raw] = s;
        /* lex_aware at a loop is the value without nested loops: not in a
         * plane, so those contexts' partials are kept as contributions */
        if (st->role == ROLE_LEX_AWARE && loops) loop_stat[s] = 1, any_loop_stat = 1;
    }
    if (any_loop_stat)
        *at_loops = loop_stat;
    else
        free(loop_stat);
    return map;
}

typedef struct fold_job {
    derive_job *job;
    const uint64_t *by_id; /* (id << 32 | context), sorted */
} fold_job;

/* Contribution plane of location l: its index records name contexts by
 * index, in id order. */
static void plane_of(const derive_job *job, uint32_t l, const unsigned char **vals,
                     const unsigned char **idx, const placed **pl)
{
    *pl = &job->cwhere[l];
    *vals = job->w[(*pl)->worker].contrib.data + (*pl)->at;
    *idx = *vals + (*pl)->nvals * PK_LM_VAL_SIZE;
}

/* First index record of a contribution plane whose context's id is >= id. */
static uint32_t first_at(const pk_profile *p, const unsigned char *idx, uint32_t n, uint64_t id)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p->ctx[pk_le32(idx + (size_t)mid * PK_LM_IDX_SIZE)].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Contexts with ids [lo, hi]: every location's derived values of the
 * plain columns whose Sum the statistics are, in location order. */
static void fold_planes(derive_job *job, uint64_t lo, uint64_t hi)
{
    const pk_profile *p = job->p;
    const dp_plan *plan = job->plan;
    double *acc = job->w[0].stats;
    for (uint32_t l = 0; l < p->n_locs; l++) {
        if (p->locs[l].is_summary) continue;
        const pk_plane *pl = &p->locs[l].plane; /* installed: the derived one */
        const placed *w = &job->where[l];
        const unsigned char *vals = job->w[w->worker].out.data + w->at;
        const unsigned char *idx = vals + w->nvals * PK_LM_VAL_SIZE;
        (void)pl;
        uint32_t a = 0, b = w->nidx;
        while (a < b) { /* first context with id >= lo */
            uint32_t mid = a + (b - a) / 2;
            if (pk_le32(idx + (size_t)mid * PK_LM_IDX_SIZE) < lo)
                a = mid + 1;
            else
                b = mid;
        }
        for (uint32_t k = a; k < w->nidx; k++) {
            uint64_t id = pk_le32(idx + (size_t)k * PK_LM_IDX_SIZE);
            if (id > hi) break;
            uint32_t ctx = pk_model_ctx_at(p, id);
            int loop = job->loop_stats && p->ctx[ctx].kind == PK_CTX_LOOP;
            uint64_t vb = pk_le64(idx + (size_t)k * PK_LM_IDX_SIZE + 4);
            uint64_t ve =
                k + 1 < w->nidx ? pk_le64(idx + (size_t)(k + 1) * PK_LM_IDX_SIZE + 4) : w->nvals;
            for (uint64_t v = vb; v < ve; v++) {
                const unsigned char *r = vals + v * PK_LM_VAL_SIZE;
                uint16_t raw = pk_le16(r);
                uint32_t s = raw < plan->n_raw ? job->stat_of_raw[raw] : PK_NONE;
                if (s == PK_NONE || (loop && job->loop_stats[s])) continue; /* contributed */
                acc[(size_t)ctx * plan->n_stat + s] += pk_le_f64(r + 2);
            }
        }
    }
}

/* Contexts by_id[begin..end): every location's partials, in order. */
static void fold_range(void *user, unsigned wi, uint32_t begin, uint32_t end)
{
    fold_job *f = user;
    derive_job *job = f->job;
    const pk_profile *p = job->p;
    const dp_plan *plan = job->plan;
    double *acc = job->w[0].stats;
    uint64_t lo = f->by_id[begin] >> 32, hi = f->by_id[end - 1] >> 32;
    (void)wi;
    if (job->stat_of_raw) fold_planes(job, lo, hi);
    if (job->stat_of_raw && !job->loop_stats) return;
    for (uint32_t l = 0; l < p->n_locs; l++) {
        if (p->locs[l].is_summary) continue;
        const unsigned char *vals, *idx;
        const placed *pl;
        plane_of(job, l, &vals, &idx, &pl);
        for (uint32_t k = first_at(p, idx, pl->nidx, lo); k < pl->nidx; k++) {
            uint32_t ctx = pk_le32(idx + (size_t)k * PK_LM_IDX_SIZE);
            if (p->ctx[ctx].id > hi) break;
            uint64_t b = pk_le64(idx + (size_t)k * PK_LM_IDX_SIZE + 4);
            uint64_t e =
                k + 1 < pl->nidx ? pk_le64(idx + (size_t)(k + 1) * PK_LM_IDX_SIZE + 4) : pl->nvals;
            double *a = acc + (size_t)ctx * plan->n_stat;
            for (uint64_t v = b; v < e; v++) {
                const unsigned char *r = vals + v * PK_LM_VAL_SIZE;
                uint16_t s = pk_le16(r);
                dj_combine(&a[s], plan->stat[s].combine, pk_le_f64(r + 2));
            }
        }
    }
}

pk_status dj_fold_ordered(derive_job *job, unsigned workers, const uint64_t *by_id)
{
    for (unsigned k = 0; k < workers; k++)
        if (job->w[k].contrib.failed || job->w[k].out.failed)
            return pk_fail_nomem("deriving summaries");
    if (!job->p->n_ctx) return PK_OK;
    fold_job f = {job, by_id};
    pk_parallel_ranges(workers, job->p->n_ctx, NULL, fold_range, &f);
    return PK_OK;
}
