/*
 * tests/test_hpctk_write.c — what the HPCToolkit writer does for models
 * that are not HPCToolkit databases (formats/hpctoolkit/write_shape.h):
 * the database it writes meets what hpcviewer and HPCToolkit's own reader
 * assume, holds the source's numbers, and says what it left out.
 *
 * The source is a small model in profkit's JSON (written here) with what
 * other formats bring: Cube's root (largest id, a node with id 0, no entry
 * points, several call-tree roots), metrics stored in one scope only, a
 * min-combined and an unsigned metric, identifier kinds HPCToolkit has no
 * name for, summary statistics hpcviewer cannot evaluate (legacy "Mean",
 * "raw"), a metric tree. Also: metrics/default.yaml carried over, merged, or replaced;
 * `profkit check`'s warnings about what hpcviewer would choke on; damaged
 * databases (a second summary profile, cct.db values of no profile)
 * written without silent losses.
 */
#define _POSIX_C_SOURCE 200809L

#include "support/pk_cmocka.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures/v4_builder.h"
#include "formats/hpctoolkit/hk_yaml.h"
#include "formats/hpctoolkit/write_shape.h"
#include "model/model.h"
#include "profkit/profkit.h"
#include "support/testutil.h"
#include "util/bytes.h"

static char g_tmp[] = "/tmp/pk-hpctk-write-XXXXXX";

/* Cube-like: root id 3, main id 0 and work2 id 4 at the top. */
static const char model_json[] =
    "{\"schema\": \"profkit.model/1\",\n"
    " \"profile\": {\"title\": null, \"description\": null, \"format\": null,"
    " \"format_version\": null, \"path\": null, \"reconstructed\": false,"
    " \"trace_range\": null, \"sources\": []},\n"
    " \"identifier_kinds\": [\"MACHINE\", \"NODE\", \"RANK\", \"THREAD\", \"PART\", \"RACK\"],\n"
    " \"modules\": [], \"files\": [{\"path\": \"a.c\", \"flags\": 0}],\n"
    " \"functions\": [{\"name\": \"main\", \"module\": null, \"offset\": 0, \"file\": 0, \"line\": "
    "1},"
    "  {\"name\": \"work\", \"module\": null, \"offset\": 0, \"file\": 0, \"line\": 9},"
    "  {\"name\": \"leaf\", \"module\": null, \"offset\": 0, \"file\": 0, \"line\": 20}],\n"
    " \"metrics\": ["
    "  {\"name\": \"time\", \"description\": \"Wall time\", \"unit\": \"sec\", \"parent\": null,"
    " \"combine\": \"sum\", \"flags\": 0},"
    "  {\"name\": \"visits\", \"description\": null, \"unit\": \"occ\", \"parent\": null,"
    " \"combine\": \"sum\", \"flags\": 1},"
    "  {\"name\": \"min_time\", \"description\": null, \"unit\": \"sec\", \"parent\": 0,"
    " \"combine\": \"min\", \"flags\": 0},"
    "  {\"name\": \"m4\", \"description\": null, \"unit\": null, \"parent\": null,"
    " \"combine\": \"sum\", \"flags\": 0},"
    "  {\"name\": \"m5\", \"description\": null, \"unit\": null, \"parent\": null,"
    " \"combine\": \"sum\", \"flags\": 0}],\n"
    " \"scopes\": [{\"name\": \"inclusive\", \"kind\": \"inclusive\", \"raw_type\": 2,"
    " \"propagation_index\": 255},"
    "  {\"name\": \"exclusive\", \"kind\": \"exclusive\", \"raw_type\": 3, \"propagation_index\": "
    "0}],\n"
    " \"columns\": ["
    "  {\"metric\": 0, \"scope\": 0, \"summary\": false, \"stat\": \"none\", \"formula\": null,"
    " \"combine\": \"sum\", \"raw_id\": 0},"
    "  {\"metric\": 1, \"scope\": 1, \"summary\": false, \"stat\": \"none\", \"formula\": null,"
    " \"combine\": \"sum\", \"raw_id\": 1},"
    "  {\"metric\": 2, \"scope\": 1, \"summary\": false, \"stat\": \"none\", \"formula\": null,"
    " \"combine\": \"sum\", \"raw_id\": 2},"
    "  {\"metric\": 3, \"scope\": 0, \"summary\": true, \"stat\": \"sum\", \"formula\": \"$$\","
    " \"combine\": \"sum\", \"raw_id\": 0},"
    "  {\"metric\": 3, \"scope\": 0, \"summary\": true, \"stat\": \"other\", \"formula\": \"Mean\","
    " \"combine\": \"sum\", \"raw_id\": 1},"
    "  {\"metric\": 4, \"scope\": 0, \"summary\": true, \"stat\": \"other\", \"formula\": \"raw\","
    " \"combine\": \"sum\", \"raw_id\": 2}],\n"
    " \"contexts\": ["
    "  {\"id\": 3, \"parent\": null, \"kind\": \"root\", \"relation\": \"none\", \"entry\": "
    "\"none\","
    " \"entry_name\": null, \"flags\": 0, \"function\": null, \"file\": null, \"line\": 0,"
    " \"module\": null, \"offset\": 0, \"propagation\": 0, \"raw\": [0, 0, 0]},"
    "  {\"id\": 0, \"parent\": 0, \"kind\": \"function\", \"relation\": \"call\", \"entry\": "
    "\"none\","
    " \"entry_name\": null, \"flags\": 1, \"function\": 0, \"file\": null, \"line\": 0,"
    " \"module\": null, \"offset\": 0, \"propagation\": 0, \"raw\": [0, 0, 0]},"
    "  {\"id\": 4, \"parent\": 0, \"kind\": \"function\", \"relation\": \"call\", \"entry\": "
    "\"none\","
    " \"entry_name\": null, \"flags\": 1, \"function\": 1, \"file\": null, \"line\": 0,"
    " \"module\": null, \"offset\": 0, \"propagation\": 0, \"raw\": [0, 0, 0]},"
    "  {\"id\": 1, \"parent\": 1, \"kind\": \"function\", \"relation\": \"call\", \"entry\": "
    "\"none\","
    " \"entry_name\": null, \"flags\": 1, \"function\": 1, \"file\": null, \"line\": 0,"
    " \"module\": null, \"offset\": 0, \"propagation\": 0, \"raw\": [0, 0, 0]},"
    "  {\"id\": 2, \"parent\": 3, \"kind\": \"function\", \"relation\": \"call\", \"entry\": "
    "\"none\","
    " \"entry_name\": null, \"flags\": 1, \"function\": 2, \"file\": null, \"line\": 0,"
    " \"module\": null, \"offset\": 0, \"propagation\": 0, \"raw\": [0, 0, 0]}],\n"
    " \"locations\": ["
    "  {\"raw_index\": 0, \"summary\": true, \"trace\": null, \"ids\": [],"
    "   \"values\": [[3, 0, 10, 1, 5, 2, 7]]},"
    "  {\"raw_index\": 1, \"summary\": false, \"trace\": null, \"ids\": ["
    "    {\"kind\": 0, \"name\": \"MACHINE\", \"flags\": 0, \"logical\": 0, \"physical\": 0},"
    "    {\"kind\": 1, \"name\": \"NODE\", \"flags\": 0, \"logical\": 0, \"physical\": 0},"
    "    {\"kind\": 2, \"name\": \"RANK\", \"flags\": 0, \"logical\": 0, \"physical\": 0},"
    "    {\"kind\": 3, \"name\": \"THREAD\", \"flags\": 0, \"logical\": 0, \"physical\": 0},"
    "    {\"kind\": 4, \"name\": \"PART\", \"flags\": 0, \"logical\": 1, \"physical\": 0},"
    "    {\"kind\": 5, \"name\": \"RACK\", \"flags\": 0, \"logical\": 0, \"physical\": 0}],"
    "   \"values\": [[0, 0, 10, 1, 1, 2, 0.5], [1, 0, 6, 1, 3, 2, 0.2], [2, 0, 2, 1, 5, 2, 0.1],"
    "    [3, 0, 12], [4, 0, 2, 1, 1, 2, 0.3]]},"
    "  {\"raw_index\": 2, \"summary\": false, \"trace\": null, \"ids\": ["
    "    {\"kind\": 0, \"name\": \"MACHINE\", \"flags\": 0, \"logical\": 0, \"physical\": 0},"
    "    {\"kind\": 1, \"name\": \"NODE\", \"flags\": 0, \"logical\": 0, \"physical\": 0},"
    "    {\"kind\": 2, \"name\": \"RANK\", \"flags\": 0, \"logical\": 1, \"physical\": 0},"
    "    {\"kind\": 3, \"name\": \"THREAD\", \"flags\": 0, \"logical\": 0, \"physical\": 0},"
    "    {\"kind\": 4, \"name\": \"PART\", \"flags\": 0, \"logical\": 2, \"physical\": 0},"
    "    {\"kind\": 5, \"name\": \"RACK\", \"flags\": 0, \"logical\": 0, \"physical\": 0}],"
    "   \"values\": [[0, 0, 8, 1, 1, 2, 0.4], [1, 0, 5, 1, 2, 2, 0.3], [2, 0, 1, 1, 4, 2, 0.05],"
    "    [3, 0, 8]]}],\n"
    " \"traces\": [], \"attributes\": [], \"diagnostics\": []}\n";

typedef struct losses {
    char items[16][200];
    int n;
} losses;

static void on_loss(void *user, const char *item, const char *reason)
{
    losses *l = user;
    (void)reason;
    if (l->n < 16) snprintf(l->items[l->n++], sizeof l->items[0], "%s", item);
}

static int lost(const losses *l, const char *item)
{
    for (int i = 0; i < l->n; i++)
        if (strstr(l->items[i], item)) return 1;
    return 0;
}

static pk_profile *open_ok(const char *path)
{
    pk_profile *p = NULL;
    if (pk_profile_open(path, NULL, &p) != PK_OK) fail_msg("%s: %s", path, pk_error_last());
    return p;
}

static pk_profile *source_model(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/model.json", g_tmp);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(model_json, f);
    fclose(f);
    return open_ok(path);
}

static pk_profile *write_read(const pk_profile *p, const char *name, uint32_t flags, losses *l,
                              pk_status *st_out)
{
    char out[256];
    snprintf(out, sizeof out, "%s/%s", g_tmp, name);
    tu_remove_tree(out);
    pk_write_options o = {.flags = flags, .loss = on_loss, .loss_user = l};
    pk_status st = pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, out, &o, NULL);
    if (st_out) *st_out = st;
    if (st) return NULL;
    return open_ok(out);
}

/* The shape hpcviewer and hpctesttool need (write_shape.h). */
static void assert_viewer_shape(const pk_profile *q)
{
    assert_true(q->n_ctx > 0);
    assert_int_equal(q->ctx[0].id, 0);
    for (uint32_t i = 1; i < q->n_ctx; i++) {
        assert_true(q->ctx[i].id > 0);
        assert_int_equal(q->ctx[i].parent == 0, q->ctx[i].kind == PK_CTX_ENTRY);
    }
    uint32_t n_stats = 0;
    for (uint32_t c = 0; c < q->n_columns; c++)
        n_stats += q->columns[c].is_summary;
    for (uint32_t c = 0; c < q->n_columns; c++) {
        const pk_column *col = &q->columns[c];
        assert_true(col->raw_id < n_stats);
        if (col->is_summary) {
            const char *f = col->formula;
            assert_true(!strcmp(f, "$$") || !strcmp(f, "1") || !strcmp(f, "($$^2)"));
            continue;
        }
        uint32_t s = pk_model_col_of(q, 1, col->raw_id);
        assert_int_not_equal(s, PK_NONE); /* the statistic under the same id... */
        assert_int_equal(q->columns[s].metric, col->metric); /* ...is this metric's */
        assert_int_equal(q->columns[s].scope, col->scope);
    }
    for (uint32_t l = 0; l < q->n_locs; l++)
        for (uint32_t i = 0; i < q->locs[l].n_ids; i++)
            assert_true(q->locs[l].ids[i].kind <= 7);
    for (size_t k = 0; k < pk_diagnostic_count(q); k++) {
        pk_diagnostic d;
        pk_diagnostic_get(q, k, &d);
        if (!strncmp(d.code, "viewer-", 7)) fail_msg("hpcviewer would choke: %s", d.message);
    }
}

static double total(const pk_profile *p, const char *metric)
{
    for (pk_index m = 0; m < pk_metric_count(p); m++) {
        pk_metric x;
        pk_metric_get(p, m, &x);
        double t = NAN;
        if (!strcmp(x.name, metric)) return pk_metric_program_total(p, m, &t) == PK_OK ? t : NAN;
    }
    fail_msg("no metric %s", metric);
    return NAN;
}

static void other_formats_fit_hpcviewer(void **state)
{
    (void)state;
    pk_profile *a = source_model();
    losses l = {0};
    pk_profile *b = write_read(a, "shaped.d", 0, &l, NULL);
    assert_viewer_shape(b);
    /* the call tree's two roots below one added entry point */
    assert_int_equal(b->ctx[0].n_children, 1);
    const pk_ctx_rec *e = &b->ctx[b->ctx[0].first_child];
    assert_int_equal(e->entry, PK_ENTRY_MAIN);
    assert_string_equal(e->entry_name, "main thread");
    assert_int_equal(e->n_children, 2);
    /* the numbers, the kind of combine and the units */
    static const char *const names[] = {"time", "visits", "min_time", "m5"};
    for (int i = 0; i < 4; i++)
        if (fabs(total(a, names[i]) - total(b, names[i])) > 1e-12 * fabs(total(a, names[i])))
            fail_msg("%s: program total %.17g became %.17g", names[i], total(a, names[i]),
                     total(b, names[i]));
    assert_true(fabs(total(b, "min_time") - 0.05) < 1e-15);
    assert_int_equal(b->metrics[2].combine, PK_COMBINE_MIN);
    assert_string_equal(b->metrics[0].unit, "sec");
    assert_string_equal(b->metrics[0].description, "Wall time");
    assert_int_equal(b->metrics[2].parent, 0); /* the metric tree, as taxonomy children */
    assert_int_equal(b->metrics[1].parent, PK_NONE);
    for (uint32_t m = 0; m < 3; m++) { /* both scopes hpcviewer shows */
        pk_index col;
        assert_int_equal(pk_column_find(b, m, PK_SCOPE_INCLUSIVE, &col), PK_OK);
        if (m != 2) assert_int_equal(pk_column_find(b, m, PK_SCOPE_EXCLUSIVE, &col), PK_OK);
    }
    /* PART tells locations apart: kept as kind 7; MACHINE and RACK cannot stay */
    assert_string_equal(b->locs[1].ids[b->locs[1].n_ids - 1].kind_name, "PART");
    assert_true(lost(&l, "identifier kind MACHINE") && lost(&l, "identifier kind RACK"));
    assert_true(lost(&l, "statistic 'Mean' of metric 'm4'"));
    assert_int_equal(l.n, 3);
    /* written again: nothing left to shape, nothing lost */
    losses l2 = {0};
    pk_profile *c = write_read(b, "again.d", 0, &l2, NULL);
    assert_int_equal(l2.n, 0);
    assert_int_equal(c->n_columns, b->n_columns);
    pk_profile_free(c);
    pk_profile_free(b);
    pk_profile_free(a);
}

static void strict_refuses_and_leaves_nothing(void **state)
{
    (void)state;
    pk_profile *a = source_model();
    losses l = {0};
    pk_status st;
    assert_null(write_read(a, "strict.d", PK_WRITE_STRICT, &l, &st));
    assert_int_equal(st, PK_ERR_UNSUPPORTED);
    char out[256];
    snprintf(out, sizeof out, "%s/strict.d", g_tmp);
    assert_false(pk_path_exists(out));
    pk_profile_free(a);
}

/* ---- metrics/default.yaml ---- */

static char *read_text(const char *dir, const char *name)
{
    char path[512];
    size_t n;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *t = (char *)tu_read_file(path, &n);
    if (!t) fail_msg("%s: cannot read", path);
    t = realloc(t, n + 1);
    t[n] = '\0';
    return t;
}

static void write_text(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Parses, and every input it names is a statistic of p. */
static hk_yaml parsed_fits(const pk_profile *p, const char *text)
{
    hk_yaml y;
    if (hk_yaml_parse(text, strlen(text), &y) != PK_OK) fail_msg("%s", pk_error_last());
    for (size_t i = 0; i < y.n_inputs; i++)
        if (!hk_yaml_input_known(p, &y.inputs[i])) fail_msg("unknown input %s", y.inputs[i].metric);
    return y;
}

static const char *fixture_dir(const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s", g_tmp, name);
    tu_remove_tree(buf);
    if (fx_write_dir(fx_sample_db(), buf) != 0) fail_msg("fixture %s", buf);
    return buf;
}

static void yaml_carried_over(void **state)
{
    (void)state;
    char dir[256];
    fixture_dir("yaml-src.d", dir, sizeof dir);
    /* hpcprof's own text, with a derived metric it adds (not a statistic) */
    char *src = read_text(dir, "metrics/default.yaml");
    static const char derived[] = "  - name: twice CPU\n    description: derived\n    variants:\n"
                                  "      Sum:\n        render: [number]\n        formula:\n"
                                  "          inclusive: {\"*\": [2, *m0-execution]}\n";
    size_t n = strlen(src);
    char *text = malloc(n + sizeof derived);
    memcpy(text, src, n);
    memcpy(text + n, derived, sizeof derived);
    write_text(dir, "metrics/default.yaml", text);
    pk_profile *a = open_ok(dir);
    losses l = {0};
    pk_profile *b = write_read(a, "yaml-out.d", 0, &l, NULL);
    char out[256];
    snprintf(out, sizeof out, "%s/yaml-out.d", g_tmp);
    char *got = read_text(out, "metrics/default.yaml");
    assert_string_equal(got, text); /* byte for byte */
    assert_int_equal(l.n, 0);
    free(got), free(text), free(src);
    pk_profile_free(a), pk_profile_free(b);
}

/* A taxonomy that mentions one of the two metrics, its sequences at column
 * 0: the other metric's items are added at that indentation. */
static void merged_from(const char *name, const char *partial, const char *description)
{
    char dir[256];
    fixture_dir(name, dir, sizeof dir);
    write_text(dir, "metrics/default.yaml", partial);
    pk_profile *a = open_ok(dir);
    losses l = {0};
    pk_profile *b = write_read(a, "merge-out.d", 0, &l, NULL);
    assert_int_equal(l.n, 0);
    char out[256];
    snprintf(out, sizeof out, "%s/merge-out.d", g_tmp);
    char *got = read_text(out, "metrics/default.yaml");
    hk_yaml y = parsed_fits(b, got);
    int cycles = 0;
    for (size_t i = 0; i < y.n_inputs; i++)
        cycles += !strcmp(y.inputs[i].metric, "cycles");
    assert_int_equal(cycles, 3); /* execution, lex_aware, function */
    assert_int_equal(y.n_roots, 2);
    assert_non_null(strstr(got, "- &t\n  metric: CPUTIME (sec)\n")); /* kept as it was */
    assert_non_null(strstr(got, "# the end"));
    assert_string_equal(b->metrics[0].description, description);
    hk_yaml_free(&y);
    free(got);
    pk_profile_free(a), pk_profile_free(b);
}

static void yaml_merged(void **state)
{
    (void)state;
    merged_from("yaml-merge.d",
                "version: 0\ninputs:\n- &t\n  metric: CPUTIME (sec)\n  scope: execution\n"
                "roots:\n- name: CPUTIME (sec)\n  description: time\n  variants:\n    Sum:\n"
                "      render: number\n      formula:\n        inclusive: *t\n# the end\n",
                "time");
}

/* Multi-byte characters before the insertion points: libyaml's marks count
 * characters, the insertion is in bytes (found by fuzz_hpctk_yaml: the
 * items landed two bytes early, inside "execution"). */
static void yaml_merged_after_multibyte_text(void **state)
{
    (void)state;
    merged_from("yaml-merge-utf8.d",
                "# métriques — µs\nversion: 0\ninputs:\n- &t\n  metric: CPUTIME (sec)\n"
                "  scope: execution\nroots:\n- name: CPUTIME (sec)\n  description: temps µs\n"
                "  variants:\n    Sum:\n      render: number\n      formula:\n"
                "        inclusive: *t\n# the end\n",
                "temps µs");
}

/* A taxonomy that cannot be kept is replaced by a new one, said so, and
 * what is written reads back: `read_warnings` says whether the reader
 * already warned about it (hpcviewer would refuse it as it is). */
static void replaced_not_merged(const char *name, const char *partial, int read_warnings)
{
    char dir[256];
    fixture_dir(name, dir, sizeof dir);
    write_text(dir, "metrics/default.yaml", partial);
    pk_profile *a = open_ok(dir);
    assert_int_equal(tu_count_diagnostics(a, "viewer-yaml", PK_SEV_WARNING), read_warnings);
    losses l = {0};
    pk_profile *b = write_read(a, "unmerged-out.d", 0, &l, NULL);
    assert_true(lost(&l, "metrics/default.yaml"));
    char out[256];
    snprintf(out, sizeof out, "%s/unmerged-out.d", g_tmp);
    char *got = read_text(out, "metrics/default.yaml");
    hk_yaml y = parsed_fits(b, got);
    assert_int_equal(y.n_roots, 2);
    assert_int_equal(y.anchors_redefined, 0);
    hk_yaml_free(&y);
    free(got);
    assert_int_equal(tu_count_diagnostics(b, "viewer-yaml", PK_SEV_WARNING), 0);
    pk_profile_free(a), pk_profile_free(b);
}

/* A taxonomy naming a statistic the database does not hold. */
static void yaml_misfit_replaced(void **state)
{
    (void)state;
    replaced_not_merged(
        "yaml-bad.d",
        "version: 0\ninputs:\n  - &x\n    metric: nosuch\n    scope: execution\nroots: []\n", 1);
}

/* Layouts that cannot take the missing metrics' items as they are
 * inserted: an alias as a top-level key (it once shifted the reader's
 * key/value parity and put the insertion mid-line), `roots` before
 * `inputs` (the new roots' aliases would precede their anchors), a
 * collection as a key, an anchor of the text that a new item would
 * redefine. */
static void yaml_unmergeable_layouts_replaced(void **state)
{
    (void)state;
    replaced_not_merged("yaml-alias-key.d",
                        "version: &k 0\nroots:\n  - name: cycles\ninputs:\n  - &a\n"
                        "    metric: cycles\n    scope: execution\n*k : v\nz: 1\n",
                        0);
    replaced_not_merged("yaml-roots-first.d",
                        "version: 0\nroots:\n  - name: cycles\ninputs:\n"
                        "  - &a\n    metric: cycles\n    scope: execution\n",
                        0);
    replaced_not_merged("yaml-complex-key.d",
                        "version: 0\ninputs:\n  - metric: cycles\n    scope: execution\n"
                        "? - k\n: v\nroots:\n  - name: cycles\n",
                        0);
    replaced_not_merged("yaml-anchor-taken.d",
                        "version: 0\ninputs:\n  - &a\n    metric: cycles\n    scope: execution\n"
                        "roots:\n  - name: cycles\n"
                        "    x: &CPUTIMEx20_x28_secx29_-sum-x5b_0x0x5d_-execution 1\n",
                        0);
}

/* An alias naming no earlier anchor: YAML loaders (hpcviewer's) refuse
 * the file, so the reader warns as for any unreadable taxonomy. */
static void yaml_undefined_alias_warned(void **state)
{
    (void)state;
    char dir[256];
    fixture_dir("yaml-alias.d", dir, sizeof dir);
    write_text(dir, "metrics/default.yaml",
               "version: 0\ninputs:\n  - &a\n    metric: cycles\n    scope: execution\n"
               "roots:\n  - name: cycles\n    variants: {Sum: {formula: {inclusive: *b}}}\n");
    pk_profile *a = open_ok(dir);
    assert_int_equal(tu_count_diagnostics(a, "viewer-yaml", PK_SEV_WARNING), 1);
    pk_profile_free(a);
}

/* ---- profkit check: what hpcviewer would choke on ---- */

static void check_warns_like_hpcviewer_fails(void **state)
{
    (void)state;
    char dir[256];
    snprintf(dir, sizeof dir, "%s/viewer-bad.d", g_tmp);
    fx_db db = *fx_sample_db();
    db.title = NULL;      /* a null title pointer */
    db.unknown_enums = 1; /* identifier kind 200 among others */
    assert_int_equal(fx_write_dir(&db, dir), 0);
    write_text(dir, "metrics/default.yaml", "version: 0\ninputs: [\n"); /* not YAML */
    pk_profile *a = open_ok(dir);
    assert_int_equal(tu_count_diagnostics(a, "viewer-null-string", PK_SEV_WARNING), 1);
    assert_int_equal(tu_count_diagnostics(a, "viewer-id-kind", PK_SEV_WARNING), 1);
    assert_int_equal(tu_count_diagnostics(a, "viewer-yaml", PK_SEV_WARNING), 1);
    losses l = {0};
    pk_profile *b = write_read(a, "viewer-fixed.d", 0, &l, NULL);
    assert_viewer_shape(b);
    pk_profile_free(a), pk_profile_free(b);
    /* the others come from files other writers made */
    snprintf(dir, sizeof dir,
             "%s/../shared/corpus/hpctoolkit/hpctoolkit-pr-metadb-tests-small_v4.0", PK_SOURCE_DIR);
    if (!pk_path_exists(dir)) return;
    a = open_ok(dir);
    assert_true(tu_count_diagnostics(a, "viewer-metric-id", PK_SEV_WARNING) > 0);
    pk_profile_free(a);
}

/* ---- damaged databases: what the writer keeps, and what it reports ---- */

/* The sample fixture written out, with `patch` applied to its profile.db. */
static pk_profile *patched_sample(void (*patch)(unsigned char *prof, uint32_t arg), uint32_t arg)
{
    char dir[256], path[300];
    snprintf(dir, sizeof dir, "%s/patched.d", g_tmp);
    snprintf(path, sizeof path, "%s/profile.db", dir);
    tu_remove_tree(dir);
    assert_int_equal(fx_write_dir(fx_sample_db(), dir), 0);
    size_t n = 0;
    unsigned char *prof = tu_read_file(path, &n);
    assert_non_null(prof);
    patch(prof, arg);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(prof, 1, n, f), n);
    fclose(f);
    free(prof);
    return open_ok(dir);
}

/* FORMATS.md: the Profile Info section's pointer at 0x18 of profile.db;
 * there pProfiles (u64), nProfiles (u32), szProfile (u8); {PI} flags at 0x28. */
static void flag_summary(unsigned char *prof, uint32_t which)
{
    uint64_t sect = pk_le64(prof + 0x18), arr = pk_le64(prof + sect);
    pk_put_le32(prof + arr + (uint64_t)which * prof[sect + 0x0c] + 0x28, 1);
}

/* A thread profile flagged summary (a damaged flags word): profile.db may
 * hold several summaries, so it stays one, with its values; its tuple
 * cannot stay (hpcviewer would list it as a thread) and is reported. It
 * goes after the plain profiles, which hpcviewer numbers 1..n. */
static void further_summary_kept(void **state)
{
    (void)state;
    pk_profile *a = patched_sample(flag_summary, 2);
    assert_true(a->locs[2].is_summary && a->locs[2].n_ids > 0);
    losses l = {0};
    pk_profile *b = write_read(a, "summaries.d", 0, &l, NULL);
    uint32_t last = b->n_locs - 1;
    assert_int_equal(b->n_locs, a->n_locs);
    for (uint32_t k = 0; k < b->n_locs; k++)
        assert_int_equal(b->locs[k].is_summary, k == 0 || k == last);
    assert_int_equal(b->locs[last].n_ids, 0);
    assert_int_equal(b->locs[last].plane.nvals, a->locs[2].plane.nvals);
    assert_true(lost(&l, "identifier tuple of summary location 2"));
    assert_int_equal(l.n, 1);
    /* cct.db holds the plain profiles' values only, as hpcviewer sizes its arrays */
    assert_int_equal(tu_count_diagnostics(b, "summary-in-cct", PK_SEV_WARNING), 0);
    pk_profile_free(a), pk_profile_free(b);
}

static void set_n_profiles(unsigned char *prof, uint32_t n)
{
    pk_put_le32(prof + pk_le64(prof + 0x18) + 8, n);
}

/* profile.db listing fewer profiles than cct.db names (a damaged count):
 * cct.db's values of the missing ones belong to no location. They cannot
 * be written (cct.db holds profile.db's profiles' values only), nor can
 * contexts meta.db does not list that only they held: both reported. */
static void values_of_no_profile_reported(void **state)
{
    (void)state;
    for (uint32_t n = 0; n < 5; n += 4) { /* none left (no summary either); the last one gone */
        pk_profile *a = patched_sample(set_n_profiles, n);
        assert_int_equal(a->n_locs, n);
        assert_true(a->cm_from_file && a->cm_unplaced > 0);
        losses l = {0};
        pk_profile *b = write_read(a, "no-profile.d", 0, &l, NULL);
        assert_int_equal(b->n_locs, n ? n : 1);
        assert_true(lost(&l, "cct.db values of no profile"));
        assert_int_equal(tu_count_diagnostics(b, "bad-profile-index", PK_SEV_WARNING), 0);
        uint32_t unlisted = 0;
        for (uint32_t i = 1; i < a->n_ctx; i++)
            unlisted += a->ctx[i].parent == PK_NONE;
        assert_int_equal(unlisted, 2); /* the fixture's elided contexts */
        /* with no profile left, nothing holds them; else the other threads do */
        assert_int_equal(b->n_ctx, a->n_ctx - (n ? 0 : unlisted));
        assert_int_equal(lost(&l, "unlisted contexts"), n == 0);
        /* the traces of profiles that are gone are left out and counted */
        char out[256];
        snprintf(out, sizeof out, "%s/no-profile-stats.d", g_tmp);
        pk_write_stats ws = {0};
        pk_write_options o = {.flags = PK_WRITE_FORCE};
        assert_int_equal(pk_profile_write(a, PK_FORMAT_HPCTOOLKIT_V4, out, &o, &ws), PK_OK);
        assert_int_equal(ws.n_skipped_traces, pk_trace_count(a) - pk_trace_count(b));
        assert_true(n > 0 || (pk_trace_count(a) > 0 && pk_trace_count(b) == 0));
        pk_profile_free(a), pk_profile_free(b);
    }
}

/* model_json with its second plain location dropped (empty: NULL) or
 * holding no value (empty: 1), written and read back. */
static pk_profile *one_location_variant(const char *name, int empty)
{
    const char *loc2 = strstr(model_json, "  {\"raw_index\": 2,");
    const char *list_end = loc2 ? strstr(loc2, "]}],\n") : NULL;
    const char *values = loc2 ? strstr(loc2, "\"values\":") : NULL;
    assert_non_null(list_end), assert_non_null(values);
    char text[sizeof model_json], path[256];
    int n = empty ? snprintf(text, sizeof text, "%.*s\"values\": []}%s", (int)(values - model_json),
                             model_json, list_end + 2)
                  : snprintf(text, sizeof text, "%.*s%s", (int)(loc2 - 1 - model_json), model_json,
                             list_end + 2);
    assert_true(n > 0 && (size_t)n < sizeof text);
    snprintf(path, sizeof path, "%s/%s.json", g_tmp, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    pk_profile *a = open_ok(path);
    losses l = {0};
    pk_profile *b = write_read(a, name, 0, &l, NULL);
    pk_profile_free(a);
    assert_non_null(b);
    assert_int_equal(pk_model_ensure_planes(b), PK_OK);
    return b;
}

static const pk_plane *summary_plane(const pk_profile *p)
{
    for (uint32_t l = 0; l < p->n_locs; l++)
        if (p->locs[l].is_summary) return &p->locs[l].plane;
    fail_msg("no summary profile");
    return NULL;
}

/* The summary of one plain location is made from its plane (and is that
 * plane when it holds the same bytes), not from the transpose: it must
 * be what the transpose gives, which a second location without values
 * makes the writer take. */
static void one_location_summary_as_transposed(void **state)
{
    (void)state;
    pk_profile *one = one_location_variant("one.d", 0), *two = one_location_variant("two.d", 1);
    assert_int_equal(one->n_locs + 1, two->n_locs);
    const pk_plane *a = summary_plane(one), *b = summary_plane(two);
    assert_true(a->nvals > 0);
    assert_int_equal(a->nvals, b->nvals);
    assert_int_equal(a->nidx, b->nidx);
    assert_memory_equal(a->vals, b->vals, a->nvals * PK_LM_VAL_SIZE);
    assert_memory_equal(a->idx, b->idx, (size_t)a->nidx * PK_LM_IDX_SIZE);
    pk_profile_free(one);
    pk_profile_free(two);
}

/* The summary of several locations is the same accumulated per (context,
 * column) as reduced from the transpose: the model as it is (two plain
 * locations), written both ways. */
static void summary_cells_as_transposed(void **state)
{
    (void)state;
    pk_profile *a = source_model(), *by[2];
    for (int way = 0; way < 2; way++) {
        losses l = {0};
        hs_cells_choice = way ? 1 : -1;
        by[way] = write_read(a, way ? "cells.d" : "transposed.d", 0, &l, NULL);
        hs_cells_choice = 0;
        assert_non_null(by[way]);
        assert_int_equal(pk_model_ensure_planes(by[way]), PK_OK);
    }
    const pk_plane *x = summary_plane(by[0]), *y = summary_plane(by[1]);
    assert_true(x->nvals > 0);
    assert_int_equal(x->nvals, y->nvals);
    assert_int_equal(x->nidx, y->nidx);
    assert_memory_equal(x->vals, y->vals, x->nvals * PK_LM_VAL_SIZE);
    assert_memory_equal(x->idx, y->idx, (size_t)x->nidx * PK_LM_IDX_SIZE);
    pk_profile_free(by[0]), pk_profile_free(by[1]), pk_profile_free(a);
}

/* A shaped location's plain values read from its plane in every pass, or
 * copied out once as triples (write_shape_vals.c picks by its size):
 * the same database, byte for byte, on real profiles of both kinds. */
static void plain_values_in_plane_or_copied_write_the_same(void **state)
{
    (void)state;
    static const char *const inputs[] = {
        "callgrind/generated/mt_O0-cachesim-combined.callgrind.out",
        "callgrind/gprof2dot/xapian.callgrind",
        "cube/pycubexr-blast-p64-bigendian/profile.cubex",
        "cube/extrap-simple-threaded/cube-example1.cubex",
    };
    static const char *const files[] = {"meta.db", "profile.db", "cct.db"};
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
        char in[4096], a[4200], b[4200];
        snprintf(in, sizeof in, "%s/%s", tu_corpus_dir(), inputs[i]);
        if (!pk_path_exists(in)) skip();
        pk_profile *p = open_ok(in);
        snprintf(a, sizeof a, "%s/copied-%zu.d", g_tmp, i);
        snprintf(b, sizeof b, "%s/in-plane-%zu.d", g_tmp, i);
        assert_int_equal(pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, a, NULL, NULL), PK_OK);
        p->shape_in_plane_values = 1; /* every location's plain values stay in its plane */
        assert_int_equal(pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, b, NULL, NULL), PK_OK);
        for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
            char fa[4300], fb[4300];
            snprintf(fa, sizeof fa, "%s/%s", a, files[f]);
            snprintf(fb, sizeof fb, "%s/%s", b, files[f]);
            if (!tu_same_file(fa, fb)) fail_msg("%s: %s differs", inputs[i], files[f]);
        }
        pk_profile_free(p);
    }
}

int main(void)
{
    if (!mkdtemp(g_tmp)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(other_formats_fit_hpcviewer),
        cmocka_unit_test(strict_refuses_and_leaves_nothing),
        cmocka_unit_test(yaml_carried_over),
        cmocka_unit_test(yaml_merged),
        cmocka_unit_test(yaml_merged_after_multibyte_text),
        cmocka_unit_test(yaml_misfit_replaced),
        cmocka_unit_test(yaml_unmergeable_layouts_replaced),
        cmocka_unit_test(yaml_undefined_alias_warned),
        cmocka_unit_test(check_warns_like_hpcviewer_fails),
        cmocka_unit_test(further_summary_kept),
        cmocka_unit_test(values_of_no_profile_reported),
        cmocka_unit_test(one_location_summary_as_transposed),
        cmocka_unit_test(summary_cells_as_transposed),
        cmocka_unit_test(plain_values_in_plane_or_copied_write_the_same),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tu_remove_tree(g_tmp);
    return rc;
}
