/*
 * analysis/totals.c — sums of stored values: per column over the whole
 * profile, per context for one column, and a metric's program total.
 *
 * Sums use Neumaier's compensated summation, so totals over millions of
 * values do not depend (beyond the last bit or so) on the order in which
 * files happen to store them; independent readers then agree with us to
 * ~1e-15 relative, not just ~1e-9.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "profkit/analysis.h"
#include "profkit/callgraph.h"
#include "summary.h"
#include "totals.h"
#include "util/bytes.h"
#include "util/parallel.h"

/* Every value of a location's plane, into the column sums. Validated
 * planes attribute every value to some context, so the whole value array
 * is scanned without looking at the index. */
static void add_plane(const pk_profile *p, const pk_loc_rec *l, ksum *sums)
{
    int space = l->is_summary;
    const unsigned char *v = l->plane.vals;
    for (uint64_t i = 0; i < l->plane.nvals; i++, v += PK_LM_VAL_SIZE) {
        uint32_t col = pk_model_col_of(p, space, pk_le16(v));
        if (col != PK_NONE) ksum_add(&sums[col], pk_le_f64(v + 2));
    }
}

typedef struct totals_job {
    const pk_profile *p;
    uint64_t max_entry_id; /* ids of the root and entry points are <= this */
    /* per worker, n_columns each: all values, values at the root, values at entry points */
    ksum *sums[PK_MAX_WORKERS], *root[PK_MAX_WORKERS], *entries[PK_MAX_WORKERS];
} totals_job;

static uint64_t plane_bytes(void *user, uint32_t l)
{
    return ((totals_job *)user)->p->locs[l].plane.nvals * PK_LM_VAL_SIZE;
}

/* Values of a plain location at the root and at entry points: the first
 * index records (ids are sorted and these ids are the smallest in real
 * files; the scan stops past max_entry_id). */
static void add_top(totals_job *job, unsigned w, const pk_plane *pl)
{
    const pk_profile *p = job->p;
    for (uint32_t k = 0; k < pl->nidx; k++) {
        const unsigned char *x = pl->idx + (uint64_t)k * PK_LM_IDX_SIZE;
        uint32_t id = pk_le32(x);
        if (id > job->max_entry_id) break;
        uint32_t ctx = pk_model_ctx_find(p, id);
        if (ctx == PK_NONE || (ctx != 0 && p->ctx[ctx].kind != PK_CTX_ENTRY)) continue;
        uint64_t b = pk_le64(x + 4),
                 e = k + 1 < pl->nidx ? pk_le64(x + 4 + PK_LM_IDX_SIZE) : pl->nvals;
        for (uint64_t v = b; v < e && v < pl->nvals; v++) {
            const unsigned char *r = pl->vals + v * PK_LM_VAL_SIZE;
            uint32_t col = pk_model_col_of(p, 0, pk_le16(r));
            if (col == PK_NONE) continue;
            double value = pk_le_f64(r + 2);
            ksum_add(ctx ? &job->entries[w][col] : &job->root[w][col], value);
        }
    }
}

static void sum_locations(void *user, unsigned worker, uint32_t begin, uint32_t end)
{
    totals_job *job = user;
    const pk_profile *p = job->p;
    pk_release rel;
    pk_release_start(&rel, begin < end ? pk_model_mapping_of(p, p->locs[begin].plane.vals) : NULL);
    for (uint32_t l = begin; l < end; l++) {
        const pk_plane *pl = &p->locs[l].plane;
        pk_release_advance(&rel, pl->vals);
        add_plane(p, &p->locs[l], job->sums[worker]);
        if (job->root[worker] && !p->locs[l].is_summary) add_top(job, worker, pl);
        pk_release_advance(&rel, pk_plane_vals_end(pl));
    }
    if (end > begin) {
        const pk_plane *last = &p->locs[end - 1].plane;
        pk_release_finish(&rel, pk_plane_vals_end(last));
    }
}

/* Worker w's sums of one kind for column c, merged in worker order. */
static double merged(ksum *const *per_worker, unsigned workers, uint32_t c)
{
    ksum total = per_worker[0][c];
    for (unsigned w = 1; w < workers; w++) {
        ksum_add(&total, per_worker[w][c].sum);
        ksum_add(&total, per_worker[w][c].comp);
    }
    return ksum_value(&total);
}

uint64_t pk_largest_top_id(const pk_profile *p)
{
    uint64_t max = p->n_ctx ? p->ctx[0].id : 0;
    for (uint32_t k = 0; p->n_ctx && k < p->ctx[0].n_children; k++)
        if (p->ctx[p->ctx[0].first_child + k].id > max) max = p->ctx[p->ctx[0].first_child + k].id;
    return max;
}

/* The one pass behind pk_column_totals() and pk_profile_totals():
 * locations split into contiguous ranges, one per worker, merged in range
 * order (the same result on every run with the same number of workers). */
static pk_status run_totals(const pk_profile *p, double *columns, double *root, double *entries)
{
    if (pk_model_has_rows(p)) return pk_rows_totals(p, columns, root, entries);
    int from_summary;
    pk_status st = pk_summary_totals(p, columns, root, entries, &from_summary);
    if (st || from_summary) return st;
    st = pk_model_ensure_planes(p); /* reads every plane as stored */
    if (st) return st;
    totals_job job = {.p = p, .max_entry_id = pk_largest_top_id(p)};
    uint64_t bytes = 0;
    for (uint32_t l = 0; l < p->n_locs; l++)
        bytes += plane_bytes(&job, l);
    unsigned workers = pk_workers_for(bytes);
    size_t n_cols = p->n_columns ? p->n_columns : 1;
    ksum *all = calloc(3 * workers * n_cols, sizeof *all);
    if (!all) return pk_fail_nomem("summing columns");
    for (unsigned w = 0; w < workers; w++) { /* root and entry sums only when asked for */
        job.sums[w] = all + (3 * w) * n_cols;
        job.root[w] = root ? all + (3 * w + 1) * n_cols : NULL;
        job.entries[w] = root ? all + (3 * w + 2) * n_cols : NULL;
    }
    pk_parallel_ranges(workers, p->n_locs, plane_bytes, sum_locations, &job);
    for (uint32_t c = 0; c < p->n_columns; c++) {
        columns[c] = merged(job.sums, workers, c);
        if (root) root[c] = merged(job.root, workers, c);
        if (entries) entries[c] = merged(job.entries, workers, c);
    }
    free(all);
    return PK_OK;
}

pk_status pk_column_totals(const pk_profile *p, double *out, size_t n_out)
{
    if (!p || (!out && p->n_columns))
        return pk_fail(PK_ERR_INVALID_ARG, "pk_column_totals: NULL argument");
    if (n_out < p->n_columns)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_column_totals: room for %zu of %u columns", n_out,
                       p->n_columns);
    return run_totals(p, out, NULL, NULL);
}

void pk_combine_into(pk_combine how, double *acc, unsigned char *seen, double x)
{
    if (!*seen || how == PK_COMBINE_SUM || how == PK_COMBINE_OTHER)
        *acc = *seen ? *acc + x : x;
    else if (how == PK_COMBINE_MIN)
        *acc = x < *acc ? x : *acc;
    else
        *acc = x > *acc ? x : *acc;
    *seen = 1;
}

/* A database may hold only summary locations (HPCToolkit: hpcprof
 * --no-thread-local). Then a plain column's values across locations are
 * what the summary's SUM statistic of the same metric and scope stores;
 * returns that column, or PK_NONE when there are plain locations (or no
 * such statistic). */
static pk_index summary_only_stand_in(const pk_profile *p, pk_index column)
{
    const pk_column *col = &p->columns[column];
    if (col->is_summary || pk_has_plain_locations(p)) return PK_NONE;
    for (uint32_t c = 0; c < p->n_columns; c++) {
        const pk_column *s = &p->columns[c];
        if (s->is_summary && s->stat == PK_STAT_SUM && s->metric == col->metric &&
            s->scope == col->scope)
            return c;
    }
    return PK_NONE;
}

/* The summary column that answers for plain column `column`: the only
 * values there are (above), or exact statistics over the plain locations
 * (summary.c); PK_NONE: add up the locations. */
static pk_index summary_stand_in(const pk_profile *p, pk_index column)
{
    pk_index s = summary_only_stand_in(p, column);
    return s != PK_NONE ? s : pk_summary_stand_in(p, column);
}

/* The plane is walked here, not through a cursor: this runs once per
 * value of every location for each tree, flat or threads answer, and the
 * cursor's per-value call and bookkeeping were most of its cost (a tree
 * of cc1: 120 instructions a value). Runs are clamped to the plane as the
 * cursor clamps them. */
pk_status pk_combine_location(const pk_profile *p, uint32_t l, pk_index column, pk_combine how,
                              double *out, unsigned char *seen)
{
    if (l >= p->n_locs || column >= p->n_columns)
        return pk_fail(PK_ERR_NOT_FOUND, "location %u or column %u out of range", l, column);
    const pk_plane *pl;
    pk_status st = pk_model_location_plane(p, l, &pl);
    if (st || p->locs[l].is_summary != p->columns[column].is_summary) return st;
    uint32_t raw = p->columns[column].raw_id; /* beyond 16 bits: in no value */
    for (uint32_t k = 0; k < pl->nidx; k++) {
        const unsigned char *x = pl->idx + (uint64_t)k * PK_LM_IDX_SIZE;
        uint64_t b = pk_le64(x + 4);
        uint64_t e = k + 1 < pl->nidx ? pk_le64(x + 4 + PK_LM_IDX_SIZE) : pl->nvals;
        if (e > pl->nvals) e = pl->nvals;
        uint32_t ctx = b < e ? pk_model_ctx_find(p, pk_le32(x)) : PK_NONE;
        if (ctx == PK_NONE) continue;
        for (const unsigned char *v = pl->vals + b * PK_LM_VAL_SIZE; b < e;
             b++, v += PK_LM_VAL_SIZE)
            if (pk_le16(v) == raw) pk_combine_into(how, &out[ctx], &seen[ctx], pk_le_f64(v + 2));
    }
    return PK_OK;
}

pk_status pk_context_combined(const pk_profile *p, pk_index column, double *out,
                              unsigned char *seen)
{
    pk_index stand_in = summary_stand_in(p, column);
    if (stand_in != PK_NONE) column = stand_in;
    const pk_column *col = &p->columns[column];
    pk_combine how = col->is_summary ? col->combine : p->metrics[col->metric].combine;
    unsigned char *own = seen ? NULL : calloc(p->n_ctx ? p->n_ctx : 1, 1);
    if (!seen && !own) return pk_fail_nomem("summing contexts");
    if (!seen) seen = own;
    memset(seen, 0, p->n_ctx);
    for (uint32_t i = 0; i < p->n_ctx; i++)
        out[i] = 0.0;
    pk_status st = PK_OK;
    if (pk_model_has_rows(p) && !col->is_summary)
        st = pk_rows_context_combined(p, column, how, out, seen);
    else
        for (uint32_t l = 0; l < p->n_locs && !st; l++)
            if (p->locs[l].is_summary == col->is_summary)
                st = pk_combine_location(p, l, column, how, out, seen);
    free(own);
    return st;
}

pk_status pk_context_totals(const pk_profile *p, pk_index column, double *out, size_t n_out)
{
    if (!p || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_context_totals: NULL argument");
    if (column >= p->n_columns)
        return pk_fail(PK_ERR_NOT_FOUND, "column index %u out of range", column);
    if (n_out < p->n_ctx)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_context_totals: room for %zu of %u contexts", n_out,
                       p->n_ctx);
    return pk_context_combined(p, column, out, NULL);
}

/* A metric stored only exclusive: its derived inclusive value at the root. */
static pk_status derived_program_total(const pk_profile *p, pk_index metric, double *out)
{
    double *incl = malloc(p->n_ctx * sizeof *incl);
    if (!incl) return pk_fail_nomem("deriving a program total");
    pk_status st = pk_context_scope_values(p, metric, PK_SCOPE_INCLUSIVE, incl, p->n_ctx, NULL);
    if (!st) *out = incl[0];
    free(incl);
    return st;
}

/* A min/max metric's stored inclusive value at the root (else at the
 * entry points), combined over the locations that hold one. */
static pk_status combined_root(const pk_profile *p, pk_index col, int summary, pk_combine how,
                               double *out)
{
    double root = 0, entries = 0, v;
    unsigned char root_seen = 0, entries_seen = 0;
    const pk_ctx_rec *r = &p->ctx[0];
    for (uint32_t l = 0; l < p->n_locs; l++) {
        if (p->locs[l].is_summary != summary) continue;
        if (pk_value_lookup(p, l, 0, col, &v) == PK_OK && v != 0.0)
            pk_combine_into(how, &root, &root_seen, v);
        for (uint32_t k = 0; k < r->n_children; k++)
            if (pk_value_lookup(p, l, r->first_child + k, col, &v) == PK_OK && v != 0.0)
                pk_combine_into(how, &entries, &entries_seen, v);
    }
    *out = root_seen ? root : entries;
    return PK_OK;
}

/* The same from a row store: the column combined per context, then the
 * root's value, or the entry points' combined. */
static pk_status rows_program_total(const pk_profile *p, pk_index col, pk_combine how, double *out)
{
    size_t n = p->n_ctx ? p->n_ctx : 1;
    double *v = malloc(n * sizeof *v);
    unsigned char *seen = malloc(n);
    pk_status st = v && seen ? pk_context_combined(p, col, v, seen) : pk_fail_nomem("totals");
    double entries = 0;
    unsigned char entries_seen = 0;
    const pk_ctx_rec *r = &p->ctx[0];
    for (uint32_t k = 0; !st && k < r->n_children; k++)
        if (seen[r->first_child + k])
            pk_combine_into(how, &entries, &entries_seen, v[r->first_child + k]);
    if (!st) *out = seen[0] ? v[0] : entries;
    free(v), free(seen);
    return st;
}

pk_status pk_metric_program_total(const pk_profile *p, pk_index metric, double *out)
{
    if (!p || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_metric_program_total: NULL argument");
    pk_index col;
    if (metric >= p->n_metrics)
        return pk_fail(PK_ERR_NOT_FOUND, "metric index %u out of range", metric);
    /* A Callgrind file's own summary:/totals: line is its program total,
     * as callgrind_annotate reports it (pk_metric_stated_total()). */
    if (pk_metric_stated_total(p, metric, out, NULL) == PK_OK) return PK_OK;
    if (p->n_ctx == 0 || p->n_locs == 0)
        return pk_fail(PK_ERR_NOT_FOUND, "the profile has no values");
    if (pk_column_find(p, metric, PK_SCOPE_INCLUSIVE, &col) != PK_OK)
        return derived_program_total(p, metric, out);
    pk_index stand_in = summary_stand_in(p, col);
    if (stand_in != PK_NONE) col = stand_in;
    if (pk_model_has_rows(p) && !p->columns[col].is_summary)
        return rows_program_total(p, col, p->metrics[metric].combine, out);
    if (p->metrics[metric].combine == PK_COMBINE_MIN ||
        p->metrics[metric].combine == PK_COMBINE_MAX)
        return combined_root(p, col, stand_in != PK_NONE, p->metrics[metric].combine, out);
    ksum root = {0}, entries = {0};
    int root_seen = 0;
    const pk_ctx_rec *r = &p->ctx[0];
    for (uint32_t l = 0; l < p->n_locs; l++) {
        if (p->locs[l].is_summary != (stand_in != PK_NONE)) continue;
        double v;
        pk_value_lookup(p, l, 0, col, &v);
        root_seen |= v != 0.0;
        ksum_add(&root, v);
        for (uint32_t k = 0; k < r->n_children; k++) {
            pk_value_lookup(p, l, r->first_child + k, col, &v);
            ksum_add(&entries, v);
        }
    }
    /* The root holds the total where the format stores it (HPCToolkit's
     * global context); otherwise the entry points' values add up to it. */
    *out = root_seen ? ksum_value(&root) : ksum_value(&entries);
    return PK_OK;
}

/* A sum-combined metric stored only exclusive, in a tree where every
 * context is its own function's (no lexical children, none unlisted):
 * the derived inclusive value at the root is the sum of all its exclusive
 * values, which the pass already has. */
static int exclusive_sum_is_total(const pk_profile *p, pk_index m, const double *columns,
                                  double *out)
{
    pk_index col;
    if (p->metrics[m].combine != PK_COMBINE_SUM ||
        pk_column_find(p, m, PK_SCOPE_EXCLUSIVE, &col) != PK_OK)
        return 0;
    for (uint32_t c = 1; c < p->n_ctx; c++)
        if (p->ctx[c].relation == PK_REL_LEXICAL || p->ctx[c].parent == PK_NONE) return 0;
    *out = columns[col];
    return 1;
}

/* Program totals from the pass's root and entry sums: the same answer as
 * pk_metric_program_total(), without a second visit to every location. */
static void program_totals(const pk_profile *p, const double *columns, const double *root,
                           const double *entries, double *out)
{
    int plain = pk_has_plain_locations(p);
    for (uint32_t m = 0; m < p->n_metrics; m++) {
        pk_index col;
        out[m] = NAN;
        if (pk_metric_stated_total(p, m, &out[m], NULL) == PK_OK) continue; /* as stated */
        if (!plain || p->n_ctx == 0) { /* summary-only: cheap lookups */
            if (pk_metric_program_total(p, m, &out[m]) != PK_OK) out[m] = NAN;
            continue;
        }
        if (p->metrics[m].combine != PK_COMBINE_SUM) { /* min/max: not a sum of the roots */
            if (pk_metric_program_total(p, m, &out[m]) != PK_OK) out[m] = NAN;
            continue;
        }
        if (pk_column_find(p, m, PK_SCOPE_INCLUSIVE, &col) != PK_OK) {
            if (!exclusive_sum_is_total(p, m, columns, &out[m]) &&
                pk_metric_program_total(p, m, &out[m]) != PK_OK) /* derive it */
                out[m] = NAN;
            continue;
        }
        if (p->columns[col].is_summary) continue;
        /* the root holds the total where the format stores it (HPCToolkit's
         * global context); otherwise the entry points add up to it */
        out[m] = root[col] != 0.0 ? root[col] : entries[col];
    }
}

pk_status pk_profile_totals(const pk_profile *p, double *columns, size_t n_columns,
                            double *programs, size_t n_metrics)
{
    if (!p || (!columns && p->n_columns) || (!programs && p->n_metrics))
        return pk_fail(PK_ERR_INVALID_ARG, "pk_profile_totals: NULL argument");
    if (n_columns < p->n_columns || n_metrics < p->n_metrics)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_profile_totals: output arrays too small");
    size_t n = p->n_columns ? p->n_columns : 1;
    double *root = malloc(2 * n * sizeof *root);
    if (!root) return pk_fail_nomem("summing columns");
    pk_status st = run_totals(p, columns, root, root + n);
    if (!st) program_totals(p, columns, root, root + n, programs);
    free(root);
    return st;
}

/* Does child metric c add into metric m's value along the metric tree? */
static int adds_into(const pk_profile *p, pk_index c, pk_index m)
{
    const pk_metric *a = &p->metrics[c], *b = &p->metrics[m];
    if (a->combine != PK_COMBINE_SUM || b->combine != PK_COMBINE_SUM) return 0;
    if (pk_attribute_find(p, PK_ENTITY_METRIC, c, "cube:component")) return 0; /* "X.im" of "X" */
    const char *ua = a->unit ? a->unit : "", *ub = b->unit ? b->unit : "";
    return strcmp(ua, ub) == 0;
}

pk_status pk_metric_tree_exclusive(const pk_profile *p, const double *programs, double *exclusive,
                                   size_t n)
{
    if (!p || (!programs && p->n_metrics) || (!exclusive && p->n_metrics))
        return pk_fail(PK_ERR_INVALID_ARG, "pk_metric_tree_exclusive: NULL argument");
    if (n < p->n_metrics)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_metric_tree_exclusive: room for %zu of %u metrics",
                       n, p->n_metrics);
    for (pk_index m = 0; m < p->n_metrics; m++)
        exclusive[m] = programs[m];
    for (pk_index c = 0; c < p->n_metrics; c++) {
        pk_index up = p->metrics[c].parent;
        if (up == PK_NONE || up >= p->n_metrics || up == c || isnan(programs[c])) continue;
        if (adds_into(p, c, up)) exclusive[up] -= programs[c];
    }
    for (pk_index m = 0; m < p->n_metrics; m++) /* what is left of rounding is nothing */
        if (fabs(exclusive[m]) <= 1e-9 * fabs(programs[m])) exclusive[m] = 0;
    return PK_OK;
}
