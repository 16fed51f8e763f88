/*
 * tests/test_merge.c — pk_profile_merge() on real files of every format,
 * checked through call paths spelled out by name (so the check does not
 * share the merge's own matching):
 *
 *  - a profile merged with itself holds, for every call path and every
 *    metric, twice the inclusive value; twice the locations, each tagged
 *    with its RUN; twice the traces, sample for sample on the same paths;
 *  - with --mean, the same values as the input and no traces;
 *  - two different runs (Callgrind) give the sum of both on every path of
 *    the union;
 *  - a merged profile written as HPCToolkit reads back with the same path
 *    values (the writer accepts what merge makes). Cube and Callgrind
 *    read back differently by design (Cube keeps entry points as regions,
 *    Callgrind reconstructs the tree), so they are not compared by path.
 */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "profkit/profkit.h"
#include "support/testutil.h"

/* One call path's inclusive value of one metric. */
typedef struct path_val {
    char *path;
    double v;
} path_val;

typedef struct path_vals {
    path_val *rows;
    size_t n;
} path_vals;

static int cmp_path(const void *a, const void *b)
{
    return strcmp(((const path_val *)a)->path, ((const path_val *)b)->path);
}

/* "main/work/odd"-style path of every listed context (entry points and
 * the root left out, so formats that have them match those that do not). */
static char **context_paths(const pk_profile *p)
{
    size_t nc = pk_context_count(p);
    char **path = calloc(nc, sizeof *path);
    for (pk_index c = 0; c < nc; c++) {
        pk_context ctx;
        assert_int_equal(pk_context_get(p, c, &ctx), PK_OK);
        if (ctx.parent == PK_NONE) {
            path[c] = strdup(c ? "<unlisted>" : "");
            continue;
        }
        char name[512];
        pk_context_name(p, c, name, sizeof name);
        if (ctx.kind == PK_CTX_ENTRY) name[0] = 0;
        const char *up = path[ctx.parent];
        path[c] = malloc(strlen(up) + strlen(name) + 2);
        sprintf(path[c], "%s%s%s", up, *up && *name ? "/" : "", name);
    }
    return path;
}

/* Inclusive values of metric `name` by call path, equal paths added up. */
static path_vals by_path(const pk_profile *p, const char *name)
{
    size_t nc = pk_context_count(p), nm = pk_metric_count(p);
    pk_index m = PK_NONE;
    for (pk_index i = 0; i < nm && m == PK_NONE; i++) {
        pk_metric met;
        pk_metric_get(p, i, &met);
        if (strcmp(met.name, name) == 0) m = i;
    }
    assert_true(m != PK_NONE);
    double *v = malloc(nc * sizeof *v);
    assert_int_equal(pk_context_scope_values(p, m, PK_SCOPE_INCLUSIVE, v, nc, NULL), PK_OK);
    char **path = context_paths(p);
    path_vals out = {calloc(nc, sizeof(path_val)), 0};
    for (size_t c = 0; c < nc; c++) { /* the root and entry points are all "" */
        out.rows[c] = (path_val){path[c], *path[c] ? v[c] : 0};
    }
    qsort(out.rows, nc, sizeof *out.rows, cmp_path);
    for (size_t c = 0; c < nc; c++) {
        if (out.n && strcmp(out.rows[out.n - 1].path, out.rows[c].path) == 0) {
            out.rows[out.n - 1].v += out.rows[c].v;
            free(out.rows[c].path);
        } else {
            out.rows[out.n++] = out.rows[c];
        }
    }
    free(path), free(v);
    return out;
}

static void free_paths(path_vals *pv)
{
    for (size_t i = 0; i < pv->n; i++)
        free(pv->rows[i].path);
    free(pv->rows);
}

static double value_of(const path_vals *pv, const char *path)
{
    path_val key = {(char *)path, 0};
    path_val *r = bsearch(&key, pv->rows, pv->n, sizeof key, cmp_path);
    return r ? r->v : 0;
}

static int close_enough(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-12;
}

/* Every path of `got` (and of a and b) has a_factor * a + b_factor * b. */
static void expect_paths(const path_vals *got, const path_vals *a, double fa, const path_vals *b,
                         double fb, const char *what)
{
    const path_vals *all[3] = {got, a, b};
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; all[k] && i < all[k]->n; i++) {
            const char *path = all[k]->rows[i].path;
            double want = fa * value_of(a, path) + (b ? fb * value_of(b, path) : 0);
            if (!close_enough(value_of(got, path), want))
                fail_msg("%s: path '%s': merged %.17g, expected %.17g", what, path,
                         value_of(got, path), want);
        }
}

static pk_profile *open_path(const char *path)
{
    pk_profile *p = NULL;
    if (pk_profile_open(path, NULL, &p) != PK_OK) fail_msg("%s: %s", path, pk_error_last());
    return p;
}

static size_t plain_locations(const pk_profile *p)
{
    size_t n = 0;
    for (pk_index l = 0; l < pk_location_count(p); l++) {
        pk_location loc;
        pk_location_get(p, l, &loc);
        n += !loc.is_summary;
    }
    return n;
}

/* Sample k of trace t, as the call path of its context. */
static const char *sample_path(const pk_profile *p, char **paths, pk_index t, uint64_t k)
{
    pk_sample s;
    size_t got;
    assert_int_equal(pk_trace_samples(p, t, k, 1, &s, &got), PK_OK);
    assert_int_equal(got, 1);
    return s.context == PK_NONE ? "(none)" : paths[s.context];
}

static void check_traces_doubled(const pk_profile *in, const pk_profile *m)
{
    size_t nt = pk_trace_count(in);
    assert_int_equal(pk_trace_count(m), 2 * nt);
    char **pi = context_paths(in), **pm = context_paths(m);
    for (pk_index t = 0; t < 2 * nt; t++) {
        pk_trace a, b;
        assert_int_equal(pk_trace_get(in, t % nt, &a), PK_OK);
        assert_int_equal(pk_trace_get(m, t, &b), PK_OK);
        assert_int_equal(a.n_samples, b.n_samples);
        for (uint64_t k = 0; k < a.n_samples; k++)
            assert_string_equal(sample_path(in, pi, t % nt, k), sample_path(m, pm, t, k));
    }
    for (size_t c = 0; c < pk_context_count(in); c++)
        free(pi[c]);
    for (size_t c = 0; c < pk_context_count(m); c++)
        free(pm[c]);
    free(pi), free(pm);
}

static void check_self_merge(const char *path)
{
    pk_profile *p = open_path(path), *twice = NULL, *mean = NULL;
    const pk_profile *in[2] = {p, p};
    pk_merge_options mo = {1};
    assert_int_equal(pk_profile_merge(in, 2, NULL, &twice), PK_OK);
    assert_int_equal(pk_profile_merge(in, 2, &mo, &mean), PK_OK);
    assert_int_equal(pk_location_count(twice), 2 * plain_locations(p));
    assert_int_equal(pk_location_count(mean), plain_locations(p));
    pk_location loc;
    assert_int_equal(pk_location_get(twice, 0, &loc), PK_OK);
    assert_string_equal(loc.ids[0].kind_name, "RUN");
    for (pk_index m = 0; m < pk_metric_count(p) && m < 4; m++) {
        pk_metric met;
        pk_metric_get(p, m, &met);
        path_vals a = by_path(p, met.name), t = by_path(twice, met.name);
        path_vals u = by_path(mean, met.name);
        /* min/max metrics combine the two copies of a location into one value */
        expect_paths(&t, &a, met.combine == PK_COMBINE_SUM ? 2 : 1, NULL, 0, path);
        expect_paths(&u, &a, 1, NULL, 0, path);
        free_paths(&a), free_paths(&t), free_paths(&u);
    }
    check_traces_doubled(p, twice);
    assert_int_equal(pk_trace_count(mean), 0);
    pk_profile_free(twice), pk_profile_free(mean), pk_profile_free(p);
}

static void merges_itself(void **state)
{
    (void)state;
    check_self_merge(PK_SOURCE_DIR "/tests/data/callgrind/sample.callgrind");
    check_self_merge(PK_SOURCE_DIR "/tests/data/cube/sample.cubex");
    const char *corpus = tu_corpus_dir();
    if (!corpus) skip();
    static const char *const rel[] = {
        "hpctoolkit/hpctoolkit-tests-dbase/loops-cputime-t.d", /* 4 threads, traces */
        "hpctoolkit/hatchet-cpi-v4",                           /* 16 locations */
        "cube/hatchet-scorep-cpi/profile.cubex",
        "callgrind/generated/mt_O0-cachesim-combined.callgrind.out", /* 4 threads */
    };
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", corpus, rel[i]);
        check_self_merge(path);
    }
}

static void merges_two_runs(void **state)
{
    (void)state;
    pk_profile *a = open_path(PK_SOURCE_DIR "/tests/data/callgrind/sample.callgrind");
    pk_profile *b = open_path(PK_SOURCE_DIR "/tests/data/callgrind/sample-b.callgrind");
    const pk_profile *in[2] = {a, b};
    pk_profile *m;
    assert_int_equal(pk_profile_merge(in, 2, NULL, &m), PK_OK);
    assert_int_equal(pk_location_count(m), plain_locations(a) + plain_locations(b));
    const char *names[] = {"Ir", "Dr"};
    for (int k = 0; k < 2; k++) {
        path_vals pa = by_path(a, names[k]), pb = by_path(b, names[k]), pm = by_path(m, names[k]);
        expect_paths(&pm, &pa, 1, &pb, 1, names[k]);
        free_paths(&pa), free_paths(&pb), free_paths(&pm);
    }
    /* written as HPCToolkit (a calling-context tree, as the merge is) and
     * read back: the same path values */
    char dir[] = "/tmp/pk-merge-XXXXXX", out[256];
    assert_non_null(mkdtemp(dir));
    snprintf(out, sizeof out, "%s/merged.d", dir);
    assert_int_equal(pk_profile_write(m, PK_FORMAT_HPCTOOLKIT_V4, out, NULL, NULL), PK_OK);
    pk_profile *back = open_path(out);
    path_vals pm = by_path(m, "Ir"), pr = by_path(back, "Ir");
    expect_paths(&pr, &pm, 1, NULL, 0, out);
    free_paths(&pm), free_paths(&pr);
    pk_profile_free(back);
    tu_remove_tree(dir);
    pk_profile_free(m), pk_profile_free(a), pk_profile_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(merges_two_runs),
        cmocka_unit_test(merges_itself),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
