/*
 * formats/cube/write_report.c — what a Cube does not get, said once per
 * item through pk_write_lose() before anything is written (under
 * --strict each is an error instead). docs/conversion.md lists them:
 * traces; contexts folded into their function's cnode; scopes a Cube
 * metric has no place for; metrics written without values (a data type
 * profkit cannot encode, no values in a scope Cube stores); composite
 * types that lost components; a call graph's arcs and counts; addresses;
 * in summary mode the locations without values and the other statistics.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cw.h"
#include "formats/write_loss.h"

#define LOSE(item, ...)                                                                            \
    do {                                                                                           \
        pk_status st_ = pk_write_lose(w->opts, w->stats, w->path, item, __VA_ARGS__);              \
        if (st_) return st_;                                                                       \
    } while (0)

static pk_status traces(cube_writer *w)
{
    const pk_profile *p = w->p;
    uint64_t samples = 0;
    for (uint32_t t = 0; t < p->n_traces; t++)
        samples += p->traces[t].n;
    if (!samples || (w->opts && (w->opts->flags & PK_WRITE_NO_TRACE))) return PK_OK;
    LOSE("traces",
         "a Cube holds no time line: the %u trace lines (%llu samples) are not written "
         "(--no-trace leaves them out without this note)",
         p->n_traces, (unsigned long long)samples);
    return PK_OK;
}

static pk_status folded(cube_writer *w)
{
    char item[64];
    snprintf(item, sizeof item, "%u loop, line and instruction contexts", w->n_folded);
    if (w->n_folded)
        LOSE(item, "a Cube call tree holds call paths only: each is folded into the cnode of the "
                   "function or call site that contains it, which holds its values (attribute "
                   "'profkit folded contexts' counts them)");
    snprintf(item, sizeof item, "%u unlisted contexts", w->n_unlisted);
    if (w->n_unlisted)
        LOSE(item, "the profile does not say where in the call tree they are (HPCToolkit leaves "
                   "instruction contexts out of meta.db): their values are written under one "
                   "'" CW_UNLISTED_NAME "' cnode below the root");
    return PK_OK;
}

/* Scopes other than inclusive, exclusive and point: no place in Cube. */
static pk_status scopes(cube_writer *w)
{
    const pk_profile *p = w->p;
    for (uint32_t s = 0; s < p->n_scopes; s++) {
        pk_scope_kind k = p->scopes[s].kind;
        if (k == PK_SCOPE_INCLUSIVE || k == PK_SCOPE_EXCLUSIVE || k == PK_SCOPE_POINT) continue;
        int used = 0;
        for (uint32_t c = 0; c < p->n_columns && !used; c++)
            used = p->columns[c].scope == s && !p->columns[c].is_summary == !w->summary;
        if (!used) continue;
        char item[128];
        snprintf(item, sizeof item, "scope %.100s", p->scopes[s].name ? p->scopes[s].name : "?");
        LOSE(item, "a Cube metric stores one scope along the call tree and Cube derives the other; "
                   "this one (loops apart from their function) has no place once loops are folded");
    }
    return PK_OK;
}

static pk_status metric(cube_writer *w, const cw_metric *m)
{
    const pk_profile *p = w->p;
    char item[600];
    if (m->metric == PK_NONE) {
        LOSE("metrics", "the profile has none and a Cube needs one: an empty metric "
                        "'no_metrics' stands in");
        return PK_OK;
    }
    snprintf(item, sizeof item, "metric %.500s", p->metrics[m->metric].name);
    const char *dt = pk_attribute_find(p, PK_ENTITY_METRIC, m->metric, "cube:dtype");
    const char *kind = pk_attribute_find(p, PK_ENTITY_METRIC, m->metric, "cube:type");
    int derived =
        kind && (strcmp(kind, "POSTDERIVED") == 0 || strncmp(kind, "PREDERIVED", 10) == 0);
    if (derived) return PK_OK; /* CubePL: computed by the reader, never stored */
    if (!m->data)
        LOSE(item,
             "its values have Cube data type %s, whose layout profkit does not know: the "
             "metric is written without values (readers see zeros)",
             m->dtype ? m->dtype : "?");
    if (dt && strcmp(dt, m->dtype) != 0)
        LOSE(item,
             "its Cube data type %s needs components the profile no longer holds together: "
             "written as %s, each component a metric of its own",
             dt, m->dtype);
    int any = 0;
    for (uint32_t k = 0; k < m->n_comp; k++)
        any |= m->cols[k] != PK_NONE;
    if (m->data && !any)
        LOSE(item,
             "it has no %s values in a scope a Cube stores (inclusive, exclusive or point): "
             "written without values",
             w->summary ? "summary sums (or min/max)" : "per-location");
    return PK_OK;
}

/* A Cube derives exclusive values from the inclusive ones written, along
 * its tree. Where the profile's own exclusive values are not those (a
 * file that rounds values, or whose exclusive costs are not additive along
 * the tree: legacy experiment.xml counts inlined code in both the
 * procedure and the inlined scope), say so. Sums over locations, one
 * pass over the two columns' values. */
static pk_status exclusive_check(cube_writer *w, const cw_metric *m, double *incl, double *kids)
{
    uint32_t n = w->n_cn, bad = 0;
    double worst = 0;
    for (uint32_t c = 0; c < n; c++)
        incl[c] = cw_ctx_sum(w, w->cn[c].ctx, m->cols[0]), kids[2 * c] = kids[2 * c + 1] = 0;
    for (uint32_t c = 0; c < n; c++)
        if (w->cn[c].parent != CUBE_NONE) {
            kids[2 * w->cn[c].parent] += incl[c];
            kids[2 * w->cn[c].parent + 1] += incl[c] < 0 ? -incl[c] : incl[c];
        }
    for (uint32_t c = 0; c < n; c++) {
        double own = cw_ctx_sum(w, w->cn[c].ctx, m->excl_col), dev = incl[c] - kids[2 * c] - own;
        double scale = (incl[c] < 0 ? -incl[c] : incl[c]) + kids[2 * c + 1];
        dev = dev < 0 ? -dev : dev;
        if (dev <= 1e-9 * scale) continue;
        bad++;
        if (scale > 0 && dev / scale > worst) worst = dev / scale;
    }
    if (!bad) return PK_OK;
    char item[600];
    snprintf(item, sizeof item, "exclusive values of metric %.500s", w->p->metrics[m->metric].name);
    LOSE(item,
         "a Cube derives them from the inclusive values written, along the call tree, and "
         "the profile's own differ at %u of %u cnodes (by up to %.3g%% of the inclusive "
         "values involved): values rounded in the file, or exclusive costs that do not add "
         "up along the tree",
         bad, n, 100 * worst);
    return PK_OK;
}

static pk_status metrics(cube_writer *w)
{
    double *buf = malloc(((size_t)w->n_cn + 1) * 3 * sizeof *buf);
    if (!buf) return pk_fail_nomem("checking exclusive values");
    for (uint32_t i = 0; i < w->n_m; i++) {
        const cw_metric *m = &w->m[i];
        pk_status st = PK_OK;
        if (m->excl_col != PK_NONE && m->n_comp == 1 && m->combine == PK_COMBINE_SUM && !m->fold)
            st = exclusive_check(w, m, buf, buf + w->n_cn + 1);
        if (st) {
            free(buf);
            return st;
        }
    }
    free(buf);
    for (uint32_t i = 0; i < w->n_m; i++) {
        pk_status st = metric(w, &w->m[i]);
        if (st) return st;
    }
    return PK_OK;
}

static pk_status summary_mode(cube_writer *w)
{
    const pk_profile *p = w->p;
    if (!w->summary) return PK_OK;
    uint32_t n_plain = 0;
    for (uint32_t l = 0; l < p->n_locs; l++)
        n_plain += !p->locs[l].is_summary;
    char item[64];
    snprintf(item, sizeof item, "%u locations", n_plain);
    if (n_plain)
        LOSE(item, "they hold no values (the profile keeps only summary statistics): the Cube has "
                   "one location, the summary, with the sum over them (min or max for metrics "
                   "combined that way)");
    if (p->locs[w->sum_loc].plane.nvals)
        LOSE("summary statistics",
             "Cube computes statistics from per-location values, which this "
             "profile lacks: only the sums (min, max) are written, the counts, "
             "sums of squares and other statistics are not");
    return PK_OK;
}

static pk_status elsewhere(cube_writer *w)
{
    const pk_profile *p = w->p;
    if (p->cg)
        LOSE("call graph",
             "a Cube holds a calling-context tree: the %s one is written, the call "
             "graph's call counts and per-arc costs are not",
             p->reconstructed ? "reconstructed (approximate)" : "profile's");
    uint32_t addresses = 0; /* of call sites; folded contexts are reported as such */
    for (uint32_t i = 0; i < w->n_cn; i++)
        addresses += w->cn[i].ctx != PK_NONE && (p->ctx[w->cn[i].ctx].flags & PK_CTXF_HAS_POINT);
    char item[64];
    snprintf(item, sizeof item, "call-site addresses of %u call paths", addresses);
    if (addresses)
        LOSE(item, "a Cube cnode has a call-site line but no address in a load module (functions "
                   "keep theirs, as region attributes)");
    return PK_OK;
}

pk_status cw_report_losses(cube_writer *w)
{
    pk_status st = traces(w);
    if (!st) st = folded(w);
    if (!st) st = scopes(w);
    if (!st) st = metrics(w);
    if (!st) st = summary_mode(w);
    if (!st) st = elsewhere(w);
    return st;
}
