/*
 * tests/test_cube_stores.c — the two value stores give the same answers.
 * Every Cube file of the corpus is opened twice: from its path (values
 * stay in the archive, answered from the metric-major rows: model/rows.c)
 * and from memory (values copied into location planes). Column and
 * program totals, every metric's inclusive and exclusive values at every
 * context, and its per-location totals must agree, as must a location
 * cursor (which builds the planes from the rows). And min/max metrics'
 * totals over all cells (pk_metric_cell_total) equal CubeLib's
 * (cube-totals `program=`, in the comments below).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profkit/profkit.h"
#include "support/testutil.h"

static int same(double a, double b)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return fabs(a - b) <= 1e-12 * (fabs(a) > fabs(b) ? fabs(a) : fabs(b)) + 1e-300;
}

static int compare_arrays(const char *file, const char *what, const double *a, const double *b,
                          size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!same(a[i], b[i])) {
            print_error("%s: %s [%zu]: rows %.17g, planes %.17g\n", file, what, i, a[i], b[i]);
            return 1;
        }
    return 0;
}

/* Both ways of asking for a metric's values, compared; a question one
 * store refuses the other must refuse too. */
static int compare_metric(const char *file, pk_profile *r, pk_profile *m, pk_index k, double *a,
                          double *b, size_t n)
{
    int bad = 0;
    pk_scope_kind kinds[2] = {PK_SCOPE_INCLUSIVE, PK_SCOPE_EXCLUSIVE};
    size_t nc = pk_context_count(r), nl = pk_location_count(r);
    for (int s = 0; s < 2; s++) {
        pk_status sa = pk_context_scope_values(r, k, kinds[s], a, n, NULL);
        pk_status sb = pk_context_scope_values(m, k, kinds[s], b, n, NULL);
        bad |= sa != sb;
        if (!sa && !sb) bad |= compare_arrays(file, s ? "exclusive" : "inclusive", a, b, nc);
    }
    pk_status sa = pk_location_totals(r, k, a, n), sb = pk_location_totals(m, k, b, n);
    bad |= sa != sb;
    if (!sa && !sb) bad |= compare_arrays(file, "location totals", a, b, nl);
    sa = pk_metric_program_total(r, k, a), sb = pk_metric_program_total(m, k, b);
    bad |= sa != sb;
    if (!sa && !sb) bad |= compare_arrays(file, "program total", a, b, 1);
    sa = pk_metric_cell_total(r, k, a), sb = pk_metric_cell_total(m, k, b);
    bad |= sa != sb;
    if (!sa && !sb) bad |= compare_arrays(file, "cell total", a, b, 1);
    return bad;
}

static int compare_file(const char *path)
{
    size_t size;
    unsigned char *bytes = tu_read_file(path, &size);
    pk_profile *r = NULL, *m = NULL;
    const char *names[1] = {path};
    const void *data[1] = {bytes};
    uint64_t sizes[1] = {size};
    if (!bytes || pk_profile_open(path, NULL, &r) != PK_OK ||
        pk_profile_open_memory(PK_FORMAT_CUBE, 1, names, data, sizes, NULL, &m) != PK_OK) {
        int refused = r == NULL && m == NULL; /* both refuse: a damaged file, same answer */
        pk_profile_free(r), pk_profile_free(m), free(bytes);
        return refused ? 0 : (print_error("%s: one store opened, the other not\n", path), 1);
    }
    size_t n = pk_context_count(r) + pk_location_count(r) + pk_column_count(r) + 1;
    size_t nm = pk_metric_count(r);
    double *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
    double *pa = calloc(nm + 1, sizeof *pa), *pb = calloc(nm + 1, sizeof *pb);
    assert_non_null(a), assert_non_null(b), assert_non_null(pa), assert_non_null(pb);
    int bad = pk_profile_totals(r, a, n, pa, nm) != PK_OK || pk_profile_totals(m, b, n, pb, nm);
    bad |= compare_arrays(path, "column totals", a, b, pk_column_count(r));
    bad |= compare_arrays(path, "program totals", pa, pb, nm);
    for (pk_index k = 0; k < nm; k++)
        bad |= compare_metric(path, r, m, k, a, b, n);
    for (pk_index l = 0; l < pk_location_count(r); l++) { /* planes built from the rows */
        pk_cursor cr, cm;
        pk_value vr, vm;
        assert_int_equal(pk_location_values_begin(r, l, &cr), PK_OK);
        assert_int_equal(pk_location_values_begin(m, l, &cm), PK_OK);
        int more;
        while ((more = pk_cursor_next(&cr, &vr)) == pk_cursor_next(&cm, &vm) && more)
            bad |= vr.context != vm.context || vr.column != vm.column || vr.value != vm.value;
        bad |= more;
    }
    free(a), free(b), free(pa), free(pb);
    pk_profile_free(r), pk_profile_free(m), free(bytes);
    return bad;
}

static void test_stores_agree(void **state)
{
    (void)state;
    const char *corpus = tu_corpus_dir();
    char root[1100];
    snprintf(root, sizeof root, "%.1000s/cube", corpus ? corpus : "");
    char **files;
    size_t n = tu_find_files(root, ".cubex", &files), bad = 0;
    if (n == 0) skip();
    print_message("%zu Cube files, each opened both ways\n", n);
    for (size_t i = 0; i < n; i++)
        bad += (size_t)compare_file(files[i]);
    tu_free_list(files, n);
    assert_int_equal(bad, 0);
}

/* Metric `name` of corpus file `rel`: its measured total and its total
 * over all cells. */
static void totals_of(const char *rel, const char *name, double *measured, double *cells)
{
    char path[1200];
    const char *corpus = tu_corpus_dir();
    snprintf(path, sizeof path, "%.1000s/cube/%s", corpus ? corpus : "", rel);
    pk_profile *p;
    assert_int_equal(pk_profile_open(path, NULL, &p), PK_OK);
    pk_index m = PK_NONE;
    for (pk_index k = 0; k < pk_metric_count(p); k++) {
        pk_metric met;
        pk_metric_get(p, k, &met);
        if (strcmp(met.name, name) == 0) m = k;
    }
    assert_int_not_equal(m, PK_NONE);
    assert_int_equal(pk_metric_program_total(p, m, measured), PK_OK);
    assert_int_equal(pk_metric_cell_total(p, m, cells), PK_OK);
    pk_profile_free(p);
}

static void test_cell_totals(void **state)
{
    (void)state;
    double measured, cells;
    if (!tu_corpus_dir()) skip();
    /* cube-totals: min_time program=0, max_time program=5.0556370804698316 */
    totals_of("hatchet-scorep-cpi/profile.cubex", "min_time", &measured, &cells);
    assert_true(measured > 9e-6 && measured < 1e-5 && cells == 0);
    totals_of("hatchet-scorep-cpi/profile.cubex", "max_time", &measured, &cells);
    assert_true(same(measured, 5.0556370804698316) && same(cells, measured));
    /* every cell visited: min_time program=1.006e-06, as measured */
    totals_of("extrap-mm-x10-zcubex-gzanchor/profile.cubex", "min_time", &measured, &cells);
    assert_true(same(measured, 1.006e-06) && same(cells, measured));
    /* MINDOUBLE program=1.1000000000000001: the model's own root is no cell */
    totals_of("pycubexr-cube-values-alltypes/cube-values_example.cubex", "MINDOUBLE", &measured,
              &cells);
    assert_true(same(cells, 1.1000000000000001));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_stores_agree),
                                       cmocka_unit_test(test_cell_totals)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
