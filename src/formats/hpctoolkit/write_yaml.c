/*
 * formats/hpctoolkit/write_yaml.c — metrics/default.yaml, the metric
 * taxonomy hpcviewer reads to decide which columns to show (field notes
 * §a "METRICS.yaml taxonomy", §e: hpcviewer will not open a v4 database
 * without it).
 *
 * The layout follows what hpcprof writes (MetricsYAML::standard in
 * HPCToolkit's src/hpcprof/sinks/metricsyaml.cpp, develop):
 *   inputs: one anchored entry per summary statistic ("partial") of each
 *     metric, for the scopes execution, lex_aware, and function (or point
 *     when there is no function scope), in meta.db's metric order;
 *   roots: one entry per metric with statistics, sorted by name, with a
 *     variant per presented statistic whose inclusive formula uses the
 *     execution partial and whose exclusive formula uses lex_aware
 *     ("custom") and function ("standard").
 * Anchor names are hpcprof's: "<metric>-<combine>-<accumulate>-<scope>"
 * with every character outside [A-Za-z0-9_-] written as x<hex>_. The
 * accumulate part of $$ is hpcprof's "[0x0]"; for the other formulas we
 * use the formula text (hpcprof's printing of them is not known to us),
 * which keeps the anchors unique. Output without statistics other than
 * Sum is byte-identical to hpcprof's (tests/test_yaml.c).
 */
#define _GNU_SOURCE /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpctk_write.h"
#include "util/error.h"

enum { P_SUM, P_COUNT, P_SUMSQ, P_MIN, P_MAX, P_N };

/* The partials of one metric in one scope: column indexes or PK_NONE. */
typedef struct partials {
    uint32_t col[P_N];
} partials;

static void put_sanitized(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '_')
            fputc(c, out);
        else
            fprintf(out, "x%x_", c);
    }
}

static const char *combine_name(pk_combine c)
{
    return c == PK_COMBINE_MIN ? "min" : c == PK_COMBINE_MAX ? "max" : "sum";
}

static const char *formula_text(const pk_column *c)
{
    if (c->formula) return c->formula;
    return c->stat == PK_STAT_COUNT ? "1" : c->stat == PK_STAT_SUMSQ ? "($$^2)" : "$$";
}

static void put_anchor_name(FILE *out, const pk_profile *p, const pk_column *c)
{
    const char *f = formula_text(c);
    put_sanitized(out, p->metrics[c->metric].name ? p->metrics[c->metric].name : "");
    fputc('-', out);
    put_sanitized(out, combine_name(c->combine));
    fputc('-', out);
    put_sanitized(out, strcmp(f, "$$") == 0 ? "[0x0]" : f);
    fputc('-', out);
    put_sanitized(out, p->scopes[c->scope].name ? p->scopes[c->scope].name : "");
}

/* A YAML scalar: plain when YAML reads it back as the same string,
 * double-quoted (with escapes) otherwise. */
static int needs_quotes(const char *s)
{
    static const char *const words[] = {"true", "false", "null",  "~",    "yes",  "no",    "on",
                                        "off",  "True",  "False", "Null", "TRUE", "FALSE", "NULL"};
    if (!*s || strchr("-?:,[]{}#&*!|>'\"%@` ", s[0]) || s[strlen(s) - 1] == ' ') return 1;
    if (strstr(s, ": ") || strstr(s, " #") || s[strlen(s) - 1] == ':') return 1;
    for (const char *c = s; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) return 1;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(s, words[i]) == 0) return 1;
    char *end;
    (void)strtod(s, &end);
    return *end == '\0';
}

static void put_scalar(FILE *out, const char *s)
{
    if (!needs_quotes(s)) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(out, "\\x%02x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static int partial_kind(const pk_column *c)
{
    const char *f = formula_text(c);
    if (strcmp(f, "$$") == 0)
        return c->combine == PK_COMBINE_MIN ? P_MIN : c->combine == PK_COMBINE_MAX ? P_MAX : P_SUM;
    if (c->combine != PK_COMBINE_SUM) return -1;
    if (strcmp(f, "1") == 0) return P_COUNT;
    if (strcmp(f, "($$^2)") == 0) return P_SUMSQ;
    return -1;
}

/* The statistic columns of metric m in the scope of kind k. */
static partials find_partials(const pk_profile *p, uint32_t m, pk_scope_kind k)
{
    partials ps;
    for (int i = 0; i < P_N; i++)
        ps.col[i] = PK_NONE;
    for (uint32_t c = 0; c < p->n_columns; c++) {
        const pk_column *col = &p->columns[c];
        if (!col->is_summary || col->metric != m || p->scopes[col->scope].kind != k) continue;
        int kind = partial_kind(col);
        if (kind >= 0 && ps.col[kind] == PK_NONE) ps.col[kind] = c;
    }
    return ps;
}

static int has_any(const partials *ps)
{
    for (int i = 0; i < P_N; i++)
        if (ps->col[i] != PK_NONE) return 1;
    return 0;
}

/* The scopes hpcprof names: execution, lex_aware, then function or point. */
static int scopes_of(const pk_profile *p, uint32_t m, partials out[3])
{
    out[0] = find_partials(p, m, PK_SCOPE_INCLUSIVE);
    out[1] = find_partials(p, m, PK_SCOPE_LEX_AWARE);
    out[2] = find_partials(p, m, PK_SCOPE_EXCLUSIVE);
    if (!has_any(&out[2])) out[2] = find_partials(p, m, PK_SCOPE_POINT);
    return has_any(&out[0]) || has_any(&out[1]) || has_any(&out[2]);
}

void hk_yaml_put_inputs(FILE *out, const pk_profile *p, const unsigned char *only)
{
    for (uint32_t m = 0; m < p->n_metrics; m++) {
        partials sc[3];
        if (only && !only[m]) continue;
        scopes_of(p, m, sc);
        for (int s = 0; s < 3; s++)
            for (uint32_t c = 0; c < p->n_columns; c++) {
                const pk_column *col = &p->columns[c];
                int k = col->is_summary && col->metric == m ? partial_kind(col) : -1;
                if (k < 0 || sc[s].col[k] != c) continue;
                fputs("\n  - &", out);
                put_anchor_name(out, p, col);
                fputs("\n    metric: ", out);
                put_scalar(out, p->metrics[m].name ? p->metrics[m].name : "");
                fputs("\n    scope: ", out);
                put_scalar(out, p->scopes[col->scope].name ? p->scopes[col->scope].name : "");
                fputs("\n    formula: ", out);
                put_scalar(out, formula_text(col));
                fprintf(out, "\n    combine: %s", combine_name(col->combine));
            }
    }
}

int hk_yaml_presented(const pk_profile *p, uint32_t m)
{
    partials sc[3];
    return scopes_of(p, m, sc);
}

/* A presented statistic, as a formula over the partials. */
typedef enum stat_kind { S_SUM, S_MEAN, S_STDDEV, S_CFVAR, S_MIN, S_MAX, S_N } stat_kind;
static const char *const stat_names[S_N] = {"Sum", "Mean", "StdDev", "CfVar", "Min", "Max"};

static int stat_available(const partials *ps, stat_kind s)
{
    const uint32_t *c = ps->col;
    switch (s) {
    case S_SUM:
        return c[P_SUM] != PK_NONE;
    case S_MEAN:
        return c[P_SUM] != PK_NONE && c[P_COUNT] != PK_NONE;
    case S_STDDEV:
    case S_CFVAR:
        return c[P_SUM] != PK_NONE && c[P_COUNT] != PK_NONE && c[P_SUMSQ] != PK_NONE;
    case S_MIN:
        return c[P_MIN] != PK_NONE;
    case S_MAX:
        return c[P_MAX] != PK_NONE;
    default:
        return 0;
    }
}

static void alias(FILE *out, const pk_profile *p, uint32_t col)
{
    fputc('*', out);
    put_anchor_name(out, p, &p->columns[col]);
}

/* Formulas in METRICS.yaml's flow syntax: operators as one-key maps. */
static void put_mean(FILE *out, const pk_profile *p, const partials *ps)
{
    fputs("{/: [", out);
    alias(out, p, ps->col[P_SUM]);
    fputs(", ", out);
    alias(out, p, ps->col[P_COUNT]);
    fputs("]}", out);
}

static void put_stddev(FILE *out, const pk_profile *p, const partials *ps)
{
    fputs("{sqrt: [{-: [{/: [", out); /* sqrt(sumsq/n - (sum/n)^2) */
    alias(out, p, ps->col[P_SUMSQ]);
    fputs(", ", out);
    alias(out, p, ps->col[P_COUNT]);
    fputs("]}, {^: [", out);
    put_mean(out, p, ps);
    fputs(", 2]}]}]}", out);
}

static void put_formula(FILE *out, const pk_profile *p, const partials *ps, stat_kind s)
{
    switch (s) {
    case S_SUM:
        alias(out, p, ps->col[P_SUM]);
        break;
    case S_MEAN:
        put_mean(out, p, ps);
        break;
    case S_STDDEV:
        put_stddev(out, p, ps);
        break;
    case S_CFVAR:
        fputs("{/: [", out);
        put_stddev(out, p, ps);
        fputs(", ", out);
        put_mean(out, p, ps);
        fputs("]}", out);
        break;
    case S_MIN:
        alias(out, p, ps->col[P_MIN]);
        break;
    default:
        alias(out, p, ps->col[P_MAX]);
        break;
    }
}

static void put_variant(FILE *out, const pk_profile *p, const partials sc[3], stat_kind s)
{
    fprintf(out, "\n      %s:\n        render: [number%s]\n        formula:", stat_names[s],
            s == S_SUM ? ", percent" : "");
    if (stat_available(&sc[0], s)) {
        fputs("\n          inclusive:\n            standard: ", out);
        put_formula(out, p, &sc[0], s);
    }
    if (!stat_available(&sc[1], s) && !stat_available(&sc[2], s)) return;
    fputs("\n          exclusive:", out);
    if (stat_available(&sc[1], s)) {
        fputs("\n            custom: ", out);
        put_formula(out, p, &sc[1], s);
    }
    if (stat_available(&sc[2], s)) {
        fputs("\n            standard: ", out);
        put_formula(out, p, &sc[2], s);
    }
}

typedef struct named {
    const char *name;
    uint32_t metric;
} named;

static int by_name(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->metric > y->metric) - (x->metric < y->metric);
}

/* The unit, unless the name already says it as hpcprof's names do:
 * "CPUTIME (sec)". HPCToolkit's taxonomy has no unit field: hpcviewer and
 * hpcprof ignore the key; profkit's reader takes it back. */
int hk_yaml_unit_needed(const pk_metric *met)
{
    if (!met->unit || !*met->unit) return 0;
    size_t n = met->name ? strlen(met->name) : 0, u = strlen(met->unit);
    return !(n > u + 2 && met->name[n - 1] == ')' && met->name[n - u - 2] == '(' &&
             !strncmp(met->name + n - u - 1, met->unit, u));
}

static void put_unit(FILE *out, const pk_metric *met)
{
    if (!hk_yaml_unit_needed(met)) return;
    fputs("\n    unit: ", out);
    put_scalar(out, met->unit);
}

/* A metric without statistics (no values) keeps its unit and description
 * in a root without variants: hpcviewer presents nothing for it. */
static void put_root(FILE *out, const pk_profile *p, uint32_t m, const partials sc[3], int any)
{
    const pk_metric *met = &p->metrics[m];
    fputs("\n  - name: ", out);
    put_scalar(out, met->name ? met->name : "");
    fputs("\n    description: ", out);
    put_scalar(out, met->description ? met->description : met->name ? met->name : "");
    put_unit(out, met);
    fputs(any ? "\n    variants:" : "\n    variants: {}", out); /* hpcviewer needs the key */
    for (int s = 0; s < S_N; s++)
        if (stat_available(&sc[0], s) || stat_available(&sc[1], s) || stat_available(&sc[2], s))
            put_variant(out, p, sc, s);
}

/* Where metric m goes in the taxonomy: under its parent (children keys
 * nest, as hpcprof's GPU groups do; Cube's metric tree), unless the parent
 * is not written or the chain is deeper than HK_YAML_MAX_DEPTH (a cycle
 * is), then at the top. */
static uint32_t placed_under(const pk_profile *p, const unsigned char *in, uint32_t m, int *deep)
{
    uint32_t up = p->metrics[m].parent;
    if (up >= p->n_metrics || !in[up]) return PK_NONE;
    uint32_t x = up;
    for (int d = 0; x < p->n_metrics && in[x]; d++, x = p->metrics[x].parent)
        if (d >= HK_YAML_MAX_DEPTH) {
            *deep += 1;
            return PK_NONE;
        }
    return up;
}

/* One root's text (written at depth 0), indented for `depth`. */
static void put_nested(FILE *out, const pk_profile *p, uint32_t m, unsigned depth)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) return (void)fputc('\0', out); /* fails the writer's ferror() check */
    partials sc[3];
    int any = scopes_of(p, m, sc);
    put_root(mem, p, m, sc, any);
    if (fclose(mem) != 0 || !text) return (void)free(text);
    for (const char *c = text; *c; c++) {
        fputc(*c, out);
        for (unsigned i = 0; *c == '\n' && i < 4 * depth; i++)
            fputc(' ', out);
    }
    free(text);
}

/* Roots in hpcprof's order (by name), each followed by its children (in
 * that order too): first[m]..first[m + 1] of `kids` are m's, and the
 * roots are at the end, first[n_metrics].. */
static void put_tree(FILE *out, const pk_profile *p, const uint32_t *first, const uint32_t *kids,
                     uint32_t *stack, unsigned *depth)
{
    uint32_t sp = 0, top = p->n_metrics;
    for (uint32_t i = first[top + 1]; i-- > first[top];)
        stack[sp++] = kids[i], depth[kids[i]] = 0;
    while (sp) {
        uint32_t m = stack[--sp];
        put_nested(out, p, m, depth[m]);
        if (first[m + 1] > first[m]) fprintf(out, "\n%*schildren:", 4 + 4 * (int)depth[m], "");
        for (uint32_t i = first[m + 1]; i-- > first[m];)
            stack[sp++] = kids[i], depth[kids[i]] = depth[m] + 1;
    }
}

/* Children lists of the written metrics, each in `order` (by name). */
static void child_lists(const pk_profile *p, const named *order, uint32_t n, const uint32_t *under,
                        uint32_t *first, uint32_t *kids)
{
    uint32_t top = p->n_metrics;
    memset(first, 0, ((size_t)top + 2) * sizeof *first);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t u = under[order[i].metric];
        first[(u == PK_NONE ? top : u) + 1]++;
    }
    for (uint32_t m = 0; m <= top; m++)
        first[m + 1] += first[m];
    for (uint32_t i = 0; i < n; i++) { /* fill, then shift back */
        uint32_t u = under[order[i].metric];
        kids[first[u == PK_NONE ? top : u]++] = order[i].metric;
    }
    for (uint32_t m = top + 1; m > 0; m--)
        first[m] = first[m - 1];
    first[0] = 0;
}

pk_status hk_yaml_put_roots(FILE *out, const pk_profile *p, const unsigned char *only, int *deep)
{
    size_t n_m = (size_t)p->n_metrics + 2;
    named *order = malloc(n_m * sizeof *order);
    unsigned char *in = calloc(n_m, 1);
    uint32_t *under = malloc(n_m * sizeof *under), *stack = malloc(n_m * sizeof *stack);
    uint32_t *first = malloc(n_m * sizeof *first), *kids = malloc(n_m * sizeof *kids);
    unsigned *depth = malloc(n_m * sizeof *depth);
    pk_status st = PK_OK;
    if (!order || !in || !under || !stack || !first || !kids || !depth)
        st = pk_fail_nomem("writing metrics/default.yaml");
    uint32_t n = 0;
    for (uint32_t m = 0; !st && m < p->n_metrics; m++) {
        partials sc[3];
        const pk_metric *met = &p->metrics[m];
        if ((!only || only[m]) &&
            (scopes_of(p, m, sc) || hk_yaml_unit_needed(met) || met->description))
            order[n++] = (named){met->name ? met->name : "", m}, in[m] = 1;
    }
    *deep = 0;
    for (uint32_t i = 0; !st && i < n; i++)
        under[order[i].metric] = placed_under(p, in, order[i].metric, deep);
    if (!st) {
        qsort(order, n, sizeof *order, by_name); /* hpcprof presents them sorted by name */
        child_lists(p, order, n, under, first, kids);
        put_tree(out, p, first, kids, stack, depth);
    }
    free(order), free(in), free(under), free(stack), free(first), free(kids), free(depth);
    return st;
}

pk_status hk_write_metrics_yaml(const pk_profile *p, FILE *out, int *deep)
{
    int any = 0, roots = 0;
    for (uint32_t m = 0; m < p->n_metrics; m++) {
        any |= hk_yaml_presented(p, m);
        roots |= hk_yaml_unit_needed(&p->metrics[m]) || p->metrics[m].description;
    }
    fputs("version: 0\n", out);
    fputs(any ? "inputs:" : "inputs: []", out);
    hk_yaml_put_inputs(out, p, NULL);
    fputs(any || roots ? "\nroots:" : "\nroots: []", out);
    pk_status st = hk_yaml_put_roots(out, p, NULL, deep);
    if (!st && ferror(out)) st = pk_fail(PK_ERR_IO, "metrics/default.yaml: write failed");
    return st;
}
