/*
 * cli/metric_columns.c — `-m 'A,B,name=EXPR'`: what each column of a
 * view with several metrics is. A column is a metric, or an expression
 * over metrics (docs/derived.md); every metric an expression names is a
 * base, resolved like `-m NAME` and listed once, so a view computes each
 * base's values once and evaluates the columns on them. flat, tree,
 * callers/callees and diff share this; each aggregates the bases its own
 * way (rows, contexts, frames) before the expressions are evaluated.
 */
#define _POSIX_C_SOURCE 200809L /* strdup, strtok_r */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_metric_list(const pk_profile *p, const char *spec)
{
    pk_index m; /* a metric's own name may hold ',' or '=' ("REALTIME (sec).[0,0]") */
    return spec && (strchr(spec, ',') || strchr(spec, '=')) &&
           !cli_pick_metric(NULL, p, spec, &m, NULL);
}

/* The base metric named `name` (resolved like -m), added once. */
static int add_base(const char *cmd, const pk_profile *p, cli_columns *t, const char *name,
                    size_t *at)
{
    pk_index m;
    if (!cli_pick_metric(cmd, p, name, &m, NULL)) return CLI_BAD;
    pk_metric met;
    pk_metric_get(p, m, &met);
    for (*at = 0; *at < t->n_base; (*at)++)
        if (strcmp(t->base[*at].name, met.name) == 0) return CLI_OK;
    if (t->n_base == CLI_MAX_BASES) return cli_usage_error(cmd, "too many metrics");
    t->base[t->n_base] = met;
    t->base_index[t->n_base++] = m;
    return CLI_OK;
}

/* "Ir" or "miss=D1mr/Dr" into a column. */
static int add_column(const char *cmd, const pk_profile *p, cli_columns *t, const char *item)
{
    if (t->n_col == CLI_MAX_COLUMNS) return cli_usage_error(cmd, "at most 16 metrics");
    cli_column *c = &t->col[t->n_col];
    const char *eq = strchr(item, '=');
    snprintf(c->label, sizeof c->label, "%.*s", eq ? (int)(eq - item) : (int)strlen(item), item);
    pk_status st;
    if (eq) {
        st = pk_expr_parse(eq + 1, &c->e);
    } else { /* a plain name, maybe with blanks or parentheses: no expression */
        char quoted[600];
        snprintf(quoted, sizeof quoted, "\"%s\"", item);
        st = pk_expr_parse(quoted, &c->e);
    }
    if (st) return cli_usage_error(cmd, "%s", pk_error_last());
    t->n_col++;
    c->plain = !eq;
    for (size_t i = 0; i < pk_expr_var_count(c->e); i++) {
        int rc = add_base(cmd, p, t, pk_expr_var_name(c->e, i), &c->base[i]);
        if (rc) return rc;
    }
    if (!eq) snprintf(c->label, sizeof c->label, "%s", t->base[c->base[0]].name);
    return CLI_OK;
}

int cli_columns_parse(const char *cmd, const pk_profile *p, const char *spec, cli_columns *t)
{
    memset(t, 0, sizeof *t);
    char *copy = strdup(spec ? spec : "");
    if (!copy) return fprintf(stderr, "profkit %s: out of memory\n", cmd), CLI_BAD;
    int rc = CLI_OK;
    for (char *save = NULL, *item = strtok_r(copy, ",", &save); !rc && item;
         item = strtok_r(NULL, ",", &save))
        rc = add_column(cmd, p, t, item);
    free(copy);
    if (!rc && t->n_col == 0) rc = cli_usage_error(cmd, "-m names no metric");
    if (rc) cli_columns_free(t);
    return rc;
}

double cli_columns_eval(const cli_columns *t, size_t c, const double *base_values)
{
    double vars[CLI_MAX_BASES];
    const cli_column *col = &t->col[c];
    for (size_t i = 0; i < pk_expr_var_count(col->e); i++)
        vars[i] = base_values[col->base[i]];
    return pk_expr_eval(col->e, vars);
}

void cli_columns_free(cli_columns *t)
{
    for (size_t i = 0; i < t->n_col; i++)
        pk_expr_free(t->col[i].e);
    memset(t, 0, sizeof *t);
}
