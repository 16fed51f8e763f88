/*
 * tests/test_callgrind_damage.c — the Callgrind reader on the project's own
 * hand-written file (tests/data/callgrind/sample.callgrind), whose every
 * value is known, and on one specific damage at a time, each with the
 * error or diagnostic it must produce (file, line, byte offset). Needs no
 * corpus. The writer's --split form is checked here too.
 */
#define _POSIX_C_SOURCE 200809L

#include "support/pk_cmocka.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/cg_compare.h"
#include "support/testutil.h"

static const char *const NAME = "sample.callgrind";

static char *sample(size_t *n)
{
    char *t = (char *)tu_read_file(PK_SOURCE_DIR "/tests/data/callgrind/sample.callgrind", n);
    assert_non_null(t);
    return t;
}

static pk_status open_bytes(const void *data, size_t n, uint32_t flags, pk_profile **p)
{
    /* exactly n bytes, so ASan sees a read past the end */
    void *copy = malloc(n ? n : 1);
    memcpy(copy, data, n);
    const void *d = copy;
    uint64_t size = n;
    pk_open_options o = {.flags = flags};
    pk_status st = pk_profile_open_memory(PK_FORMAT_CALLGRIND, 1, &NAME, &d, &size, &o, p);
    /* The reader streams (it releases pages behind it when reading a file),
     * so the profile keeps nothing of the input: freeing it now lets ASan
     * prove that. */
    free(copy);
    return st;
}

/* The sample with the first occurrence of `from` replaced by `to`;
 * *line and *offset (may be NULL) receive where the change starts. */
static char *edited(const char *from, const char *to, size_t *n, uint64_t *line, uint64_t *offset)
{
    size_t len;
    char *t = sample(&len);
    char *at = strstr(t, from);
    assert_non_null(at);
    size_t pre = (size_t)(at - t), nf = strlen(from), nt = strlen(to);
    char *out = malloc(len - nf + nt + 1);
    memcpy(out, t, pre), memcpy(out + pre, to, nt);
    memcpy(out + pre + nt, at + nf, len - pre - nf);
    *n = len - nf + nt;
    out[*n] = 0;
    const char *bol = out + pre;
    while (bol > out && bol[-1] != '\n')
        bol--;
    if (offset) *offset = (uint64_t)(bol - out);
    if (line) {
        *line = 1;
        for (const char *c = out; c < bol; c++)
            *line += *c == '\n';
    }
    free(t);
    return out;
}

static void expect_eq(double got, double want)
{
    if (got != want) fail_msg("got %.17g, want %.17g", got, want);
}

static pk_index function_named(const pk_profile *p, const char *name)
{
    for (pk_index f = 0; f < pk_function_count(p); f++) {
        pk_function fn;
        if (!pk_function_get(p, f, &fn) && fn.name && strcmp(fn.name, name) == 0) return f;
    }
    fail_msg("no function %s", name);
    return PK_NONE;
}

static void expect_costs(const pk_profile *p, pk_index loc, size_t event, const char *fn,
                         double self, double incl, uint32_t cycle)
{
    size_t nf = pk_function_count(p);
    pk_cg_function_cost *c = calloc(nf, sizeof *c);
    assert_int_equal(pk_callgraph_function_costs(p, loc, event, c, NULL, NULL), PK_OK);
    pk_index f = function_named(p, fn);
    expect_eq(c[f].self, self);
    expect_eq(c[f].inclusive, incl);
    assert_int_equal(c[f].cycle, cycle);
    free(c);
}

static void sample_has_the_values_written_by_hand(void **s)
{
    (void)s;
    size_t n;
    char *t = sample(&n);
    pk_profile *p;
    assert_int_equal(open_bytes(t, n, 0, &p), PK_OK);
    /* only what callgrind_annotate would stumble on: the event: lines after
     * events:, the second part, the calls=0 arc (profkit reads all of it) */
    assert_int_equal(tu_count_diagnostics(p, "header-after-events", PK_SEV_WARNING), 3);
    assert_int_equal(tu_count_diagnostics(p, "several-parts", PK_SEV_WARNING), 1);
    assert_int_equal(tu_count_diagnostics(p, "zero-call-count", PK_SEV_WARNING), 1);
    assert_int_equal(pk_diagnostic_count(p), 5);
    pk_cg_summary sum;
    assert_int_equal(pk_callgraph_summary(p, &sum), PK_OK);
    assert_int_equal(sum.n_parts, 2);
    assert_int_equal(sum.n_events, 3);
    assert_int_equal(sum.n_calls, 6);
    assert_int_equal(sum.n_jumps, 2);
    pk_cg_event ev;
    assert_int_equal(pk_callgraph_event(p, 2, &ev), PK_OK);
    assert_string_equal(ev.formula, "Ir + 2*Dr");
    pk_cg_part part;
    assert_int_equal(pk_callgraph_part(p, 0, &part), PK_OK);
    assert_int_equal(part.pid, 4242);
    assert_int_equal(part.n_descs, 1);
    expect_eq(part.totals[0], 557);
    /* whole run: the cycle odd <-> even counts once, main is 100 % */
    expect_costs(p, PK_NONE, 0, "main", 112, 602, 0);
    expect_costs(p, PK_NONE, 0, "work", 140, 490, 0);
    expect_costs(p, PK_NONE, 0, "odd", 200, 200, 1);
    expect_costs(p, PK_NONE, 0, "even", 150, 150, 1);
    expect_costs(p, PK_NONE, 1, "main", 17, 115, 0);
    expect_costs(p, part.location, 0, "main", 107, 557, 0);
    pk_cg_cycle cy[8];
    uint32_t n_cycles = 0;
    pk_cg_function_cost c[8];
    assert_int_equal(pk_callgraph_function_costs(p, PK_NONE, 0, c, cy, &n_cycles), PK_OK);
    assert_int_equal(n_cycles, 1);
    expect_eq(cy[0].inclusive, 350);
    pk_profile_info info;
    pk_profile_get_info(p, &info);
    assert_true(info.reconstructed && info.complete);
    tu_cg_exercise(p);
    pk_profile_free(p);
    free(t);
}

/* Opens `text`, expects PK_ERR_FORMAT and every fragment in the message. */
static void expect_error(const char *text, size_t n, const char *const *frag, size_t n_frag)
{
    pk_profile *p;
    assert_int_equal(open_bytes(text, n, 0, &p), PK_ERR_FORMAT);
    for (size_t i = 0; i < n_frag; i++)
        if (!strstr(pk_error_last(), frag[i]))
            fail_msg("'%s' not in the error '%s'", frag[i], pk_error_last());
}

static void bad_cost_names_file_line_and_offset(void **s)
{
    (void)s;
    size_t n;
    uint64_t line, off;
    char *t = edited("0x2000 20 100 20", "0x2000 20 1x0 20", &n, &line, &off);
    char l[64], o[64];
    snprintf(l, sizeof l, "sample.callgrind:%llu:", (unsigned long long)line);
    snprintf(o, sizeof o, "byte offset %llu", (unsigned long long)off);
    const char *frag[] = {l, o, "cost 1 is not a number"};
    expect_error(t, n, frag, 3);
    /* with KEEP_GOING the line is skipped, reported, and the profile incomplete */
    pk_profile *p;
    assert_int_equal(open_bytes(t, n, PK_OPEN_KEEP_GOING, &p), PK_OK);
    assert_int_equal(tu_count_diagnostics(p, "bad-line", PK_SEV_ERROR), 1);
    pk_profile_info info;
    pk_profile_get_info(p, &info);
    assert_false(info.complete);
    pk_profile_free(p);
    free(t);
}

static void numbers_that_overflow_or_run_on_are_refused(void **s)
{
    (void)s;
    static const char *const bad[][2] = {
        {"0x3100 40 150 30", "0x3100 40 99999999999999999999 30"},
        {"0x3100 40 150 30", "0x3100 40 150 30 7"},
        {"0x3100 40 150 30", "0x3100x 40 150 30"},
        {"calls=2 0x3000 30", "calls=two 0x3000 30"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        size_t n;
        uint64_t line;
        char *t = edited(bad[i][0], bad[i][1], &n, &line, NULL);
        char l[64];
        snprintf(l, sizeof l, "sample.callgrind:%llu:", (unsigned long long)line);
        const char *frag[] = {l, "byte offset"};
        expect_error(t, n, frag, 2);
        free(t);
    }
}

/* Opens `text` (must succeed) and expects `count` diagnostics with `code`,
 * one of them with `fragment` in its message. */
static void expect_diagnostics(const char *text, size_t n, const char *code, pk_severity sev,
                               size_t count, const char *fragment)
{
    pk_profile *p;
    assert_int_equal(open_bytes(text, n, 0, &p), PK_OK);
    assert_int_equal(tu_count_diagnostics(p, code, sev), count);
    int found = 0;
    for (size_t i = 0; i < pk_diagnostic_count(p); i++) {
        pk_diagnostic d;
        pk_diagnostic_get(p, i, &d);
        found |= strcmp(d.code, code) == 0 && strstr(d.message, fragment) != NULL;
    }
    if (!found) fail_msg("no %s diagnostic mentioning '%s'", code, fragment);
    pk_profile_free(p);
}

static void expect_diagnostic(const char *text, size_t n, const char *code, pk_severity sev,
                              const char *fragment)
{
    expect_diagnostics(text, n, code, sev, 1, fragment);
}

static void consistency_problems_are_reported_with_lines(void **s)
{
    (void)s;
    size_t n;
    uint64_t line;
    char *t = edited("calls=2 0x3000 30\n+4 +1 350 70\n", "calls=2 0x3000 30\n", &n, &line, NULL);
    char l[64];
    snprintf(l, sizeof l, "line %llu", (unsigned long long)line);
    expect_diagnostic(t, n, "association-without-cost", PK_SEV_WARNING, l);
    free(t);
    t = edited("cfn=(3) odd", "cfn=(7)", &n, &line, NULL);
    snprintf(l, sizeof l, "line %llu", (unsigned long long)line);
    /* (7) where it is used, and (3) at its next use: it was never named */
    expect_diagnostics(t, n, "undefined-id", PK_SEV_WARNING, 2, l);
    free(t);
    t = edited("totals: 557 106", "totals: 558 106", &n, &line, NULL);
    expect_diagnostic(t, n, "totals-mismatch", PK_SEV_WARNING, "558");
    free(t);
}

static void cut_files_are_flagged(void **s)
{
    (void)s;
    size_t n;
    char *t = sample(&n);
    /* cut inside the last cost line: parses, with a note */
    expect_diagnostic(t, n - 3, "truncated", PK_SEV_NOTE, "no newline");
    free(t);
    /* a valgrind file cut between lines: the part lacks totals: */
    t = edited("creator: profkit-tests 1", "creator: callgrind-3.19.0", &n, NULL, NULL);
    size_t cut = (size_t)(strstr(t, "totals: 45 9") - t);
    expect_diagnostic(t, cut, "truncated", PK_SEV_WARNING, "totals:");
    free(t);
}

static void gzip_input_is_read_and_its_damage_refused(void **s)
{
    (void)s;
    size_t n, gn;
    char *t = sample(&n);
    unsigned char *gz = tu_gzip(t, n, &gn);
    assert_non_null(gz);
    pk_profile *plain, *p;
    assert_int_equal(open_bytes(t, n, 0, &plain), PK_OK);
    assert_int_equal(open_bytes(gz, gn, 0, &p), PK_OK);
    char *a = tu_cg_canonical(plain), *b = tu_cg_canonical(p);
    assert_string_equal(a, b);
    free(a), free(b), pk_profile_free(p), pk_profile_free(plain);
    /* two members (gzip a b > c) are one stream: the parts of both */
    unsigned char *two = malloc(2 * gn);
    memcpy(two, gz, gn), memcpy(two + gn, gz, gn);
    assert_int_equal(open_bytes(two, 2 * gn, 0, &p), PK_OK);
    pk_cg_summary sum;
    pk_callgraph_summary(p, &sum);
    assert_int_equal(sum.n_parts, 4);
    pk_profile_free(p);
    const char *cut[] = {"sample.callgrind", "gzip", "compressed byte", "truncated"};
    assert_int_equal(open_bytes(gz, gn / 2, PK_OPEN_KEEP_GOING, &p), PK_ERR_FORMAT);
    for (size_t i = 0; i < 4; i++)
        assert_non_null(strstr(pk_error_last(), cut[i]));
    gz[gn - 6] ^= 0xff; /* the CRC */
    assert_int_equal(open_bytes(gz, gn, 0, &p), PK_ERR_FORMAT);
    assert_non_null(strstr(pk_error_last(), "incorrect data check"));
    free(two), free(gz), free(t);
}

static void garbage_is_refused_with_a_message(void **s)
{
    (void)s;
    unsigned char junk[4096];
    unsigned x = 12345;
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)((x = x * 1103515245u + 12345u) >> 16);
    pk_profile *p;
    assert_int_not_equal(open_bytes(junk, sizeof junk, 0, &p), PK_OK);
    assert_true(pk_error_last()[0] != 0);
    static const char nul_line[] = "events: Ir\nfn=main\n\0\0\0\n1 2\n";
    assert_int_equal(open_bytes(nul_line, sizeof nul_line - 1, 0, &p), PK_ERR_FORMAT);
    assert_non_null(strstr(pk_error_last(), "sample.callgrind:3:"));
    static const char no_events[] = "fn=main\n1 2\n";
    assert_int_equal(open_bytes(no_events, sizeof no_events - 1, 0, &p), PK_ERR_FORMAT);
    assert_non_null(strstr(pk_error_last(), "before any 'events:'"));
    static const char too_many[] = "events: Ir\nfn=main\n1 2 3\n";
    assert_int_equal(open_bytes(too_many, sizeof too_many - 1, 0, &p), PK_ERR_FORMAT);
    assert_non_null(strstr(pk_error_last(), "more costs"));
    /* found by fuzz_callgrind: totals stored for one event, then read by two;
     * and the refused line's new event must still size the cost rows */
    static const char events_again[] = "events: Ir\nsummary: 5\nevents: Ir Dr\nfn=main\n1 5\n";
    assert_int_equal(open_bytes(events_again, sizeof events_again - 1, 0, &p), PK_ERR_FORMAT);
    assert_non_null(strstr(pk_error_last(), "'events:' after 'summary:'"));
    /* with KEEP_GOING the line is skipped and the part keeps its one event */
    assert_int_equal(open_bytes(events_again, sizeof events_again - 1, PK_OPEN_KEEP_GOING, &p),
                     PK_OK);
    assert_int_equal(tu_count_diagnostics(p, "bad-line", PK_SEV_ERROR), 1);
    pk_profile_free(p);
}

static void split_writer_round_trips_as_one_run(void **s)
{
    (void)s;
    size_t n;
    char *t = sample(&n);
    pk_profile *p, *q;
    assert_int_equal(open_bytes(t, n, 0, &p), PK_OK);
    char dir[64] = "/tmp/pk-cgsplit-XXXXXX", out[128], part[160];
    assert_non_null(mkdtemp(dir));
    snprintf(out, sizeof out, "%s/out.callgrind", dir);
    pk_write_options o = {.flags = PK_WRITE_SPLIT};
    pk_write_stats st;
    assert_int_equal(pk_profile_write(p, PK_FORMAT_CALLGRIND, out, &o, &st), PK_OK);
    assert_int_equal(st.n_files, 2);
    snprintf(part, sizeof part, "%s-02", out);
    size_t pn;
    unsigned char *second = tu_read_file(part, &pn);
    assert_non_null(second);
    assert_non_null(strstr((char *)second, "version: 1\n"));
    free(second);
    assert_int_equal(pk_profile_open(out, NULL, &q), PK_OK); /* by the base name */
    char *a = tu_cg_canonical(p), *b = tu_cg_canonical(q);
    assert_string_equal(a, b);
    free(a), free(b), pk_profile_free(q);
    /* an existing part is not replaced without FORCE */
    assert_int_equal(pk_profile_write(p, PK_FORMAT_CALLGRIND, out, &o, &st), PK_ERR_IO);
    assert_non_null(strstr(pk_error_last(), "out.callgrind-01: already exists"));
    pk_profile_free(p);
    tu_remove_tree(dir);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sample_has_the_values_written_by_hand),
        cmocka_unit_test(bad_cost_names_file_line_and_offset),
        cmocka_unit_test(numbers_that_overflow_or_run_on_are_refused),
        cmocka_unit_test(consistency_problems_are_reported_with_lines),
        cmocka_unit_test(cut_files_are_flagged),
        cmocka_unit_test(gzip_input_is_read_and_its_damage_refused),
        cmocka_unit_test(garbage_is_refused_with_a_message),
        cmocka_unit_test(split_writer_round_trips_as_one_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
