/*
 * formats/callgrind/formulas.c — derived events that cannot be computed.
 *
 * "event: CEst = Ir + 10*Bm" defines an event by a formula over others;
 * profkit keeps formulas as text (the data stays with the events listed in
 * events:), but callgrind_annotate and KCachegrind evaluate them, and a
 * formula that needs itself (X = X + Ir, or A = B with B = A) or names an
 * event no line defines cannot be evaluated: `check` reports both as
 * warnings. The names are looked up in a sorted index and the cycle
 * search is an iterative depth-first walk: linear in the formulas' text
 * and the number of events, whatever an input declares.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "cgrd.h"
#include "model/callgraph.h"
#include "util/error.h"

typedef struct formulas {
    const pk_cg *cg;
    uint32_t *by_name;    /* event indexes sorted by name */
    uint32_t *first, *to; /* references of event e: to[first[e] .. first[e + 1]) */
    uint32_t n_refs;
} formulas;

static int by_name(const void *a, const void *b, void *cg_)
{
    const pk_cg *cg = cg_;
    return strcmp(cg->events[*(const uint32_t *)a].name, cg->events[*(const uint32_t *)b].name);
}

static int is_name_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static int is_name_char(char c)
{
    return is_name_start(c) || (c >= '0' && c <= '9');
}

/* The event named s[0..n), or PK_NONE. */
static uint32_t find(const formulas *f, const char *s, size_t n)
{
    size_t lo = 0, hi = f->cg->n_events;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *name = f->cg->events[f->by_name[mid]].name;
        int c = strncmp(name, s, n);
        if (c == 0 && name[n] != '\0') c = 1;
        if (c == 0) return f->by_name[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return PK_NONE;
}

/* One pass over every formula's names: count (to == NULL) or record. */
static void scan(formulas *f, pk_profile *p, int report)
{
    uint32_t k = 0;
    for (uint32_t e = 0; e < f->cg->n_events; e++) {
        if (f->to) f->first[e] = k;
        const char *s = f->cg->events[e].formula;
        while (s && *s) {
            if (!is_name_start(*s)) {
                s++;
                continue;
            }
            size_t n = 1;
            while (is_name_char(s[n]))
                n++;
            uint32_t ref = find(f, s, n);
            if (ref != PK_NONE && f->to) f->to[k] = ref;
            if (ref != PK_NONE) k++;
            if (ref == PK_NONE && report)
                pk_model_diag(p, PK_SEV_WARNING, "formula-unknown-event", NULL, NULL, 0, 0,
                              "the formula of event '%s' (%s) names '%.*s', which no events: or "
                              "event: line defines: callgrind_annotate and KCachegrind cannot "
                              "compute it",
                              f->cg->events[e].name, f->cg->events[e].formula, (int)n, s);
            s += n;
        }
    }
    if (f->to) f->first[f->cg->n_events] = k;
    f->n_refs = k;
}

/* Depth-first from every event; a reference to an event still on the
 * walk's path closes a cycle, reported once at the event that closes it. */
static void find_cycles(const formulas *f, pk_profile *p, uint8_t *state, uint32_t *stack,
                        uint32_t *next)
{
    uint32_t n = f->cg->n_events;
    for (uint32_t root = 0; root < n; root++) {
        if (state[root]) continue;
        uint32_t top = 0;
        stack[top++] = root, next[root] = f->first[root], state[root] = 1; /* on the path */
        while (top) {
            uint32_t e = stack[top - 1];
            if (next[e] == f->first[e + 1]) {
                state[e] = 2; /* done */
                top--;
                continue;
            }
            uint32_t r = f->to[next[e]++];
            if (state[r] == 1)
                pk_model_diag(p, PK_SEV_WARNING, "formula-cycle", NULL, NULL, 0, 0,
                              "the formula of event '%s' (%s) needs event '%s', whose value needs "
                              "'%s' again: it cannot be computed (callgrind_annotate and "
                              "KCachegrind evaluate it)",
                              f->cg->events[e].name, f->cg->events[e].formula,
                              f->cg->events[r].name, f->cg->events[e].name);
            else if (state[r] == 0)
                stack[top++] = r, next[r] = f->first[r], state[r] = 1;
        }
    }
}

pk_status cgb_check_formulas(cg_build *b)
{
    const pk_cg *cg = b->cg;
    uint32_t n = cg->n_events;
    formulas f = {cg, NULL, NULL, NULL, 0};
    int any = 0;
    for (uint32_t e = 0; e < n; e++)
        any |= cg->events[e].formula != NULL;
    if (!any) return PK_OK;
    f.by_name = malloc((n + 1) * sizeof *f.by_name);
    f.first = malloc((n + 2) * sizeof *f.first);
    uint8_t *state = calloc(n + 1, 1);
    uint32_t *stack = malloc((n + 1) * sizeof *stack), *next = malloc((n + 1) * sizeof *next);
    pk_status st = PK_OK;
    if (f.by_name && f.first && state && stack && next) {
        for (uint32_t e = 0; e < n; e++)
            f.by_name[e] = e;
        qsort_r(f.by_name, n, sizeof *f.by_name, by_name, (void *)cg);
        scan(&f, b->p, 1);
        f.to = malloc(((size_t)f.n_refs + 1) * sizeof *f.to);
        if (f.to) {
            scan(&f, b->p, 0);
            find_cycles(&f, b->p, state, stack, next);
        } else {
            st = pk_fail_nomem("checking event formulas");
        }
    } else {
        st = pk_fail_nomem("checking event formulas");
    }
    free(f.by_name), free(f.first), free(f.to), free(state), free(stack), free(next);
    return st;
}
