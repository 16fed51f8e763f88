/*
 * analysis/derive.c — recomputing hpcprof's numbers from point values:
 * the propagated scopes of every location and the summary statistics.
 *
 * The rules (field notes §d; hpcprof's PerThreadTemporary::finalize and
 * Metric::freeze, read in HPCToolkit's develop branch):
 *   execution(c) = point(c) + Σ execution(children)
 *   function(c)  = point(c) + Σ function(children reached lexically),
 *                  i.e. calls and inlined calls stop it
 *   lex_aware(c) = function(c) in per-thread profiles; in the summary, a
 *                  loop's lex_aware partials use function-without-loops
 *                  (its value minus what its nested loops hold)
 *   summary partial (formula f, combine op) at c = op over the locations
 *     whose data reaches c of f(value of c in that scope): f is $$, 1 or
 *     ($$^2); op is sum, or min/max with 0 meaning "unset" as hpcprof's
 *     atomic_op has it.
 * As hpcprof's finalize, a location's point values are summed bottom-up
 * over the contexts they reach (each value's context and its ancestors):
 * every such context is visited once and adds its sums into its parent's,
 * so a location costs O(points + reached contexts × metrics), not
 * O(points × depth) as pushing each value to the root would.
 * Locations are independent: workers take contiguous ranges, each with
 * private accumulators, and merge their summary partials in range order.
 */
#include <stdlib.h>
#include <string.h>

#include "derive_plan.h"
#include "profkit/analysis.h"
#include "util/bytes.h"
#include "util/mapfile.h"
#include "util/parallel.h"
#include "util/radix.h"

#include "derive_job.h"

static double *row(worker *w, const dp_plan *plan, uint32_t ctx)
{
    if (w->row_of[ctx] == PK_NONE) {
        uint32_t rank = w->cx[ctx].rank;
        w->row_of[ctx] = w->n_touched;
        w->touched[w->n_touched++] = ctx;
        w->seen[rank / 64] |= 1ull << (rank % 64);
        w->seen_any[rank / 4096] |= 1ull << (rank / 64 % 64);
        memset(w->rows + (size_t)w->row_of[ctx] * plan->n_slots, 0, plan->n_slots * sizeof(double));
    }
    return w->rows + (size_t)w->row_of[ctx] * plan->n_slots;
}

/* One point value, at its own context in every scope; propagate() takes
 * it up. Its context and each ancestor not reached yet get a row and are
 * queued for propagate(), deepest first (a child's depth is its parent's
 * plus one), so each is walked once per location, not once per value. */
static void attribute(worker *w, const dp_plan *plan, uint32_t ctx, uint32_t dm, double v)
{
    double *r = row(w, plan, ctx) + dp_metric_slot(plan, dm, 0);
    r[SL_POINT] += v, r[SL_EXECUTION] += v, r[SL_FUNCTION] += v, r[SL_NOLOOPS] += v;
    if (!w->dm_used[dm]) w->dm_used[dm] = 1, w->dms[w->n_dms++] = dm;
    for (uint32_t x = ctx; x != PK_NONE && !w->reached[x]; x = w->cx[x].parent) {
        w->reached[x] = 1;
        row(w, plan, x);
        w->up[w->n_up++] = (uint64_t)(UINT32_MAX - w->cx[x].depth) << 32 | x;
    }
}

/* Each reached context's sums into its parent's, children first: hpcprof's
 * bottom-up finalize (docs/derive.md). execution goes up every edge;
 * function only from a lexical child (calls stop it), and the loop-free
 * function also not from a loop. */
static void propagate(worker *w, const dp_plan *plan)
{
    pk_radix_sort_u64(w->up, w->sort_tmp, w->n_up, 4); /* deepest first */
    for (uint32_t i = 0; i < w->n_up; i++) {
        uint32_t x = (uint32_t)w->up[i], parent = w->cx[x].parent;
        w->reached[x] = 0;
        if (parent == PK_NONE) continue;
        const double *r = w->rows + (size_t)w->row_of[x] * plan->n_slots;
        double *q = w->rows + (size_t)w->row_of[parent] * plan->n_slots;
        int lexical = w->cx[x].lexical;
        int no_loop = lexical && !w->cx[x].loop;
        for (uint32_t k = 0; k < w->n_dms; k++) {
            uint32_t s = dp_metric_slot(plan, w->dms[k], 0);
            q[s + SL_EXECUTION] += r[s + SL_EXECUTION];
            if (lexical) q[s + SL_FUNCTION] += r[s + SL_FUNCTION];
            if (no_loop) q[s + SL_NOLOOPS] += r[s + SL_NOLOOPS];
        }
    }
    for (uint32_t k = 0; k < w->n_dms; k++)
        w->dm_used[w->dms[k]] = 0;
    w->n_up = w->n_dms = 0;
}

/* Read one location's stored plane: point values are attributed, kept
 * columns copied, stored propagated values dropped (they are recomputed). */
static void load_location(worker *w, const pk_profile *p, const dp_plan *plan, const pk_plane *pl)
{
    for (uint32_t k = 0; k < pl->nidx; k++) {
        const unsigned char *x = pl->idx + (uint64_t)k * PK_LM_IDX_SIZE;
        uint32_t ctx = pk_model_ctx_at(p, pk_le32(x));
        uint64_t b = pk_le64(x + 4),
                 e = k + 1 < pl->nidx ? pk_le64(x + 4 + PK_LM_IDX_SIZE) : pl->nvals;
        for (uint64_t v = b; ctx != PK_NONE && v < e && v < pl->nvals; v++) {
            const unsigned char *r = pl->vals + v * PK_LM_VAL_SIZE;
            uint16_t raw = pk_le16(r);
            uint32_t i = raw < plan->n_raw ? plan->role_of_raw[raw] : PK_NONE;
            if (i == PK_NONE) continue; /* an id meta.db does not define: dropped */
            const dp_plain *d = &plan->plain[i];
            if (d->role == ROLE_POINT)
                attribute(w, plan, ctx, (d->slot - plan->n_keep) / SL_PER_METRIC, pk_le_f64(r + 2));
            else if (d->role == ROLE_KEEP)
                row(w, plan, ctx)[d->slot] = pk_le_f64(r + 2);
        }
    }
}

void dj_combine(double *acc, uint8_t op, double x)
{
    if (op == PK_COMBINE_SUM)
        *acc += x;
    else if (*acc == 0.0 || (op == PK_COMBINE_MIN ? x < *acc : x > *acc))
        *acc = x;
}

/* The summary partials of one location's touched contexts. */
static void add_partials(worker *w, const pk_profile *p, const dp_plan *plan)
{
    for (uint32_t t = 0; t < w->n_touched; t++) {
        uint32_t ctx = (uint32_t)w->touched[t];
        const double *r = w->rows + (size_t)w->row_of[ctx] * plan->n_slots;
        double *acc = w->stats + (size_t)ctx * plan->n_stat, x;
        for (uint32_t s = 0; s < plan->n_stat; s++) {
            const dp_stat *st = &plan->stat[s];
            if (st->derived && dj_partial(p, plan, st, ctx, r, &x))
                dj_combine(&acc[s], st->combine, x);
        }
    }
}

unsigned char *dj_grow(out_buf *o, size_t n)
{
    if (o->failed) return NULL;
    if (o->len + n > o->cap || !o->data) { /* even for n = 0: NULL + 0 is undefined */
        size_t cap = o->cap ? o->cap : 1u << 20;
        while (cap < o->len + n)
            cap *= 2;
        unsigned char *d = realloc(o->data, cap);
        if (!d) {
            o->failed = 1;
            return NULL;
        }
        o->data = d, o->cap = cap;
    }
    o->len += n;
    return o->data + o->len - n;
}

/* The touched contexts as (id << 32) | context, in id order: their ranks
 * are the set bits of `seen`, walked through the words `seen_any` marks
 * (a sort cost 3 % of a conversion's instructions). Clears both. */
static void touched_by_id(worker *w, const uint64_t *by_id)
{
    uint32_t t = 0;
    for (uint32_t a = 0; t < w->n_touched; a++) {
        for (uint64_t any = w->seen_any[a]; any; any &= any - 1) {
            uint32_t word = a * 64 + (uint32_t)__builtin_ctzll(any);
            for (uint64_t bits = w->seen[word]; bits; bits &= bits - 1)
                w->touched[t++] = by_id[word * 64 + (uint32_t)__builtin_ctzll(bits)];
            w->seen[word] = 0;
        }
        w->seen_any[a] = 0;
    }
}

/* Pack the touched rows (ids ascending, columns by raw id, zeros left
 * out) as a plane: values, then index, appended to the worker's buffer. */
static void emit_location(worker *w, const dp_plan *plan, const uint64_t *by_id, placed *where)
{
    touched_by_id(w, by_id);
    size_t max = (size_t)w->n_touched * (plan->n_plain * PK_LM_VAL_SIZE + PK_LM_IDX_SIZE);
    size_t at = w->out.len;
    unsigned char *v = dj_grow(&w->out, max);
    if (!v) return;
    unsigned char *idx = v + (size_t)w->n_touched * plan->n_plain * PK_LM_VAL_SIZE, *v0 = v;
    uint32_t nidx = 0;
    uint64_t n = 0;
    for (uint32_t t = 0; t < w->n_touched; t++) {
        uint32_t ctx = (uint32_t)w->touched[t];
        const double *r = w->rows + (size_t)w->row_of[ctx] * plan->n_slots;
        uint64_t first = n;
        for (uint32_t i = 0; i < plan->n_plain; i++) {
            double x = r[plan->plain[i].slot]; /* lex_aware per thread: function */
            if (x == 0.0) continue;
            pk_put_le16(v, (uint16_t)plan->plain[i].raw);
            pk_put_le64(v + 2, pk_f64_bits(x));
            v += PK_LM_VAL_SIZE, n++;
        }
        if (n == first) continue;
        pk_put_le32(idx + (size_t)nidx * PK_LM_IDX_SIZE, (uint32_t)(w->touched[t] >> 32));
        pk_put_le64(idx + (size_t)nidx * PK_LM_IDX_SIZE + 4, first);
        nidx++;
    }
    memmove(v0 + n * PK_LM_VAL_SIZE, idx, (size_t)nidx * PK_LM_IDX_SIZE);
    w->out.len = at + n * PK_LM_VAL_SIZE + (size_t)nidx * PK_LM_IDX_SIZE;
    *where = (placed){at, n, nidx, 0};
}

static uint64_t location_bytes(void *user, uint32_t l)
{
    const derive_job *job = user;
    return job->p->locs[l].is_summary ? 0 : job->p->locs[l].plane.nvals * PK_LM_VAL_SIZE;
}

static void derive_range(void *user, unsigned wi, uint32_t begin, uint32_t end)
{
    derive_job *job = user;
    const pk_profile *p = job->p;
    worker *w = &job->w[wi];
    pk_release rel; /* the old planes are read once: give their pages back */
    pk_release_start(&rel, begin < end ? pk_model_mapping_of(p, p->locs[begin].plane.vals) : NULL);
    for (uint32_t l = begin; l < end && !w->out.failed; l++) {
        const pk_plane *pl = &p->locs[l].plane;
        if (p->locs[l].is_summary) continue;
        pk_release_advance(&rel, pl->vals < pl->idx ? pl->vals : pl->idx);
        load_location(w, p, job->plan, pl);
        propagate(w, job->plan);
        if (!job->plain_only && !job->ordered) add_partials(w, p, job->plan);
        emit_location(w, job->plan, job->by_id, &job->where[l]); /* sorts touched by id */
        job->where[l].worker = wi;
        if (job->ordered && (!job->stat_of_raw || job->loop_stats))
            dj_emit_contrib(w, p, job->plan, job->stat_of_raw ? job->loop_stats : NULL,
                            &job->cwhere[l]),
                job->cwhere[l].worker = wi;
        for (uint32_t t = 0; t < w->n_touched; t++)
            w->row_of[(uint32_t)w->touched[t]] = PK_NONE;
        w->n_touched = 0;
        pk_release_advance(&rel, pk_plane_idx_end(pl));
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The job's contexts in id order, (id << 32) | context (by_id), and
 * packed (cx), each with its place in by_id. */
static pk_status job_contexts(derive_job *job)
{
    const pk_profile *p = job->p;
    job->by_id = malloc(((size_t)p->n_ctx + 1) * sizeof *job->by_id);
    job->cx = malloc(((size_t)p->n_ctx + 1) * sizeof *job->cx);
    if (!job->by_id || !job->cx) return pk_fail_nomem("deriving scopes");
    for (uint32_t i = 0; i < p->n_ctx; i++) {
        const pk_ctx_rec *c = &p->ctx[i];
        job->by_id[i] = c->id << 32 | i;
        job->cx[i] =
            (dj_ctx){c->parent, 0, c->depth, c->relation == PK_REL_LEXICAL, c->kind == PK_CTX_LOOP};
    }
    qsort(job->by_id, p->n_ctx, sizeof *job->by_id, cmp_u64);
    for (uint32_t r = 0; r < p->n_ctx; r++)
        job->cx[(uint32_t)job->by_id[r]].rank = r;
    return PK_OK;
}

static pk_status worker_init(worker *w, const pk_profile *p, const dp_plan *plan, int plain_only,
                             const dj_ctx *cx)
{
    w->cx = cx;
    w->rows = malloc(((size_t)p->n_ctx + 1) * plan->n_slots * sizeof *w->rows);
    w->row_of = malloc(((size_t)p->n_ctx + 1) * sizeof *w->row_of);
    w->touched = malloc(((size_t)p->n_ctx + 1) * sizeof *w->touched);
    w->sort_tmp = malloc(((size_t)p->n_ctx + 1) * sizeof *w->sort_tmp);
    w->seen = calloc((size_t)p->n_ctx / 64 + 1, sizeof *w->seen);
    w->seen_any = calloc((size_t)p->n_ctx / 4096 + 1, sizeof *w->seen_any);
    w->stats = calloc(plain_only ? 1 : (size_t)p->n_ctx * plan->n_stat + 1, sizeof *w->stats);
    w->up = malloc(((size_t)p->n_ctx + 1) * sizeof *w->up);
    w->reached = calloc((size_t)p->n_ctx + 1, 1);
    w->dms = malloc(((size_t)plan->n_dm + 1) * sizeof *w->dms);
    w->dm_used = calloc((size_t)plan->n_dm + 1, 1);
    if (!w->rows || !w->row_of || !w->touched || !w->sort_tmp || !w->seen || !w->seen_any ||
        !w->stats || !w->up || !w->reached || !w->dms || !w->dm_used)
        return pk_fail_nomem("deriving scopes");
    memset(w->row_of, 0xff, ((size_t)p->n_ctx + 1) * sizeof *w->row_of);
    return PK_OK;
}

static void worker_free(worker *w)
{
    free(w->rows), free(w->row_of), free(w->touched), free(w->sort_tmp), free(w->seen);
    free(w->seen_any), free(w->stats);
    free(w->up), free(w->reached), free(w->dms), free(w->dm_used);
    free(w->out.data), free(w->contrib.data);
    memset(w, 0, sizeof *w);
}

/* Worker partials into worker 0's, in worker order (unset min/max = 0). */
static void merge_partials(derive_job *job, unsigned workers)
{
    const dp_plan *plan = job->plan;
    size_t n = (size_t)job->p->n_ctx * plan->n_stat;
    for (unsigned k = 1; k < workers; k++)
        for (size_t i = 0; i < n; i++) {
            double x = job->w[k].stats[i];
            uint8_t op = plan->stat[i % plan->n_stat].combine;
            if (x != 0.0 || op == PK_COMBINE_SUM) dj_combine(&job->w[0].stats[i], op, x);
        }
}

/* The new plane of summary location l: recomputed statistics, and the
 * stored values of the statistics that are kept. */
static pk_status summary_plane(pk_profile *p, const dp_plan *plan, const double *derived,
                               const uint64_t *by_id, uint32_t l, double *acc)
{
    size_t n = (size_t)p->n_ctx * plan->n_stat;
    memcpy(acc, derived, n * sizeof *acc);
    pk_cursor c;
    pk_value v;
    pk_location_values_begin(p, l, &c);
    while (pk_cursor_next(&c, &v)) {
        if (v.context == PK_NONE || v.column == PK_NONE) continue;
        for (uint32_t s = 0; s < plan->n_stat; s++)
            if (plan->stat[s].column == v.column && !plan->stat[s].derived)
                acc[(size_t)v.context * plan->n_stat + s] = v.value;
    }
    uint64_t nvals = 0;
    uint32_t nidx = 0;
    for (size_t i = 0; i < n; i++)
        nvals += acc[i] != 0.0;
    unsigned char *b =
        pk_model_alloc_owned(p, nvals * PK_LM_VAL_SIZE + (size_t)p->n_ctx * PK_LM_IDX_SIZE);
    if (!b) return PK_ERR_NOMEM;
    unsigned char *vals = b, *idx = b + nvals * PK_LM_VAL_SIZE;
    uint64_t k = 0;
    for (uint32_t i = 0; i < p->n_ctx; i++) {
        uint32_t ctx = (uint32_t)by_id[i];
        const double *a = acc + (size_t)ctx * plan->n_stat;
        uint64_t first = k;
        for (uint32_t s = 0; s < plan->n_stat; s++) {
            if (a[s] == 0.0) continue;
            pk_put_le16(vals + k * PK_LM_VAL_SIZE, (uint16_t)plan->stat[s].raw);
            pk_put_le64(vals + k * PK_LM_VAL_SIZE + 2, pk_f64_bits(a[s]));
            k++;
        }
        if (k == first) continue;
        pk_put_le32(idx + (size_t)nidx * PK_LM_IDX_SIZE, (uint32_t)(by_id[i] >> 32));
        pk_put_le64(idx + (size_t)nidx * PK_LM_IDX_SIZE + 4, first);
        nidx++;
    }
    p->locs[l].plane = (pk_plane){vals, idx, nvals, nidx};
    return PK_OK;
}

/* The context-major view (cct.db's, or a transpose) no longer matches. */
static void drop_context_major(pk_profile *p)
{
    free(p->cm);
    free(p->cm_built);
    p->cm = NULL;
    p->cm_built = NULL;
    p->cm_from_file = 0;
    p->cm_unplaced = 0;
}

/* Hand the workers' buffers to the profile, point the locations at their
 * new planes, rebuild the summary locations. */
static pk_status install(derive_job *job, unsigned workers, const uint64_t *by_id)
{
    pk_profile *p = (pk_profile *)job->p;
    unsigned char *base[PK_MAX_WORKERS];
    for (unsigned k = 0; k < workers; k++) {
        if (job->w[k].out.failed) return pk_fail_nomem("deriving scopes");
        base[k] = job->w[k].out.data;
        job->w[k].out.data = NULL; /* the profile owns it now (or freed it) */
        if (pk_model_adopt_owned(p, base[k])) return PK_ERR_NOMEM;
    }
    for (uint32_t l = 0; l < p->n_locs; l++) {
        const placed *w = &job->where[l];
        if (p->locs[l].is_summary) continue;
        unsigned char *v = base[w->worker] + w->at;
        p->locs[l].plane = (pk_plane){v, v + w->nvals * PK_LM_VAL_SIZE, w->nvals, w->nidx};
    }
    double *acc = malloc(((size_t)p->n_ctx * job->plan->n_stat + 1) * sizeof *acc);
    if (!acc) return pk_fail_nomem("deriving summaries");
    pk_status st = PK_OK;
    for (uint32_t l = 0; l < p->n_locs && !st; l++)
        if (p->locs[l].is_summary) st = summary_plane(p, job->plan, job->w[0].stats, by_id, l, acc);
    free(acc);
    drop_context_major(p);
    return st == PK_ERR_NOMEM ? pk_fail_nomem("deriving summaries") : st;
}

static pk_status check_derivable(const pk_profile *p, const dp_plan *plan)
{
    int plain = 0;
    for (uint32_t l = 0; l < p->n_locs && !plain; l++)
        plain = !p->locs[l].is_summary;
    if (!plain)
        return pk_fail(PK_ERR_UNSUPPORTED, "the profile has no per-location values (only summary "
                                           "statistics): there is nothing to derive from");
    if (!plan->n_dm)
        return pk_fail(PK_ERR_UNSUPPORTED, "no metric has point (raw) values to derive from");
    for (uint32_t i = 0; i < p->n_ctx; i++)
        if (p->ctx[i].id > UINT32_MAX)
            return pk_fail(PK_ERR_UNSUPPORTED, "context id %llu does not fit 32 bits",
                           (unsigned long long)p->ctx[i].id);
    return PK_OK;
}

static pk_status run(derive_job *job, unsigned workers, pk_derive_report *rep)
{
    const pk_profile *p = job->p;
    pk_status st = PK_OK;
    job->ordered = workers > 1; /* the summary as one worker folds it */
    if (job->ordered) {
        job->cwhere = calloc((size_t)p->n_locs + 1, sizeof *job->cwhere);
        job->stat_of_raw = dj_twin_stats(p, job->plan, &job->loop_stats);
        if (!job->cwhere) st = pk_fail_nomem("deriving scopes");
    }
    if (!st) st = job_contexts(job);
    for (unsigned k = 0; k < workers && !st; k++) /* partials go to worker 0's */
        st = worker_init(&job->w[k], p, job->plan, job->ordered && k > 0, job->cx);
    const uint64_t *by_id = job->by_id;
    if (!st) {
        pk_parallel_ranges(workers, p->n_locs, location_bytes, derive_range, job);
        if (job->ordered)
            st = dj_fold_ordered(job, workers, by_id);
        else
            merge_partials(job, workers);
        if (!st) st = install(job, workers, by_id);
    }
    free(job->cwhere), free(job->stat_of_raw), free(job->loop_stats), free(job->cx);
    free(job->by_id);
    job->cwhere = NULL, job->stat_of_raw = NULL, job->loop_stats = NULL, job->cx = NULL;
    job->by_id = NULL;
    if (!st && rep) {
        *rep = (pk_derive_report){job->plan->n_dm, job->plan->n_derived_stats,
                                  job->plan->n_stat - job->plan->n_derived_stats, 0};
        for (uint32_t l = 0; l < p->n_locs; l++)
            rep->n_values += p->locs[l].plane.nvals;
    }
    return st;
}

pk_status pk_profile_derive(pk_profile *p, const pk_derive_options *opts, pk_derive_report *rep)
{
    if (!p) return pk_fail(PK_ERR_INVALID_ARG, "pk_profile_derive: no profile");
    dp_plan plan;
    pk_status st = pk_model_planes_only(p); /* derivation rewrites the planes */
    if (st) return st;
    st = dp_plan_make(p, &plan);
    if (!st) st = check_derivable(p, &plan);
    if (st) {
        dp_plan_free(&plan);
        return st;
    }
    derive_job *job = calloc(1, sizeof *job);
    placed *where = calloc((size_t)p->n_locs + 1, sizeof *where);
    if (!job || !where) {
        free(job), free(where), dp_plan_free(&plan);
        return pk_fail_nomem("deriving scopes");
    }
    *job = (derive_job){.p = p, .plan = &plan, .where = where};
    uint64_t bytes = 0;
    for (uint32_t l = 0; l < p->n_locs; l++)
        bytes += location_bytes(job, l);
    unsigned workers = opts && opts->threads ? opts->threads : pk_workers_for(bytes);
    if (workers > PK_MAX_WORKERS) workers = PK_MAX_WORKERS;
    st = run(job, workers, rep);
    for (unsigned k = 0; k < PK_MAX_WORKERS; k++)
        worker_free(&job->w[k]);
    free(job), free(where), dp_plan_free(&plan);
    return st;
}

/* The plain locations' new planes, from worker 0's buffer (owned by the
 * profile from now on). */
static pk_status install_plain(derive_job *job, uint32_t first, uint32_t end)
{
    pk_profile *p = (pk_profile *)job->p;
    worker *w = &job->w[0];
    if (w->out.failed) return pk_fail_nomem("deriving scopes");
    unsigned char *base = w->out.data;
    w->out.data = NULL;
    if (base && pk_model_adopt_owned(p, base)) return PK_ERR_NOMEM;
    for (uint32_t l = first; l < end; l++) {
        const placed *at = &job->where[l];
        if (p->locs[l].is_summary) continue;
        unsigned char *v = base + at->at;
        p->locs[l].plane = (pk_plane){v, v + at->nvals * PK_LM_VAL_SIZE, at->nvals, at->nidx};
    }
    drop_context_major(p);
    return PK_OK;
}

pk_status pk_derive_locations(pk_profile *p, uint32_t first, uint32_t end)
{
    if (first >= end || end > p->n_locs) return PK_OK;
    dp_plan plan;
    pk_status st = pk_model_planes_only(p);
    if (!st) st = dp_plan_make(p, &plan);
    if (st) return st;
    derive_job *job = calloc(1, sizeof *job);
    placed *where = calloc((size_t)p->n_locs + 1, sizeof *where);
    if (!job || !where) st = pk_fail_nomem("deriving scopes");
    if (!st) *job = (derive_job){.p = p, .plan = &plan, .plain_only = 1, .where = where};
    if (!st && plan.n_dm) st = job_contexts(job);
    if (!st && plan.n_dm) st = worker_init(&job->w[0], p, &plan, 1, job->cx);
    if (!st && plan.n_dm) {
        derive_range(job, 0, first, end);
        st = install_plain(job, first, end);
    }
    if (job) worker_free(&job->w[0]), free(job->cx), free(job->by_id);
    free(job), free(where), dp_plan_free(&plan);
    return st;
}
