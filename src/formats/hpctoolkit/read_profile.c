/*
 * formats/hpctoolkit/read_profile.c — profile.db: Profile Info section,
 * identifier tuples, and the profile-major sparse value blocks.
 *
 * Value blocks become the model's location planes without copying: the
 * plane points at pValues / pCtxIndices in the mapped file. Before that,
 * every block is scanned once: contexts in strictly increasing id order,
 * start indexes non-decreasing from 0 and within nValues, metric ids
 * strictly increasing inside each context (so lookups can binary-search).
 * Anything else is a format error. Ids that name nothing (contexts meta.db
 * does not list, unknown metric ids), zero and non-finite values are
 * tolerated and reported.
 *
 * In the intermediate v4.0 layout a {PI} is 40 bytes, without the flags
 * word: the first profile is the summary profile by position.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hpctk.h"
#include "util/parallel.h"

enum { PI_SECTION = 0, ID_SECTION = 1 };

/* The bits of a bitmap of noted ids: real files number contexts densely,
 * so a few times the listed count catches them all (other ids go to the
 * set directly). */
static uint64_t noted_bits_for(const pk_profile *p)
{
    return ((uint64_t)p->n_ctx * 4 + 1024 + 63) & ~63ull;
}

/* id into `set`, unless the bitmap *bits (n_bits bits, made on first
 * use) says it went in before: every profile names the same unlisted
 * contexts, and the bitmap spares the set a lookup for each repetition. */
static pk_status note_once(uint64_t **bits, uint64_t n_bits, pk_idset *set, uint64_t id)
{
    if (!*bits && !(*bits = calloc(n_bits / 64, sizeof **bits)))
        return pk_fail_nomem("collecting context ids");
    if (id < n_bits) {
        uint64_t bit = 1ull << (id % 64), *word = &(*bits)[id / 64];
        if (*word & bit) return PK_OK;
        *word |= bit;
    }
    return pk_idset_add(set, id) ? pk_fail_nomem("collecting context ids") : PK_OK;
}

pk_status hk_note_unlisted(hk_reader *r, int fid, uint64_t id)
{
    if (!r->noted[fid]) r->noted_bits = noted_bits_for(r->p);
    return note_once(&r->noted[fid], r->noted_bits, &r->unlisted[fid], id);
}

/* Where a scan of value blocks reports to. The serial scan (also used
 * for dumps) emits records and notes unlisted ids on the reader; a
 * parallel worker collects unlisted ids in its own set and emits nothing. */
typedef struct scan_state {
    hk_reader *r;
    const hk_file *f;
    int emit;
    pk_idset *own_unlisted; /* NULL: note on the reader */
    int deferred;           /* after the open: the contexts are final */
    uint64_t **own_seen;    /* with own_unlisted: the worker's bitmap of ids noted, */
    uint64_t seen_bits;     /* of this many bits (allocated on first use) */
} scan_state;

/* A context id meta.db does not list: an unlisted context to add, or,
 * once the open is over (deferred validation), one the summary profile
 * and cct.db did not name either, which the model can no longer take in. */
static pk_status note_unlisted(const scan_state *ss, uint32_t prof, const pk_plane *pl, uint32_t k,
                               uint32_t id)
{
    if (ss->deferred)
        return hk_fail(ss->f,
                       "profile %u value block: context index record %u at 0x%llx: context id "
                       "%u is listed neither in meta.db nor by the summary profile or cct.db (the "
                       "files disagree; 'profkit check' reads every block)",
                       prof, k,
                       (unsigned long long)(pl->idx + (uint64_t)k * PK_LM_IDX_SIZE - ss->f->data),
                       id);
    if (!ss->own_unlisted) return hk_note_unlisted(ss->r, HK_PROFILE, id);
    return note_once(ss->own_seen, ss->seen_bits, ss->own_unlisted, id);
}

/* Counts of tolerated oddities in one value block. */
typedef struct block_stats {
    uint64_t unknown_metric, zero, nonfinite;
    uint64_t first_unknown_off;
    uint16_t first_unknown_id;
} block_stats;

/* Metric-value pairs of one context: ids strictly increasing. */
static pk_status scan_run(const scan_state *ss, uint32_t prof, int space, const pk_plane *pl,
                          uint32_t ctx_id, uint64_t start, uint64_t end, block_stats *bs)
{
    hk_reader *r = ss->r;
    const hk_file *f = ss->f;
    const pk_profile *p = r->p;
    int emit = ss->emit;
    int prev = -1;
    for (uint64_t v = start; v < end; v++) {
        const unsigned char *rec = pl->vals + v * PK_LM_VAL_SIZE;
        uint16_t m = pk_le16(rec);
        double value = pk_le_f64(rec + 2);
        if ((int)m <= prev)
            return hk_fail(f,
                           "profile %u value block: value %llu at 0x%llx: metric id %u after "
                           "%d in context %u (must increase strictly)",
                           prof, (unsigned long long)v, (unsigned long long)(rec - f->data), m,
                           prev, ctx_id);
        prev = m;
        if (pk_model_col_of(p, space, m) == PK_NONE && bs->unknown_metric++ == 0) {
            bs->first_unknown_id = m;
            bs->first_unknown_off = (uint64_t)(rec - f->data);
        }
        bs->zero += value == 0.0;
        bs->nonfinite += !isfinite(value);
        if (emit)
            HK_EMIT(r, f, (uint64_t)(rec - f->data), HK_S_PROFILE_VALUES, "value",
                    HK_U("profile", prof), HK_U("ctx_id", ctx_id), HK_U("metric_id", m),
                    HK_R("value", value));
    }
    return PK_OK;
}

/* Walk the context index of one block and each context's values. */
static pk_status scan_block(const scan_state *ss, uint32_t prof, int space, const pk_plane *pl,
                            block_stats *bs)
{
    hk_reader *r = ss->r;
    const hk_file *f = ss->f;
    if (pl->nidx == 0 && pl->nvals > 0)
        return hk_fail(f, "profile %u value block: %llu values but no contexts", prof,
                       (unsigned long long)pl->nvals);
    const hk_index ix = {pl, PK_LM_IDX_SIZE, 4, "context index", "ctxId"};
    int64_t prev = -1;
    for (uint32_t k = 0; k < pl->nidx; k++) {
        uint32_t id;
        uint64_t start, end;
        pk_status st =
            hk_index_record(f, &ix, k, &prev, &id, &start, &end, "profile %u value block", prof);
        if (st) return st;
        if (pk_model_ctx_find(r->p, id) == PK_NONE && (st = note_unlisted(ss, prof, pl, k, id)))
            return st;
        if (ss->emit)
            HK_EMIT(r, f, (uint64_t)(pl->idx + (uint64_t)k * PK_LM_IDX_SIZE - f->data),
                    HK_S_PROFILE_VALUES, "ctx-index", HK_U("profile", prof), HK_U("ctx_id", id),
                    HK_U("start_index", start));
        st = scan_run(ss, prof, space, pl, id, start, end, bs);
        if (st) return st;
    }
    return PK_OK;
}

static void report_block_stats(hk_reader *r, const hk_file *f, uint32_t prof, uint64_t e,
                               const block_stats *bs)
{
    if (bs->unknown_metric)
        hk_diag(r, PK_SEV_WARNING, "unknown-metric-id", f, "value block", bs->first_unknown_off,
                "profile %u: %llu values have metric ids meta.db does not define (first: %u); "
                "they belong to no column",
                prof, (unsigned long long)bs->unknown_metric, bs->first_unknown_id);
    if (bs->nonfinite)
        hk_diag(r, PK_SEV_WARNING, "nonfinite-value", f, "value block", e,
                "profile %u: %llu values are NaN or infinite", prof,
                (unsigned long long)bs->nonfinite);
    if (bs->zero)
        hk_diag(r, PK_SEV_WARNING, "zero-value", f, "value block", e,
                "profile %u: %llu values are zero (the format stores only non-zero values)", prof,
                (unsigned long long)bs->zero);
}

/* Identifier tuple at ptr: {u16 nIds, pad, {Id}[nIds] at +8}. */
static pk_status read_id_tuple(hk_reader *r, const hk_file *f, uint32_t prof, uint64_t ptr,
                               pk_loc_rec *loc)
{
    pk_status st =
        hk_check_range(f, f->sect[ID_SECTION], ptr, 1, 8, NULL, "profile %u: pIdTuple", prof);
    uint16_t n = st ? 0 : pk_le16(f->data + ptr);
    if (!st)
        st = hk_check_range(f, f->sect[ID_SECTION], ptr + 8, n, HK_SZ_ID, "nIds",
                            "profile %u: pIdTuple", prof);
    if (st) return st;
    pk_ident *ids = pk_arena_array(&r->p->arena, n ? n : 1, sizeof *ids);
    if (!ids) return pk_fail_nomem("reading identifier tuples");
    for (uint16_t i = 0; i < n; i++) {
        const unsigned char *d = f->data + ptr + 8 + (uint64_t)i * HK_SZ_ID;
        uint16_t flags = pk_le16(d + 2);
        ids[i] = (pk_ident){d[0], d[0] < r->n_kinds ? r->kind_names[d[0]] : NULL,
                            (uint16_t)(flags & PK_ID_PHYSICAL), pk_le32(d + 4), pk_le64(d + 8)};
        if (!ids[i].kind_name)
            hk_diag(r, PK_SEV_WARNING, "unknown-id-kind", f, "Identifier Tuple", ptr,
                    "profile %u: identifier kind %u has no name in meta.db", prof, d[0]);
        HK_EMIT(r, f, (uint64_t)(d - f->data), HK_S_PROFILES, "id", HK_U("profile", prof),
                HK_U("position", i), HK_U("kind", d[0]), HK_S("kind_name", ids[i].kind_name),
                HK_X("flags", flags), HK_U("logical_id", ids[i].logical),
                HK_X("physical_id", ids[i].physical));
    }
    loc->ids = ids;
    loc->n_ids = n;
    return PK_OK;
}

/* One {PI} at e: header checks and identifier tuple; the value block
 * is scanned later (scan_blocks), possibly in parallel. */
static pk_status read_profile_info(hk_reader *r, const hk_file *f, uint32_t i, uint64_t e,
                                   pk_loc_rec *loc)
{
    const unsigned char *d = f->data + e;
    uint64_t n_vals = pk_le64(d), p_vals = pk_le64(d + 8), p_idx = pk_le64(d + 0x18);
    uint64_t p_tuple = pk_le64(d + 0x20);
    uint32_t n_ctx = pk_le32(d + 0x10);
    uint32_t flags = r->intermediate ? i == 0 : pk_le32(d + 0x28);
    *loc = (pk_loc_rec){.raw_index = i, .is_summary = flags & 1, .trace = PK_NONE};
    HK_EMIT(r, f, e, HK_S_PROFILES, "profile", HK_U("index", i), HK_B("is_summary", flags & 1),
            HK_X("flags", flags), HK_U("nValues", n_vals), HK_X("pValues", p_vals),
            HK_U("nCtxs", n_ctx), HK_X("pCtxIndices", p_idx), HK_X("pIdTuple", p_tuple));
    pk_status st = hk_check_range(f, hk_whole(f), p_vals, n_vals, PK_LM_VAL_SIZE, "nValues",
                                  "profile %u value block: pValues", i);
    if (!st)
        st = hk_check_range(f, hk_whole(f), p_idx, n_ctx, PK_LM_IDX_SIZE, "nCtxs",
                            "profile %u value block: pCtxIndices", i);
    if (!st && p_tuple) st = read_id_tuple(r, f, i, p_tuple, loc);
    if (st) return st;
    if (flags & ~1u)
        hk_diag(r, hk_unknown_enum_severity(f), "unknown-flags", f, "Profile Info", e,
                "profile %u has reserved flag bits set (0x%x)", i, flags);
    if (i == 0 && !loc->is_summary)
        hk_diag(r, PK_SEV_WARNING, "no-summary-profile", f, "Profile Info", e,
                "profile 0 is not a summary profile (the format requires it)");
    if (!p_tuple && !loc->is_summary)
        hk_diag(r, PK_SEV_WARNING, "no-id-tuple", f, "Profile Info", e,
                "profile %u is not a summary profile but has no identifier tuple", i);
    loc->plane = (pk_plane){f->data + p_vals, f->data + p_idx, n_vals, n_ctx};
    return PK_OK;
}

/* ---- scanning all value blocks, in parallel when they are big ---- */

typedef struct scan_job {
    hk_reader *r;
    const hk_file *f;
    const pk_loc_rec *locs;
    const unsigned char *skip; /* blocks not to scan (NULL: none) */
    int deferred;              /* after the open: no diagnostics, contexts final */
    block_stats *stats;
    pk_idset unlisted[PK_MAX_WORKERS]; /* each worker's own */
    uint64_t *seen[PK_MAX_WORKERS];    /* and the ids it noted, as bits */
    uint64_t seen_bits;                /* (each bitmap's size, fixed before the workers) */
} scan_job;

static const pk_plane *profile_plane(void *user, uint32_t i)
{
    return &((scan_job *)user)->locs[i].plane;
}

static pk_status scan_profile(void *user, unsigned worker, uint32_t i)
{
    scan_job *job = user;
    if (job->skip && job->skip[i]) return PK_OK;
    scan_state ss = {
        job->r,        job->f, 0, &job->unlisted[worker], job->deferred, &job->seen[worker],
        job->seen_bits};
    return scan_block(&ss, i, job->locs[i].is_summary, &job->locs[i].plane, &job->stats[i]);
}

/* After the workers: unlisted ids join the reader's, block statistics
 * are reported in profile order up to the first failure (as a serial scan
 * would). A deferred scan reports none: its profile is already open. */
static pk_status finish_parallel_scan(scan_job *job, uint32_t n, uint32_t fail, const hk_array *a)
{
    int oom = 0;
    for (unsigned k = 0; k < PK_MAX_WORKERS; k++) {
        oom |= pk_idset_merge(&job->r->unlisted[HK_PROFILE], &job->unlisted[k]);
        pk_idset_free(&job->unlisted[k]);
        free(job->seen[k]);
    }
    for (uint32_t i = 0; i < n && i < fail && !job->deferred; i++)
        if (!job->skip || !job->skip[i])
            report_block_stats(job->r, job->f, i, a->base + (uint64_t)i * a->stride,
                               &job->stats[i]);
    return oom ? pk_fail_nomem("collecting context ids") : PK_OK;
}

/* Serial scan of block i, emitting its records when dumping. */
static pk_status scan_one_block(hk_reader *r, const hk_file *f, const pk_loc_rec *locs, uint32_t i,
                                const hk_array *a)
{
    scan_state ss = {r, f, hk_want(r, HK_S_PROFILE_VALUES), NULL, 0, NULL, 0};
    block_stats bs = {0};
    pk_status st = scan_block(&ss, i, locs[i].is_summary, &locs[i].plane, &bs);
    if (!st) report_block_stats(r, f, i, a->base + (uint64_t)i * a->stride, &bs);
    return st;
}

static pk_status scan_blocks(hk_reader *r, const pk_loc_rec *locs, uint32_t n, const hk_array *a,
                             const unsigned char *skip, int deferred)
{
    const hk_file *f = &r->f[HK_PROFILE];
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!skip || !skip[i])
            total += locs[i].plane.nvals * PK_LM_VAL_SIZE +
                     (uint64_t)locs[i].plane.nidx * PK_LM_IDX_SIZE;
    unsigned workers = hk_workers(r, total);
    scan_job *job = calloc(1, sizeof *job);
    block_stats *stats = calloc(n ? n : 1, sizeof *stats);
    if (!job || !stats) {
        free(job);
        free(stats);
        return pk_fail_nomem("scanning profile.db");
    }
    *job = (scan_job){.r = r,
                      .f = f,
                      .locs = locs,
                      .skip = skip,
                      .deferred = deferred,
                      .stats = stats,
                      .seen_bits = noted_bits_for(r->p)};
    hk_block_scan bs = {profile_plane,
                        scan_profile,
                        PK_LM_VAL_SIZE,
                        PK_LM_IDX_SIZE,
                        f->source ? &f->source->map : NULL,
                        job};
    uint32_t fail;
    char message[1024] = "";
    pk_status st = hk_scan_blocks(&bs, workers, n, &fail);
    if (st) snprintf(message, sizeof message, "%s", pk_error_last());
    pk_status fin = finish_parallel_scan(job, n, fail, a);
    free(stats);
    free(job);
    return st ? pk_fail(st, "%s", message) : fin;
}

/* ---- deferred validation (read_lazy.c) ---- */

uint64_t hk_defer_min_bytes = 16u << 20;

/* Whether the plain profiles' blocks are left to deferred validation:
 * a big database with a summary profile, opened for questions (not a
 * dump, not `check`'s KEEP_GOING, not PK_OPEN_RECOMPUTE). */
static int defer_profiles(const hk_reader *r, const pk_loc_rec *locs, uint32_t n)
{
    if (r->emit || (r->flags & (PK_OPEN_KEEP_GOING | PK_OPEN_RECOMPUTE))) return 0;
    uint64_t plain = 0;
    int summary = 0;
    for (uint32_t i = 0; i < n; i++) {
        summary |= locs[i].is_summary;
        if (!locs[i].is_summary)
            plain += locs[i].plane.nvals * PK_LM_VAL_SIZE +
                     (uint64_t)locs[i].plane.nidx * PK_LM_IDX_SIZE;
    }
    return summary && plain >= hk_defer_min_bytes;
}

pk_status hk_profile_check_block(hk_reader *r, uint32_t i)
{
    scan_state ss = {r, &r->f[HK_PROFILE], 0, NULL, 1, NULL, 0};
    block_stats bs = {0};
    const pk_loc_rec *loc = &r->p->locs[i];
    return scan_block(&ss, i, loc->is_summary, &loc->plane, &bs);
}

pk_status hk_profile_check_blocks(hk_reader *r, const unsigned char *skip)
{
    return scan_blocks(r, r->p->locs, r->p->n_locs, NULL, skip, 1);
}

pk_status hk_read_profiles(hk_reader *r)
{
    hk_file *f = &r->f[HK_PROFILE];
    pk_profile *p = r->p;
    hk_array a;
    uint64_t h;
    pk_status st = hk_read_file_header(r, f, "prof", "_prof.db", 2, HK_SZ_PROF_HEADER);
    if (!st) st = hk_section_header(f, PI_SECTION, 0x0d, &h);
    /* meta.db decided the layout: a 40-byte {PI} next to a final-layout
     * meta.db is refused as too small, like any other shrunken size. */
    if (!st)
        st = hk_array_in_section(r, f, PI_SECTION, "Profile Info: pProfiles", pk_le64(f->data + h),
                                 pk_le32(f->data + h + 8), f->data[h + 0x0c],
                                 r->intermediate ? HK_V40I_SZ_PROFILE : HK_SZ_PROFILE, &a);
    if (st) return st;
    uint32_t n = (uint32_t)a.count;
    pk_loc_rec *locs = pk_arena_array(&p->arena, n ? n : 1, sizeof *locs);
    unsigned char *summary = pk_arena_alloc(&p->arena, n ? n : 1);
    if (!locs || !summary) return pk_fail_nomem("reading profiles");
    /* A dump interleaves each profile's values with its header, in file
     * order; otherwise headers first, then all blocks (in parallel). */
    int interleave = hk_want(r, HK_S_PROFILE_VALUES);
    hk_claim claim = {0};
    for (uint32_t i = 0; i < n && !st; i++) {
        st = read_profile_info(r, f, i, a.base + (uint64_t)i * a.stride, &locs[i]);
        if (!st)
            st = hk_claim_add(r, f, &claim,
                              locs[i].plane.nvals * PK_LM_VAL_SIZE +
                                  (uint64_t)locs[i].plane.nidx * PK_LM_IDX_SIZE,
                              "profile", i);
        summary[i] = (unsigned char)locs[i].is_summary;
        if (!st && interleave) st = scan_one_block(r, f, locs, i, &a);
    }
    if (st) return st;
    /* deferred: the summary's blocks now, the others when a question reads them */
    r->deferred = !interleave && defer_profiles(r, locs, n);
    if (!r->deferred && f->source) pk_map_willneed(&f->source->map);
    unsigned char *plain = r->deferred ? malloc(n) : NULL; /* the blocks left for later */
    if (r->deferred && !plain) return pk_fail_nomem("reading profiles");
    for (uint32_t i = 0; plain && i < n; i++)
        plain[i] = !summary[i];
    if (!interleave) st = scan_blocks(r, locs, n, &a, plain, 0);
    free(plain);
    if (st) return st;
    p->locs = locs;
    p->n_locs = n;
    r->n_profiles = n;
    r->profile_is_summary = summary;
    return PK_OK;
}
