/*
 * tests/test_derive.c — pk_profile_derive() reproduces hpcprof's numbers.
 *
 * 1. A hand-made database with nested loops, an inlined call and two
 *    threads, whose every propagated value and summary statistic was
 *    worked out by hand from the rules in docs/derive.md (including the
 *    loop asymmetry of lex_aware between threads and the summary).
 * 2. Every corpus v4 database: recompute all scopes and summaries from the
 *    point values alone and compare with what hpcprof stored, 1e-12
 *    relative. Every difference must have a proven cause:
 *      - databases without point values on unlisted contexts must match
 *        exactly (all .nostruct databases but two do);
 *      - hpcprof leaves instruction contexts out of meta.db ("unlisted")
 *        after propagating their point values into their ancestors; we
 *        cannot know where they hung, so their mass is missing above
 *        them. Proven per location and metric: at the root, stored minus
 *        derived execution equals exactly the unlisted point mass U, and
 *        at every other context the difference lies in [0, U]. Summary
 *        Sum statistics: the same with U summed over locations; the other
 *        statistics (count, sum of squares, min, max) may differ only
 *        where the metric has unlisted mass at all;
 *      - the unlisted contexts themselves (their stored propagated values
 *        include subtrees hpcprof re-parented).
 *    A per-database line says how many values matched and why the others
 *    did not.
 */
#define _POSIX_C_SOURCE 200809L

#include "support/pk_cmocka.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures/v4_builder.h"
#include "support/testutil.h"

static double value(const pk_profile *p, pk_index l, pk_index c, pk_index col)
{
    double v = 0;
    pk_value_lookup(p, l, c, col, &v);
    return v;
}

static pk_index ctx_of(const pk_profile *p, uint64_t id)
{
    pk_index i = PK_NONE;
    assert_int_equal(pk_context_find(p, id, &i), PK_OK);
    return i;
}

static pk_index column(const pk_profile *p, const char *scope, int summary, const char *formula,
                       pk_combine combine)
{
    for (pk_index c = 0; c < pk_column_count(p); c++) {
        pk_column col;
        pk_scope s;
        pk_column_get(p, c, &col);
        pk_scope_get(p, col.scope, &s);
        if (strcmp(s.name, scope) || col.is_summary != summary) continue;
        if (!summary || (!strcmp(col.formula, formula) && col.combine == combine)) return c;
    }
    fail_msg("no column %s", scope);
    return PK_NONE;
}

/* main -> loop A -> {line 4, loop B -> line 6 -> [inlined] dot -> line 8},
 * main -> line 9 -> call worker -> line 11; two threads. */
static const fx_function fns[] = {
    {"main", -1, 0, -1, 0}, {"dot", -1, 0, -1, 0}, {"worker", -1, 0, -1, 0}};
static const char *const files[] = {"/src/a.c"};
static const fx_context ctxs[] = {
    {1, -1, 0, 0, -1, -1, 0, -1, 0, 1, "main thread", 0},
    {2, 0, 1, 0, 0, -1, 0, -1, 0, 0, NULL, 0},  /* call main */
    {3, 1, 0, 1, -1, 0, 10, -1, 0, 0, NULL, 0}, /* loop A */
    {4, 2, 0, 2, -1, 0, 11, -1, 0, 0, NULL, 0}, /* line in A */
    {5, 2, 0, 1, -1, 0, 12, -1, 0, 0, NULL, 0}, /* loop B in A */
    {6, 4, 0, 2, -1, 0, 13, -1, 0, 0, NULL, 0}, /* line in B */
    {7, 5, 2, 0, 1, -1, 0, -1, 0, 0, NULL, 0},  /* inlined dot */
    {8, 6, 0, 2, -1, 0, 40, -1, 0, 0, NULL, 0}, /* line in dot */
    {9, 1, 0, 2, -1, 0, 20, -1, 0, 0, NULL, 0}, /* call-site line in main */
    {10, 8, 1, 0, 2, -1, 0, -1, 0, 0, NULL, 0}, /* call worker */
    {11, 9, 0, 2, -1, 0, 50, -1, 0, 0, NULL, 0},
};
static const char *const metric_names[] = {"time"};
static const fx_value points[] = {{0, 4, 0, 1},   {0, 6, 0, 2}, {0, 8, 0, 8},
                                  {0, 11, 0, 16}, {1, 6, 0, 4}, {1, 11, 0, 32}};

typedef struct expect {
    uint64_t id;
    double exec0, func0, exec1, func1;     /* threads 0 and 1 */
    double s_point, s_exec, s_func, s_lex; /* summary Sum */
} expect;

static const expect want[] = {
    {0, 27, 0, 36, 0, 0, 63, 0, 0},      {1, 27, 0, 36, 0, 0, 63, 0, 0},
    {2, 27, 3, 36, 4, 0, 63, 7, 7},      {3, 11, 3, 4, 4, 0, 15, 7, 1}, /* loop A: lex_aware 1 */
    {4, 1, 1, 0, 0, 1, 1, 1, 1},         {5, 10, 2, 4, 4, 0, 14, 6, 6}, /* loop B */
    {6, 10, 2, 4, 4, 6, 14, 6, 6},       {7, 8, 8, 0, 0, 0, 8, 8, 8},
    {8, 8, 8, 0, 0, 8, 8, 8, 8},         {9, 16, 0, 32, 0, 0, 48, 0, 0},
    {10, 16, 16, 32, 32, 0, 48, 48, 48}, {11, 16, 16, 32, 32, 48, 48, 48, 48},
};

static void hand_computed_values(void **state)
{
    (void)state;
    fx_db db = {.title = "derive",
                .files = files,
                .n_files = 1,
                .functions = fns,
                .n_functions = 3,
                .contexts = ctxs,
                .n_contexts = 11,
                .metrics = metric_names,
                .n_metrics = 1,
                .n_threads = 2,
                .values = points,
                .n_values = 6};
    char dir[64];
    pk_profile *p = tu_open_fixture(&db, dir);
    pk_derive_report rep;
    assert_int_equal(pk_profile_derive(p, NULL, &rep), PK_OK);
    assert_true(rep.n_metrics >= 1);
    pk_index ex = column(p, "execution", 0, 0, 0), fn = column(p, "function", 0, 0, 0);
    pk_index lx = column(p, "lex_aware", 0, 0, 0);
    pk_index s_pt = column(p, "point", 1, "$$", PK_COMBINE_SUM);
    pk_index s_ex = column(p, "execution", 1, "$$", PK_COMBINE_SUM);
    pk_index s_fn = column(p, "function", 1, "$$", PK_COMBINE_SUM);
    pk_index s_lx = column(p, "lex_aware", 1, "$$", PK_COMBINE_SUM);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const expect *e = &want[i];
        pk_index c = ctx_of(p, e->id);
        assert_true(value(p, 1, c, ex) == e->exec0 && value(p, 2, c, ex) == e->exec1);
        assert_true(value(p, 1, c, fn) == e->func0 && value(p, 2, c, fn) == e->func1);
        assert_true(value(p, 1, c, lx) == e->func0 && value(p, 2, c, lx) == e->func1);
        if (value(p, 0, c, s_pt) != e->s_point || value(p, 0, c, s_ex) != e->s_exec ||
            value(p, 0, c, s_fn) != e->s_func || value(p, 0, c, s_lx) != e->s_lex)
            fail_msg("context %llu: summary %g %g %g %g, want %g %g %g %g",
                     (unsigned long long)e->id, value(p, 0, c, s_pt), value(p, 0, c, s_ex),
                     value(p, 0, c, s_fn), value(p, 0, c, s_lx), e->s_point, e->s_exec, e->s_func,
                     e->s_lex);
    }
    size_t problems = 1; /* cct.db is dropped and rebuilt from the new values */
    pk_profile_verify(p, NULL, NULL, &problems);
    assert_int_equal(problems, 0);
    tu_close_fixture(p, dir);
}

/* ---- corpus ---- */

typedef struct tally {
    uint64_t same, unlisted_self, missing_mass, stat_with_mass;
} tally;

/* Unlisted point mass per (location, metric): the sum of the point values
 * stored at contexts without a place in the tree. */
static double *unlisted_mass(const pk_profile *p)
{
    size_t nl = pk_location_count(p), nm = pk_metric_count(p);
    double *u = calloc(nl * nm + 1, sizeof *u);
    assert_non_null(u);
    for (pk_index l = 0; l < nl; l++) {
        pk_location loc;
        pk_location_get(p, l, &loc);
        pk_cursor c;
        pk_value v;
        pk_location_values_begin(p, l, &c);
        while (pk_cursor_next(&c, &v)) {
            pk_context cx;
            pk_column col;
            pk_scope s;
            if (v.context == PK_NONE || v.column == PK_NONE) continue;
            pk_context_get(p, v.context, &cx);
            pk_column_get(p, v.column, &col);
            pk_scope_get(p, col.scope, &s);
            if ((cx.flags & PK_CTXF_UNLISTED) && s.kind == PK_SCOPE_POINT &&
                (!col.is_summary || col.stat == PK_STAT_SUM))
                u[l * nm + col.metric] += v.value;
        }
    }
    return u;
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b));
}

/* Why stored value a and derived value b of (l, ctx, col) differ. */
static void classify(const pk_profile *p, pk_index l, pk_index ctx, pk_index col, double a,
                     double b, const double *u, tally *t, const char *db)
{
    pk_context cx;
    pk_column c;
    pk_scope s;
    pk_context_get(p, ctx, &cx);
    pk_column_get(p, col, &c);
    pk_scope_get(p, c.scope, &s);
    double mass = u[l * pk_metric_count(p) + c.metric];
    if (cx.flags & PK_CTXF_UNLISTED) {
        t->unlisted_self++;
    } else if (mass > 0 && s.kind != PK_SCOPE_POINT && (!c.is_summary || c.stat == PK_STAT_SUM)) {
        if (!(a - b > 0 && a - b <= mass * (1 + 1e-9)))
            fail_msg("%s: location %u context %llu column %u: stored %.17g - derived %.17g is "
                     "outside (0, unlisted mass %.17g]",
                     db, l, (unsigned long long)cx.id, col, a, b, mass);
        if (ctx == 0 && s.kind == PK_SCOPE_INCLUSIVE && fabs(a - b - mass) > 1e-9 * fabs(a))
            fail_msg("%s: location %u: root misses %.17g, unlisted mass is %.17g", db, l, a - b,
                     mass);
        t->missing_mass++;
    } else if (mass > 0 && c.is_summary && c.stat != PK_STAT_SUM) {
        t->stat_with_mass++;
    } else {
        fail_msg("%s: location %u context %llu column %u (%s%s): stored %.17g, derived %.17g, "
                 "no unlisted mass explains it",
                 db, l, (unsigned long long)cx.id, col, s.name, c.is_summary ? " summary" : "", a,
                 b);
    }
}

static void compare_database(const char *db, int threads)
{
    pk_profile *a = NULL, *b = NULL;
    if (pk_profile_open(db, NULL, &a) != PK_OK) return; /* not a v4 database */
    assert_int_equal(pk_profile_open(db, NULL, &b), PK_OK);
    pk_derive_options o = {0, (unsigned)threads};
    if (pk_profile_derive(b, &o, NULL) != PK_OK) fail_msg("%s: %s", db, pk_error_last());
    double *u = unlisted_mass(a);
    tally t = {0};
    size_t nl = pk_location_count(a), nc = pk_column_count(a), nx = pk_context_count(a);
    for (pk_index l = 0; l < nl; l++)
        for (pk_index c = 0; c < nx; c++)
            for (pk_index col = 0; col < nc; col++) {
                double x = value(a, l, c, col), y = value(b, l, c, col);
                if (x == 0 && y == 0) continue;
                if (near(x, y))
                    t.same++;
                else
                    classify(a, l, c, col, x, y, u, &t, db);
            }
    if (threads == 1)
        printf("%s: %llu values equal; differ: %llu at unlisted contexts, %llu by their missing "
               "mass, %llu statistics over it\n",
               db + strlen(tu_corpus_dir()) + 1, (unsigned long long)t.same,
               (unsigned long long)t.unlisted_self, (unsigned long long)t.missing_mass,
               (unsigned long long)t.stat_with_mass);
    free(u);
    pk_profile_free(a);
    pk_profile_free(b);
}

static void corpus_databases(void **state)
{
    (void)state;
    char **dbs;
    size_t n = tu_corpus_databases(&dbs);
    if (!dbs) skip();
    for (size_t i = 0; i < n; i++) {
        compare_database(dbs[i], 1);
        compare_database(dbs[i], 3); /* the same with parallel workers */
    }
    tu_free_list(dbs, n);
}

/* Every value of every location, summary included, bit for bit. */
static void same_bits(const pk_profile *a, const pk_profile *b, const char *db)
{
    assert_int_equal(pk_location_count(a), pk_location_count(b));
    for (pk_index l = 0; l < pk_location_count(a); l++) {
        pk_cursor ca, cb;
        pk_value va, vb;
        pk_location_values_begin(a, l, &ca);
        pk_location_values_begin(b, l, &cb);
        int more;
        while ((more = pk_cursor_next(&ca, &va))) {
            if (!pk_cursor_next(&cb, &vb)) fail_msg("%s: location %u: fewer values", db, l);
            if (va.context != vb.context || va.column != vb.column ||
                memcmp(&va.value, &vb.value, sizeof va.value) != 0)
                fail_msg("%s: location %u context %u column %u: %.17g with one worker, %.17g "
                         "with three",
                         db, l, va.context, va.column, va.value, vb.value);
        }
        if (pk_cursor_next(&cb, &vb)) fail_msg("%s: location %u: more values", db, l);
    }
}

/* The summary is folded in location order however many workers derive:
 * the database must not depend on the machine's number of cores. */
static void workers_do_not_change_a_bit(void **state)
{
    (void)state;
    char **dbs;
    size_t n = tu_corpus_databases(&dbs);
    if (!dbs) skip();
    for (size_t i = 0; i < n; i++) {
        pk_profile *a = NULL, *b = NULL;
        if (pk_profile_open(dbs[i], NULL, &a) != PK_OK) continue;
        assert_int_equal(pk_profile_open(dbs[i], NULL, &b), PK_OK);
        pk_derive_options one = {0, 1}, three = {0, 3};
        if (pk_profile_derive(a, &one, NULL) == PK_OK) {
            assert_int_equal(pk_profile_derive(b, &three, NULL), PK_OK);
            same_bits(a, b, dbs[i]);
        }
        pk_profile_free(a);
        pk_profile_free(b);
    }
    tu_free_list(dbs, n);
}

static void nothing_to_derive_is_refused(void **state)
{
    (void)state;
    fx_db db = *fx_sample_db();
    db.summary_only = 1;
    char dir[64];
    pk_profile *p = tu_open_fixture(&db, dir);
    assert_int_equal(pk_profile_derive(p, NULL, NULL), PK_ERR_UNSUPPORTED);
    assert_non_null(strstr(pk_error_last(), "only summary statistics"));
    tu_close_fixture(p, dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_computed_values),
        cmocka_unit_test(nothing_to_derive_is_refused),
        cmocka_unit_test(corpus_databases),
        cmocka_unit_test(workers_do_not_change_a_bit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
