/*
 * cli/tree_columns.c — the values of a tree view (tree, callers,
 * callees) with several metrics (-m 'A,B,name=EXPR') and with call
 * counts. Each base metric gets the view's values (--location, --stat,
 * --focus, --hide apply alike) and its own tree of nodes; the trees have
 * one shape (frames merge by name, whatever the values), so node i is the
 * same in every one. The expressions are evaluated on each node's
 * aggregated values (a ratio of sums), inclusive and self alike. The
 * first column draws the tree: its values replace the nodes' own.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* One base's nodes: frames the builder makes, or (no builder) contexts. */
static int base_nodes(const char *cmd, const pk_profile *p, const cli_view *v, const char *metric,
                      const cli_tree_build *build, cli_tree_base *out)
{
    cli_view one = *v;
    one.metric = metric;
    cli_view_values vals;
    int rc = cli_view_compute(cmd, p, &one, &vals);
    if (rc) return rc;
    out->total = vals.total, out->nf = vals.nf, out->met = vals.met;
    pk_status st = PK_OK;
    if (build) {
        pk_frame *f = NULL;
        st = build->fn(p, vals.incl, build->arg, &f, &out->n);
        out->incl = st ? NULL : malloc((out->n ? out->n : 1) * sizeof *out->incl);
        out->self = st ? NULL : malloc((out->n ? out->n : 1) * sizeof *out->self);
        for (size_t i = 0; out->incl && out->self && i < out->n; i++)
            out->incl[i] = f[i].inclusive, out->self[i] = f[i].self;
        if (!st && (!out->incl || !out->self)) st = PK_ERR_NOMEM;
        out->frames = f;
    } else {
        out->n = pk_context_count(p);
        out->incl = vals.incl, out->self = vals.excl; /* the stored exclusive, or NULL */
        vals.incl = vals.excl = NULL;
    }
    cli_view_values_free(&vals);
    return st ? cli_library_error(cmd, st) : CLI_OK;
}

static void base_free(cli_tree_base *b)
{
    free(b->incl), free(b->self);
    pk_frames_free(b->frames);
    memset(b, 0, sizeof *b);
}

/* Column c over every node, from the bases' values. */
static int evaluate(cli_tree_values *t, size_t c)
{
    size_t n = t->base[0].n;
    t->incl[c] = malloc((n ? n : 1) * sizeof *t->incl[c]);
    t->self[c] = malloc((n ? n : 1) * sizeof *t->self[c]);
    if (!t->incl[c] || !t->self[c]) return CLI_BAD;
    double in[CLI_MAX_BASES], self[CLI_MAX_BASES], tot[CLI_MAX_BASES];
    for (size_t i = 0; i < n; i++) {
        for (size_t b = 0; b < t->cols.n_base; b++) {
            in[b] = t->base[b].incl[i];
            self[b] = t->base[b].self ? t->base[b].self[i] : NAN;
        }
        t->incl[c][i] = cli_columns_eval(&t->cols, c, in);
        t->self[c][i] = cli_columns_eval(&t->cols, c, self);
    }
    for (size_t b = 0; b < t->cols.n_base; b++)
        tot[b] = t->base[b].total;
    const cli_column *col = &t->cols.col[c];
    const cli_tree_base *first = &t->base[col->base[0]];
    t->out[c] = (pk_value_column){col->label,
                                  col->plain ? first->met.unit : NULL,
                                  cli_columns_eval(&t->cols, c, tot),
                                  t->incl[c],
                                  t->self[c],
                                  col->plain ? &first->nf : NULL};
    return CLI_OK;
}

/* Do the bases' trees have one shape? (They should: frames merge by name.) */
static int same_shape(const cli_tree_values *t)
{
    for (size_t b = 1; b < t->cols.n_base; b++) {
        if (t->base[b].n != t->base[0].n) return 0;
        for (size_t i = 0; t->base[0].frames && i < t->base[0].n; i++)
            if (t->base[b].frames[i].context != t->base[0].frames[i].context) return 0;
    }
    return 1;
}

static int several(const char *cmd, const pk_profile *p, const cli_view *v,
                   const cli_tree_build *build, cli_tree_values *t)
{
    int rc = cli_columns_parse(cmd, p, v->metric, &t->cols);
    for (size_t b = 0; !rc && b < t->cols.n_base; b++)
        rc = base_nodes(cmd, p, v, t->cols.base[b].name, build, &t->base[b]);
    if (!rc && !same_shape(t)) {
        fprintf(stderr, "profkit %s: the metrics' trees differ in shape\n", cmd);
        rc = CLI_BAD;
    }
    for (size_t c = 0; !rc && c < t->cols.n_col; c++)
        if (evaluate(t, c)) rc = CLI_BAD, fprintf(stderr, "profkit %s: out of memory\n", cmd);
    if (rc) return rc;
    t->n = t->base[0].n, t->n_col = t->cols.n_col;
    t->total = t->out[0].total;
    t->nf = t->out[0].numbers ? *t->out[0].numbers : (pk_number_format){1, "", 0, 0, 0, 0};
    t->label = t->cols.col[0].label;
    if (build) { /* the first column draws the tree */
        t->frames = t->base[0].frames;
        for (size_t i = 0; i < t->n; i++)
            t->frames[i].inclusive = t->incl[0][i], t->frames[i].self = t->self[0][i];
    }
    return CLI_OK;
}

/* Call counts per node when the profile has a call-count metric the view
 * does not show as its cost: the nodes' self values of it. */
static int call_counts(const char *cmd, const pk_profile *p, const cli_view *v,
                       const cli_tree_build *build, cli_tree_values *t)
{
    pk_index m;
    pk_metric met;
    if (pk_metric_call_count(p, &m) || pk_metric_get(p, m, &met)) return CLI_OK;
    for (size_t c = 0; c < t->n_col; c++)
        if (t->out[c].name && strcmp(t->out[c].name, met.name) == 0) return CLI_OK;
    if (t->n_col == 0 && strcmp(t->label, met.name) == 0) return CLI_OK;
    int rc = base_nodes(cmd, p, v, met.name, build, &t->calls_base);
    if (!rc && (t->calls_base.n != t->n || !t->calls_base.self)) {
        base_free(&t->calls_base); /* no self values to count with: no column */
        return CLI_OK;
    }
    if (!rc) t->calls = t->calls_base.self;
    return rc;
}

int cli_tree_values_compute(const char *cmd, const pk_profile *p, const cli_view *v,
                            const cli_tree_build *build, cli_tree_values *t)
{
    memset(t, 0, sizeof *t);
    int rc;
    if (cli_metric_list(p, v->metric)) {
        rc = several(cmd, p, v, build, t);
    } else {
        rc = cli_view_compute(cmd, p, v, &t->vals);
        pk_status st = PK_OK;
        if (!rc && build) st = build->fn(p, t->vals.incl, build->arg, &t->frames, &t->n);
        if (!rc && !build) t->n = pk_context_count(p);
        if (st) rc = cli_library_error(cmd, st);
        if (!rc) t->total = t->vals.total, t->nf = t->vals.nf, t->label = t->vals.met.name;
    }
    if (!rc) rc = call_counts(cmd, p, v, build, t);
    if (rc) cli_tree_values_free(t);
    return rc;
}

void cli_tree_options(const cli_tree_values *t, pk_tree_options *o)
{
    o->metric = t->label;
    o->numbers = &t->nf;
    o->columns = t->n_col > 1 ? t->out : NULL;
    o->n_columns = t->n_col > 1 ? t->n_col : 0;
    o->calls = t->calls;
}

void cli_tree_describe(const pk_profile *p, const cli_view *v, const cli_tree_values *t, FILE *out)
{
    if (t->n_col == 0) {
        cli_view_describe(p, v, &t->vals, out);
    } else {
        fprintf(out, "metrics %s; by %s: total ", cli_text(v->metric), cli_text(t->label));
        cli_put_number(out, t->total, &t->nf);
        fprintf(out, "\n(further columns: inclusive values; derived ones evaluated on each"
                     " node's totals)\n");
        cli_say_reconstructed(p, out);
    }
    if (t->calls)
        fprintf(out, "(calls: the %s metric, times each node was entered)\n",
                cli_text(t->calls_base.met.name));
}

void cli_tree_values_free(cli_tree_values *t)
{
    for (size_t c = 0; c < t->n_col; c++)
        free(t->incl[c]), free(t->self[c]);
    for (size_t b = 0; b < t->cols.n_base; b++)
        base_free(&t->base[b]);
    if (t->n_col == 0) pk_frames_free(t->frames); /* else base 0's, freed above */
    base_free(&t->calls_base);
    cli_view_values_free(&t->vals);
    cli_columns_free(&t->cols);
    memset(t, 0, sizeof *t);
}
