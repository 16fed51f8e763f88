/*
 * tests/test_cube_corpus.c — every Cube file of the corpus is read, and
 * what profkit reads equals what pycubexr read (REFERENCE-pycubexr.txt):
 * metric uniq_names in pre-order, the number of cnodes and locations, and
 * the sum of every metric's stored values. MIN/MAXDOUBLE lines compare the
 * plain arithmetic sum the reference gives in its note (pycubexr itself
 * reports the min/max there), COMPLEX compares re and im apart.
 *
 * pycubexr cannot read two files (several root cnodes; a Cube 3 style
 * system tree) and three data types (RATE, TAU_ATOMIC, HISTOGRAM). Their
 * expected values below were established independently of profkit: the
 * members were extracted with Python's tarfile and their rows decoded with
 * struct (little-endian: '<d', '<q', '<Idddd' for TAU_ATOMIC's packed
 * count/min/max/sum/sum2, pairs of doubles for RATE, 2+n doubles for
 * HISTOGRAM(n)), summing each component over all rows and locations. For
 * the Cube 3 file the rows were also checked by hand against its anchor
 * (0.index lists rows 0,1: values 4 0 / 5 9; 2.index lists row 1 only:
 * 0 323, the remaining 32 bytes of 2.data being unused).
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
#include "support/cube_sums.h"
#include "support/testutil.h"

static char g_root[1024];

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(a) > fabs(b) ? fabs(a) : fabs(b)) + 1e-12;
}

static const tu_cube_metric *find(const tu_cube_metric *ms, size_t n, const char *uniq)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(ms[i].uniq, uniq) == 0) return &ms[i];
    return NULL;
}

/* One "  name type=.. dtype=.. ... sum_stored=S" line checked. */
static int check_metric_line(const char *file, const tu_cube_metric *ms, size_t n, char *line)
{
    char name[256];
    if (sscanf(line, " [first] %255s", name) != 1 && sscanf(line, " %255s", name) != 1) return 0;
    const tu_cube_metric *m = find(ms, n, name);
    if (!m) {
        print_error("%s: metric %s missing\n", file, name);
        return 1;
    }
    const char *s = strstr(line, "sum_stored=");
    if (strstr(line, "no data file"))
        return m->sum == 0 ? 0 : (print_error("%s: %s should be 0\n", file, name), 1);
    if (!s || strstr(s, "n/a")) return 0; /* checked by independent values below */
    double want = strtod(s + 11, NULL);
    const char *plain = strstr(line, "plain arithmetic sum=");
    const char *cplx = strstr(line, "plain sum=");
    if (plain) want = strtod(plain + 21, NULL);
    if (cplx) {
        char *end;
        double re = strtod(cplx + 10, &end), im = strtod(end, NULL);
        if (close_to(m->comp_sum[0], re) && close_to(m->comp_sum[1], im)) return 0;
        print_error("%s: %s = %g%+gj, reference %g%+gj\n", file, name, m->comp_sum[0],
                    m->comp_sum[1], re, im);
        return 1;
    }
    if (close_to(m->sum, want)) return 0;
    print_error("%s: %s sum %.17g, reference %.17g\n", file, name, m->sum, want);
    return 1;
}

static int check_names(const char *file, const tu_cube_metric *ms, size_t n, const char *list)
{
    size_t i = 0;
    char buf[8192];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *tok = strtok(buf, ", \n"); tok; tok = strtok(NULL, ", \n"), i++)
        if (i >= n || strcmp(ms[i].uniq, tok) != 0) {
            print_error("%s: metric %zu is %s, reference %s\n", file, i, i < n ? ms[i].uniq : "-",
                        tok);
            return 1;
        }
    return i == n ? 0 : (print_error("%s: %zu metrics, reference %zu\n", file, n, i), 1);
}

/* Check one reference section against the profile; returns failures. */
static int check_section(FILE *f, const char *rel, char *line, size_t size)
{
    char path[2200];
    snprintf(path, sizeof path, "%s/%s", g_root, rel);
    pk_profile *p;
    if (pk_profile_open(path, NULL, &p)) {
        print_error("%s: %s\n", rel, pk_error_last());
        return 1;
    }
    size_t n;
    tu_cube_metric *ms = tu_cube_metrics(p, &n);
    int bad = 0;
    long pos;
    while ((pos = ftell(f)) >= 0 && fgets(line, (int)size, f) && strncmp(line, "===", 3) != 0) {
        if (strncmp(line, "metrics (uniq_name", 18) == 0)
            bad += check_names(rel, ms, n, strchr(line, ':') + 1);
        unsigned cn, ln;
        if (sscanf(line, "n_cnodes (anchor): %u n_locations: %u", &cn, &ln) == 2 &&
            (cn != pk_context_count(p) - 1 || ln != pk_location_count(p))) {
            print_error("%s: %zu cnodes %zu locations, reference %u %u\n", rel,
                        pk_context_count(p) - 1, pk_location_count(p), cn, ln);
            bad++;
        }
        if (strstr(line, " type=")) bad += check_metric_line(rel, ms, n, line);
    }
    fseek(f, pos, SEEK_SET);
    free(ms);
    pk_profile_free(p);
    return bad;
}

static void test_reference(void **state)
{
    (void)state;
    char ref[1200], line[16384];
    snprintf(ref, sizeof ref, "%s/REFERENCE-pycubexr.txt", g_root);
    FILE *f = fopen(ref, "r");
    assert_non_null(f);
    int bad = 0, files = 0, compared = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "=== ", 4) != 0) continue;
        char rel[1024];
        snprintf(rel, sizeof rel, "%.1000s", line + 4);
        rel[strcspn(rel, "\n")] = 0;
        long pos = ftell(f);
        char next[1024] = "";
        if (!fgets(next, sizeof next, f)) break;
        fseek(f, pos, SEEK_SET);
        files++;
        if (strncmp(next, "ERROR", 5) == 0) continue; /* see test_independent */
        compared++;
        bad += check_section(f, rel, line, sizeof line);
    }
    fclose(f);
    printf("cube corpus: %d files in the reference, %d compared with pycubexr, %d failures\n",
           files, compared, bad);
    assert_int_equal(files, 17);
    assert_int_equal(bad, 0);
}

typedef struct indep {
    const char *file, *metric;
    unsigned comp;
    double sum;
} indep;

/* Values established with Python tarfile + struct (see the top comment). */
static const indep independent[] = {
    {"cubelib-test-dense-index/proxy.cubex", "time", 0, 228.0},
    {"cubelib-test-dense-index/proxy.cubex", "visits", 0, 228},
    {"cubelib-test-v40-cube3style/test0.0.cubex", "Uniq_name1", 0, 18},
    {"cubelib-test-v40-cube3style/test0.0.cubex", "Uniq_name2", 0, 6},
    {"cubelib-test-v40-cube3style/test0.0.cubex", "Uniq_name3", 0, 323},
    {"pycubexr-cube-values-alltypes/cube-values_example.cubex", "RATE", 0, 42.0},
    {"pycubexr-cube-values-alltypes/cube-values_example.cubex", "RATE", 1, 48.6},
    {"pycubexr-cube-values-alltypes/cube-values_example.cubex", "TAU_ATOMIC", 0, 74},
    {"pycubexr-cube-values-alltypes/cube-values_example.cubex", "TAU_ATOMIC", 1, 11.0},
    {"pycubexr-cube-values-alltypes/cube-values_example.cubex", "TAU_ATOMIC", 2, 189.0},
    {"pycubexr-cube-values-alltypes/cube-values_example.cubex", "TAU_ATOMIC", 3, 796.0},
    {"pycubexr-cube-values-alltypes/cube-values_example.cubex", "TAU_ATOMIC", 4, 14338.0},
    {"pycubexr-cube-values-alltypes/cube-values_example.cubex", "TAU_ATOMIC2", 3, 796.0},
    {"pycubexr-cube-values-alltypes/cube-values_example.cubex", "HISTOGRAM5", 0, 160.0},
    {"pycubexr-cube-values-alltypes/cube-values_example.cubex", "HISTOGRAM5", 1, 236.0},
    {"pycubexr-cube-values-alltypes/cube-values_example.cubex", "HISTOGRAM5", 6, 48.0},
};

static void test_independent(void **state)
{
    (void)state;
    int bad = 0;
    for (size_t i = 0; i < sizeof independent / sizeof *independent; i++) {
        const indep *e = &independent[i];
        char path[2200];
        snprintf(path, sizeof path, "%s/%s", g_root, e->file);
        pk_profile *p;
        assert_int_equal(pk_profile_open(path, NULL, &p), PK_OK);
        size_t n;
        tu_cube_metric *ms = tu_cube_metrics(p, &n);
        const tu_cube_metric *m = find(ms, n, e->metric);
        if (!m || !close_to(m->comp_sum[e->comp], e->sum)) {
            print_error("%s %s[%u]: %g, expected %g\n", e->file, e->metric, e->comp,
                        m ? m->comp_sum[e->comp] : NAN, e->sum);
            bad++;
        }
        free(ms);
        pk_profile_free(p);
    }
    assert_int_equal(bad, 0);
}

/* Cube-specific structure: counts of the files pycubexr cannot open, the
 * SCALE_FUNC metric reported, the wrong tar checksums warned about. */
static void test_structure(void **state)
{
    (void)state;
    char path[2200];
    pk_profile *p;
    snprintf(path, sizeof path, "%s/cubelib-test-dense-index/proxy.cubex", g_root);
    assert_int_equal(pk_profile_open(path, NULL, &p), PK_OK);
    pk_context root;
    pk_context_get(p, 0, &root);
    assert_int_equal(pk_context_count(p), 237);
    assert_int_equal(root.n_children, 8); /* several root cnodes */
    pk_profile_free(p);
    snprintf(path, sizeof path, "%s/cubelib-test-v40-cube3style/test0.0.cubex", g_root);
    assert_int_equal(pk_profile_open(path, NULL, &p), PK_OK);
    assert_int_equal(pk_location_count(p), 2);
    assert_string_equal(pk_attribute_find(p, PK_ENTITY_LOCATION, 1, "cube:name"), "Thread 1");
    assert_int_equal(tu_count_diagnostics(p, "trailing-data", PK_SEV_WARNING), 3);
    pk_profile_free(p);
    snprintf(path, sizeof path, "%s/pycubexr-cube-values-alltypes/cube-values_example.cubex",
             g_root);
    assert_int_equal(pk_profile_open(path, NULL, &p), PK_OK);
    assert_int_equal(tu_count_diagnostics(p, "unsupported-dtype", PK_SEV_WARNING), 1);
    pk_profile_free(p);
    snprintf(path, sizeof path, "%s/pycubexr-btmz-checksum-bug/cube4.8_with_checksum_bug.cubex",
             g_root);
    assert_int_equal(pk_profile_open(path, NULL, &p), PK_OK);
    assert_int_equal(tu_count_diagnostics(p, "tar-checksum", PK_SEV_WARNING), 1);
    pk_profile_free(p);
    /* 28 PAPI_L2_DCM values within 1024 of 2^64: read as 0, as CubeLib does */
    snprintf(path, sizeof path, "%s/pycubexr-hwcounter-l2dcm/L2_DCM_negative.cubex", g_root);
    assert_int_equal(pk_profile_open(path, NULL, &p), PK_OK);
    assert_int_equal(tu_count_diagnostics(p, "unsigned-overflow", PK_SEV_WARNING), 1);
    pk_profile_free(p);
}

int main(void)
{
    const char *corpus = tu_corpus_dir();
    snprintf(g_root, sizeof g_root, "%.900s/cube", corpus ? corpus : "");
    char ref[1200];
    snprintf(ref, sizeof ref, "%s/REFERENCE-pycubexr.txt", g_root);
    FILE *f = corpus ? fopen(ref, "r") : NULL;
    if (!f) {
        printf("SKIP: no Cube corpus at %s (set PROFKIT_CORPUS)\n", g_root);
        return 77;
    }
    fclose(f);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference),
        cmocka_unit_test(test_independent),
        cmocka_unit_test(test_structure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
