/*
 * tests/test_callgrind_scale.c — Callgrind inputs of the shapes and sizes
 * of issue 19, generated here:
 *   - rows: costs added line after line in every pattern (dense lines,
 *     sparse ones, events that appear late, a second part listing its
 *     events in reverse, positions in any order and coming back), kept
 *     per position (one record each, ascending) and per function, against
 *     the sums this test keeps itself;
 *   - a call chain 1,000,000 functions deep: opened, its calling-context
 *     tree reconstructed in full and its exact costs computed without
 *     recursion or a depth bound: each context one deeper than its
 *     parent, function i's inclusive cost N - i;
 *   - 4,096 events x 20,000 functions with one cost a line (as the
 *     issue's 115 KB gzipped file): opened for the tree and for flat
 *     views in a child process whose address space is limited to 512 MB
 *     (the text included), where rows of events 0 up to the last cost
 *     a line has would take 655 MB, rows as wide as the events list 1.3 GB.
 * No timings: speed is measured in bench/.
 */
#define _DEFAULT_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "profkit/profkit.h"

/* A growing text buffer. */
typedef struct text {
    char *s;
    size_t n, cap;
} text;

static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    if (!t->s) { /* room first: an offset from a null pointer is undefined */
        t->cap = 1 << 16;
        t->s = malloc(t->cap);
        assert_non_null(t->s);
    }
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
        va_end(ap);
        if ((size_t)k < t->cap - t->n) {
            t->n += (size_t)k;
            return;
        }
        t->cap *= 2;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
}

static pk_profile *open_text(const text *t, uint32_t flags)
{
    const char *name = "generated.callgrind";
    const void *data = t->s;
    uint64_t size = t->n;
    pk_open_options o = {.flags = flags};
    pk_profile *p = NULL;
    if (pk_profile_open_memory(PK_FORMAT_CALLGRIND, 1, &name, &data, &size, &o, &p))
        fail_msg("opening the generated file: %s", pk_error_last());
    return p;
}

/* Number in a name such as "f12" or "E7". */
static unsigned num(const char *name)
{
    return (unsigned)strtoul(
        name + strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"), NULL, 10);
}

/* ------------------------------------------------------------------ */
/* Rows                                                               */
/* ------------------------------------------------------------------ */

#define R_PARTS 2
#define R_FNS   6
#define R_POS   5
#define R_EV    40

typedef struct sums {
    double self[R_PARTS][R_FNS][R_POS][R_EV];
    double call[R_PARTS][R_FNS][R_FNS][R_EV];
    int has_self[R_PARTS][R_FNS][R_POS], has_call[R_PARTS][R_FNS][R_FNS];
} sums;

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

/* One cost line's costs for column order `col_event`: each event with
 * probability `density` (per mille), values 1..9; written positionally,
 * trailing zeros left out. */
static void cost_line(text *t, double *acc, const unsigned *col_event, unsigned density)
{
    unsigned v[R_EV], last = 0;
    for (unsigned c = 0; c < R_EV; c++) {
        v[c] = next() % 1000 < density ? 1 + (unsigned)(next() % 9) : 0;
        if (v[c]) last = c + 1;
        acc[col_event[c]] += v[c];
    }
    for (unsigned c = 0; c < last; c++)
        put(t, " %u", v[c]);
    put(t, "\n");
}

static void rows_file(text *t, sums *s, unsigned density_a, unsigned density_b)
{
    put(t, "# callgrind format\nversion: 1\ncreator: test\npositions: line\n");
    for (unsigned k = 0; k < R_PARTS; k++) {
        unsigned col_event[R_EV];
        put(t, "\npart: %u\nevents:", k + 1);
        for (unsigned c = 0; c < R_EV; c++) {
            col_event[c] = k ? R_EV - 1 - c : c; /* the second part lists them in reverse */
            put(t, " E%u", col_event[c]);
        }
        put(t, "\nfl=file.c\n");
        for (unsigned line = 0; line < 600; line++) {
            unsigned f = (unsigned)(next() % R_FNS), pos = (unsigned)(next() % R_POS);
            /* the first lines sparse, later ones denser: rows change shape */
            unsigned density = line < 300 ? density_a : density_b;
            put(t, "fn=f%u\n%u", f, 10 + pos);
            cost_line(t, s->self[k][f][pos], col_event, density);
            s->has_self[k][f][pos] = 1;
            if (next() % 3) continue;
            unsigned g = (unsigned)(next() % R_FNS);
            if (g == f) continue;
            put(t, "cfn=f%u\ncalls=2 %u\n%u", g, 10, 100 + g);
            cost_line(t, s->call[k][f][g], col_event, density);
            s->has_call[k][f][g] = 1;
        }
    }
}

static void check_rows(const pk_profile *p, const sums *s, int by_function)
{
    pk_cg_summary sum;
    assert_int_equal(pk_callgraph_summary(p, &sum), PK_OK);
    assert_int_equal(sum.n_events, R_EV);
    unsigned ev_of[R_EV];
    for (size_t e = 0; e < R_EV; e++) {
        pk_cg_event ev;
        assert_int_equal(pk_callgraph_event(p, e, &ev), PK_OK);
        ev_of[e] = num(ev.name);
    }
    size_t want = 0;
    for (unsigned k = 0; k < R_PARTS; k++)
        for (unsigned f = 0; f < R_FNS; f++) {
            int any = 0;
            for (unsigned q = 0; q < R_POS; q++)
                any |= s->has_self[k][f][q], want += !by_function && s->has_self[k][f][q];
            want += by_function && any;
        }
    assert_int_equal(sum.n_costs, want);
    pk_cg_cost prev = {.location = PK_NONE};
    for (uint64_t i = 0; i < sum.n_costs; i++) {
        pk_cg_cost c;
        pk_function fn;
        assert_int_equal(pk_callgraph_cost(p, i, &c), PK_OK);
        /* one record per position, ascending within a function's records */
        if (!by_function && c.location == prev.location && c.function == prev.function &&
            c.pos.file == prev.pos.file && c.pos.line <= prev.pos.line)
            fail_msg("cost %llu: line %u after line %u of the same function", (unsigned long long)i,
                     c.pos.line, prev.pos.line);
        prev = c;
        pk_function_get(p, c.function, &fn);
        unsigned f = num(fn.name), k = (unsigned)c.location;
        for (size_t e = 0; e < R_EV; e++) {
            double w = 0;
            for (unsigned q = 0; q < R_POS; q++)
                if (by_function || c.pos.line == 10 + q) w += s->self[k][f][q][ev_of[e]];
            double got = pk_cg_value(c.values, c.n_values, c.events, e);
            if (got != w)
                fail_msg("part %u f%u line %u E%u: %g, the lines sum to %g", k, f, c.pos.line,
                         ev_of[e], got, w);
        }
    }
    want = 0;
    for (unsigned k = 0; k < R_PARTS; k++)
        for (unsigned f = 0; f < R_FNS; f++)
            for (unsigned g = 0; g < R_FNS; g++)
                want += s->has_call[k][f][g];
    assert_int_equal(sum.n_calls, want);
    for (uint64_t i = 0; i < sum.n_calls; i++) {
        pk_cg_call c;
        pk_function a, b;
        assert_int_equal(pk_callgraph_call(p, i, &c), PK_OK);
        pk_function_get(p, c.caller, &a), pk_function_get(p, c.callee, &b);
        const double *w = s->call[c.location][num(a.name)][num(b.name)];
        for (size_t e = 0; e < R_EV; e++)
            if (pk_cg_value(c.inclusive, c.n_values, c.events, e) != w[ev_of[e]])
                fail_msg("call %s -> %s E%u: %g, the lines sum to %g", a.name, b.name, ev_of[e],
                         pk_cg_value(c.inclusive, c.n_values, c.events, e), w[ev_of[e]]);
    }
}

static void test_rows(void **state)
{
    (void)state;
    /* per mille: sparse then dense, dense then sparse, all, very sparse */
    static const unsigned density[][2] = {{30, 900}, {900, 30}, {1000, 1000}, {10, 10}, {300, 600}};
    for (size_t d = 0; d < sizeof density / sizeof *density; d++) {
        sums *s = calloc(1, sizeof *s);
        text t = {0};
        rows_file(&t, s, density[d][0], density[d][1]);
        for (int by_function = 0; by_function < 2; by_function++) {
            pk_profile *p =
                open_text(&t, PK_OPEN_NO_TREE | (by_function ? PK_OPEN_BY_FUNCTION : 0));
            check_rows(p, s, by_function);
            pk_profile_free(p);
        }
        free(t.s), free(s);
    }
}

/* ------------------------------------------------------------------ */
/* A chain 1,000,000 deep                                             */
/* ------------------------------------------------------------------ */

#define CHAIN 1000000u

static void chain_file(text *t, unsigned n)
{
    put(t, "# callgrind format\nversion: 1\npositions: line\nevents: Ir\nfl=(1) chain.c\n");
    for (unsigned i = 0; i < n; i++) {
        put(t, "fn=(%u) f%u\n1 1\n", i + 1, i);
        if (i + 1 < n) put(t, "cfn=(%u) f%u\ncalls=1 1\n2 %u\n", i + 2, i + 1, n - i - 1);
    }
}

static void test_deep_chain(void **state)
{
    (void)state;
    text t = {0};
    chain_file(&t, CHAIN);
    pk_profile *p = open_text(&t, 0);
    free(t.s);
    size_t nc = pk_context_count(p);
    assert_true(nc >= CHAIN + 2); /* root, entry, one context a function */
    double *incl = calloc(nc, sizeof *incl), *excl = calloc(nc, sizeof *excl);
    assert_int_equal(pk_context_scope_values(p, 0, PK_SCOPE_INCLUSIVE, incl, nc, NULL), PK_OK);
    assert_int_equal(pk_context_scope_values(p, 0, PK_SCOPE_EXCLUSIVE, excl, nc, NULL), PK_OK);
    assert_true(incl[0] == CHAIN);
    size_t seen = 0;
    for (pk_index i = 0; i < nc; i++) {
        pk_context c, up;
        pk_function fn;
        assert_int_equal(pk_context_get(p, i, &c), PK_OK);
        if (c.function == PK_NONE) continue;
        pk_function_get(p, c.function, &fn);
        unsigned k = num(fn.name);
        pk_context_get(p, c.parent, &up);
        if (k > 0) {
            pk_function caller;
            pk_function_get(p, up.function, &caller);
            if (num(caller.name) != k - 1) fail_msg("f%u below %s", k, caller.name);
        }
        if (incl[i] != CHAIN - k || excl[i] != 1 || c.depth != up.depth + 1)
            fail_msg("f%u: inclusive %g, exclusive %g, depth %u", k, incl[i], excl[i], c.depth);
        seen++;
    }
    assert_int_equal(seen, CHAIN);
    /* and the exact costs of the call graph */
    size_t nf = pk_function_count(p);
    pk_cg_function_cost *cost = calloc(nf, sizeof *cost);
    assert_int_equal(pk_callgraph_function_costs(p, PK_NONE, 0, cost, NULL, NULL), PK_OK);
    for (size_t f = 0; f < nf; f++) {
        pk_function fn;
        pk_function_get(p, (pk_index)f, &fn);
        if (!fn.name || fn.name[0] != 'f') continue;
        if (cost[f].inclusive != CHAIN - num(fn.name) || cost[f].self != 1)
            fail_msg("%s: inclusive %g", fn.name, cost[f].inclusive);
    }
    free(cost), free(incl), free(excl);
    pk_profile_free(p);
}

/* ------------------------------------------------------------------ */
/* 4,096 events x 20,000 functions                                    */
/* ------------------------------------------------------------------ */

#define W_EVENTS 4096u
#define W_FNS    20000u

/* main calls f0..f19999; fi costs 1 in event i % 4096 (positional zeros
 * before it), and so does the call to it. */
static void wide_file(text *t)
{
    put(t, "# callgrind format\nversion: 1\npositions: line\nevents:");
    for (unsigned e = 0; e < W_EVENTS; e++)
        put(t, " E%u", e);
    put(t, "\nfl=(1) wide.c\n");
    for (unsigned i = 0; i < W_FNS; i++) {
        put(t, "fn=(%u) f%u\n1", i + 2, i);
        for (unsigned e = 0; e < i % W_EVENTS; e++)
            put(t, " 0");
        put(t, " 1\n");
    }
    put(t, "fn=(1) main\n");
    for (unsigned i = 0; i < W_FNS; i++) {
        put(t, "cfn=(%u)\ncalls=1 1\n2", i + 2);
        for (unsigned e = 0; e < i % W_EVENTS; e++)
            put(t, " 0");
        put(t, " 1\n");
    }
}

#if defined(__SANITIZE_ADDRESS__)
#define LIMITED 0 /* ASan's shadow memory needs a huge address space */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LIMITED 0
#endif
#endif
#ifndef LIMITED
#define LIMITED 1
#endif

/* In the child: 0 when every check holds. */
static int wide_child(const text *t)
{
    if (LIMITED) {
        struct rlimit r = {512ull << 20, 512ull << 20};
        if (setrlimit(RLIMIT_AS, &r)) return 10;
    }
    uint32_t modes[] = {PK_OPEN_NO_TREE | PK_OPEN_BY_FUNCTION, PK_OPEN_BY_FUNCTION, 0};
    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
        const char *name = "wide.callgrind";
        const void *data = t->s;
        uint64_t size = t->n;
        pk_open_options o = {.flags = modes[m]};
        pk_profile *p = NULL;
        if (pk_profile_open_memory(PK_FORMAT_CALLGRIND, 1, &name, &data, &size, &o, &p)) {
            fprintf(stderr, "wide, mode %zu: %s\n", m, pk_error_last());
            return 1;
        }
        size_t nf = pk_function_count(p);
        pk_cg_function_cost *cost = calloc(nf + 1, sizeof *cost);
        int bad = !cost || pk_function_count(p) < W_FNS + 1;
        for (unsigned e = 0; e < W_EVENTS && !bad; e += 97) {
            bad |= pk_callgraph_function_costs(p, PK_NONE, e, cost, NULL, NULL) != PK_OK;
            for (size_t f = 0; f < nf && !bad; f++) {
                pk_function fn;
                pk_function_get(p, (pk_index)f, &fn);
                if (!fn.name || fn.name[0] == '<') continue;
                double want = fn.name[0] == 'f' && num(fn.name) % W_EVENTS == e;
                if (!strcmp(fn.name, "main")) want = (W_FNS - e + W_EVENTS - 1) / W_EVENTS;
                bad |= cost[f].inclusive != want;
                if (bad)
                    fprintf(stderr, "wide: %s E%u: %g, not %g\n", fn.name, e, cost[f].inclusive,
                            want);
            }
        }
        if (!bad && !(modes[m] & PK_OPEN_NO_TREE))
            bad |= pk_context_count(p) < W_FNS + 3; /* root, entry, main, f0... */
        free(cost);
        pk_profile_free(p);
        if (bad) return 2;
    }
    return 0;
}

static void test_wide(void **state)
{
    (void)state;
    text t = {0};
    wide_file(&t);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(wide_child(&t));
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    free(t.s);
    if (!WIFEXITED(status) || WEXITSTATUS(status))
        fail_msg("4,096 events x 20,000 functions within 512 MB of address space: %s %d",
                 WIFEXITED(status) ? "exit" : "signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_deep_chain),
        cmocka_unit_test(test_wide),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
