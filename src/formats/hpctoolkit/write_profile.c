/*
 * formats/hpctoolkit/write_profile.c — profile.db from the model, and the
 * order of its profiles.
 *
 * The model's location planes are already in profile.db's packed value
 * layout, so the value blocks are written straight from them (from the
 * mapped input when the profile was read from a database): the writer's
 * cost is the write(2) of the bytes, nothing per value. Layout:
 *   header | Profile Info section (header + {PI} array) |
 *   Identifier Tuple section | value blocks (values, then context index,
 *   each block 8-byte aligned) | footer
 * Offsets are computed first, so the file is written front to back once.
 */
#include <stdlib.h>
#include <string.h>

#include "hpctk_write.h"
#include "util/error.h"
#include "util/outfile.h"

void hk_put_file_header(unsigned char *h, const char *format)
{
    memset(h, 0, 16);
    memcpy(h, "HPCTOOLKIT", 10);
    memcpy(h + 10, format, 4);
    h[14] = 4; /* major version */
    h[15] = 0; /* minor version */
}

void hk_order_free(hk_order *o)
{
    free(o->loc_of_prof);
    free(o->prof_of_loc);
    *o = (hk_order){0};
}

pk_status hk_order_init(const pk_profile *p, hk_order *o)
{
    *o = (hk_order){0};
    uint32_t summary = PK_NONE;
    for (uint32_t l = 0; l < p->n_locs && summary == PK_NONE; l++)
        if (p->locs[l].is_summary) summary = l;
    o->added_summary = summary == PK_NONE;
    o->n_profiles = p->n_locs + (o->added_summary ? 1u : 0u);
    o->loc_of_prof = malloc(((size_t)o->n_profiles + 1) * sizeof *o->loc_of_prof);
    o->prof_of_loc = malloc(((size_t)p->n_locs + 1) * sizeof *o->prof_of_loc);
    if (!o->loc_of_prof || !o->prof_of_loc) {
        hk_order_free(o);
        return pk_fail_nomem("ordering profiles");
    }
    uint32_t k = 0;
    o->loc_of_prof[k++] = summary;
    for (int pass = 0; pass < 2; pass++) /* plain, then further summaries (hpctk_write.h) */
        for (uint32_t l = 0; l < p->n_locs; l++)
            if (l != summary && p->locs[l].is_summary == pass) o->loc_of_prof[k++] = l;
    o->identity = !o->added_summary;
    for (uint32_t i = 0; i < o->n_profiles; i++) {
        uint32_t l = o->loc_of_prof[i];
        if (l != PK_NONE) o->prof_of_loc[l] = i;
        if (l != i) o->identity = 0;
    }
    return PK_OK;
}

static const pk_plane *plane_of(const pk_profile *p, const hk_order *o, uint32_t prof)
{
    static const pk_plane empty;
    uint32_t l = o->loc_of_prof[prof];
    return l == PK_NONE ? &empty : &p->locs[l].plane;
}

static uint64_t align8(uint64_t x)
{
    return (x + 7) & ~(uint64_t)7;
}

void hk_prof_layout_free(hk_prof_layout *L)
{
    free(L->tuple_at), free(L->vals_at), free(L->nvals), free(L->nidx);
    memset(L, 0, sizeof *L);
}

pk_status hk_prof_layout_init(hk_prof_layout *L, uint32_t n_profiles)
{
    memset(L, 0, sizeof *L);
    L->tuple_at = malloc(((size_t)n_profiles + 1) * sizeof *L->tuple_at);
    L->vals_at = malloc(((size_t)n_profiles + 1) * sizeof *L->vals_at);
    L->nvals = calloc((size_t)n_profiles + 1, sizeof *L->nvals);
    L->nidx = calloc((size_t)n_profiles + 1, sizeof *L->nidx);
    if (L->tuple_at && L->vals_at && L->nvals && L->nidx) return PK_OK;
    hk_prof_layout_free(L);
    return pk_fail_nomem("laying out profile.db");
}

void hk_prof_layout_plan(const pk_profile *p, const hk_order *o, hk_prof_layout *L)
{
    L->infos_size = 0x10 + (uint64_t)o->n_profiles * HK_SZ_PROFILE;
    uint64_t at = L->tuples_lo = align8(HK_SZ_PROF_HEADER + L->infos_size);
    for (uint32_t i = 0; i < o->n_profiles; i++) {
        uint32_t l = o->loc_of_prof[i];
        L->tuple_at[i] = 0;
        /* no summary has one: hpcviewer lists every profile with a tuple
         * as a thread, whatever its isSummary flag says */
        if (l == PK_NONE || p->locs[l].is_summary) continue;
        L->tuple_at[i] = at;
        at += 8 + (uint64_t)HK_SZ_ID * p->locs[l].n_ids;
    }
    L->tuples_hi = at;
    for (uint32_t i = 0; i < o->n_profiles; i++) {
        L->vals_at[i] = at;
        at = align8(at + L->nvals[i] * PK_LM_VAL_SIZE + (uint64_t)L->nidx[i] * PK_LM_IDX_SIZE);
    }
    L->end = at;
}

static void put_infos(pk_out *out, const pk_profile *p, const hk_order *o, const hk_prof_layout *L)
{
    pk_out_u64(out, HK_SZ_PROF_HEADER + 0x10); /* pProfiles */
    pk_out_u32(out, o->n_profiles);
    pk_out_u8(out, HK_SZ_PROFILE);
    pk_out_zeros(out, 3);
    for (uint32_t i = 0; i < o->n_profiles; i++) {
        uint32_t l = o->loc_of_prof[i];
        int summary = l == PK_NONE || p->locs[l].is_summary;
        pk_out_u64(out, L->nvals[i]);
        pk_out_u64(out, L->vals_at[i]);
        pk_out_u32(out, L->nidx[i]);
        pk_out_u32(out, 0);
        pk_out_u64(out, L->vals_at[i] + L->nvals[i] * PK_LM_VAL_SIZE);
        pk_out_u64(out, L->tuple_at[i]);
        pk_out_u32(out, summary ? 1u : 0u); /* flags: isSummary */
        pk_out_u32(out, 0);
    }
}

static void put_tuples(pk_out *out, const pk_profile *p, const hk_order *o, const hk_prof_layout *L)
{
    pk_out_align(out, 8);
    pk_out_expect(out, L->tuples_lo, "identifier tuples");
    for (uint32_t i = 0; i < o->n_profiles; i++) {
        if (!L->tuple_at[i]) continue;
        const pk_loc_rec *loc = &p->locs[o->loc_of_prof[i]];
        pk_out_u16(out, (uint16_t)loc->n_ids);
        pk_out_zeros(out, 6);
        for (uint32_t k = 0; k < loc->n_ids; k++) {
            const pk_ident *id = &loc->ids[k];
            pk_out_u8(out, (uint8_t)id->kind);
            pk_out_u8(out, 0);
            pk_out_u16(out, id->flags);
            pk_out_u32(out, id->logical);
            pk_out_u64(out, id->physical);
        }
    }
}

void hk_prof_put_head(pk_out *out, const pk_profile *p, const hk_order *o, const hk_prof_layout *L)
{
    unsigned char h[HK_SZ_PROF_HEADER] = {0};
    hk_put_file_header(h, "prof");
    pk_put_le64(h + 0x10, L->infos_size);
    pk_put_le64(h + 0x18, HK_SZ_PROF_HEADER);
    pk_put_le64(h + 0x20, L->tuples_hi - L->tuples_lo);
    pk_put_le64(h + 0x28, L->tuples_lo);
    pk_out_bytes(out, h, sizeof h);
    put_infos(out, p, o, L);
    put_tuples(out, p, o, L);
}

pk_status hk_prof_check_tuples(const pk_profile *p)
{
    for (uint32_t l = 0; l < p->n_locs; l++) {
        if (p->locs[l].n_ids > UINT16_MAX)
            return pk_fail(PK_ERR_UNSUPPORTED, "profile.db: location %u has %u identifiers", l,
                           p->locs[l].n_ids);
        for (uint32_t k = 0; k < p->locs[l].n_ids; k++)
            if (p->locs[l].ids[k].kind > UINT8_MAX)
                return pk_fail(PK_ERR_UNSUPPORTED,
                               "profile.db: location %u: identifier kind %u does not fit a byte", l,
                               p->locs[l].ids[k].kind);
    }
    return PK_OK;
}

/* Blocks go out straight from the planes; pages of a mapped input are
 * given back behind the writer, so converting a huge database does not
 * keep it resident. */
static void put_blocks(pk_out *out, const pk_profile *p, const hk_order *o, const hk_prof_layout *L)
{
    pk_release rel;
    pk_release_start(&rel, o->n_profiles ? pk_model_mapping_of(p, plane_of(p, o, 0)->vals) : NULL);
    const unsigned char *last = NULL;
    for (uint32_t i = 0; i < o->n_profiles && !out->status; i++) {
        const pk_plane *pl = plane_of(p, o, i);
        pk_out_align(out, 8);
        pk_out_expect(out, L->vals_at[i], "profile value block");
        pk_release_advance(&rel, hk_plane_lo(pl));
        pk_out_bytes(out, pl->vals, pl->nvals * PK_LM_VAL_SIZE);
        pk_out_bytes(out, pl->idx, (size_t)pl->nidx * PK_LM_IDX_SIZE);
        pk_release_advance(&rel, last = hk_plane_hi(pl, PK_LM_VAL_SIZE, PK_LM_IDX_SIZE));
    }
    if (last) pk_release_finish(&rel, last);
    pk_out_align(out, 8);
}

pk_status hk_write_profile_db(const pk_profile *p, const hk_order *o, const char *path,
                              uint64_t *bytes)
{
    hk_prof_layout L;
    pk_status st = hk_prof_check_tuples(p);
    if (!st) st = hk_prof_layout_init(&L, o->n_profiles);
    if (st) return st;
    for (uint32_t i = 0; i < o->n_profiles; i++)
        L.nvals[i] = plane_of(p, o, i)->nvals, L.nidx[i] = plane_of(p, o, i)->nidx;
    hk_prof_layout_plan(p, o, &L);
    pk_out out;
    if (pk_out_open(&out, path) == PK_OK) {
        hk_prof_put_head(&out, p, o, &L);
        put_blocks(&out, p, o, &L);
        pk_out_expect(&out, L.end, "profile.db footer");
        pk_out_bytes(&out, "_prof.db", 8);
    }
    *bytes += out.offset;
    hk_prof_layout_free(&L);
    return pk_out_close(&out);
}
