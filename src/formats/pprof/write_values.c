/*
 * formats/pprof/write_values.c — each location's values as samples.
 *
 * A pprof sample holds what was measured at one stack: a context's point
 * value, the stored value minus what its children hold (all children for
 * an inclusive column, the lexical ones for an exclusive one). They are
 * found per location from its stored values alone, sparse: each value
 * adds to its context's row and takes from its parent's, rows made for
 * the contexts reached only, so the work follows the values, never
 * contexts x locations.
 * Each location's samples carry its labels: the pprof labels it was read
 * with, else its identifiers (RANK 3, THREAD 0) as numeric labels of
 * unit "id" (pprof drops a numeric label of value 0 without a unit); a
 * location without values has no sample to carry them. With
 * --location the locations it names are summed into unlabelled samples.
 * Values are scaled and rounded as write_plan.c chose.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof.h"
#include "profkit/analysis.h"
#include "pw.h"
#include "util/error.h"
#include "util/vec.h"

/* Point values of the locations at hand: a row of n_m sums per context
 * they reach, found through slot[] (PK_NONE: no row yet), in the order
 * first reached; slot[] is reset for those contexts after each group. */
typedef struct acc {
    uint32_t *slot;    /* per context */
    uint32_t *touched; /* contexts with a row, in order */
    double *rows;      /* n_touched rows of n_m */
    uint32_t n;
    size_t cap_touched, cap_rows;
} acc;

static int add(pw *w, acc *a, uint32_t ctx, uint32_t m, double v)
{
    if (a->slot[ctx] == PK_NONE) {
        if (pk_vec_reserve((void **)&a->touched, &a->cap_touched, a->n + 1u, 4) ||
            pk_vec_reserve((void **)&a->rows, &a->cap_rows, (a->n + 1u) * (size_t)w->n_m, 8))
            return -1;
        memset(a->rows + (size_t)a->n * w->n_m, 0, w->n_m * sizeof *a->rows);
        a->slot[ctx] = a->n, a->touched[a->n++] = ctx;
    }
    a->rows[(size_t)a->slot[ctx] * w->n_m + m] += v;
    return 0;
}

/* Location l's point values of every written metric, added into a. */
static pk_status collect(pw *w, uint32_t l, acc *a)
{
    const pk_profile *p = w->p;
    for (uint32_t m = 0; m < w->n_m; m++) {
        const pw_metric *x = &w->m[m];
        pk_cursor cur;
        pk_value v;
        if (pk_location_column_begin(p, l, x->col, &cur)) continue;
        while (pk_cursor_next(&cur, &v)) {
            if (v.context >= p->n_ctx || (p->ctx[v.context].flags & PK_CTXF_UNLISTED)) continue;
            const pk_ctx_rec *c = &p->ctx[v.context];
            int take = c->parent < p->n_ctx &&
                       (x->scope == PK_SCOPE_INCLUSIVE ||
                        (x->scope == PK_SCOPE_EXCLUSIVE && c->relation == PK_REL_LEXICAL));
            if (add(w, a, v.context, m, v.value) || (take && add(w, a, c->parent, m, -v.value)))
                return pk_fail_nomem("writing a pprof profile");
        }
    }
    pk_error_clear();
    return PK_OK;
}

/* ---- labels ---- */

static void label(pb_out *o, pw *w, const char *key, const char *str, int64_t num, const char *unit)
{
    pb_out one = {0};
    pb_put_uint(&one, 1, pw_str(w, key));
    if (str) pb_put_uint(&one, 2, pw_str(w, str));
    if (!str) pb_put_uint(&one, 3, (uint64_t)num);
    if (!str && unit) pb_put_uint(&one, 4, pw_str(w, unit));
    if (one.failed) o->failed = 1;
    pb_put_bytes(o, 3, one.buf, one.len);
    pb_out_free(&one);
}

/* The pprof labels location l was read with; 0 if none. */
static int pprof_labels(pw *w, uint32_t l, pb_out *o)
{
    const pk_profile *p = w->p;
    size_t first, n, ls = strlen(PPROF_ATTR_LABEL), ln = strlen(PPROF_ATTR_NUM_LABEL);
    int any = 0;
    pk_attribute_range(p, PK_ENTITY_LOCATION, l, &first, &n);
    for (size_t i = first; i < first + n; i++) {
        const pk_attr_rec *a = &p->attrs[i];
        if (!strncmp(a->key, PPROF_ATTR_LABEL, ls)) {
            label(o, w, a->key + ls, a->value, 0, NULL), any = 1;
        } else if (!strncmp(a->key, PPROF_ATTR_NUM_LABEL, ln)) {
            char unit_key[1200];
            snprintf(unit_key, sizeof unit_key, "%s%.1000s", PPROF_ATTR_NUM_UNIT, a->key + ln);
            const char *unit = pk_attribute_find(p, PK_ENTITY_LOCATION, l, unit_key);
            label(o, w, a->key + ln, NULL, strtoll(a->value, NULL, 10), unit), any = 1;
        }
    }
    return any;
}

static void labels_of(pw *w, uint32_t l, pb_out *o)
{
    const pk_loc_rec *x = &w->p->locs[l];
    o->len = 0;
    if (pprof_labels(w, l, o)) return;
    for (uint32_t k = 0; k < x->n_ids; k++) {
        char kind[32];
        const char *key = x->ids[k].kind_name;
        if (!key) snprintf(kind, sizeof kind, "KIND%u", x->ids[k].kind), key = kind;
        /* a unit, since pprof drops a numeric label 0 that has none */
        label(o, w, key, NULL, x->ids[k].logical, "id");
    }
}

/* ---- samples ---- */

static pk_status value_of(pw *w, uint32_t m, double v, uint64_t *out)
{
    double x = nearbyint(v * w->m[m].scale);
    if (!(fabs(x) < 9.2e18))
        return pk_fail(PK_ERR_UNSUPPORTED,
                       "%s: a value of metric %s (%g) does not fit a pprof sample value (a "
                       "64-bit integer) at the scale written",
                       w->path, w->p->metrics[w->m[m].metric].name, v);
    if (x < 0 && (w->p->metrics[w->m[m].metric].flags & PK_METRIC_UNSIGNED)) w->m[m].negative++;
    *out = (uint64_t)(int64_t)x;
    return PK_OK;
}

/* One sample per context the group reached, in the order reached. */
static pk_status write_samples(pw *w, const acc *a, const pb_out *labels, uint64_t *vals)
{
    for (uint32_t i = 0; i < a->n; i++) {
        size_t any = 0, stack;
        for (uint32_t m = 0; m < w->n_m; m++) {
            PK_TRY(value_of(w, m, a->rows[(size_t)i * w->n_m + m], &vals[m]));
            any += vals[m] != 0;
        }
        if (!any) continue;
        PK_TRY(pw_stack(w, a->touched[i], &stack));
        pb_out *o = &w->scratch;
        o->len = 0;
        pb_put_packed(o, 1, w->stack, stack);
        pb_put_packed(o, 2, vals, w->n_m);
        pb_put_raw(o, labels->buf, labels->len);
        if (labels->failed) o->failed = 1;
        pw_emit(w, o, 2);
        if (w->stats) w->stats->n_values += any;
        w->n_samples++;
        PK_TRY(pw_flush(w, 0));
    }
    return PK_OK;
}

static pk_status group(pw *w, acc *a, const unsigned char *in, int labelled, uint32_t l0,
                       pb_out *labels, uint64_t *vals)
{
    pk_status st = PK_OK;
    for (uint32_t l = labelled ? l0 : 0; l < w->p->n_locs && !st; l++) {
        if (labelled && l != l0) break;
        if (!labelled && !in[l]) continue;
        st = collect(w, l, a);
    }
    if (labelled) labels_of(w, l0, labels);
    uint64_t before = w->n_samples;
    if (!st) st = write_samples(w, a, labels, vals);
    if (labelled && w->n_samples == before) w->empty_locations++; /* no sample to label */
    for (uint32_t i = 0; i < a->n; i++)
        a->slot[a->touched[i]] = PK_NONE;
    a->n = 0;
    return st;
}

/* Which locations are written: plain ones (summaries if only they hold
 * values), or those --location names. */
static pk_status choose(pw *w, unsigned char *in, int *summed)
{
    const pk_profile *p = w->p;
    const char *sel = w->opts ? w->opts->location : NULL;
    int plain = 0;
    if (sel) {
        *summed = 1;
        return pk_location_select(p, sel, in, p->n_locs, NULL);
    }
    for (uint32_t l = 0; l < p->n_locs; l++)
        plain |= !p->locs[l].is_summary && p->locs[l].plane.nvals;
    for (uint32_t l = 0; l < p->n_locs; l++)
        in[l] = plain ? !p->locs[l].is_summary : p->locs[l].is_summary;
    *summed = !plain;
    return PK_OK;
}

pk_status pw_samples(pw *w)
{
    const pk_profile *p = w->p;
    unsigned char *in = calloc(p->n_locs + 1u, 1);
    uint64_t *vals = calloc(w->n_m + 1u, sizeof *vals);
    acc a = {malloc(((size_t)p->n_ctx + 1) * sizeof *a.slot)};
    pb_out labels = {0};
    int summed = 0;
    pk_status st =
        in && vals && a.slot ? choose(w, in, &summed) : pk_fail_nomem("writing a pprof profile");
    if (a.slot) memset(a.slot, 0xff, ((size_t)p->n_ctx + 1) * sizeof *a.slot);
    if (!st && summed) st = group(w, &a, in, 0, 0, &labels, vals);
    for (uint32_t l = 0; l < p->n_locs && !st && !summed; l++)
        if (in[l]) st = group(w, &a, in, 1, l, &labels, vals);
    free(in), free(vals), free(a.slot), free(a.touched), free(a.rows);
    pb_out_free(&labels);
    return st;
}
