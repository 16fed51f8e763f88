/*
 * analysis/trace_select.c — reading a trace selection: times ("1.5s"
 * after the traces' start, or absolute nanoseconds), the locations a
 * selector names that have traces, and the window checked against what
 * the traces hold. The CLI, the view and Python all come through here,
 * so "--from 2s" means the same nanosecond everywhere.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "profkit/analysis.h"
#include "trace_scan.h"
#include "util/bytes.h"
#include "util/error.h"

__extension__ typedef unsigned __int128 u128;

pk_status pk_trace_origin(const pk_profile *p, uint64_t *origin)
{
    uint64_t b, e;
    if (!p || !origin) return pk_fail(PK_ERR_INVALID_ARG, "pk_trace_origin: NULL argument");
    if (pk_trace_range(p, &b, &e) == PK_OK) return *origin = b, PK_OK;
    int any = 0;
    for (uint32_t t = 0; t < p->n_traces; t++) {
        const pk_trace_rec *tr = &p->traces[t];
        if (!tr->n) continue;
        uint64_t first = pk_le64(tr->samples);
        if (!any || first < b) b = first;
        any = 1;
    }
    if (!any) return pk_fail(PK_ERR_NOT_FOUND, "the profile's traces hold no samples");
    *origin = b;
    return PK_OK;
}

static const struct {
    const char *name;
    uint64_t ns;
} units[] = {{"ns", 1},
             {"us", 1000},
             {"\xc2\xb5s", 1000},
             {"ms", 1000000},
             {"s", 1000000000},
             {"min", 60000000000ull},
             {"h", 3600000000000ull}};

static pk_status bad_time(const char *text)
{
    return pk_fail(PK_ERR_INVALID_ARG,
                   "'%s' is not a time: give a number with a unit (1.5s, 250ms, 20us, 100ns, "
                   "2min) counted from the start of the traces, or digits alone for an "
                   "absolute timestamp in nanoseconds",
                   text);
}

pk_status pk_trace_time_parse(const char *text, uint64_t origin, uint64_t *out)
{
    if (!text || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_trace_time_parse: NULL argument");
    const char *s = text;
    int relative_sign = *s == '+';
    if (relative_sign) s++;
    u128 whole = 0, frac = 0, scale = 1;
    const char *digits = s;
    while (*s >= '0' && *s <= '9' && whole <= UINT64_MAX)
        whole = whole * 10 + (u128)(*s++ - '0');
    size_t n_whole = (size_t)(s - digits), n_frac = 0;
    if (*s == '.') {
        for (s++; *s >= '0' && *s <= '9'; s++, n_frac++)
            if (n_frac < 18) frac = frac * 10 + (u128)(*s - '0'), scale *= 10;
    }
    if (n_whole + n_frac == 0 || whole > UINT64_MAX) return bad_time(text);
    while (*s == ' ')
        s++;
    if (!*s) { /* digits alone: an absolute timestamp */
        if (n_frac || relative_sign) return bad_time(text);
        return *out = (uint64_t)whole, PK_OK;
    }
    for (size_t u = 0; u < sizeof units / sizeof *units; u++) {
        if (strcmp(s, units[u].name) != 0) continue;
        u128 ns = whole * units[u].ns + (frac * units[u].ns + scale / 2) / scale;
        if (ns + origin > UINT64_MAX)
            return pk_fail(PK_ERR_INVALID_ARG, "'%s' lies past the end of time (2^64 ns)", text);
        return *out = (uint64_t)(ns + origin), PK_OK;
    }
    return bad_time(text);
}

/* The traces the location selector names (all when none is given). */
static pk_status pick_traces(const pk_profile *p, const char *loc, ts_select *s)
{
    unsigned char *sel = NULL;
    if (loc && *loc) {
        sel = calloc(p->n_locs ? p->n_locs : 1, 1);
        if (!sel) return pk_fail_nomem("selecting locations");
        pk_status st = pk_location_select(p, loc, sel, p->n_locs, NULL);
        if (st) return free(sel), st;
    }
    s->traces = malloc((p->n_traces ? p->n_traces : 1) * sizeof *s->traces);
    if (!s->traces) return free(sel), pk_fail_nomem("selecting traces");
    for (uint32_t t = 0; t < p->n_traces; t++) {
        uint32_t l = p->traces[t].location;
        if (!sel || (l < p->n_locs && sel[l])) s->traces[s->n_traces++] = t;
    }
    free(sel);
    if (s->n_traces == 0)
        return pk_fail(PK_ERR_NOT_FOUND, "none of the locations '%s' names has a trace", loc);
    return PK_OK;
}

/* The extent of the chosen traces' samples: [*lo, *hi]. */
static int extent(const pk_profile *p, const ts_select *s, uint64_t *lo, uint64_t *hi)
{
    int any = 0;
    for (size_t i = 0; i < s->n_traces; i++) {
        pk_trace t;
        if (pk_trace_get(p, s->traces[i], &t) || !t.n_samples) continue;
        if (!any || t.time_begin < *lo) *lo = t.time_begin;
        if (!any || t.time_end > *hi) *hi = t.time_end;
        any = 1;
    }
    return any;
}

/* Does some chosen trace have time inside [from, to)? */
static int window_meets(const pk_profile *p, const ts_select *s)
{
    for (size_t i = 0; i < s->n_traces; i++) {
        pk_trace t;
        if (pk_trace_get(p, s->traces[i], &t) || t.n_samples < 2) continue;
        if (t.time_begin < s->to && t.time_end > s->from) return 1;
    }
    return 0;
}

static pk_status window(const pk_profile *p, const pk_trace_selection *sel, ts_select *s)
{
    uint64_t lo = s->begin, hi = s->end;
    extent(p, s, &lo, &hi);
    s->from = lo < s->begin ? lo : s->begin;
    s->to = (hi > s->end ? hi : s->end) + (hi < UINT64_MAX && s->end < UINT64_MAX);
    pk_status st = PK_OK;
    if (sel && sel->from && *sel->from) st = pk_trace_time_parse(sel->from, s->origin, &s->from);
    if (!st && sel && sel->to && *sel->to) st = pk_trace_time_parse(sel->to, s->origin, &s->to);
    if (st) return st;
    int both = sel && sel->from && *sel->from && sel->to && *sel->to;
    if (both && s->to <= s->from)
        return pk_fail(PK_ERR_INVALID_ARG, "the window ends (to %s) before it starts (from %s)",
                       sel->to, sel->from);
    int given = (sel && sel->from && *sel->from) || (sel && sel->to && *sel->to);
    if (given && (s->to <= s->from || !window_meets(p, s))) { /* all of it is always an answer */
        double a = ((double)s->from - (double)s->origin) / 1e9;
        double b = ((double)s->to - (double)s->origin) / 1e9, e = (double)(hi - s->origin) / 1e9;
        return pk_fail(PK_ERR_NOT_FOUND,
                       "the window [%.9g s, %.9g s) holds nothing of the selected traces, which "
                       "run from %.9g s to %.9g s after the traces' start (digits alone are "
                       "absolute nanoseconds; relative times need a unit, as in 2s)",
                       a, b, ((double)lo - (double)s->origin) / 1e9, e);
    }
    return PK_OK;
}

pk_status ts_select_resolve(const pk_profile *p, const pk_trace_selection *sel, ts_select *s)
{
    memset(s, 0, sizeof *s);
    if (!p->n_traces) return pk_fail(PK_ERR_NOT_FOUND, "the profile has no traces");
    pk_status st = pk_trace_origin(p, &s->origin);
    if (st) return st;
    s->begin = s->origin;
    if (pk_trace_range(p, &s->begin, &s->end) != PK_OK) { /* no stated range: the samples' */
        s->begin = s->end = s->origin;
        for (uint32_t t = 0; t < p->n_traces; t++) {
            pk_trace tr;
            if (!pk_trace_get(p, t, &tr) && tr.n_samples && tr.time_end > s->end)
                s->end = tr.time_end;
        }
    }
    st = pick_traces(p, sel ? sel->location : NULL, s);
    if (!st) st = window(p, sel, s);
    if (st) ts_select_free(s);
    return st;
}

void ts_select_free(ts_select *s)
{
    free(s->traces);
    s->traces = NULL, s->n_traces = 0;
}
