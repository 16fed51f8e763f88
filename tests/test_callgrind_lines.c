/*
 * tests/test_callgrind_lines.c — PK_OPEN_BY_LINE (what `annotate` opens
 * with): self costs kept per source line instead of per instruction give
 * every line-level answer the full reading gives, on every Callgrind file
 * of the corpus and the project's samples: the flat profile by line and
 * by function (self, inclusive, calls, per part and over all), with the
 * positions said to be lines only and no jumps kept.
 */
#define _POSIX_C_SOURCE 200809L

#include "support/pk_cmocka.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/testutil.h"

static void same_rows(const char *path, const char *what, const pk_flat_row *a, size_t na,
                      const pk_flat_row *b, size_t nb)
{
    if (na != nb) fail_msg("%s: %s: %zu rows vs %zu", path, what, na, nb);
    for (size_t i = 0; i < na; i++)
        if (a[i].key != b[i].key || a[i].exclusive != b[i].exclusive ||
            a[i].inclusive != b[i].inclusive || a[i].calls != b[i].calls)
            fail_msg("%s: %s: row %zu: %.17g/%.17g/%.17g vs %.17g/%.17g/%.17g", path, what, i,
                     a[i].exclusive, a[i].inclusive, a[i].calls, b[i].exclusive, b[i].inclusive,
                     b[i].calls);
}

static void compare_flat(const char *path, pk_profile *full, pk_profile *lines, pk_group_by by)
{
    pk_cg_summary s;
    assert_int_equal(pk_callgraph_summary(full, &s), PK_OK);
    for (size_t part = 0; part <= s.n_parts; part++) {
        pk_index loc = part == s.n_parts ? PK_NONE : (pk_index)part;
        for (size_t e = 0; e < s.n_events; e++) {
            pk_flat_row *ra = NULL, *rb = NULL;
            size_t na = 0, nb = 0;
            pk_status sa = pk_callgraph_flat(full, loc, e, by, &ra, &na);
            pk_status sb = pk_callgraph_flat(lines, loc, e, by, &rb, &nb);
            if (sa != sb) fail_msg("%s: flat by %d: status %d vs %d", path, (int)by, sa, sb);
            char what[64];
            snprintf(what, sizeof what, "flat by %d, part %zu, event %zu", (int)by, part, e);
            if (!sa) same_rows(path, what, ra, na, rb, nb);
            pk_flat_free(ra), pk_flat_free(rb);
        }
    }
}

static void check_file(const char *path)
{
    pk_open_options full = {.flags = PK_OPEN_NO_TREE},
                    lines = {.flags = PK_OPEN_NO_TREE | PK_OPEN_BY_LINE};
    pk_profile *a, *b;
    if (pk_profile_open(path, &full, &a) != PK_OK) return; /* damaged on purpose: others test */
    assert_int_equal(pk_profile_open(path, &lines, &b), PK_OK);
    pk_cg_summary sa, sb;
    assert_int_equal(pk_callgraph_summary(a, &sa), PK_OK);
    assert_int_equal(pk_callgraph_summary(b, &sb), PK_OK);
    assert_int_equal(sb.positions & (PK_POS_INSTR | PK_POS_BB), 0);
    assert_int_equal(sb.positions & PK_POS_LINE, sa.positions & PK_POS_LINE);
    assert_int_equal(sb.n_jumps, 0);
    assert_true(sb.n_costs <= sa.n_costs);
    compare_flat(path, a, b, PK_BY_LINE);
    compare_flat(path, a, b, PK_BY_FUNCTION);
    pk_profile_free(a), pk_profile_free(b);
}

static void test_lines_answer_alike(void **state)
{
    (void)state;
    check_file(PK_SOURCE_DIR "/tests/data/callgrind/sample.callgrind");
    check_file(PK_SOURCE_DIR "/tests/data/callgrind/sample-b.callgrind");
    const char *corpus = tu_corpus_dir();
    if (!corpus) return;
    char root[4096], **files;
    snprintf(root, sizeof root, "%s/callgrind", corpus);
    size_t n = tu_find_files(root, ".out", &files);
    for (size_t i = 0; i < n; i++)
        check_file(files[i]);
    tu_free_list(files, n);
    size_t m = tu_find_files(root, ".callgrind", &files);
    for (size_t i = 0; i < m; i++)
        check_file(files[i]);
    tu_free_list(files, m);
    assert_true(n + m >= 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_lines_answer_alike)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
