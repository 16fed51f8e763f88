/*
 * formats/cube/write.c — writing a Cube 4.4 .cubex: a ustar archive with
 * one N.index (sparse) and N.data (plain CUBEX.DATA, or ZCUBEX.DATA with
 * one zlib stream per row when asked) per metric of a storable type, and
 * anchor.xml last, as CubeW orders them. Rows are listed in the call-tree
 * enumeration CubeLib expects for the metric's type (depth-first for
 * EXCLUSIVE, wide search for INCLUSIVE); a row's values come from the
 * context-major view (or, in summary mode, the summary location) through
 * cw_ctx_values(). Everything is planned, and every loss reported, before
 * the file is opened. Written under a temporary name and put in place
 * when complete (util/safeout.h).
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
    uint32_t *mem_start, *mem; /* contexts folded into each cnode (CSR) */
    double *row;               /* one row: n_loc x n_comp values */
    unsigned char *seen;       /* entries of the row set (min/max folding) */
    unsigned char *enc;        /* one encoded row */
    uint32_t *rows;            /* rows of the current metric */
} wstate;

/* Position of column id `raw` among a context-major plane's index
 * records (sorted by column id), or UINT32_MAX. */
static uint32_t find_column(const pk_plane *pl, uint16_t raw)
{
    uint32_t lo = 0, hi = pl->nidx;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (pk_le16(pl->idx + (size_t)mid * PK_CM_IDX_SIZE) < raw)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < pl->nidx && pk_le16(pl->idx + (size_t)lo * PK_CM_IDX_SIZE) == raw ? lo : UINT32_MAX;
}

static void combine(double *at, unsigned char *seen, pk_combine how, double v)
{
    if (!seen || how == PK_COMBINE_SUM || how == PK_COMBINE_OTHER) {
        *at += v;
    } else if (!*seen) {
        *at = v, *seen = 1;
    } else if (how == PK_COMBINE_MIN ? v < *at : v > *at) {
        *at = v;
    }
}

/* cw_ctx_values() from a row store: the row holds every location's value,
 * 0 where none is stored (as the planes leave it out). */
static int rows_values(const cube_writer *w, pk_index ctx, pk_index col, uint32_t comp, uint32_t nc,
                       pk_combine how, double *row, unsigned char *seen)
{
    const double *r = cw_rows_get(w, ctx, col);
    int any = 0;
    for (uint32_t l = 0; r && l < w->p->n_locs; l++) {
        if (r[l] == 0) continue;
        any = 1;
        if (!row) break;
        uint32_t at = w->loc_col[l];
        if (at == CUBE_NONE) continue;
        size_t k = (size_t)at * nc + comp;
        combine(&row[k], seen ? &seen[k] : NULL, how, r[l]);
    }
    return any;
}

int cw_ctx_values(const cube_writer *w, pk_index ctx, pk_index col, uint32_t comp, uint32_t nc,
                  pk_combine how, double *row, unsigned char *seen)
{
    const pk_profile *p = w->p;
    if (ctx >= p->n_ctx || col >= p->n_columns) return 0;
    if (w->summary) { /* the one written location: the summary's statistic */
        double v;
        if (pk_value_lookup(p, w->sum_loc, ctx, col, &v) || v == 0) return 0;
        if (row) combine(&row[comp], seen ? &seen[comp] : NULL, how, v);
        return 1;
    }
    if (w->rows) return rows_values(w, ctx, col, comp, nc, how, row, seen);
    const pk_plane *pl = &p->cm[ctx];
    uint32_t i = find_column(pl, (uint16_t)p->columns[col].raw_id);
    if (i == UINT32_MAX) return 0;
    if (!row) return 1;
    const unsigned char *e = pl->idx + (size_t)i * PK_CM_IDX_SIZE;
    uint64_t a = pk_le64(e + 2);
    uint64_t b = i + 1 < pl->nidx ? pk_le64(e + PK_CM_IDX_SIZE + 2) : pl->nvals;
    for (uint64_t v = a; v < b && v < pl->nvals; v++) {
        const unsigned char *r = pl->vals + v * PK_CM_VAL_SIZE;
        uint32_t l = pk_le32(r);
        uint32_t at = l < p->n_locs ? w->loc_col[l] : CUBE_NONE;
        if (at == CUBE_NONE) continue;
        size_t k = (size_t)at * nc + comp;
        combine(&row[k], seen ? &seen[k] : NULL, how, pk_le_f64(r + 4));
    }
    return 1;
}

double cw_ctx_sum(const cube_writer *w, pk_index ctx, pk_index col)
{
    const pk_profile *p = w->p;
    double v = 0;
    if (ctx >= p->n_ctx || col >= p->n_columns) return 0;
    if (w->summary) return pk_value_lookup(p, w->sum_loc, ctx, col, &v) ? 0 : v;
    if (w->rows) {
        const double *r = cw_rows_get(w, ctx, col);
        for (uint32_t l = 0; r && l < p->n_locs; l++)
            if (w->loc_col[l] != CUBE_NONE) v += r[l];
        return v;
    }
    const pk_plane *pl = &p->cm[ctx];
    uint32_t i = find_column(pl, (uint16_t)p->columns[col].raw_id);
    if (i == UINT32_MAX) return 0;
    const unsigned char *e = pl->idx + (size_t)i * PK_CM_IDX_SIZE;
    uint64_t b = i + 1 < pl->nidx ? pk_le64(e + PK_CM_IDX_SIZE + 2) : pl->nvals;
    for (uint64_t k = pk_le64(e + 2); k < b && k < pl->nvals; k++) {
        uint32_t l = pk_le32(pl->vals + k * PK_CM_VAL_SIZE);
        if (l < p->n_locs && w->loc_col[l] != CUBE_NONE)
            v += pk_le_f64(pl->vals + k * PK_CM_VAL_SIZE + 4);
    }
    return v;
}

/* Add (or, without a row buffer, test for) cnode c's values of metric m:
 * its own context's, or for point values those of every context folded
 * into it. */
static int cnode_values(wstate *s, const cw_metric *m, uint32_t c, double *row)
{
    const cube_writer *w = &s->w;
    int any = 0;
    for (uint32_t k = 0; k < m->n_comp; k++) {
        if (m->cols[k] == PK_NONE) continue;
        if (!m->fold) {
            any |=
                cw_ctx_values(w, w->cn[c].ctx, m->cols[k], k, m->n_comp, PK_COMBINE_SUM, row, NULL);
            continue;
        }
        for (uint32_t j = s->mem_start[c]; j < s->mem_start[c + 1] && (row || !any); j++)
            any |= cw_ctx_values(w, s->mem[j], m->cols[k], k, m->n_comp, m->combine, row, s->seen);
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
    return m->inclusive ? s->w.wide[pos] : pos;
}

/* Row at enumeration position pos of metric m, encoded into s->enc. */
static void encode_row(wstate *s, const cw_metric *m, uint32_t pos)
{
    size_t n = (size_t)s->w.n_loc * m->n_comp;
    memset(s->row, 0, n * sizeof *s->row);
    memset(s->seen, 0, n);
    cnode_values(s, m, cnode_at(s, m, pos), s->row);
    for (size_t i = 0; i < n; i++)
        s->w.stats->n_values += s->row[i] != 0;
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

/* Append n bytes to a growing buffer; -1 when out of memory. */
static int append(unsigned char **buf, size_t *cap, size_t used, const void *d, size_t n)
{
    if (used + n > *cap) {
        size_t c = *cap ? *cap : 65536;
        while (c < used + n)
            c *= 2;
        unsigned char *t = realloc(*buf, c);
        if (!t) return -1;
        *buf = t, *cap = c;
    }
    memcpy(*buf + used, d, n);
    return 0;
}

/* ZCUBEX.DATA: u64 rows, (u64 start, u64 compressed start, u64 size) per
 * row, then the zlib streams — CubeW's layout (8-byte fields). The
 * streams are held until the member's size is known: memory for the
 * metric's compressed size, one row's bound of scratch. */
static pk_status zlib_data(wstate *s, const cw_metric *m, uint32_t id, uint32_t n_rows)
{
    uint64_t row_bytes = (uint64_t)s->w.n_loc * m->type.size;
    uLong bound = compressBound((uLong)row_bytes);
    unsigned char *scratch = malloc(bound + 1), *z = NULL;
    uint64_t *at = malloc(((size_t)n_rows + 1) * sizeof *at);
    size_t used = 0, cap = 0;
    pk_status st = scratch && at ? PK_OK : pk_fail_nomem("compressing Cube data");
    for (uint32_t i = 0; i < n_rows && !st; i++) {
        encode_row(s, m, s->rows[i]);
        uLongf got = bound;
        int zr = compress2(scratch, &got, s->enc, (uLong)row_bytes, Z_BEST_SPEED);
        if (zr != Z_OK)
            st = pk_fail(zr == Z_MEM_ERROR ? PK_ERR_NOMEM : PK_ERR_IO,
                         "%s: compressing row %u of metric %u failed (zlib %d)", s->w.path, i, id,
                         zr);
        else if (append(&z, &cap, used, scratch, got))
            st = pk_fail_nomem("compressing Cube data");
        at[i] = used, used += got;
    }
    if (!st) {
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
    }
    free(scratch), free(z), free(at);
    return st;
}

/* The index and data members of Cube metric i: the rows that hold a
 * value, or for a metric that holds none the root's row of zeros, so
 * that readers see a measured metric (pycubexr refuses a metric without
 * data members, CubeLib reads it as zeros either way). MINDOUBLE and
 * MAXDOUBLE metrics get every row: pycubexr cannot derive their
 * inclusive values when a cnode has none (MinMaxValues has no dtype). */
static pk_status metric_members(wstate *s, uint32_t i)
{
    const cw_metric *m = &s->w.m[i];
    if (!m->data) return PK_OK;
    uint32_t n_rows = 0;
    int all = m->type.dt == DT_F64 && m->type.combine != PK_COMBINE_SUM;
    for (uint32_t pos = 0; pos < s->w.n_cn; pos++)
        if (all || cnode_values(s, m, cnode_at(s, m, pos), NULL)) s->rows[n_rows++] = pos;
    if (!n_rows) s->rows[n_rows++] = 0;
    index_member(s, i, n_rows);
    return s->w.compress ? zlib_data(s, m, i, n_rows) : plain_data(s, m, i, n_rows);
}

/* The data column of each model location. */
static pk_status column_plan(cube_writer *w)
{
    const pk_profile *p = w->p;
    w->loc_col = malloc(((size_t)p->n_locs + 1) * sizeof *w->loc_col);
    if (!w->loc_col) return pk_fail_nomem("writing Cube");
    for (uint32_t l = 0; l < p->n_locs; l++)
        w->loc_col[l] = CUBE_NONE;
    for (uint32_t i = 0; i < w->n_loc; i++)
        if (w->loc[i].loc != PK_NONE && !w->summary) w->loc_col[w->loc[i].loc] = i;
    return PK_OK;
}

/* Contexts by the cnode they fold into (CSR). */
static pk_status index_plan(wstate *s)
{
    cube_writer *w = &s->w;
    const pk_profile *p = w->p;
    s->mem_start = calloc((size_t)w->n_cn + 2, sizeof *s->mem_start);
    s->mem = malloc(((size_t)p->n_ctx + 1) * sizeof *s->mem);
    if (!s->mem_start || !s->mem) return pk_fail_nomem("writing Cube");
    for (uint32_t c = 0; c < p->n_ctx; c++)
        if (w->cnode_of[c] != CUBE_NONE) s->mem_start[w->cnode_of[c] + 2]++;
    for (uint32_t i = 0; i < w->n_cn; i++)
        s->mem_start[i + 2] += s->mem_start[i + 1];
    for (uint32_t c = 0; c < p->n_ctx; c++)
        if (w->cnode_of[c] != CUBE_NONE) s->mem[s->mem_start[w->cnode_of[c] + 1]++] = c;
    return PK_OK;
}

/* Everything decided before a byte is written: metrics, locations, the
 * call tree (which compares values, so it comes last), what is lost. */
static pk_status prepare(wstate *s)
{
    cube_writer *w = &s->w;
    pk_status st = cw_plan_metrics(w);
    if (!st) st = cw_rows_init(w); /* a row store is read as it is */
    if (!st && !w->rows) st = pk_model_ensure_cm(w->p);
    if (!st) st = cw_plan_system(w);
    if (!st) st = column_plan(w);
    if (!st) st = cw_plan_tree(w);
    if (!st) st = cw_report_losses(w);
    if (!st) st = index_plan(s);
    if (!st) st = cw_rows_status(w);
    if (st) return st;
    uint32_t max_comp = 1, max_size = 8;
    for (uint32_t i = 0; i < w->n_m; i++) {
        if (w->m[i].n_comp > max_comp) max_comp = w->m[i].n_comp;
        if (w->m[i].type.size > max_size) max_size = w->m[i].type.size;
    }
    s->row = malloc(((size_t)w->n_loc * max_comp + 1) * sizeof *s->row);
    s->seen = malloc((size_t)w->n_loc * max_comp + 1);
    s->enc = malloc((size_t)w->n_loc * max_size + 1);
    s->rows = malloc(((size_t)w->n_cn + 1) * sizeof *s->rows);
    if (!s->row || !s->seen || !s->enc || !s->rows) return pk_fail_nomem("writing Cube");
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

void cw_free(cube_writer *w)
{
    cw_rows_free(w);
    free(w->m), free(w->cn), free(w->cnode_of), free(w->wide), free(w->reg);
    free(w->stn), free(w->grp), free(w->loc), free(w->loc_col);
    pk_arena_free(&w->arena);
}

pk_status cube_write(const pk_profile *p, const char *path, const pk_write_options *opts,
                     pk_write_stats *stats)
{
    uint32_t flags = opts ? opts->flags : 0;
    wstate s = {.w = {.p = p,
                      .path = path,
                      .opts = opts,
                      .stats = stats,
                      .compress = (flags & PK_WRITE_COMPRESS) != 0},
                .mtime = (long)time(NULL)};
    pk_arena_init(&s.w.arena);
    pk_status st = pk_out_create(&s.out, path, flags & PK_WRITE_FORCE);
    if (!st) st = prepare(&s);
    if (!st) {
        st = write_archive(&s);
        if (!st) st = cw_rows_status(&s.w);
        stats->bytes = s.out.offset, stats->n_files = 1;
    }
    if (s.out.safe) st = pk_out_commit(&s.out, st);
    cw_free(&s.w);
    free(s.row), free(s.seen), free(s.enc), free(s.rows), free(s.mem_start), free(s.mem);
    return st;
}
