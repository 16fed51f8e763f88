/*
 * tests/test_json.c — profkit.model/1 on every profile of the shared
 * corpus (HPCToolkit databases, Cube .cubex files, Callgrind/Cachegrind/
 * Xdebug files): read, written as JSON, read back gives the same model
 * (dimensions, contexts, metrics, every value bit for bit in both orders,
 * traces, attributes, metric flags, diagnostics, the call graph); written
 * again, the JSON is the same bytes; and converting the JSON copy to
 * HPCToolkit, Cube and Callgrind gives what converting the original gives.
 */
#define _GNU_SOURCE
#include "support/pk_cmocka.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/cg_compare.h"
#include "support/model_compare.h"
#include "support/testutil.h"

static char g_root[1024], g_tmp[64];

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* What tu_assert_same_model leaves out. */
static void same_extras(const pk_profile *a, const pk_profile *b, const char *path)
{
    pk_profile_info ia, ib;
    pk_profile_get_info(a, &ia), pk_profile_get_info(b, &ib);
    if (ia.reconstructed != ib.reconstructed) fail_msg("%s: reconstructed differs", path);
    if (ib.format != PK_FORMAT_JSON) fail_msg("%s: the copy is not read as JSON", path);
    for (pk_index m = 0; m < pk_metric_count(a); m++) {
        pk_metric x, y;
        pk_metric_get(a, m, &x), pk_metric_get(b, m, &y);
        if (x.flags != y.flags) fail_msg("%s: metric %u flags differ", path, m);
    }
    assert_int_equal(pk_attribute_count(a), pk_attribute_count(b));
    for (size_t i = 0; i < pk_attribute_count(a); i++) {
        pk_attribute x, y;
        pk_attribute_get(a, i, &x), pk_attribute_get(b, i, &y);
        if (x.entity != y.entity || x.index != y.index || !same_str(x.key, y.key) ||
            !same_str(x.value, y.value))
            fail_msg("%s: attribute %zu differs (%s=%s vs %s=%s)", path, i, x.key, x.value, y.key,
                     y.value);
    }
    assert_int_equal(pk_diagnostic_count(a), pk_diagnostic_count(b));
    for (size_t i = 0; i < pk_diagnostic_count(a); i++) {
        pk_diagnostic x, y;
        pk_diagnostic_get(a, i, &x), pk_diagnostic_get(b, i, &y);
        if (x.severity != y.severity || !same_str(x.code, y.code) ||
            !same_str(x.message, y.message) || x.offset != y.offset)
            fail_msg("%s: diagnostic %zu differs", path, i);
    }
    char *ca = tu_cg_canonical(a), *cb = tu_cg_canonical(b);
    if (!same_str(ca, cb)) fail_msg("%s: call graphs differ", path);
    free(ca), free(cb);
}

static void write_or_fail(const pk_profile *p, pk_format f, const char *out, const char *what)
{
    pk_write_options o = {.flags = PK_WRITE_FORCE};
    if (pk_profile_write(p, f, out, &o, NULL)) fail_msg("%s: %s", what, pk_error_last());
}

static pk_profile *open_or_fail(const char *path)
{
    pk_profile *p;
    if (pk_profile_open(path, NULL, &p)) fail_msg("%s", pk_error_last());
    return p;
}

/* The JSON after its "profile" member (which says where it came from). */
static const char *model_part(const unsigned char *json, const char *path)
{
    const char *at = strstr((const char *)json, "\n \"identifier_kinds\"");
    if (!at) fail_msg("%s: no identifier_kinds member", path);
    return at;
}

/* Converting the original and its JSON copy to `f` gives the same model. */
static void same_conversion(const pk_profile *a, const pk_profile *b, pk_format f, const char *path)
{
    char x[128], y[128];
    snprintf(x, sizeof x, "%s/conv-a", g_tmp), snprintf(y, sizeof y, "%s/conv-b", g_tmp);
    pk_write_options o = {.flags = PK_WRITE_FORCE};
    tu_remove_tree(x), tu_remove_tree(y);
    pk_status sa = pk_profile_write(a, f, x, &o, NULL);
    pk_status sb = pk_profile_write(b, f, y, &o, NULL);
    if (sa != sb) fail_msg("%s: to format %d: status %d vs %d", path, (int)f, sa, sb);
    if (sa) return; /* the writer refuses both alike (e.g. Cube -> HPCToolkit roots) */
    pk_profile *ca, *cb;
    sa = pk_profile_open(x, NULL, &ca);
    sb = pk_profile_open(y, NULL, &cb);
    if (sa != sb) fail_msg("%s: reading format %d back: status %d vs %d", path, (int)f, sa, sb);
    if (sa) { /* a writer's problem, not the JSON's: both copies alike */
        printf("note: %s as format %d does not read back: %s\n", path, (int)f, pk_error_last());
        return;
    }
    char label[1200];
    snprintf(label, sizeof label, "%s as format %d", path, (int)f);
    tu_assert_same_model(ca, cb, label);
    char *ga = tu_cg_canonical(ca), *gb = tu_cg_canonical(cb);
    if (!same_str(ga, gb)) fail_msg("%s: call graphs differ", label);
    free(ga), free(gb);
    pk_profile_free(ca), pk_profile_free(cb);
}

static void round_trip(const char *path)
{
    char j1[128], j2[128];
    snprintf(j1, sizeof j1, "%s/a.json", g_tmp), snprintf(j2, sizeof j2, "%s/b.json", g_tmp);
    pk_profile *a = open_or_fail(path);
    write_or_fail(a, PK_FORMAT_JSON, j1, path);
    pk_profile *b = open_or_fail(j1);
    tu_assert_same_model(a, b, path);
    same_extras(a, b, path);
    write_or_fail(b, PK_FORMAT_JSON, j2, path);
    size_t n1, n2;
    unsigned char *t1 = tu_read_file(j1, &n1), *t2 = tu_read_file(j2, &n2);
    assert_non_null(t1), assert_non_null(t2);
    t1 = realloc(t1, n1 + 1), t2 = realloc(t2, n2 + 1);
    t1[n1] = t2[n2] = 0;
    if (strcmp(model_part(t1, path), model_part(t2, path)) != 0)
        fail_msg("%s: JSON written from the JSON copy differs", path);
    free(t1), free(t2);
    const pk_format formats[] = {PK_FORMAT_HPCTOOLKIT_V4, PK_FORMAT_CUBE, PK_FORMAT_CALLGRIND};
    for (size_t i = 0; i < 3; i++)
        same_conversion(a, b, formats[i], path);
    pk_profile_free(a), pk_profile_free(b);
}

static void test_hpctoolkit(void **state)
{
    (void)state;
    char **dbs;
    size_t n = tu_corpus_databases(&dbs);
    assert_true(n >= 4);
    for (size_t i = 0; i < n; i++)
        round_trip(dbs[i]);
    tu_free_list(dbs, n);
}

static void test_cube(void **state)
{
    (void)state;
    char root[1100], **files;
    snprintf(root, sizeof root, "%s/cube", g_root);
    size_t n = tu_find_files(root, ".cubex", &files);
    assert_true(n >= 17);
    for (size_t i = 0; i < n; i++)
        round_trip(files[i]);
    tu_free_list(files, n);
}

static void test_callgrind(void **state)
{
    (void)state;
    char root[1100], **files;
    snprintf(root, sizeof root, "%s/callgrind", g_root);
    size_t n = tu_find_files(root, "", &files), done = 0;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(files[i]);
        if (l > 3 &&
            (strcmp(files[i] + l - 3, ".md") == 0 || strcmp(files[i] + l - 4, ".txt") == 0))
            continue;
        round_trip(files[i]);
        done++;
    }
    tu_free_list(files, n);
    assert_true(done >= 30);
}

int main(void)
{
    const char *corpus = tu_corpus_dir();
    if (!corpus) {
        printf("SKIP: no corpus (set PROFKIT_CORPUS)\n");
        return TEST_SKIP;
    }
    snprintf(g_root, sizeof g_root, "%.1000s", corpus);
    snprintf(g_tmp, sizeof g_tmp, "/tmp/pk-json-XXXXXX");
    if (!mkdtemp(g_tmp)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hpctoolkit),
        cmocka_unit_test(test_cube),
        cmocka_unit_test(test_callgrind),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tu_remove_tree(g_tmp);
    return rc;
}
