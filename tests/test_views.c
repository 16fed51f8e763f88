/*
 * tests/test_views.c — the per-location views behind --location, --stat,
 * --focus and --hide (analysis/select.c, analysis/filter.c), checked
 * against independent computations on real files:
 *
 *  - every statistic across locations equals the same statistic computed
 *    here from each location's own values (each location selected alone
 *    with "#N"), and the per-location values add up to the all-location
 *    view, for each scope, stored or derived (Cube stores one, HPCToolkit
 *    both);
 *  - selectors by identifier tuple pick exactly the locations whose tuple
 *    holds the terms;
 *  - focus and hide split the program: what a focus keeps plus what the
 *    same hide keeps is the whole, and the kept part equals the sum of the
 *    outermost matching contexts' inclusive values;
 *  - frame trees (flame graphs, callers, callees, diffs) add up: self
 *    values sum to the root, a profile matches itself frame for frame,
 *    and the callers and callees views of a function agree on its value,
 *    on a Cube, a Callgrind and an HPCToolkit file.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profkit/profkit.h"
#include "support/testutil.h"

static const char *const cube_files[] = {
    "cube/extrap-simple-threaded/cube-example1.cubex",
    "cube/pycubexr-time-p4-cube482/profile.cubex",
    "cube/hatchet-scorep-cpi/profile.cubex",
    "cube/pycubexr-hwcounter-l2dcm/L2_DCM_negative.cubex",
};

static pk_profile *open_corpus(const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", tu_corpus_dir(), rel);
    pk_profile *p = NULL;
    if (pk_profile_open(path, NULL, &p) != PK_OK) fail_msg("%s: %s", rel, pk_error_last());
    return p;
}

/* check() on each of the corpus files, opened in turn. */
static void each_corpus_file(const char *const *files, size_t n,
                             void (*check)(const pk_profile *, const char *))
{
    for (size_t i = 0; i < n; i++) {
        pk_profile *p = open_corpus(files[i]);
        check(p, files[i]);
        pk_profile_free(p);
    }
}

static int close_enough(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-12;
}

/* Each location's values of metric m in `kind`, one array per location. */
static double **per_location(const pk_profile *p, pk_index m, pk_scope_kind kind, size_t *n_plain)
{
    size_t nl = pk_location_count(p), nc = pk_context_count(p);
    double **v = calloc(nl, sizeof *v);
    unsigned char *sel = calloc(nl, 1);
    *n_plain = 0;
    for (pk_index l = 0; l < nl; l++) {
        pk_location loc;
        pk_location_get(p, l, &loc);
        if (loc.is_summary) continue;
        char spec[32];
        snprintf(spec, sizeof spec, "#%u", l);
        assert_int_equal(pk_location_select(p, spec, sel, nl, NULL), PK_OK);
        v[l] = malloc(nc * sizeof **v);
        assert_int_equal(pk_context_stat_values(p, m, kind, sel, PK_ACROSS_SUM, v[l], nc, NULL),
                         PK_OK);
        (*n_plain)++;
    }
    free(sel);
    return v;
}

/* The statistic at context c computed here from the per-location values. */
static double expected_stat(double **v, size_t nl, size_t n, size_t c, pk_across stat)
{
    double sum = 0, sumsq = 0, lo = INFINITY, hi = -INFINITY;
    for (size_t l = 0; l < nl; l++) {
        if (!v[l]) continue;
        sum += v[l][c], sumsq += v[l][c] * v[l][c];
        lo = fmin(lo, v[l][c]), hi = fmax(hi, v[l][c]);
    }
    double mean = sum / (double)n, var = sumsq / (double)n - mean * mean;
    switch (stat) {
    case PK_ACROSS_SUM:
        return sum;
    case PK_ACROSS_MEAN:
        return mean;
    case PK_ACROSS_MIN:
        return lo;
    case PK_ACROSS_MAX:
        return hi;
    default:
        return var > 0 ? sqrt(var) : 0;
    }
}

static void check_stats(const pk_profile *p, pk_index m, pk_scope_kind kind, const char *what)
{
    size_t nl = pk_location_count(p), nc = pk_context_count(p), n_plain;
    double *out = malloc(nc * sizeof *out), *all = malloc(nc * sizeof *all);
    double **v = per_location(p, m, kind, &n_plain);
    pk_metric met;
    pk_metric_get(p, m, &met);
    assert_int_equal(pk_context_scope_values(p, m, kind, all, nc, NULL), PK_OK);
    double scale = 0;
    for (size_t c = 0; c < nc; c++)
        scale = fmax(scale, fabs(all[c]));
    /* min/max metrics: a location without a value counts as absent, which
     * the per-location arrays (0 there) cannot tell; check their sum. */
    int last = met.combine == PK_COMBINE_SUM ? PK_ACROSS_STDDEV : PK_ACROSS_SUM;
    for (int s = PK_ACROSS_SUM; s <= last; s++) {
        assert_int_equal(pk_context_stat_values(p, m, kind, NULL, (pk_across)s, out, nc, NULL),
                         PK_OK);
        for (size_t c = 0; c < nc; c++) {
            double want = met.combine == PK_COMBINE_SUM
                              ? expected_stat(v, nl, n_plain, c, (pk_across)s)
                              : all[c];
            /* derived exclusive values cancel large inclusive ones: rounding
             * scales with the program total, not with the value */
            double tol = 1e-12 * scale;
            if (fabs(out[c] - want) > tol + 1e-9 * fabs(want) ||
                (s == PK_ACROSS_SUM && fabs(out[c] - all[c]) > tol + 1e-9 * fabs(want)))
                fail_msg("%s: stat %d at context %zu: %.17g, expected %.17g (all %.17g)", what, s,
                         c, out[c], want, all[c]);
        }
    }
    for (size_t l = 0; l < nl; l++)
        free(v[l]);
    free(v), free(out), free(all);
}

static void stats_match_per_location_values(void **state)
{
    (void)state;
    for (size_t f = 0; f < sizeof cube_files / sizeof *cube_files; f++) {
        pk_profile *p = open_corpus(cube_files[f]);
        for (pk_index m = 0; m < pk_metric_count(p); m++) {
            pk_metric met;
            pk_metric_get(p, m, &met);
            check_stats(p, m, PK_SCOPE_INCLUSIVE, cube_files[f]);
            if (met.combine == PK_COMBINE_SUM) check_stats(p, m, PK_SCOPE_EXCLUSIVE, cube_files[f]);
        }
        pk_profile_free(p);
    }
    char **dbs;
    size_t n = tu_corpus_databases(&dbs);
    for (size_t d = 0; d < n && d < 6; d++) {
        pk_profile *p = NULL;
        assert_int_equal(pk_profile_open(dbs[d], NULL, &p), PK_OK);
        size_t nl = pk_location_count(p), plain = 0;
        for (pk_index l = 0; l < nl; l++) {
            pk_location loc;
            pk_location_get(p, l, &loc);
            plain += !loc.is_summary;
        }
        if (plain > 0 && pk_metric_count(p) > 0) {
            check_stats(p, 0, PK_SCOPE_INCLUSIVE, dbs[d]);
            check_stats(p, 0, PK_SCOPE_EXCLUSIVE, dbs[d]);
        }
        pk_profile_free(p);
    }
    tu_free_list(dbs, n);
}

static void selectors_pick_tuples(void **state)
{
    (void)state;
    pk_profile *p = open_corpus(cube_files[0]); /* 2 ranks x 2 threads */
    size_t nl = pk_location_count(p), n = 0;
    unsigned char *sel = calloc(nl, 1);
    assert_int_equal(pk_location_select(p, "rank=1", sel, nl, &n), PK_OK);
    assert_int_equal(n, 2);
    assert_int_equal(pk_location_select(p, "RANK=1, thread=0", sel, nl, &n), PK_OK);
    assert_int_equal(n, 1);
    for (pk_index l = 0; l < nl; l++) {
        if (!sel[l]) continue;
        char name[256];
        pk_location_name(p, l, name, sizeof name);
        assert_non_null(strstr(name, "RANK 1"));
        assert_non_null(strstr(name, "THREAD 0"));
    }
    assert_int_equal(pk_location_select(p, "rank=7", sel, nl, &n), PK_ERR_NOT_FOUND);
    assert_int_equal(pk_location_select(p, "#99", sel, nl, &n), PK_ERR_NOT_FOUND);
    assert_int_equal(pk_location_select(p, "rank", sel, nl, &n), PK_ERR_INVALID_ARG);
    assert_int_equal(pk_location_select(p, "rank=x", sel, nl, &n), PK_ERR_INVALID_ARG);
    assert_int_equal(pk_location_select(p, "#", sel, nl, &n), PK_ERR_INVALID_ARG);
    free(sel);
    pk_profile_free(p);
}

/* Sum of the inclusive values of the outermost contexts named `name`. */
static double outermost_named(const pk_profile *p, const double *incl, const char *name)
{
    size_t nc = pk_context_count(p);
    double sum = 0;
    for (pk_index c = 0; c < nc; c++) {
        char buf[512];
        pk_context_name(p, c, buf, sizeof buf);
        if (strcmp(buf, name) != 0) continue;
        int nested = 0;
        pk_context ctx;
        pk_context_get(p, c, &ctx);
        for (pk_index a = ctx.parent; a != PK_NONE && !nested; a = ctx.parent) {
            pk_context_get(p, a, &ctx);
            pk_context_name(p, a, buf, sizeof buf);
            nested = strcmp(buf, name) == 0;
        }
        if (!nested) sum += incl[c];
    }
    return sum;
}

static void focus_and_hide_split_the_program(void **state)
{
    (void)state;
    pk_profile *p = open_corpus("cube/hatchet-scorep-cpi/profile.cubex");
    size_t nc = pk_context_count(p), hits = 0;
    double *all = malloc(nc * sizeof *all), *in = malloc(nc * sizeof *in);
    double *out = malloc(nc * sizeof *out), *ex = malloc(nc * sizeof *ex);
    pk_index m = 0;
    while (m < pk_metric_count(p)) {
        pk_metric met;
        pk_metric_get(p, m, &met);
        if (strcmp(met.name, "time") == 0) break;
        m++;
    }
    assert_int_equal(pk_context_scope_values(p, m, PK_SCOPE_INCLUSIVE, all, nc, NULL), PK_OK);
    static const char *const names[] = {"MPI_Bcast", "MPI_Reduce", "main", "MPI_Init"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char re[64];
        snprintf(re, sizeof re, "^%s$", names[i]);
        memcpy(in, all, nc * sizeof *in);
        memcpy(out, all, nc * sizeof *out);
        assert_int_equal(pk_context_scope_values(p, m, PK_SCOPE_EXCLUSIVE, ex, nc, NULL), PK_OK);
        assert_int_equal(pk_context_filter(p, m, re, NULL, in, ex, &hits), PK_OK);
        assert_true(hits > 0);
        assert_int_equal(pk_context_filter(p, m, NULL, re, out, NULL, NULL), PK_OK);
        double kept = outermost_named(p, all, names[i]);
        assert_true(kept > 0);
        if (!close_enough(in[0], kept) || !close_enough(in[0] + out[0], all[0]))
            fail_msg("%s: focus %.17g hide %.17g total %.17g outermost %.17g", names[i], in[0],
                     out[0], all[0], kept);
        double ex_sum = 0; /* exclusive values inside the focus add up to it */
        for (size_t c = 0; c < nc; c++)
            ex_sum += ex[c];
        assert_true(close_enough(ex_sum, kept));
    }
    assert_int_equal(pk_context_filter(p, m, "(", NULL, in, NULL, NULL), PK_ERR_INVALID_ARG);
    free(all), free(in), free(out), free(ex);
    pk_profile_free(p);
}

/* Frames add up: self values sum to the root, a profile matches itself
 * frame for frame, and callers/callees of a function agree on its value. */
static void check_frames(const pk_profile *p, const char *what)
{
    size_t nc = pk_context_count(p), n = 0, n_up = 0, n_down = 0;
    double *incl = malloc(nc * sizeof *incl);
    pk_frame *f = NULL, *up = NULL, *down = NULL;
    pk_index m = 0;
    assert_int_equal(pk_context_scope_values(p, m, PK_SCOPE_INCLUSIVE, incl, nc, NULL), PK_OK);
    assert_int_equal(pk_frames_build(p, incl, &f, &n), PK_OK);
    double self = 0;
    for (size_t i = 0; i < n; i++)
        self += f[i].self;
    if (fabs(self - f[0].inclusive) > 1e-9 * fabs(f[0].inclusive))
        fail_msg("%s: frames' self values sum to %.17g, root %.17g", what, self, f[0].inclusive);
    pk_index *map = malloc(n * sizeof *map);
    assert_int_equal(pk_frames_match(p, f, n, p, f, n, map), PK_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(map[i], i);
    size_t best = n > 1 ? 1 : 0; /* the widest frame below the root */
    for (size_t i = 1; i < n; i++)
        if (f[i].inclusive > f[best].inclusive) best = i;
    char name[1024];
    pk_frame_name(p, &f[best], name, sizeof name);
    assert_int_equal(pk_frames_around(p, f, n, name, 1, &up, &n_up), PK_OK);
    assert_int_equal(pk_frames_around(p, f, n, name, 0, &down, &n_down), PK_OK);
    assert_true(close_enough(up[0].inclusive, down[0].inclusive));
    assert_true(up[0].inclusive >= f[best].inclusive * (1 - 1e-12));
    pk_frames_free(up), pk_frames_free(down), pk_frames_free(f);
    free(map), free(incl);
}

static void frames_add_up_in_every_format(void **state)
{
    (void)state;
    static const char *const files[] = {
        "cube/hatchet-scorep-cpi/profile.cubex",
        "cube/extrap-lulesh-p27-v45/profile.cubex",
        "callgrind/generated/sort-instr-jumps.callgrind.out",
        "callgrind/generated/mt-threads.callgrind.out.3938-01",
        "hpctoolkit/hpctoolkit-tests-dbase/small.d",
    };
    each_corpus_file(files, sizeof files / sizeof *files, check_frames);
}

/* pk_context_name_codes(): names distinct and in byte order, and each
 * context's code naming what pk_context_name() says, repaired where it is
 * not UTF-8 (then two names differing only in their bad bytes are one). */
static void check_name_codes(const pk_profile *p, const char *what)
{
    pk_name_codes c;
    assert_int_equal(pk_context_name_codes(p, &c), PK_OK);
    for (size_t k = 1; k < c.n_names; k++) {
        size_t a = c.lengths[k - 1], b = c.lengths[k];
        int cmp = memcmp(c.names[k - 1], c.names[k], a < b ? a : b);
        if (cmp > 0 || (cmp == 0 && a >= b))
            fail_msg("%s: names %zu and %zu out of order", what, k - 1, k);
    }
    char buf[4096];
    for (size_t i = 0; i < pk_context_count(p); i++) {
        size_t n = pk_context_name(p, (pk_index)i, buf, sizeof buf);
        assert_true(c.codes[i] < c.n_names);
        const char *got = c.names[c.codes[i]];
        int ascii = 1;
        for (size_t j = 0; j < n && j < sizeof buf; j++)
            ascii &= (unsigned char)buf[j] < 0x80;
        if (ascii && n < sizeof buf && strcmp(got, buf) != 0)
            fail_msg("%s: context %zu is '%s', coded as '%s'", what, i, buf, got);
    }
    pk_name_codes_free(&c);
}

static void context_names_are_a_category(void **state)
{
    (void)state;
    static const char *const files[] = {
        "hpctoolkit/hpcviewer-main-issue-233",
        "cube/hatchet-scorep-cpi/profile.cubex",
        "callgrind/generated/mt-threads.callgrind.out.3938-01",
    };
    each_corpus_file(files, sizeof files / sizeof *files, check_name_codes);
    /* two names that differ only in bytes that are not UTF-8 */
    static const char text[] = "events: Ir\nfn=main\n1 1\ncfn=a\xff\ncalls=1 1\n1 2\n"
                               "cfn=a\xfe\ncalls=1 1\n1 3\nfn=a\xff\n1 2\nfn=a\xfe\n1 3\n";
    const char *name = "bad.callgrind";
    const void *data = text;
    uint64_t size = sizeof text - 1;
    pk_profile *p;
    assert_int_equal(pk_profile_open_memory(PK_FORMAT_CALLGRIND, 1, &name, &data, &size, NULL, &p),
                     PK_OK);
    check_name_codes(p, "bad names");
    pk_name_codes c;
    assert_int_equal(pk_context_name_codes(p, &c), PK_OK);
    size_t bad = 0;
    for (size_t k = 0; k < c.n_names; k++)
        bad += strcmp(c.names[k], "a\xef\xbf\xbd") == 0;
    assert_int_equal(bad, 1);
    pk_name_codes_free(&c);
    pk_profile_free(p);
}

int main(void)
{
    if (!tu_corpus_dir()) {
        printf("corpus not found (set PROFKIT_CORPUS): view tests skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stats_match_per_location_values),
        cmocka_unit_test(selectors_pick_tuples),
        cmocka_unit_test(focus_and_hide_split_the_program),
        cmocka_unit_test(frames_add_up_in_every_format),
        cmocka_unit_test(context_names_are_a_category),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
