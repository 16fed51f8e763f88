/*
 * formats/cube/place.c — Cube's metric-major rows into the model's
 * location-major value planes.
 *
 * Cube stores, per metric, rows (one per call-tree node) of one value per
 * location; the model wants, per location, values sorted by context, then
 * column. Moving value by value from one layout to the other scatters
 * every write over all the locations' planes: a cache and TLB miss per
 * value. So locations are handled in chunks of a few:
 *   1. stage: every metric's rows are copied, in row order, into a
 *      staging area per location of the chunk. The chunk's part of a row
 *      is contiguous in the file, and each location's writes run on
 *      sequentially;
 *   2. gather: each location's plane is read out of its staging area in
 *      context order through one table shared by all locations, which
 *      lists for every context where each of its values sits in the
 *      staging area and which column it is. Zeros are skipped.
 * Chunks are independent; workers take contiguous ranges of them, and
 * each chunk's planes go into one block the model adopts.
 */
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/mapfile.h"
#include "util/parallel.h"
#include "values.h"

#define STAGE_BYTES (8u << 20)  /* staging area per worker, all locations of a chunk */
#define BLOCK_BYTES (64u << 20) /* a chunk's planes at their largest */
#define ROW_BLOCK   64          /* rows decoded at a time */

typedef struct worker {
    double *stage;      /* chunk x n_stage */
    double *tmp;        /* ROW_BLOCK x chunk x max_comp decoded values */
    unsigned char *idx; /* one location's index, before it follows the values */
    double *root;       /* per column: the root's value being combined */
    uint8_t *root_set;
    pk_status st;
} worker;

typedef struct plan {
    cube_read *r;
    const job *jobs;
    size_t n_jobs;
    uint64_t *job_at;  /* staging offset of each job's first value */
    uint64_t n_stage;  /* staged doubles per location */
    uint64_t *base;    /* first gather slot of each bucket (n_buckets + 1) */
    uint32_t *slot_at; /* staging offset of each slot's value */
    uint16_t *slot_col;
    uint32_t *ctx_id; /* context id of each bucket */
    uint8_t *top;     /* 1 for a top-level cnode's bucket */
    uint32_t n_buckets, n_used, chunk, n_chunks, max_comp;
    uint64_t plane_max;    /* bytes one location's plane can need */
    unsigned char **block; /* per chunk: its locations' planes */
    worker w[PK_MAX_WORKERS];
} plan;

/* Slots per bucket, then each slot's staging offset and column: buckets
 * in context order, slots within a bucket in column (= job) order. */
static pk_status plan_slots(plan *P)
{
    const cube_read *r = P->r;
    uint32_t nb = P->n_buckets;
    P->base = calloc((size_t)nb + 1, sizeof *P->base);
    uint64_t *fill = calloc((size_t)nb + 1, sizeof *fill);
    if (!P->base || !fill) return free(fill), pk_fail_nomem("laying out values");
    for (size_t k = 0; k < P->n_jobs; k++) {
        const job *j = &P->jobs[k];
        const cube_mbuilt *b = &r->mb[j->mdef];
        for (uint32_t i = 0; i < j->n_rows; i++) {
            uint32_t row = j->rows ? get32(j->rows + 4 * (size_t)i, j->swap) : i;
            fill[r->bucket_of[cnode_of_row(r, b, row)]] += b->type.n_comp;
        }
    }
    for (uint32_t i = 0; i < nb; i++) {
        P->base[i + 1] = P->base[i] + fill[i];
        P->n_used += fill[i] != 0;
        fill[i] = P->base[i];
    }
    P->slot_at = malloc((P->base[nb] + 1) * sizeof *P->slot_at);
    P->slot_col = malloc((P->base[nb] + 1) * sizeof *P->slot_col);
    if (!P->slot_at || !P->slot_col) return free(fill), pk_fail_nomem("laying out values");
    for (size_t k = 0; k < P->n_jobs; k++) {
        const job *j = &P->jobs[k];
        const cube_mbuilt *b = &r->mb[j->mdef];
        for (uint32_t i = 0; i < j->n_rows; i++) {
            uint32_t row = j->rows ? get32(j->rows + 4 * (size_t)i, j->swap) : i;
            uint32_t bk = r->bucket_of[cnode_of_row(r, b, row)];
            for (uint32_t c = 0; c < b->type.n_comp; c++, fill[bk]++) {
                P->slot_at[fill[bk]] = (uint32_t)(P->job_at[k] + (uint64_t)i * b->type.n_comp + c);
                P->slot_col[fill[bk]] = (uint16_t)(b->column + c);
            }
        }
    }
    free(fill);
    return PK_OK;
}

/* Where each job's values go in a staging area. */
static pk_status plan_staging(plan *P)
{
    const cube_read *r = P->r;
    P->job_at = malloc((P->n_jobs + 1) * sizeof *P->job_at);
    if (!P->job_at) return pk_fail_nomem("laying out values");
    P->max_comp = 1;
    for (size_t k = 0; k < P->n_jobs; k++) {
        uint32_t nc = r->mb[P->jobs[k].mdef].type.n_comp;
        P->job_at[k] = P->n_stage;
        P->n_stage += (uint64_t)P->jobs[k].n_rows * nc;
        if (nc > P->max_comp) P->max_comp = nc;
    }
    if (P->n_stage > UINT32_MAX)
        return pk_fail(PK_ERR_FORMAT, "%s: more than 2^32 values per location", r->path);
    return PK_OK;
}

/* Locations per chunk: as many as fit the staging area, and no more than
 * BLOCK_BYTES of planes at their largest. */
static pk_status plan_chunks(plan *P)
{
    uint64_t per_loc = (P->n_stage ? P->n_stage : 1) * sizeof(double), n = P->r->n_locs;
    uint64_t chunk = STAGE_BYTES / per_loc, by_planes = BLOCK_BYTES / P->plane_max;
    if (chunk > by_planes) chunk = by_planes;
    if (chunk > n) chunk = n;
    P->chunk = chunk ? (uint32_t)chunk : 1;
    P->n_chunks = (uint32_t)((n + P->chunk - 1) / P->chunk);
    P->block = calloc((size_t)P->n_chunks + 1, sizeof *P->block);
    return P->block ? PK_OK : pk_fail_nomem("laying out values");
}

static pk_status plan_buckets(plan *P)
{
    const cube_read *r = P->r;
    P->ctx_id = malloc(((size_t)P->n_buckets + 1) * sizeof *P->ctx_id);
    P->top = calloc((size_t)P->n_buckets + 1, 1);
    if (!P->ctx_id || !P->top) return pk_fail_nomem("laying out values");
    for (uint32_t d = 0; d < P->n_buckets; d++) {
        P->ctx_id[r->bucket_of[d]] = (uint32_t)r->a.cnodes[d].id;
        /* the written root's own values are the root's; else it combines the tops */
        P->top[r->bucket_of[d]] = r->a.cnodes[d].parent == CUBE_NONE && r->root_cnode == CUBE_NONE;
    }
    /* values, the root's (inclusive columns combined over the top-level
     * cnodes, so the root holds the program total as in other formats),
     * then the index */
    P->plane_max = (P->base[P->n_buckets] + r->p->n_columns) * PK_LM_VAL_SIZE +
                   ((uint64_t)P->n_used + 1) * PK_LM_IDX_SIZE;
    return PK_OK;
}

/* Rows [i0, i0 + n) of job k, for the chunk's locations [l0, l0 + nl),
 * into their staging areas. */
static void stage_rows(const plan *P, worker *w, size_t k, uint32_t i0, uint32_t n, uint32_t l0,
                       uint32_t nl)
{
    const job *j = &P->jobs[k];
    const cube_dtype *t = &P->r->mb[j->mdef].type;
    uint32_t nc = t->n_comp, all = P->r->n_locs;
    for (uint32_t i = 0; i < n; i++)
        cube_decode(t, j->swap, j->data + ((uint64_t)(i0 + i) * all + l0) * t->size, nl,
                    w->tmp + (size_t)i * nl * nc);
    for (uint32_t l = 0; l < nl; l++) {
        double *dst = w->stage + l * P->n_stage + P->job_at[k] + (uint64_t)i0 * nc;
        const double *src = w->tmp + (size_t)l * nc;
        for (uint32_t i = 0; i < n; i++, dst += nc, src += (size_t)nl * nc)
            for (uint32_t c = 0; c < nc; c++)
                dst[c] = src[c];
    }
}

static void stage_chunk(const plan *P, worker *w, uint32_t l0, uint32_t nl)
{
    for (size_t k = 0; k < P->n_jobs; k++)
        for (uint32_t i0 = 0; i0 < P->jobs[k].n_rows; i0 += ROW_BLOCK) {
            uint32_t n = P->jobs[k].n_rows - i0;
            stage_rows(P, w, k, i0, n < ROW_BLOCK ? n : ROW_BLOCK, l0, nl);
        }
}

/* A top-level cnode's inclusive value into the root's. */
static void add_to_root(const pk_profile *p, worker *w, uint16_t c, double v)
{
    if (p->scopes[p->columns[c].scope].kind != PK_SCOPE_INCLUSIVE) return;
    pk_combine how = p->metrics[p->columns[c].metric].combine;
    double *acc = &w->root[c];
    if (!w->root_set[c])
        *acc = v, w->root_set[c] = 1;
    else if (how == PK_COMBINE_MIN)
        *acc = v < *acc ? v : *acc;
    else if (how == PK_COMBINE_MAX)
        *acc = v > *acc ? v : *acc;
    else
        *acc += v;
}

static inline void put_value(unsigned char *at, uint16_t column, double v)
{
    pk_put_le16(at, column);
    memcpy(at + 2, &v, 8);
}

static inline void put_index(unsigned char *at, uint32_t id, uint64_t first)
{
    pk_put_le32(at, id);
    pk_put_le64(at + 4, first);
}

/* The root's values after the cnodes' (its id is the largest). */
static void append_root(const plan *P, worker *w, unsigned char *vals, uint64_t *nv,
                        unsigned char *idx, uint32_t *ni)
{
    const pk_profile *p = P->r->p;
    uint64_t first = *nv;
    for (uint32_t c = 0; c < p->n_columns; c++)
        if (w->root_set[c] && w->root[c] != 0)
            put_value(vals + (*nv)++ * PK_LM_VAL_SIZE, (uint16_t)c, w->root[c]);
    memset(w->root_set, 0, p->n_columns);
    if (*nv != first)
        put_index(idx + (size_t)(*ni)++ * PK_LM_IDX_SIZE, (uint32_t)p->ctx[0].id, first);
}

/* Location l's plane, gathered from its staging area into `out` (values,
 * then index). Returns the bytes written. */
static uint64_t gather(const plan *P, worker *w, const double *stage, unsigned char *out,
                       pk_plane *pl)
{
    const pk_profile *p = P->r->p;
    unsigned char *idx = w->idx;
    uint64_t nv = 0;
    uint32_t ni = 0;
    for (uint32_t b = 0; b < P->n_buckets; b++) {
        uint64_t first = nv;
        for (uint64_t s = P->base[b]; s < P->base[b + 1]; s++) {
            double v = stage[P->slot_at[s]];
            if (v == 0) continue;
            put_value(out + nv++ * PK_LM_VAL_SIZE, P->slot_col[s], v);
            if (P->top[b]) add_to_root(p, w, P->slot_col[s], v);
        }
        if (nv != first) put_index(idx + (size_t)ni++ * PK_LM_IDX_SIZE, P->ctx_id[b], first);
    }
    append_root(P, w, out, &nv, idx, &ni);
    memcpy(out + nv * PK_LM_VAL_SIZE, idx, (size_t)ni * PK_LM_IDX_SIZE);
    *pl = (pk_plane){out, out + nv * PK_LM_VAL_SIZE, nv, ni};
    return nv * PK_LM_VAL_SIZE + (uint64_t)ni * PK_LM_IDX_SIZE;
}

/* Chunk c: stage its locations, gather their planes into one block. */
static void place_chunk(plan *P, worker *w, uint32_t c)
{
    pk_loc_rec *locs = P->r->p->locs;
    uint32_t l0 = c * P->chunk, nl = P->r->n_locs - l0 < P->chunk ? P->r->n_locs - l0 : P->chunk;
    unsigned char *block = malloc(nl * P->plane_max + 1);
    if (!block) {
        w->st = pk_fail_nomem("storing values");
        return;
    }
    stage_chunk(P, w, l0, nl);
    uint64_t used = 0;
    for (uint32_t l = 0; l < nl; l++) {
        pk_mem_prefault(block + used, P->plane_max); /* at most what the next plane can use */
        used += gather(P, w, w->stage + l * P->n_stage, block + used, &locs[l0 + l].plane);
    }
    unsigned char *shrunk = realloc(block, used + 1);
    if (shrunk) block = shrunk;
    P->block[c] = block;
    for (uint32_t l = l0; l < l0 + nl; l++) { /* the block may have moved */
        pk_plane *pl = &locs[l].plane;
        pl->vals = block;
        pl->idx = block + pl->nvals * PK_LM_VAL_SIZE;
        block += pl->nvals * PK_LM_VAL_SIZE + (uint64_t)pl->nidx * PK_LM_IDX_SIZE;
    }
}

static void place_range(void *user, unsigned wi, uint32_t begin, uint32_t end)
{
    plan *P = user;
    worker *w = &P->w[wi];
    for (uint32_t c = begin; c < end && !w->st; c++)
        place_chunk(P, w, c);
}

static pk_status worker_init(plan *P, worker *w)
{
    size_t n_cols = P->r->p->n_columns + 1;
    w->stage = malloc(P->chunk * P->n_stage * sizeof *w->stage + 1);
    uint64_t per_loc = (uint64_t)ROW_BLOCK * P->max_comp; /* a block's values, at most all */
    if (per_loc > P->n_stage) per_loc = P->n_stage;
    w->tmp = malloc(P->chunk * per_loc * sizeof *w->tmp + 1);
    w->idx = malloc(((size_t)P->n_used + 1) * PK_LM_IDX_SIZE);
    w->root = calloc(n_cols, sizeof *w->root);
    w->root_set = calloc(n_cols, 1);
    if (!w->stage || !w->tmp || !w->idx || !w->root || !w->root_set)
        return pk_fail_nomem("staging values");
    pk_mem_prefault(w->stage, P->chunk * P->n_stage * sizeof *w->stage);
    return PK_OK;
}

static void plan_free(plan *P, unsigned workers)
{
    for (unsigned i = 0; i < workers; i++) {
        worker *w = &P->w[i];
        free(w->stage), free(w->tmp), free(w->idx), free(w->root), free(w->root_set);
    }
    for (uint32_t c = 0; P->block && c < P->n_chunks; c++)
        free(P->block[c]);
    free(P->block), free(P->job_at), free(P->base), free(P->slot_at), free(P->slot_col);
    free(P->ctx_id), free(P->top);
}

/* Each chunk's block to the model, which frees it with the profile. */
static pk_status adopt_blocks(plan *P)
{
    for (uint32_t c = 0; c < P->n_chunks; c++) {
        unsigned char *b = P->block[c];
        P->block[c] = NULL;
        if (pk_model_adopt_owned(P->r->p, b)) return pk_fail_nomem("storing values");
    }
    return PK_OK;
}

pk_status cube_place_values(cube_read *r, const job *jobs, size_t n_jobs)
{
    plan P = {.r = r, .jobs = jobs, .n_jobs = n_jobs, .n_buckets = (uint32_t)r->a.n_cnodes};
    uint64_t bytes = 0;
    for (size_t k = 0; k < n_jobs; k++)
        bytes += (uint64_t)jobs[k].n_rows * r->n_locs * r->mb[jobs[k].mdef].type.size;
    unsigned workers = pk_workers_for(bytes);
    pk_status st = plan_staging(&P);
    if (!st) st = plan_slots(&P);
    if (!st) st = plan_buckets(&P);
    if (!st) st = plan_chunks(&P);
    if (workers > P.n_chunks) workers = P.n_chunks ? P.n_chunks : 1;
    for (unsigned i = 0; i < workers && !st; i++)
        st = worker_init(&P, &P.w[i]);
    if (!st) pk_parallel_ranges(workers, P.n_chunks, NULL, place_range, &P);
    for (unsigned i = 0; i < workers && !st; i++)
        st = P.w[i].st;
    if (!st) st = adopt_blocks(&P);
    plan_free(&P, workers);
    return st;
}
