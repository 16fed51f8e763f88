/*
 * tests/test_summary.c — answers from hpcprof's summary profile
 * (analysis/summary.c) equal the answers that add up every profile's
 * values (PK_OPEN_RECOMPUTE), and deferred validation of the profiles'
 * blocks (model/deferred.c, formats/hpctoolkit/read_lazy.c) changes no
 * answer and lets no damaged block through.
 *
 * 1. Every corpus HPCToolkit database is opened three ways: as usual (the
 *    summary answers what it holds), with every block deferred (however
 *    small the database), and PK_OPEN_RECOMPUTE (every value added up).
 *    pk_context_stat_values() for every metric, scope and statistic, over
 *    all locations and over one, pk_profile_totals(), pk_column_totals(),
 *    pk_location_totals() and pk_metric_program_total() must agree to
 *    1e-12 relative, and at least the sums of the v4 databases must have
 *    come from the summary (pk_values_source()), so that the comparison
 *    compares two paths.
 * 2. The comparison catches a wrong path: a database whose summary Sum at
 *    the root is changed in the image gives different answers when read
 *    from the summary, and the same ones with PK_OPEN_RECOMPUTE.
 * 3. A damaged profile block in a deferred database: the open succeeds,
 *    the summary answers, and a question that reads the block fails with
 *    profile.db's message instead of a partial answer.
 * 4. A database written from a legacy one, whose summary keeps
 *    experiment.xml's rounded sums, is read by adding up its profiles.
 */
#define _POSIX_C_SOURCE 200809L

#include "support/pk_cmocka.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/hpctoolkit/hpctk.h"
#include "profkit/write.h"
#include "support/testutil.h"

static int close_enough(double a, double b)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b));
}

/* How many answers differed, with the first few printed. */
static size_t n_diff;

static void compare(const char *what, const char *db, pk_index m, const double *a, const double *b,
                    size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (close_enough(a[i], b[i])) continue;
        if (n_diff++ < 10)
            fprintf(stderr, "%s: %s, metric %u, item %zu: %.17g vs %.17g\n", db, what, m, i, a[i],
                    b[i]);
    }
}

static void compare_status(const char *what, const char *db, pk_index m, pk_status a, pk_status b)
{
    if (a == b) return;
    if (n_diff++ < 10) fprintf(stderr, "%s: %s, metric %u: status %d vs %d\n", db, what, m, a, b);
}

typedef struct three {
    pk_profile *p[3]; /* usual, all deferred, recompute */
    const char *db;
    size_t n_ctx, n_loc;
} three;

static void compare_stats(const three *t, pk_index m, const unsigned char *sel, double **v)
{
    static const pk_scope_kind kinds[] = {PK_SCOPE_INCLUSIVE, PK_SCOPE_EXCLUSIVE};
    for (int k = 0; k < 2; k++)
        for (pk_across s = PK_ACROSS_SUM; s <= PK_ACROSS_STDDEV; s++) {
            if (sel && s != PK_ACROSS_SUM) continue;
            pk_status st[3];
            for (int i = 0; i < 3; i++)
                st[i] = pk_context_stat_values(t->p[i], m, kinds[k], sel, s, v[i], t->n_ctx, NULL);
            char what[64];
            snprintf(what, sizeof what, "stat %d of scope %d%s", s, kinds[k], sel ? ", one" : "");
            compare_status(what, t->db, m, st[0], st[2]);
            compare_status(what, t->db, m, st[1], st[2]);
            if (st[0] || st[1] || st[2]) continue;
            compare(what, t->db, m, v[0], v[2], t->n_ctx);
            compare(what, t->db, m, v[1], v[2], t->n_ctx);
        }
}

static void compare_totals(const three *t, double **v)
{
    size_t nc = pk_column_count(t->p[0]), nm = pk_metric_count(t->p[0]);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(pk_profile_totals(t->p[i], v[i], nc, v[i] + nc, nm), PK_OK);
        assert_int_equal(pk_column_totals(t->p[i], v[i] + nc + nm, nc), PK_OK);
    }
    compare("totals", t->db, PK_NONE, v[0], v[2], 2 * nc + nm);
    compare("totals", t->db, PK_NONE, v[1], v[2], 2 * nc + nm);
    for (pk_index m = 0; m < nm; m++) {
        pk_status st[3];
        for (int i = 0; i < 3; i++) {
            st[i] = pk_location_totals(t->p[i], m, v[i], t->n_loc);
            if (!st[i]) st[i] = pk_metric_program_total(t->p[i], m, &v[i][t->n_loc]);
        }
        compare_status("location/program totals", t->db, m, st[0], st[2]);
        compare_status("location/program totals", t->db, m, st[1], st[2]);
        if (!st[0] && !st[1] && !st[2]) {
            compare("location/program totals", t->db, m, v[0], v[2], t->n_loc + 1);
            compare("location/program totals", t->db, m, v[1], v[2], t->n_loc + 1);
        }
    }
}

/* Answers of the usual open that came from the summary (sums), and a
 * check that a recomputing open never says so. */
static size_t count_from_summary(const three *t)
{
    size_t n = 0;
    pk_values_from from;
    for (pk_index m = 0; m < pk_metric_count(t->p[0]); m++) {
        assert_int_equal(
            pk_values_source(t->p[0], m, PK_SCOPE_INCLUSIVE, NULL, PK_ACROSS_SUM, &from), PK_OK);
        n += from == PK_VALUES_SUMMARY;
        assert_int_equal(
            pk_values_source(t->p[2], m, PK_SCOPE_INCLUSIVE, NULL, PK_ACROSS_SUM, &from), PK_OK);
        assert_int_equal(from, PK_VALUES_PROFILES);
    }
    assert_int_equal(pk_totals_source(t->p[2], &from), PK_OK);
    assert_int_equal(from, PK_VALUES_PROFILES);
    return n;
}

static void compare_all(three *t)
{
    t->n_ctx = pk_context_count(t->p[0]);
    t->n_loc = pk_location_count(t->p[0]);
    size_t n = t->n_ctx + 3 * pk_column_count(t->p[0]) + 2 * pk_metric_count(t->p[0]) + t->n_loc;
    double *v[3];
    for (int i = 0; i < 3; i++)
        assert_non_null(v[i] = calloc(n + 1, sizeof(double)));
    unsigned char *one = calloc(t->n_loc + 1, 1);
    assert_non_null(one);
    for (size_t l = 0; l < t->n_loc; l++) {
        pk_location loc;
        pk_location_get(t->p[0], l, &loc);
        if (!loc.is_summary) {
            one[l] = 1;
            break;
        }
    }
    for (pk_index m = 0; m < pk_metric_count(t->p[0]); m++) {
        compare_stats(t, m, NULL, v);
        compare_stats(t, m, one, v);
    }
    compare_totals(t, v);
    free(one);
    for (int i = 0; i < 3; i++)
        free(v[i]);
}

static void test_corpus_paths_agree(void **state)
{
    (void)state;
    char **dbs;
    size_t n = tu_corpus_databases(&dbs), from_summary = 0, v4_with_summary = 0;
    if (!dbs) skip();
    n_diff = 0;
    uint64_t keep = hk_defer_min_bytes;
    for (size_t i = 0; i < n; i++) {
        three t = {.db = dbs[i]};
        pk_open_options o[3] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {PK_OPEN_RECOMPUTE, 0, 0, 0}};
        for (int k = 0; k < 3; k++) {
            hk_defer_min_bytes = k == 1 ? 0 : keep;
            assert_int_equal(pk_profile_open(dbs[i], &o[k], &t.p[k]), PK_OK);
        }
        hk_defer_min_bytes = keep;
        size_t s = count_from_summary(&t);
        from_summary += s;
        v4_with_summary += s > 0;
        compare_all(&t);
        for (int k = 0; k < 3; k++)
            pk_profile_free(t.p[k]);
    }
    fprintf(stderr,
            "%zu databases, %zu with sums from the summary (%zu metrics), %zu differences\n", n,
            v4_with_summary, from_summary, n_diff);
    assert_int_equal(n_diff, 0);
    assert_true(v4_with_summary >= 20); /* the v4 databases of the corpus */
    tu_free_list(dbs, n);
}

/* The first summary profile's first value in a profile.db image (the
 * root's value of the lowest metric id), or NULL. */
static unsigned char *summary_first_value(unsigned char *d, size_t size)
{
    uint64_t sect = pk_le64(d + 0x18); /* section 0: Profile Info */
    if (sect + 13 > size) return NULL;
    uint64_t base = pk_le64(d + sect);
    uint32_t n = pk_le32(d + sect + 8);
    uint8_t stride = d[sect + 12];
    for (uint32_t i = 0; i < n && base + (uint64_t)(i + 1) * stride <= size; i++) {
        const unsigned char *pi = d + base + (uint64_t)i * stride;
        if (!(pk_le32(pi + 0x28) & 1) || pk_le64(pi) == 0) continue;
        uint64_t at = pk_le64(pi + 8);
        return at + 10 <= size ? d + at : NULL;
    }
    return NULL;
}

/* loops-cputime-t.d with its summary's first value multiplied by 1.5. */
static pk_status open_tampered(tu_db *db, const char *dir, uint32_t flags, pk_profile **out)
{
    assert_true(tu_load_db(dir, db) >= 2);
    unsigned char *v = summary_first_value(db->data[1], db->size[1]);
    assert_non_null(v);
    double x = pk_le_f64(v + 2) * 1.5;
    memcpy(v + 2, &x, 8); /* the test runs on little-endian machines */
    return tu_open_db(db, flags, out);
}

static void test_wrong_summary_is_caught(void **state)
{
    (void)state;
    const char *corpus = tu_corpus_dir();
    if (!corpus) skip();
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/hpctoolkit/hpctoolkit-tests-dbase/loops-cputime-t.d", corpus);
    tu_db a, b;
    pk_profile *pa, *pb;
    assert_int_equal(open_tampered(&a, dir, 0, &pa), PK_OK);
    assert_int_equal(open_tampered(&b, dir, PK_OPEN_RECOMPUTE, &pb), PK_OK);
    three t = {{pa, pa, pb}, "tampered loops-cputime-t.d", 0, 0};
    n_diff = 0;
    compare_all(&t);
    assert_true(n_diff > 0); /* the summary path's answers changed, the profiles' did not */
    pk_profile_free(pa), pk_profile_free(pb);
    tu_free_db(&a), tu_free_db(&b);
}

/* A plain profile's block with its first two context ids swapped. */
static void damage_plain_block(unsigned char *d, size_t size)
{
    uint64_t sect = pk_le64(d + 0x18), base = pk_le64(d + sect);
    uint32_t n = pk_le32(d + sect + 8);
    uint8_t stride = d[sect + 12];
    for (uint32_t i = 0; i < n; i++) {
        unsigned char *pi = d + base + (uint64_t)i * stride;
        if ((pk_le32(pi + 0x28) & 1) || pk_le32(pi + 0x10) < 2) continue;
        unsigned char *idx = d + pk_le64(pi + 0x18), t[4];
        assert_true(idx + 2 * PK_LM_IDX_SIZE <= d + size);
        memcpy(t, idx, 4), memcpy(idx, idx + PK_LM_IDX_SIZE, 4), memcpy(idx + PK_LM_IDX_SIZE, t, 4);
        return;
    }
    fail_msg("no plain profile with two contexts");
}

static void test_damaged_deferred_block(void **state)
{
    (void)state;
    const char *corpus = tu_corpus_dir();
    if (!corpus) skip();
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/hpctoolkit/hpctoolkit-tests-dbase/loops-cputime-t.d", corpus);
    tu_db db;
    pk_profile *p;
    assert_true(tu_load_db(dir, &db) >= 2);
    damage_plain_block(db.data[1], db.size[1]);
    assert_int_not_equal(tu_open_db(&db, PK_OPEN_RECOMPUTE, &p), PK_OK); /* read at open */
    uint64_t keep = hk_defer_min_bytes;
    hk_defer_min_bytes = 0;
    pk_status st = tu_open_db(&db, 0, &p);
    hk_defer_min_bytes = keep;
    assert_int_equal(st, PK_OK);
    size_t n = pk_context_count(p);
    double *v = calloc(n + 1, sizeof *v), total;
    assert_non_null(v);
    assert_int_equal(pk_metric_program_total(p, 0, &total), PK_OK); /* the summary's */
    assert_int_equal(
        pk_context_stat_values(p, 0, PK_SCOPE_INCLUSIVE, NULL, PK_ACROSS_SUM, v, n, NULL), PK_OK);
    assert_int_equal(
        pk_context_stat_values(p, 0, PK_SCOPE_INCLUSIVE, NULL, PK_ACROSS_MIN, v, n, NULL),
        PK_ERR_FORMAT);
    assert_non_null(strstr(pk_error_last(), "profile.db"));
    assert_non_null(strstr(pk_error_last(), "value block"));
    double *t = calloc(pk_location_count(p) + 1, sizeof *t);
    assert_int_equal(pk_location_totals(p, 0, t, pk_location_count(p)), PK_ERR_FORMAT);
    free(t), free(v);
    pk_profile_free(p);
    tu_free_db(&db);
}

static void assert_from_profiles(const pk_profile *p)
{
    pk_values_from from;
    assert_int_equal(pk_totals_source(p, &from), PK_OK);
    assert_int_equal(from, PK_VALUES_PROFILES);
    assert_int_equal(pk_values_source(p, 0, PK_SCOPE_INCLUSIVE, NULL, PK_ACROSS_SUM, &from), PK_OK);
    assert_int_equal(from, PK_VALUES_PROFILES);
}

/* A legacy database's summary sums are experiment.xml's (1e-6 apart from
 * its threads' sum): written as v4, the database says so in
 * metrics/default.yaml, and is read by adding up its profiles, written
 * again as it is too. */
static void test_kept_legacy_sums_are_not_trusted(void **state)
{
    (void)state;
    const char *corpus = tu_corpus_dir();
    if (!corpus) skip();
    char src[4096], a[512], b[512];
    snprintf(src, sizeof src, "%s/hpctoolkit/hatchet-cpi-v2", corpus);
    tu_scratch_path(a, sizeof a, "cpi-v4.d");
    tu_scratch_path(b, sizeof b, "cpi-v4-again.d");
    pk_profile *p, *q, *r;
    double want, got;
    assert_int_equal(pk_profile_open(src, NULL, &p), PK_OK);
    assert_int_equal(pk_metric_program_total(p, 0, &want), PK_OK);
    assert_int_equal(pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, a, NULL, NULL), PK_OK);
    assert_int_equal(pk_profile_open(a, NULL, &q), PK_OK);
    assert_from_profiles(q);
    assert_int_equal(pk_metric_program_total(q, 0, &got), PK_OK);
    assert_true(close_enough(want, got));
    assert_int_equal(pk_profile_write(q, PK_FORMAT_HPCTOOLKIT_V4, b, NULL, NULL), PK_OK);
    assert_int_equal(pk_profile_open(b, NULL, &r), PK_OK);
    assert_from_profiles(r);
    pk_profile_free(p), pk_profile_free(q), pk_profile_free(r);
}

static int setup(void **state)
{
    (void)state;
    return tu_scratch_make("pk-summary");
}

static int teardown(void **state)
{
    (void)state;
    tu_scratch_remove();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_paths_agree),
        cmocka_unit_test(test_wrong_summary_is_caught),
        cmocka_unit_test(test_damaged_deferred_block),
        cmocka_unit_test(test_kept_legacy_sums_are_not_trusted),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
