/*
 * tests/test_roundtrip.c — the HPCToolkit v4 writer: read -> write -> read
 * gives the same model, and the written database passes every check.
 *
 * Runs on the test fixture (always) and on every v4 database of the shared
 * corpus (skipped, saying so, when the corpus is absent). Also checks the
 * writer's promises about the target path: no overwrite without
 * PK_WRITE_FORCE, never replacing something that is not a database, and
 * no leftovers after a failure. Writing the written database again gives
 * the same bytes (the layout is a function of the model).
 */
#define _POSIX_C_SOURCE 200809L

#include "support/pk_cmocka.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixtures/v4_builder.h"
#include "formats/hpctoolkit/write_shape.h"
#include "model/model.h"
#include "support/model_compare.h"
#include "support/testutil.h"

static char work[4096];

static void path_in_work(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", work, name);
}

static pk_profile *open_ok(const char *dir)
{
    pk_profile *p = NULL;
    if (pk_profile_open(dir, NULL, &p) != PK_OK) fail_msg("%s: %s", dir, pk_error_last());
    return p;
}

static void write_ok(const pk_profile *p, const char *out, uint32_t flags)
{
    pk_write_options o = {.flags = flags};
    if (pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, out, &o, NULL) != PK_OK)
        fail_msg("writing %s: %s", out, pk_error_last());
}

/* The written database raises no diagnostic the source did not (an
 * unknown enumeration value is kept, so it is reported again), and its
 * files agree with each other. */
static void assert_checks_clean(const pk_profile *src, const pk_profile *p, const char *what)
{
    for (size_t k = 0; k < pk_diagnostic_count(p); k++) {
        pk_diagnostic d;
        pk_diagnostic_get(p, k, &d);
        if (d.severity == PK_SEV_ERROR || !tu_count_diagnostics(src, d.code, d.severity))
            fail_msg("%s: unexpected diagnostic: %s", what, d.message);
    }
    size_t problems = 1;
    pk_profile_verify(p, NULL, NULL, &problems);
    if (problems) fail_msg("%s: profile.db and cct.db disagree %zu times", what, problems);
}

static void assert_same_file(const char *a, const char *b)
{
    if (!tu_same_file(a, b)) fail_msg("%s and %s differ", a, b);
}

/* hpcviewer's complaints (read_viewer.c) are gone from a written database. */
static void assert_viewer_clean(const pk_profile *p, const char *what)
{
    for (size_t k = 0; k < pk_diagnostic_count(p); k++) {
        pk_diagnostic d;
        pk_diagnostic_get(p, k, &d);
        if (!strncmp(d.code, "viewer-", 7)) fail_msg("%s: %s", what, d.message);
    }
}

/* in -> out1 -> out2: out1 reads back as in, out2 has out1's bytes. A
 * model hpcviewer would misread is written shaped (write_shape.h): then
 * out1 holds in's values under ids hpcviewer reads right, and is itself
 * written as it is. */
static void round_trip(const char *in, const char *label)
{
    char out1[4200], out2[4200];
    path_in_work(out1, sizeof out1, "rt1.d");
    path_in_work(out2, sizeof out2, "rt2.d");
    pk_profile *a = open_ok(in);
    int shaped = !hk_shape_native(a);
    write_ok(a, out1, PK_WRITE_FORCE);
    pk_profile *b = open_ok(out1);
    assert_checks_clean(a, b, out1);
    assert_viewer_clean(b, out1);
    if (shaped) {
        tu_assert_same_model_shaped(a, b, label);
        if (!hk_shape_native(b)) fail_msg("%s: the shaped database is not written as it is", label);
    } else {
        tu_assert_same_model(a, b, label);
    }
    write_ok(b, out2, PK_WRITE_FORCE);
    static const char *const files[] = {"meta.db", "profile.db", "cct.db", "trace.db"};
    for (size_t i = 0; i < 4; i++) {
        char f1[4300], f2[4300];
        snprintf(f1, sizeof f1, "%s/%s", out1, files[i]);
        snprintf(f2, sizeof f2, "%s/%s", out2, files[i]);
        if (access(f1, F_OK) == 0 || access(f2, F_OK) == 0) assert_same_file(f1, f2);
    }
    pk_profile_free(a);
    pk_profile_free(b);
}

/* The fixture written with `db`'s knobs, then round-tripped. */
static void fixture_round_trip(const fx_db *db, const char *label)
{
    char in[4200];
    path_in_work(in, sizeof in, "fixture.d");
    if (fx_write_dir(db, in) != 0) fail_msg("fixture %s could not be written", label);
    round_trip(in, label);
}

static void fixture_databases_round_trip(void **state)
{
    (void)state;
    fx_db db = *fx_sample_db();
    fixture_round_trip(&db, "fixture");
    fx_db odd = db;
    odd.unknown_enums = 1; /* unknown relation, lexical type, entry point, scope type */
    fixture_round_trip(&odd, "fixture with unknown enumeration values");
    odd = db;
    odd.minor = 3, odd.extra = 8, odd.extra_flex = 1, odd.shuffle = 1;
    fixture_round_trip(&odd, "fixture in a newer minor layout");
    odd = db;
    odd.no_cct = 1; /* the writer transposes the values itself */
    char in[4200], out[4200];
    path_in_work(in, sizeof in, "nocct.d");
    path_in_work(out, sizeof out, "nocct-out.d");
    assert_int_equal(fx_write_dir(&odd, in), 0);
    for (int sorted = 0; sorted < 2; sorted++) { /* both ways of transposing */
        pk_profile *a = open_ok(in);
        a->cm_sorted_only = sorted;
        write_ok(a, out, PK_WRITE_FORCE);
        pk_profile *b = open_ok(out);
        assert_checks_clean(a, b, out);
        tu_assert_same_model(a, b, "fixture without cct.db");
        pk_profile_free(a);
        pk_profile_free(b);
    }
}

static void corpus_databases_round_trip(void **state)
{
    (void)state;
    char **dbs;
    size_t n = tu_corpus_databases(&dbs), v4 = 0;
    if (!dbs) skip();
    for (size_t i = 0; i < n; i++) {
        pk_profile *p = NULL;
        pk_status st = pk_profile_open(dbs[i], NULL, &p);
        pk_profile_free(p);
        if (st == PK_ERR_UNKNOWN_FORMAT || st == PK_ERR_UNSUPPORTED) continue; /* not v4 */
        round_trip(dbs[i], dbs[i]);
        v4++;
    }
    tu_free_list(dbs, n);
    printf("round trip: %zu corpus v4 databases read -> written -> read identical\n", v4);
    assert_true(v4 >= 25);
}

static int has_leftovers(void)
{
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -q -e '\\.tmp-' -e '\\.old-'", work);
    return system(cmd) == 0;
}

static void existing_target_needs_force(void **state)
{
    (void)state;
    char in[4200], out[4200], meta[4300];
    path_in_work(in, sizeof in, "src.d");
    path_in_work(out, sizeof out, "target.d");
    snprintf(meta, sizeof meta, "%s/meta.db", out);
    assert_int_equal(fx_write_dir(fx_sample_db(), in), 0);
    pk_profile *p = open_ok(in);
    write_ok(p, out, PK_WRITE_FORCE);
    struct stat before, after;
    assert_int_equal(stat(meta, &before), 0);
    assert_int_equal(pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, out, NULL, NULL), PK_ERR_IO);
    assert_non_null(strstr(pk_error_last(), "already exists (use --force"));
    assert_int_equal(stat(meta, &after), 0);
    assert_int_equal(before.st_ino, after.st_ino); /* untouched */
    write_ok(p, out, PK_WRITE_FORCE);              /* replaced */
    assert_int_equal(stat(meta, &after), 0);
    assert_int_not_equal(before.st_ino, after.st_ino);
    assert_false(has_leftovers());
    pk_profile_free(p);
}

static void never_replaces_what_is_not_a_database(void **state)
{
    (void)state;
    char in[4200], dir[4200], keep[4300];
    path_in_work(in, sizeof in, "src.d");
    path_in_work(dir, sizeof dir, "precious");
    snprintf(keep, sizeof keep, "%s/notes.txt", dir);
    mkdir(dir, 0755);
    FILE *f = fopen(keep, "w");
    assert_non_null(f);
    fputs("not a database\n", f);
    fclose(f);
    assert_int_equal(fx_write_dir(fx_sample_db(), in), 0);
    pk_profile *p = open_ok(in);
    pk_write_options o = {.flags = PK_WRITE_FORCE};
    assert_int_equal(pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, dir, &o, NULL), PK_ERR_IO);
    assert_non_null(strstr(pk_error_last(), "profkit cannot tell that it wrote it"));
    assert_int_equal(access(keep, F_OK), 0);
    pk_profile_free(p);
}

static void failure_leaves_nothing_behind(void **state)
{
    (void)state;
    char in[4200], out[4200];
    path_in_work(in, sizeof in, "src.d");
    path_in_work(out, sizeof out, "no/such/parent/x.d");
    assert_int_equal(fx_write_dir(fx_sample_db(), in), 0);
    pk_profile *p = open_ok(in);
    pk_write_options o = {.flags = PK_WRITE_FORCE};
    assert_int_equal(pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, out, &o, NULL), PK_ERR_IO);
    assert_non_null(strstr(pk_error_last(), "cannot create"));
    assert_false(has_leftovers());
    assert_int_equal(pk_profile_write(p, PK_FORMAT_UNKNOWN, out, &o, NULL), PK_ERR_UNSUPPORTED);
    pk_profile_free(p);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(work, sizeof work, "%s/pk-roundtrip-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(work)) {
        perror("mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixture_databases_round_trip),
        cmocka_unit_test(existing_target_needs_force),
        cmocka_unit_test(never_replaces_what_is_not_a_database),
        cmocka_unit_test(failure_leaves_nothing_behind),
        cmocka_unit_test(corpus_databases_round_trip),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tu_remove_tree(work);
    return rc;
}
