/*
 * analysis/query_flatrows.c — one base metric's flat rows under a
 * selection, kept by the session: from the call graph (exact, with call
 * counts) or from the selection's per-context values. A flat answer of
 * several metrics, or the same metric asked again with another ranking or
 * search, reuses them.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "analysis/session.h"
#include "util/error.h"
#include "util/sort.h"

int pkq_flat_row_by_key(const void *a, const void *b)
{
    uint64_t x = ((const pk_flat_row *)a)->key, y = ((const pk_flat_row *)b)->key;
    return x < y ? -1 : x > y;
}

void pkq_flat_rows_free(pkq_flat_rows *f)
{
    if (!f) return;
    pk_flat_free(f->rows);
    free(f->location), free(f->focus), free(f->hide);
    free(f);
}

void pkq_session_flat_clear(pk_session *s)
{
    for (size_t i = 0; i < PKQ_FLAT_CACHE; i++)
        pkq_flat_rows_free(s->flats[i]), s->flats[i] = NULL;
}

static int same_text(const char *a, const char *b)
{
    return a ? b && strcmp(a, b) == 0 : !b;
}

static int same(const pkq_flat_rows *f, pk_index m, const pk_query *q, int cg)
{
    return f->metric == m && f->from_callgraph == cg && f->by == q->by && f->stat == q->stat &&
           same_text(f->location, pkq_text(q, PKQ_LOCATION)) &&
           same_text(f->focus, pkq_text(q, PKQ_FOCUS)) && same_text(f->hide, pkq_text(q, PKQ_HIDE));
}

static pk_status from_callgraph(const pk_profile *p, pk_index m, const pk_query *q,
                                pkq_flat_rows *f)
{
    pkq_cg cg;
    pk_status st = pkq_cg_init(p, m, q, &cg);
    if (!st) st = pkq_cg_flat(p, &cg, q->by, &f->rows, &f->n);
    if (!st) f->total = cg.total, f->nf = cg.nf, f->has_excl = 1;
    pkq_cg_free(&cg);
    return st;
}

static pk_status from_tree(pk_session *s, pk_index m, const pk_query *q, pkq_flat_rows *f)
{
    const pkq_values *v;
    pk_status st = pkq_values_get(s, m, q, &v);
    if (!st)
        st = pk_flat_profile_combined(s->p, v->incl, v->excl, q->by, v->met.combine, &f->rows,
                                      &f->n);
    if (!st) f->total = v->total, f->nf = v->nf, f->has_excl = v->excl != NULL;
    return st;
}

/* The selection's key members of f, copied from q. */
static pk_status set_key(pkq_flat_rows *f, pk_index m, const pk_query *q, int cg)
{
    const char *loc = pkq_text(q, PKQ_LOCATION), *focus = pkq_text(q, PKQ_FOCUS),
               *hide = pkq_text(q, PKQ_HIDE);
    f->metric = m, f->from_callgraph = cg, f->by = q->by, f->stat = q->stat;
    if ((loc && !(f->location = strdup(loc))) || (focus && !(f->focus = strdup(focus))) ||
        (hide && !(f->hide = strdup(hide))))
        return pk_fail_nomem("a flat profile");
    return PK_OK;
}

pk_status pkq_flat_rows_compute(const pk_profile *p, pk_index m, const pk_query *q,
                                pkq_flat_rows *f, pkq_values *values)
{
    memset(f, 0, sizeof *f);
    pk_status st = set_key(f, m, q, 0);
    if (!st) st = pkq_values_compute(p, m, q, values);
    if (!st)
        st = pk_flat_profile_combined(p, values->incl, values->excl, q->by, values->met.combine,
                                      &f->rows, &f->n);
    if (!st) f->total = values->total, f->nf = values->nf, f->has_excl = values->excl != NULL;
    if (!st)
        pk_sort(f->rows, f->n, sizeof *f->rows, pkq_flat_row_by_key); /* often made in key order */
    return st;
}

int pkq_flat_rows_cached(pk_session *s, pk_index m, const pk_query *q, int cg)
{
    for (size_t i = 0; i < PKQ_FLAT_CACHE; i++)
        if (s->flats[i] && same(s->flats[i], m, q, cg)) return 1;
    return 0;
}

void pkq_flat_rows_put(pk_session *s, pkq_flat_rows *f)
{
    size_t victim = 0;
    for (size_t i = 0; i < PKQ_FLAT_CACHE; i++)
        if (!s->flats[i] || (s->flats[victim] && s->flats[i]->used < s->flats[victim]->used))
            victim = i;
    pkq_flat_rows_free(s->flats[victim]);
    s->flats[victim] = f;
    f->used = ++s->clock;
}

static pk_status make(pk_session *s, pk_index m, const pk_query *q, int cg, pkq_flat_rows *f)
{
    pk_status st = set_key(f, m, q, cg);
    if (!st) st = cg ? from_callgraph(s->p, m, q, f) : from_tree(s, m, q, f);
    if (!st)
        pk_sort(f->rows, f->n, sizeof *f->rows, pkq_flat_row_by_key); /* often made in key order */
    return st;
}

pk_status pkq_flat_rows_make(pk_session *s, pk_index m, const pk_query *q, int cg,
                             pkq_flat_rows **out)
{
    pkq_flat_rows *f = calloc(1, sizeof *f);
    if (!f) return pk_fail_nomem("a flat profile");
    pk_status st = make(s, m, q, cg, f);
    if (st) return pkq_flat_rows_free(f), st;
    *out = f;
    return PK_OK;
}

pk_status pkq_flat_rows_get(pk_session *s, pk_index m, const pk_query *q, int cg,
                            const pkq_flat_rows **out)
{
    size_t victim = 0;
    for (size_t i = 0; i < PKQ_FLAT_CACHE; i++) {
        pkq_flat_rows *f = s->flats[i];
        if (f && same(f, m, q, cg)) {
            f->used = ++s->clock;
            return *out = f, PK_OK;
        }
        if (!f || (s->flats[victim] && f->used < s->flats[victim]->used)) victim = i;
    }
    (void)victim;
    pkq_flat_rows *f = calloc(1, sizeof *f);
    if (!f) return pk_fail_nomem("a flat profile");
    pk_status st = make(s, m, q, cg, f);
    if (st) return pkq_flat_rows_free(f), st;
    pkq_flat_rows_put(s, f);
    *out = f;
    return PK_OK;
}
