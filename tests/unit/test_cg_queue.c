/*
 * tests/unit/test_cg_queue.c — the candidate queue of the reconstructed
 * Callgrind tree (analysis/cg_queue.c): heaviest bucket first, last
 * pushed first within a bucket across its blocks, emptied blocks reused,
 * and trims that drop the lightest buckets whole.
 */
#include "support/pk_cmocka.h"

#include <math.h>
#include <stdint.h>

#include "analysis/cg_queue.h"

/* Enough items that a bucket's stack spans several blocks. */
#define MANY (3 * CGQ_BLOCK_ITEMS + 7)

/* One bucket: items come back in reverse order of their pushes, each
 * as it went in, however many blocks they fill. */
static void one_bucket_is_a_stack(void **state)
{
    (void)state;
    cg_queue q;
    assert_int_equal(cgq_init(&q), PK_OK);
    for (uint32_t i = 0; i < MANY; i++)
        assert_int_equal(cgq_push(&q, 1.0, i * 0.5, i, i + 1, i + 2), PK_OK);
    assert_int_equal(q.live, MANY);
    cgq_item c;
    for (uint32_t i = MANY; i-- > 0;) {
        assert_int_equal(cgq_pop(&q, &c), 1);
        assert_int_equal(c.parent, i);
        assert_int_equal(c.target, i + 1);
        assert_int_equal(c.ua, i + 2);
        assert_true(c.phi == i * 0.5);
    }
    assert_int_equal(cgq_pop(&q, &c), 0);
    assert_int_equal(q.live, 0);
    assert_true(cgq_top_weight(&q) == 0);
    cgq_free(&q);
}

/* Pushes and pops interleaved at a block's edge (the push that starts a
 * block, the pop that empties it, the next push taking it back): the
 * order holds and no item is lost or repeated. */
static void pushes_and_pops_at_a_block_edge(void **state)
{
    (void)state;
    cg_queue q;
    assert_int_equal(cgq_init(&q), PK_OK);
    for (uint32_t i = 0; i < CGQ_BLOCK_ITEMS; i++)
        assert_int_equal(cgq_push(&q, 2.0, 0, i, 0, 0), PK_OK);
    cgq_item c;
    for (uint32_t round = 0; round < 100; round++) { /* across the edge and back */
        assert_int_equal(cgq_push(&q, 2.0, 0, 1000 + round, 0, 0), PK_OK);
        assert_int_equal(cgq_pop(&q, &c), 1);
        assert_int_equal(c.parent, 1000 + round);
        assert_int_equal(cgq_pop(&q, &c), 1);
        assert_int_equal(c.parent, CGQ_BLOCK_ITEMS - 1);
        assert_int_equal(cgq_push(&q, 2.0, 0, CGQ_BLOCK_ITEMS - 1, 0, 0), PK_OK);
    }
    for (uint32_t i = CGQ_BLOCK_ITEMS; i-- > 0;) {
        assert_int_equal(cgq_pop(&q, &c), 1);
        assert_int_equal(c.parent, i);
    }
    assert_int_equal(cgq_pop(&q, &c), 0);
    cgq_free(&q);
}

/* Weights a factor 2 apart land in different buckets: the heavier
 * bucket empties first, and weights that are not positive and finite
 * are never queued. */
static void heaviest_bucket_first(void **state)
{
    (void)state;
    cg_queue q;
    assert_int_equal(cgq_init(&q), PK_OK);
    const double w[] = {1.0, 8.0, 0.25, 4.0, 1e-300, 2.0};
    for (uint32_t k = 0; k < 6; k++)
        for (uint32_t i = 0; i < MANY; i++)
            assert_int_equal(cgq_push(&q, w[k], 0, k, i, 0), PK_OK);
    assert_int_equal(cgq_push(&q, 0.0, 0, 99, 0, 0), PK_OK);
    assert_int_equal(cgq_push(&q, -1.0, 0, 99, 0, 0), PK_OK);
    assert_int_equal(cgq_push(&q, INFINITY, 0, 99, 0, 0), PK_OK);
    assert_int_equal(q.live, 6 * MANY);
    const uint32_t order[] = {1, 3, 5, 0, 2, 4}; /* by weight, heaviest first */
    cgq_item c;
    for (uint32_t k = 0; k < 6; k++) {
        double top = cgq_top_weight(&q);
        assert_true(top <= w[order[k]] && top > w[order[k]] / 1.1);
        for (uint32_t i = MANY; i-- > 0;) {
            assert_int_equal(cgq_pop(&q, &c), 1);
            assert_int_equal(c.parent, order[k]);
            assert_int_equal(c.target, i);
        }
    }
    assert_int_equal(cgq_pop(&q, &c), 0);
    cgq_free(&q);
}

/* A trim keeps the heaviest whole buckets that hold `keep` items, drops
 * the rest, and with the floor raised refuses later pushes below it. */
static void trim_drops_the_lightest_buckets(void **state)
{
    (void)state;
    cg_queue q;
    assert_int_equal(cgq_init(&q), PK_OK);
    for (uint32_t k = 0; k < 4; k++) /* weights 1, 2, 4, 8 */
        for (uint32_t i = 0; i < MANY; i++)
            assert_int_equal(cgq_push(&q, (double)(1u << k), 0, k, i, 0), PK_OK);
    cgq_trim(&q, MANY + 1, 1); /* needs the two heaviest buckets */
    assert_int_equal(q.live, 2 * MANY);
    assert_int_equal(cgq_push(&q, 1.0, 0, 77, 0, 0), PK_OK); /* below the floor: dropped */
    assert_int_equal(q.live, 2 * MANY);
    assert_int_equal(cgq_push(&q, 16.0, 0, 88, 0, 0), PK_OK);
    cgq_item c;
    assert_int_equal(cgq_pop(&q, &c), 1);
    assert_int_equal(c.parent, 88);
    uint32_t n = 0;
    while (cgq_pop(&q, &c)) {
        assert_int_equal(c.parent, n < MANY ? 3 : 2);
        n++;
    }
    assert_int_equal(n, 2 * MANY);
    /* without raising the floor, a trimmed bucket takes pushes again */
    for (uint32_t i = 0; i < 10; i++)
        assert_int_equal(cgq_push(&q, 64.0, 0, 1, 0, 0), PK_OK);
    cgq_trim(&q, 0, 0);
    assert_int_equal(q.live, 0);
    cgq_free(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_bucket_is_a_stack),
        cmocka_unit_test(pushes_and_pops_at_a_block_edge),
        cmocka_unit_test(heaviest_bucket_first),
        cmocka_unit_test(trim_drops_the_lightest_buckets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
