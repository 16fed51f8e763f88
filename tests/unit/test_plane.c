/*
 * tests/unit/test_plane.c — building value planes (model/plane_pack.c):
 * the sort of a context's values by column, and packing triples by
 * counting and by sorting, with and without a stream read in passes.
 */
#define _POSIX_C_SOURCE 200809L

#include "support/pk_cmocka.h"

#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "profkit/profkit.h"
#include "util/bytes.h"

/* A context's plane values by column id, few (insertion) and many (the
 * merge sort): ascending, and equal ids keep their order. */
static void plane_values_sort_by_column(void **state)
{
    (void)state;
    enum { N = 40 };
    unsigned char vals[N * PK_LM_VAL_SIZE];
    for (size_t n = 3; n <= N; n += N - 3) {
        for (size_t i = 0; i < n; i++) {
            pk_put_le16(vals + i * PK_LM_VAL_SIZE, (uint16_t)((i * 7) % 5));
            pk_put_le64(vals + i * PK_LM_VAL_SIZE + 2, i);
        }
        assert_int_equal(pk_plane_sort_columns(vals, 0, n), 0);
        for (size_t i = 1; i < n; i++) {
            const unsigned char *x = vals + (i - 1) * PK_LM_VAL_SIZE, *y = x + PK_LM_VAL_SIZE;
            assert_true(pk_le16(x) < pk_le16(y) ||
                        (pk_le16(x) == pk_le16(y) && pk_le64(x + 2) < pk_le64(y + 2)));
        }
    }
}

/* The plane holds exactly the n values whose value is their order of
 * arrival, ordered by (context, column), ties by arrival, and its index
 * lists each context once, at its first value. */
static void assert_packed(const pk_plane *pl, uint64_t n)
{
    assert_int_equal(pl->nvals, n);
    unsigned char *seen = calloc(n + 1, 1);
    uint32_t k = 0;
    for (uint64_t i = 0; i < n; i++) {
        const unsigned char *r = pl->vals + i * PK_LM_VAL_SIZE;
        double v = pk_le_f64(r + 2);
        assert_true(v >= 1 && v <= (double)n && !seen[(uint64_t)v]);
        seen[(uint64_t)v] = 1;
        while (k + 1 < pl->nidx && pk_le64(pl->idx + (k + 1) * PK_LM_IDX_SIZE + 4) <= i)
            k++;
        assert_true(pk_le64(pl->idx + k * PK_LM_IDX_SIZE + 4) <= i);
        int first = i == pk_le64(pl->idx + k * PK_LM_IDX_SIZE + 4);
        if (!first) {
            const unsigned char *q = r - PK_LM_VAL_SIZE;
            assert_true(pk_le16(q) < pk_le16(r) ||
                        (pk_le16(q) == pk_le16(r) && pk_le_f64(q + 2) < v));
        }
        if (first && k)
            assert_true(pk_le32(pl->idx + k * PK_LM_IDX_SIZE) >
                        pk_le32(pl->idx + (k - 1) * PK_LM_IDX_SIZE));
    }
    assert_true(k + 1 == pl->nidx || n == 0);
    free(seen);
}

/* Triples of `n` over `n_ctx` contexts (spread by `stride`), columns
 * 0..4 with repeats, in a scrambled order; value = arrival (1-based). */
static void make_triples(pk_triple *t, uint64_t n, uint32_t n_ctx, uint32_t stride, double first)
{
    for (uint64_t i = 0; i < n; i++)
        t[i] = (pk_triple){(uint32_t)((i * 7919) % n_ctx) * stride, (uint16_t)((i * 13) % 5),
                           first + (double)i};
}

/* Dense ids are counted, sparse ones sorted: both give the order above. */
static void triples_pack_alike_counted_and_sorted(void **state)
{
    (void)state;
    pk_profile *p = NULL;
    assert_int_equal(pk_model_new(&p), PK_OK);
    enum { N = 3000 };
    pk_triple *t = malloc(N * sizeof *t);
    for (uint32_t stride = 1; stride <= 100000; stride *= 1000) {
        make_triples(t, N, 97, stride, 1);
        pk_plane pl;
        assert_int_equal(pk_plane_pack(p, NULL, t, N, &pl), PK_OK);
        assert_packed(&pl, N);
        assert_int_equal(pl.nidx, 97);
        assert_int_equal(pk_le32(pl.idx + 96 * PK_LM_IDX_SIZE), 96 * stride);
    }
    pk_plane empty;
    assert_int_equal(pk_plane_pack(p, NULL, t, 0, &empty), PK_OK);
    assert_int_equal(empty.nvals, 0);
    assert_int_equal(empty.nidx, 0);
    free(t);
    pk_profile_free(p);
}

/* A stream of triples over a fixed array; `grow` more values on every
 * pass after the first (a file changed meanwhile), `fail_at` the pass
 * whose check fails (0: none). */
typedef struct test_stream {
    const pk_triple *t;
    uint64_t n, at, grow;
    int pass, fail_at;
} test_stream;

static int test_next(void *user, pk_triple *out)
{
    test_stream *s = user;
    if (s->at >= s->n + s->grow * (uint64_t)s->pass) return 0;
    *out = s->t[s->at++ % s->n];
    return 1;
}

static pk_status test_done(void *user)
{
    test_stream *s = user;
    s->at = 0;
    if (++s->pass == s->fail_at) return pk_fail(PK_ERR_FORMAT, "changed");
    return PK_OK;
}

/* The stream's values come first among ties, then the list's. */
static void stream_values_come_first(void **state)
{
    (void)state;
    pk_profile *p = NULL;
    assert_int_equal(pk_model_new(&p), PK_OK);
    enum { NS = 1000, NT = 500 };
    pk_triple *s = malloc(NS * sizeof *s), *t = malloc(NT * sizeof *t);
    for (uint32_t stride = 1; stride <= 100000; stride *= 1000) {
        make_triples(s, NS, 31, stride, 1);
        make_triples(t, NT, 31, stride, NS + 1);
        test_stream ts = {s, NS, 0, 0, 0, 0};
        pk_triple_stream st = {&ts, test_next, test_done};
        pk_plane pl;
        assert_int_equal(pk_plane_pack(p, &st, t, NT, &pl), PK_OK);
        assert_packed(&pl, NS + NT);
        assert_int_equal(ts.pass, stride == 1 ? 3 : 2); /* counted: 3 passes; sorted: 2 */
    }
    free(s), free(t);
    pk_profile_free(p);
}

/* A stream whose check fails stops the packing with its error; one that
 * yields more on a later pass than on the first (its own check missing
 * it) is refused too, and kept in bounds meanwhile. */
static void a_changing_stream_is_refused_or_bounded(void **state)
{
    (void)state;
    pk_profile *p = NULL;
    assert_int_equal(pk_model_new(&p), PK_OK);
    enum { NS = 600 };
    pk_triple *s = malloc(NS * sizeof *s);
    for (uint32_t stride = 1; stride <= 100000; stride *= 1000) {
        make_triples(s, NS, 31, stride, 1);
        for (int fail_at = 1; fail_at <= 3; fail_at++) {
            test_stream ts = {s, NS, 0, 0, 0, fail_at};
            pk_triple_stream st = {&ts, test_next, test_done};
            pk_plane pl;
            pk_status want = fail_at == 3 && stride != 1 ? PK_OK : PK_ERR_FORMAT;
            assert_int_equal(pk_plane_pack(p, &st, NULL, 0, &pl), want);
        }
        test_stream ts = {s, NS, 0, 50, 0, 0};
        pk_triple_stream st = {&ts, test_next, test_done};
        pk_plane pl;
        assert_int_equal(pk_plane_pack(p, &st, NULL, 0, &pl), PK_ERR_FORMAT);
    }
    free(s);
    pk_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plane_values_sort_by_column),
        cmocka_unit_test(triples_pack_alike_counted_and_sorted),
        cmocka_unit_test(stream_values_come_first),
        cmocka_unit_test(a_changing_stream_is_refused_or_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
