/*
 * formats/hpcrun/measure_plane.c — the point-value planes of a
 * measurement's locations, built on all cores.
 *
 * A location's plane holds its values sorted by (context, metric), the
 * values of one (context, metric) from several CCT nodes summed in the
 * order they were read (the sort is stable), zeros left out. Locations
 * are independent: workers take ranges of them, each sorting in a room
 * of its own, and hand back buffers the caller gives to the profile in
 * location order (the profile's allocator is not shared across threads).
 */
#include <stdlib.h>

#include "measure.h"
#include "util/bigsize.h"
#include "util/bytes.h"
#include "util/parallel.h"
#include "util/radix.h"
#include "util/vec.h"

typedef struct room { /* one worker's sorting space */
    pk_radix_kv *kv, *tmp;
    size_t cap_kv, cap_tmp;
} room;

typedef struct plane_job {
    hm_build *b;
    const uint32_t *new_index;
    pk_plane *planes; /* per location; vals is the malloc'ed block */
    room rooms[PK_MAX_WORKERS];
    int failed[PK_MAX_WORKERS]; /* out of memory */
} plane_job;

/* Location hl's values, sorted by (new context index, metric) and summed
 * per pair into kv; returns how many pairs are not zero. */
static uint64_t sorted_sums(room *r, const hm_loc *hl, const uint32_t *new_index)
{
    uint64_t n = hl->n_vals, nv = 0;
    pk_radix_kv *kv = r->kv;
    for (uint64_t i = 0; i < n; i++)
        kv[i] = (pk_radix_kv){(uint64_t)new_index[hl->vals[i].ctx] << 32 | hl->vals[i].metric,
                              pk_f64_bits(hl->vals[i].v)};
    pk_radix_sort_kv(kv, r->tmp, n);
    for (uint64_t i = 0; i < n; i++) {
        double x = pk_f64_from_bits(kv[i].val);
        while (i + 1 < n && kv[i + 1].key == kv[i].key)
            x += pk_f64_from_bits(kv[++i].val);
        if (x != 0) kv[nv++] = (pk_radix_kv){kv[i].key, pk_f64_bits(x)};
    }
    return nv;
}

/* Location hl's plane into *out, its values freed; -1 when out of memory
 * (hl untouched). */
static int make_plane(room *r, hm_loc *hl, const uint32_t *new_index, pk_plane *out)
{
    if (pk_vec_reserve((void **)&r->kv, &r->cap_kv, hl->n_vals + 1, sizeof *r->kv) ||
        pk_vec_reserve((void **)&r->tmp, &r->cap_tmp, hl->n_vals + 1, sizeof *r->tmp))
        return -1;
    uint64_t nv = sorted_sums(r, hl, new_index);
    const pk_radix_kv *kv = r->kv;
    unsigned char *buf = malloc(pk_big_bytes(nv * (PK_LM_VAL_SIZE + PK_LM_IDX_SIZE) + 1));
    if (!buf) return -1;
    unsigned char *idx = buf + nv * PK_LM_VAL_SIZE;
    uint32_t ni = 0;
    for (uint64_t i = 0; i < nv; i++) {
        uint32_t ctx = (uint32_t)(kv[i].key >> 32), metric = (uint32_t)kv[i].key;
        if (i == 0 || kv[i].key >> 32 != kv[i - 1].key >> 32) {
            pk_put_le32(idx + (size_t)ni * PK_LM_IDX_SIZE, ctx);
            pk_put_le64(idx + (size_t)ni * PK_LM_IDX_SIZE + 4, i);
            ni++;
        }
        pk_put_le16(buf + i * PK_LM_VAL_SIZE, (uint16_t)(HM_N_SCOPES * metric + HM_POINT));
        pk_put_le64(buf + i * PK_LM_VAL_SIZE + 2, kv[i].val);
    }
    *out = (pk_plane){buf, idx, nv, ni};
    free(hl->vals);
    hl->vals = NULL;
    return 0;
}

static void plane_range(void *user, unsigned w, uint32_t l0, uint32_t l1)
{
    plane_job *j = user;
    for (uint32_t l = l0; l < l1 && !j->failed[w]; l++)
        if (make_plane(&j->rooms[w], &j->b->locs[l], j->new_index, &j->planes[l])) j->failed[w] = 1;
}

static uint64_t plane_weight(void *user, uint32_t l)
{
    return ((const plane_job *)user)->b->locs[l].n_vals + 1;
}

void hm_free_planes(pk_plane *planes, uint32_t n)
{
    if (!planes) return;
    for (uint32_t l = 0; l < n; l++)
        free((void *)planes[l].vals);
    free(planes);
}

pk_status hm_make_planes(hm_build *b, const uint32_t *new_index, int parallel, pk_plane **out)
{
    uint64_t total = 0;
    for (uint32_t l = 0; l < b->n_locs; l++)
        total += b->locs[l].n_vals;
    unsigned workers = parallel ? pk_workers_for(total * sizeof(pk_radix_kv)) : 1;
    plane_job j = {.b = b, .new_index = new_index};
    j.planes = calloc((size_t)b->n_locs + 1, sizeof *j.planes);
    if (!j.planes) return pk_fail_nomem("sorting values");
    pk_parallel_ranges(workers, b->n_locs, plane_weight, plane_range, &j);
    int failed = 0;
    for (unsigned w = 0; w < PK_MAX_WORKERS; w++) {
        failed |= j.failed[w];
        free(j.rooms[w].kv), free(j.rooms[w].tmp);
    }
    if (failed) {
        hm_free_planes(j.planes, b->n_locs);
        return pk_fail_nomem("sorting values");
    }
    *out = j.planes;
    return PK_OK;
}
