/*
 * formats/hpctoolkit/write_cct.c — cct.db: the values again, context-major.
 *
 * The model's context-major view (read from the source's cct.db, or built
 * by transposing the location planes) is already in cct.db's packed
 * layout; when profiles keep their indexes it is written as is, otherwise
 * each value's profile index is translated on the way out. The {CI}
 * array is indexed directly by context id, so ids the model does not use
 * get empty entries. Layout:
 *   header | Context Info section (header + {CI} array) |
 *   value blocks by context id (values, then metric index; 8-aligned) |
 *   footer
 */
#include <stdlib.h>
#include <string.h>

#include "hpctk_write.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/outfile.h"

/* Largest {CI} array we accept relative to the number of contexts: ids
 * that sparse would make cct.db mostly holes (and huge). */
#define MAX_ID_SPREAD(n) (16ull * (n) + (1ull << 20))

static uint64_t align8(uint64_t x)
{
    return (x + 7) & ~(uint64_t)7;
}

static const pk_plane *cm_of_id(const pk_profile *p, uint64_t id)
{
    static const pk_plane empty;
    uint32_t i = pk_model_ctx_find(p, id);
    return i == PK_NONE ? &empty : &p->cm[i];
}

/* Values of one context with profile indexes translated, through a
 * small staging buffer. */
static void put_translated(pk_out *out, const pk_plane *pl, const hk_order *o, uint32_t p_locs)
{
    unsigned char stage[PK_CM_VAL_SIZE * 4096];
    size_t n = 0;
    for (uint64_t v = 0; v < pl->nvals; v++) {
        const unsigned char *src = pl->vals + v * PK_CM_VAL_SIZE;
        uint32_t loc = pk_le32(src);
        pk_put_le32(stage + n, loc < p_locs ? o->prof_of_loc[loc] : loc);
        memcpy(stage + n + 4, src + 4, 8);
        n += PK_CM_VAL_SIZE;
        if (n == sizeof stage) {
            pk_out_bytes(out, stage, n);
            n = 0;
        }
    }
    pk_out_bytes(out, stage, n);
}

uint64_t hk_cct_block_size(const pk_plane *pl)
{
    return align8(pl->nvals * PK_CM_VAL_SIZE + (uint64_t)pl->nidx * PK_CM_IDX_SIZE);
}

uint64_t hk_cct_first_block(uint64_t n_ids)
{
    return align8(HK_SZ_CCT_HEADER + 0x10 + n_ids * HK_SZ_CCT_CTX);
}

void hk_cct_put_infos(pk_out *out, hk_plane_of_id plane, const void *user, uint64_t id_lo,
                      uint64_t id_hi, uint64_t at)
{
    for (uint64_t id = id_lo; id < id_hi; id++) {
        const pk_plane *pl = plane(user, id);
        unsigned char e[HK_SZ_CCT_CTX] = {0}; /* one write a context, not five */
        pk_put_le64(e, pl->nvals);
        pk_put_le64(e + 8, at);
        pk_put_le16(e + 16, (uint16_t)pl->nidx);
        pk_put_le64(e + 24, at + pl->nvals * PK_CM_VAL_SIZE);
        pk_out_bytes(out, e, sizeof e);
        at += hk_cct_block_size(pl);
    }
}

void hk_cct_put_header(pk_out *out, uint64_t n_ids)
{
    uint64_t section = 0x10 + n_ids * HK_SZ_CCT_CTX;
    unsigned char h[HK_SZ_CCT_HEADER + 0x10] = {0};
    hk_put_file_header(h, "ctxt");
    pk_put_le64(h + 0x10, section);
    pk_put_le64(h + 0x18, HK_SZ_CCT_HEADER);
    pk_put_le64(h + 0x20, HK_SZ_CCT_HEADER + 0x10); /* section header: pCtxs */
    pk_put_le32(h + 0x28, (uint32_t)n_ids);
    h[0x2c] = HK_SZ_CCT_CTX;
    pk_out_bytes(out, h, sizeof h);
}

static const pk_plane *model_plane(const void *p, uint64_t id)
{
    return cm_of_id(p, id);
}

static void put_blocks(pk_out *out, const pk_profile *p, const hk_order *o, uint64_t n_ids)
{
    pk_release rel; /* pages of a mapped cct.db are given back behind the writer */
    pk_release_start(&rel,
                     p->n_ctx && p->cm_from_file ? pk_model_mapping_of(p, p->cm[0].vals) : NULL);
    for (uint64_t id = 0; id < n_ids && !out->status; id++) {
        const pk_plane *pl = cm_of_id(p, id);
        pk_release_advance(&rel, hk_plane_lo(pl));
        if (o->identity)
            pk_out_bytes(out, pl->vals, pl->nvals * PK_CM_VAL_SIZE);
        else
            put_translated(out, pl, o, p->n_locs);
        pk_out_bytes(out, pl->idx, (size_t)pl->nidx * PK_CM_IDX_SIZE);
        pk_out_align(out, 8);
        pk_release_advance(&rel, hk_plane_hi(pl, PK_CM_VAL_SIZE, PK_CM_IDX_SIZE));
    }
}

static pk_status count_ids(const pk_profile *p, const hk_cct_src *src, uint64_t *n_ids)
{
    uint64_t max = 0;
    for (uint32_t i = 0; i < p->n_ctx; i++) {
        uint32_t nidx = src ? hk_cct_src_nidx(src, i) : p->cm[i].nidx;
        if (p->ctx[i].id > max) max = p->ctx[i].id;
        if (nidx > UINT16_MAX)
            return pk_fail(PK_ERR_UNSUPPORTED, "cct.db: context %llu has values of %u metrics",
                           (unsigned long long)p->ctx[i].id, nidx);
    }
    if (max >= MAX_ID_SPREAD(p->n_ctx))
        return pk_fail(PK_ERR_UNSUPPORTED,
                       "cct.db: context ids up to %llu for %u contexts are too sparse for "
                       "cct.db's id-indexed table",
                       (unsigned long long)max, p->n_ctx);
    *n_ids = max + 1;
    return PK_OK;
}

/* The sizes of a context's block, counted (write_cct_chunks.c). */
typedef struct counted {
    const pk_profile *p;
    const hk_cct_src *src;
    pk_plane one;
} counted;

static const pk_plane *counted_plane(const void *user, uint64_t id)
{
    counted *c = (counted *)user;
    uint32_t i = pk_model_ctx_find(c->p, id);
    c->one = i == PK_NONE
                 ? (pk_plane){0}
                 : (pk_plane){NULL, NULL, hk_cct_src_nvals(c->src, i), hk_cct_src_nidx(c->src, i)};
    return &c->one;
}

pk_status hk_write_cct_db(const pk_profile *p, const hk_order *o, hk_cct_src *src, const char *path,
                          uint64_t *bytes)
{
    uint64_t n_ids = 0;
    pk_status st = src ? PK_OK : pk_model_ensure_cm(p);
    if (!st) st = count_ids(p, src, &n_ids);
    if (st) return st;
    pk_out out;
    counted c = {p, src, {0}};
    if (pk_out_open(&out, path) == PK_OK) {
        hk_cct_put_header(&out, n_ids);
        if (src)
            hk_cct_put_infos(&out, counted_plane, &c, 0, n_ids, hk_cct_first_block(n_ids));
        else
            hk_cct_put_infos(&out, model_plane, p, 0, n_ids, hk_cct_first_block(n_ids));
        pk_out_align(&out, 8);
        if (src)
            hk_cct_put_chunks(&out, src, o, n_ids);
        else
            put_blocks(&out, p, o, n_ids);
        pk_out_bytes(&out, "__ctx.db", 8);
    }
    *bytes += out.offset;
    return pk_out_close(&out);
}
