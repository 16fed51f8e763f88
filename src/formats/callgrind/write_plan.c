/*
 * formats/callgrind/write_plan.c — deciding what a Callgrind file gets
 * before a byte is written:
 *
 *  - which locations (--location) and in which form: by default one part
 *    holding their sum, the only form callgrind_annotate reads correctly;
 *    with PK_WRITE_SPLIT one file per location;
 *  - the call graph: the profile's own (Callgrind input, parts summed) or
 *    the exact one of its calling-context tree (model/cct_callgraph.c);
 *  - the events: one per metric Callgrind can hold, named without the
 *    blanks, '=' and ':' an "events:" line cannot have, scaled to
 *    integers when their values are not (Callgrind costs are integers)
 *    with the unit of the written values recorded (seconds x 1e9 are
 *    "ns");
 *  - what Callgrind cannot hold, reported once per item (pk_write_lose).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgw.h"
#include "formats/write_loss.h"
#include "model/units.h"
#include "profkit/analysis.h"
#include "util/error.h"

/* ------------------------------------------------------------------ */
/* Scales and units                                                   */
/* ------------------------------------------------------------------ */

#define EXACT_LIMIT 9007199254740992.0 /* 2^53: integers a double holds exactly */

/* Powers of 1000, so that a time unit keeps an SI name. */
static const double scales[] = {1, 1e3, 1e6, 1e9, 1e12, 1e15, 1e18};
enum { N_SCALES = sizeof scales / sizeof *scales };

typedef struct scale_probe {
    double abs_sum, abs_max;
    int need; /* smallest scale index at which every value seen is an integer */
} scale_probe;

/* Is v x scales[k] an integer, up to the rounding noise of the metric's
 * largest values (never more than 0.01: a small value is not 0)? */
static int integral(const scale_probe *s, double v, int k)
{
    double x = v * scales[k], tol = fmin(0.01, 1e-12 * s->abs_max * scales[k]);
    return fabs(x - nearbyint(x)) <= tol;
}

/* An integer at one scale is one at every larger scale, so each value
 * moves `need` up at most as far as it must: about one test per value. */
static void probe(scale_probe *s, double v)
{
    while (s->need < N_SCALES && !integral(s, v, s->need))
        s->need++;
}

/* Sums a reader forms: self costs over the whole part (abs_sum), and
 * the inclusive costs of calls, each at most a total (abs_max). */
static void measure_self(scale_probe *s, double v)
{
    s->abs_sum += fabs(v);
    s->abs_max = fmax(s->abs_max, fabs(v));
}

static void measure_call(scale_probe *s, double v)
{
    s->abs_max = fmax(s->abs_max, fabs(v));
}

/* The smallest scale at which every value of event e is an integer; if
 * there is none, the largest at which the sum of all values stays exact
 * in a double (so rounding each value changes totals by less than one
 * part in 10^9). */
static double choose_scale(const pk_cg *cg, uint32_t e)
{
    scale_probe s = {0};
    for (int pass = 0; pass < 2; pass++) {
        for (uint64_t i = 0; i < cg->n_self; i++)
            (pass ? probe : measure_self)(&s, cgw_self(cg, i, e));
        for (uint64_t i = 0; i < cg->n_calls; i++)
            (pass ? probe : measure_call)(&s, cgw_call(cg, i, e));
    }
    double best = 1;
    for (int k = 0; k < N_SCALES; k++) {
        int fits = (s.abs_sum + s.abs_max) * scales[k] <= EXACT_LIMIT;
        if (!fits) break;
        best = scales[k];
        if (k >= s.need) return best;
    }
    return best;
}

/* Unit of values in `unit` multiplied by `scale`: a time unit's SI name
 * ("sec" x 1e9 -> "ns"), else "1e-9 B" (a billionth of the unit). */
static char *scaled_unit(const char *unit, double scale)
{
    char out[300];
    int k = (int)lround(log10(scale));
    if (!unit) {
        if (k == 0) return NULL;
        snprintf(out, sizeof out, "1e-%d", k);
        return strdup(out);
    }
    int exp;
    if (k && pk_unit_time_exp(unit, &exp) && pk_unit_time_name(exp - k))
        return strdup(pk_unit_time_name(exp - k));
    if (k == 0) return strdup(unit);
    snprintf(out, sizeof out, "1e-%d %.200s", k, unit);
    return strdup(out);
}

/* ------------------------------------------------------------------ */
/* Event names                                                        */
/* ------------------------------------------------------------------ */

/* An "events:" name: blanks split that line, '=' and ':' end the name in
 * "event:" lines, control characters end lines; no backslash either, so
 * that desc: lines naming the event never hold an escape by chance. */
static char *event_name(const char *name, const cgw_event *before, uint32_t n_before)
{
    size_t len = name ? strlen(name) : 0;
    char *s = malloc(len + 24);
    if (!s) return NULL;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        s[i] = c <= ' ' || c == 0x7f || c == '=' || c == ':' || c == '\\' ? '_' : (char)c;
    }
    if (!len) memcpy(s, "event", 6), len = 5;
    s[len] = 0;
    unsigned suffix = 1;
    for (uint32_t k = 0; k < n_before; k++) /* names must differ: Ir, Ir_2, Ir_3... */
        if (strcmp(before[k].name, s) == 0) {
            snprintf(s + len, 24, "_%u", ++suffix);
            k = (uint32_t)-1;
        }
    return s;
}

/* The name of a scaled metric's event, which is all KCachegrind and
 * callgrind_annotate show of it: the unit its integers are in where the
 * name says one ("CPUTIME (sec)" in us is "CPUTIME (us)"), or after it
 * ("time (ns)"). Malloc'ed. */
static char *unit_named(const char *name, const char *unit)
{
    size_t len = name ? strlen(name) : 0, keep = len;
    char said[64];
    const char *open = name ? strrchr(name, '(') : NULL;
    int exp;
    if (open && len && name[len - 1] == ')' && (size_t)(name + len - open) - 2 < sizeof said) {
        memcpy(said, open + 1, (size_t)(name + len - open) - 2);
        said[name + len - open - 2] = 0;
        if (pk_unit_time_exp(said, &exp)) keep = (size_t)(open - name);
    }
    while (keep && name[keep - 1] == ' ')
        keep--;
    char *out = malloc(keep + strlen(unit) + 4);
    if (out) sprintf(out, "%.*s%s(%s)", (int)keep, keep ? name : "", keep ? " " : "", unit);
    return out;
}

static pk_status add_event(cgw *w, uint32_t e)
{
    const pk_cg_event_rec *ev = &w->cg->events[e];
    const pk_metric *m = ev->metric < w->p->n_metrics ? &w->p->metrics[ev->metric] : NULL;
    const char *name = m ? m->name : ev->name;
    double scale = choose_scale(w->cg, e);
    char *unit = NULL, *shown = NULL;
    if (scale != 1) { /* the unit of the written integers */
        char buf[64];
        const char *own = m ? pk_unit_text(m, buf, sizeof buf) : "";
        unit = scaled_unit(*own ? own : NULL, scale);
        shown = unit ? unit_named(name, unit) : NULL;
        if (!shown) return free(unit), pk_fail_nomem("writing Callgrind");
    } else if (m && m->unit && *m->unit && !(unit = strdup(m->unit))) {
        return pk_fail_nomem("writing Callgrind");
    }
    cgw_event *x = &w->ev[w->n_ev];
    *x = (cgw_event){e, event_name(shown ? shown : name, w->ev, w->n_ev), NULL, unit, scale};
    free(shown);
    if (!x->name) return free(unit), pk_fail_nomem("writing Callgrind");
    w->n_ev++;
    if (name && strcmp(name, x->name) != 0) x->orig = name;
    return PK_OK;
}

/* The event of the metric views show first (pk_metric_default()) first:
 * the one KCachegrind opens on and callgrind_annotate sorts by, never a
 * column of zeros where another metric has costs. The others keep the
 * profile's order. */
static void default_first(cgw *w)
{
    pk_index m;
    if (pk_metric_default(w->p, &m) != PK_OK) {
        pk_error_clear();
        return;
    }
    for (uint32_t k = 1; k < w->n_ev; k++) {
        if (w->ev[k].src >= w->cg->n_events || w->cg->events[w->ev[k].src].metric != m) continue;
        cgw_event first = w->ev[k];
        memmove(w->ev + 1, w->ev, k * sizeof *w->ev);
        w->ev[0] = first;
        return;
    }
}

static pk_status choose_events(cgw *w)
{
    const pk_cg *cg = w->cg;
    w->ev = calloc(cg->n_events + 1u, sizeof *w->ev);
    if (!w->ev) return pk_fail_nomem("writing Callgrind");
    for (uint32_t e = 0; e < cg->n_events; e++) {
        if (cg->events[e].formula) continue; /* inherited: no data of its own */
        pk_status st = add_event(w, e);
        if (st) return st;
    }
    default_first(w);
    if (w->n_ev) return PK_OK;
    /* Callgrind needs an event; the file says there is nothing to count. */
    w->ev[0] = (cgw_event){UINT32_MAX, strdup("none"), NULL, NULL, 1};
    w->n_ev = 1;
    if (!w->ev[0].name) return pk_fail_nomem("writing Callgrind");
    return pk_write_lose(w->opts, w->stats, w->path, "metrics",
                         "the profile has no metric Callgrind can hold; the file has the one "
                         "event Callgrind needs, 'none', without costs");
}

/* ------------------------------------------------------------------ */
/* What Callgrind cannot hold                                         */
/* ------------------------------------------------------------------ */

static pk_status report_metrics(const cgw *w)
{
    const pk_profile *p = w->p;
    pk_status st = PK_OK;
    for (uint32_t m = 0; m < p->n_metrics && !st && !p->cg; m++) {
        const char *why = pk_cg_metric_unfit(p, m);
        char item[600];
        snprintf(item, sizeof item, "metric %.500s", p->metrics[m].name);
        if (why) st = pk_write_lose(w->opts, w->stats, w->path, item, "%s", why);
    }
    return st;
}

/* An unsigned count whose stored inclusive values fall below their
 * callees' in places (counter noise): its self costs there are negative,
 * where CubeLib, pycubexr and profkit's exclusive views show 0. Said once
 * per metric, since the file's exclusive numbers differ from those. */
static pk_status report_negative_counts(const cgw *w)
{
    const pk_profile *p = w->p;
    const pk_cg *cg = w->cg;
    pk_status st = PK_OK;
    for (uint32_t e = 0; e < cg->n_events && !st && !p->cg; e++) {
        uint32_t m = cg->events[e].metric;
        if (m >= p->n_metrics || !(p->metrics[m].flags & PK_METRIC_UNSIGNED)) continue;
        uint64_t i = 0;
        while (i < cg->n_self && !(cgw_self(cg, i, e) < 0))
            i++;
        if (i == cg->n_self) continue;
        char item[600];
        snprintf(item, sizeof item, "metric %.500s", p->metrics[m].name);
        st = pk_write_lose(w->opts, w->stats, w->path, item,
                           "its stored inclusive values are below their callees' in places "
                           "(noise in unsigned counts): the self costs written there are "
                           "negative (inclusive minus callees, so totals stay exact), where "
                           "CubeLib and profkit's exclusive views clamp them at 0");
    }
    return st;
}

static pk_status report_others(const cgw *w)
{
    const pk_profile *p = w->p;
    pk_status st = PK_OK;
    if (p->n_traces && !(w->opts && (w->opts->flags & PK_WRITE_NO_TRACE)))
        st = pk_write_lose(w->opts, w->stats, w->path, "traces",
                           "a Callgrind file has no time line");
    if (!st && (w->cg->positions & PK_POS_BB))
        st = pk_write_lose(w->opts, w->stats, w->path, "basic-block positions",
                           "KCachegrind and callgrind_annotate misread 'bb' subpositions; costs "
                           "keep their instruction and line");
    if (!st && w->n_summed > 1)
        st = pk_write_lose(w->opts, w->stats, w->path, "per-location values",
                           "the %u locations are written as one part holding their sum, the "
                           "form callgrind_annotate reads; --split writes one file per "
                           "location, --location SEL the ones SEL names",
                           w->n_summed);
    int other_stats = 0;
    for (uint32_t c = 0; c < p->n_columns && !p->cg; c++)
        other_stats |= p->columns[c].is_summary && p->columns[c].stat != PK_STAT_SUM;
    if (!st && !p->cg && other_stats && !pk_has_plain_locations(p))
        st = pk_write_lose(w->opts, w->stats, w->path, "summary statistics",
                           "the profile holds only statistics over its locations; their sum is "
                           "written, the others (minimum, maximum, count...) have no place in "
                           "a Callgrind file");
    return st;
}

/* ------------------------------------------------------------------ */
/* Locations, parts and the call graph                                */
/* ------------------------------------------------------------------ */

static pk_status select_locations(cgw *w, unsigned char **selected)
{
    const char *sel = w->opts ? w->opts->location : NULL;
    *selected = NULL;
    if (!sel) return PK_OK;
    *selected = calloc((size_t)w->p->n_locs + 1, 1);
    if (!*selected) return pk_fail_nomem("writing Callgrind");
    return pk_location_select(w->p, sel, *selected, w->p->n_locs, NULL);
}

static uint32_t count_summed(const cgw *w, const unsigned char *selected)
{
    const pk_profile *p = w->p;
    uint32_t n = 0;
    if (p->cg) {
        for (uint32_t k = 0; k < p->cg->n_parts; k++)
            n += !selected ||
                 (p->cg->parts[k].location != PK_NONE && selected[p->cg->parts[k].location]);
        return n;
    }
    for (uint32_t l = 0; l < p->n_locs; l++)
        n += !p->locs[l].is_summary && (!selected || selected[l]);
    return n;
}

/* Parts written: every part of w->cg, or with a selection only its
 * locations' (a call graph of the profile's own has all of them). */
static pk_status choose_parts(cgw *w, const unsigned char *selected)
{
    const pk_cg *cg = w->cg;
    w->part_of = malloc((cg->n_parts + 1u) * sizeof *w->part_of);
    if (!w->part_of) return pk_fail_nomem("writing Callgrind");
    for (uint32_t k = 0; k < cg->n_parts; k++) {
        uint32_t l = cg->parts[k].location;
        if (selected && cg == w->p->cg && (l == PK_NONE || !selected[l])) continue;
        w->part_of[w->n_out++] = k;
    }
    return PK_OK;
}

static pk_status build_graph(cgw *w, const unsigned char *selected)
{
    const pk_profile *p = w->p;
    int split = w->opts && (w->opts->flags & PK_WRITE_SPLIT);
    pk_status st;
    if (p->cg && split) {
        w->cg = w->names = p->cg;
        return PK_OK;
    }
    if (p->cg) {
        st = cgw_sum_parts(p->cg, selected, &w->own);
        w->names = p->cg;
    } else {
        pk_cg_request rq = {selected, !split};
        st = pk_cg_from_cct_request(p, &rq, &w->own);
        w->names = w->own;
    }
    w->cg = w->own;
    if (!st && !split) w->n_summed = count_summed(w, selected);
    return st;
}

pk_status cgw_plan(cgw *w)
{
    unsigned char *selected = NULL;
    pk_status st = select_locations(w, &selected);
    if (!st) st = report_metrics(w);
    if (!st) st = build_graph(w, selected);
    if (!st) st = choose_parts(w, selected);
    free(selected);
    if (!st && !w->n_out) st = pk_fail(PK_ERR_NOT_FOUND, "%s: no location to write", w->path);
    if (!st) st = report_others(w);
    if (!st) st = report_negative_counts(w);
    if (!st) st = choose_events(w);
    w->positions = PK_POS_LINE | (w->cg && (w->cg->positions & PK_POS_INSTR) ? PK_POS_INSTR : 0);
    return st;
}

void cgw_plan_free(cgw *w)
{
    for (uint32_t e = 0; w->ev && e < w->n_ev; e++)
        free(w->ev[e].name), free(w->ev[e].unit);
    free(w->ev), free(w->part_of);
    pk_cg_free(w->own);
}
