/*
 * formats/hpctoolkit/read_cct.c — cct.db: the same values as profile.db,
 * transposed (context-major: per context, by metric, then by profile).
 *
 * The blocks become the model's context-major view without copying. They
 * are validated like profile.db's: metric ids strictly increasing, start
 * indexes non-decreasing from 0, profile indexes strictly increasing within
 * a metric and naming a non-summary profile of profile.db. Whether the two
 * files hold the same numbers is checked by pk_profile_verify().
 */
#include <stdio.h>
#include <stdlib.h>

#include "hpctk.h"
#include "util/parallel.h"

typedef struct cct_stats {
    uint64_t unknown_metric, bad_profile, summary_profile;
    uint64_t first_bad_off;
} cct_stats;

/* Profile-value pairs of one metric in context `id`. */
static pk_status scan_metric_run(hk_reader *r, const hk_file *f, uint32_t id, uint16_t metric,
                                 const pk_plane *pl, uint64_t start, uint64_t end, cct_stats *cs)
{
    int emit = hk_want(r, HK_S_CCT_VALUES);
    int have_profiles = r->f[HK_PROFILE].present && r->profile_is_summary;
    int64_t prev = -1;
    for (uint64_t v = start; v < end; v++) {
        const unsigned char *rec = pl->vals + v * PK_CM_VAL_SIZE;
        uint32_t prof = pk_le32(rec);
        if ((int64_t)prof <= prev)
            return hk_fail(f,
                           "context %u value block: value %llu at 0x%llx: profile index %u after "
                           "%lld in metric %u (must increase strictly)",
                           id, (unsigned long long)v, (unsigned long long)(rec - f->data), prof,
                           (long long)prev, metric);
        prev = prof;
        if (have_profiles && prof >= r->n_profiles && cs->bad_profile++ == 0)
            cs->first_bad_off = (uint64_t)(rec - f->data);
        else if (have_profiles && prof < r->n_profiles && r->profile_is_summary[prof])
            cs->summary_profile++;
        if (emit)
            HK_EMIT(r, f, (uint64_t)(rec - f->data), HK_S_CCT_VALUES, "value", HK_U("ctx_id", id),
                    HK_U("metric_id", metric), HK_U("profile", prof),
                    HK_R("value", pk_le_f64(rec + 4)));
    }
    return PK_OK;
}

static pk_status scan_cct_block(hk_reader *r, const hk_file *f, uint32_t id, const pk_plane *pl,
                                cct_stats *cs)
{
    if (pl->nidx == 0 && pl->nvals > 0)
        return hk_fail(f, "context %u value block: %llu values but no metrics", id,
                       (unsigned long long)pl->nvals);
    const hk_index ix = {pl, PK_CM_IDX_SIZE, 2, "metric index", "metric id"};
    int64_t prev = -1;
    for (uint32_t k = 0; k < pl->nidx; k++) {
        uint32_t metric;
        uint64_t start, end;
        pk_status st =
            hk_index_record(f, &ix, k, &prev, &metric, &start, &end, "context %u value block", id);
        if (st) return st;
        if (pk_model_col_of(r->p, 0, metric) == PK_NONE) cs->unknown_metric += end - start;
        HK_EMIT(r, f, (uint64_t)(pl->idx + (uint64_t)k * PK_CM_IDX_SIZE - f->data), HK_S_CCT_VALUES,
                "metric-index", HK_U("ctx_id", id), HK_U("metric_id", metric),
                HK_U("start_index", start));
        st = scan_metric_run(r, f, id, (uint16_t)metric, pl, start, end, cs);
        if (st) return st;
    }
    return PK_OK;
}

static void report_cct_stats(hk_reader *r, const hk_file *f, uint32_t id, uint64_t e,
                             const cct_stats *cs)
{
    r->cct_unplaced += cs->bad_profile + cs->summary_profile;
    if (cs->unknown_metric)
        hk_diag(r, PK_SEV_WARNING, "unknown-metric-id", f, "value block", e,
                "context %u: %llu values have metric ids meta.db does not define", id,
                (unsigned long long)cs->unknown_metric);
    if (cs->bad_profile)
        hk_diag(r, PK_SEV_WARNING, "bad-profile-index", f, "value block", cs->first_bad_off,
                "context %u: %llu values name profiles profile.db does not have (it has %u)", id,
                (unsigned long long)cs->bad_profile, r->n_profiles);
    if (cs->summary_profile)
        hk_diag(r, PK_SEV_WARNING, "summary-in-cct", f, "value block", e,
                "context %u: %llu values belong to summary profiles (cct.db holds none)", id,
                (unsigned long long)cs->summary_profile);
}

/* One {CI} at e, for context id `id`: its block's place; the values are
 * scanned later (scan_cct_blocks), possibly in parallel. */
static pk_status read_cct_context(hk_reader *r, const hk_file *f, uint32_t id, uint64_t e,
                                  pk_plane *pl)
{
    const unsigned char *d = f->data + e;
    uint64_t n_vals = pk_le64(d), p_vals = pk_le64(d + 8), p_idx = pk_le64(d + 0x18);
    uint16_t n_met = pk_le16(d + 0x10);
    HK_EMIT(r, f, e, HK_S_CCT, "ctx-info", HK_U("ctx_id", id), HK_U("nValues", n_vals),
            HK_X("pValues", p_vals), HK_U("nMetrics", n_met), HK_X("pMetricIndices", p_idx));
    pk_status st = hk_check_range(f, hk_whole(f), p_vals, n_vals, PK_CM_VAL_SIZE, "nValues",
                                  "context %u value block: pValues", id);
    if (!st)
        st = hk_check_range(f, hk_whole(f), p_idx, n_met, PK_CM_IDX_SIZE, "nMetrics",
                            "context %u value block: pMetricIndices", id);
    if (st) return st;
    *pl = (pk_plane){f->data + p_vals, f->data + p_idx, n_vals, n_met};
    return PK_OK;
}

/* ---- scanning all value blocks, in parallel when they are big ---- */

typedef struct cct_job {
    hk_reader *r;
    const hk_file *f;
    const pk_plane *planes;
    cct_stats *stats;
    int deferred; /* after the open: count what names no profile, report nothing */
} cct_job;

static const pk_plane *cct_plane(void *user, uint32_t id)
{
    return &((cct_job *)user)->planes[id];
}

/* Workers only read the reader (emitting is off when they run). */
static pk_status scan_cct(void *user, unsigned worker, uint32_t id)
{
    cct_job *job = user;
    (void)worker;
    return scan_cct_block(job->r, job->f, id, &job->planes[id], &job->stats[id]);
}

/* Statistics and unlisted ids in context order, up to the first failure. */
static pk_status finish_cct_scan(cct_job *job, uint32_t n, uint32_t fail, const hk_array *a)
{
    for (uint32_t id = 0; id < n && id < fail; id++) {
        const cct_stats *cs = &job->stats[id];
        if (job->deferred) { /* the open noted the unlisted ids already (note_listed_ids) */
            job->r->cct_unplaced += cs->bad_profile + cs->summary_profile;
            continue;
        }
        report_cct_stats(job->r, job->f, id, a->base + (uint64_t)id * a->stride, cs);
        if (job->planes[id].nvals && pk_model_ctx_find(job->r->p, id) == PK_NONE &&
            hk_note_unlisted(job->r, HK_CCT, id))
            return PK_ERR_NOMEM;
    }
    return PK_OK;
}

/* Serial scan of the block of context `id`, emitting its records when
 * dumping. */
static pk_status scan_one_cct_block(hk_reader *r, const hk_file *f, const pk_plane *pl, uint32_t id,
                                    const hk_array *a)
{
    cct_stats cs = {0};
    pk_status st = scan_cct_block(r, f, id, pl, &cs);
    if (st) return st;
    report_cct_stats(r, f, id, a->base + (uint64_t)id * a->stride, &cs);
    if (pl->nvals && pk_model_ctx_find(r->p, id) == PK_NONE) return hk_note_unlisted(r, HK_CCT, id);
    return PK_OK;
}

static pk_status scan_cct_blocks(hk_reader *r, const hk_file *f, const pk_plane *planes, uint32_t n,
                                 const hk_array *a, int deferred)
{
    cct_stats *stats = calloc(n ? n : 1, sizeof *stats);
    if (!stats) return pk_fail_nomem("scanning cct.db");
    cct_job job = {r, f, planes, stats, deferred};
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += planes[i].nvals * PK_CM_VAL_SIZE + (uint64_t)planes[i].nidx * PK_CM_IDX_SIZE;
    hk_block_scan bs = {
        cct_plane, scan_cct, PK_CM_VAL_SIZE, PK_CM_IDX_SIZE, f->source ? &f->source->map : NULL,
        &job};
    uint32_t fail;
    char message[1024] = "";
    pk_status st = hk_scan_blocks(&bs, hk_workers(r, total), n, &fail);
    if (st) snprintf(message, sizeof message, "%s", pk_error_last());
    pk_status fin = finish_cct_scan(&job, n, fail, a);
    free(stats);
    return st ? pk_fail(st, "%s", message) : fin;
}

/* A deferred open reads no block: the contexts cct.db has values for
 * come from its {CI} entries, the same ids a scan would note. */
static pk_status note_listed_ids(hk_reader *r, const pk_plane *planes, uint32_t n)
{
    for (uint32_t id = 0; id < n; id++)
        if (planes[id].nvals && pk_model_ctx_find(r->p, id) == PK_NONE &&
            hk_note_unlisted(r, HK_CCT, id))
            return PK_ERR_NOMEM;
    return PK_OK;
}

pk_status hk_cct_check_blocks(hk_reader *r)
{
    r->cct_unplaced = 0;
    return scan_cct_blocks(r, &r->f[HK_CCT], r->cct_planes, r->n_cct_planes, NULL, 1);
}

pk_status hk_read_cct(hk_reader *r)
{
    hk_file *f = &r->f[HK_CCT];
    hk_array a;
    uint64_t h;
    pk_status st = hk_read_file_header(r, f, "ctxt", "__ctx.db", 1, HK_SZ_CCT_HEADER);
    if (!st) st = hk_section_header(f, 0, 0x0d, &h);
    if (!st)
        st = hk_array_in_section(r, f, 0, "Context Info: pCtxs", pk_le64(f->data + h),
                                 pk_le32(f->data + h + 8), f->data[h + 0x0c], HK_SZ_CCT_CTX, &a);
    if (st) return st;
    uint32_t n = (uint32_t)a.count;
    pk_plane *planes = calloc(n ? n : 1, sizeof *planes);
    if (!planes) return pk_fail_nomem("reading cct.db");
    /* A dump interleaves each context's values with its header, in file
     * order; otherwise headers first, then all blocks (in parallel). */
    int interleave = hk_want(r, HK_S_CCT_VALUES);
    hk_claim claim = {0};
    for (uint32_t i = 0; i < n && !st; i++) {
        st = read_cct_context(r, f, i, a.base + (uint64_t)i * a.stride, &planes[i]);
        if (!st)
            st = hk_claim_add(r, f, &claim,
                              planes[i].nvals * PK_CM_VAL_SIZE +
                                  (uint64_t)planes[i].nidx * PK_CM_IDX_SIZE,
                              "context", i);
        if (!st && interleave) st = scan_one_cct_block(r, f, &planes[i], i, &a);
    }
    if (!st && !interleave && r->deferred) {
        st = note_listed_ids(r, planes, n);
    } else if (!st && !interleave) {
        if (f->source) pk_map_willneed(&f->source->map);
        st = scan_cct_blocks(r, f, planes, n, &a, 0);
    }
    if (st) {
        free(planes);
        return st;
    }
    r->cct_planes = planes;
    r->n_cct_planes = n;
    return PK_OK;
}
