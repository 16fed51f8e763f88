/*
 * tests/test_hpcrun.c — the .hpcrun/.hpctrace reader (formats/hpcrun) on
 * the corpus measurements: every file parses and prints; small.m's numbers
 * are the known ones; 02.00/03.00 files written from each 04.00 file
 * (tests/fixtures/hpcrun_dense.c; no real one exists) read back to the
 * same values; every prefix of a file and every flipped byte gives a clean
 * error or a whole file, never a crash; specific damage gives the error
 * that names file, structure and byte offset.
 */
#define _GNU_SOURCE

#include "support/pk_cmocka.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures/hpcrun_dense.h"
#include "formats/hpcrun/hr_print.h"
#include "support/testutil.h"

#define MEAS  "/hpctoolkit/hpctoolkit-tests-meas"
#define SMALL "/small.m/testmeas-small-000000-000-11ac0300-5560-0"

static char *corpus_path(const char *rel)
{
    const char *c = tu_corpus_dir();
    if (!c) return NULL;
    size_t n = strlen(c) + strlen(rel) + 1;
    char *p = malloc(n);
    snprintf(p, n, "%s%s", c, rel);
    return p;
}

/* A corpus file, or skip the test when there is no corpus. */
static unsigned char *corpus_file(const char *rel, size_t *size)
{
    char *p = corpus_path(rel);
    if (!p) skip();
    unsigned char *d = tu_read_file(p, size);
    free(p);
    assert_non_null(d);
    return d;
}

/* Print `data` as hpcproftt would, into memory; returns the text. */
static char *print(const char *name, const void *data, size_t size, int lm, pk_status *st)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    pk_hpcrun_text_options o = {lm, 0};
    *st = hr_write_text(f, name, data, size, &o);
    fclose(f);
    return text;
}

static void test_corpus_parses(void **state)
{
    (void)state;
    char *root = corpus_path(MEAS);
    if (!root) skip();
    char **files;
    size_t n = tu_find_files(root, ".hpcrun", &files), checked = 0;
    assert_int_equal(n, 17);
    for (size_t i = 0; i < n; i++) {
        size_t size;
        unsigned char *d = tu_read_file(files[i], &size);
        pk_arena a;
        pk_arena_init(&a);
        hr_file f;
        assert_int_equal(hr_parse(files[i], d, size, &a, &f), PK_OK);
        assert_true(f.has_sparse && f.n_epochs == 1 && f.major == 4);
        assert_true(f.epochs[0].n_nodes > 0);
        /* the trace of the same thread names only nodes of its profile */
        char tpath[4096];
        snprintf(tpath, sizeof tpath, "%.*s.hpctrace", (int)(strlen(files[i]) - 7), files[i]);
        size_t tsize;
        unsigned char *td = tu_read_file(tpath, &tsize);
        if (td) {
            hr_trace t;
            assert_int_equal(hr_trace_parse(tpath, td, tsize, &t), PK_OK);
            for (uint64_t r = 0; r < t.n_records; r++) {
                uint64_t time;
                uint32_t id, m, k = 0;
                hr_trace_record(&t, r, &time, &id, &m);
                while (k < f.epochs[0].n_nodes && (uint32_t)f.epochs[0].nodes[k].id != id)
                    k++;
                assert_true(k < f.epochs[0].n_nodes);
            }
            free(td);
            checked++;
        }
        pk_status st;
        free(print(files[i], d, size, 0, &st));
        assert_int_equal(st, PK_OK);
        pk_arena_free(&a);
        free(d);
    }
    assert_int_equal(checked, 13);
    tu_free_list(files, n);
    free(root);
}

static void test_small_values(void **state)
{
    (void)state;
    size_t size;
    unsigned char *d = corpus_file(MEAS SMALL ".hpcrun", &size);
    pk_arena a;
    pk_arena_init(&a);
    hr_file f;
    assert_int_equal(hr_parse("small", d, size, &a, &f), PK_OK);
    const hr_epoch *e = &f.epochs[0];
    assert_int_equal(e->n_nodes, 13);
    assert_int_equal(e->n_loadmap, 17);
    assert_int_equal(e->n_metrics, 1);
    assert_true(hr_str_eq(e->metrics[0].name, "CPUTIME (sec)"));
    assert_int_equal(e->metrics[0].val_fmt, HR_VALFMT_REAL);
    assert_int_equal(f.sparse.n_values, 5);
    assert_int_equal(f.footer.sparse.end, 6334);
    assert_int_equal(f.sparse.idtuple.n, 3);
    assert_int_equal(f.sparse.idtuple.ids[0].raw_kind, 0x4001);
    double sum = 0;
    for (uint64_t i = 0; i < f.sparse.n_values; i++) {
        uint16_t m;
        uint64_t w;
        hr_sparse_value(&f.sparse, i, &m, &w);
        sum += hr_word_real(w);
    }
    assert_true(sum > 1.210259 - 1e-9 && sum < 1.210259 + 1e-9);
    hr_str v;
    assert_true(hr_nvpairs_find(&f.hdr, "trace-min-time", &v));
    assert_true(hr_str_eq(v, "1714021984008891000"));
    assert_string_equal(hr_placeholder_name(e->nodes[2].lm_ip), "<program root>");
    assert_null(hr_placeholder_name(e->nodes[0].lm_ip)); /* ^Primary has none */
    pk_arena_free(&a);
    free(d);
}

/* 02.00/03.00 images of every corpus file read back to its values. */
static void check_dense(const hr_file *v4, const fx_dense_options *o)
{
    pk_buf b = {0};
    assert_int_equal(fx_write_dense(v4, o, &b), 0);
    unsigned char *img = malloc(b.len);
    memcpy(img, b.data, b.len);
    pk_arena a;
    pk_arena_init(&a);
    hr_file f;
    assert_int_equal(hr_parse("dense", img, b.len, &a, &f), PK_OK);
    assert_false(f.has_sparse);
    assert_int_equal(f.n_epochs, o->epochs);
    assert_string_equal(f.version, o->version);
    for (uint32_t k = 0; k < f.n_epochs; k++) {
        const hr_epoch *e = &f.epochs[k], *s = &v4->epochs[0];
        assert_int_equal(e->n_nodes, s->n_nodes);
        assert_int_equal(e->n_metrics, s->n_metrics);
        assert_int_equal(e->flags & 1, o->lush);
        for (uint32_t m = 0; m < e->n_metrics; m++) {
            assert_int_equal(e->metrics[m].old_layout, o->old_flags);
            assert_int_equal(e->metrics[m].type, s->metrics[m].type);
            assert_int_equal(e->metrics[m].val_fmt, s->metrics[m].val_fmt);
            assert_int_equal(e->metrics[m].show_percent, s->metrics[m].show_percent & 1);
        }
        for (uint64_t i = 0; i < e->n_nodes; i++) {
            const hr_cct_node *x = &e->nodes[i];
            int32_t id = x->id < 0 ? -x->id : x->id;
            assert_int_equal(id, s->nodes[i].id);
            for (uint32_t m = 0; m < e->n_metrics; m++)
                assert_true(hr_dense_value(x, m) == fx_sparse_word(v4, (uint32_t)id, (uint16_t)m));
        }
    }
    pk_arena_free(&a);
    free(img);
    pk_buf_free(&b);
}

static void test_dense(void **state)
{
    (void)state;
    char *root = corpus_path(MEAS);
    if (!root) skip();
    char **files;
    size_t n = tu_find_files(root, ".hpcrun", &files);
    static const fx_dense_options opts[] = {
        {"02.00", 1, 0, 0}, {"03.00", 3, 1, 0}, {"03.00", 2, 0, 1}};
    for (size_t i = 0; i < n; i++) {
        size_t size;
        unsigned char *d = tu_read_file(files[i], &size);
        pk_arena a;
        pk_arena_init(&a);
        hr_file f;
        assert_int_equal(hr_parse(files[i], d, size, &a, &f), PK_OK);
        for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++)
            check_dense(&f, &opts[k]);
        pk_arena_free(&a);
        free(d);
    }
    tu_free_list(files, n);
    free(root);
}

/* Parse (profile or trace) an exact-size copy, so ASan sees overreads. */
static pk_status parse_copy(const unsigned char *d, size_t n)
{
    unsigned char *c = malloc(n ? n : 1);
    memcpy(c, d, n);
    pk_arena a;
    pk_arena_init(&a);
    pk_status st;
    if (hr_detect(c, n) == HR_KIND_TRACE) {
        hr_trace t;
        st = hr_trace_parse("cut", c, n, &t);
    } else {
        hr_file f;
        st = hr_parse("cut", c, n, &a, &f);
    }
    if (st) {
        assert_non_null(strstr(pk_error_last(), "cut: "));
        assert_non_null(strstr(pk_error_last(), "byte"));
    } else {
        char *text = print("cut", c, n, 0, &st);
        assert_int_equal(st, PK_OK);
        free(text);
    }
    pk_arena_free(&a);
    free(c);
    return st;
}

static void test_truncation(void **state)
{
    (void)state;
    size_t size, tsize;
    unsigned char *d = corpus_file(MEAS SMALL ".hpcrun", &size);
    unsigned char *t = corpus_file(MEAS SMALL ".hpctrace", &tsize);
    for (size_t n = 0; n < size; n++) /* 04.00: nothing short of the footer reads */
        assert_int_not_equal(parse_copy(d, n), PK_OK);
    assert_int_equal(parse_copy(d, size), PK_OK);
    for (size_t n = 0; n <= tsize; n++) /* traces: whole records are a trace */
        assert_int_equal(parse_copy(t, n) == PK_OK, n >= 32 && (n - 32) % 12 == 0);
    /* dense: whole epochs are a file */
    pk_arena a;
    pk_arena_init(&a);
    hr_file f, g;
    assert_int_equal(hr_parse("small", d, size, &a, &f), PK_OK);
    pk_buf b = {0};
    fx_dense_options o = {"03.00", 2, 1, 0};
    assert_int_equal(fx_write_dense(&f, &o, &b), 0);
    assert_int_equal(hr_parse("dense", b.data, b.len, &a, &g), PK_OK);
    for (size_t n = 0; n <= b.len; n++) {
        int whole = n == b.len || n == g.epochs[0].offset || n == g.epochs[1].offset;
        assert_int_equal(parse_copy(b.data, n) == PK_OK, whole);
    }
    pk_buf_free(&b);
    pk_arena_free(&a);
    free(d);
    free(t);
}

static void test_flips(void **state)
{
    (void)state;
    size_t size, tsize;
    unsigned char *d = corpus_file(MEAS SMALL ".hpcrun", &size);
    unsigned char *t = corpus_file(MEAS SMALL ".hpctrace", &tsize);
    static const unsigned char masks[] = {0xff, 0x01, 0x80};
    size_t ok = 0, bad = 0;
    for (size_t k = 0; k < sizeof masks; k++) {
        for (size_t i = 0; i < size; i++) {
            d[i] ^= masks[k];
            parse_copy(d, size) == PK_OK ? ok++ : bad++;
            d[i] ^= masks[k];
        }
        for (size_t i = 0; i < tsize; i++) {
            t[i] ^= masks[k];
            parse_copy(t, tsize) == PK_OK ? ok++ : bad++;
            t[i] ^= masks[k];
        }
    }
    /* zero padding and values flip harmlessly, structure does not */
    assert_true(ok > 0 && bad > 0);
    free(d);
    free(t);
}

/* small.m's .hpcrun with bytes [at, at+n) replaced; parse must fail with
 * a message containing `want`. */
static void damaged(uint64_t at, const void *bytes, size_t n, const char *want)
{
    size_t size;
    unsigned char *d = corpus_file(MEAS SMALL ".hpcrun", &size);
    memcpy(d + at, bytes, n);
    pk_arena a;
    pk_arena_init(&a);
    hr_file f;
    assert_int_not_equal(hr_parse("small.hpcrun", d, size, &a, &f), PK_OK);
    if (!strstr(pk_error_last(), want)) fail_msg("'%s' lacks '%s'", pk_error_last(), want);
    pk_arena_free(&a);
    free(d);
}

static void test_damage(void **state)
{
    (void)state;
    /* offsets from small.m's footer: cct 3072..3327, metrics 4096..4186,
     * sparse 6144..6334 (values at 6144+2+54+12), footer at 7168 */
    damaged(7168 + 104, "HPCRUNxx", 8, "footer at byte 7168: magic at byte 7272");
    damaged(7168 + 40, "\0\0\0\0\0\0\x0d\x00", 8,
            "the cct section ends at byte 3327, but the footer says it ends at byte 3328");
    damaged(7168 + 40, "\0\0\0\0\0\0\x0c\xfe", 8,
            "count 13 of at least 19 bytes each does not fit in the 246 bytes before the end of "
            "the cct section");
    damaged(7168 + 96, "\0\0\0\0\0\0\x1b\xff", 8, "it says it starts at byte 7167");
    damaged(7168 + 40, "\0\0\0\0\0\0\x1c\x01", 8, "cct section [3072, 7169)");
    damaged(3072, "\0\0\0\0\x10\0\0\0", 8, "cct nodes at byte 3080: count 268435456");
    damaged(3080 + 19 + 4, "\0\0\x03\xe7", 4, "parent 999 is not an earlier node");
    damaged(3080 + 19, "\0\0\0\x0c", 4, "id 12 appears twice");
    damaged(3080 + 19, "\0\0\0\0", 4, "cct node at byte 3099: id 0 is reserved");
    damaged(3080, "\0\0\0\x02\0\0\0\x02", 8, "cct node 2 at byte 3080: parent 2");
    damaged(6144 + 56 + 12 + 8, "\0\x05", 2, "metric id 5");
    damaged(6144 + 56 + 12 + 50 + 60, "\0\0\0\0", 4, "is not (\"end!\", 5)");
    damaged(6144 + 56 + 12 + 50 + 12 + 4, "\0\0\0\0\0\0\0\x09", 8, "start 9 is not between");
    damaged(6144 + 56 + 12 + 50, "\0\0\0\x63", 4, "cct node 99 is not in the cct");
    damaged(18, "05.00", 5, "profile version '05.00'");
    damaged(4096, "\0\0\0\x02", 4, "metric table at byte 4100: count 2 of at least 60 bytes");
}

/* --lm: gpubin hashes cut, '<' names and unflagged modules left out. */
static void test_lm(void **state)
{
    (void)state;
    size_t size;
    unsigned char *d = corpus_file(MEAS SMALL ".hpcrun", &size);
    /* the loadmap section starts at byte 1024; module 1 is the program */
    unsigned char *p = memmem(d + 1024, size - 1024, "testmeas-small", 14);
    assert_non_null(p);
    memcpy(p + 4, "gpubin.ab", 9); /* ".../testgpubin.ab" */
    unsigned char *q = memmem(d, size,
                              "/builds/hpctoolkit/hpctoolkit/builddir/src/tool/hpcrun/"
                              "libhpcrun.so",
                              67);
    assert_non_null(q);
    q[0] = '<';
    pk_status st;
    char *text = print("lm", d, size, 1, &st);
    assert_int_equal(st, PK_OK);
    assert_string_equal(text,
                        "/builds/hpctoolkit/hpctoolkit/builddir/tests/data/meas/testgpubin\n");
    free(text);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_parses),
        cmocka_unit_test(test_small_values),
        cmocka_unit_test(test_dense),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_flips),
        cmocka_unit_test(test_damage),
        cmocka_unit_test(test_lm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
