/*
 * formats/cube/data.c — N.index and N.data into the model's value planes.
 *
 * Cube stores, per metric, rows (call-tree nodes) of one value per
 * location; the model stores, per location, values sorted by context then
 * column. Every (context, column) slot that any metric's index names is
 * laid out once — the layout is the same for every location — so a value
 * is written straight to its final place with no per-value search, then
 * each location's plane is compacted to its non-zero values. Row numbers
 * in N.index are positions in a call-tree enumeration, not cnode ids:
 * depth-first for EXCLUSIVE metrics, CubeLib's wide search for INCLUSIVE
 * ones (field notes, "N.index").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cube.h"
#include "util/bytes.h"
#include "util/error.h"

#define IDX_MAGIC   "CUBEX.INDEX"
#define DATA_MAGIC  "CUBEX.DATA"
#define ZDATA_MAGIC "ZCUBEX.DATA"
#define IDX_HEADER  18 /* magic 11, endian 4, version 2, format 1 */
enum { INDEX_SPARSE = 1, INDEX_DENSE = 3 };

/* One metric's data, located and checked. */
typedef struct job {
    uint32_t mdef;
    int swap;                  /* file endianness differs from little-endian */
    const unsigned char *rows; /* sparse: n_rows u32; NULL: dense */
    uint32_t n_rows;
    const unsigned char *data; /* n_rows x n_locs values */
    unsigned char *inflated;   /* malloc, for ZCUBEX.DATA */
} job;

static uint32_t get32(const unsigned char *d, int swap)
{
    uint32_t v = pk_le32(d);
    return swap ? __builtin_bswap32(v) : v;
}

static uint64_t get64(const unsigned char *d, int swap)
{
    uint64_t v = pk_le64(d);
    return swap ? __builtin_bswap64(v) : v;
}

static pk_status member_error(const cube_read *r, const cube_member *m, uint64_t at,
                              const char *what)
{
    return pk_fail(PK_ERR_FORMAT, "%s: member %s, byte %llu of the archive: %s", r->path, m->name,
                   (unsigned long long)(m->offset + at), what);
}

/* Cnode def of enumeration position `row` for metric definition i. */
static inline uint32_t cnode_of_row(const cube_read *r, const cube_mbuilt *b, uint32_t row)
{
    return b->inclusive ? r->wide[row] : row;
}

static pk_status read_index(cube_read *r, const cube_member *m, job *j, unsigned char *seen)
{
    uint32_t n_cnodes = (uint32_t)r->a.n_cnodes;
    if (m->size < IDX_HEADER || memcmp(m->data, IDX_MAGIC, 11) != 0)
        return member_error(r, m, 0, "not a CUBEX.INDEX header");
    uint32_t endian = pk_le32(m->data + 11);
    if (endian != 1 && endian != 0x01000000u)
        return member_error(r, m, 11, "the endianness marker is neither 1 nor 1 byte-swapped");
    j->swap = endian != 1;
    uint8_t format = m->data[17];
    if (format == INDEX_DENSE) {
        j->rows = NULL, j->n_rows = n_cnodes;
        return PK_OK;
    }
    if (format != INDEX_SPARSE) return member_error(r, m, 17, "unknown index format");
    if (m->size < IDX_HEADER + 4) return member_error(r, m, IDX_HEADER, "the row count is cut off");
    uint64_t n = get32(m->data + IDX_HEADER, j->swap);
    if (n > (m->size - IDX_HEADER - 4) / 4)
        return member_error(r, m, IDX_HEADER, "the row list runs past the end of the member");
    j->rows = m->data + IDX_HEADER + 4, j->n_rows = (uint32_t)n;
    memset(seen, 0, n_cnodes + 1u);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t row = get32(j->rows + 4 * (size_t)i, j->swap);
        if (row >= n_cnodes || seen[row]) {
            char msg[160];
            snprintf(msg, sizeof msg, "row %u is %s (the call tree has %u nodes)", row,
                     row >= n_cnodes ? "out of range" : "listed twice", n_cnodes);
            return member_error(r, m, IDX_HEADER + 4 + 4 * (uint64_t)i, msg);
        }
        seen[row] = 1;
    }
    return PK_OK;
}

/* Inflate ZCUBEX.DATA: one zlib stream per row (CubeW cube_metric_write_row). */
static pk_status inflate_rows(cube_read *r, const cube_member *m, job *j, uint64_t row_bytes)
{
    const uint64_t head = 11 + 8;
    if (m->size < head) return member_error(r, m, 11, "the row count is cut off");
    uint64_t n = get64(m->data + 11, j->swap);
    if (n != j->n_rows) return member_error(r, m, 11, "the row count differs from N.index");
    if (n > (m->size - head) / 24) return member_error(r, m, head, "the row table is cut off");
    uint64_t base = head + 24 * n;
    j->inflated = malloc(n * row_bytes + 1);
    if (!j->inflated) return pk_fail_nomem("inflating ZCUBEX.DATA");
    for (uint64_t i = 0; i < n; i++) {
        const unsigned char *e = m->data + head + 24 * i;
        uint64_t at = get64(e + 8, j->swap), size = get64(e + 16, j->swap);
        if (at > m->size - base || size > m->size - base - at)
            return member_error(r, m, head + 24 * i, "a compressed row lies outside the member");
        uLongf got = (uLongf)row_bytes;
        unsigned char *out = j->inflated + i * row_bytes;
        if (size == 0) { /* pycubexr skips empty entries: an all-zero row */
            memset(out, 0, row_bytes);
            continue;
        }
        if (uncompress(out, &got, m->data + base + at, (uLong)size) != Z_OK || got != row_bytes)
            return member_error(r, m, base + at, "a compressed row does not inflate to one row");
    }
    j->data = j->inflated;
    return PK_OK;
}

static pk_status read_data(cube_read *r, const cube_member *m, job *j, uint32_t size)
{
    uint64_t row_bytes = (uint64_t)r->n_locs * size;
    if (m->size >= 11 && memcmp(m->data, ZDATA_MAGIC, 11) == 0)
        return inflate_rows(r, m, j, row_bytes);
    if (m->size < 10 || memcmp(m->data, DATA_MAGIC, 10) != 0)
        return member_error(r, m, 0, "neither a CUBEX.DATA nor a ZCUBEX.DATA header");
    uint64_t have = m->size - 10;
    if (row_bytes && j->n_rows > have / row_bytes) {
        char msg[200];
        snprintf(msg, sizeof msg, "%u rows of %llu bytes need %llu bytes, the member has %llu",
                 j->n_rows, (unsigned long long)row_bytes,
                 (unsigned long long)(j->n_rows * row_bytes), (unsigned long long)have);
        return member_error(r, m, 10, msg);
    }
    if (have != j->n_rows * row_bytes)
        pk_model_diag(r->p, PK_SEV_WARNING, "trailing-data", r->path, m->name, 1,
                      m->offset + 10 + j->n_rows * row_bytes,
                      "%llu bytes after the last row are ignored",
                      (unsigned long long)(have - j->n_rows * row_bytes));
    j->data = m->data + 10;
    return PK_OK;
}

/* Largest UINT64 that survives CubeLib's uint64 -> double -> uint64 casts;
 * above it (within 1024 of 2^64) the cast is undefined and yields 0 on the
 * machines Cube runs on. Score-P writes such values when a hardware
 * counter difference went negative (pycubexr's L2_DCM_negative sample). */
#define CUBE_MAX_U64_AS_DOUBLE 0xFFFFFFFFFFFFFBFFull

static int beyond_double(const unsigned char *v, int swap)
{
    return get64(v, swap) > CUBE_MAX_U64_AS_DOUBLE;
}

/* Such values are read as 0, as CubeLib reads them and pycubexr simulates
 * (classes/values.py convert_type), and reported: following the tools
 * keeps every sum equal to theirs, and the warning says what was done. */
static void count_beyond_double(cube_read *r, const job *j, const cube_member *m)
{
    if (r->mb[j->mdef].type.dt != DT_U64) return;
    uint64_t n = (uint64_t)j->n_rows * r->n_locs, beyond = 0;
    for (uint64_t i = 0; i < n; i++)
        beyond += (uint64_t)beyond_double(j->data + 8 * i, j->swap);
    if (beyond)
        pk_model_diag(r->p, PK_SEV_WARNING, "unsigned-overflow", r->path, m->name, 1, m->offset,
                      "%llu values of UINT64 metric %s are within 1024 of 2^64 (a counter that "
                      "went backwards): read as 0, as CubeLib and pycubexr read them",
                      (unsigned long long)beyond, r->a.mdefs[j->mdef].uniq);
}

/* Locate and check metric definition i's members; *j->data NULL when the
 * metric has no data members (all values zero). */
static pk_status locate(cube_read *r, uint32_t i, job *j, unsigned char *seen)
{
    const cube_mdef *d = &r->a.mdefs[i];
    char name[32];
    memset(j, 0, sizeof *j);
    j->mdef = i;
    snprintf(name, sizeof name, "%u.index", d->id);
    const cube_member *mi = cube_tar_find(&r->tar, name);
    snprintf(name, sizeof name, "%u.data", d->id);
    const cube_member *md = cube_tar_find(&r->tar, name);
    if (!mi && !md) return PK_OK;
    if (!mi || !md)
        return pk_fail(PK_ERR_FORMAT, "%s: metric %s (id %u) has %s but no %u.%s", r->path, d->uniq,
                       d->id, mi ? "an index" : "data", d->id, mi ? "data" : "index");
    pk_status st = read_index(r, mi, j, seen);
    if (!st) st = read_data(r, md, j, r->mb[i].type.size);
    if (!st) count_beyond_double(r, j, md);
    return st;
}

/* Values of n stored entries as doubles, n_comp per entry. */
static void decode(const cube_dtype *t, int swap, const unsigned char *s, size_t n, double *out)
{
    size_t i;
    switch (t->dt) {
    case DT_I8:
        for (i = 0; i < n; i++)
            out[i] = (int8_t)s[i];
        return;
    case DT_U8:
        for (i = 0; i < n; i++)
            out[i] = s[i];
        return;
    case DT_I16:
    case DT_U16:
        for (i = 0; i < n; i++) {
            uint16_t v = pk_le16(s + 2 * i);
            if (swap) v = __builtin_bswap16(v);
            out[i] = t->dt == DT_I16 ? (double)(int16_t)v : (double)v;
        }
        return;
    case DT_I32:
    case DT_U32:
        for (i = 0; i < n; i++) {
            uint32_t v = get32(s + 4 * i, swap);
            out[i] = t->dt == DT_I32 ? (double)(int32_t)v : (double)v;
        }
        return;
    case DT_I64:
        for (i = 0; i < n; i++)
            out[i] = (double)(int64_t)get64(s + 8 * i, swap);
        return;
    case DT_U64: /* beyond a double's reach: a counter that went backwards, read as 0 */
        for (i = 0; i < n; i++) {
            uint64_t v = get64(s + 8 * i, swap);
            out[i] = v > CUBE_MAX_U64_AS_DOUBLE ? 0.0 : (double)v;
        }
        return;
    case DT_TAU: /* u32 count, then min, max, sum, sum of squares (packed) */
        for (i = 0; i < n; i++) {
            const unsigned char *e = s + 36 * i;
            out[5 * i] = get32(e, swap);
            for (int k = 0; k < 4; k++) {
                uint64_t b = get64(e + 4 + 8 * k, swap);
                memcpy(&out[5 * i + 1 + k], &b, 8);
            }
        }
        return;
    default: /* DOUBLE and the all-double composites */
        n *= t->n_comp;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if (!swap) {
            memcpy(out, s, n * 8);
            return;
        }
#endif
        for (i = 0; i < n; i++) {
            uint64_t b = get64(s + 8 * i, swap);
            memcpy(&out[i], &b, 8);
        }
        return;
    }
}

/* Slot layout shared by all locations: bucket = context (by ascending
 * id), slots in a bucket = the columns any metric stores there. */
typedef struct layout {
    uint64_t *base;   /* first slot of each bucket (n_buckets + 1) */
    uint32_t *fill;   /* slots of each bucket filled so far */
    uint32_t *ctx_id; /* context id of each bucket */
    uint64_t n_slots, spare;
    unsigned char **plane; /* per location: n_slots x PK_LM_VAL_SIZE, then index space */
    uint32_t n_used;       /* buckets with at least one slot */
    uint8_t *top;          /* 1 for the bucket of a top-level cnode */
    double *root;          /* per column: the root's value being summed */
    uint8_t *root_set;
    uint64_t root_id;
} layout;

static pk_status plan_layout(cube_read *r, const job *jobs, size_t n_jobs, layout *L)
{
    size_t nb = r->a.n_cnodes;
    L->base = calloc(nb + 1, sizeof *L->base);
    L->fill = calloc(nb + 1, sizeof *L->fill);
    L->ctx_id = malloc((nb + 1) * sizeof *L->ctx_id);
    L->plane = calloc(r->n_locs + 1, sizeof *L->plane);
    L->top = calloc(nb + 1, 1);
    L->root = calloc(r->p->n_columns + 1, sizeof *L->root);
    L->root_set = calloc(r->p->n_columns + 1, 1);
    if (!L->base || !L->fill || !L->ctx_id || !L->plane || !L->top || !L->root || !L->root_set)
        return pk_fail_nomem("laying out values");
    for (size_t d = 0; d < nb; d++) {
        L->ctx_id[r->bucket_of[d]] = r->a.cnodes[d].id;
        L->top[r->bucket_of[d]] = r->a.cnodes[d].parent == CUBE_NONE;
    }
    L->root_id = r->p->ctx[0].id;
    for (size_t k = 0; k < n_jobs; k++) { /* fill = slots per bucket, for now */
        const cube_mbuilt *b = &r->mb[jobs[k].mdef];
        for (uint32_t i = 0; i < jobs[k].n_rows; i++) {
            uint32_t row = jobs[k].rows ? get32(jobs[k].rows + 4 * (size_t)i, jobs[k].swap) : i;
            L->fill[r->bucket_of[cnode_of_row(r, b, row)]] += b->type.n_comp;
        }
    }
    for (size_t i = 0; i < nb; i++) {
        L->base[i + 1] = L->base[i] + L->fill[i];
        L->n_used += L->fill[i] != 0;
        L->fill[i] = 0;
    }
    L->n_slots = L->base[nb];
    /* spare room for the root's values: inclusive columns summed over the
     * top-level cnodes, so the root holds the program total as in every
     * other format */
    L->spare = r->p->n_columns;
    uint64_t bytes =
        (L->n_slots + L->spare) * PK_LM_VAL_SIZE + ((uint64_t)L->n_used + 1) * PK_LM_IDX_SIZE + 1;
    for (uint32_t l = 0; l < r->n_locs; l++)
        if (!(L->plane[l] = malloc(bytes))) return pk_fail_nomem("storing values");
    return PK_OK;
}

/* Rows of one metric into the slots of every location, a block of rows
 * at a time so that both the reads and the scattered writes stay in cache. */
static pk_status scatter(cube_read *r, const job *j, layout *L, double *tmp, size_t tmp_n)
{
    const cube_mbuilt *b = &r->mb[j->mdef];
    uint32_t nc = b->type.n_comp, nl = r->n_locs, size = b->type.size;
    size_t per_row = (size_t)nl * nc, block = per_row ? tmp_n / per_row : 1;
    uint64_t slot[256];
    if (block > 256) block = 256;
    if (block == 0) return pk_fail_nomem("decoding values"); /* tmp too small: cannot happen */
    for (uint32_t i0 = 0; i0 < j->n_rows; i0 += (uint32_t)block) {
        uint32_t nr = j->n_rows - i0 < block ? j->n_rows - i0 : (uint32_t)block;
        decode(&b->type, j->swap, j->data + (uint64_t)i0 * nl * size, (size_t)nr * nl, tmp);
        for (uint32_t i = 0; i < nr; i++) {
            uint32_t row = j->rows ? get32(j->rows + 4 * (size_t)(i0 + i), j->swap) : i0 + i;
            uint32_t bk = r->bucket_of[cnode_of_row(r, b, row)];
            slot[i] = L->base[bk] + L->fill[bk];
            L->fill[bk] += nc;
        }
        for (uint32_t l = 0; l < nl; l++) {
            unsigned char *pl = L->plane[l];
            for (uint32_t i = 0; i < nr; i++) {
                unsigned char *dst = pl + slot[i] * PK_LM_VAL_SIZE;
                const double *v = tmp + ((size_t)i * nl + l) * nc;
                for (uint32_t k = 0; k < nc; k++, dst += PK_LM_VAL_SIZE) {
                    pk_put_le16(dst, (uint16_t)(b->column + k));
                    memcpy(dst + 2, &v[k], 8);
                }
            }
        }
    }
    return PK_OK;
}

/* A top-level cnode's inclusive value into the root's. */
static void add_to_root(const pk_profile *p, layout *L, const unsigned char *rec, double v)
{
    uint32_t c = pk_le16(rec);
    if (p->scopes[p->columns[c].scope].kind != PK_SCOPE_INCLUSIVE) return;
    pk_combine how = p->metrics[p->columns[c].metric].combine;
    double *acc = &L->root[c];
    if (!L->root_set[c])
        *acc = v, L->root_set[c] = 1;
    else if (how == PK_COMBINE_MIN)
        *acc = v < *acc ? v : *acc;
    else if (how == PK_COMBINE_MAX)
        *acc = v > *acc ? v : *acc;
    else
        *acc += v;
}

/* The root's values after the cnodes' (its id is the largest). */
static uint64_t append_root(const pk_profile *p, layout *L, unsigned char *pl, uint64_t nv,
                            unsigned char *idx, uint32_t *ni)
{
    uint64_t first = nv;
    for (uint32_t c = 0; c < p->n_columns; c++) {
        if (!L->root_set[c] || L->root[c] == 0) continue;
        pk_put_le16(pl + nv * PK_LM_VAL_SIZE, (uint16_t)c);
        memcpy(pl + nv * PK_LM_VAL_SIZE + 2, &L->root[c], 8);
        nv++;
    }
    memset(L->root_set, 0, p->n_columns);
    if (nv == first) return nv;
    pk_put_le32(idx + (size_t)*ni * PK_LM_IDX_SIZE, (uint32_t)L->root_id);
    pk_put_le64(idx + (size_t)*ni * PK_LM_IDX_SIZE + 4, first);
    (*ni)++;
    return nv;
}

/* Squeeze location l's slots to its non-zero values and index them. */
static pk_status compact(cube_read *r, layout *L, uint32_t l)
{
    unsigned char *pl = L->plane[l], *idx = pl + (L->n_slots + L->spare) * PK_LM_VAL_SIZE;
    uint64_t nv = 0;
    uint32_t ni = 0;
    for (size_t b = 0; b < r->a.n_cnodes; b++) {
        uint64_t first = nv;
        for (uint64_t s = L->base[b]; s < L->base[b + 1]; s++) {
            const unsigned char *src = pl + s * PK_LM_VAL_SIZE;
            double v;
            memcpy(&v, src + 2, 8);
            if (v == 0) continue;
            if (L->top[b]) add_to_root(r->p, L, src, v);
            if (nv != s) memmove(pl + nv * PK_LM_VAL_SIZE, src, PK_LM_VAL_SIZE);
            nv++;
        }
        if (nv == first) continue;
        pk_put_le32(idx + (size_t)ni * PK_LM_IDX_SIZE, L->ctx_id[b]);
        pk_put_le64(idx + (size_t)ni * PK_LM_IDX_SIZE + 4, first);
        ni++;
    }
    nv = append_root(r->p, L, pl, nv, idx, &ni);
    memmove(pl + nv * PK_LM_VAL_SIZE, idx, (size_t)ni * PK_LM_IDX_SIZE);
    size_t bytes = nv * PK_LM_VAL_SIZE + (size_t)ni * PK_LM_IDX_SIZE + 1;
    unsigned char *shrunk = realloc(pl, bytes);
    if (shrunk) pl = shrunk;
    L->plane[l] = NULL;
    if (pk_model_adopt_owned(r->p, pl)) return pk_fail_nomem("storing values");
    r->p->locs[l].plane = (pk_plane){pl, pl + nv * PK_LM_VAL_SIZE, nv, ni};
    return PK_OK;
}

static void layout_free(layout *L, uint32_t n_locs)
{
    for (uint32_t l = 0; L->plane && l < n_locs; l++)
        free(L->plane[l]);
    free(L->plane), free(L->base), free(L->fill), free(L->ctx_id);
    free(L->top), free(L->root), free(L->root_set);
}

/* Find every metric's data; a damaged one fails the open, or with
 * KEEP_GOING is dropped (reported, profile marked incomplete). */
static pk_status collect_jobs(cube_read *r, job *jobs, size_t *n_jobs)
{
    unsigned char *seen = malloc(r->a.n_cnodes + 1);
    if (!seen) return pk_fail_nomem("reading indexes");
    pk_status st = PK_OK;
    for (uint32_t i = 0; i < r->a.n_mdefs && !st; i++) {
        if (r->mb[i].column == PK_NONE) continue;
        job *j = &jobs[*n_jobs];
        st = locate(r, i, j, seen);
        if (st && (r->flags & PK_OPEN_KEEP_GOING) && st != PK_ERR_NOMEM) {
            pk_model_diag(r->p, PK_SEV_ERROR, "metric-dropped", r->path, r->a.mdefs[i].uniq, 0, 0,
                          "%s", pk_error_last());
            r->p->complete = 0;
            st = PK_OK;
            j->data = NULL;
        }
        if (!st && j->data && j->n_rows) {
            (*n_jobs)++;
        } else if (!st) { /* no data members, or nothing in them */
            free(j->inflated);
            j->inflated = NULL;
        }
    }
    free(seen);
    return st;
}

pk_status cube_read_values(cube_read *r)
{
    job *jobs = calloc(r->a.n_mdefs + 1, sizeof *jobs);
    size_t n_jobs = 0, tmp_n = 0;
    layout L = {0};
    if (!jobs) return pk_fail_nomem("reading values");
    pk_status st = collect_jobs(r, jobs, &n_jobs);
    for (size_t k = 0; k < n_jobs; k++) {
        size_t need = (size_t)r->n_locs * r->mb[jobs[k].mdef].type.n_comp;
        if (need > tmp_n) tmp_n = need;
    }
    tmp_n = tmp_n < (1u << 16) ? (1u << 16) : tmp_n;
    double *tmp = st ? NULL : malloc(tmp_n * sizeof *tmp);
    if (!st && !tmp) st = pk_fail_nomem("decoding values");
    if (!st) st = plan_layout(r, jobs, n_jobs, &L);
    for (size_t k = 0; k < n_jobs && !st; k++)
        st = scatter(r, &jobs[k], &L, tmp, tmp_n);
    for (uint32_t l = 0; l < r->n_locs && !st; l++)
        st = compact(r, &L, l);
    layout_free(&L, r->n_locs);
    for (size_t k = 0; k < r->a.n_mdefs; k++)
        free(jobs[k].inflated);
    free(jobs), free(tmp);
    return st;
}
