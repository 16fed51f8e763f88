/*
 * tests/unit/test_annotate.c — the pure parts of source annotation
 * (profkit/annotate.h): flat rows to line costs, one file's slice, and
 * which lines a listing shows (windows, merging, the edges of a file's
 * line numbers, the cost threshold, the first-line anchor); and that an
 * answer whose sources are read only where allowed reads no other file
 * swapped in at the path after the check.
 */
#define _POSIX_C_SOURCE 200809L /* symlink, fmemopen */
#include "support/pk_cmocka.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profkit/profkit.h"
#include "support/testutil.h"

static pk_flat_row row(pk_index file, uint32_t line, double self, double incl)
{
    return (pk_flat_row){((uint64_t)file << 32) | line, self, incl, 1, 0};
}

static void line_costs_sorted_without_unknown_lines(void **state)
{
    (void)state;
    pk_flat_row rows[] = {row(2, 5, 1, 1), row(1, 9, 2, 3),       row(1, 0, 7, 7),
                          row(1, 3, 0, 4), row(PK_NONE, 4, 9, 9), row(2, 1, 5, 5)};
    pk_line_cost *l;
    size_t n, first, k;
    assert_int_equal(pk_line_costs(rows, 6, &l, &n), PK_OK);
    assert_int_equal(n, 4); /* line 0 and the unknown file left out */
    assert_int_equal(l[0].file, 1), assert_int_equal(l[0].line, 3);
    assert_int_equal(l[1].line, 9), assert_true(l[1].inclusive == 3);
    assert_int_equal(l[2].file, 2), assert_int_equal(l[2].line, 1);
    pk_line_costs_of_file(l, n, 2, &first, &k);
    assert_int_equal(first, 2), assert_int_equal(k, 2);
    pk_line_costs_of_file(l, n, 7, &first, &k);
    assert_int_equal(k, 0);
    pk_line_costs_free(l);
    assert_int_equal(pk_line_costs(NULL, 0, &l, &n), PK_OK);
    assert_int_equal(n, 0);
    pk_line_costs_free(l);
}

static pk_line_cost cost(uint32_t line, double self, double incl)
{
    return (pk_line_cost){0, line, self, incl, 0};
}

static void ranges_windows_merge_and_clip(void **state)
{
    (void)state;
    pk_line_cost l[] = {cost(2, 10, 10), cost(8, 1, 1),      cost(10, 0, 50),
                        cost(30, 0, 0),  cost(40, -20, -20), cost(UINT32_MAX, 5, 5)};
    pk_line_range *r;
    size_t n;
    /* context 3: [1,5] (line 2 cannot go below 1), [5,13] touches it: one */
    assert_int_equal(pk_annotate_ranges(l, 6, 1, UINT32_MAX, 0, 3, 0, &r, &n), PK_OK);
    assert_int_equal(n, 3);
    assert_int_equal(r[0].first, 1), assert_int_equal(r[0].last, 13);
    assert_int_equal(r[1].first, 37), assert_int_equal(r[1].last, 43); /* a loss is costly too */
    assert_int_equal(r[2].first, UINT32_MAX - 3), assert_int_equal(r[2].last, UINT32_MAX);
    free(r);
    /* threshold 10: line 8 no longer counts; lines outside [5, 35] neither;
     * the anchor at 5 stays apart from line 10's window [8, 12] ... */
    assert_int_equal(pk_annotate_ranges(l, 6, 5, 35, 10, 2, 1, &r, &n), PK_OK);
    assert_int_equal(n, 2);
    assert_int_equal(r[0].first, 5), assert_int_equal(r[0].last, 5);
    assert_int_equal(r[1].first, 8), assert_int_equal(r[1].last, 12);
    free(r);
    /* ... and a window reaching back past the anchor absorbs it */
    assert_int_equal(pk_annotate_ranges(l, 6, 9, 35, 10, 3, 1, &r, &n), PK_OK);
    assert_int_equal(n, 1);
    assert_int_equal(r[0].first, 7), assert_int_equal(r[0].last, 13);
    free(r);
    /* no costly line: only the anchor */
    assert_int_equal(pk_annotate_ranges(l, 6, 20, 35, 0, 2, 1, &r, &n), PK_OK);
    assert_int_equal(n, 1);
    assert_int_equal(r[0].first, 20), assert_int_equal(r[0].last, 20);
    free(r);
    assert_int_equal(pk_annotate_ranges(NULL, 1, 1, 2, 0, 0, 0, &r, &n), PK_ERR_INVALID_ARG);
}

/* sources=within: the file is checked where it really is, and what the
 * answer is written from must be that file. A symbolic link to a file
 * outside, swapped in at the path between the answer and its writing
 * (what a request racing a local user could meet), is refused, and none
 * of its text is written. */
static void a_source_swapped_after_the_check_is_not_read(void **state)
{
    (void)state;
    char dir[2048], src[4096], secret[4096], prof[4096];
    assert_int_equal(tu_scratch_make("pk-annotate"), 0);
    tu_scratch_path(dir, sizeof dir, "srcdir");
    tu_scratch_path(secret, sizeof secret, "secret.txt");
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(src, sizeof src, "%s/a.c", dir);
    snprintf(prof, sizeof prof, "%s/run.callgrind", dir);
    assert_int_equal(tu_write_text(src, "int main(void)\n{\n    return 0;\n}\n"), 0);
    assert_int_equal(tu_write_text(secret, "THE SECRET LINE\nTHE SECRET LINE\nTHE SECRET LINE\n"),
                     0);
    assert_int_equal(
        tu_write_text(prof, "# callgrind format\nevents: Ir\nfl=a.c\nfn=main\n3 100\n"), 0);
    pk_profile *p = NULL;
    pk_session *s = NULL;
    pk_query *q = NULL;
    pk_annotate_answer *a = NULL;
    assert_int_equal(pk_profile_open(prof, NULL, &p), PK_OK);
    assert_int_equal(pk_session_new(p, &s), PK_OK);
    assert_int_equal(pk_query_new(&q), PK_OK);
    assert_int_equal(pk_query_set(q, "function", "main"), PK_OK);
    assert_int_equal(pk_query_set(q, "sources", "within"), PK_OK);
    assert_int_equal(pk_query_set(q, "dirs", dir), PK_OK);
    assert_int_equal(pk_answer_annotate(s, q, &a), PK_OK);
    assert_true(a->n_listings >= 1 && a->listings[0].source && a->listings[0].source_ino);
    char buf[8192];
    FILE *out = fmemopen(buf, sizeof buf, "w");
    pk_json j;
    assert_int_equal(pk_json_init(&j, out, 0), PK_OK);
    assert_int_equal(pk_annotate_answer_write_json(&j, a), PK_OK); /* the file checked */
    fclose(out);
    assert_non_null(strstr(buf, "return 0;"));
    assert_int_equal(unlink(src), 0);
    assert_int_equal(symlink(secret, src), 0);
    out = fmemopen(buf, sizeof buf, "w");
    assert_int_equal(pk_json_init(&j, out, 0), PK_OK);
    assert_int_equal(pk_annotate_answer_write_json(&j, a), PK_ERR_IO);
    fclose(out);
    assert_null(strstr(buf, "SECRET"));
    assert_non_null(strstr(pk_error_last(), "another file"));
    pk_annotate_answer_free(a);
    pk_query_free(q);
    pk_session_free(s);
    pk_profile_free(p);
    tu_scratch_remove();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(line_costs_sorted_without_unknown_lines),
        cmocka_unit_test(ranges_windows_merge_and_clip),
        cmocka_unit_test(a_source_swapped_after_the_check_is_not_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
