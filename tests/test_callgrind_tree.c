/*
 * tests/test_callgrind_tree.c — the reconstructed calling-context tree of
 * every Callgrind file of the corpus against its exact call graph
 * (generated deep chains and many events: test_callgrind_scale.c):
 *   - per function, the tree's self cost summed over its contexts equals
 *     the call graph's self cost (every event);
 *   - per function, the tree's inclusive cost at its outermost contexts is
 *     within 1 % of the call graph's exact inclusive cost (recursion and
 *     cycles counted once, pk_callgraph_function_costs()) for the 50
 *     functions with the largest inclusive cost, every event;
 *   - the root holds the program total; below the root there are entry
 *     contexts only, and a function hangs under "<no caller>" only when
 *     some part of the call graph really has no caller for it.
 */
#define _DEFAULT_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profkit/profkit.h"
#include "support/cg_compare.h"
#include "support/testutil.h"

#define TOP 50

typedef struct fn_sums {
    double *self, *outer;
    pk_cg_function_cost *cost;
    size_t n_allowed; /* top functions above a contradiction of the call graph */
} fn_sums;

/* Per function: tree self (exclusive over its contexts) and tree
 * inclusive over its outermost contexts (no ancestor of the same
 * function). Contexts are breadth-first: parents come first, so
 * `outer_of` (the nearest ancestor context of the same function, or none)
 * is found by walking up only as far as the function repeats. */
static void tree_sums(const pk_profile *p, const double *incl, const double *excl, fn_sums *s)
{
    size_t nc = pk_context_count(p), nf = pk_function_count(p);
    memset(s->self, 0, nf * sizeof *s->self);
    memset(s->outer, 0, nf * sizeof *s->outer);
    for (pk_index i = 0; i < nc; i++) {
        pk_context c;
        assert_int_equal(pk_context_get(p, i, &c), PK_OK);
        if (c.function == PK_NONE) continue;
        s->self[c.function] += excl[i];
        int nested = 0;
        for (pk_index a = c.parent; a != PK_NONE && !nested;) {
            pk_context up;
            pk_context_get(p, a, &up);
            nested = up.function == c.function;
            a = up.parent;
        }
        if (!nested) s->outer[c.function] += incl[i];
    }
}

/* Where the call graph contradicts itself, no tree can match it: arcs
 * into a unit (a function, or a cycle) that carry more than the unit
 * holds (its self cost and calls out of it) leave its callers short in
 * any tree that keeps self costs. `deficit` per unit; reach() sums them
 * over the units a function reaches: the allowance beyond 1 %. */
typedef struct graph {
    size_t nf, nu;
    size_t *unit;    /* per function */
    double *deficit; /* per unit */
    size_t *from, *to, n_arcs;
    size_t *queue;
    unsigned char *seen;
} graph;

static void build_graph(const pk_profile *p, const pk_cg_function_cost *cost, size_t ev, graph *g)
{
    pk_cg_summary s;
    pk_callgraph_summary(p, &s);
    size_t nf = pk_function_count(p), np = pk_location_count(p) + 1;
    g->nf = nf, g->nu = 2 * nf + 1;
    g->unit = calloc(nf + 1, sizeof *g->unit);
    g->deficit = calloc(g->nu, 8);
    g->from = calloc(s.n_calls + 1, sizeof *g->from), g->to = calloc(s.n_calls + 1, sizeof *g->to);
    g->queue = calloc(g->nu, sizeof *g->queue), g->seen = calloc(g->nu, 1);
    g->n_arcs = 0;
    for (size_t f = 0; f < nf; f++)
        g->unit[f] = cost[f].cycle ? nf + cost[f].cycle : f;
    double *in = calloc(g->nu * np, 8), *content = calloc(g->nu * np, 8);
    for (uint64_t i = 0; i < s.n_costs; i++) {
        pk_cg_cost c;
        pk_callgraph_cost(p, i, &c);
        content[g->unit[c.function] * np + c.location] +=
            pk_cg_value(c.values, c.n_values, c.events, ev);
    }
    for (uint64_t i = 0; i < s.n_calls; i++) {
        pk_cg_call a;
        pk_callgraph_call(p, i, &a);
        size_t ua = g->unit[a.caller], ub = g->unit[a.callee];
        if (ua == ub) continue;
        double v = pk_cg_value(a.inclusive, a.n_values, a.events, ev);
        in[ub * np + a.location] += v, content[ua * np + a.location] += v;
        g->from[g->n_arcs] = ua, g->to[g->n_arcs++] = ub;
    }
    for (size_t u = 0; u < g->nu; u++)
        for (size_t k = 0; k < np; k++)
            if (in[u * np + k] > content[u * np + k])
                g->deficit[u] += in[u * np + k] - content[u * np + k];
    free(in), free(content);
}

static double reach(graph *g, size_t start)
{
    memset(g->seen, 0, g->nu);
    size_t head = 0, tail = 0;
    double sum = 0;
    g->queue[tail++] = start, g->seen[start] = 1;
    while (head < tail) {
        size_t u = g->queue[head++];
        if (u != start) sum += g->deficit[u];
        for (size_t a = 0; a < g->n_arcs; a++)
            if (g->from[a] == u && !g->seen[g->to[a]])
                g->seen[g->to[a]] = 1, g->queue[tail++] = g->to[a];
    }
    return sum;
}

static void free_graph(graph *g)
{
    free(g->unit), free(g->deficit), free(g->from), free(g->to), free(g->queue), free(g->seen);
}

typedef struct ranked {
    double v;
    pk_index f;
} ranked;

static int by_v_desc(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    return fabs(x->v) > fabs(y->v) ? -1 : fabs(x->v) < fabs(y->v);
}

/* The checks for one metric; returns the largest relative deviation of
 * a top function's outermost inclusive cost. */
static double check_metric(const char *name, const pk_profile *p, pk_index m, size_t event,
                           fn_sums *s)
{
    size_t nc = pk_context_count(p), nf = pk_function_count(p);
    double *incl = calloc(nc + 1, sizeof *incl), *excl = calloc(nc + 1, sizeof *excl);
    assert_int_equal(pk_context_scope_values(p, m, PK_SCOPE_INCLUSIVE, incl, nc, NULL), PK_OK);
    assert_int_equal(pk_context_scope_values(p, m, PK_SCOPE_EXCLUSIVE, excl, nc, NULL), PK_OK);
    assert_int_equal(pk_callgraph_function_costs(p, PK_NONE, event, s->cost, NULL, NULL), PK_OK);
    tree_sums(p, incl, excl, s);
    double total = 0;
    for (size_t f = 0; f < nf; f++)
        total += s->cost[f].self;
    double tol = 1e-9 * (fabs(total) + 1);
    if (fabs(incl[0] - total) > tol)
        fail_msg("%s: metric %u: root %.17g, self costs sum to %.17g", name, m, incl[0], total);
    for (size_t f = 0; f < nf; f++)
        if (fabs(s->self[f] - s->cost[f].self) > tol)
            fail_msg("%s: metric %u: function %zu: tree self %.17g, call graph %.17g", name, m, f,
                     s->self[f], s->cost[f].self);
    ranked *r = calloc(nf + 1, sizeof *r);
    for (size_t f = 0; f < nf; f++)
        r[f] = (ranked){s->cost[f].inclusive, (pk_index)f};
    qsort(r, nf, sizeof *r, by_v_desc);
    graph g;
    build_graph(p, s->cost, event, &g);
    double worst = 0;
    for (size_t i = 0; i < nf && i < TOP; i++) {
        double want = r[i].v, got = s->outer[r[i].f];
        if (want == 0) break;
        double allowed = reach(&g, g.unit[r[i].f]), dev = fabs(got - want);
        if (allowed > 0) s->n_allowed++;
        if (dev > 0.01 * fabs(want) + allowed * (1 + 1e-9)) {
            pk_function fn;
            pk_function_get(p, r[i].f, &fn);
            fail_msg("%s: metric %u: '%s' (top %zu): tree inclusive %.17g, call graph %.17g "
                     "(contradictions below it: %.17g)",
                     name, m, fn.name, i + 1, got, want, allowed);
        }
        if (!allowed && dev / fabs(want) > worst) worst = dev / fabs(want);
    }
    free_graph(&g);
    free(r), free(incl), free(excl);
    return worst;
}

/* Whether function f has cost without a caller in some part: no arc
 * enters it there, or it holds more (self cost and calls out) than the
 * arcs into it carry (event `ev`). */
static int has_rootless_cost(const pk_profile *p, pk_index f, size_t ev)
{
    pk_cg_summary s;
    pk_callgraph_summary(p, &s);
    size_t np = pk_location_count(p) + 1;
    double *in = calloc(np, 8), *content = calloc(np, 8);
    int *called = calloc(np, sizeof *called), *touched = calloc(np, sizeof *touched), yes = 0;
    for (uint64_t i = 0; i < s.n_costs; i++) {
        pk_cg_cost c;
        pk_callgraph_cost(p, i, &c);
        if (c.function != f) continue;
        touched[c.location] = 1;
        content[c.location] += pk_cg_value(c.values, c.n_values, c.events, ev);
    }
    for (uint64_t i = 0; i < s.n_calls; i++) {
        pk_cg_call a;
        pk_callgraph_call(p, i, &a);
        if (a.caller == a.callee) continue;
        double v = pk_cg_value(a.inclusive, a.n_values, a.events, ev);
        if (a.callee == f) called[a.location] = 1, in[a.location] += v;
        if (a.caller == f) touched[a.location] = 1, content[a.location] += v;
    }
    for (size_t k = 0; k < np; k++)
        yes |= touched[k] && (!called[k] || content[k] > in[k]);
    free(in), free(content), free(called), free(touched);
    return yes;
}

/* Below the root only entries; below "<no caller>" only functions that
 * have cost without a caller (cycles are checked through their members'
 * arcs by the inclusive costs above). */
static void check_top_level(const char *name, const pk_profile *p, size_t ev)
{
    pk_context root, c;
    assert_int_equal(pk_context_get(p, 0, &root), PK_OK);
    for (uint32_t k = 0; k < root.n_children; k++) {
        pk_context_get(p, root.first_child + k, &c);
        if (c.kind != PK_CTX_ENTRY) fail_msg("%s: a root child is not an entry", name);
        if (!c.entry_name || strcmp(c.entry_name, "<no caller>")) continue;
        for (uint32_t j = 0; j < c.n_children; j++) {
            pk_context f;
            pk_function fn;
            pk_context_get(p, c.first_child + j, &f);
            pk_function_get(p, f.function, &fn);
            if (fn.name && strncmp(fn.name, "<cycle ", 7) == 0) continue;
            if (!has_rootless_cost(p, f.function, ev))
                fail_msg("%s: '%s' is under <no caller> but has a caller for all its cost", name,
                         fn.name);
        }
    }
}

/* The frames of a rebuilt tree, where nothing merges, are made without
 * the (parent, name) map (frames.c): they must be the map's frames, field
 * for field. Loops open frames of their own in pk_frames_build_loops(),
 * which always takes the map; a call graph's tree has none, so its frames
 * are the same. */
static void check_frames(const char *name, const pk_profile *p)
{
    size_t n = pk_context_count(p), na = 0, nb = 0;
    double *incl = calloc(n + 1, sizeof *incl);
    pk_frame *a = NULL, *b = NULL;
    assert_non_null(incl);
    assert_int_equal(
        pk_context_stat_values(p, 0, PK_SCOPE_INCLUSIVE, NULL, PK_ACROSS_SUM, incl, n, NULL),
        PK_OK);
    assert_int_equal(pk_frames_build(p, incl, &a, &na), PK_OK);
    assert_int_equal(pk_frames_build_loops(p, incl, &b, &nb), PK_OK);
    if (na != nb) fail_msg("%s: %zu frames, %zu through the map", name, na, nb);
    for (size_t i = 0; i < na; i++)
        if (a[i].parent != b[i].parent || a[i].first_child != b[i].first_child ||
            a[i].next_sibling != b[i].next_sibling || a[i].context != b[i].context ||
            a[i].depth != b[i].depth || a[i].name_hash != b[i].name_hash ||
            a[i].inclusive != b[i].inclusive || a[i].self != b[i].self)
            fail_msg("%s: frame %zu differs from the map's", name, i);
    pk_frames_free(a), pk_frames_free(b), free(incl);
}

static void check_profile(const char *name, const pk_profile *p)
{
    check_frames(name, p);
    size_t nf = pk_function_count(p);
    fn_sums s = {calloc(nf + 1, 8), calloc(nf + 1, 8), calloc(nf + 1, sizeof(pk_cg_function_cost)),
                 0};
    pk_cg_summary sum;
    assert_int_equal(pk_callgraph_summary(p, &sum), PK_OK);
    double worst = 0;
    for (size_t e = 0; e < sum.n_events; e++) {
        pk_cg_event ev;
        pk_callgraph_event(p, e, &ev);
        if (ev.metric == PK_NONE) continue;
        double w = check_metric(name, p, ev.metric, e, &s);
        if (w > worst) worst = w;
    }
    pk_cg_event ev0;
    for (size_t e = 0; e < sum.n_events; e++)
        if (!pk_callgraph_event(p, e, &ev0) && ev0.metric == 0) check_top_level(name, p, e);
    fprintf(stderr, "  %-58s %7zu contexts, top-%d inclusive: worst %.1e%s\n", name,
            pk_context_count(p), TOP, worst,
            s.n_allowed ? " (contradictions in the call graph allowed for)" : "");
    /* a contradicting call graph is said to the user, not silently drawn */
    if (s.n_allowed) {
        int said = 0;
        for (size_t i = 0; i < pk_diagnostic_count(p); i++) {
            pk_diagnostic d;
            pk_diagnostic_get(p, i, &d);
            said |= strcmp(d.code, "calls-exceed-costs") == 0;
        }
        if (!said)
            fail_msg("%s: the call graph contradicts itself and no diagnostic says so", name);
    }
    free(s.self), free(s.outer), free(s.cost);
}

static void check_path(const char *path)
{
    pk_profile *p;
    if (pk_profile_open(path, NULL, &p)) fail_msg("%s: %s", path, pk_error_last());
    const char *name = strstr(path, "callgrind/") ? strstr(path, "callgrind/") : path;
    check_profile(name, p);
    pk_profile_free(p);
}

/* The corpus's Callgrind files (not its notes) into *files; their
 * folder into root. Skips the test without a corpus. */
static size_t corpus_files(char *root, size_t size, char ***files)
{
    const char *corpus = tu_corpus_dir();
    if (!corpus) skip();
    snprintf(root, size, "%s/callgrind", corpus);
    size_t n = tu_find_files(root, "", files), k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen((*files)[i]);
        if (l > 3 && (!strcmp((*files)[i] + l - 3, ".md") || !strcmp((*files)[i] + l - 4, ".txt")))
            free((*files)[i]);
        else
            (*files)[k++] = (*files)[i];
    }
    assert_true(k > 10);
    return k;
}

static void test_corpus(void **state)
{
    (void)state;
    char root[1024], **files;
    size_t n = corpus_files(root, sizeof root, &files);
    for (size_t i = 0; i < n; i++)
        check_path(files[i]);
    /* the four thread files of one run, opened by their base name */
    char run[1100];
    snprintf(run, sizeof run, "%s/generated/mt-threads.callgrind.out.3938", root);
    check_path(run);
    tu_free_list(files, n);
}

static void test_sample(void **state)
{
    (void)state;
    check_path(PK_SOURCE_DIR "/tests/data/callgrind/sample.callgrind");
    check_path(PK_SOURCE_DIR "/tests/data/callgrind/sample-b.callgrind");
    check_path(PK_SOURCE_DIR "/tests/data/callgrind/zero-first-event.callgrind");
}

/* "main/work/odd" paths of every context with its inclusive value. */
typedef struct path_val {
    char *path;
    double v;
} path_val;

static int by_path(const void *a, const void *b)
{
    return strcmp(((const path_val *)a)->path, ((const path_val *)b)->path);
}

static path_val *paths(const pk_profile *p, size_t *n)
{
    size_t nc = pk_context_count(p);
    double *incl = calloc(nc + 1, 8);
    assert_int_equal(pk_context_scope_values(p, 0, PK_SCOPE_INCLUSIVE, incl, nc, NULL), PK_OK);
    path_val *pv = calloc(nc + 1, sizeof *pv);
    for (pk_index c = 0; c < nc; c++) {
        pk_context ctx;
        pk_context_get(p, c, &ctx);
        char name[4096];
        pk_context_name(p, c, name, sizeof name);
        const char *up = ctx.parent == PK_NONE ? "" : pv[ctx.parent].path;
        size_t l = strlen(up) + strlen(name) + 2;
        pv[c].path = malloc(l);
        snprintf(pv[c].path, l, "%s/%s", up, name);
        pv[c].v = incl[c];
    }
    free(incl);
    *n = nc;
    return pv;
}

/* With a threshold, every context that is built holds exactly what the
 * same call path holds in the whole tree. */
static void test_threshold(void **state)
{
    (void)state;
    const char *corpus = tu_corpus_dir();
    if (!corpus) skip();
    static const char *const rel[] = {
        "generated/gzip-default.callgrind.out", "generated/sort-instr-jumps.callgrind.out",
        "gprof2dot/googlecode-issue34.callgrind", "gprof2dot/selinux.callgrind",
        "generated/mt_O0-cachesim-combined.callgrind.out"};
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/callgrind/%s", corpus, rel[i]);
        pk_open_options all = {.tree_threshold = 1e-15}, cut = {.tree_threshold = 0.001};
        pk_profile *a, *b;
        if (pk_profile_open(path, &all, &a) || pk_profile_open(path, &cut, &b))
            fail_msg("%s: %s", path, pk_error_last());
        size_t na, nb;
        path_val *pa = paths(a, &na), *pb = paths(b, &nb);
        qsort(pa, na, sizeof *pa, by_path);
        double total = pa[0].v;
        size_t kept = 0;
        for (size_t k = 0; k < nb; k++) {
            if (strstr(pb[k].path, "<below threshold>")) continue;
            path_val *w = bsearch(&pb[k], pa, na, sizeof *pa, by_path);
            if (!w) fail_msg("%s: '%s' is not a path of the whole tree", rel[i], pb[k].path);
            if (fabs(w->v - pb[k].v) > 1e-9 * fabs(total))
                fail_msg("%s: '%s' holds %.17g, the whole tree %.17g", rel[i], pb[k].path, pb[k].v,
                         w->v);
            kept++;
        }
        fprintf(stderr, "  %-50s %zu of %zu contexts kept at 0.1 %%, all exact\n", rel[i], kept,
                na);
        for (size_t k = 0; k < na; k++)
            free(pa[k].path);
        for (size_t k = 0; k < nb; k++)
            free(pb[k].path);
        free(pa), free(pb);
        pk_profile_free(a), pk_profile_free(b);
    }
}

static void same_reading_by(const char *name, const unsigned char *data, size_t n, uint32_t by)
{
    char *a = tu_cg_reading(name, data, n, 1, by), *b = tu_cg_reading(name, data, n, 3, by);
    if (strcmp(a, b)) {
        size_t i = 0;
        while (a[i] && a[i] == b[i])
            i++;
        fail_msg("%s (%zu bytes, by %s): read in parallel differs near '%.100s' vs '%.100s'", name,
                 n, by == PK_OPEN_BY_LINE ? "line" : "function", a + (i > 40 ? i - 40 : 0),
                 b + (i > 40 ? i - 40 : 0));
    }
    free(a), free(b);
}

/* By function (info, tree...) and by line (annotate): the two ways the
 * pipeline cuts runs. */
static void same_reading(const char *name, const unsigned char *data, size_t n)
{
    same_reading_by(name, data, n, PK_OPEN_BY_FUNCTION);
    same_reading_by(name, data, n, PK_OPEN_BY_LINE);
}

/* Tokenized on several threads (pipeline.c), a file reads exactly as line
 * by line, with costs kept by function or by line: call graph,
 * diagnostics, errors; whole, cut short, or with bytes flipped. */
static void test_parallel_reading(void **state)
{
    (void)state;
    char root[1024], **files;
    size_t n = corpus_files(root, sizeof root, &files);
    for (size_t i = 0; i < n; i++) {
        size_t size;
        unsigned char *d = tu_read_file(files[i], &size);
        if (!d || size > (8u << 20)) {
            free(d);
            continue;
        }
        const char *name = strstr(files[i], "callgrind/");
        same_reading(name, d, size);
        for (int k = 1; k < 8; k++) /* cut anywhere */
            same_reading(name, d, size * (size_t)k / 8);
        uint64_t x = 0x9e3779b97f4a7c15ull ^ size;
        for (int k = 0; k < 6 && size; k++) { /* a byte gone wrong */
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            size_t at = x % size;
            unsigned char was = d[at];
            static const char flips[] = "+-*\n 0x\r#=\t9\0"; /* a NUL too */
            d[at] = flips[(x >> 32) % (sizeof flips - 1)];
            same_reading(name, d, size);
            d[at] = was;
        }
        free(d);
    }
    tu_free_list(files, n);
}

/* Each line of `lines` in a file of its own (fmt holds one %s for it),
 * read on three threads as on one. */
static void each_line_alone(const char *const *lines, size_t n, const char *fmt)
{
    char text[512];
    for (size_t i = 0; i < n; i++) {
        int len = snprintf(text, sizeof text, fmt, lines[i]);
        same_reading(lines[i], (const unsigned char *)text, (size_t)len);
    }
}

/* Subpositions, which by function the tokenizer only checks the syntax
 * of: every length and form a parser may or may not take (leading zeros,
 * 16 and 17 hex digits, 19 to 21 decimal ones, 2^64, relative and '*',
 * "0x" alone, a stray byte; and costs either side of 2^63), each line a run of its own in a file of
 * its own (a run with a bad token is read line by line, and the first
 * error ends the reading), then in parts whose headers change how many
 * subpositions a line starts with. Read on three threads as on one. */
static void test_subpositions(void **state)
{
    (void)state;
    /* clang-format off */
    static const char *const lines[] = {
        "0xffffffffffffffff 3 1 2", "0x00000000000000000001 3 1 2", "0x10000000000000000 3 5",
        "+3 * 1", "-2 +1 4 5", "* * 1 1", "0X1F 7 1",
        "0x1 99999999999999999999 1 2", "0x1 18446744073709551615 1 2",
        "0x1 18446744073709551616 1 2", "0x1 0000000000000000000001 3 3",
        "0x1 000000000000000000001 3 3", "0x 4 1 1", "0xg 4 1 1", "0x1 4x 1 1",
        "0x1\t4\t2\t2\r", "1 2", "0x1", "0x1 +", "0x1 -7 2",
        "0x1 1 9223372036854775807 1", "0x1 1 9223372036854775808 1", /* costs at 2^63 */
        "0x1 1 -9223372036854775808 1"};
    /* clang-format on */
    each_line_alone(lines, sizeof lines / sizeof *lines,
                    "positions: instr line\nevents: A B\nfl=s.c\nfn=a\n0x1 1 1 1\n"
                    "fn=b\n%s\nfn=c\n0x2 2 2\n");
    static const char parts[] = "positions: instr line\nevents: A B\nfl=s.c\nfn=a\n0x1 3 1 2\n"
                                "part: 2\npositions: line\nevents: A B\nfl=s.c\nfn=a\n"
                                "5 1 1\n+1 2 2\nfn=b\n3 3\n"
                                "part: 3\npositions: instr line\nevents: A B\nfl=s.c\nfn=b\n"
                                "0x4 5 6 7\n0x4 5 6\n";
    for (size_t cut = 1; cut <= 8; cut++)
        same_reading("parts", (const unsigned char *)parts, (sizeof parts - 1) * cut / 8);
}

/* Name lines, which the workers split before the parser reads them: with
 * ids and without, "\r\n" ends, blanks before the key, a NUL in the
 * value, a calls= whose cost line never came, keys that only look like
 * name keys. Read on three threads as on one, each in a file of its own. */
static void test_name_lines(void **state)
{
    (void)state;
    /* clang-format off */
    static const char *const lines[] = {
        "fn=(3) c\r", "fn=(3)", "  \tfn=(4) d", "cfn=(1)\ncalls=2 9\nfn=(5) e",
        "fn_x=y", "fnab=(1)", "cob=(2) /lib/x.so\r", "cfi=(9)", "fi=(1)", "fe=(7) h.c",
        "fn=(12", "fn=()", "fn= ", "jfi=(1) j.c", "cfe=(1) k.c"};
    /* clang-format on */
    each_line_alone(lines, sizeof lines / sizeof *lines,
                    "events: A\nfl=(1) s.c\nfn=(1) a\n1 1\n%s\n2 2\nfn=(2) b\n3 3\n");
    static const char nul[] = "events: A\nfl=(1) s.c\nfn=(1) a\n1 1\nfn=(2) b\0c\n2 2\n";
    same_reading("a NUL in a name", (const unsigned char *)nul, sizeof nul - 1);
}

/* One cost line per function, its cost a number of each length a line can
 * hold (decimal 1 to 19 digits, leading zeros or not; hex 1 to 15), at
 * positions of each length, ended by a newline, blanks, "\r\n" or the end
 * of the file. The function's text and its expected cost go in out/want. */
static size_t number_lines(char *out, size_t cap, double *want, size_t max)
{
    size_t k = (size_t)snprintf(out, cap, "events: A\nfl=n.c\n"), n = 0;
    static const char *const ends[] = {"\n", " \n", "\t \n", "\r\n"};
    uint64_t x = 0x243f6a8885a308d3ull;
    for (int hex = 0; hex < 2; hex++)
        for (int len = 1; len <= (hex ? 15 : 19) && n < max; len++)
            for (int lead = 0; lead < 3 && n < max; lead++) {
                char digits[32];
                for (int d = 0; d < len; d++) {
                    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                    digits[d] = "0123456789abcdef"[x % (hex ? 16 : 10)];
                }
                if (lead == 1) digits[0] = '0'; /* a leading zero */
                if (lead == 2) memset(digits, hex ? 'f' : '9', (size_t)len);
                if (!hex && len == 19) digits[0] = '8'; /* at most 2^63 */
                digits[len] = 0;
                want[n] = (double)strtoull(digits, NULL, hex ? 16 : 10);
                k += (size_t)snprintf(out + k, cap - k, "fn=f%zu\n%s%.*s %s%s%s", n,
                                      hex ? "0x" : "", len, "123456789012345678901",
                                      hex ? "0x" : "", digits, ends[n % 4]);
                n++;
            }
    if (k >= 1 && out[k - 1] == '\n') out[--k] = 0; /* the last line unended */
    return n;
}

/* Numbers read as their values, tokenized on one thread or on three. */
static void test_numbers(void **state)
{
    (void)state;
    static char text[16384];
    double want[128];
    size_t n = number_lines(text, sizeof text, want, 128);
    for (unsigned threads = 1; threads <= 3; threads += 2) {
        pk_open_options o = {PK_OPEN_BY_FUNCTION | PK_OPEN_NO_TREE, threads, 0};
        const char *names[] = {"numbers.callgrind"};
        const void *bufs[] = {text};
        uint64_t sizes[] = {strlen(text)};
        pk_profile *p;
        if (pk_profile_open_memory(PK_FORMAT_CALLGRIND, 1, names, bufs, sizes, &o, &p))
            fail_msg("%u threads: %s", threads, pk_error_last());
        assert_int_equal(pk_function_count(p), n);
        pk_cg_function_cost *c = calloc(n, sizeof *c);
        assert_int_equal(pk_callgraph_function_costs(p, PK_NONE, 0, c, NULL, NULL), PK_OK);
        for (pk_index f = 0; f < n; f++) {
            pk_function fn;
            assert_int_equal(pk_function_get(p, f, &fn), PK_OK);
            size_t i = strtoul(fn.name + 1, NULL, 10);
            if (c[f].self != want[i])
                fail_msg("%u threads: %s: %.17g, not %.17g", threads, fn.name, c[f].self, want[i]);
        }
        free(c);
        pk_profile_free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parallel_reading), cmocka_unit_test(test_subpositions),
        cmocka_unit_test(test_name_lines),       cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_sample),           cmocka_unit_test(test_corpus),
        cmocka_unit_test(test_threshold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
