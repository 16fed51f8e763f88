/*
 * tests/test_callgrind_writer.c — the Callgrind writer and what the reader
 * must read back from it, without the corpus (the conversion matrix checks
 * the corpus with callgrind_annotate):
 *  - a calling-context tree's costs land in their functions (lines, loops,
 *    instructions, inlined frames), with seconds scaled to integers and
 *    the unit and original metric name read back;
 *  - one part holding the sum over locations by default, one file per
 *    location with --split, the locations --location names;
 *  - a profile whose values live only in its summary;
 *  - names that a line-based format cannot hold as they are (newlines,
 *    blanks at the ends, escape-like backslashes) come back unchanged and
 *    forge nothing;
 *  - what Callgrind cannot hold is reported, and --strict refuses it;
 *  - the reader: "cfi=???"/"cob=???" mean unknown (no phantom function in
 *    the caller's file), "event:" lines do not reorder "events:", and
 *    profkit check names what callgrind_annotate stumbles on.
 */
#define _POSIX_C_SOURCE 200809L

#include "support/pk_cmocka.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures/v4_builder.h"
#include "support/testutil.h"

static char g_dir[64];

static int setup(void **s)
{
    (void)s;
    snprintf(g_dir, sizeof g_dir, "/tmp/pk-cgw-XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **s)
{
    (void)s;
    tu_remove_tree(g_dir);
    return 0;
}

static void path_in(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", g_dir, name);
}

/* Losses reported by a writer, as "item: reason" lines. */
typedef struct losses {
    char text[4096];
    int n;
} losses;

static void on_loss(void *user, const char *item, const char *reason)
{
    losses *l = user;
    size_t k = strlen(l->text);
    snprintf(l->text + k, sizeof l->text - k, "%s: %s\n", item, reason);
    l->n++;
}

static pk_status write_cg(const pk_profile *p, const char *out, uint32_t flags, const char *loc,
                          losses *l)
{
    pk_write_options o = {
        .flags = flags | PK_WRITE_FORCE, .loss = on_loss, .loss_user = l, .location = loc};
    return pk_profile_write(p, PK_FORMAT_CALLGRIND, out, &o, NULL);
}

static pk_profile *open_path(const char *path)
{
    pk_profile *p;
    if (pk_profile_open(path, NULL, &p)) fail_msg("%s: %s", path, pk_error_last());
    return p;
}

static pk_profile *open_flags(const char *text, uint32_t flags)
{
    static const char *const name = "t.callgrind";
    const void *d = text;
    uint64_t n = strlen(text);
    pk_open_options o = {.flags = flags};
    pk_profile *p;
    if (pk_profile_open_memory(PK_FORMAT_CALLGRIND, 1, &name, &d, &n, &o, &p))
        fail_msg("%s", pk_error_last());
    return p;
}

static pk_profile *open_text(const char *text)
{
    return open_flags(text, 0);
}

static pk_index function_named(const pk_profile *p, const char *name)
{
    for (pk_index f = 0; f < pk_function_count(p); f++) {
        pk_function fn;
        if (!pk_function_get(p, f, &fn) && fn.name && strcmp(fn.name, name) == 0) return f;
    }
    fail_msg("no function '%s'", name);
    return PK_NONE;
}

/* Self and inclusive cost of function `name` for event e, all parts. */
static void costs_of(const pk_profile *p, size_t e, const char *name, double *self, double *incl)
{
    size_t nf = pk_function_count(p);
    pk_cg_function_cost *c = calloc(nf + 1, sizeof *c);
    assert_int_equal(pk_callgraph_function_costs(p, PK_NONE, e, c, NULL, NULL), PK_OK);
    pk_index f = function_named(p, name);
    *self = c[f].self, *incl = c[f].inclusive;
    free(c);
}

static void expect_function(const pk_profile *p, size_t e, const char *name, double self,
                            double incl)
{
    double s, i;
    costs_of(p, e, name, &s, &i);
    if (fabs(s - self) > 1e-9 * fabs(self) || fabs(i - incl) > 1e-9 * fabs(incl))
        fail_msg("%s: self %.17g inclusive %.17g, want %.17g and %.17g", name, s, i, self, incl);
}

static double total_of(const pk_profile *p, pk_index m)
{
    double t;
    assert_int_equal(pk_metric_program_total(p, m, &t), PK_OK);
    return t;
}

static pk_profile *sample_profile(char *dir, size_t n, const fx_db *db)
{
    snprintf(dir, n, "%s/src-%p.d", g_dir, (const void *)db);
    assert_int_equal(fx_write_dir(db, dir), 0);
    return open_path(dir);
}

/* ------------------------------------------------------------------ */

static void cct_costs_land_in_their_functions(void **s)
{
    (void)s;
    char src[256], out[256];
    pk_profile *p = sample_profile(src, sizeof src, fx_sample_db());
    path_in(out, sizeof out, "sample.callgrind");
    losses l = {{0}, 0};
    assert_int_equal(write_cg(p, out, 0, NULL, &l), PK_OK);
    assert_non_null(strstr(l.text, "traces: "));
    assert_non_null(strstr(l.text, "per-location values: the 4 locations"));
    pk_profile *q = open_path(out);
    assert_int_equal(pk_location_count(q), 1); /* one part (no summary: one location) */
    pk_metric m;
    assert_int_equal(pk_metric_get(q, 0, &m), PK_OK);
    assert_string_equal(m.name, "CPUTIME (sec)"); /* the event is CPUTIME_(sec) */
    assert_string_equal(m.unit, "ms");            /* 0.125 s -> 125 ms */
    assert_true(total_of(q, 0) == 7025);
    assert_true(total_of(q, 1) == total_of(p, 1)); /* cycles: integers, as they were */
    /* self cost where the tree measured it; the inlined dot is a callee of solve */
    expect_function(q, 0, "dot", 2500, 2500);
    expect_function(q, 0, "solve", 125, 3025);
    expect_function(q, 0, "memcpy", 400, 400);
    expect_function(q, 0, "worker", 3700, 3700);
    expect_function(q, 0, "main", 0, 3325);
    for (pk_index f = 0; f < pk_function_count(q); f++) { /* entry points are no functions */
        pk_function fn;
        pk_function_get(q, f, &fn);
        assert_true(!strstr(fn.name, "thread") && !strstr(fn.name, "entry"));
    }
    pk_profile_free(q), pk_profile_free(p);
}

static void locations_are_summed_split_or_chosen(void **s)
{
    (void)s;
    char src[256], out[256], part[300];
    pk_profile *p = sample_profile(src, sizeof src, fx_sample_db());
    double per_thread[8];
    unsigned char two[8];
    size_t n_two;
    assert_int_equal(pk_location_totals(p, 0, per_thread, 8), PK_OK);
    assert_int_equal(pk_location_select(p, "thread=2", two, 8, &n_two), PK_OK);
    assert_int_equal(n_two, 1);
    pk_index loc2 = (pk_index)(memchr(two, 1, 8) ? (unsigned char *)memchr(two, 1, 8) - two : 0);
    path_in(out, sizeof out, "split.callgrind");
    losses l = {{0}, 0};
    assert_int_equal(write_cg(p, out, PK_WRITE_SPLIT, NULL, &l), PK_OK);
    assert_null(strstr(l.text, "per-location"));
    snprintf(part, sizeof part, "%s-04", out);
    pk_profile *q = open_path(part); /* one thread's file on its own */
    assert_true(total_of(q, 0) == 1350);
    pk_profile_free(q);
    q = open_path(out);                        /* the set, by its base name */
    assert_int_equal(pk_location_count(q), 4); /* one per thread */
    assert_true(total_of(q, 0) == 7025);
    pk_profile_free(q);
    path_in(out, sizeof out, "one.callgrind");
    assert_int_equal(write_cg(p, out, 0, "thread=2", &l), PK_OK);
    q = open_path(out);
    assert_true(fabs(total_of(q, 0) - 1e3 * per_thread[loc2]) < 1e-9);
    pk_profile_free(q);
    assert_int_equal(write_cg(p, out, 0, "thread=9", &l), PK_ERR_NOT_FOUND);
    assert_int_equal(write_cg(p, out, 0, "nonsense", &l), PK_ERR_INVALID_ARG);
    pk_profile_free(p);
}

static void summary_only_profiles_write_their_sums(void **s)
{
    (void)s;
    fx_db db = *fx_sample_db();
    db.summary_only = 1, db.traces = NULL, db.n_samples = NULL;
    char src[256], out[256];
    pk_profile *p = sample_profile(src, sizeof src, &db);
    path_in(out, sizeof out, "summary.callgrind");
    losses l = {{0}, 0};
    assert_int_equal(write_cg(p, out, PK_WRITE_SPLIT, NULL, &l), PK_OK);
    pk_profile *q = open_path(out);
    assert_true(total_of(q, 0) == 7025);
    expect_function(q, 0, "worker", 3700, 3700);
    pk_profile_free(q), pk_profile_free(p);
}

/* ------------------------------------------------------------------ */

static const char *const odd_functions[] = {"a\nfn=(9) forged", " lead",     "trail\t",
                                            "back\\x41slash",   "tab\there", "\\x5c"};

static void names_come_back_unchanged(void **s)
{
    (void)s;
    fx_db db = *fx_sample_db();
    fx_function fns[6];
    memcpy(fns, db.functions, sizeof fns);
    for (int i = 0; i < 6; i++)
        fns[i].name = odd_functions[i];
    static const char *const files[] = {"/src/we\nird.c", " kernels.c "};
    db.functions = fns, db.files = files, db.title = "demo\ncmd: forged";
    char src[256], out[256];
    pk_profile *p = sample_profile(src, sizeof src, &db);
    path_in(out, sizeof out, "names.callgrind");
    losses l = {{0}, 0};
    assert_int_equal(write_cg(p, out, 0, NULL, &l), PK_OK);
    size_t n;
    char *text = (char *)tu_read_file(out, &n);
    assert_non_null(text);
    text = realloc(text, n + 1), text[n] = 0;
    assert_null(strstr(text, "\nfn=(9) forged")); /* no forged record */
    assert_null(strstr(text, "\ncmd: forged"));
    free(text);
    pk_profile *q = open_path(out);
    for (int i = 0; i < 6; i++)
        function_named(q, odd_functions[i]);
    int seen = 0;
    for (pk_index f = 0; f < pk_file_count(q); f++) {
        pk_file fi;
        pk_file_get(q, f, &fi);
        seen += strcmp(fi.path, files[0]) == 0 || strcmp(fi.path, files[1]) == 0;
    }
    assert_int_equal(seen, 2);
    pk_profile_info info;
    pk_profile_get_info(q, &info);
    assert_string_equal(info.title, "demo\ncmd: forged");
    pk_profile_free(q), pk_profile_free(p);
}

static void what_callgrind_cannot_hold_is_reported(void **s)
{
    (void)s;
    fx_db db = *fx_sample_db();
    db.n_metrics = 0, db.n_values = 0;
    char src[256], out[256];
    pk_profile *p = sample_profile(src, sizeof src, &db);
    path_in(out, sizeof out, "nometric.callgrind");
    losses l = {{0}, 0};
    assert_int_equal(write_cg(p, out, 0, NULL, &l), PK_OK);
    assert_non_null(strstr(l.text, "metrics: the profile has no metric"));
    pk_profile *q = open_path(out); /* a valid file with the one event it needs */
    pk_metric m;
    assert_int_equal(pk_metric_get(q, 0, &m), PK_OK);
    assert_string_equal(m.name, "none");
    pk_profile_free(q);
    path_in(out, sizeof out, "strict.callgrind");
    assert_int_equal(write_cg(p, out, PK_WRITE_STRICT, NULL, &l), PK_ERR_UNSUPPORTED);
    assert_non_null(strstr(pk_error_last(), "--strict"));
    assert_int_equal(access(out, F_OK), -1);
    pk_profile_free(p);
}

/* ------------------------------------------------------------------ */

static void unknown_callee_file_and_object_stay_unknown(void **s)
{
    (void)s;
    pk_profile *p = open_text("# callgrind format\nversion: 1\ncreator: test\n"
                              "positions: line\nevents: Ir\n\n"
                              "ob=(1) /bin/prog\nfl=(1) a.c\nfn=(1) caller\n5 10\n"
                              "cob=(2) ???\ncfi=(2) ???\ncfn=(2) callee\ncalls=1 3\n6 20\n\n"
                              "ob=(2)\nfl=(2)\nfn=(2)\n3 20\n");
    /* the callee of the call and the function written after it are one */
    assert_int_equal(pk_function_count(p), 2);
    pk_function fn;
    assert_int_equal(pk_function_get(p, function_named(p, "callee"), &fn), PK_OK);
    assert_int_equal(fn.file, PK_NONE);
    assert_int_equal(fn.module, PK_NONE);
    expect_function(p, 0, "caller", 10, 30);
    pk_profile_free(p);
}

static void event_lines_do_not_reorder_events(void **s)
{
    (void)s;
    pk_profile *p = open_text("# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\n"
                              "positions: line\nevent: sysTime : sysTime (elapsed ns)\n"
                              "events: Ir sysTime\nsummary: 3 7\n\nfl=(1) a.c\nfn=(1) f\n1 3 7\n"
                              "totals: 3 7\n");
    pk_metric m;
    assert_int_equal(pk_metric_get(p, 0, &m), PK_OK);
    assert_string_equal(m.name, "Ir");
    assert_int_equal(pk_metric_get(p, 1, &m), PK_OK);
    assert_string_equal(m.name, "sysTime");
    assert_string_equal(m.description, "sysTime (elapsed ns)");
    assert_int_equal(pk_diagnostic_count(p), 0);
    pk_profile_free(p);
    /* an event listed twice, read past with KEEP_GOING (found by fuzz_callgrind) */
    p = open_flags("event: B : b\nevents: A B A\nfl=(1) a.c\nfn=(1) f\n1 3 7\n",
                   PK_OPEN_KEEP_GOING);
    assert_int_equal(pk_metric_get(p, 0, &m), PK_OK);
    assert_string_equal(m.name, "A");
    assert_int_equal(pk_metric_count(p), 2);
    pk_profile_free(p);
}

static void check_names_what_annotate_stumbles_on(void **s)
{
    (void)s;
    pk_profile *p = open_text("positions: bb line\nevents: Ir\nfn=(1) f\n0x10 1 3\n");
    assert_int_equal(tu_count_diagnostics(p, "function-without-file", PK_SEV_WARNING), 1);
    assert_int_equal(tu_count_diagnostics(p, "bb-positions", PK_SEV_WARNING), 1);
    pk_profile_free(p);
    p = open_text("events: Ir\nfi=(1) a.c\nfn=(1) f\n1 3\n");
    assert_int_equal(tu_count_diagnostics(p, "file-before-function", PK_SEV_WARNING), 1);
    pk_profile_free(p);
}

/* A profile opened to be written as a calling-context tree is read per
 * function: its positions would be dropped anyway, and the tree then is
 * the one `profkit tree` shows. Callgrind and JSON keep them. */
static void conversions_read_what_the_target_holds(void **s)
{
    (void)s;
    static const char text[] = "positions: instr line\nevents: Ir\nfl=(1) a.c\nfn=(1) main\n"
                               "0x10 1 3\n0x14 2 4\ncfn=(2) f\ncalls=1 0x20 5\n0x18 3 9\n"
                               "fn=(2)\n0x20 5 9\n";
    static const pk_format tree_formats[] = {PK_FORMAT_HPCTOOLKIT_V4, PK_FORMAT_CUBE,
                                             PK_FORMAT_PPROF};
    static const pk_format position_formats[] = {PK_FORMAT_CALLGRIND, PK_FORMAT_JSON};
    pk_cg_summary sum;
    for (size_t i = 0; i < sizeof tree_formats / sizeof *tree_formats; i++) {
        assert_int_equal(pk_write_open_flags(tree_formats[i]), PK_OPEN_BY_FUNCTION);
        pk_profile *p = open_flags(text, pk_write_open_flags(tree_formats[i]));
        assert_int_equal(pk_callgraph_summary(p, &sum), PK_OK);
        assert_int_equal(sum.by_function, 1);
        assert_int_equal(sum.n_costs, 2); /* one per function */
        pk_profile_free(p);
    }
    for (size_t i = 0; i < sizeof position_formats / sizeof *position_formats; i++) {
        assert_int_equal(pk_write_open_flags(position_formats[i]), 0);
        pk_profile *p = open_flags(text, pk_write_open_flags(position_formats[i]));
        assert_int_equal(pk_callgraph_summary(p, &sum), PK_OK);
        assert_int_equal(sum.by_function, 0);
        assert_int_equal(sum.n_costs, 3); /* 0x10, 0x14 and 0x20 (0x18 is the call's) */
        pk_profile_free(p);
    }
}

/* A compressed function id names the function last defined with it, in
 * the object and file at hand (the parser remembers each id's function:
 * a redefinition, or another file, must not reuse it). Read per function
 * and per position, which go through different paths. */
static void function_ids_follow_redefinitions(void **s)
{
    (void)s;
    static const char text[] = "events: Ir\nfl=(1) a.c\nfn=(5) alpha\n1 10\nfn=(5) beta\n1 20\n"
                               "fn=(5)\n1 5\ncfn=(5)\ncalls=1 1\n1 7\nfl=(2) b.c\nfn=(5)\n1 3\n"
                               "cfn=(5)\ncalls=2 1\n1 4\n";
    static const char *const want[] = {"alpha a.c 10", "beta a.c 25", "beta b.c 3"};
    const uint32_t modes[] = {0, PK_OPEN_BY_FUNCTION};
    for (size_t m = 0; m < 2; m++) {
        pk_profile *p = open_flags(text, modes[m]);
        size_t nf = pk_function_count(p);
        pk_cg_function_cost *c = calloc(nf + 1, sizeof *c);
        assert_int_equal(pk_callgraph_function_costs(p, PK_NONE, 0, c, NULL, NULL), PK_OK);
        assert_int_equal(nf, 3);
        for (pk_index f = 0; f < nf; f++) {
            pk_function fn;
            pk_file file;
            assert_int_equal(pk_function_get(p, f, &fn), PK_OK);
            assert_int_equal(pk_file_get(p, fn.file, &file), PK_OK);
            char got[64];
            snprintf(got, sizeof got, "%s %s %g", fn.name, file.path, c[f].self);
            assert_string_equal(got, want[f]);
        }
        free(c);
        assert_int_equal(tu_count_diagnostics(p, "id-redefined", PK_SEV_WARNING), 1);
        pk_profile_free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cct_costs_land_in_their_functions),
        cmocka_unit_test(locations_are_summed_split_or_chosen),
        cmocka_unit_test(summary_only_profiles_write_their_sums),
        cmocka_unit_test(names_come_back_unchanged),
        cmocka_unit_test(what_callgrind_cannot_hold_is_reported),
        cmocka_unit_test(unknown_callee_file_and_object_stay_unknown),
        cmocka_unit_test(event_lines_do_not_reorder_events),
        cmocka_unit_test(check_names_what_annotate_stumbles_on),
        cmocka_unit_test(conversions_read_what_the_target_holds),
        cmocka_unit_test(function_ids_follow_redefinitions),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
