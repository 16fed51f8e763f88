/*
 * formats/cube/rows.c — Cube's metric-major rows as the model's row store
 * (model.h, pk_row_store): a metric's N.data read in place from the mapped
 * archive, one row per call-tree node, one value per location.
 *
 * Whole-column questions read the rows as stored; the location planes are
 * built (place.c) only when a question walks locations. A column's pages
 * are mapped in one call when it is opened and given back when it is
 * closed, so a scan over every metric holds about one metric's rows.
 */
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "values.h"

/* One open column: what get() needs. */
typedef struct open_col {
    const job *j;
    const cube_dtype *t;
    uint32_t n_locs, n_job_rows, comp;
    double *root;    /* the synthetic root row, or NULL */
    double *scratch; /* multi-component types: a decoded run */
    const pk_mapfile *map;
    uint32_t win_rows, win_begin, win_end; /* rows per window; the mapped one */
    unsigned char *zrow;                   /* ZCUBEX kept compressed: the inflated row zrow_i */
    uint32_t zrow_i;
} open_col;

#define WINDOW_BYTES (4u << 20)

/* Row i is about to be read: map its window, give the previous one back. */
static void slide_window(open_col *o, uint32_t i)
{
    if (!o->map || (i >= o->win_begin && i < o->win_end)) return;
    uint64_t row_bytes = (uint64_t)o->n_locs * o->t->size;
    if (o->win_end > o->win_begin)
        pk_map_release_range(o->map, o->j->data + o->win_begin * row_bytes,
                             (o->win_end - o->win_begin) * row_bytes);
    o->win_begin = i;
    o->win_end = o->n_job_rows - i < o->win_rows ? o->n_job_rows : i + o->win_rows;
    pk_map_populate_range(o->map, o->j->data + i * row_bytes, (o->win_end - i) * row_bytes);
}

static void get_row(const pk_rows *v, uint32_t i, uint32_t l0, uint32_t n, double *out)
{
    open_col *o = v->own;
    if (i >= o->n_job_rows) {
        memcpy(out, o->root + l0, (size_t)n * sizeof *out);
        return;
    }
    const unsigned char *at;
    if (o->zrow) { /* compressed: one row inflated at a time */
        if (o->zrow_i != i) cube_zrow(o->j, i, (uint64_t)o->n_locs * o->t->size, o->zrow);
        o->zrow_i = i;
        at = o->zrow + (uint64_t)l0 * o->t->size;
    } else {
        slide_window(o, i);
        at = o->j->data + ((uint64_t)i * o->n_locs + l0) * o->t->size;
    }
    uint32_t nc = o->t->n_comp;
    if (nc == 1) {
        cube_decode(o->t, o->j->swap, at, n, out);
        return;
    }
    cube_decode(o->t, o->j->swap, at, n, o->scratch);
    for (uint32_t k = 0; k < n; k++)
        out[k] = o->scratch[(size_t)k * nc + o->comp];
}

/* Row i in place, when it is stored as the doubles get_row() would make:
 * DOUBLE values in this machine's byte order, mapped (not compressed). */
static const unsigned char *raw_row(const pk_rows *v, uint32_t i)
{
    open_col *o = v->own;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (i < o->n_job_rows && !o->zrow && o->t->dt == DT_F64 && !o->j->swap) {
        slide_window(o, i);
        return o->j->data + (uint64_t)i * o->n_locs * 8;
    }
#else
    (void)o, (void)i;
#endif
    return NULL;
}

/* A column of an inclusive scope in a file whose top-level cnodes the model
 * hangs under its own root: the root holds their values combined, as the
 * planes do (place.c), so the program total is there as in other formats. */
static int has_synthetic_root(const cube_store *s, uint32_t col)
{
    const pk_profile *p = s->r.p;
    return s->r.root_cnode == CUBE_NONE &&
           p->scopes[p->columns[col].scope].kind == PK_SCOPE_INCLUSIVE;
}

static void build_root(const cube_store *s, uint32_t col, pk_rows *v, open_col *o)
{
    const pk_profile *p = s->r.p;
    pk_combine how = p->metrics[p->columns[col].metric].combine;
    unsigned char *set = (unsigned char *)(o->root + o->n_locs);
    double *row = o->root + 2 * (size_t)o->n_locs;
    memset(set, 0, o->n_locs);
    for (uint32_t l = 0; l < o->n_locs; l++)
        o->root[l] = 0;
    for (uint32_t i = 0; i < o->n_job_rows; i++) {
        if (!s->top[o->j - s->jobs][i]) continue;
        get_row(v, i, 0, o->n_locs, row);
        for (uint32_t l = 0; l < o->n_locs; l++) {
            double x = row[l], *acc = &o->root[l];
            if (x == 0) continue;
            if (!set[l])
                *acc = x, set[l] = 1;
            else if (how == PK_COMBINE_MIN)
                *acc = x < *acc ? x : *acc;
            else if (how == PK_COMBINE_MAX)
                *acc = x > *acc ? x : *acc;
            else
                *acc += x;
        }
    }
}

static pk_status store_open(void *user, uint32_t col, pk_rows *v)
{
    cube_store *s = user;
    *v = (pk_rows){0};
    if (col >= s->n_cols || s->col_job[col] == UINT32_MAX) return PK_OK;
    const job *j = &s->jobs[s->col_job[col]];
    const cube_dtype *t = &s->r.mb[j->mdef].type;
    int root = has_synthetic_root(s, col);
    size_t n = s->r.n_locs, doubles = (root ? 3 * n : 0) + (t->n_comp > 1 ? n * t->n_comp : 0);
    uint64_t zbytes = j->ztable ? n * t->size : 0;
    open_col *o = malloc(sizeof *o + doubles * sizeof(double) + zbytes + 1);
    if (!o) return pk_fail_nomem("reading Cube rows");
    double *mem = (double *)(o + 1);
    uint64_t row_bytes = (uint64_t)n * t->size, win = row_bytes ? WINDOW_BYTES / row_bytes : 1;
    *o = (open_col){.j = j,
                    .t = t,
                    .n_locs = s->r.n_locs,
                    .n_job_rows = j->n_rows,
                    .comp = s->col_comp[col],
                    .root = root ? mem : NULL,
                    .scratch = t->n_comp > 1 ? mem + (root ? 3 * n : 0) : NULL,
                    .map = j->inflated || j->ztable ? NULL : s->map,
                    .zrow = j->ztable ? (unsigned char *)(mem + doubles) : NULL,
                    .zrow_i = UINT32_MAX,
                    .win_rows = win == 0           ? 1
                                : win > UINT32_MAX ? UINT32_MAX
                                                   : (uint32_t)win};
    *v = (pk_rows){.n_rows = j->n_rows + (uint32_t)root,
                   .ctx = s->ctx[s->col_job[col]],
                   .get = get_row,
                   .raw = raw_row,
                   .impl = o,
                   .own = o,
                   .comp = o->comp};
    if (root) build_root(s, col, v, o);
    return PK_OK;
}

static void store_close(void *user, pk_rows *v)
{
    (void)user;
    open_col *o = v->own;
    if (o && o->map && o->win_end > o->win_begin) {
        uint64_t row_bytes = (uint64_t)o->n_locs * o->t->size;
        pk_map_release_range(o->map, o->j->data + o->win_begin * row_bytes,
                             (o->win_end - o->win_begin) * row_bytes);
    }
    free(o);
}

/* Compressed jobs are inflated for the transpose and let go after it. */
static pk_status store_planes(void *user)
{
    cube_store *s = user;
    job *jobs = malloc((s->n_jobs + 1) * sizeof *jobs);
    if (!jobs) return pk_fail_nomem("building location planes");
    pk_status st = PK_OK;
    uint64_t charged = 0;
    for (size_t k = 0; k < s->n_jobs; k++) {
        jobs[k] = s->jobs[k];
        jobs[k].inflated = NULL;
        if (!st && s->jobs[k].ztable) {
            st = cube_zjob_inflate(&s->r, &s->jobs[k], &jobs[k]);
            if (!st)
                charged += (uint64_t)jobs[k].n_rows * s->r.n_locs * s->r.mb[jobs[k].mdef].type.size;
        }
    }
    if (!st) st = cube_place_values(&s->r, jobs, s->n_jobs);
    for (size_t k = 0; k < s->n_jobs; k++)
        free(jobs[k].inflated);
    free(jobs);
    pk_budget_release(&s->r.budget, charged);
    return st;
}

void cube_store_free(cube_store *s)
{
    if (!s) return;
    for (size_t k = 0; k < s->n_jobs; k++) {
        free(s->jobs[k].inflated), free(s->jobs[k].own_rows);
        free(s->ctx[k]), free(s->top[k]);
    }
    free(s->jobs), free(s->ctx), free(s->top), free(s->col_job), free(s->col_comp);
    cube_read_free(&s->r);
    free(s->tar);
    free(s);
}

static void store_destroy(void *user)
{
    cube_store_free(user);
}

/* Per job: each row's context, and whether it is a top-level cnode's. */
static pk_status map_rows(cube_store *s, size_t k)
{
    const cube_read *r = &s->r;
    const job *j = &s->jobs[k];
    const cube_mbuilt *b = &r->mb[j->mdef];
    s->ctx[k] = malloc(((size_t)j->n_rows + 2) * sizeof **s->ctx);
    s->top[k] = malloc((size_t)j->n_rows + 1);
    if (!s->ctx[k] || !s->top[k]) return pk_fail_nomem("reading Cube rows");
    for (uint32_t i = 0; i < j->n_rows; i++) {
        uint32_t row = j->rows ? get32(j->rows + 4 * (size_t)i, j->swap) : i;
        uint32_t d = cnode_of_row(r, b, row);
        s->ctx[k][i] = pk_model_ctx_find(r->p, r->a.cnodes[d].id);
        s->top[k][i] = r->a.cnodes[d].parent == CUBE_NONE;
    }
    s->ctx[k][j->n_rows] = 0; /* the synthetic root row, where there is one */
    return PK_OK;
}

pk_status cube_store_setup(cube_store *s)
{
    pk_profile *p = s->r.p;
    s->n_cols = p->n_columns;
    s->col_job = malloc(((size_t)s->n_cols + 1) * sizeof *s->col_job);
    s->col_comp = calloc((size_t)s->n_cols + 1, sizeof *s->col_comp);
    s->ctx = calloc(s->n_jobs + 1, sizeof *s->ctx);
    s->top = calloc(s->n_jobs + 1, sizeof *s->top);
    if (!s->col_job || !s->col_comp || !s->ctx || !s->top)
        return pk_fail_nomem("reading Cube rows");
    memset(s->col_job, 0xff, ((size_t)s->n_cols + 1) * sizeof *s->col_job);
    for (size_t k = 0; k < s->n_jobs; k++) {
        const cube_mbuilt *b = &s->r.mb[s->jobs[k].mdef];
        for (uint32_t c = 0; c < b->type.n_comp && b->column + c < s->n_cols; c++)
            s->col_job[b->column + c] = (uint32_t)k, s->col_comp[b->column + c] = c;
        pk_status st = map_rows(s, k);
        if (st) return st;
    }
    s->ops = (pk_row_store){s, store_open, store_close, store_planes, store_destroy};
    return PK_OK;
}
