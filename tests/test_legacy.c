/*
 * tests/test_legacy.c — legacy HPCToolkit databases (experiment.xml 2.x +
 * metric-db / experiment-1.mdb / hpctrace / experiment.mt) on the corpus.
 *
 * Reference values: Hatchet's own reader (hatchet/readers/hpctoolkit_reader.py
 * at hatchet/hatchet 2adc3d1), run outside the project on the same
 * directories (numpy/pandas from Debian, its Cython module built in place,
 * GraphFrame stubbed); the columns "time (inc)" and "time" per (rank,
 * thread) of the nodes named by nid are copied below. hpcviewer's semantics
 * give the rest: experiment.xml's "<metric>:Sum (I)" <M> values are the sum
 * over threads, written with %g (6 significant digits).
 *
 * Also: every database converts to v4 and reads back as the same model,
 * and every file of each database truncated at many lengths gives a clean
 * error (never a crash or a half-built profile).
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
#include "support/model_compare.h"
#include "support/testutil.h"

static char g_root[1024];

static const char *const dbs[] = {"hatchet-cpi-v2",
                                  "hatchet-allgather-v2",
                                  "hpcviewer-2023.01-xml/acc_f3",
                                  "hpcviewer-2023.01-xml/bug-empty",
                                  "hpcviewer-2023.01-xml/bug-nometric",
                                  "hpcviewer-2023.01-xml/bug-no-gpu-trace",
                                  "hpcviewer-2023.01-xml/inline.xml.db",
                                  "hpcviewer-2023.01-xml/vectorAdd"};

static pk_profile *open_db(const char *name)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", g_root, name);
    pk_profile *p = NULL;
    if (pk_profile_open(path, NULL, &p) != PK_OK) fail_msg("%s: %s", path, pk_error_last());
    return p;
}

/* Plain location with identifier tuple (rank, thread); thread -1: none. */
static pk_index location_of(const pk_profile *p, long rank, long thread)
{
    for (pk_index l = 0; l < pk_location_count(p); l++) {
        pk_location loc;
        pk_location_get(p, l, &loc);
        if (loc.is_summary) continue;
        long r = -1, t = -1;
        for (size_t i = 0; i < loc.n_ids; i++) {
            if (strcmp(loc.ids[i].kind_name, "RANK") == 0) r = loc.ids[i].logical;
            if (strcmp(loc.ids[i].kind_name, "THREAD") == 0) t = loc.ids[i].logical;
        }
        if (r == rank && t == thread) return l;
    }
    return PK_NONE;
}

/* Program total of metric 0 in location l (pk_location_totals). */
static double location_total(const pk_profile *p, pk_index l)
{
    size_t n = pk_location_count(p);
    double *t = calloc(n, sizeof *t);
    assert_int_equal(pk_location_totals(p, 0, t, n), PK_OK);
    double v = t[l];
    free(t);
    return v;
}

static double value_at(const pk_profile *p, pk_index loc, uint64_t ctx_id, pk_scope_kind kind)
{
    pk_index ctx, col;
    assert_int_equal(pk_context_find(p, ctx_id, &ctx), PK_OK);
    assert_int_equal(pk_column_find(p, 0, kind, &col), PK_OK);
    double v;
    assert_int_equal(pk_value_lookup(p, loc, ctx, col, &v), PK_OK);
    return v;
}

/* Hatchet, hatchet-cpi-v2: "time (inc)" per rank at nid 4 (main) and 43,
 * "time" at nid 44 (a statement: Hatchet's exclusive there is the stored one). */
static void cpi_matches_hatchet(void **state)
{
    (void)state;
    pk_profile *p = open_db("hatchet-cpi-v2");
    static const double main_incl[4] = {999238.0, 999390.0, 1000306.0, 999308.0};
    static const double n43_incl[4] = {298806.0, 293767.0, 317865.0, 310812.0};
    assert_int_equal(pk_location_count(p), 5);
    for (long r = 0; r < 4; r++) {
        pk_index l = location_of(p, r, -1);
        assert_int_not_equal(l, PK_NONE);
        assert_true(value_at(p, l, 4, PK_SCOPE_INCLUSIVE) == main_incl[r]);
        assert_true(value_at(p, l, 43, PK_SCOPE_INCLUSIVE) == n43_incl[r]);
        assert_true(value_at(p, l, 44, PK_SCOPE_EXCLUSIVE) == n43_incl[r]);
        /* per-rank total (the root row) = Hatchet's <program root> inclusive */
        assert_true(location_total(p, l) == main_incl[r]);
    }
    double sum;
    assert_int_equal(pk_metric_program_total(p, 0, &sum), PK_OK);
    assert_true(sum == 3998242.0); /* experiment.xml: <M n="2" v="3.99824e+06"/> */
    pk_profile_free(p);
}

/* Hatchet, hatchet-allgather-v2 (10 ranks × 2 threads): "time (inc)" at
 * nid 8 (<program root>) and nid 85 for thread 0 of each rank; thread 1 is
 * 0 at both. */
static void allgather_matches_hatchet(void **state)
{
    (void)state;
    pk_profile *p = open_db("hatchet-allgather-v2");
    static const double root[10] = {2615761.0, 2615895.0, 2615739.0, 2609734.0, 2615742.0,
                                    2609469.0, 2615908.0, 2615967.0, 2616218.0, 2610149.0};
    static const double n85[10] = {227675.0, 197550.0, 209714.0, 179770.0, 209714.0,
                                   143788.0, 257539.0, 197709.0, 125809.0, 221651.0};
    static const double partial[10] = {0, 0, 0, 5933.0, 0, 5947.0, 0, 0, 0, 5906.0}; /* nid 2 */
    assert_int_equal(pk_location_count(p), 21);
    for (long r = 0; r < 10; r++) {
        pk_index l0 = location_of(p, r, 0), l1 = location_of(p, r, 1);
        assert_int_not_equal(l0, PK_NONE);
        assert_int_not_equal(l1, PK_NONE);
        assert_true(value_at(p, l0, 8, PK_SCOPE_INCLUSIVE) == root[r]);
        assert_true(value_at(p, l0, 85, PK_SCOPE_INCLUSIVE) == n85[r]);
        assert_true(value_at(p, l0, 2, PK_SCOPE_INCLUSIVE) == partial[r]);
        assert_true(value_at(p, l1, 8, PK_SCOPE_INCLUSIVE) == 0);
    }
    pk_profile_free(p);
}

/* Σ over threads of the per-thread values at the root equals experiment.xml's
 * Sum (I) there, to the 6 digits hpcprof printed; the same through the
 * merged experiment-1.mdb of inline.xml.db (8 threads). */
static void summary_is_sum_of_threads(void **state)
{
    (void)state;
    static const struct {
        const char *db;
        double xml_sum; /* <M> of the root, metric 0's Sum (I) */
    } cases[] = {{"hatchet-allgather-v2", 2.61584e+07},
                 {"hpcviewer-2023.01-xml/inline.xml.db", 1.13528e+11},
                 {"hpcviewer-2023.01-xml/vectorAdd", 3.0743e+09}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pk_profile *p = open_db(cases[i].db);
        double total = 0;
        for (pk_index l = 0; l < pk_location_count(p); l++) {
            pk_location loc;
            pk_location_get(p, l, &loc);
            if (!loc.is_summary) total += location_total(p, l);
        }
        assert_true(fabs(total - cases[i].xml_sum) <= 5e-6 * cases[i].xml_sum);
        pk_profile_free(p);
    }
}

/* Traces: inline.xml.db's experiment.mt holds 8 threads; samples map to
 * the nodes whose it= names them. */
static void traces_are_read(void **state)
{
    (void)state;
    pk_profile *p = open_db("hpcviewer-2023.01-xml/inline.xml.db");
    assert_int_equal(pk_trace_count(p), 8);
    uint64_t b, e;
    assert_int_equal(pk_trace_range(p, &b, &e), PK_OK);
    assert_true(b == 1659713364904210000ull && e == 1659713370342819000ull);
    assert_int_equal(tu_count_diagnostics(p, "unknown-trace-id", PK_SEV_WARNING), 0);
    pk_profile_free(p);
}

/* convert --to hpctoolkit, read back: the same model. */
static void round_trip(void **state)
{
    (void)state;
    char work[] = "/tmp/pk-legacy-XXXXXX";
    assert_non_null(mkdtemp(work));
    for (size_t i = 0; i < sizeof dbs / sizeof dbs[0]; i++) {
        pk_profile *a = open_db(dbs[i]), *b = NULL;
        char out[2048];
        snprintf(out, sizeof out, "%s/%zu.d", work, i);
        if (pk_profile_write(a, PK_FORMAT_HPCTOOLKIT_V4, out, NULL, NULL) != PK_OK)
            fail_msg("%s: write: %s", dbs[i], pk_error_last());
        if (pk_profile_open(out, NULL, &b) != PK_OK)
            fail_msg("%s: read back: %s", dbs[i], pk_error_last());
        tu_assert_same_model_shaped(a, b, dbs[i]);
        pk_profile_free(a);
        pk_profile_free(b);
    }
    tu_remove_tree(work);
}

/* Every file of a database truncated at many lengths, opened from memory:
 * a clean PK_ERR_FORMAT naming the file, or (where the cut leaves a
 * well-formed smaller file) a profile that can be walked. */
static void truncation(void **state)
{
    (void)state;
    static const char *const small[] = {"hatchet-cpi-v2", "hpcviewer-2023.01-xml/inline.xml.db",
                                        "hpcviewer-2023.01-xml/bug-no-gpu-trace"};
    for (size_t s = 0; s < sizeof small / sizeof small[0]; s++) {
        char dir[2048];
        snprintf(dir, sizeof dir, "%s/%s", g_root, small[s]);
        char **files;
        size_t n = tu_find_files(dir, "", &files);
        unsigned char **data = calloc(n, sizeof *data);
        uint64_t *sizes = calloc(n, sizeof *sizes);
        const char **names = calloc(n, sizeof *names);
        for (size_t i = 0; i < n; i++) {
            size_t sz;
            data[i] = tu_read_file(files[i], &sz);
            sizes[i] = sz, names[i] = files[i];
        }
        size_t failures = 0, opens = 0;
        for (size_t f = 0; f < n; f++) {
            uint64_t full = sizes[f];
            for (uint64_t cut = 0; cut < full; cut += 1 + full / 97) {
                unsigned char *copy = malloc(cut + 1);
                memcpy(copy, data[f], cut);
                unsigned char *keep = data[f];
                data[f] = copy, sizes[f] = cut;
                pk_profile *p = NULL;
                pk_status st = pk_profile_open_memory(PK_FORMAT_HPCTOOLKIT_XML, n, names,
                                                      (const void *const *)data, sizes, NULL, &p);
                if (st == PK_OK) {
                    tu_exercise(p, 1);
                    pk_profile_free(p);
                    opens++;
                } else {
                    assert_true(st == PK_ERR_FORMAT || st == PK_ERR_UNSUPPORTED);
                    assert_non_null(strstr(pk_error_last(), "byte"));
                    failures++;
                }
                data[f] = keep, sizes[f] = full;
                free(copy);
            }
        }
        assert_true(failures > 0);
        for (size_t i = 0; i < n; i++)
            free(data[i]);
        free(data), free(sizes), free(names);
        tu_free_list(files, n);
        (void)opens;
    }
}

int main(void)
{
    const char *corpus = tu_corpus_dir();
    if (!corpus) {
        printf("corpus not found (set PROFKIT_CORPUS): skipped\n");
        return 77;
    }
    snprintf(g_root, sizeof g_root, "%s/hpctoolkit", corpus);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpi_matches_hatchet),
        cmocka_unit_test(allgather_matches_hatchet),
        cmocka_unit_test(summary_is_sum_of_threads),
        cmocka_unit_test(traces_are_read),
        cmocka_unit_test(round_trip),
        cmocka_unit_test(truncation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
