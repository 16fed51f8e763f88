/*
 * tests/test_v40.c — the intermediate v4.0 HPCToolkit layout
 * (docs/hpctoolkit-v4.0-intermediate.md).
 *
 * No real database in that layout is known, so the test files are
 * GENERATED (tests/fixtures/v40_writer.h) from real corpus databases and
 * from the fixture database: each is read by profkit, written in the
 * intermediate layout, read back, and the two models must be the same
 * (model_compare.h; entry points are written as placeholder root
 * functions, "<program root>", and read back as entry points).
 * Then the generated files are truncated and damaged: every outcome must
 * be a clean error naming the file, or a profile whose accessors all work.
 */
#include "support/pk_cmocka.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures/v40_writer.h"
#include "support/model_compare.h"
#include "support/testutil.h"
#include "util/bytes.h"

static pk_status open_images(fx_image img[4], uint32_t flags, pk_profile **p)
{
    const char *names[4];
    const void *data[4];
    uint64_t sizes[4];
    size_t n = 0;
    for (int i = 0; i < 4; i++)
        if (img[i].data) {
            names[n] = img[i].name;
            data[n] = img[i].data;
            sizes[n++] = img[i].size;
        }
    pk_open_options o = {flags, 0};
    *p = NULL;
    return pk_profile_open_memory(PK_FORMAT_HPCTOOLKIT_V4, n, names, data, sizes, &o, p);
}

/* Errors and warnings the reader reported. */
/* Warnings and errors, but for those about metrics/default.yaml: a
 * database opened from memory images has none to read. */
static size_t problems(const pk_profile *p)
{
    size_t n = 0;
    for (size_t i = 0; i < pk_diagnostic_count(p); i++) {
        pk_diagnostic d;
        pk_diagnostic_get(p, i, &d);
        n += d.severity >= PK_SEV_WARNING && strcmp(d.code, "viewer-yaml") != 0;
    }
    return n;
}

static int saw_layout_record(void *user, const pk_record *rec)
{
    if (strcmp(rec->type, "layout") == 0) *(int *)user = 1;
    return 0;
}

static int has_function(const pk_profile *p, const char *name)
{
    for (pk_index f = 0; f < pk_function_count(p); f++) {
        pk_function fn;
        if (pk_function_get(p, f, &fn) == PK_OK && fn.name && strcmp(fn.name, name) == 0) return 1;
    }
    return 0;
}

/* Rewrite `a` in the intermediate layout and check the read-back model:
 * the same, its entry points read back from hpcprof's 2022 placeholder
 * root contexts ("<program root>"). */
static void round_trip(const pk_profile *a, const char *label)
{
    fx_image img[4];
    const char *why = NULL;
    if (fx_build_v40(a, img, &why) != 0) fail_msg("%s: generator: %s", label, why);
    pk_profile *b;
    if (open_images(img, 0, &b) != PK_OK) fail_msg("%s: %s", label, pk_error_last());
    pk_profile_info ia, ib;
    pk_profile_get_info(a, &ia);
    pk_profile_get_info(b, &ib);
    assert_null(ia.layout);
    assert_non_null(ib.layout);
    assert_string_equal(ib.layout, "intermediate");
    tu_assert_same_model_v40(a, b, label);
    for (pk_index i = 0; i < pk_context_count(a); i++) { /* entries came as placeholders */
        pk_context x;
        pk_context_get(a, i, &x);
        if (x.kind == PK_CTX_ENTRY && !has_function(b, fx_v40_entry_placeholder(x.entry)))
            fail_msg("%s: the generated meta.db has no function %s for entry point %u", label,
                     fx_v40_entry_placeholder(x.entry), i);
    }
    if (problems(b) != problems(a))
        fail_msg("%s: %zu problems reported, the original has %zu", label, problems(b),
                 problems(a));
    int layout = 0;
    const char *names[4] = {"meta.db"};
    const void *data[4] = {img[0].data};
    uint64_t sizes[4] = {img[0].size};
    assert_int_equal(pk_dump_memory(PK_FORMAT_HPCTOOLKIT_V4, 1, names, data, sizes, NULL,
                                    saw_layout_record, &layout),
                     PK_OK);
    assert_true(layout);
    pk_profile_free(b);
    fx_free(img);
}

static void fixture_round_trips(void **s)
{
    (void)s;
    fx_image img[4];
    assert_int_equal(fx_build(fx_sample_db(), img), 0);
    pk_profile *a;
    assert_int_equal(open_images(img, 0, &a), PK_OK);
    round_trip(a, "fixture");
    pk_profile_free(a);
    fx_free(img);
}

static void corpus_round_trips(void **s)
{
    (void)s;
    char **dbs;
    size_t n = tu_corpus_databases(&dbs), done = 0;
    if (!dbs) skip();
    for (size_t i = 0; i < n; i++) {
        pk_profile *a;
        if (pk_profile_open(dbs[i], NULL, &a) != PK_OK) continue; /* not a v4 database */
        pk_profile_info info;
        pk_profile_get_info(a, &info);
        if (info.format == PK_FORMAT_HPCTOOLKIT_V4) {
            round_trip(a, dbs[i]);
            done++;
        }
        pk_profile_free(a);
    }
    printf("  %zu corpus databases rewritten in the intermediate layout and compared\n", done);
    assert_true(done >= 20);
    tu_free_list(dbs, n);
}

/* ---- damage ---- */

typedef struct gen {
    fx_image img[4];
} gen;

static void generate(gen *g)
{
    fx_image src[4];
    pk_profile *a;
    assert_int_equal(fx_build(fx_sample_db(), src), 0);
    assert_int_equal(open_images(src, 0, &a), PK_OK);
    assert_int_equal(fx_build_v40(a, g->img, NULL), 0);
    pk_profile_free(a);
    fx_free(src);
}

/* Opening must fail with a message containing every fragment. */
static void expect_error(gen *g, const char *f1, const char *f2)
{
    pk_profile *p;
    pk_status st = open_images(g->img, 0, &p);
    if (st == PK_OK) fail_msg("damaged database opened (expected '%s')", f1);
    if (!strstr(pk_error_last(), f1) || (f2 && !strstr(pk_error_last(), f2)))
        fail_msg("message '%s' lacks '%s' / '%s'", pk_error_last(), f1, f2 ? f2 : "");
}

static uint64_t sect(const gen *g, int file, int i)
{
    return pk_le64(g->img[file].data + 0x18 + 16 * i);
}

static void put(gen *g, int file, uint64_t off, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        g->img[file].data[off + i] = (unsigned char)(v >> (8 * i));
}

static void damaged_structures_are_refused(void **s)
{
    (void)s;
    gen g;
    generate(&g);
    uint64_t met = sect(&g, 0, 2), ctx = sect(&g, 0, 3), pi = sect(&g, 1, 0);
    uint64_t md = pk_le64(g.img[0].data + met), ps = pk_le64(g.img[0].data + md + 0x10);

    put(&g, 0, met + 0x0d, 16, 1); /* szScope below the layout's 24 */
    expect_error(&g, "meta.db: Performance Metrics section at 0x", "szScope 16");
    put(&g, 0, met + 0x0d, 24, 1);

    put(&g, 0, md + 8, 0x7fff, 2); /* nScopes of metric 0 past the section */
    expect_error(&g, "meta.db: Metric 0: pScopes", "nScopes");
    put(&g, 0, md + 8, 3, 2);
    put(&g, 0, ps + 0x10, 0xffff0000, 8); /* pSummaries of metric 0 scope 0 */
    expect_error(&g, "meta.db: Metric 0 Scope 0: pSummaries", NULL);
    fx_free(g.img);
    generate(&g);

    put(&g, 0, ctx, 0x100000, 8); /* szRoots past the section */
    expect_error(&g, "meta.db", "Context");
    fx_free(g.img);
    generate(&g);
    uint64_t roots = pk_le64(g.img[0].data + ctx + 8);
    put(&g, 0, roots + 0x17, 200, 1); /* nFlexWords past the roots array */
    expect_error(&g, "meta.db: Context at 0x", "runs past the end");
    fx_free(g.img);
    generate(&g);

    put(&g, 1, pi + 0x0c, 32, 1); /* szProfile below the layout's 40 */
    expect_error(&g, "profile.db", "Profile Info: pProfiles");
    put(&g, 1, pi + 0x0c, 40, 1);
    put(&g, 1, pk_le64(g.img[1].data + pi) + 40 + 8, g.img[1].size, 8); /* profile 1 pValues */
    expect_error(&g, "profile.db: profile 1 value block: pValues", NULL);
    fx_free(g.img);
}

/* Cut every file at every length (the files are small) and flip every
 * byte: clean errors or working profiles, and with KEEP_GOING a damaged
 * optional file never stops meta.db from opening. */
static void check_damaged(gen *g, int file, size_t at, size_t *opened, size_t *refused)
{
    pk_profile *p;
    if (open_images(g->img, 0, &p) == PK_OK) {
        tu_exercise(p, 1);
        pk_profile_free(p);
        ++*opened;
    } else {
        static const char *const names[4] = {"meta.db", "profile.db", "cct.db", "trace.db"};
        if (!strstr(pk_error_last(), names[file]))
            fail_msg("%s damaged at %zu: message '%s' does not name the file", names[file], at,
                     pk_error_last());
        ++*refused;
    }
    if (file > 0) {
        if (open_images(g->img, PK_OPEN_KEEP_GOING, &p) != PK_OK)
            fail_msg("file %d damaged at %zu: KEEP_GOING failed: %s", file, at, pk_error_last());
        tu_exercise(p, 0);
        pk_profile_free(p);
    }
}

static void truncated_and_flipped_files_are_handled(void **s)
{
    (void)s;
    gen g;
    generate(&g);
    size_t opened = 0, refused = 0;
    for (int f = 0; f < 4; f++) {
        unsigned char *orig = g.img[f].data;
        size_t size = g.img[f].size;
        for (size_t cut = 0; cut < size; cut++) { /* exact-size copies, for ASan */
            g.img[f].data = malloc(cut ? cut : 1);
            memcpy(g.img[f].data, orig, cut);
            g.img[f].size = cut;
            check_damaged(&g, f, cut, &opened, &refused);
            free(g.img[f].data);
        }
        g.img[f].data = orig;
        g.img[f].size = size;
        for (size_t at = 0; at < size; at++) {
            orig[at] ^= 0xff;
            check_damaged(&g, f, at, &opened, &refused);
            orig[at] ^= 0xff;
        }
    }
    printf("  damaged generated files: %zu refused with a message, %zu opened\n", refused, opened);
    assert_true(refused > 0);
    fx_free(g.img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixture_round_trips),
        cmocka_unit_test(corpus_round_trips),
        cmocka_unit_test(damaged_structures_are_refused),
        cmocka_unit_test(truncated_and_flipped_files_are_handled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
