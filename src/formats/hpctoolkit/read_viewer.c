/*
 * formats/hpctoolkit/read_viewer.c — a database's metrics/default.yaml, and
 * what HPCToolkit's own readers would choke on (warnings for `profkit
 * check`).
 *
 * The taxonomy's bytes become a profile attribute (HK_YAML_ATTR), so a
 * writer can carry hpcprof's derived metrics, descriptions and order
 * over; a metric whose name does not carry its unit ("CPUTIME (sec)")
 * takes the taxonomy's `unit` key, which profkit writes for metrics from
 * other formats, and metrics take the taxonomy's descriptions. The checks name what hpcviewer's
 * data layer (hpcdata 8.4, hpcviewer 2024) was seen to fail on: a null title or description pointer
 * (2023 throws, 2024 shows garbage), an identifier kind above 7 (its sort table has 8 entries), a
 * per-profile metric id that is not the id of the same scope's Sum statistic (it looks per-profile
 * values up with the statistic's id, and sizes the arrays by the number of statistics), a statistic
 * formula naming variables other than $$, and a taxonomy that is missing or names statistics
 * meta.db lacks.
 */
#define _GNU_SOURCE /* qsort_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hk_yaml.h"
#include "hpctk.h"
#include "util/mapfile.h"

#define MAX_YAML_BYTES (64u << 20)

static void warn(hk_reader *r, const char *code, const char *file, const char *structure,
                 const char *msg)
{
    pk_model_diag(r->p, PK_SEV_WARNING, code, file, structure, 0, 0, "%s", msg);
}

static int cmp_metric(const void *a, const void *b, void *user)
{
    const pk_profile *p = user;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = strcmp(p->metrics[x].name, p->metrics[y].name);
    return c ? c : (x > y) - (x < y);
}

/* The first metric of that name, through `order` (indexes sorted by name). */
static uint32_t metric_named(const pk_profile *p, const uint32_t *order, const char *name)
{
    size_t lo = 0, hi = p->n_metrics;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(p->metrics[order[mid]].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->n_metrics && !strcmp(p->metrics[order[lo]].name, name) ? order[lo] : PK_NONE;
}

/* Would `up` as m's parent close a cycle, or a chain deeper than any
 * taxonomy nests? */
static int cycles(const pk_profile *p, uint32_t m, uint32_t up)
{
    int steps = 0;
    for (uint32_t x = up; x < p->n_metrics; x = p->metrics[x].parent, steps++)
        if (x == m || steps > HK_YAML_MAX_NEST) return 1;
    return 0;
}

/* Root i's unit, description and parent, for the metric it names: a unit
 * when the name gives none, a description unless it only repeats the name
 * (hpcprof's default), the parent whose `children` hold it. */
static pk_status take_root(pk_profile *p, const uint32_t *order, const hk_yaml *y, size_t i)
{
    const hk_yaml_root *yr = &y->roots[i];
    uint32_t m = metric_named(p, order, yr->name);
    if (m == PK_NONE) return PK_OK;
    pk_metric *met = &p->metrics[m];
    if (!met->unit && yr->unit && *yr->unit)
        if (!(met->unit = pk_intern_cstr(&p->strings, yr->unit))) return PK_ERR_NOMEM;
    if (!met->description && yr->description && *yr->description &&
        strcmp(yr->description, met->name))
        if (!(met->description = pk_intern_cstr(&p->strings, yr->description))) return PK_ERR_NOMEM;
    uint32_t up =
        yr->parent < y->n_roots ? metric_named(p, order, y->roots[yr->parent].name) : PK_NONE;
    if (up != PK_NONE && met->parent == PK_NONE && up != m && !cycles(p, m, up)) met->parent = up;
    return PK_OK;
}

/* Units, descriptions and the metric tree from the taxonomy, for the
 * metrics its roots name (profkit names roots after metrics; hpcprof's
 * group roots, "GPU", name none). */
static pk_status take_roots(hk_reader *r, const hk_yaml *y)
{
    pk_profile *p = r->p;
    uint32_t *order = malloc(((size_t)p->n_metrics + 1) * sizeof *order);
    if (!order) return PK_ERR_NOMEM;
    for (uint32_t m = 0; m < p->n_metrics; m++) {
        order[m] = m;
        if (!p->metrics[m].name) p->metrics[m].name = ""; /* meta.db names are never null */
    }
    qsort_r(order, p->n_metrics, sizeof *order, cmp_metric, p);
    pk_status st = PK_OK;
    for (size_t i = 0; i < y->n_roots && !st; i++)
        st = take_root(p, order, y, i);
    free(order);
    return st;
}

static pk_status check_yaml(hk_reader *r, const char *text, size_t len)
{
    hk_yaml y;
    char msg[600];
    pk_status st = hk_yaml_parse(text, len, &y);
    if (st == PK_ERR_FORMAT) {
        snprintf(msg, sizeof msg, "%s: hpcviewer cannot open the database", pk_error_last());
        warn(r, "viewer-yaml", "metrics/default.yaml", NULL, msg);
        st = PK_OK;
    } else if (!st) {
        st = take_roots(r, &y);
        if (st) st = pk_fail_nomem("reading metrics/default.yaml");
        for (size_t i = 0; i < y.n_inputs && !st; i++) {
            if (hk_yaml_input_known(r->p, &y.inputs[i])) continue;
            snprintf(msg, sizeof msg,
                     "input %zu names statistic %s / %s / %s / %s, which meta.db does not have: "
                     "hpcviewer refuses to open the database",
                     i, y.inputs[i].metric, y.inputs[i].scope, y.inputs[i].formula,
                     y.inputs[i].combine);
            warn(r, "viewer-yaml", "metrics/default.yaml", "inputs", msg);
        }
    }
    hk_yaml_free(&y);
    return st;
}

pk_status hk_read_yaml(hk_reader *r, const char *dir)
{
    char path[4200];
    if ((size_t)snprintf(path, sizeof path, "%s/metrics/default.yaml", dir) >= sizeof path)
        return PK_OK;
    if (!pk_path_exists(path)) {
        warn(r, "viewer-yaml", "metrics/default.yaml", NULL,
             "metrics/default.yaml is missing: hpcviewer does not open a database without it");
        return PK_OK;
    }
    pk_mapfile map;
    pk_status st = pk_map_file(path, &map);
    if (st) {
        char msg[600];
        snprintf(msg, sizeof msg, "metrics/default.yaml cannot be read: %s", pk_error_last());
        warn(r, "viewer-yaml", "metrics/default.yaml", NULL, msg);
        return PK_OK;
    }
    const char *text = (const char *)map.data;
    if (map.size > MAX_YAML_BYTES || memchr(text, 0, map.size)) {
        warn(r, "viewer-yaml", "metrics/default.yaml", NULL,
             map.size > MAX_YAML_BYTES ? "metrics/default.yaml is larger than 64 MiB: not read"
                                       : "metrics/default.yaml holds NUL bytes: not YAML text");
    } else {
        size_t m = strlen(HK_YAML_INEXACT);
        r->p->summary_inexact = map.size >= m && !memcmp(text, HK_YAML_INEXACT, m);
        st = pk_model_add_attr(r->p, PK_ENTITY_PROFILE, 0, HK_YAML_ATTR, text, map.size);
        if (!st) pk_model_sort_attrs(r->p);
        if (!st) st = check_yaml(r, text, map.size);
    }
    pk_unmap_file(&map);
    return st;
}

/* ---- meta.db and profile.db ---- */

static int formula_over_value(const char *f)
{
    for (; f && *f; f++)
        if ((*f >= 'a' && *f <= 'z') || (*f >= 'A' && *f <= 'Z') || *f == '_') return 0;
    return 1;
}

static void check_columns(hk_reader *r)
{
    const pk_profile *p = r->p;
    uint32_t n_stats = 0;
    char msg[600];
    for (uint32_t i = 0; i < p->n_columns; i++)
        n_stats += p->columns[i].is_summary != 0;
    for (uint32_t i = 0; i < p->n_columns; i++) {
        const pk_column *c = &p->columns[i];
        const char *name = p->metrics[c->metric].name ? p->metrics[c->metric].name : "";
        if (c->is_summary) {
            if (formula_over_value(c->formula)) continue;
            snprintf(msg, sizeof msg,
                     "metric '%s': statistic formula '%s' names a variable other than $$: "
                     "hpcviewer cannot evaluate it",
                     name, c->formula);
            warn(r, "viewer-formula", "meta.db", "Summary Statistic", msg);
            continue;
        }
        pk_combine cb = p->metrics[c->metric].combine; /* a min/max metric's main one */
        pk_stat want = cb == PK_COMBINE_MIN   ? PK_STAT_MIN
                       : cb == PK_COMBINE_MAX ? PK_STAT_MAX
                                              : PK_STAT_SUM;
        uint32_t sum = PK_NONE;
        for (uint32_t j = 0; j < p->n_columns && sum == PK_NONE; j++)
            if (p->columns[j].is_summary && p->columns[j].metric == c->metric &&
                p->columns[j].scope == c->scope && p->columns[j].stat == want)
                sum = j;
        if (sum != PK_NONE && p->columns[sum].raw_id == c->raw_id && c->raw_id < n_stats) continue;
        snprintf(msg, sizeof msg,
                 "metric '%s' scope '%s': per-profile id %u %s: hpcviewer looks per-profile "
                 "values up with the Sum statistic's id (its thread view and plots then show "
                 "another metric, or fail)",
                 name, p->scopes[c->scope].name ? p->scopes[c->scope].name : "", c->raw_id,
                 sum == PK_NONE                        ? "has no Sum statistic"
                 : p->columns[sum].raw_id != c->raw_id ? "differs from its Sum statistic's id"
                                                       : "is not below the number of statistics");
        warn(r, "viewer-metric-id", "meta.db", "Performance Metrics", msg);
    }
}

void hk_viewer_checks(hk_reader *r)
{
    const pk_profile *p = r->p;
    const hk_file *meta = &r->f[HK_META];
    uint64_t general = meta->n_sect > HK_MS_GENERAL ? meta->sect[HK_MS_GENERAL].lo : 0;
    if (r->null_strings)
        hk_diag(r, PK_SEV_WARNING, "viewer-null-string", meta, "General Properties", general,
                "the %s pointer is 0: hpcviewer 2023 fails to open the database, 2024 shows "
                "garbage as its title",
                r->null_strings & 1 ? "title" : "description");
    check_columns(r);
    for (uint32_t l = 0; l < p->n_locs; l++)
        for (uint32_t i = 0; i < p->locs[l].n_ids; i++)
            if (p->locs[l].ids[i].kind > 7) {
                char msg[300];
                snprintf(msg, sizeof msg,
                         "profile %u: identifier kind %u (%s): hpcviewer knows kinds 0-7 only and "
                         "fails on this database",
                         l, p->locs[l].ids[i].kind,
                         p->locs[l].ids[i].kind_name ? p->locs[l].ids[i].kind_name : "unnamed");
                warn(r, "viewer-id-kind", "profile.db", "Identifier Tuple", msg);
                break;
            }
}
