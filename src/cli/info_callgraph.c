/*
 * cli/info_callgraph.c — the call graph part of `profkit info`: counts,
 * cycles, and the functions with the highest self and inclusive cost of
 * the first event (inclusive costs correct under recursion).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "profkit/callgraph.h"

typedef struct ranked {
    double v;
    uint32_t f;
} ranked;

static int by_value_desc(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->v != y->v) return x->v > y->v ? -1 : 1;
    return x->f < y->f ? -1 : x->f > y->f;
}

#define TOP 5

/* The TOP first functions in by_value_desc's order, in one pass: sorting
 * all of them (cc1: 60,000, twice) to print ten was 5 % of `info`. */
static size_t top_ranked(const pk_cg_function_cost *c, size_t nf, int inclusive, ranked *top)
{
    size_t n = 0;
    for (size_t f = 0; f < nf; f++) {
        ranked r = {inclusive ? c[f].inclusive : c[f].self, (uint32_t)f};
        if (n == TOP && by_value_desc(&r, &top[TOP - 1]) >= 0) continue;
        size_t i = n < TOP ? n++ : TOP - 1;
        for (; i > 0 && by_value_desc(&r, &top[i - 1]) < 0; i--)
            top[i] = top[i - 1];
        top[i] = r;
    }
    return n;
}

static void print_top(const pk_profile *p, const pk_cg_function_cost *c, size_t nf, int inclusive,
                      double total)
{
    ranked r[TOP];
    size_t n = top_ranked(c, nf, inclusive, r);
    for (size_t i = 0; i < n; i++) {
        pk_function fn;
        pk_function_get(p, r[i].f, &fn);
        char cyc[32] = "";
        if (c[r[i].f].cycle) snprintf(cyc, sizeof cyc, " <cycle %u>", c[r[i].f].cycle);
        printf("    %16.0f %6.2f%%  %s%s\n", r[i].v, total ? 100.0 * r[i].v / total : 0.0,
               fn.name ? cli_text(fn.name) : "<unknown>", cyc);
    }
}

void cli_info_callgraph(const pk_profile *p)
{
    pk_cg_summary s;
    if (pk_callgraph_summary(p, &s)) return;
    size_t nf = pk_function_count(p);
    pk_cg_function_cost *c = calloc(nf + 1, sizeof *c);
    uint32_t n_cycles = 0;
    pk_cg_event ev;
    if (!c || !s.n_events || pk_callgraph_event(p, 0, &ev) ||
        pk_callgraph_function_costs(p, PK_NONE, 0, c, NULL, &n_cycles)) {
        free(c);
        return;
    }
    /* a by-function open does not keep jumps: say so rather than print 0 */
    char jumps[48];
    if (s.by_function)
        snprintf(jumps, sizeof jumps, "jumps not loaded");
    else
        snprintf(jumps, sizeof jumps, "%llu jumps", (unsigned long long)s.n_jumps);
    printf("  %-12s %zu part%s, %llu cost positions%s, %llu call arcs, %s, %u cycle%s\n",
           "call graph", s.n_parts, s.n_parts == 1 ? "" : "s", (unsigned long long)s.n_costs,
           s.by_function ? " (by function)" : "", (unsigned long long)s.n_calls, jumps, n_cycles,
           n_cycles == 1 ? "" : "s");
    double total = 0;
    for (size_t f = 0; f < nf; f++)
        total += c[f].self;
    printf("\n  top functions by self %s:\n", cli_text(ev.name));
    print_top(p, c, nf, 0, total);
    printf("  top functions by inclusive %s (recursion counted once):\n", cli_text(ev.name));
    print_top(p, c, nf, 1, total);
    free(c);
}
