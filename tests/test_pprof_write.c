/*
 * tests/test_pprof_write.c — the pprof writer, and the reader on damage.
 *
 * Writer (the reference reader, go tool pprof, checks its files in
 * tests/pprof/check_pprof.py and the conversion matrix; here the checks
 * that need no Go): a pprof profile written and read back keeps its
 * metrics, values per location and labels; the sample database's
 * seconds become nanoseconds, with every left-out item reported once
 * and --strict refusing instead; --location sums the locations it
 * names; --force replaces a pprof file profkit wrote even where no mark
 * attribute can be set (its signature), and nothing else.
 *
 * Damage: every prefix and every byte flipped of profiles made by hand
 * and by the writer, and spread over the decompressed corpus files:
 * each is a clean error naming the file and a byte offset, or opens
 * with every accessor working, and then writes and reads back.
 */
#define _GNU_SOURCE
#include "support/pk_cmocka.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <zlib.h>

#include "fixtures/v4_builder.h"
#include "support/pprof_build.h"
#include "support/testutil.h"

static const char *const NAME = "d.pb";

static pk_status open_bytes(const void *data, size_t n, pk_profile **p)
{
    void *copy = malloc(n ? n : 1);
    memcpy(copy, data, n);
    const void *d = copy;
    uint64_t size = n;
    pk_status st = pk_profile_open_memory(PK_FORMAT_PPROF, 1, &NAME, &d, &size, NULL, p);
    free(copy);
    return st;
}

typedef struct losses {
    int n;
    char items[16][64];
} losses;

static void on_loss(void *user, const char *item, const char *reason)
{
    losses *l = user;
    (void)reason;
    if (l->n < 16) snprintf(l->items[l->n], sizeof l->items[0], "%s", item);
    l->n++;
}

static pk_profile *write_read(const pk_profile *p, const char *name, const char *location,
                              losses *lost)
{
    char path[256];
    tu_scratch_path(path, sizeof path, name);
    pk_write_options o = {
        .flags = PK_WRITE_FORCE, .loss = on_loss, .loss_user = lost, .location = location};
    if (pk_profile_write(p, PK_FORMAT_PPROF, path, &o, NULL)) fail_msg("%s", pk_error_last());
    pk_profile *q;
    if (pk_profile_open(path, NULL, &q)) fail_msg("%s: %s", path, pk_error_last());
    tu_exercise(q, 1);
    return q;
}

static double location_total(const pk_profile *p, pk_index l, pk_index metric)
{
    size_t n = pk_location_count(p);
    double *t = calloc(n, sizeof *t), v;
    assert_int_equal(pk_location_totals(p, metric, t, n), PK_OK);
    v = t[l];
    free(t);
    return v;
}

static void test_round_trip(void **state)
{
    (void)state;
    pb_out o = {0};
    ppb_standard(&o);
    pk_profile *a, *b;
    if (open_bytes(o.buf, o.len, &a)) fail_msg("%s", pk_error_last());
    losses lost = {0};
    b = write_read(a, "rt.pb.gz", NULL, &lost);
    assert_int_equal(lost.n, 0);
    assert_int_equal(pk_metric_count(b), 2);
    assert_int_equal(pk_location_count(b), pk_location_count(a));
    for (pk_index l = 0; l < pk_location_count(a); l++) {
        char na[128], nb[128];
        pk_location_name(a, l, na, sizeof na), pk_location_name(b, l, nb, sizeof nb);
        assert_string_equal(na, nb);
        for (pk_index m = 0; m < 2; m++)
            assert_true(location_total(a, l, m) == location_total(b, l, m));
    }
    const char *keys[] = {"pprof:period", "pprof:time_nanos", "pprof:mapping"};
    for (size_t k = 0; k < 3; k++)
        assert_string_equal(pk_attribute_find(a, PK_ENTITY_PROFILE, 0, keys[k]),
                            pk_attribute_find(b, PK_ENTITY_PROFILE, 0, keys[k]));
    pk_index def;
    assert_int_equal(pk_metric_default(b, &def), PK_OK);
    assert_int_equal(def, 1);
    pk_profile_free(b);
    b = write_read(a, "summed.pb", "thread=t1", &lost); /* one location, unlabelled */
    assert_int_equal(pk_location_count(b), 1);
    double total;
    pk_metric_program_total(b, 1, &total);
    assert_true(total == 30);
    pk_profile_free(a), pk_profile_free(b);
    pb_out_free(&o);
}

static int lost_item(const losses *l, const char *item)
{
    for (int i = 0; i < l->n && i < 16; i++)
        if (!strcmp(l->items[i], item)) return 1;
    return 0;
}

static void test_from_database(void **state)
{
    (void)state;
    char dir[128];
    pk_profile *a = tu_open_fixture(fx_sample_db(), dir);
    losses lost = {0};
    pk_profile *b = write_read(a, "db.pb.gz", NULL, &lost);
    assert_true(lost_item(&lost, "traces") && lost_item(&lost, "entry points"));
    for (int i = 0; i < lost.n; i++) /* once per item */
        for (int k = 0; k < i; k++)
            assert_string_not_equal(lost.items[i], lost.items[k]);
    for (pk_index m = 0; m < pk_metric_count(a); m++) {
        pk_metric ma, mb;
        double ta, tb;
        pk_metric_get(a, m, &ma), pk_metric_get(b, m, &mb);
        pk_metric_program_total(a, m, &ta), pk_metric_program_total(b, m, &tb);
        double scale = strstr(ma.name, "(sec)") ? 1e9 : 1;
        if (scale == 1)
            assert_null(mb.unit);
        else
            assert_string_equal(mb.unit, "nanoseconds");
        if (fabs(ta * scale - tb) > 1e-6 * fabs(tb)) fail_msg("%s: %g vs %g", ma.name, ta, tb);
    }
    pk_profile_free(b);
    char path[256];
    tu_scratch_path(path, sizeof path, "strict.pb.gz");
    pk_write_options o = {.flags = PK_WRITE_STRICT};
    assert_int_equal(pk_profile_write(a, PK_FORMAT_PPROF, path, &o, NULL), PK_ERR_UNSUPPORTED);
    assert_non_null(strstr(pk_error_last(), "--strict"));
    FILE *f = fopen(path, "rb");
    assert_null(f); /* nothing written */
    tu_close_fixture(a, dir);
}

/* --force replaces a pprof file profkit wrote, told by its signature
 * where the mark attribute is gone, and refuses any other file. */
static void test_force(void **state)
{
    (void)state;
    pb_out o = {0};
    ppb_standard(&o);
    pk_profile *a;
    if (open_bytes(o.buf, o.len, &a)) fail_msg("%s", pk_error_last());
    const char *names[] = {"f.pb.gz", "f.pb"};
    for (int i = 0; i < 2; i++) {
        char path[256];
        tu_scratch_path(path, sizeof path, names[i]);
        pk_write_options w = {.flags = PK_WRITE_FORCE};
        assert_int_equal(pk_profile_write(a, PK_FORMAT_PPROF, path, &w, NULL), PK_OK);
        removexattr(path, "user.profkit");
        if (pk_profile_write(a, PK_FORMAT_PPROF, path, &w, NULL))
            fail_msg("%s: %s", path, pk_error_last());
        unlink(path); /* a new file: no mark */
        FILE *f = fopen(path, "wb");
        fputs("not a profile", f), fclose(f);
        assert_int_equal(pk_profile_write(a, PK_FORMAT_PPROF, path, &w, NULL), PK_ERR_IO);
    }
    pk_profile_free(a);
    pb_out_free(&o);
}

/* ---- damage ---- */

typedef struct tally {
    size_t opened, refused;
} tally;

static void try_damaged(const unsigned char *d, size_t n, const char *what, size_t at, tally *t)
{
    pk_profile *p = NULL;
    pk_status st = open_bytes(d, n, &p);
    if (st) {
        const char *msg = pk_error_last();
        if (!*msg || !strstr(msg, NAME) || (st == PK_ERR_FORMAT && !strstr(msg, "byte ")))
            fail_msg("%s at %zu: status %d, message '%s'", what, at, st, msg);
        t->refused++;
        return;
    }
    t->opened++;
    tu_exercise(p, 0);
    losses lost = {0};
    pk_profile *q = write_read(p, "damaged.pb.gz", NULL, &lost);
    pk_profile_free(q), pk_profile_free(p);
}

/* Every prefix and every byte flipped, or `points` of each spread evenly. */
static void damage_all(const unsigned char *d, size_t n, const char *what, size_t points, tally *t)
{
    unsigned char *copy = malloc(n);
    size_t step = points && n > points ? n / points : 1;
    for (size_t len = 0; len < n; len += step)
        try_damaged(d, len, what, len, t);
    for (size_t i = 0; i < n; i += step) {
        memcpy(copy, d, n);
        copy[i] ^= 0xff;
        try_damaged(copy, n, what, i, t);
    }
    free(copy);
}

static void test_damage_made(void **state)
{
    (void)state;
    pb_out o = {0};
    ppb_standard(&o);
    tally t = {0};
    damage_all(o.buf, o.len, "standard", 0, &t);
    /* what the writer makes of the project's Callgrind sample, plain */
    pk_profile *p;
    char path[256];
    size_t n;
    assert_int_equal(
        pk_profile_open(PK_SOURCE_DIR "/tests/data/callgrind/sample.callgrind", NULL, &p), PK_OK);
    tu_scratch_path(path, sizeof path, "cg.pb");
    pk_write_options w = {.flags = PK_WRITE_FORCE};
    assert_int_equal(pk_profile_write(p, PK_FORMAT_PPROF, path, &w, NULL), PK_OK);
    pk_profile_free(p);
    unsigned char *cg = tu_read_file(path, &n);
    damage_all(cg, n, "written", 0, &t);
    printf("made profiles: %zu damaged copies opened, %zu refused cleanly\n", t.opened, t.refused);
    assert_true(t.opened > 0 && t.refused > 0);
    free(cg);
    pb_out_free(&o);
}

static unsigned char *gunzip(const unsigned char *z, size_t zn, size_t *n)
{
    size_t cap = 1u << 20;
    unsigned char *out = malloc(cap);
    z_stream s;
    memset(&s, 0, sizeof s);
    inflateInit2(&s, 31);
    s.next_in = (unsigned char *)z, s.avail_in = (uInt)zn;
    int rc;
    do {
        if (s.total_out == cap) out = realloc(out, cap *= 2);
        s.next_out = out + s.total_out, s.avail_out = (uInt)(cap - s.total_out);
        rc = inflate(&s, Z_NO_FLUSH);
    } while (rc == Z_OK);
    *n = s.total_out;
    inflateEnd(&s);
    return out;
}

static void test_damage_corpus(void **state)
{
    (void)state;
    const char *corpus = tu_corpus_dir();
    if (!corpus) skip();
    char root[4096], **files;
    snprintf(root, sizeof root, "%s/pprof", corpus);
    size_t nf = tu_find_files(root, ".pb.gz", &files);
    tally t = {0};
    for (size_t i = 0; i < nf; i++) {
        size_t zn, n;
        unsigned char *z = tu_read_file(files[i], &zn), *raw = gunzip(z, zn, &n);
        damage_all(raw, n, files[i], 48, &t);
        damage_all(z, zn, files[i], 16, &t); /* the gzip layer too */
        free(z), free(raw);
    }
    printf("corpus: %zu files, %zu damaged copies opened, %zu refused cleanly\n", nf, t.opened,
           t.refused);
    tu_free_list(files, nf);
}

static int setup(void **state)
{
    (void)state;
    return tu_scratch_make("pk-pprof-write");
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
        cmocka_unit_test(test_round_trip),    cmocka_unit_test(test_from_database),
        cmocka_unit_test(test_force),         cmocka_unit_test(test_damage_made),
        cmocka_unit_test(test_damage_corpus),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
