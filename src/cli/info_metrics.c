/*
 * cli/info_metrics.c — `profkit info`'s metrics as a tree, for a profile
 * whose metrics nest (Cube: time > execution > mpi > ...): indented as
 * CubeGUI shows them, each with its unit, its program total (inclusive
 * along the metric tree: with the metrics below it) and its own part
 * (exclusive: less its children, pk_metric_tree_exclusive()), and the
 * call-tree scope the file stores. A sum of stored inclusive values over
 * every context counts each value once per ancestor: it is not shown.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_info_has_metric_tree(const pk_profile *p)
{
    for (pk_index m = 0; m < pk_metric_count(p); m++) {
        pk_metric met;
        if (pk_metric_get(p, m, &met) == PK_OK && met.parent != PK_NONE &&
            !pk_attribute_find(p, PK_ENTITY_METRIC, m, "cube:component"))
            return 1;
    }
    return 0;
}

/* The scope a metric's stored values have along the call tree. */
static const char *stored_scope(const pk_profile *p, pk_index m)
{
    pk_index col;
    if (pk_column_find(p, m, PK_SCOPE_INCLUSIVE, &col) == PK_OK) return "inclusive";
    if (pk_column_find(p, m, PK_SCOPE_EXCLUSIVE, &col) == PK_OK) return "exclusive";
    return "none (derived)";
}

static void put_total(double v)
{
    if (isnan(v))
        printf("  %16s", "-");
    else
        printf("  %16.10g", v);
}

static void put_metric(const pk_profile *p, pk_index m, unsigned depth, const double *programs,
                       const double *exclusive)
{
    pk_metric met;
    char name[512];
    pk_metric_get(p, m, &met);
    unsigned indent = depth > 20 ? 20 : depth;
    snprintf(name, sizeof name, "%*s%s", (int)(2 * indent), "", cli_text(met.name));
    printf("  %-36s %-6s", name, met.unit ? cli_text(met.unit) : "");
    put_total(programs[m]);
    put_total(exclusive[m]);
    printf("  %s\n", stored_scope(p, m));
}

/* Depth-first through the metric tree, children in the file's order,
 * with an explicit stack (a metric tree of any depth). */
static int walk(const pk_profile *p, const double *programs, const double *exclusive)
{
    size_t n = pk_metric_count(p);
    pk_index *first = malloc((n + 1) * sizeof *first), *next = malloc((n + 1) * sizeof *next);
    pk_index *stack = malloc((n + 1) * sizeof *stack);
    unsigned *depth = malloc((n + 1) * sizeof *depth);
    if (!first || !next || !stack || !depth) {
        free(first), free(next), free(stack), free(depth);
        return CLI_BAD;
    }
    for (size_t m = 0; m < n; m++)
        first[m] = next[m] = PK_NONE;
    for (size_t m = n; m-- > 0;) { /* prepend in reverse: lists in index order */
        pk_metric met;
        pk_metric_get(p, (pk_index)m, &met);
        if (met.parent != PK_NONE && met.parent < n && met.parent != m)
            next[m] = first[met.parent], first[met.parent] = (pk_index)m;
    }
    for (size_t root = 0; root < n; root++) {
        pk_metric met;
        pk_metric_get(p, (pk_index)root, &met);
        if (met.parent != PK_NONE && met.parent < n && met.parent != root) continue;
        size_t top = 0;
        stack[top++] = (pk_index)root, depth[root] = 0;
        while (top) {
            pk_index m = stack[--top];
            put_metric(p, m, depth[m], programs, exclusive);
            size_t at = top; /* children pushed so the first comes out first */
            for (pk_index c = first[m]; c != PK_NONE && top < n; c = next[c])
                stack[top++] = c, depth[c] = depth[m] + 1;
            for (size_t i = at, j = top; i + 1 < j; i++, j--) {
                pk_index t = stack[i];
                stack[i] = stack[j - 1], stack[j - 1] = t;
            }
        }
    }
    free(first), free(next), free(stack), free(depth);
    return CLI_OK;
}

int cli_info_metric_tree(const pk_profile *p, const double *programs, const double *exclusive)
{
    printf("  the metric tree, as CubeGUI shows it: a metric's program total includes the\n"
           "  metrics below it (inclusive); exclusive is its own part, less them\n\n");
    printf("  %-36s %-6s  %16s  %16s  %s\n", "metric", "unit", "inclusive", "exclusive",
           "stored along the call tree");
    return walk(p, programs, exclusive);
}
