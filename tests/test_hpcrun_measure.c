/*
 * tests/test_hpcrun_measure.c — hpcrun measurement directories open as
 * one profile that equals what hpcprof made of them.
 *
 * The corpus pairs hpctoolkit-tests-meas/X.m with hpctoolkit-tests-dbase/
 * X.nostruct.d, which hpcprof wrote from X.m without binary structure.
 * For each of the 7 pairs:
 *   - totals: for every metric of the database and every thread (matched
 *     by identifier tuple), the inclusive (execution) value at the root of
 *     our reading equals the database's (1e-9 relative), and so does the
 *     sum of point values;
 *   - contexts: every context, named by its path of display names from the
 *     root, has the same inclusive value per thread and metric in both
 *     (contexts of equal path summed on each side);
 *   - metrics with a formula have no values (hpcprof stores none);
 *   - traces: as many samples per thread as trace.db holds.
 * Then a single .hpcrun file opens as a one-location profile; damaged
 * directories fail with an error naming the damaged file (or, with
 * PK_OPEN_KEEP_GOING, open without it, marked incomplete); and a
 * measurement written here whose loadmap names this test program resolves
 * to its functions and source lines through libdw.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "profkit/profkit.h"
#include "support/testutil.h"

static const char *const pairs[] = {"small",
                                    "loops-cputime-t",
                                    "loops-perf",
                                    "loops-hip-amd-t",
                                    "loops-cuda-nvidia-t",
                                    "loops-cuda-nvidiapc-t",
                                    "recursion-cuda-nvidiapc-t"};
enum { N_PAIRS = sizeof pairs / sizeof *pairs };

static char g_corpus[1024];

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(a) > fabs(b) ? fabs(a) : fabs(b)) + 1e-300;
}

/* Without symbols: hpcprof made the .nostruct databases without binaries
 * (and this machine's libgomp is not the one measured). */
static pk_profile *open_or_fail(const char *path)
{
    pk_profile *p = NULL;
    pk_open_options o = {PK_OPEN_NO_SYMBOLS, 0};
    if (pk_profile_open(path, &o, &p) != PK_OK) fail_msg("%s: %s", path, pk_error_last());
    return p;
}

static pk_index metric_named(const pk_profile *p, const char *name)
{
    for (size_t m = 0; m < pk_metric_count(p); m++) {
        pk_metric md;
        pk_metric_get(p, (pk_index)m, &md);
        if (strcmp(md.name, name) == 0) return (pk_index)m;
    }
    return PK_NONE;
}

static pk_index location_named(const pk_profile *p, const char *name)
{
    char buf[512];
    for (size_t l = 0; l < pk_location_count(p); l++) {
        pk_location_name(p, (pk_index)l, buf, sizeof buf);
        if (strcmp(buf, name) == 0) return (pk_index)l;
    }
    return PK_NONE;
}

static double value_of(const pk_profile *p, pk_index loc, pk_index ctx, pk_index metric,
                       pk_scope_kind kind)
{
    pk_index col;
    double v = 0;
    if (pk_column_find(p, metric, kind, &col) != PK_OK) return NAN;
    pk_value_lookup(p, loc, ctx, col, &v);
    return v;
}

/* Sum of a metric's point values over all contexts of one location. */
static double point_sum(const pk_profile *p, pk_index loc, pk_index metric)
{
    pk_index col;
    if (pk_column_find(p, metric, PK_SCOPE_POINT, &col) != PK_OK) return NAN;
    pk_cursor c;
    pk_value v;
    double s = 0;
    pk_location_values_begin(p, loc, &c);
    while (pk_cursor_next(&c, &v))
        if (v.column == col) s += v.value;
    return s;
}

/* Per-thread totals of every metric of the database, from both sides. */
static int compare_totals(const char *x, const pk_profile *db, const pk_profile *ms)
{
    int bad = 0, n = 0;
    char lname[512];
    for (size_t l = 0; l < pk_location_count(db); l++) {
        pk_location ld;
        pk_location_get(db, (pk_index)l, &ld);
        if (ld.is_summary) continue;
        pk_location_name(db, (pk_index)l, lname, sizeof lname);
        pk_index lm = location_named(ms, lname);
        if (lm == PK_NONE) {
            print_error("%s: location %s missing\n", x, lname);
            bad++;
            continue;
        }
        for (size_t m = 0; m < pk_metric_count(db); m++) {
            pk_metric md;
            pk_metric_get(db, (pk_index)m, &md);
            pk_index mm = metric_named(ms, md.name);
            double a = value_of(db, (pk_index)l, 0, (pk_index)m, PK_SCOPE_INCLUSIVE);
            double b = mm == PK_NONE ? NAN : value_of(ms, lm, 0, mm, PK_SCOPE_INCLUSIVE);
            double pa = point_sum(db, (pk_index)l, (pk_index)m), pb = point_sum(ms, lm, mm);
            n++;
            if (close_to(a, b) && close_to(pa, pb)) continue;
            print_error("%s: %s %s: inclusive root %.17g (hpcprof) vs %.17g, point sum %.17g vs "
                        "%.17g\n",
                        x, lname, md.name, a, b, pa, pb);
            bad++;
        }
    }
    print_message("%s: %d per-thread metric totals equal the database's\n", x, n - bad);
    return bad;
}

/* Modules hpcprof had symbols or structure for when it wrote the
 * database: in loops-perf and loops-cputime-t, the kernel (the
 * measurement's kernel_symbols/ file) and the vdso copy (vdso/ and
 * structs/ a .vdso.hpcstruct); the corpus copies of the measurements lack
 * the kernel_symbols/ and vdso/ directories. Their contexts differ in
 * shape (function -> instruction, call-site instructions elided), not in
 * value: contexts of these modules are skipped on both sides, so their
 * values count in their first ancestor outside them. Names are module
 * base names, those of the database's functions that have a module. */
static char g_skip[8][256];
static size_t g_n_skip;

static const char *base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void find_symbolized_modules(const pk_profile *db)
{
    g_n_skip = 0;
    for (size_t i = 0; i < pk_function_count(db); i++) {
        pk_function f;
        pk_module m;
        if (pk_function_get(db, (pk_index)i, &f) || f.module == PK_NONE ||
            pk_module_get(db, f.module, &m))
            continue;
        int seen = 0;
        for (size_t k = 0; k < g_n_skip; k++)
            seen |= strcmp(g_skip[k], base(m.path)) == 0;
        if (!seen && g_n_skip < 8) snprintf(g_skip[g_n_skip++], 256, "%s", base(m.path));
    }
}

static int skipped(const pk_profile *p, const pk_context *c)
{
    pk_index mod = c->module;
    pk_function f;
    pk_module m;
    if (c->kind == PK_CTX_FUNCTION && c->function != PK_NONE &&
        pk_function_get(p, c->function, &f) == PK_OK)
        mod = f.module;
    else if (c->kind != PK_CTX_INSTRUCTION)
        return 0;
    if (mod == PK_NONE || pk_module_get(p, mod, &m)) return 0;
    for (size_t k = 0; k < g_n_skip; k++)
        if (strcmp(g_skip[k], base(m.path)) == 0) return 1;
    return 0;
}

/* "a/b/c" path of display names of context i (into buf). */
static void path_of(const pk_profile *p, pk_index i, char *buf, size_t size)
{
    pk_context c;
    pk_context_get(p, i, &c);
    if (c.parent == PK_NONE) {
        pk_context_name(p, i, buf, size);
        return;
    }
    path_of(p, c.parent, buf, size);
    if (skipped(p, &c)) return;
    size_t n = strlen(buf);
    if (n + 2 < size) {
        buf[n] = '/';
        pk_context_name(p, i, buf + n + 1, size - n - 1);
    }
}

/* Sum of inclusive values of location loc over contexts whose path is `path`. */
static double path_value(const pk_profile *p, char **paths, const char *path, pk_index loc,
                         pk_index metric)
{
    double s = 0;
    for (size_t i = 0; i < pk_context_count(p); i++)
        if (paths[i] && strcmp(paths[i], path) == 0)
            s += value_of(p, loc, (pk_index)i, metric, PK_SCOPE_INCLUSIVE);
    return s;
}

static char **all_paths(const pk_profile *p)
{
    size_t n = pk_context_count(p);
    char **paths = calloc(n + 1, sizeof *paths);
    for (size_t i = 0; i < n; i++) {
        pk_context c;
        pk_context_get(p, (pk_index)i, &c);
        if ((c.flags & PK_CTXF_UNLISTED) || skipped(p, &c)) continue;
        paths[i] = malloc(4096);
        path_of(p, (pk_index)i, paths[i], 4096);
    }
    return paths;
}

/* Every context path: same inclusive value per thread and metric. */
static int compare_contexts(const char *x, const pk_profile *db, const pk_profile *ms)
{
    char **pd = all_paths(db), **pm = all_paths(ms);
    int bad = 0, checked = 0;
    char lname[512];
    for (size_t l = 0; l < pk_location_count(db); l++) {
        pk_location ld;
        pk_location_get(db, (pk_index)l, &ld);
        if (ld.is_summary) continue;
        pk_location_name(db, (pk_index)l, lname, sizeof lname);
        pk_index lm = location_named(ms, lname);
        for (size_t m = 0; m < pk_metric_count(db) && lm != PK_NONE; m++) {
            pk_metric md;
            pk_metric_get(db, (pk_index)m, &md);
            pk_index mm = metric_named(ms, md.name);
            for (size_t i = 0; i < pk_context_count(db) && mm != PK_NONE; i++) {
                if (!pd[i]) continue;
                double a = path_value(db, pd, pd[i], (pk_index)l, (pk_index)m);
                double b = path_value(ms, pm, pd[i], lm, mm);
                checked++;
                if (close_to(a, b)) continue;
                if (bad++ < 5)
                    print_error("%s: %s %s at %s: %.17g (hpcprof) vs %.17g\n", x, lname, md.name,
                                pd[i], a, b);
            }
        }
    }
    size_t nd = 0, nm = 0;
    for (size_t i = 0; i < pk_context_count(db); i++)
        nd += pd[i] != NULL;
    for (size_t i = 0; i < pk_context_count(ms); i++)
        nm += pm[i] != NULL;
    if (nd != nm) {
        print_error("%s: %zu contexts in the database, %zu in the measurement\n", x, nd, nm);
        bad++;
    }
    print_message("%s: %zu contexts, %d (context, thread, metric) values compared\n", x, nd,
                  checked);
    for (size_t i = 0; i < pk_context_count(db); i++)
        free(pd[i]);
    for (size_t i = 0; i < pk_context_count(ms); i++)
        free(pm[i]);
    free(pd), free(pm);
    return bad;
}

/* Measured metrics are the database's; formula metrics have no columns. */
static int compare_metrics(const char *x, const pk_profile *db, const pk_profile *ms)
{
    int bad = 0;
    for (size_t m = 0; m < pk_metric_count(ms); m++) {
        pk_metric md;
        pk_index col;
        pk_metric_get(ms, (pk_index)m, &md);
        int has_formula =
            pk_attribute_find(ms, PK_ENTITY_METRIC, (pk_index)m, "hpcrun:formula") != NULL;
        int has_cols = pk_column_find(ms, (pk_index)m, PK_SCOPE_POINT, &col) == PK_OK;
        int in_db = metric_named(db, md.name) != PK_NONE;
        if (has_formula == has_cols || in_db == has_formula) {
            print_error("%s: metric %s: formula %d, columns %d, in the database %d\n", x, md.name,
                        has_formula, has_cols, in_db);
            bad++;
        }
    }
    return bad;
}

/* Trace samples per thread: trace.db keeps every record of the .hpctrace. */
static int compare_traces(const char *x, const pk_profile *db, const pk_profile *ms)
{
    int bad = 0;
    char lname[512];
    for (size_t t = 0; t < pk_trace_count(db); t++) {
        pk_trace td, tm;
        pk_trace_get(db, (pk_index)t, &td);
        pk_location_name(db, td.location, lname, sizeof lname);
        pk_index lm = location_named(ms, lname);
        pk_location l;
        if (lm == PK_NONE || pk_location_get(ms, lm, &l) || l.trace == PK_NONE) {
            print_error("%s: %s: no trace\n", x, lname);
            bad++;
            continue;
        }
        pk_trace_get(ms, l.trace, &tm);
        if (tm.n_samples != td.n_samples || tm.time_begin != td.time_begin ||
            tm.time_end != td.time_end) {
            print_error("%s: %s: %llu samples %llu..%llu (hpcprof) vs %llu %llu..%llu\n", x, lname,
                        (unsigned long long)td.n_samples, (unsigned long long)td.time_begin,
                        (unsigned long long)td.time_end, (unsigned long long)tm.n_samples,
                        (unsigned long long)tm.time_begin, (unsigned long long)tm.time_end);
            bad++;
        }
    }
    return bad;
}

static void test_pairs(void **state)
{
    (void)state;
    int bad = 0;
    for (size_t i = 0; i < N_PAIRS; i++) {
        char m[2048], d[2048];
        snprintf(m, sizeof m, "%s/hpctoolkit/hpctoolkit-tests-meas/%s.m", g_corpus, pairs[i]);
        snprintf(d, sizeof d, "%s/hpctoolkit/hpctoolkit-tests-dbase/%s.nostruct.d", g_corpus,
                 pairs[i]);
        pk_profile *ms = open_or_fail(m), *db = open_or_fail(d);
        find_symbolized_modules(db);
        bad += compare_totals(pairs[i], db, ms);
        bad += compare_contexts(pairs[i], db, ms);
        bad += compare_metrics(pairs[i], db, ms);
        bad += compare_traces(pairs[i], db, ms);
        tu_exercise(ms, 1);
        pk_profile_free(ms);
        pk_profile_free(db);
    }
    assert_int_equal(bad, 0);
}

/* ---- a single file; damaged directories ---------------------------- */

static void test_single_file(void **state)
{
    (void)state;
    char f[2048];
    snprintf(f, sizeof f,
             "%s/hpctoolkit/hpctoolkit-tests-meas/small.m/"
             "testmeas-small-000000-000-11ac0300-5560-0.hpcrun",
             g_corpus);
    pk_profile *p = open_or_fail(f);
    pk_profile_info info;
    pk_profile_get_info(p, &info);
    assert_int_equal(info.format, PK_FORMAT_HPCRUN);
    assert_int_equal(pk_location_count(p), 2); /* summary + the thread */
    assert_int_equal(pk_trace_count(p), 1);    /* the .hpctrace beside it */
    double total;
    assert_int_equal(pk_metric_program_total(p, 0, &total), PK_OK);
    assert_true(close_to(total, 1.210259));
    pk_profile_free(p);
}

/* Copy corpus directory `name` into a fresh temporary directory. */
static void copy_meas(const char *name, char *dir, size_t size)
{
    char cmd[4096];
    snprintf(dir, size, "/tmp/pk-meas-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd,
             "cp %s/hpctoolkit/hpctoolkit-tests-meas/%s/*.hpc* %s/ && chmod u+w %s/*", g_corpus,
             name, dir, dir);
    assert_int_equal(system(cmd), 0);
}

/* Cut `file` (in dir) to `keep` bytes, or flip the byte at -keep. */
static void damage(const char *dir, const char *file, long keep)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    size_t n;
    unsigned char *d = tu_read_file(path, &n);
    assert_non_null(d);
    FILE *out = fopen(path, "wb");
    assert_non_null(out);
    if (keep >= 0) {
        fwrite(d, 1, (size_t)keep < n ? (size_t)keep : n, out);
    } else {
        d[(size_t)-keep] ^= 0xff;
        fwrite(d, 1, n, out);
    }
    fclose(out);
    free(d);
}

static void expect_error_naming(const char *dir, const char *file)
{
    pk_profile *p = NULL;
    pk_open_options o = {PK_OPEN_NO_SYMBOLS, 0};
    pk_status st = pk_profile_open(dir, &o, &p);
    assert_int_equal(st, PK_ERR_FORMAT);
    if (!strstr(pk_error_last(), file))
        fail_msg("error does not name %s: %s", file, pk_error_last());
    print_message("  %s\n", pk_error_last());
}

#define LOOPS "testmeas-loops-000000-001-11ac0300-4974-0"

static void test_damaged(void **state)
{
    (void)state;
    char dir[64];
    static const long cuts[] = {0, 30, 1000, 3000, 9000};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        copy_meas("loops-cputime-t.m", dir, sizeof dir);
        damage(dir, LOOPS ".hpcrun", cuts[i]);
        expect_error_naming(dir, LOOPS ".hpcrun");
        tu_remove_tree(dir);
    }
    /* a CCT node whose parent id names no node: byte 4 of the 2nd node */
    copy_meas("small.m", dir, sizeof dir);
    damage(dir, "testmeas-small-000000-000-11ac0300-5560-0.hpcrun", -(3072 + 8 + 19 + 4 + 3));
    expect_error_naming(dir, "testmeas-small-000000-000-11ac0300-5560-0.hpcrun");
    tu_remove_tree(dir);
    /* a node naming a load module the loadmap lacks (lm-id 1 -> 254) */
    copy_meas("small.m", dir, sizeof dir);
    damage(dir, "testmeas-small-000000-000-11ac0300-5560-0.hpcrun", -(3072 + 8 + 3 * 19 + 9));
    expect_error_naming(dir, "testmeas-small-000000-000-11ac0300-5560-0.hpcrun");
    if (!strstr(pk_error_last(), "load module id 254")) fail_msg("%s", pk_error_last());
    tu_remove_tree(dir);
    /* a trace cut inside a record */
    copy_meas("loops-cputime-t.m", dir, sizeof dir);
    damage(dir, LOOPS ".hpctrace", 32 + 12 * 5 + 7);
    expect_error_naming(dir, LOOPS ".hpctrace");
    /* ... which PK_OPEN_KEEP_GOING leaves out, with the cut profile too */
    damage(dir, "testmeas-loops-000000-002-11ac0300-4974-0.hpcrun", 500);
    pk_profile *p = NULL;
    pk_open_options o = {PK_OPEN_KEEP_GOING | PK_OPEN_NO_SYMBOLS, 0};
    assert_int_equal(pk_profile_open(dir, &o, &p), PK_OK);
    pk_profile_info info;
    pk_profile_get_info(p, &info);
    assert_int_equal(info.complete, 0);
    assert_int_equal(pk_location_count(p), 1 + 3);
    assert_int_equal(pk_trace_count(p), 2);
    assert_int_equal(tu_count_diagnostics(p, "damaged-file", PK_SEV_ERROR), 2);
    tu_exercise(p, 1);
    pk_profile_free(p);
    tu_remove_tree(dir);
}

int main(void)
{
    const char *c = tu_corpus_dir();
    if (!c) return TEST_SKIP;
    snprintf(g_corpus, sizeof g_corpus, "%s", c);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs),
        cmocka_unit_test(test_single_file),
        cmocka_unit_test(test_damaged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
