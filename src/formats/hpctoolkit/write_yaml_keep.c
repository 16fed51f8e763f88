/*
 * formats/hpctoolkit/write_yaml_keep.c — metrics/default.yaml of a written
 * database: the source database's own taxonomy carried over, or a new one.
 *
 * hpcprof's taxonomy holds what meta.db cannot: derived metrics
 * (formulas over the statistics), descriptions, grouping and order. A
 * database read and written again keeps it byte for byte when every
 * statistic it names (`inputs`: metric, scope, formula, combine) is still
 * written; metrics it does not mention (a merge added them) get items of
 * their own, inserted into its `inputs` and `roots` block sequences at
 * the indentation it uses. When it names a statistic the database no
 * longer holds (hpcviewer would refuse to open it) or cannot be read,
 * a new one is generated (write_yaml.c) and the old one reported as
 * left out.
 */
#define _GNU_SOURCE /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/write_loss.h"
#include "hk_yaml.h"
#include "hpctk_write.h"
#include "util/buf.h"

static pk_status generate(const pk_profile *p, const unsigned char *only, int roots, char **text,
                          size_t *len, int *deep)
{
    FILE *f = open_memstream(text, len);
    if (!f) return pk_fail_nomem("writing metrics/default.yaml");
    pk_status st = PK_OK;
    if (!only)
        st = hk_write_metrics_yaml(p, f, deep);
    else if (roots)
        st = hk_yaml_put_roots(f, p, only, deep);
    else
        hk_yaml_put_inputs(f, p, only);
    if (!st && ferror(f)) st = pk_fail_nomem("writing metrics/default.yaml");
    if (fclose(f) != 0 && !st) st = pk_fail_nomem("writing metrics/default.yaml");
    if (st) free(*text), *text = NULL;
    return st;
}

/* Generated items (each "\n  - ...", indented by 2) as lines at `indent`. */
static void put_items(pk_buf *b, const char *items, size_t indent)
{
    const char *s = items + (*items == '\n');
    while (*s) {
        const char *eol = strchr(s, '\n');
        size_t n = eol ? (size_t)(eol - s) : strlen(s), skip = 0;
        if (indent < 2) skip = 2 - indent;
        for (size_t i = 2; i < indent; i++)
            pk_buf_bytes(b, " ", 1);
        pk_buf_bytes(b, s + skip, n - skip);
        pk_buf_bytes(b, "\n", 1);
        s += n + (eol != NULL);
    }
}

/* The source's text with items for the metrics `add` marks. */
static pk_status merged(const pk_profile *p, const char *src, size_t n, const hk_yaml *y,
                        const unsigned char *add, char **text, size_t *len, int *deep)
{
    char *in = NULL, *roots = NULL;
    size_t n_in, n_roots;
    pk_status st = generate(p, add, 0, &in, &n_in, deep);
    if (!st) st = generate(p, add, 1, &roots, &n_roots, deep);
    pk_buf b = {0};
    if (!st) {
        size_t first = y->inputs_at < y->roots_at ? y->inputs_at : y->roots_at;
        size_t second = y->inputs_at < y->roots_at ? y->roots_at : y->inputs_at;
        const char *a = y->inputs_at < y->roots_at ? in : roots;
        const char *c = y->inputs_at < y->roots_at ? roots : in;
        size_t ia = y->inputs_at < y->roots_at ? y->inputs_indent : y->roots_indent;
        size_t ic = y->inputs_at < y->roots_at ? y->roots_indent : y->inputs_indent;
        pk_buf_bytes(&b, src, first);
        if (first && src[first - 1] != '\n') pk_buf_bytes(&b, "\n", 1);
        put_items(&b, a, ia);
        pk_buf_bytes(&b, src + first, second - first);
        if (second > first && src[second - 1] != '\n') pk_buf_bytes(&b, "\n", 1);
        put_items(&b, c, ic);
        pk_buf_bytes(&b, src + second, n - second);
        if (b.failed) st = pk_fail_nomem("writing metrics/default.yaml");
    }
    free(in);
    free(roots);
    if (st) {
        pk_buf_free(&b);
        return st;
    }
    *text = (char *)b.data, *len = b.len;
    return PK_OK;
}

#define NO_PLACE "its layout leaves no place to add the metrics it does not mention"

/* Does one of the taxonomy's inputs name this metric? */
static int mentions(const hk_yaml *y, const char *metric)
{
    for (size_t i = 0; i < y->n_inputs; i++)
        if (!strcmp(y->inputs[i].metric, metric)) return 1;
    return 0;
}

/* Why the source's taxonomy cannot be kept, or NULL (then *add marks the
 * metrics it does not mention). */
static const char *misfit(const pk_profile *p, const hk_yaml *y, unsigned char *add, char *why,
                          size_t size)
{
    for (size_t i = 0; i < y->n_inputs; i++)
        if (!hk_yaml_input_known(p, &y->inputs[i])) {
            snprintf(why, size, "it names statistic %s/%s/%s/%s, which this database does not hold",
                     y->inputs[i].metric, y->inputs[i].scope, y->inputs[i].formula,
                     y->inputs[i].combine);
            return why;
        }
    int any = 0;
    for (uint32_t m = 0; m < p->n_metrics; m++) {
        add[m] = p->metrics[m].name &&
                 (hk_yaml_presented(p, m) || hk_yaml_unit_needed(&p->metrics[m])) &&
                 !mentions(y, p->metrics[m].name);
        any |= add[m];
    }
    if (any &&
        (y->inputs_at == (size_t)-1 || y->roots_at == (size_t)-1 || y->inputs_at == y->roots_at))
        return NO_PLACE;
    return NULL;
}

/* Does the merged text read back as a taxonomy of this database that
 * mentions every metric `add` marks? The insertion points come from
 * libyaml's marks over a text of any layout; rather than trust that every
 * layout maps them to bytes as assumed, the product is checked: it parses,
 * its aliases follow their anchors (a source with `roots` before `inputs`
 * fails that), and it redefines no anchor of the source. */
static int reads_back(const pk_profile *p, const char *text, size_t len, const unsigned char *add,
                      const hk_yaml *src)
{
    hk_yaml y;
    int ok = hk_yaml_parse(text, len, &y) == PK_OK && y.anchors_redefined == src->anchors_redefined;
    for (size_t i = 0; ok && i < y.n_inputs; i++)
        ok = hk_yaml_input_known(p, &y.inputs[i]);
    for (uint32_t m = 0; ok && m < p->n_metrics; m++)
        ok = !add[m] || mentions(&y, p->metrics[m].name);
    hk_yaml_free(&y);
    return ok;
}

static pk_status keep(const pk_profile *p, const char *src, char **text, size_t *len, char *why,
                      size_t size, int *kept, int *deep)
{
    hk_yaml y;
    size_t n = strlen(src);
    *kept = 0;
    pk_status st = hk_yaml_parse(src, n, &y);
    unsigned char *add = calloc((size_t)p->n_metrics + 1, 1);
    if (st == PK_ERR_FORMAT) {
        snprintf(why, size, "it cannot be read (%s)", pk_error_last());
        st = PK_OK;
    } else if (!st && !add) {
        st = pk_fail_nomem("writing metrics/default.yaml");
    } else if (!st) {
        const char *bad = misfit(p, &y, add, why, size);
        if (bad && bad != why) snprintf(why, size, "%s", bad);
        int any = 0;
        for (uint32_t m = 0; m < p->n_metrics; m++)
            any |= add[m];
        if (!bad && !any) {
            *text = strdup(src), *len = n, *kept = 1;
            if (!*text) st = pk_fail_nomem("writing metrics/default.yaml");
        } else if (!bad) {
            st = merged(p, src, n, &y, add, text, len, deep);
            *kept = !st;
            if (!st && !reads_back(p, *text, *len, add, &y)) {
                free(*text), *text = NULL, *len = 0, *kept = 0, *deep = 0;
                snprintf(why, size, "%s", NO_PLACE);
            }
        }
    }
    free(add);
    hk_yaml_free(&y);
    return st;
}

/* Metrics nested too deep for the taxonomy went to its top. */
static pk_status report_deep(const char *path, const pk_write_options *o, pk_write_stats *stats,
                             int deep)
{
    if (!deep) return PK_OK;
    return pk_write_lose(o, stats, path, "the metric tree below its 16th level",
                         "metrics/default.yaml nests metrics at most %d levels deep; %d deeper "
                         "metrics (or metrics in a parent cycle) are written at its top level",
                         HK_YAML_MAX_DEPTH, deep);
}

/* The text with HK_YAML_INEXACT first, when the summary needs it and
 * the text (a kept one) does not say it yet. */
static pk_status mark_inexact(const pk_profile *p, char **text, size_t *len)
{
    size_t m = strlen(HK_YAML_INEXACT);
    if (!p->summary_inexact || (*len >= m && !memcmp(*text, HK_YAML_INEXACT, m))) return PK_OK;
    char *t = malloc(*len + m + 1);
    if (!t) return pk_fail_nomem("writing metrics/default.yaml");
    memcpy(t, HK_YAML_INEXACT, m), memcpy(t + m, *text, *len), t[*len + m] = '\0';
    free(*text);
    *text = t, *len += m;
    return PK_OK;
}

static pk_status yaml_text(const pk_profile *p, const char *path, const pk_write_options *o,
                           pk_write_stats *stats, char **text, size_t *len)
{
    *text = NULL, *len = 0;
    int deep = 0;
    const char *src = pk_attribute_find(p, PK_ENTITY_PROFILE, 0, HK_YAML_ATTR);
    pk_status st = PK_OK;
    if (src) {
        char why[400];
        int kept;
        st = keep(p, src, text, len, why, sizeof why, &kept, &deep);
        if (!st && kept) st = report_deep(path, o, stats, deep);
        if (st || kept) return st;
        st = pk_write_lose(o, stats, path, "the source's metrics/default.yaml",
                           "%s; a new one is written from the database's statistics (the "
                           "source's derived metrics, descriptions and order are not)",
                           why);
        if (st) return st;
    }
    st = generate(p, NULL, 0, text, len, &deep);
    if (!st) st = report_deep(path, o, stats, deep);
    return st;
}

pk_status hk_yaml_text(const pk_profile *p, const char *path, const pk_write_options *o,
                       pk_write_stats *stats, char **text, size_t *len)
{
    pk_status st = yaml_text(p, path, o, stats, text, len);
    if (!st) st = mark_inexact(p, text, len);
    if (st) free(*text), *text = NULL;
    return st;
}
