/*
 * analysis/totals_rows.c — totals.c's whole-column questions answered from
 * a row store (model.h: Cube's metric-major rows, read in place) instead
 * of the location planes, which such a profile builds only on demand.
 *
 * The answers are those of the plane walks: zero values count as absent
 * (the planes do not hold them), so min/max start from the first value
 * actually stored, and sums are compensated.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "totals.h"
#include "util/parallel.h"

typedef struct rows_job {
    const pk_profile *p;
    const uint8_t *top; /* per context: 1 root, 2 entry point */
    ksum *sums, *root, *entries;
} rows_job;

/* One row's sum (the scan adds a row in vectorised blocks: model/rowsum.c)
 * into its column's sums (each column is one worker's). */
static void sum_row(void *user, unsigned worker, uint32_t col, uint32_t ctx, double sum,
                    double comp)
{
    rows_job *job = user;
    const pk_profile *p = job->p;
    (void)worker;
    ksum_add(&job->sums[col], sum), ksum_add(&job->sums[col], comp);
    uint8_t t = ctx < p->n_ctx ? job->top[ctx] : 0;
    if (t) {
        ksum *k = t == 1 ? &job->root[col] : &job->entries[col];
        ksum_add(k, sum), ksum_add(k, comp);
    }
}

pk_status pk_rows_totals(const pk_profile *p, double *columns, double *root, double *entries)
{
    size_t nc = p->n_columns ? p->n_columns : 1;
    rows_job job = {.p = p};
    uint8_t *top = calloc((size_t)p->n_ctx + 1, 1);
    ksum *k = calloc(3 * nc, sizeof *k);
    if (!top || !k) return free(top), free(k), pk_fail_nomem("summing rows");
    for (uint32_t c = 0; c < p->n_ctx; c++)
        top[c] = c == 0 ? 1 : p->ctx[c].kind == PK_CTX_ENTRY ? 2 : 0;
    job.top = top, job.sums = k, job.root = k + nc, job.entries = k + 2 * nc;
    uint64_t bytes = (uint64_t)p->n_ctx * p->n_locs * 8 * p->n_columns;
    pk_status st = pk_model_rows_scan(p, pk_workers_for(bytes), sum_row, &job);
    for (uint32_t c = 0; c < p->n_columns && !st; c++) {
        columns[c] = ksum_value(&job.sums[c]);
        if (root) root[c] = ksum_value(&job.root[c]);
        if (entries) entries[c] = ksum_value(&job.entries[c]);
    }
    free(top), free(k);
    return st;
}

/* fn on every row of column whose context `pick` marks (NULL: all rows
 * of a context), with its values of all locations. */
typedef void (*row_fn)(const pk_profile *p, uint32_t ctx, const double *row, void *user);

static pk_status each_row(const pk_profile *p, pk_index column, const unsigned char *pick,
                          row_fn fn, void *user)
{
    pk_rows v;
    double *buf = malloc(((size_t)p->n_locs + 1) * sizeof *buf);
    if (!buf) return pk_fail_nomem("reading rows");
    pk_status st = pk_model_rows_open(p, column, &v);
    for (uint32_t i = 0; !st && i < v.n_rows; i++) {
        uint32_t ctx = v.ctx[i];
        if (ctx >= p->n_ctx || (pick && !pick[ctx])) continue;
        v.get(&v, i, 0, p->n_locs, buf);
        fn(p, ctx, buf, user);
    }
    if (!st) pk_model_rows_close(p, &v);
    free(buf);
    return st;
}

typedef struct combine_acc {
    pk_combine how;
    double *out;
    unsigned char *seen;
} combine_acc;

static void combine_row(const pk_profile *p, uint32_t ctx, const double *row, void *user)
{
    combine_acc *a = user;
    for (uint32_t l = 0; l < p->n_locs; l++)
        if (row[l] != 0) pk_combine_into(a->how, &a->out[ctx], &a->seen[ctx], row[l]);
}

pk_status pk_rows_context_combined(const pk_profile *p, pk_index column, pk_combine how,
                                   double *out, unsigned char *seen)
{
    combine_acc a = {how, out, seen};
    return each_row(p, column, NULL, combine_row, &a);
}

static void add_row(const pk_profile *p, uint32_t ctx, const double *row, void *user)
{
    double *out = user;
    (void)ctx;
    for (uint32_t l = 0; l < p->n_locs; l++)
        out[l] += row[l];
}

pk_status pk_rows_location_sums(const pk_profile *p, pk_index column, const unsigned char *pick,
                                double *out)
{
    for (uint32_t l = 0; l < p->n_locs; l++)
        out[l] = 0;
    return each_row(p, column, pick, add_row, out);
}

static void count_row(const pk_profile *p, uint32_t ctx, const double *row, void *user)
{
    uint64_t *n = user;
    (void)ctx;
    for (uint32_t l = 0; l < p->n_locs; l++)
        *n += row[l] != 0;
}

pk_status pk_rows_count_values(const pk_profile *p, pk_index column, const unsigned char *pick,
                               uint64_t *n)
{
    *n = 0;
    return each_row(p, column, pick, count_row, n);
}

/* Locations per block of pk_rows_clamped_points(): its n_ctx x block
 * accumulators in about 16 MB. */
static uint32_t clamp_block(const pk_profile *p)
{
    uint64_t b = (16u << 20) / (8 * (uint64_t)(p->n_ctx ? p->n_ctx : 1));
    if (b > p->n_locs) b = p->n_locs;
    return b ? (uint32_t)b : 1;
}

/* Rows [of v] for locations [l0, l0 + nb): each one's point values
 * (inclusive minus the children's), clamped at 0, added into out. */
static void clamp_locations(const pk_profile *p, const pk_rows *v, uint32_t l0, uint32_t nb,
                            double *acc, double *buf, double *out)
{
    memset(acc, 0, (size_t)p->n_ctx * nb * sizeof *acc);
    for (uint32_t i = 0; i < v->n_rows; i++) {
        uint32_t c = v->ctx[i];
        if (c >= p->n_ctx) continue;
        uint32_t parent = p->ctx[c].parent;
        v->get(v, i, l0, nb, buf);
        double *a = acc + (size_t)c * nb,
               *pa = parent < p->n_ctx ? acc + (size_t)parent * nb : NULL;
        for (uint32_t k = 0; k < nb; k++) {
            a[k] += buf[k];
            if (pa) pa[k] -= buf[k];
        }
    }
    for (uint32_t c = 0; c < p->n_ctx; c++)
        for (uint32_t k = 0; k < nb; k++)
            if (acc[(size_t)c * nb + k] > 0) out[c] += acc[(size_t)c * nb + k];
}

pk_status pk_rows_clamped_points(const pk_profile *p, pk_index column, double *out)
{
    uint32_t nb = clamp_block(p);
    double *acc = malloc(((size_t)p->n_ctx * nb + 1) * sizeof *acc);
    double *buf = malloc(((size_t)nb + 1) * sizeof *buf);
    pk_rows v;
    pk_status st = acc && buf ? pk_model_rows_open(p, column, &v) : pk_fail_nomem("clamping rows");
    for (uint32_t c = 0; c < p->n_ctx; c++)
        out[c] = 0;
    for (uint32_t l0 = 0; !st && l0 < p->n_locs; l0 += nb)
        clamp_locations(p, &v, l0, p->n_locs - l0 < nb ? p->n_locs - l0 : nb, acc, buf, out);
    if (!st) pk_model_rows_close(p, &v);
    free(acc), free(buf);
    return st;
}
