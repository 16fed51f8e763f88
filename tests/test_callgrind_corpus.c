/*
 * tests/test_callgrind_corpus.c — the Callgrind reader and writer on every
 * file of ../shared/corpus/callgrind:
 *   - per-event program totals equal callgrind_annotate's PROGRAM TOTALS
 *     in REFERENCE.txt (its definition: the first summary:, else totals:,
 *     else the sum of costs), except where REFERENCE.txt lists a bug of
 *     that tool; there the correct value is checked (see `fixed_totals`);
 *   - the sum of self costs equals an independent naive count of the
 *     file's cost lines (the line after calls= skipped);
 *   - the top-5 functions by exclusive cost, grouped as callgrind_annotate
 *     groups them ("file:function", file = fi/fe file), equal REFERENCE;
 *   - read -> write -> read gives the same call graph, and
 *     callgrind_annotate (when installed) reads the written file with the
 *     same totals.
 */
#define _DEFAULT_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "profkit/profkit.h"
#include "support/cg_compare.h"
#include "support/testutil.h"

#define MAX_EV 16

typedef struct ref_entry {
    char path[256];
    int n_totals;
    double totals[MAX_EV];
    int n_top;
    double top_value[5];
    char top_name[5][4096];
} ref_entry;

static ref_entry refs[64];
static int n_refs;

/* "56,182,031 (100.0%) 9,148 (100.0%)  PROGRAM TOTALS" -> numbers. */
static int parse_values(const char *s, double *out, int max)
{
    int n = 0;
    while (*s && n < max) {
        while (*s == ' ')
            s++;
        if (*s == '.') {
            out[n++] = 0, s++;
            continue;
        }
        if (!(*s == '-' || (*s >= '0' && *s <= '9'))) break;
        char num[64];
        int k = 0;
        for (; *s && *s != ' ' && k < 63; s++)
            if (*s != ',') num[k++] = *s;
        num[k] = 0;
        out[n++] = strtod(num, NULL);
        while (*s == ' ')
            s++;
        if (*s == '(') s = strchr(s, ')') ? strchr(s, ')') + 1 : s + strlen(s);
    }
    return n;
}

static void load_reference(const char *file)
{
    FILE *f = fopen(file, "r");
    assert_non_null(f);
    char line[8192];
    ref_entry *r = NULL;
    int in_top = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (strncmp(line, "=== ", 4) == 0) {
            r = &refs[n_refs++];
            memset(r, 0, sizeof *r);
            snprintf(r->path, sizeof r->path, "%.200s", line + 4);
            in_top = 0;
        } else if (r && strstr(line, "PROGRAM TOTALS") && !strstr(line, "line (")) {
            r->n_totals = parse_values(line, r->totals, MAX_EV);
        } else if (r && strncmp(line, "top-5", 5) == 0) {
            in_top = 1;
        } else if (r && in_top && r->n_top < 5 && strstr(line, "%)  ")) {
            double v;
            if (parse_values(line, &v, 1) != 1) continue;
            const char *name = strstr(line, "%)  ") + 4;
            r->top_value[r->n_top] = v;
            snprintf(r->top_name[r->n_top], sizeof r->top_name[0], "%s", name);
            char *obj = strstr(r->top_name[r->n_top], " [/");
            if (obj) *obj = 0;
            r->n_top++;
        }
    }
    fclose(f);
}

/* Known bugs of the reference tool (REFERENCE.txt): the correct value of
 * the first event, from the facts REFERENCE.txt states or (marked) from
 * the file by the naive count below. NAN: checked by the naive count. */
static const struct {
    const char *path;
    double first;
} fixed_totals[] = {
    /* 3 parts; callgrind_annotate shows the last part's summary */
    {"generated/mt_O0-cachesim-combined.callgrind.out", 29328575},
    /* calls=0 lines are call arcs, not self cost */
    {"pprof/pprof.cpu.callgrind", 1120},
    {"pprof/pprof.cpu.call_tree.callgrind", 0.0 / 0.0},
    {"pprof/pprof.heap.callgrind", 0.0 / 0.0},
    /* callgrind_annotate dies on it ("Unexpected fi/fe line") */
    {"gprof2dot/bzr.callgrind", 0.0 / 0.0},
    /* relative costs read as speedscope means them: the same profile as
     * callgrind.example.log */
    {"speedscope/callgrind.subposition-compression.log", 820},
};

static int fixed_index(const char *path)
{
    for (size_t i = 0; i < sizeof fixed_totals / sizeof *fixed_totals; i++)
        if (strcmp(path, fixed_totals[i].path) == 0) return (int)i;
    return -1;
}

/* An independent count: the first cost column of every cost line that
 * does not follow calls= (plain files with absolute costs only). */
static double naive_first_cost(const char *file)
{
    FILE *f = fopen(file, "r");
    assert_non_null(f);
    static char line[1 << 16];
    int n_pos = 1, skip = 0;
    double sum = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "positions:", 10) == 0) {
            n_pos = 0;
            for (char *t = strtok(line + 10, " \t\r\n"); t; t = strtok(NULL, " \t\r\n"))
                n_pos++;
            continue;
        }
        if (strncmp(line, "calls=", 6) == 0) {
            skip = 1;
            continue;
        }
        if (!strchr("0123456789+-*", line[0])) continue;
        if (skip) {
            skip = 0;
            continue;
        }
        char *t = strtok(line, " \t\r\n");
        for (int i = 0; t && i < n_pos; i++)
            t = strtok(NULL, " \t\r\n");
        if (t) sum += strtod(t, NULL);
    }
    fclose(f);
    return sum;
}

/* callgrind_annotate's PROGRAM TOTALS: the first summary:, else totals:,
 * else the sum of the cost lines; per event. */
static void annotate_totals(const pk_profile *p, double *out, size_t ne)
{
    pk_cg_part part;
    assert_int_equal(pk_callgraph_part(p, 0, &part), PK_OK);
    const double *stated = part.summary;
    int nonzero = 0;
    for (size_t e = 0; stated && e < ne; e++)
        nonzero |= stated[e] != 0;
    if (!nonzero) stated = part.totals;
    pk_cg_summary s;
    pk_callgraph_summary(p, &s);
    memset(out, 0, ne * sizeof *out);
    if (stated) {
        memcpy(out, stated, ne * sizeof *out);
        return;
    }
    for (uint64_t i = 0; i < s.n_costs; i++) {
        pk_cg_cost c;
        pk_callgraph_cost(p, i, &c);
        for (size_t e = 0; e < ne; e++)
            out[e] += pk_cg_value(c.values, c.n_values, c.events, e);
    }
}

static int close_to(double a, double b)
{
    return a == b || (a - b) * (a - b) <= 1e-18 * b * b + 1e-12;
}

static double cost_sum(const pk_profile *p, size_t event)
{
    pk_cg_summary s;
    pk_callgraph_summary(p, &s);
    double t = 0;
    for (uint64_t i = 0; i < s.n_costs; i++) {
        pk_cg_cost c;
        pk_callgraph_cost(p, i, &c);
        t += pk_cg_value(c.values, c.n_values, c.events, event);
    }
    return t;
}

typedef struct group {
    char name[4096];
    double v;
} group;

static int by_v(const void *a, const void *b)
{
    const group *x = a, *y = b;
    return x->v > y->v ? -1 : x->v < y->v;
}

static void check_top5(const pk_profile *p, const ref_entry *r)
{
    pk_cg_summary s;
    pk_callgraph_summary(p, &s);
    group *g = calloc(s.n_costs + 1, sizeof *g);
    size_t n = 0;
    for (uint64_t i = 0; i < s.n_costs; i++) {
        pk_cg_cost c;
        pk_function fn;
        pk_file fi;
        pk_callgraph_cost(p, i, &c);
        pk_function_get(p, c.function, &fn);
        char key[4096];
        snprintf(key, sizeof key, "%s:%s",
                 c.pos.file != PK_NONE && !pk_file_get(p, c.pos.file, &fi) ? fi.path : "???",
                 fn.name);
        size_t k = 0;
        while (k < n && strcmp(g[k].name, key))
            k++;
        if (k == n) snprintf(g[n++].name, sizeof g[0].name, "%s", key);
        g[k].v += pk_cg_value(c.values, c.n_values, c.events, 0);
    }
    qsort(g, n, sizeof *g, by_v);
    for (int i = 0; i < r->n_top; i++) {
        assert_true((size_t)i < n);
        if (g[i].v != r->top_value[i])
            fail_msg("%s: top %d is %.17g (%s), reference %.17g (%s)", r->path, i + 1, g[i].v,
                     g[i].name, r->top_value[i], r->top_name[i]);
        int unique = 1;
        for (int j = 0; j < r->n_top; j++)
            unique &= j == i || r->top_value[j] != r->top_value[i];
        if (unique && strcmp(g[i].name, r->top_name[i]))
            fail_msg("%s: top %d is '%s', reference '%s'", r->path, i + 1, g[i].name,
                     r->top_name[i]);
    }
    free(g);
}

/* callgrind_annotate's PROGRAM TOTALS of a file we wrote. */
static int annotate_file(const char *file, double *out)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "callgrind_annotate --auto=no '%s' 2>/dev/null", file);
    FILE *f = popen(cmd, "r");
    if (!f) return -1;
    char line[8192];
    int n = -1;
    while (fgets(line, sizeof line, f))
        if (strstr(line, "PROGRAM TOTALS")) n = parse_values(line, out, MAX_EV);
    pclose(f);
    return n;
}

static void fail_differs(const char *path, const char *a, const char *b, const char *what)
{
    FILE *da = fopen("/tmp/pk-cg-a.txt", "w"), *db = fopen("/tmp/pk-cg-b.txt", "w");
    if (da) fputs(a, da), fclose(da);
    if (db) fputs(b, db), fclose(db);
    size_t i = 0;
    while (a[i] && a[i] == b[i])
        i++;
    fail_msg("%s: %s differs after write+read near '%.120s' vs '%.120s'", path, what,
             a + (i > 60 ? i - 60 : 0), b + (i > 60 ? i - 60 : 0));
}

/* Written with --split (one file per part, read back by the base name):
 * the same call graph, part by part. */
static void check_split_roundtrip(const pk_profile *p, const char *path)
{
    char dir[64] = "/tmp/pk-cg-split-XXXXXX", out[128];
    assert_non_null(mkdtemp(dir));
    snprintf(out, sizeof out, "%s/rt.callgrind", dir);
    pk_write_options o = {PK_WRITE_FORCE | PK_WRITE_SPLIT, NULL, NULL};
    assert_int_equal(pk_profile_write(p, PK_FORMAT_CALLGRIND, out, &o, NULL), PK_OK);
    pk_profile *q;
    if (pk_profile_open(out, NULL, &q))
        fail_msg("%s: split files unreadable: %s", path, pk_error_last());
    char *a = tu_cg_canonical(p), *b = tu_cg_canonical(q);
    if (strcmp(a, b)) fail_differs(path, a, b, "call graph (split)");
    free(a), free(b);
    pk_profile_free(q);
    tu_remove_tree(dir);
}

/* Written by default (one part holding the sum of all parts): the summed
 * call graph, and callgrind_annotate's totals equal to its costs. */
static void check_roundtrip(const pk_profile *p, const char *path, int n_parts)
{
    char out[512];
    snprintf(out, sizeof out, "%s/pk-cg-rt-%ld.callgrind", P_tmpdir, (long)getpid());
    pk_write_options o = {PK_WRITE_FORCE, NULL, NULL};
    assert_int_equal(pk_profile_write(p, PK_FORMAT_CALLGRIND, out, &o, NULL), PK_OK);
    pk_profile *q;
    if (pk_profile_open(out, NULL, &q))
        fail_msg("%s: written file unreadable: %s", path, pk_error_last());
    char *a = n_parts > 1 ? tu_cg_canonical_summed(p) : tu_cg_canonical(p);
    char *b = n_parts > 1 ? tu_cg_canonical_summed(q) : tu_cg_canonical(q);
    if (strcmp(a, b)) fail_differs(path, a, b, "call graph");
    double ann[MAX_EV];
    pk_cg_summary s;
    pk_callgraph_summary(q, &s);
    assert_int_equal(s.n_parts, 1);
    if (access("/usr/bin/callgrind_annotate", X_OK) == 0) {
        int n = annotate_file(out, ann);
        assert_true(n >= 1);
        for (int e = 0; e < n && (size_t)e < s.n_events; e++) { /* the totals as stated */
            pk_cg_event ev;
            double want = cost_sum(q, (size_t)e);
            if (pk_callgraph_event(q, (size_t)e, &ev) == PK_OK && ev.metric != PK_NONE)
                pk_metric_program_total(q, ev.metric, &want);
            if (ann[e] != want)
                fail_msg(
                    "%s: callgrind_annotate says %.17g for event %d of the written file, we %.17g",
                    path, ann[e], e, want);
        }
    }
    free(a), free(b);
    pk_profile_free(q);
    unlink(out);
    if (n_parts > 1) check_split_roundtrip(p, path);
}

static void check_file(const char *root, const ref_entry *r)
{
    char path[1024];
    snprintf(path, sizeof path, "%.700s/%.250s", root, r->path);
    pk_profile *p;
    if (pk_profile_open(path, NULL, &p)) fail_msg("%s: %s", r->path, pk_error_last());
    pk_profile_info info;
    pk_profile_get_info(p, &info);
    assert_int_equal(info.format, PK_FORMAT_CALLGRIND);
    assert_true(info.reconstructed);
    pk_cg_summary s;
    assert_int_equal(pk_callgraph_summary(p, &s), PK_OK);
    double ours[MAX_EV];
    size_t ne = s.n_events < MAX_EV ? s.n_events : MAX_EV;
    annotate_totals(p, ours, ne);
    int fx = fixed_index(r->path);
    if (fx < 0) {
        assert_int_equal((size_t)r->n_totals, ne);
        for (size_t e = 0; e < ne; e++)
            if (ours[e] != r->totals[e])
                fail_msg("%s: event %zu total %.17g, reference %.17g", r->path, e, ours[e],
                         r->totals[e]);
    } else if (fixed_totals[fx].first == fixed_totals[fx].first) {
        if (cost_sum(p, 0) != fixed_totals[fx].first)
            fail_msg("%s: total %.17g, correct value %.17g", r->path, cost_sum(p, 0),
                     fixed_totals[fx].first);
    }
    /* The program total is what the file states, as callgrind_annotate
     * reports it (issue 31: its PROGRAM TOTALS of a one-part file), the
     * cost lines' sum beside it; the reconstructed tree keeps every cost:
     * its root's inclusive value is that sum. */
    double program, stated, lines, *incl = malloc((pk_context_count(p) + 1) * sizeof *incl);
    size_t ev0;
    if (pk_metric_count(p) && pk_metric_program_total(p, 0, &program) == PK_OK &&
        pk_callgraph_metric_event(p, 0, &ev0) == PK_OK) {
        double sum = cost_sum(p, ev0);
        if (pk_metric_stated_total(p, 0, &stated, &lines) == PK_OK) {
            assert_true(program == stated);
            assert_true(close_to(lines, sum));
            if (fx < 0 && s.n_parts == 1 && program != r->totals[ev0])
                fail_msg("%s: program total %.17g, callgrind_annotate's %.17g", r->path, program,
                         r->totals[ev0]);
        } else {
            assert_true(close_to(program, sum));
        }
        assert_int_equal(
            pk_context_scope_values(p, 0, PK_SCOPE_INCLUSIVE, incl, pk_context_count(p), NULL),
            PK_OK);
        if (!close_to(incl[0], sum))
            fail_msg("%s: the tree's root holds %.17g, the cost lines %.17g", r->path, incl[0],
                     sum);
    }
    free(incl);
    if (fx < 0 || !strstr(r->path, "subposition")) {
        double naive = naive_first_cost(path);
        if (!strstr(r->path, "subposition") && naive != cost_sum(p, 0))
            fail_msg("%s: cost lines sum to %.17g by a naive count, we read %.17g", r->path, naive,
                     cost_sum(p, 0));
    }
    if (fx < 0) check_top5(p, r);
    check_roundtrip(p, r->path, (int)s.n_parts);
    pk_profile_free(p);
}

static void callgrind_corpus(void **state)
{
    (void)state;
    const char *corpus = tu_corpus_dir();
    char root[1024], ref[1100];
    snprintf(root, sizeof root, "%.900s/callgrind", corpus ? corpus : "");
    snprintf(ref, sizeof ref, "%.1000s/REFERENCE.txt", root);
    if (!corpus || access(ref, R_OK) != 0) {
        printf("SKIP: the Callgrind corpus (%s) is absent\n", ref);
        exit(77);
    }
    load_reference(ref);
    assert_true(n_refs >= 30);
    for (int i = 0; i < n_refs; i++)
        check_file(root, &refs[i]);
}

/* The 4 per-thread files of one run open as one profile by their base name. */
static void callgrind_run_base_name(void **state)
{
    (void)state;
    const char *corpus = tu_corpus_dir();
    char base[1024];
    snprintf(base, sizeof base, "%.900s/callgrind/generated/mt-threads.callgrind.out.3938",
             corpus ? corpus : "");
    if (!corpus) return;
    pk_profile *p;
    if (pk_profile_open(base, NULL, &p)) fail_msg("%s", pk_error_last());
    pk_cg_summary s;
    pk_callgraph_summary(p, &s);
    assert_int_equal(s.n_parts, 4);
    assert_true(cost_sum(p, 0) == 33486897); /* REFERENCE.txt: whole-program Ir */
    pk_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(callgrind_corpus),
        cmocka_unit_test(callgrind_run_base_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
