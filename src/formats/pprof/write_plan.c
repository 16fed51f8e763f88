/*
 * formats/pprof/write_plan.c — what a pprof file gets, decided before a
 * byte is written:
 *
 *  - the sample types: every metric whose values add up (pprof sums
 *    samples over stacks, labels and everything else), its point values
 *    taken from its inclusive column, else its exclusive one, else its
 *    point values;
 *  - their scale: pprof values are integers, so a metric whose values
 *    are not is scaled: time to nanoseconds (pprof's own unit for it),
 *    anything else by powers of 1000 with the unit saying so ("1e-3 B");
 *  - what pprof cannot hold, reported once per item (pk_write_lose):
 *    min/max metrics, metrics without values of their own, statistics
 *    across locations, traces, loops, entry points, call counts.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/write_loss.h"
#include "model/units.h"
#include "pprof.h"
#include "pw.h"
#include "util/error.h"

#define EXACT_LIMIT 9007199254740992.0 /* 2^53 */

static pk_status lose(pw *w, const char *item, const char *why)
{
    return pk_write_lose(w->opts, w->stats, w->path, item, "%s", why);
}

static pk_status lose_metric(pw *w, uint32_t m, const char *why)
{
    char item[600];
    snprintf(item, sizeof item, "metric %.500s", w->p->metrics[m].name);
    return lose(w, item, why);
}

/* 1 if no plain location holds a value: the summary's sums are written. */
static int only_summaries(const pk_profile *p)
{
    for (uint32_t l = 0; l < p->n_locs; l++)
        if (!p->locs[l].is_summary && p->locs[l].plane.nvals) return 0;
    return 1;
}

static int summary_sum(const pk_profile *p, uint32_t m, pk_scope_kind kind, uint32_t *col)
{
    for (uint32_t c = 0; c < p->n_columns; c++) {
        const pk_column *x = &p->columns[c];
        if (x->metric == m && x->is_summary && x->stat == PK_STAT_SUM &&
            p->scopes[x->scope].kind == kind)
            return *col = c, 1;
    }
    return 0;
}

/* Where metric m's point values come from. */
static int source_column(const pk_profile *p, uint32_t m, uint32_t *col, uint8_t *scope)
{
    /* inclusive first, as the exact call graph of a tree takes them
     * (analysis/cct_to_cg.c): the samples then add up to the program
     * total even where a file's exclusive values do not (legacy XML) */
    static const pk_scope_kind order[] = {PK_SCOPE_INCLUSIVE, PK_SCOPE_EXCLUSIVE, PK_SCOPE_POINT};
    int summaries = only_summaries(p);
    for (size_t k = 0; k < 3; k++) {
        pk_index c;
        int found = summaries ? summary_sum(p, m, order[k], col)
                              : pk_column_find(p, m, order[k], &c) == PK_OK;
        if (found && !summaries) *col = c;
        if (found) return *scope = (uint8_t)order[k], 1;
    }
    pk_error_clear();
    return 0;
}

/* ---- scales ---- */

typedef struct probe {
    double abs_sum, abs_max;
    int need; /* smallest power of 1000 at which every value is an integer */
} probe;

static int integral(const probe *s, double v, double scale)
{
    double x = v * scale, tol = fmin(0.01, 1e-12 * s->abs_max * scale);
    return fabs(x - nearbyint(x)) <= tol;
}

static void probe_column(const pk_profile *p, uint32_t col, int pass, probe *s)
{
    int summary = p->columns[col].is_summary;
    for (uint32_t l = 0; l < p->n_locs; l++) {
        pk_cursor c;
        pk_value v;
        if (p->locs[l].is_summary != summary || pk_location_column_begin(p, l, col, &c)) continue;
        while (pk_cursor_next(&c, &v)) {
            if (!pass) {
                s->abs_sum += fabs(v.value), s->abs_max = fmax(s->abs_max, fabs(v.value));
                continue;
            }
            static const double scale[7] = {1, 1e3, 1e6, 1e9, 1e12, 1e15, 1e18};
            while (s->need < 7 && !integral(s, v.value, scale[s->need]))
                s->need++;
        }
    }
    pk_error_clear();
}

static pk_status set_unit(pw *w, pw_metric *x, const char *unit)
{
    x->unit = unit ? pk_arena_strndup(&w->arena, unit, strlen(unit)) : NULL;
    return !unit || x->unit ? PK_OK : pk_fail_nomem("writing a pprof profile");
}

static pk_status choose_scale(pw *w, pw_metric *x)
{
    const pk_metric *m = &w->p->metrics[x->metric];
    probe s = {0, 0, 0};
    pk_unit u;
    char buf[64];
    probe_column(w->p, x->col, 0, &s);
    probe_column(w->p, x->col, 1, &s);
    x->scale = 1;
    const char *unit = pk_unit_text(m, buf, sizeof buf); /* its own, or its name's "(sec)" */
    if (s.need == 0) return set_unit(w, x, *unit ? unit : NULL);
    if (pk_unit_parse(m, &u) && u.dim == PK_UNIT_TIME) { /* pprof's time unit */
        x->scale = u.factor * pow(10, u.exp + 9);
        return set_unit(w, x, "nanoseconds");
    }
    for (int k = 1; k <= s.need && k < 7; k++) {
        if ((s.abs_sum + s.abs_max) * pow(1000, k) > EXACT_LIMIT) break;
        x->scale = pow(1000, k);
    }
    char scaled[200];
    snprintf(scaled, sizeof scaled, "1e-%d%s%.150s", (int)lround(log10(x->scale)), *unit ? " " : "",
             unit);
    return set_unit(w, x, x->scale == 1 ? (*unit ? unit : NULL) : scaled);
}

/* ---- metrics ---- */

static pk_status choose_metric(pw *w, uint32_t m)
{
    const pk_profile *p = w->p;
    const pk_metric *x = &p->metrics[m];
    uint32_t col;
    uint8_t scope;
    if (x->combine == PK_COMBINE_MIN || x->combine == PK_COMBINE_MAX)
        return lose_metric(w, m,
                           "its values combine by minimum or maximum, and pprof sums sample "
                           "values (over stacks, labels and samples)");
    if (!source_column(p, m, &col, &scope)) {
        int any = 0;
        for (uint32_t c = 0; c < p->n_columns; c++)
            any |= p->columns[c].metric == m;
        return lose_metric(w, m,
                           any ? "it has no exclusive, inclusive or point values, the ones pprof "
                                 "samples are made of"
                               : "it has no values of its own (a metric derived by a formula): "
                                 "a pprof sample type holds values");
    }
    pw_metric *y = &w->m[w->n_m];
    *y = (pw_metric){m, col, scope, 1, NULL, 0};
    PK_TRY(choose_scale(w, y));
    w->n_m++;
    return PK_OK;
}

/* ---- what pprof cannot hold ---- */

static pk_status report_contexts(pw *w)
{
    const pk_profile *p = w->p;
    int loops = 0, entries = 0;
    for (uint32_t c = 0; c < p->n_ctx; c++) {
        loops |= p->ctx[c].kind == PK_CTX_LOOP;
        entries |= p->ctx[c].kind == PK_CTX_ENTRY;
    }
    if (loops)
        PK_TRY(lose(w, "loops",
                    "pprof has no loops: a loop's own cost is at its header line, in the function "
                    "around it"));
    if (entries)
        PK_TRY(lose(w, "entry points",
                    "pprof stacks begin at the outermost function: entry points ('main thread'...) "
                    "are left out of them (a cost of an entry point itself is at a function named "
                    "after it)"));
    if (p->cg)
        PK_TRY(lose(w, "call counts",
                    "pprof samples hold costs per stack, no call counts: the stacks are the "
                    "calling contexts profkit reconstructs from the call graph (approximate, "
                    "docs/callgrind.md)"));
    return PK_OK;
}

static int has_pprof_labels(const pk_profile *p, uint32_t l)
{
    size_t first, n;
    pk_attribute_range(p, PK_ENTITY_LOCATION, l, &first, &n);
    for (size_t i = first; i < first + n; i++)
        if (!strncmp(p->attrs[i].key, "pprof:", 6)) return 1;
    return 0;
}

static pk_status report_locations(pw *w)
{
    const pk_profile *p = w->p;
    int physical = 0, stats = 0;
    for (uint32_t l = 0; l < p->n_locs; l++) {
        const pk_loc_rec *x = &p->locs[l];
        for (uint32_t k = 0; k < x->n_ids && !x->is_summary && !has_pprof_labels(p, l); k++)
            physical |=
                (x->ids[k].flags & PK_ID_PHYSICAL) && x->ids[k].physical != x->ids[k].logical;
    }
    for (uint32_t c = 0; c < p->n_columns; c++)
        stats |= p->columns[c].is_summary && p->columns[c].stat != PK_STAT_SUM;
    if (physical)
        PK_TRY(lose(w, "physical location ids",
                    "each location's samples are labelled with its identifiers' logical ids "
                    "(RANK 3, THREAD 0...): pprof labels hold one number"));
    if (stats && only_summaries(p))
        return lose(w, "summary statistics",
                    "the profile holds only statistics over its locations: their sum is "
                    "written, the others (minimum, maximum, count...) have no place in pprof");
    if (stats)
        return lose(w, "summary statistics",
                    "pprof holds samples, not statistics over locations (minimum, maximum, "
                    "mean...): the samples of every location are written, labelled with it");
    return PK_OK;
}

pk_status pw_plan(pw *w)
{
    const pk_profile *p = w->p;
    w->m = calloc(p->n_metrics + 1u, sizeof *w->m);
    if (!w->m) return pk_fail_nomem("writing a pprof profile");
    for (uint32_t m = 0; m < p->n_metrics; m++)
        PK_TRY(choose_metric(w, m));
    if (p->n_traces && !(w->opts && (w->opts->flags & PK_WRITE_NO_TRACE)))
        PK_TRY(lose(w, "traces", "pprof has no time line"));
    PK_TRY(report_contexts(w));
    return report_locations(w);
}

pk_status pw_report_late(pw *w)
{
    if (w->empty_locations) {
        char why[300];
        snprintf(why, sizeof why,
                 "%u locations hold no value of the metrics written: a pprof location is the "
                 "labels of its samples, and they have none",
                 w->empty_locations);
        PK_TRY(lose(w, "locations without values", why));
    }
    for (uint32_t m = 0; m < w->n_m; m++)
        if (w->m[m].negative)
            PK_TRY(lose_metric(w, w->m[m].metric,
                               "its stored inclusive values are below their callees' in places "
                               "(noise in unsigned counts): the sample values written there are "
                               "negative (so totals stay exact), where profkit's exclusive views "
                               "and CubeLib show 0"));
    return PK_OK;
}

void pw_plan_free(pw *w)
{
    free(w->m);
}
