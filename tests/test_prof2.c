/*
 * tests/test_prof2.c — the draft "Prof2" HPCToolkit database (experiment.xml
 * 4.0 + big-endian profile.db / cct.db / trace.db) on the only real sample:
 * hpcviewer's test database hpcviewer-2022.06-prof2-draft/empty-trace.
 *
 * Reference numbers: hpcviewer 2022.06 reads a scope's values with
 * DataSummary.getMetrics(profile, cct id): bisect the profile's (context,
 * index) pairs, then the (f64, u16 metric) pairs of the run. Those steps,
 * done by hand with a few lines of Python (struct.unpack('>dH'/'>IQ')) on
 * the sample's profile.db following its own FORMATS.md, give the values
 * below. The experiment.xml of the sample has no <M> values to compare
 * with. The test also decodes profile.db itself (raw_sum, independent of
 * the reader) and checks the model against it, checks that cct.db's
 * Context Info counts are profile.db's transposed (and that a change is
 * noticed), converts to v4 and back, and truncates every file.
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

static char g_dir[1024];
static const char *const files[4] = {"experiment.xml", "profile.db", "cct.db", "trace.db"};

typedef struct db {
    unsigned char *data[4];
    uint64_t sizes[4];
} db;

static void load(db *d)
{
    for (int i = 0; i < 4; i++) {
        char path[2048];
        size_t sz;
        snprintf(path, sizeof path, "%s/%s", g_dir, files[i]);
        d->data[i] = tu_read_file(path, &sz);
        assert_non_null(d->data[i]);
        d->sizes[i] = sz;
    }
}

static void unload(db *d)
{
    for (int i = 0; i < 4; i++)
        free(d->data[i]);
}

static pk_status open_mem(db *d, pk_profile **p)
{
    return pk_profile_open_memory(PK_FORMAT_HPCTOOLKIT_DRAFT, 4, files,
                                  (const void *const *)d->data, d->sizes, NULL, p);
}

static uint64_t be(const unsigned char *d, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | d[i];
    return v;
}

/* Σ of profile `prof`'s values of metric id `m`, straight from the bytes. */
static double raw_sum(const db *d, uint32_t prof, uint16_t m)
{
    const unsigned char *f = d->data[1];
    const unsigned char *pi = f + be(f + 32, 8) + 52 * (uint64_t)prof;
    uint64_t nv = be(pi + 32, 8), off = be(pi + 44, 8);
    double s = 0;
    for (uint64_t i = 0; i < nv; i++) {
        uint64_t bits = be(f + off + 10 * i, 8);
        double v;
        memcpy(&v, &bits, 8);
        if (be(f + off + 10 * i + 8, 2) == m) s += v;
    }
    return s;
}

static pk_index plain_location(const pk_profile *p)
{
    for (pk_index l = 0; l < pk_location_count(p); l++) {
        pk_location loc;
        pk_location_get(p, l, &loc);
        if (!loc.is_summary) return l;
    }
    return PK_NONE;
}

/* The column of metric 0 in scope `kind`: the plain one, or in the summary
 * location its Sum. */
static pk_index column_of(const pk_profile *p, pk_index loc, pk_scope_kind kind)
{
    pk_location l;
    pk_location_get(p, loc, &l);
    for (pk_index c = 0; c < pk_column_count(p); c++) {
        pk_column col;
        pk_scope sc;
        pk_column_get(p, c, &col);
        pk_scope_get(p, col.scope, &sc);
        if (sc.kind == kind && col.is_summary == l.is_summary &&
            (!col.is_summary || col.stat == PK_STAT_SUM))
            return c;
    }
    fail_msg("no column");
    return PK_NONE;
}

static double value_at(const pk_profile *p, pk_index loc, uint64_t id, pk_scope_kind kind)
{
    pk_index ctx, col = column_of(p, loc, kind);
    assert_int_equal(pk_context_find(p, id, &ctx), PK_OK);
    double v;
    assert_int_equal(pk_value_lookup(p, loc, ctx, col, &v), PK_OK);
    return v;
}

/* The sample opens as the draft format with hpcviewer's values. */
static void opens_with_hpcviewer_values(void **state)
{
    (void)state;
    pk_profile *p = NULL;
    if (pk_profile_open(g_dir, NULL, &p) != PK_OK) fail_msg("%s", pk_error_last());
    pk_profile_info info;
    pk_profile_get_info(p, &info);
    assert_int_equal(info.format, PK_FORMAT_HPCTOOLKIT_DRAFT);
    assert_string_equal(info.format_name, "hpctoolkit-draft");
    assert_int_equal(pk_location_count(p), 2);
    assert_int_equal(pk_metric_count(p), 1);
    pk_index l = plain_location(p);
    assert_int_not_equal(l, PK_NONE);
    pk_location loc;
    pk_location_get(p, l, &loc);
    assert_int_equal(loc.n_ids, 2); /* NODE 0x2a803c80, THREAD 0 */
    assert_string_equal(loc.ids[0].kind_name, "NODE");
    assert_true(loc.ids[0].physical == 0x2a803c80u);
    assert_string_equal(loc.ids[1].kind_name, "THREAD");
    /* profile 1 (metric ids 2 = (I), 1 = (E)) and the summary (512, 256) */
    for (pk_index at = 0; at < 2; at++) {
        assert_true(value_at(p, at, 0, PK_SCOPE_INCLUSIVE) == 27.123413000015695);
        assert_true(value_at(p, at, 2, PK_SCOPE_INCLUSIVE) == 27.123311000015697);
        assert_true(value_at(p, at, 2, PK_SCOPE_EXCLUSIVE) == 15.515846000021766);
        assert_true(value_at(p, at, 44, PK_SCOPE_EXCLUSIVE) == 0.000102);
    }
    double total;
    assert_int_equal(pk_metric_program_total(p, 0, &total), PK_OK);
    assert_true(total == 27.123413000015695);
    /* C i="-1" (no *.db id) is left out: main sits under <program root> */
    pk_index main_ctx, root_pf;
    assert_int_equal(pk_context_find(p, 2, &main_ctx), PK_OK);
    assert_int_equal(pk_context_find(p, 1, &root_pf), PK_OK);
    pk_context c;
    pk_context_get(p, main_ctx, &c);
    assert_int_equal(c.parent, root_pf);
    assert_int_equal(tu_count_diagnostics(p, "cct-db-mismatch", PK_SEV_WARNING), 0);
    assert_int_equal(pk_trace_count(p), 1); /* one empty trace line */
    pk_profile_free(p);
}

/* Every stored per-thread value is in the model: Σ over the contexts the
 * file names (not the entry point the reader adds) = Σ of the raw bytes. */
static void totals_match_raw_bytes(void **state)
{
    (void)state;
    db d;
    load(&d);
    pk_profile *p = NULL;
    assert_int_equal(open_mem(&d, &p), PK_OK);
    static const struct {
        pk_index loc;
        uint16_t incl, excl;
        uint32_t prof;
    } cases[] = {{0, 512, 256, 0}, {1, 2, 1, 1}};
    for (size_t k = 0; k < 2; k++) {
        double incl = 0, excl = 0;
        for (pk_index i = 0; i < pk_context_count(p); i++) {
            pk_context c;
            pk_context_get(p, i, &c);
            if (c.kind == PK_CTX_ENTRY) continue;
            incl += value_at(p, cases[k].loc, c.id, PK_SCOPE_INCLUSIVE);
            excl += value_at(p, cases[k].loc, c.id, PK_SCOPE_EXCLUSIVE);
        }
        double ri = raw_sum(&d, cases[k].prof, cases[k].incl);
        double re = raw_sum(&d, cases[k].prof, cases[k].excl);
        assert_true(fabs(incl - ri) <= 1e-12 * ri && fabs(excl - re) <= 1e-12 * re);
        assert_true(ri > 200); /* 227.688...: the sum is over contexts, not a total */
    }
    pk_profile_free(p);
    unload(&d);
}

/* cct.db: its Context Info counts are profile.db's transposed (the value
 * blocks of the sample are zero-filled); a changed count is reported. */
static void cct_agrees_with_profile(void **state)
{
    (void)state;
    db d;
    load(&d);
    pk_profile *p = NULL;
    assert_int_equal(open_mem(&d, &p), PK_OK);
    assert_int_equal(tu_count_diagnostics(p, "cct-db-mismatch", PK_SEV_WARNING), 0);
    assert_int_equal(tu_count_diagnostics(p, "cct-db-unwritten", PK_SEV_NOTE), 1);
    pk_profile_free(p);
    unsigned char *c = d.data[2];
    uint64_t ci = be(c + 32, 8);
    c[ci + 22 * 2 + 4 + 7] = 1; /* context 2: 1 value instead of 2 */
    assert_int_equal(open_mem(&d, &p), PK_OK);
    assert_int_equal(tu_count_diagnostics(p, "cct-db-mismatch", PK_SEV_WARNING), 1);
    pk_profile_free(p);
    unload(&d);
}

/* convert --to hpctoolkit, read back: the same model. */
static void round_trip(void **state)
{
    (void)state;
    char work[] = "/tmp/pk-prof2-XXXXXX";
    assert_non_null(mkdtemp(work));
    pk_profile *a = NULL, *b = NULL;
    assert_int_equal(pk_profile_open(g_dir, NULL, &a), PK_OK);
    char out[2048];
    snprintf(out, sizeof out, "%s/db", work);
    if (pk_profile_write(a, PK_FORMAT_HPCTOOLKIT_V4, out, NULL, NULL) != PK_OK)
        fail_msg("write: %s", pk_error_last());
    if (pk_profile_open(out, NULL, &b) != PK_OK) fail_msg("read back: %s", pk_error_last());
    tu_assert_same_model_shaped(a, b, "prof2-draft");
    pk_profile_free(a);
    pk_profile_free(b);
    tu_remove_tree(work);
}

/* Each file cut at many lengths: a clean error naming file and byte. */
static void truncation(void **state)
{
    (void)state;
    db d;
    load(&d);
    size_t failures = 0;
    for (int f = 0; f < 4; f++) {
        uint64_t full = d.sizes[f];
        for (uint64_t cut = 0; cut < full; cut += 1 + full / 301) {
            unsigned char *copy = malloc(cut + 1), *keep = d.data[f];
            memcpy(copy, keep, cut);
            d.data[f] = copy, d.sizes[f] = cut;
            pk_profile *p = NULL;
            pk_status st = open_mem(&d, &p);
            if (st == PK_OK) {
                tu_exercise(p, 1);
                pk_profile_free(p);
            } else {
                assert_int_equal(st, PK_ERR_FORMAT);
                assert_non_null(strstr(pk_error_last(), "byte"));
                assert_non_null(strstr(pk_error_last(), f ? files[f] : "experiment.xml"));
                failures++;
            }
            d.data[f] = keep, d.sizes[f] = full;
            free(copy);
        }
    }
    assert_true(failures > 300);
    unload(&d);
}

int main(void)
{
    const char *corpus = tu_corpus_dir();
    if (!corpus) {
        printf("corpus not found (set PROFKIT_CORPUS): skipped\n");
        return 77;
    }
    snprintf(g_dir, sizeof g_dir, "%s/hpctoolkit/hpcviewer-2022.06-prof2-draft/empty-trace",
             corpus);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(opens_with_hpcviewer_values),
        cmocka_unit_test(totals_match_raw_bytes),
        cmocka_unit_test(cct_agrees_with_profile),
        cmocka_unit_test(round_trip),
        cmocka_unit_test(truncation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
