/*
 * formats/cube/write.c — writing a Cube 4.4 .cubex: a ustar archive with
 * one N.index (sparse) and N.data (plain CUBEX.DATA, or ZCUBEX.DATA with
 * one zlib stream per row when asked) per metric that has values, and
 * anchor.xml last, as CubeW orders them. Rows are listed in the call-tree
 * enumeration CubeLib expects for the metric's type (depth-first for
 * EXCLUSIVE, wide search for INCLUSIVE). Written under a temporary name
 * and put in place when complete (util/safeout.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "cw.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/outfile.h"

/* ustar header for a member of `size` bytes. */
static void tar_header(pk_out *o, const char *name, uint64_t size, long mtime)
{
    unsigned char h[512];
    memset(h, 0, sizeof h);
    snprintf((char *)h, 100, "%s", name);
    memcpy(h + 100, "0000644", 8);
    memcpy(h + 108, "0000000", 8);
    memcpy(h + 116, "0000000", 8);
    if (size < 077777777777ull) {
        snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)size);
    } else { /* GNU base-256 for members of 8 GiB and more */
        h[124] = 0x80;
        for (int i = 0; i < 8; i++)
            h[135 - i] = (unsigned char)(size >> (8 * i));
    }
    snprintf((char *)h + 136, 12, "%011lo", (unsigned long)mtime);
    h[156] = '0';
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (int i = 0; i < 512; i++)
        sum += h[i];
    snprintf((char *)h + 148, 8, "%06o", sum);
    h[155] = ' ';
    pk_out_bytes(o, h, sizeof h);
}

static void tar_pad(pk_out *o, uint64_t size)
{
    if (size % 512) pk_out_zeros(o, 512 - size % 512);
}

typedef struct wstate {
    cube_writer w;
    pk_out out;
    long mtime;
    uint32_t *loc_col;         /* model location -> data column, CUBE_NONE */
    uint32_t *mem_start, *mem; /* contexts folded into each cnode (CSR) */
    double *row;               /* one row: n_loc x n_comp values */
    unsigned char *enc;        /* one encoded row */
    uint32_t *rows;            /* rows of the current metric */
    pk_write_stats *stats;
} wstate;

/* Add context ctx's stored values of column `col` into the row. */
static int add_values(wstate *s, pk_index ctx, pk_index col, uint32_t comp, uint32_t nc)
{
    const pk_profile *p = s->w.p;
    const pk_plane *pl = &p->cm[ctx];
    uint16_t raw = (uint16_t)p->columns[col].raw_id;
    for (uint32_t i = 0; i < pl->nidx; i++) {
        const unsigned char *e = pl->idx + (size_t)i * PK_CM_IDX_SIZE;
        if (pk_le16(e) != raw) continue;
        uint64_t a = pk_le64(e + 2);
        uint64_t b = i + 1 < pl->nidx ? pk_le64(e + PK_CM_IDX_SIZE + 2) : pl->nvals;
        if (!s->row) return 1;
        for (uint64_t v = a; v < b && v < pl->nvals; v++) {
            const unsigned char *r = pl->vals + v * PK_CM_VAL_SIZE;
            uint32_t l = pk_le32(r);
            if (l < p->n_locs && s->loc_col[l] != CUBE_NONE)
                s->row[(size_t)s->loc_col[l] * nc + comp] += pk_le_f64(r + 4);
        }
        return 1;
    }
    return 0;
}

/* Sum (or, without a row buffer, test for) cnode c's values of metric m. */
static int cnode_values(wstate *s, const cw_metric *m, uint32_t c)
{
    int any = 0;
    for (uint32_t k = 0; k < m->n_comp; k++) {
        if (m->cols[k] == PK_NONE) continue;
        if (!m->fold) {
            any |= add_values(s, s->w.cn[c].ctx, m->cols[k], k, m->n_comp);
            continue;
        }
        for (uint32_t j = s->mem_start[c]; j < s->mem_start[c + 1]; j++)
            any |= add_values(s, s->mem[j], m->cols[k], k, m->n_comp);
    }
    return any;
}

static void put_f64(unsigned char *d, double v)
{
    uint64_t b;
    memcpy(&b, &v, 8);
    pk_put_le64(d, b);
}

/* The bits of x as a 64-bit integer: negative values in two's complement,
 * values beyond either end saturated and NaN as 0 (casting those is
 * undefined). Narrower types keep the low bytes, as a C cast would. */
static uint64_t int_bits(double x)
{
    if (x != x) return 0;
    if (x >= 18446744073709551616.0) return UINT64_MAX;
    if (x >= 9223372036854775808.0) return (uint64_t)x;
    if (x < -9223372036854775808.0) return (uint64_t)1 << 63;
    return (uint64_t)(int64_t)x;
}

/* n values (n_comp doubles each) in the metric's data type. */
static void encode(const cube_dtype *t, const double *v, size_t n, unsigned char *d)
{
    for (size_t i = 0; i < n; i++) {
        const double *x = v + i * t->n_comp;
        unsigned char *e = d + i * t->size;
        switch (t->dt) {
        case DT_I8:
        case DT_U8:
            e[0] = (unsigned char)int_bits(x[0]);
            break;
        case DT_I16:
        case DT_U16:
            pk_put_le16(e, (uint16_t)int_bits(x[0]));
            break;
        case DT_I32:
        case DT_U32:
            pk_put_le32(e, (uint32_t)int_bits(x[0]));
            break;
        case DT_I64:
        case DT_U64:
            pk_put_le64(e, int_bits(x[0]));
            break;
        case DT_TAU:
            pk_put_le32(e, (uint32_t)int_bits(x[0]));
            for (int k = 0; k < 4; k++)
                put_f64(e + 4 + 8 * k, x[1 + k]);
            break;
        default:
            for (uint32_t k = 0; k < t->n_comp; k++)
                put_f64(e + 8 * k, x[k]);
        }
    }
}

static void index_member(wstate *s, uint32_t id, uint32_t n_rows)
{
    char name[32];
    snprintf(name, sizeof name, "%u.index", id);
    uint64_t size = 18 + 4 + 4 * (uint64_t)n_rows;
    tar_header(&s->out, name, size, s->mtime);
    pk_out_bytes(&s->out, "CUBEX.INDEX", 11);
    pk_out_u32(&s->out, 1);
    pk_out_u16(&s->out, 0);
    pk_out_u8(&s->out, 1); /* sparse */
    pk_out_u32(&s->out, n_rows);
    for (uint32_t i = 0; i < n_rows; i++)
        pk_out_u32(&s->out, s->rows[i]);
    tar_pad(&s->out, size);
}

/* The cnode at enumeration position `pos` of metric m's rows: wide
 * search for INCLUSIVE metrics, else pre-order (= cnode number). */
static uint32_t cnode_at(const wstate *s, const cw_metric *m, uint32_t pos)
{
    return strcmp(m->kind, "INCLUSIVE") == 0 ? s->w.wide[pos] : pos;
}

/* Row r (enumeration position) of metric m, encoded into s->enc. */
static void encode_row(wstate *s, const cw_metric *m, uint32_t pos)
{
    memset(s->row, 0, (size_t)s->w.n_loc * m->n_comp * sizeof *s->row);
    cnode_values(s, m, cnode_at(s, m, pos));
    for (size_t i = 0; i < (size_t)s->w.n_loc * m->n_comp; i++)
        s->stats->n_values += s->row[i] != 0;
    encode(&m->type, s->row, s->w.n_loc, s->enc);
}

static pk_status plain_data(wstate *s, const cw_metric *m, uint32_t id, uint32_t n_rows)
{
    char name[32];
    snprintf(name, sizeof name, "%u.data", id);
    uint64_t row_bytes = (uint64_t)s->w.n_loc * m->type.size, size = 10 + n_rows * row_bytes;
    tar_header(&s->out, name, size, s->mtime);
    pk_out_bytes(&s->out, "CUBEX.DATA", 10);
    for (uint32_t i = 0; i < n_rows; i++) {
        encode_row(s, m, s->rows[i]);
        pk_out_bytes(&s->out, s->enc, row_bytes);
    }
    tar_pad(&s->out, size);
    return PK_OK;
}

/* ZCUBEX.DATA: u64 rows, (u64 start, u64 compressed start, u64 size) per
 * row, then the zlib streams — CubeW's layout (8-byte fields). */
static pk_status zlib_data(wstate *s, const cw_metric *m, uint32_t id, uint32_t n_rows)
{
    uint64_t row_bytes = (uint64_t)s->w.n_loc * m->type.size;
    uLong bound = compressBound((uLong)row_bytes);
    unsigned char *z = malloc((size_t)n_rows * bound + 1);
    uint64_t *at = malloc(((size_t)n_rows + 1) * sizeof *at), used = 0;
    if (!z || !at) {
        free(z), free(at);
        return pk_fail_nomem("compressing Cube data");
    }
    for (uint32_t i = 0; i < n_rows; i++) {
        encode_row(s, m, s->rows[i]);
        uLongf got = bound;
        compress2(z + used, &got, s->enc, (uLong)row_bytes, Z_BEST_SPEED);
        at[i] = used, used += got;
    }
    at[n_rows] = used;
    char name[32];
    snprintf(name, sizeof name, "%u.data", id);
    uint64_t size = 11 + 8 + 24 * (uint64_t)n_rows + used;
    tar_header(&s->out, name, size, s->mtime);
    pk_out_bytes(&s->out, "ZCUBEX.DATA", 11);
    pk_out_u64(&s->out, n_rows);
    for (uint32_t i = 0; i < n_rows; i++) {
        pk_out_u64(&s->out, i * row_bytes);
        pk_out_u64(&s->out, at[i]);
        pk_out_u64(&s->out, at[i + 1] - at[i]);
    }
    pk_out_bytes(&s->out, z, used);
    tar_pad(&s->out, size);
    free(z), free(at);
    return PK_OK;
}

/* The index and data members of Cube metric i, if it has values. */
static pk_status metric_members(wstate *s, uint32_t i)
{
    const cw_metric *m = &s->w.m[i];
    int has = 0;
    for (uint32_t k = 0; k < m->n_comp; k++)
        has |= m->cols[k] != PK_NONE;
    if (!has || m->type.dt == DT_UNKNOWN) return PK_OK;
    double *row = s->row;
    s->row = NULL; /* presence test only */
    uint32_t n_rows = 0;
    for (uint32_t pos = 0; pos < s->w.n_cn; pos++) {
        if (cnode_values(s, m, cnode_at(s, m, pos))) s->rows[n_rows++] = pos;
    }
    s->row = row;
    if (!n_rows) return PK_OK;
    index_member(s, i, n_rows);
    return s->w.compress ? zlib_data(s, m, i, n_rows) : plain_data(s, m, i, n_rows);
}

static pk_status prepare(wstate *s, pk_arena *a)
{
    cube_writer *w = &s->w;
    const pk_profile *p = w->p;
    pk_status st = pk_model_ensure_cm(p);
    if (!st) st = cw_plan(w);
    if (!st) st = cw_plan_system(w, a);
    if (st) return st;
    uint32_t max_comp = 1, max_size = 8;
    for (uint32_t i = 0; i < w->n_m; i++) {
        if (w->m[i].n_comp > max_comp) max_comp = w->m[i].n_comp;
        if (w->m[i].type.size > max_size) max_size = w->m[i].type.size;
    }
    s->loc_col = malloc(((size_t)p->n_locs + 1) * sizeof *s->loc_col);
    s->row = malloc(((size_t)w->n_loc * max_comp + 1) * sizeof *s->row);
    s->enc = malloc((size_t)w->n_loc * max_size + 1);
    s->rows = malloc(((size_t)w->n_cn + 1) * sizeof *s->rows);
    s->mem_start = calloc((size_t)w->n_cn + 2, sizeof *s->mem_start);
    s->mem = malloc(((size_t)p->n_ctx + 1) * sizeof *s->mem);
    if (!s->loc_col || !s->row || !s->enc || !s->rows || !s->mem_start || !s->mem)
        return pk_fail_nomem("writing Cube");
    for (uint32_t l = 0; l < p->n_locs; l++)
        s->loc_col[l] = CUBE_NONE;
    for (uint32_t i = 0; i < w->n_loc; i++)
        s->loc_col[w->loc[i].loc] = i;
    for (uint32_t c = 0; c < p->n_ctx; c++) /* folded contexts by cnode */
        if (w->cnode_of[c] != CUBE_NONE) s->mem_start[w->cnode_of[c] + 2]++;
    for (uint32_t i = 0; i < w->n_cn; i++)
        s->mem_start[i + 2] += s->mem_start[i + 1];
    for (uint32_t c = 0; c < p->n_ctx; c++)
        if (w->cnode_of[c] != CUBE_NONE) s->mem[s->mem_start[w->cnode_of[c] + 1]++] = c;
    return PK_OK;
}

static pk_status write_archive(wstate *s)
{
    pk_status st = PK_OK;
    for (uint32_t i = 0; i < s->w.n_m && !st && !s->out.status; i++)
        st = metric_members(s, i);
    char *xml = NULL;
    size_t n = 0;
    if (!st) st = cw_anchor(&s->w, &xml, &n);
    if (!st) {
        tar_header(&s->out, "anchor.xml", n, s->mtime);
        pk_out_bytes(&s->out, xml, n);
        tar_pad(&s->out, n);
        pk_out_zeros(&s->out, 1024); /* end of archive */
    }
    free(xml);
    return st;
}

pk_status cube_write(const pk_profile *p, const char *path, const pk_write_options *opts,
                     pk_write_stats *stats)
{
    uint32_t flags = opts ? opts->flags : 0;
    wstate s = {.w = {.p = p, .compress = (flags & PK_WRITE_COMPRESS) != 0},
                .mtime = (long)time(NULL),
                .stats = stats};
    pk_arena a;
    pk_arena_init(&a);
    pk_status st = pk_out_create(&s.out, path, flags & PK_WRITE_FORCE);
    if (!st) st = prepare(&s, &a);
    if (!st) {
        st = write_archive(&s);
        stats->bytes = s.out.offset, stats->n_files = 1;
    }
    if (s.out.safe) st = pk_out_commit(&s.out, st);
    cw_free(&s.w);
    free(s.loc_col), free(s.row), free(s.enc), free(s.rows), free(s.mem_start), free(s.mem);
    pk_arena_free(&a);
    return st;
}
