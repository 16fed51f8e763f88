/*
 * tests/test_export.c — pk_column_values_export() (profkit/export.h), what
 * the Python package's per-location arrays are: for every column of the
 * fixture database and the project's Cube and Callgrind samples, the
 * arrays hold exactly the values the public cursor gives for that column
 * at the non-summary locations, in the same order, whatever the number of
 * workers; a bad column is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "fixtures/v4_builder.h"
#include "profkit/profkit.h"
#include "support/testutil.h"

/* The cursor's values of `column`, compared one by one with the table. */
static void check_against_cursor(const pk_profile *p, pk_index column, const pk_value_table *t)
{
    size_t k = 0;
    for (pk_index l = 0; l < pk_location_count(p); l++) {
        pk_location loc;
        assert_int_equal(pk_location_get(p, l, &loc), PK_OK);
        if (loc.is_summary) continue;
        pk_cursor c;
        pk_value v;
        assert_int_equal(pk_location_values_begin(p, l, &c), PK_OK);
        while (pk_cursor_next(&c, &v)) {
            if (v.column != column) continue;
            assert_true(k < t->n);
            assert_int_equal(t->context[k], v.context);
            assert_int_equal(t->location[k], l);
            assert_true(t->value[k] == v.value);
            k++;
        }
    }
    assert_int_equal(k, t->n);
}

static void check_profile(const pk_profile *p)
{
    for (pk_index col = 0; col < pk_column_count(p); col++) {
        for (unsigned threads = 1; threads <= 3; threads++) {
            pk_value_table t;
            assert_int_equal(pk_column_values_export(p, col, threads, &t), PK_OK);
            check_against_cursor(p, col, &t);
            pk_value_table_free(&t);
            assert_null(t.value);
        }
    }
    pk_value_table t = {0};
    assert_int_equal(pk_column_values_export(p, (pk_index)pk_column_count(p), 0, &t),
                     PK_ERR_NOT_FOUND);
    assert_null(t.value);
    pk_value_table_free(NULL);
}

static void test_fixture_database(void **state)
{
    (void)state;
    char dir[256];
    pk_profile *p = tu_open_fixture(fx_sample_db(), dir);
    check_profile(p);
    tu_close_fixture(p, dir);
}

static void test_samples(void **state)
{
    (void)state;
    static const char *const files[] = {
        "tests/data/cube/sample.cubex", "tests/data/cube/sample-zcubex.cubex",
        "tests/data/callgrind/sample.callgrind", "tests/data/callgrind/sample-b.callgrind"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", PK_SOURCE_DIR, files[i]);
        pk_profile *p;
        assert_int_equal(pk_profile_open(path, NULL, &p), PK_OK);
        check_profile(p);
        pk_profile_free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_database),
        cmocka_unit_test(test_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
