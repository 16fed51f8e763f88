/*
 * tests/test_parallel.c — the pieces of the parallel build
 * (profkit/parallel.h): the members' collectives (util/team.h) with
 * threads, and the messages members send each other — a profile's
 * structure (model/skeleton.h) and a measurement's tables
 * (formats/hpcrun/measure_par.h) — which must read back exactly and must
 * fail cleanly, never crash, when cut short or garbled. (The databases
 * themselves are compared with the serial build's by tests/parallel/.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/hpcrun/measure.h"
#include "formats/hpcrun/measure_par.h"
#include "model/model.h"
#include "model/skeleton.h"
#include "profkit/parallel.h"
#include "profkit/write.h"
#include "support/pk_cmocka.h"
#include "support/testutil.h"
#include "util/bytes.h"
#include "util/mapfile.h"
#include "util/team.h"

/* ---- collectives: 4 threads, each checking what it gets ---- */

typedef struct coll_result {
    int failed[8];
    char msg[8][256];
} coll_result;

#define CHECK(m, r, cond)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            (r)->failed[(m)->me] = __LINE__;                                                       \
            return;                                                                                \
        }                                                                                          \
    } while (0)

static void gathers(pk_members *m, coll_result *r)
{
    unsigned char mine[8];
    for (uint32_t i = 0; i < m->me; i++) /* member k sends k bytes of value k */
        mine[i] = (unsigned char)m->me;
    pk_gathered g;
    CHECK(m, r, pk_members_allgather(m, mine, m->me, &g) == PK_OK && g.n == m->n);
    for (uint32_t k = 0; k < m->n; k++) {
        CHECK(m, r, g.len[k] == k);
        for (uint32_t i = 0; i < k; i++)
            CHECK(m, r, g.data[g.off[k] + i] == k);
    }
    pk_gathered_free(&g);
    CHECK(m, r, pk_members_gather0(m, mine, m->me, &g) == PK_OK);
    CHECK(m, r, m->me ? g.n == 0 : g.n == m->n && g.len[3] == 3 && g.data[g.off[3]] == 3);
    pk_gathered_free(&g);
    CHECK(m, r, pk_members_bcast0(m, "zero", m->me == 0 ? 5 : 0, &g) == PK_OK);
    CHECK(m, r, g.n == 1 && g.len[0] == 5 && !strcmp((char *)g.data, "zero"));
    pk_gathered_free(&g);
}

static void exchange(pk_members *m, coll_result *r)
{
    /* to member k: k + 1 bytes "from me" */
    unsigned char send[64];
    uint64_t lens[8], at = 0;
    for (uint32_t k = 0; k < m->n; k++) {
        lens[k] = k + 1;
        for (uint32_t i = 0; i <= k; i++)
            send[at++] = (unsigned char)(16 * m->me + k);
    }
    pk_gathered g;
    CHECK(m, r, pk_members_alltoall(m, send, lens, &g) == PK_OK && g.n == m->n);
    for (uint32_t k = 0; k < m->n; k++) {
        CHECK(m, r, g.len[k] == m->me + 1);
        for (uint32_t i = 0; i <= m->me; i++)
            CHECK(m, r, g.data[g.off[k] + i] == 16 * k + m->me);
    }
    pk_gathered_free(&g);
    uint64_t v[3] = {m->me + 1, m->me + 1, m->me + 1}, before, total;
    CHECK(m, r, pk_members_reduce(m, v, 1, PK_REDUCE_SUM) == PK_OK && v[0] == 10);
    CHECK(m, r, pk_members_reduce(m, v + 1, 1, PK_REDUCE_MIN) == PK_OK && v[1] == 1);
    CHECK(m, r, pk_members_reduce(m, v + 2, 1, PK_REDUCE_MAX) == PK_OK && v[2] == 4);
    CHECK(m, r, pk_members_scan(m, m->me + 1, &before, &total) == PK_OK);
    CHECK(m, r, total == 10 && before == m->me * (m->me + 1) / 2);
}

/* Member 2 fails: every member learns its status and its message. */
static void agreement(pk_members *m, coll_result *r)
{
    CHECK(m, r, pk_members_agree(m, PK_OK) == PK_OK);
    pk_status mine = PK_OK;
    if (m->me == 2) mine = pk_fail(PK_ERR_FORMAT, "member two: damaged at byte 42");
    pk_status st = pk_members_agree(m, mine);
    CHECK(m, r, st == PK_ERR_FORMAT);
    snprintf(r->msg[m->me], sizeof r->msg[m->me], "%s", pk_error_last());
}

static void members(pk_members *m, void *user)
{
    coll_result *r = user;
    gathers(m, r);
    if (!r->failed[m->me]) exchange(m, r);
    if (!r->failed[m->me]) agreement(m, r);
}

static void collectives_with_threads(void **state)
{
    (void)state;
    coll_result r = {{0}, {{0}}};
    assert_int_equal(pk_members_run(NULL, 4, members, &r), PK_OK);
    for (int k = 0; k < 4; k++) {
        if (r.failed[k]) fail_msg("member %d: check at line %d failed", k, r.failed[k]);
        assert_string_equal(r.msg[k], "member two: damaged at byte 42");
    }
}

/* ---- messages ---- */

/* Every cut of a message and a few flipped bytes: an error, never a crash. */
static void cut_and_garble(const pk_buf *b, pk_status (*decode)(const void *, uint64_t))
{
    unsigned char *copy = malloc(b->len + 1);
    assert_non_null(copy);
    size_t step = b->len / 400 + 1;
    for (size_t n = 0; n < b->len; n += step) {
        memcpy(copy, b->data, n);
        assert_int_not_equal(decode(copy, n), PK_OK);
    }
    srand(7);
    for (int k = 0; k < 200; k++) { /* flipped bytes: decoded or refused, nothing else */
        memcpy(copy, b->data, b->len);
        copy[(size_t)rand() % b->len] ^= (unsigned char)(1 + rand() % 255);
        decode(copy, b->len);
    }
    free(copy);
}

static pk_status decode_skeleton(const void *d, uint64_t n)
{
    pk_profile *p;
    pk_status st = pk_skeleton_decode(d, n, &p);
    if (!st) pk_profile_free(p);
    return st;
}

/* A profile's structure reads back as it was sent (encoding it again
 * gives the same bytes), and a damaged message is refused. */
static void skeleton_round_trip(const char *path)
{
    pk_profile *p, *q;
    if (pk_profile_open(path, NULL, &p) != PK_OK) fail_msg("%s: %s", path, pk_error_last());
    pk_buf a = {0}, b = {0};
    assert_int_equal(pk_skeleton_encode(p, &a), PK_OK);
    if (pk_skeleton_decode(a.data, a.len, &q) != PK_OK) fail_msg("%s: %s", path, pk_error_last());
    assert_int_equal(pk_skeleton_encode(q, &b), PK_OK);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    assert_int_equal(pk_context_count(p), pk_context_count(q));
    assert_int_equal(pk_location_count(p), pk_location_count(q));
    cut_and_garble(&a, decode_skeleton);
    pk_buf_free(&a), pk_buf_free(&b);
    pk_profile_free(p), pk_profile_free(q);
}

static void skeletons(void **state)
{
    (void)state;
    const char *rel[] = {"hpctoolkit/hpctoolkit-tests-dbase/loops-cuda-nvidia-t.d",
                         "hpctoolkit/hatchet-cpi-v2", "cube/pycubexr-time-p4-cube482/profile.cubex",
                         "callgrind/valgrind-cachegrind-tests/ann1.cgout",
                         "hpctoolkit/hpctoolkit-tests-meas/loops-perf.m"};
    int seen = 0;
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", tu_corpus_dir(), rel[i]);
        if (!pk_path_exists(path)) continue;
        skeleton_round_trip(path);
        seen++;
    }
    if (!seen) skip();
}

static pk_status merge_one(const void *d, uint64_t n)
{
    pk_buf out = {0};
    const unsigned char *data = d;
    pk_status st = hm_pieces_merge(&data, &n, 1, &out);
    pk_buf_free(&out);
    return st;
}

/* A measurement's tables: merging one piece gives its tables back (the
 * ids are the serial ones), a damaged message is refused. */
static void measurement_tables(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/hpctoolkit/hpctoolkit-tests-meas/loops-perf.m", tu_corpus_dir());
    char **names = NULL;
    size_t n = 0;
    if (!pk_path_exists(dir) || hm_list_dir(dir, &names, &n) != PK_OK) skip();
    hm_piece *pc;
    assert_int_equal(hm_piece_read(dir, names, n, PK_OPEN_NO_SYMBOLS, &pc), PK_OK);
    pk_buf a = {0}, b = {0};
    assert_int_equal(hm_piece_encode(pc, &a), PK_OK);
    const unsigned char *d = a.data;
    uint64_t len = a.len;
    assert_int_equal(hm_pieces_merge(&d, &len, 1, &b), PK_OK);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    cut_and_garble(&a, merge_one);
    pk_buf_free(&a), pk_buf_free(&b);
    hm_piece_free(pc);
    hm_free_names(names, n);
}

/* Two databases' files are the same bytes. */
static void same_file(const char *a_dir, const char *b_dir, const char *name)
{
    char a[4200], b[4200];
    snprintf(a, sizeof a, "%s/%s", a_dir, name);
    snprintf(b, sizeof b, "%s/%s", b_dir, name);
    if (!tu_same_file(a, b)) fail_msg("%s and %s differ", a, b);
}

/* cct.db's blocks built and written a chunk at a time, down to one
 * context's block per chunk, by the serial writer (write_cct_chunks.c)
 * and by 1 to 3 members of a parallel build: the bytes of the model's
 * whole transpose (sorted) — tests/parallel/ compare the default chunks
 * with the serial build on more inputs. */
static void cct_in_chunks(void **state)
{
    (void)state;
    static const char *const meas[] = {"loops-perf.m", "loops-cuda-nvidia-t.m"};
    static const uint64_t chunks[] = {1, 4096};
    int seen = 0;
    for (size_t i = 0; i < sizeof meas / sizeof *meas; i++) {
        char dir[4096], whole[4096], part[4096];
        snprintf(dir, sizeof dir, "%s/hpctoolkit/hpctoolkit-tests-meas/%s", tu_corpus_dir(),
                 meas[i]);
        if (!pk_path_exists(dir)) continue;
        seen++;
        tu_scratch_path(whole, sizeof whole, "whole.d");
        tu_scratch_path(part, sizeof part, "chunks.d");
        pk_open_options oo = {.flags = PK_OPEN_NO_SYMBOLS};
        pk_write_options wo = {.flags = PK_WRITE_FORCE};
        pk_profile *p = NULL;
        assert_int_equal(pk_profile_open(dir, &oo, &p), PK_OK);
        p->cm_sorted_only = 1; /* the model's whole transpose, sorted: another way */
        assert_int_equal(pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, whole, &wo, NULL), PK_OK);
        pk_profile_free(p);
        for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) { /* the serial writer */
            assert_int_equal(pk_profile_open(dir, &oo, &p), PK_OK);
            p->cct_chunk_bytes = chunks[c];
            assert_int_equal(pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, part, &wo, NULL), PK_OK);
            pk_profile_free(p);
            same_file(whole, part, "meta.db");
            same_file(whole, part, "profile.db");
            same_file(whole, part, "cct.db");
        }
        pk_parallel_options o = {.open_flags = PK_OPEN_NO_SYMBOLS, .write_flags = PK_WRITE_FORCE};
        for (unsigned t = 1; t <= 3; t++)
            for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
                o.threads = t, o.chunk_bytes = chunks[c];
                assert_int_equal(pk_build_database(dir, part, &o, NULL), PK_OK);
                same_file(whole, part, "meta.db");
                same_file(whole, part, "profile.db");
                same_file(whole, part, "cct.db");
            }
    }
    if (!seen) skip();
}

/* Another program rewrites one value of the input's profile.db between
 * cct.db's two passes over the planes, which are that file's pages. */
static int flipped;
static void change_one_value(const pk_profile *p)
{
    for (uint32_t l = 0; l < p->n_locs && !flipped; l++) {
        const pk_plane *pl = &p->locs[l].plane;
        const pk_mapfile *m = pk_model_mapping_of(p, pl->vals);
        if (p->locs[l].is_summary || !pl->nvals || !m) continue;
        unsigned char byte = pl->vals[2] ^ 0x40; /* the value's low byte */
        FILE *f = fopen(m->path, "r+b");
        if (!f) return;
        flipped =
            fseek(f, (long)(pl->vals + 2 - m->data), SEEK_SET) == 0 && fwrite(&byte, 1, 1, f) == 1;
        flipped &= fclose(f) == 0;
    }
}

/* A write whose input changes between cct.db's passes fails, naming why,
 * and leaves no database behind: it never writes values it did not count
 * (each pass sums a mix of what it takes, per location, when the planes
 * are a mapped input's). The input: a database without cct.db, whose
 * profile.db's pages are the planes, so cct.db is made from them. */
static void cct_input_changed_while_written(void **state)
{
    (void)state;
    char meas[4096], dir[4096], cct[4200], out[4096];
    snprintf(meas, sizeof meas, "%s/hpctoolkit/hpctoolkit-tests-meas/loops-perf.m",
             tu_corpus_dir());
    if (!pk_path_exists(meas)) skip();
    tu_scratch_path(dir, sizeof dir, "no-cct.d");
    tu_scratch_path(out, sizeof out, "changed.d");
    pk_open_options oo = {.flags = PK_OPEN_NO_SYMBOLS};
    pk_profile *p = NULL;
    assert_int_equal(pk_profile_open(meas, &oo, &p), PK_OK);
    assert_int_equal(pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, dir, NULL, NULL), PK_OK);
    pk_profile_free(p);
    snprintf(cct, sizeof cct, "%s/cct.db", dir);
    assert_int_equal(remove(cct), 0);
    assert_int_equal(pk_profile_open(dir, NULL, &p), PK_OK);
    p->cct_between_passes = change_one_value;
    flipped = 0;
    pk_status st = pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, out, NULL, NULL);
    assert_int_equal(flipped, 1);
    assert_int_equal(st, PK_ERR_FORMAT);
    assert_non_null(strstr(pk_error_last(), "changed while cct.db was written"));
    assert_false(pk_path_exists(out));
    pk_profile_free(p);
}

static int setup(void **state)
{
    (void)state;
    return tu_scratch_make("pk-parallel");
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
        cmocka_unit_test(collectives_with_threads),
        cmocka_unit_test(skeletons),
        cmocka_unit_test(measurement_tables),
        cmocka_unit_test(cct_in_chunks),
        cmocka_unit_test(cct_input_changed_while_written),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
