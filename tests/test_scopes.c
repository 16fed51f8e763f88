/*
 * tests/test_scopes.c — deriving a metric's other scope along the call
 * tree (pk_context_scope_values(), analysis/scopes.c), checked two ways:
 *
 *  - HPCToolkit databases store both scopes, so inclusive values derived
 *    from the stored exclusive ("function") values, and exclusive derived
 *    from the stored inclusive ("execution") ones, must equal the stored
 *    columns at every context of every corpus database;
 *  - Cube files store one scope per metric. The sums over all cnodes of
 *    the other scope below were computed by pycubexr (extra-p/pycubexr
 *    28ad6db, run as described in REFERENCE-pycubexr.txt) with
 *      mv = c.get_metric_values(metric=m)
 *      for cn in c.all_cnodes():
 *          mv.cnode_values(cn, convert_to_exclusive=(m is INCLUSIVE),
 *                          convert_to_inclusive=(m is EXCLUSIVE)).sum()
 *    (sum and sum of absolute values; integer sums are exact). pycubexr
 *    clamps exclusive values of unsigned metrics at 0 per location, which
 *    changes L2_DCM_negative's PAPI_L2_DCM (by 1) and the alltypes file's
 *    UINT metrics (68 instead of 10).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/scopes.h"
#include "profkit/profkit.h"
#include "support/testutil.h"

typedef struct cube_ref {
    const char *file, *metric;
    double sum, abs_sum; /* of the other scope over the file's cnodes, pycubexr */
} cube_ref;

static const cube_ref cube_refs[] = {
    {"hatchet-scorep-cpi/profile.cubex", "visits", 3602428.0, 3602428.0},
    {"hatchet-scorep-cpi/profile.cubex", "time", 20.222507982262172, 20.222507982262172},
    {"hatchet-scorep-cpi/profile.cubex", "hits", 2751.0, 2751.0},
    {"hatchet-scorep-cpi/profile.cubex", "bytes_sent", 9600000.0, 9600000.0},
    {"pycubexr-hwcounter-l2dcm/L2_DCM_negative.cubex", "visits", 553243110711.0, 553243110711.0},
    {"pycubexr-hwcounter-l2dcm/L2_DCM_negative.cubex", "time", 140702.86826535634,
     140702.86826535634},
    {"pycubexr-hwcounter-l2dcm/L2_DCM_negative.cubex", "PAPI_L1_DCM", 3856145991945.0,
     3856145991945.0},
    {"pycubexr-hwcounter-l2dcm/L2_DCM_negative.cubex", "PAPI_L1_ICM", 43713257577.0, 43713257577.0},
    {"pycubexr-hwcounter-l2dcm/L2_DCM_negative.cubex", "PAPI_L2_DCM", 710552093137.0,
     710552093137.0},
    {"pycubexr-hwcounter-l2dcm/L2_DCM_negative.cubex", "PAPI_L2_ICM", 555242059.0, 555242059.0},
    {"pycubexr-hwcounter-l2dcm/L2_DCM_negative.cubex", "PAPI_L1_TCM", 3899859249522.0,
     3899859249522.0},
    {"pycubexr-hwcounter-l2dcm/L2_DCM_negative.cubex", "bytes_sent", 735241965056.0,
     735241965056.0},
    {"pycubexr-time-p4-cube482/profile.cubex", "visits", 84077360.0, 84077360.0},
    {"pycubexr-time-p4-cube482/profile.cubex", "time", 3.3841508168813497, 3.3841508168813497},
    {"extrap-lulesh-p27-v45/profile.cubex", "visits", 45495293.0, 45495293.0},
    {"extrap-lulesh-p27-v45/profile.cubex", "time", 1981.5544062313193, 1981.5544062313193},
    {"pycubexr-kripke-p8-bigendian/profile.cubex", "visits", 1580254.0, 1580254.0},
    {"pycubexr-kripke-p8-bigendian/profile.cubex", "time", 148.63150991125002, 148.63150991125002},
    {"pycubexr-kripke-p8-bigendian/profile.cubex", "PAPI_TOT_INS", 43981966152.0, 43981966152.0},
    {"pycubexr-kripke-p8-bigendian/profile.cubex", "PAPI_FP_OPS", 13757333824.0, 13757333824.0},
    {"pycubexr-kripke-p8-bigendian/profile.cubex", "PEVT_L2_STORE_LINE", 1594461509.0,
     1594461509.0},
    {"pycubexr-cube-values-alltypes/cube-values_example.cubex", "INT8", 10.0, 126.0},
    {"pycubexr-cube-values-alltypes/cube-values_example.cubex", "UINT8", 68.0, 68.0},
    {"pycubexr-cube-values-alltypes/cube-values_example.cubex", "INT32", 10.0, 126.0},
    {"pycubexr-cube-values-alltypes/cube-values_example.cubex", "UINT64", 68.0, 68.0},
    {"pycubexr-cube-values-alltypes/cube-values_example.cubex", "DOUBLE", 11.0, 132.66},
};

/* Integer references (exact in a double below 2^53) must match exactly:
 * the clamp changes L2_DCM_negative's PAPI_L2_DCM by 1 in 7e11. */
static int matches(double got, double want)
{
    if (want == (double)(int64_t)want && fabs(want) < 9007199254740992.0) return got == want;
    return fabs(got - want) <= 1e-12 * fabs(want);
}

static int close_to(double a, double b, double rel)
{
    return fabs(a - b) <= rel * (fabs(a) > fabs(b) ? fabs(a) : fabs(b)) + 1e-9;
}

static pk_profile *open_cube(const char *rel)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/cube/%s", tu_corpus_dir(), rel);
    pk_profile *p = NULL;
    if (pk_profile_open(path, NULL, &p) != PK_OK) fail_msg("%s: %s", path, pk_error_last());
    return p;
}

static pk_index metric_named(const pk_profile *p, const char *name)
{
    for (pk_index m = 0; m < pk_metric_count(p); m++) {
        pk_metric met;
        pk_metric_get(p, m, &met);
        if (strcmp(met.name, name) == 0) return m;
    }
    fail_msg("no metric %s", name);
    return PK_NONE;
}

/* Σ and Σ|·| over the file's cnodes (every context but profkit's root). */
static double other_scope_sum(const pk_profile *p, pk_index m, int *derived, double *abs_sum)
{
    pk_index col;
    pk_scope_kind other = pk_column_find(p, m, PK_SCOPE_INCLUSIVE, &col) == PK_OK
                              ? PK_SCOPE_EXCLUSIVE
                              : PK_SCOPE_INCLUSIVE;
    size_t n = pk_context_count(p);
    double *v = malloc(n * sizeof *v), sum = 0, a = 0;
    assert_non_null(v);
    assert_int_equal(pk_context_scope_values(p, m, other, v, n, derived), PK_OK);
    for (size_t c = 1; c < n; c++)
        sum += v[c], a += fabs(v[c]);
    free(v);
    if (abs_sum) *abs_sum = a;
    return sum;
}

static void cube_other_scope_equals_pycubexr(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cube_refs / sizeof *cube_refs; i++) {
        const cube_ref *r = &cube_refs[i];
        pk_profile *p = open_cube(r->file);
        int derived = 0;
        double a, got = other_scope_sum(p, metric_named(p, r->metric), &derived, &a);
        if (!derived || !matches(got, r->sum) || !matches(a, r->abs_sum))
            fail_msg("%s %s: %.17g, |%.17g| (derived %d), pycubexr %.17g, |%.17g|", r->file,
                     r->metric, got, a, derived, r->sum, r->abs_sum);
        pk_profile_free(p);
    }
}

/* Without the clamp, the unsigned metrics' exclusive values differ from
 * pycubexr's: the guard is what makes the numbers above agree. */
static void cube_unsigned_clamp_matters(void **state)
{
    (void)state;
    const char *files[] = {"pycubexr-hwcounter-l2dcm/L2_DCM_negative.cubex",
                           "pycubexr-cube-values-alltypes/cube-values_example.cubex"};
    const char *metrics[] = {"PAPI_L2_DCM", "UINT8"};
    for (int k = 0; k < 2; k++) {
        pk_profile *p = open_cube(files[k]);
        pk_index m = metric_named(p, metrics[k]);
        assert_true(p->metrics[m].flags & PK_METRIC_UNSIGNED);
        double clamped = other_scope_sum(p, m, NULL, NULL);
        p->metrics[m].flags &= ~(uint32_t)PK_METRIC_UNSIGNED;
        double plain = other_scope_sum(p, m, NULL, NULL);
        assert_true(plain < clamped);
        pk_profile_free(p);
    }
}

/* min_time is stored exclusive and combines by min: its derived inclusive
 * value at the root is the least stored value; the exclusive values of a
 * min metric stored inclusive cannot be derived. */
static void cube_min_metric(void **state)
{
    (void)state;
    pk_profile *p = open_cube("hatchet-scorep-cpi/profile.cubex");
    pk_index m = metric_named(p, "min_time");
    size_t n = pk_context_count(p);
    double *v = malloc(n * sizeof *v), least = INFINITY;
    assert_int_equal(pk_context_scope_values(p, m, PK_SCOPE_INCLUSIVE, v, n, NULL), PK_OK);
    for (pk_index l = 0; l < pk_location_count(p); l++) {
        pk_cursor c;
        pk_value x;
        pk_location_values_begin(p, l, &c);
        while (pk_cursor_next(&c, &x))
            if (p->columns[x.column].metric == m && x.value < least) least = x.value;
    }
    assert_true(least < INFINITY && v[0] == least);
    double total;
    assert_int_equal(pk_metric_program_total(p, m, &total), PK_OK);
    assert_true(total == least);
    pk_index stored;
    assert_int_equal(pk_column_find(p, m, PK_SCOPE_EXCLUSIVE, &stored), PK_OK);
    assert_int_equal(pk_derive_scope(p, m, PK_SCOPE_EXCLUSIVE, stored, v), PK_ERR_UNSUPPORTED);
    free(v);
    pk_profile_free(p);
}

/* A context with values but no place in the tree (its parent unknown):
 * nothing can be derived for it. */
static int unlisted(const pk_profile *p, size_t c)
{
    return c != 0 && p->ctx[c].parent == PK_NONE;
}

/* pk_profile_totals() answers exclusive-only metrics from its one pass
 * over the values; the answer must equal the derivation's. */
static void cube_program_totals_agree(void **state)
{
    (void)state;
    pk_profile *p = open_cube("pycubexr-hwcounter-l2dcm/L2_DCM_negative.cubex");
    size_t nm = pk_metric_count(p), nc = pk_column_count(p), derived = 0;
    double *cols = malloc(nc * sizeof *cols), *programs = malloc(nm * sizeof *programs);
    assert_int_equal(pk_profile_totals(p, cols, nc, programs, nm), PK_OK);
    for (pk_index m = 0; m < nm; m++) {
        double one;
        pk_index col;
        assert_int_equal(pk_metric_program_total(p, m, &one), PK_OK);
        assert_true(close_to(programs[m], one, 1e-12));
        derived += pk_column_find(p, m, PK_SCOPE_INCLUSIVE, &col) != PK_OK;
    }
    assert_true(derived >= 3); /* visits, bytes_sent, bytes_received... */
    free(cols);
    free(programs);
    pk_profile_free(p);
}

/* Both derivations of every metric of one database against its columns. */
static int check_database(const char *dir, pk_profile *p)
{
    size_t n = pk_context_count(p), bad = 0;
    double *stored = malloc(n * sizeof *stored), *derived = malloc(n * sizeof *derived);
    assert_true(stored && derived);
    for (pk_index m = 0; m < pk_metric_count(p) && !bad; m++) {
        pk_index incl, excl;
        if (pk_column_find(p, m, PK_SCOPE_INCLUSIVE, &incl) != PK_OK ||
            pk_column_find(p, m, PK_SCOPE_EXCLUSIVE, &excl) != PK_OK)
            continue;
        for (int k = 0; k < 2 && !bad; k++) {
            pk_scope_kind kind = k ? PK_SCOPE_EXCLUSIVE : PK_SCOPE_INCLUSIVE;
            assert_int_equal(pk_context_totals(p, k ? excl : incl, stored, n), PK_OK);
            assert_int_equal(pk_derive_scope(p, m, kind, k ? incl : excl, derived), PK_OK);
            for (size_t c = 0; c < n && !bad; c++)
                if (!unlisted(p, c) && !close_to(derived[c], stored[c], 1e-9)) {
                    print_error("%s: metric %u %s at context %zu: derived %.17g, stored %.17g\n",
                                dir, m, k ? "exclusive" : "inclusive", c, derived[c], stored[c]);
                    bad++;
                }
        }
    }
    free(stored);
    free(derived);
    return bad != 0;
}

static void hpctoolkit_derived_equals_stored(void **state)
{
    (void)state;
    char **dbs;
    size_t n = tu_corpus_databases(&dbs), failed = 0, checked = 0;
    for (size_t i = 0; i < n; i++) {
        pk_profile *p = NULL;
        pk_open_options o = {PK_OPEN_NO_TRACES, 0};
        if (pk_profile_open(dbs[i], &o, &p) != PK_OK) continue;
        failed += check_database(dbs[i], p);
        checked++;
        pk_profile_free(p);
    }
    tu_free_list(dbs, n);
    print_message("derived scopes checked on %zu HPCToolkit databases\n", checked);
    assert_true(checked > 0);
    assert_int_equal(failed, 0);
}

/* Every metric of p: where pk_context_scope_pair() takes both scopes at
 * once, they are bit for bit what pk_context_scope_values() gives each.
 * The number of metrics it took. */
static size_t pair_matches_each(const char *path, const pk_profile *p)
{
    size_t n = pk_context_count(p), took = 0;
    double *pi = calloc(n + 1, 8), *pe = calloc(n + 1, 8), *si = calloc(n + 1, 8),
           *se = calloc(n + 1, 8);
    assert_true(pi && pe && si && se);
    for (pk_index m = 0; m < pk_metric_count(p); m++) {
        int done = 0;
        assert_int_equal(pk_context_scope_pair(p, m, pi, pe, &done), PK_OK);
        if (!done) continue;
        took++;
        assert_int_equal(pk_context_scope_values(p, m, PK_SCOPE_INCLUSIVE, si, n, NULL), PK_OK);
        assert_int_equal(pk_context_scope_values(p, m, PK_SCOPE_EXCLUSIVE, se, n, NULL), PK_OK);
        if (memcmp(pi, si, n * 8) || memcmp(pe, se, n * 8))
            fail_msg("%s metric %u: the pair differs from each scope alone", path, m);
    }
    free(pi), free(pe), free(si), free(se);
    return took;
}

/* The query layer reads both scopes of an exclusive-only metric in one
 * pass (analysis/query_values.c): same bits as one scope at a time, on
 * every Callgrind and Cube corpus file, and taken on some. */
static void scope_pair_equals_each_scope(void **state)
{
    (void)state;
    const char *dirs[] = {"callgrind", "cube"}, *endings[] = {"", ".cubex"};
    size_t took = 0, files = 0;
    for (int d = 0; d < 2; d++) {
        char root[2048], **list;
        snprintf(root, sizeof root, "%s/%s", tu_corpus_dir(), dirs[d]);
        size_t n = tu_find_files(root, endings[d], &list);
        for (size_t i = 0; i < n; i++) {
            pk_profile *p = NULL;
            if (strstr(list[i], ".md") || strstr(list[i], ".txt") ||
                pk_profile_open(list[i], NULL, &p) != PK_OK)
                continue;
            took += pair_matches_each(list[i], p), files++;
            pk_profile_free(p);
        }
        tu_free_list(list, n);
    }
    print_message("scope pairs checked: %zu metrics of %zu files\n", took, files);
    assert_true(took > 0);
}

int main(void)
{
    if (!tu_corpus_dir()) {
        printf("corpus not found (set PROFKIT_CORPUS): derived-scope tests skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cube_other_scope_equals_pycubexr),
        cmocka_unit_test(cube_unsigned_clamp_matters),
        cmocka_unit_test(cube_min_metric),
        cmocka_unit_test(cube_program_totals_agree),
        cmocka_unit_test(hpctoolkit_derived_equals_stored),
        cmocka_unit_test(scope_pair_equals_each_scope),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
