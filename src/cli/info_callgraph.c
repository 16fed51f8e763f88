/*
 * cli/info_callgraph.c — the call graph part of `profkit info`, as text
 * and as JSON: counts, cycles, and the functions with the highest self
 * and inclusive cost of the first event, as pk_callgraph_overview() ranks
 * them (inclusive costs correct under recursion).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "profkit/callgraph.h"

/* What info says of a call graph; 0 when the profile has none. */
typedef struct cg_info {
    pk_cg_summary s;
    pk_cg_event ev;
    pk_cg_overview o;
} cg_info;

static int gather_cg(const pk_profile *p, cg_info *c)
{
    return pk_callgraph_summary(p, &c->s) == PK_OK && c->s.n_events &&
           pk_callgraph_event(p, 0, &c->ev) == PK_OK && pk_callgraph_overview(p, 0, &c->o) == PK_OK;
}

static const char *function_name(const pk_profile *p, pk_index f)
{
    pk_function fn;
    return pk_function_get(p, f, &fn) == PK_OK && fn.name ? fn.name : NULL;
}

static void print_top(const pk_profile *p, const pk_cg_ranked *r, size_t n, double total)
{
    for (size_t i = 0; i < n; i++) {
        const char *name = function_name(p, r[i].function);
        char cyc[32] = "";
        if (r[i].cycle) snprintf(cyc, sizeof cyc, " <cycle %u>", r[i].cycle);
        if (name && strcmp(name, cyc + 1) == 0) cyc[0] = 0; /* the cycle itself */
        printf("    %16.0f %6.2f%%  %s%s\n", r[i].value, total ? 100.0 * r[i].value / total : 0.0,
               name ? cli_text(name) : "<unknown>", cyc);
    }
}

void cli_info_callgraph(const pk_profile *p)
{
    cg_info c;
    if (!gather_cg(p, &c)) return;
    /* a by-function open does not keep jumps: say so rather than print 0 */
    char jumps[48];
    if (c.s.by_function)
        snprintf(jumps, sizeof jumps, "jumps not loaded");
    else
        snprintf(jumps, sizeof jumps, "%llu jumps", (unsigned long long)c.s.n_jumps);
    printf("  %-12s %zu part%s, %llu cost positions%s, %llu call arcs, %s, %u cycle%s\n",
           "call graph", c.s.n_parts, c.s.n_parts == 1 ? "" : "s", (unsigned long long)c.s.n_costs,
           c.s.by_function ? " (by function)" : "", (unsigned long long)c.s.n_calls, jumps,
           c.o.n_cycles, c.o.n_cycles == 1 ? "" : "s");
    printf("\n  top functions by self %s:\n", cli_text(c.ev.name));
    print_top(p, c.o.by_self, c.o.n_by_self, c.o.self_total);
    printf("  top functions by inclusive %s (recursion counted once):\n", cli_text(c.ev.name));
    print_top(p, c.o.by_inclusive, c.o.n_by_inclusive, c.o.self_total);
}

static void json_top(pk_json *j, const pk_profile *p, const char *key, const pk_cg_ranked *r,
                     size_t n)
{
    pk_json_key(j, key);
    pk_json_array_begin(j);
    for (size_t i = 0; i < n; i++) {
        pk_json_object_begin(j);
        pk_json_key(j, "function");
        pk_json_string(j, function_name(p, r[i].function)); /* null when unnamed */
        pk_json_key(j, "value");
        pk_json_double(j, r[i].value);
        pk_json_key(j, "cycle");
        if (r[i].cycle)
            pk_json_uint(j, r[i].cycle);
        else
            pk_json_null(j);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

void cli_info_callgraph_json(pk_json *j, const pk_profile *p)
{
    cg_info c;
    pk_json_key(j, "callgraph");
    if (!gather_cg(p, &c)) {
        pk_json_null(j);
        return;
    }
    pk_json_object_begin(j);
    cli_json_count(j, "parts", c.s.n_parts);
    cli_json_count(j, "cost_positions", c.s.n_costs);
    pk_json_key(j, "by_function");
    pk_json_bool(j, c.s.by_function);
    cli_json_count(j, "call_arcs", c.s.n_calls);
    pk_json_key(j, "jumps"); /* not loaded by function */
    if (c.s.by_function)
        pk_json_null(j);
    else
        pk_json_uint(j, c.s.n_jumps);
    cli_json_count(j, "cycles", c.o.n_cycles);
    pk_json_key(j, "event");
    pk_json_string(j, c.ev.name);
    pk_json_key(j, "self_total");
    pk_json_double(j, c.o.self_total);
    json_top(j, p, "top_self", c.o.by_self, c.o.n_by_self);
    json_top(j, p, "top_inclusive", c.o.by_inclusive, c.o.n_by_inclusive);
    pk_json_object_end(j);
}
