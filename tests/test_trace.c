/*
 * tests/test_trace.c — the trace answer (profkit/trace.h) on databases the
 * test fixture writer builds (tests/fixtures), against numbers worked out
 * by hand from their samples: time per location and function in a window,
 * focus and hide, gaps, traces that go backwards, the median interval of
 * a trace long enough to take the radix path, time parsing, the timeline,
 * and the Chrome export's events and its exact size estimate.
 *
 * The sample database (tests/fixtures/sample_db.c), times in ms after T0:
 *   thread 0: idle 0-10, dot 10-30, solve 30-40, memcpy 40-50, dot 50-60,
 *             write_output 60-70 (dot and memcpy inside solve inside main)
 *   thread 1: worker 2-22, idle 22-32;  thread 2: worker 3-23
 *   thread 3: worker 4-14, idle 14-24, worker 24-44
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fixtures/v4_builder.h"
#include "profkit/profkit.h"
#include "support/pk_cmocka.h"
#include "support/testutil.h"

#define MS 1000000.0
#define T0 1714021984000000000ull

typedef struct fixture {
    fx_image img[4];
    pk_profile *p;
} fixture;

static pk_profile *open_db(fixture *fx, const fx_db *db)
{
    assert_int_equal(fx_build(db, fx->img), 0);
    tu_db t = {{0}};
    for (int i = 0; i < 4; i++) {
        t.names[i] = fx->img[i].name;
        t.data[i] = fx->img[i].data;
        t.size[i] = fx->img[i].size;
    }
    fx->p = NULL;
    if (tu_open_db(&t, 0, &fx->p) != PK_OK) fail_msg("open failed: %s", pk_error_last());
    return fx->p;
}

static void close_db(fixture *fx)
{
    pk_profile_free(fx->p);
    fx_free(fx->img);
}

static pk_trace_answer *answer(const pk_profile *p, const char *loc, const char *from,
                               const char *to, const char *focus, const char *hide)
{
    pk_trace_selection sel = {loc, from, to, focus, hide};
    pk_trace_answer *a = NULL;
    if (pk_trace_answer_compute(p, &sel, NULL, NULL, &a) != PK_OK)
        fail_msg("trace answer: %s", pk_error_last());
    return a;
}

/* The location whose name ends in `thread` ("THREAD 3"). */
static const pk_trace_location *loc_of(const pk_profile *p, const pk_trace_answer *a,
                                       const char *thread)
{
    for (size_t i = 0; i < a->n_locations; i++) {
        char name[128];
        pk_location_name(p, a->locations[i].location, name, sizeof name);
        size_t n = strlen(name), k = strlen(thread);
        if (n >= k && strcmp(name + n - k, thread) == 0) return &a->locations[i];
    }
    fail_msg("no location %s", thread);
    return NULL;
}

/* Self and inclusive ns of the function named `fn` (0 when absent). */
static void fn_times(const pk_profile *p, const pk_trace_answer *a, const char *fn, double *self,
                     double *incl)
{
    *self = *incl = 0;
    for (size_t i = 0; i < a->n_functions; i++) {
        char name[128];
        pk_context_name(p, a->functions[i].context, name, sizeof name);
        if (strcmp(name, fn) == 0)
            *self = a->functions[i].self_ns, *incl = a->functions[i].inclusive_ns;
    }
}

static void test_whole(void **state)
{
    (void)state;
    fixture fx;
    const pk_profile *p = open_db(&fx, fx_sample_db());
    pk_trace_answer *a = answer(p, NULL, NULL, NULL, NULL, NULL);
    assert_int_equal(a->n_locations, 4);
    assert_true(a->running_ns == 130 * MS);
    const pk_trace_location *t0 = loc_of(p, a, "THREAD 0"), *t3 = loc_of(p, a, "THREAD 3");
    assert_true(t0->running_ns == 60 * MS && t0->idle_ns == 10 * MS && t0->event_based);
    assert_true(t3->running_ns == 30 * MS && t3->idle_ns == 10 * MS);
    assert_int_equal(t0->window_samples, 8);
    assert_true(loc_of(p, a, "THREAD 2")->period_ns == 10000000 &&
                !loc_of(p, a, "THREAD 2")->event_based);
    double s, i;
    fn_times(p, a, "main", &s, &i);
    assert_true(s == 0 && i == 60 * MS);
    fn_times(p, a, "solve", &s, &i);
    assert_true(s == 10 * MS && i == 50 * MS);
    fn_times(p, a, "dot", &s, &i);
    assert_true(s == 30 * MS && i == 30 * MS);
    fn_times(p, a, "worker", &s, &i);
    assert_true(s == 70 * MS && i == 70 * MS);
    assert_true(a->locations[0].running_ns >= a->locations[1].running_ns); /* busiest first */
    pk_trace_answer_free(a);
    close_db(&fx);
}

static void test_window(void **state)
{
    (void)state;
    fixture fx;
    const pk_profile *p = open_db(&fx, fx_sample_db());
    pk_trace_answer *a = answer(p, NULL, "15ms", "45ms", NULL, NULL);
    assert_true(a->from_ns == T0 + 15000000 && a->to_ns == T0 + 45000000);
    const pk_trace_location *l = loc_of(p, a, "THREAD 0");
    assert_true(l->running_ns == 30 * MS && l->idle_ns == 0 && l->covered_ns == 30 * MS);
    assert_int_equal(l->window_samples, 3);
    l = loc_of(p, a, "THREAD 1");
    assert_true(l->running_ns == 7 * MS && l->idle_ns == 10 * MS && l->window_samples == 2);
    l = loc_of(p, a, "THREAD 3");
    assert_true(l->running_ns == 20 * MS && l->idle_ns == 9 * MS);
    double s, i;
    fn_times(p, a, "worker", &s, &i);
    assert_true(s == 35 * MS);
    fn_times(p, a, "dot", &s, &i);
    assert_true(s == 15 * MS);
    assert_true(a->running_ns == 65 * MS);
    pk_trace_answer_free(a);
    /* absolute nanoseconds mean the same window */
    char from[32], to[32];
    snprintf(from, sizeof from, "%llu", T0 + 15000000);
    snprintf(to, sizeof to, "%llu", T0 + 45000000);
    a = answer(p, NULL, from, to, NULL, NULL);
    assert_true(a->running_ns == 65 * MS);
    pk_trace_answer_free(a);
    close_db(&fx);
}

static void test_focus_hide_location(void **state)
{
    (void)state;
    fixture fx;
    const pk_profile *p = open_db(&fx, fx_sample_db());
    pk_trace_answer *a = answer(p, NULL, NULL, NULL, "^solve$", NULL);
    const pk_trace_location *l = loc_of(p, a, "THREAD 0");
    assert_true(l->running_ns == 50 * MS && l->filtered_ns == 10 * MS);
    assert_true(loc_of(p, a, "THREAD 3")->filtered_ns == 30 * MS);
    double s, i;
    fn_times(p, a, "write_output", &s, &i);
    assert_true(s == 0 && i == 0);
    pk_trace_answer_free(a);
    a = answer(p, NULL, NULL, NULL, NULL, "^dot$");
    l = loc_of(p, a, "THREAD 0");
    assert_true(l->running_ns == 30 * MS && l->filtered_ns == 30 * MS);
    pk_trace_answer_free(a);
    a = answer(p, "thread=3", NULL, NULL, NULL, NULL);
    assert_int_equal(a->n_locations, 1);
    assert_true(a->running_ns == 30 * MS);
    pk_trace_answer_free(a);
    close_db(&fx);
}

static void test_errors(void **state)
{
    (void)state;
    fixture fx;
    const pk_profile *p = open_db(&fx, fx_sample_db());
    pk_trace_answer *a = NULL;
    struct {
        pk_trace_selection sel;
        pk_status want;
    } bad[] = {
        {{.to = "2"}, PK_ERR_NOT_FOUND},       /* 2 ns after the epoch: before the traces */
        {{.from = "1.5"}, PK_ERR_INVALID_ARG}, /* a fraction needs a unit */
        {{.from = "1x"}, PK_ERR_INVALID_ARG},
        {{.from = "-1s"}, PK_ERR_INVALID_ARG},
        {{.from = "40ms", .to = "30ms"}, PK_ERR_INVALID_ARG},
        {{.from = "1s"}, PK_ERR_NOT_FOUND}, /* after the end */
        {{.location = "thread=9"}, PK_ERR_NOT_FOUND},
        {{.location = "thread"}, PK_ERR_INVALID_ARG},
        {{.focus = "("}, PK_ERR_INVALID_ARG},
        {{.to = "99999999999999999999"}, PK_ERR_INVALID_ARG},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        pk_status st = pk_trace_answer_compute(p, &bad[k].sel, NULL, NULL, &a);
        if (st != bad[k].want) fail_msg("case %zu: status %d (%s)", k, st, pk_error_last());
        assert_null(a);
    }
    close_db(&fx);
}

static void test_time_parse(void **state)
{
    (void)state;
    struct {
        const char *text;
        uint64_t ns;
    } good[] = {{"1.5s", 1500000000},   {"0.1s", 100000000},
                {"250ms", 250000000},   {"20us", 20000},
                {"20\xc2\xb5s", 20000}, {"100ns", 100},
                {"2min", 120000000000}, {"+1s", 1000000000},
                {"0.0000000005s", 1},   {"1.000000001s", 1000000001}};
    for (size_t k = 0; k < sizeof good / sizeof *good; k++) {
        uint64_t t;
        assert_int_equal(pk_trace_time_parse(good[k].text, 1000, &t), PK_OK);
        if (t != 1000 + good[k].ns) fail_msg("%s: %llu", good[k].text, (unsigned long long)t);
    }
    uint64_t t;
    assert_int_equal(pk_trace_time_parse("1714021984000000000", 1000, &t), PK_OK);
    assert_true(t == T0);
    const char *bad[] = {"",
                         "s",
                         ".s",
                         "1.5",
                         "+12",
                         "1 s s",
                         "1e3s",
                         "18446744073709551616",
                         "18446744073709551615s"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
        if (pk_trace_time_parse(bad[k], 1000, &t) != PK_ERR_INVALID_ARG) fail_msg("%s", bad[k]);
}

/* One thread of worker samples at the given times (ms): a trace of our own. */
static const fx_db *one_thread(const fx_sample *s, int n)
{
    static fx_db db;
    static int count;
    static const fx_sample *traces[1];
    db = *fx_sample_db();
    count = n, traces[0] = s;
    db.n_threads = 1, db.traces = traces, db.n_samples = &count, db.n_values = 8;
    return &db;
}

static void test_gaps_and_order(void **state)
{
    (void)state;
    const uint64_t M = 1000000;
    fx_sample gap[] = {{T0, 20},          {T0 + 10 * M, 20},  {T0 + 20 * M, 20}, {T0 + 30 * M, 20},
                       {T0 + 40 * M, 20}, {T0 + 200 * M, 20}, {T0 + 210 * M, 20}};
    fixture fx;
    const pk_profile *p = open_db(&fx, one_thread(gap, 7));
    pk_trace_answer *a = answer(p, NULL, NULL, NULL, NULL, NULL);
    const pk_trace_location *l = &a->locations[0];
    assert_true(l->period_ns == 10 * M && l->n_gaps == 1 && l->gap_ns == 160 * MS);
    assert_true(l->running_ns == 50 * MS);
    pk_trace_answer_free(a);
    a = answer(p, NULL, "35ms", "205ms", NULL, NULL);
    l = &a->locations[0];
    assert_true(l->running_ns == 10 * MS && l->gap_ns == 160 * MS && l->covered_ns == 170 * MS);
    pk_trace_answer_free(a);
    close_db(&fx);
    /* a trace that goes back in time: the late sample counts at the time before it */
    fx_sample back[] = {{T0, 20}, {T0 + 10 * M, 20}, {T0 + 5 * M, 20}, {T0 + 20 * M, 20}};
    p = open_db(&fx, one_thread(back, 4));
    pk_trace_facts f;
    assert_int_equal(pk_trace_facts_compute(p, 0, &f), PK_OK);
    assert_false(f.ordered);
    a = answer(p, NULL, "8ms", NULL, NULL, NULL);
    assert_true(a->locations[0].running_ns == 12 * MS);
    pk_trace_answer_free(a);
    close_db(&fx);
}

/* Traces with one sample each: no time, but an answer (the window is all
 * of it); a window the user gives holds nothing. */
static void test_single_samples(void **state)
{
    (void)state;
    fx_sample one[] = {{T0, 0}};
    fixture fx;
    const pk_profile *p = open_db(&fx, one_thread(one, 1));
    pk_trace_answer *a = answer(p, NULL, NULL, NULL, NULL, NULL);
    assert_true(a->running_ns == 0 && a->locations[0].window_samples == 1);
    assert_false(a->locations[0].event_based);
    pk_trace_answer_free(a);
    pk_trace_selection sel = {.from = "0s"};
    assert_int_equal(pk_trace_answer_compute(p, &sel, NULL, NULL, &a), PK_ERR_NOT_FOUND);
    close_db(&fx);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* More than a million intervals with a wide spread: the radix select
 * must find the median a sort finds. */
static void test_median_radix(void **state)
{
    (void)state;
    int n = (1 << 20) + 4097;
    fx_sample *s = malloc((size_t)n * sizeof *s);
    uint64_t *iv = malloc((size_t)n * sizeof *iv), t = T0, x = 12345;
    assert_non_null(s), assert_non_null(iv);
    for (int i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t d = (x >> 33) % 5000 + 1;
        if ((x >> 20) % 1000 == 0) d += (x >> 24) % (1ull << 38); /* rare huge steps */
        if (i) iv[i - 1] = d, t += d;
        s[i] = (fx_sample){t, 20};
    }
    qsort(iv, (size_t)n - 1, sizeof *iv, cmp_u64);
    fixture fx;
    const pk_profile *p = open_db(&fx, one_thread(s, n));
    pk_trace_facts f;
    assert_int_equal(pk_trace_facts_compute(p, 0, &f), PK_OK);
    assert_true(f.valid && f.ordered && !f.event_based);
    if (f.period_ns != iv[(n - 1) / 2])
        fail_msg("radix median %llu, sorted %llu", (unsigned long long)f.period_ns,
                 (unsigned long long)iv[(n - 1) / 2]);
    close_db(&fx);
    free(s), free(iv);
}

static void test_timeline(void **state)
{
    (void)state;
    fixture fx;
    const pk_profile *p = open_db(&fx, fx_sample_db());
    pk_trace_selection sel = {.from = "0s", .to = "70ms", .location = "thread=0"};
    pk_trace_timeline_options tl = {.width = 7};
    pk_trace_answer *a = NULL;
    assert_int_equal(pk_trace_answer_compute(p, &sel, &tl, NULL, &a), PK_OK);
    assert_int_equal(a->n_rows, 1);
    static const char *const want[] = {"-1", "dot", "solve", "memcpy", "dot", "write_output"};
    const pk_trace_row *r = &a->rows[0];
    assert_int_equal(r->n_spans, 6);
    uint64_t at = a->from_ns;
    for (size_t i = 0; i < r->n_spans; i++) {
        const pk_trace_span *sp = &a->spans[r->first_span + i];
        char name[64] = "-1";
        if (sp->function >= 0) pk_context_name(p, a->functions[sp->function].context, name, 64);
        if (strcmp(name, want[i]) || sp->begin_ns != at) fail_msg("span %zu: %s", i, name);
        at = sp->end_ns;
    }
    assert_true(at == a->to_ns);
    /* the document: one writer, valid JSON with the timeline */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    pk_json j;
    pk_json_init(&j, f, 0);
    pk_trace_answer_write_json(&j, p, a);
    assert_int_equal(pk_json_finish(&j), PK_OK);
    fclose(f);
    assert_non_null(strstr(text, "\"schema\":\"profkit.trace/1\""));
    assert_non_null(strstr(text, "\"timeline\":{\"width\":7,\"first\":0,\"rows\":[{"));
    assert_non_null(strstr(text, "\"from_offset_ns\":0,\"to_offset_ns\":70000000"));
    free(text);
    pk_trace_answer_free(a);
    close_db(&fx);
}

static char *export_text(const pk_profile *p, const pk_trace_selection *sel, int gzip, size_t *len,
                         pk_trace_export_stats *stats)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    pk_trace_export_options o = {.gzip = gzip, .source = "sample"};
    if (pk_trace_export_chrome(f, p, sel, &o, stats) != PK_OK) fail_msg("%s", pk_error_last());
    fclose(f);
    return text;
}

static void test_chrome(void **state)
{
    (void)state;
    fixture fx;
    const pk_profile *p = open_db(&fx, fx_sample_db());
    size_t len, zlen;
    pk_trace_export_stats st;
    char *text = export_text(p, NULL, 0, &len, &st);
    assert_int_equal(st.events, 20); /* worked out from the samples: 12 + 2 + 2 + 4 */
    assert_int_equal(st.bytes, len);
    assert_int_equal(st.n_threads, 4);
    assert_non_null(strstr(text,
                           "\"ph\":\"B\",\"pid\":0,\"tid\":1,\"ts\":10000.000,\"name\":\"main\","
                           "\"args\":{\"module\":\"/opt/demo/bin/solver\""));
    assert_non_null(strstr(text, "\"origin_ns\":1714021984000000000"));
    pk_trace_estimate *e = malloc(sizeof *e);
    pk_trace_export_options same = {.source = "sample"};
    assert_int_equal(pk_trace_export_estimate(p, NULL, &same, e), PK_OK);
    assert_int_equal(e->bytes, len); /* the estimate is the bytes */
    assert_int_equal(e->events, 20);
    assert_false(e->over_limit);
    pk_trace_export_options tiny = {.source = "sample", .limit = len / 2};
    assert_int_equal(pk_trace_export_estimate(p, NULL, &tiny, e), PK_OK);
    assert_true(e->over_limit && e->fits_to_ns > e->from_ns && e->fits_to_ns < e->to_ns);
    uint64_t bound;
    assert_int_equal(pk_trace_export_bound(p, NULL, &bound), PK_OK);
    assert_true(bound >= len);
    /* gzip: the same bytes, compressed */
    char *z = export_text(p, NULL, 1, &zlen, &st);
    char *back = malloc(len + 1);
    z_stream zs = {.next_in = (Bytef *)z,
                   .avail_in = (uInt)zlen,
                   .next_out = (Bytef *)back,
                   .avail_out = (uInt)len + 1};
    assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
    assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
    assert_int_equal(zs.total_out, len);
    assert_memory_equal(back, text, len);
    inflateEnd(&zs);
    free(z), free(back), free(e), free(text);
    /* a selection: thread 0 from 35 ms, without dot */
    pk_trace_selection sel = {.location = "thread=0", .from = "35ms", .hide = "^dot$"};
    text = export_text(p, &sel, 0, &len, &st);
    assert_int_equal(st.n_threads, 1);
    assert_null(strstr(text, "\"name\":\"dot\""));
    assert_non_null(
        strstr(text, "\"ph\":\"B\",\"pid\":0,\"tid\":1,\"ts\":35000.000,\"name\":\"main\""));
    free(text);
    close_db(&fx);
}

/* A call chain 20,000 deep (f0 -> f1 -> f0 -> ...: recursion too) whose
 * trace alternates between two lines of the deepest call: the answer and
 * the export must cost the samples plus the depth, not their product
 * (8 10^9 steps would be slow), and recursion counts once. (Deeper
 * chains make the fixture writer slow, not profkit.) */
static void test_deep_tree(void **state)
{
    (void)state;
    enum { DEPTH = 20000, SAMPLES = 400000 };
    fx_db db = *fx_sample_db();
    static const fx_function fns[] = {{"f0", 0, 0x10, 0, 1}, {"f1", 0, 0x20, 0, 2}};
    fx_context *ctx = calloc(DEPTH + 2, sizeof *ctx);
    fx_sample *s = malloc(SAMPLES * sizeof *s);
    assert_non_null(ctx), assert_non_null(s);
    for (int i = 0; i < DEPTH; i++)
        ctx[i] = (fx_context){(uint32_t)i + 1, i - 1, 1, 0, i % 2, -1, 0, -1, 0, 0, NULL, 0};
    ctx[0].relation = 0, ctx[0].entry = 1, ctx[0].lexical = 0;
    for (int k = 0; k < 2; k++) /* two lines of the deepest call */
        ctx[DEPTH + k] =
            (fx_context){DEPTH + 1 + k, DEPTH - 1, 0, 2, -1, 0, 10u + k, -1, 0, 0, NULL, 0};
    for (int i = 0; i < SAMPLES; i++)
        s[i] = (fx_sample){T0 + (uint64_t)i * 1000, (uint32_t)(DEPTH + 1 + i % 2)};
    static int count = SAMPLES;
    const fx_sample *traces[1] = {s};
    db.functions = fns, db.n_functions = 2, db.contexts = ctx, db.n_contexts = DEPTH + 2;
    db.n_threads = 1, db.traces = traces, db.n_samples = &count, db.values = NULL, db.n_values = 0;
    fixture fx;
    const pk_profile *p = open_db(&fx, &db);
    pk_trace_answer *a = answer(p, NULL, NULL, NULL, NULL, NULL);
    double self, incl, want = (SAMPLES - 1) * 1000.0;
    assert_true(a->running_ns == want);
    fn_times(p, a, "f1", &self, &incl); /* the deepest call is f1 (DEPTH is even) */
    assert_true(self == want && incl == want);
    fn_times(p, a, "f0", &self, &incl);
    assert_true(self == 0 && incl == want);
    pk_trace_answer_free(a);
    size_t len;
    pk_trace_export_stats st;
    char *text = export_text(p, NULL, 0, &len, &st);
    assert_int_equal(st.events,
                     2 * (DEPTH - 1)); /* lines fold into f1: one path; the entry is none */
    free(text);
    close_db(&fx);
    free(ctx), free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole),
        cmocka_unit_test(test_window),
        cmocka_unit_test(test_focus_hide_location),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_time_parse),
        cmocka_unit_test(test_gaps_and_order),
        cmocka_unit_test(test_median_radix),
        cmocka_unit_test(test_timeline),
        cmocka_unit_test(test_chrome),
        cmocka_unit_test(test_single_samples),
        cmocka_unit_test(test_deep_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
