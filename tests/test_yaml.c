/*
 * tests/test_yaml.c — metrics/default.yaml as hpcprof writes it.
 *
 * For every corpus database with a default.yaml written by hpcprof, the
 * file generated from the model must have the same inputs section byte for
 * byte, and the same roots once each root's description is set aside
 * (descriptions come from hpcrun's measurement files and are not in
 * meta.db, nor are the ordering ranks of GPU metrics, which metrics are
 * hidden, and hpcprof's "extra statistics" — formula metrics defined in
 * hpcrun's measurements); what our roots refer to must include every
 * input hpcprof's roots refer to. Where every description is the metric's
 * name, the whole file must be byte-identical. Names YAML would misread
 * are quoted.
 */
#define _POSIX_C_SOURCE 200809L

#include "support/pk_cmocka.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/hpctoolkit/hpctk_write.h"
#include "support/testutil.h"

static char *generate(const pk_profile *p)
{
    /* the stream's buffer and size live on the heap: gcc -O2 takes a
     * stack address handed to open_memstream() for a dangling pointer */
    struct {
        char *buf;
        size_t len;
    } *m = calloc(1, sizeof *m);
    assert_non_null(m);
    FILE *f = open_memstream(&m->buf, &m->len);
    assert_non_null(f);
    int deep;
    assert_int_equal(hk_write_metrics_yaml(p, f, &deep), PK_OK);
    fclose(f);
    char *out = m->buf;
    free(m);
    return out;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted pieces of a text: the blocks starting with `sep` (after the
 * first occurrence of `from`), or, with sep == NULL, the alias tokens. */
static size_t pieces(const char *text, const char *from, const char *sep, char ***out)
{
    size_t n = 0, cap = 64;
    char **v = malloc(cap * sizeof *v);
    const char *t = strstr(text, from);
    const char *end = sep ? strstr(text, "\nroots:") : text + strlen(text);
    while (t && (t = sep ? strstr(t, sep) : strchr(t, '*')) && t < end) {
        const char *next = sep ? strstr(t + 1, sep) : t + strcspn(t, " \n,]}");
        if (!next || next > end) next = end;
        int anchor = sep || isalnum((unsigned char)t[1]) || t[1] == '-' || t[1] == '_';
        if (n == cap) v = realloc(v, (cap *= 2) * sizeof *v);
        if (anchor) v[n++] = strndup(t, (size_t)(next - t));
        t = sep ? next : t + 1;
    }
    qsort(v, n, sizeof *v, cmp_str);
    size_t k = 0; /* aliases: each once */
    for (size_t i = 0; i < n; i++) {
        if (!sep && k && strcmp(v[k - 1], v[i]) == 0)
            free(v[i]);
        else
            v[k++] = v[i];
    }
    *out = v;
    return k;
}

/* Every piece of a is in b; with `equal`, b has no others. */
static void same_pieces(const char *db, const char *a, const char *b, const char *from,
                        const char *sep, int equal)
{
    char **x, **y;
    size_t nx = pieces(a, from, sep, &x), ny = pieces(b, from, sep, &y), j = 0;
    if (equal && nx != ny) fail_msg("%s: %zu vs %zu %s", db, nx, ny, sep ? "inputs" : "aliases");
    for (size_t i = 0; i < nx; i++) {
        while (j < ny && strcmp(y[j], x[i]) < 0)
            j++;
        if (j == ny || strcmp(x[i], y[j])) fail_msg("%s: hpcprof's\n%s\nis missing", db, x[i]);
        j++;
    }
    for (size_t i = 0; i < nx; i++)
        free(x[i]);
    for (size_t i = 0; i < ny; i++)
        free(y[i]);
    free(x), free(y);
}

static void compare_with_hpcprof(const char *db, size_t *identical, size_t *compared)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/metrics/default.yaml", db);
    size_t size;
    char *want = (char *)tu_read_file(path, &size);
    pk_profile *p = NULL;
    if (!want || pk_profile_open(db, NULL, &p) != PK_OK) {
        free(want);
        return;
    }
    want = realloc(want, size + 1);
    want[size] = '\0';
    char *got = generate(p);
    (*compared)++;
    if (strcmp(want, got) == 0) {
        (*identical)++;
    } else {
        /* descriptions, root order and (in files from 2022-2023 hpcprof)
         * input order and formula layout differ; the inputs and what the
         * roots refer to must not */
        same_pieces(db, want, got, "inputs:", "\n  - &", 1);
        /* hpcprof leaves metrics it marks invisible out of the roots (not
         * recorded in meta.db): ours may present more */
        same_pieces(db, strstr(want, "\nroots:"), strstr(got, "\nroots:"), "roots:", NULL, 0);
    }
    free(want);
    free(got);
    pk_profile_free(p);
}

static void corpus_files_match_hpcprof(void **state)
{
    (void)state;
    char **dbs;
    size_t n = tu_corpus_databases(&dbs), identical = 0, compared = 0;
    if (!dbs) skip();
    for (size_t i = 0; i < n; i++)
        compare_with_hpcprof(dbs[i], &identical, &compared);
    tu_free_list(dbs, n);
    printf("default.yaml: %zu corpus files compared, %zu byte-identical; the others have the same "
           "inputs and references (descriptions and layout of older hpcprof versions differ)\n",
           compared, identical);
    assert_true(compared >= 24 && identical >= 6);
}

#include "fixtures/v4_builder.h"

static void awkward_names_are_quoted(void **state)
{
    (void)state;
    static const char *const names[] = {"a: b",       "#hash", "-dash",      "1e5",
                                        "say \"hi\"", "true",  "plain (sec)"};
    fx_db db = *fx_sample_db();
    db.metrics = names;
    db.n_metrics = 7;
    char dir[64];
    pk_profile *p = tu_open_fixture(&db, dir);
    char *y = generate(p);
    static const char *const want[] = {
        "metric: \"a: b\"",    "metric: \"#hash\"",
        "metric: \"-dash\"",   "metric: \"1e5\"",
        "metric: say \"hi\"",  "metric: \"true\"",
        "metric: plain (sec)", "&ax3a_x20_b-sum-x5b_0x0x5d_-execution"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(y, want[i])) fail_msg("'%s' not in:\n%s", want[i], y);
    free(y);
    tu_close_fixture(p, dir);
}

/* -M stats databases: every presented statistic gets a variant. */
static void statistics_become_variants(void **state)
{
    (void)state;
    const char *corpus = tu_corpus_dir();
    if (!corpus) skip();
    char db[4200];
    snprintf(db, sizeof db, "%s/hpctoolkit/hpctoolkit-pr-metadb-tests-small_v4.0", corpus);
    pk_profile *p = NULL;
    assert_int_equal(pk_profile_open(db, NULL, &p), PK_OK);
    char *y = generate(p);
    static const char *const want[] = {
        "\n      Sum:\n        render: [number, percent]",
        "\n      Mean:\n",
        "\n      StdDev:\n",
        "\n      CfVar:\n",
        "\n      Min:\n",
        "\n      Max:\n",
        "standard: {/: [*cycles-sum-x5b_0x0x5d_-execution, *cycles-sum-1-execution]}"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(y, want[i])) fail_msg("'%s' not in:\n%s", want[i], y);
    free(y);
    pk_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(awkward_names_are_quoted),
        cmocka_unit_test(statistics_become_variants),
        cmocka_unit_test(corpus_files_match_hpcprof),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
