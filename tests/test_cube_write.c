/*
 * tests/test_cube_write.c — what the Cube writer promises where no
 * reference reader looks (docs/cube.md, "Writing"; the conversion matrix
 * covers the corpus with CubeLib and pycubexr). Models are made here as
 * profkit.model/1 JSON, so every shape is reachable:
 *   - a 100 000-deep call chain writes (plain and ZCUBEX) and reads back
 *     whole, in linear time (the ctest timeout bounds it; it took 363 s
 *     and then failed at depth ~230 before);
 *   - names with invalid UTF-8 and control characters give well-formed
 *     XML, replaced by the documented rule;
 *   - one root cnode and one system-tree root, location groups before
 *     child nodes, for entry points and mixed identifier tuples;
 *   - a profile with only summary values, unlisted contexts, point values
 *     folded by sum and by min, an empty profile, one without metrics;
 *   - every loss reported once, and --strict refusing before writing.
 * `test_cube_write --deep N FILE` writes the chain of depth N to FILE (for
 * tests/cube_deep.sh, which has CubeLib read it).
 */
#define _GNU_SOURCE
#include "support/pk_cmocka.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profkit/profkit.h"
#include "support/testutil.h"

static char g_dir[64];

/* ---- JSON models ---- */

typedef struct jb {
    char *s;
    size_t n, cap;
} jb;

static void jp(jb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void jp(jb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->n + (size_t)n + 1 > b->cap) {
        b->cap = (b->n + (size_t)n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        assert_non_null(b->s);
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)n;
}

static void header(jb *b, const char *kinds)
{
    jp(b,
       "{\"schema\": \"profkit.model/1\", \"profile\": {\"title\": \"t\", \"description\": null, "
       "\"format\": \"json\", \"format_version\": [1, 0], \"path\": \"t\", "
       "\"reconstructed\": false, \"trace_range\": null, \"sources\": []}, "
       "\"identifier_kinds\": [%s], \"modules\": [], ",
       kinds);
}

/* A context: kind/relation names as docs/json.md spells them; fn < 0:
 * none; parent < 0: none (the root, or unlisted with flag 8). */
static void ctx(jb *b, int first, uint64_t id, int parent, const char *kind, const char *rel,
                int fn, unsigned flags)
{
    char par[24] = "null", f[24] = "null";
    if (parent >= 0) snprintf(par, sizeof par, "%d", parent);
    if (fn >= 0) snprintf(f, sizeof f, "%d", fn);
    jp(b,
       "%s{\"id\": %llu, \"parent\": %s, \"kind\": \"%s\", \"relation\": \"%s\", \"entry\": "
       "\"%s\", \"entry_name\": null, \"flags\": %u, \"function\": %s, \"file\": null, "
       "\"line\": 0, \"module\": null, \"offset\": 0, \"propagation\": 0, \"raw\": [0, 0, 0]}",
       first ? "" : ", ", (unsigned long long)id, par, kind, rel,
       strcmp(kind, "entry") == 0 ? "main" : "none", flags | (fn >= 0 ? 1u : 0u), f);
}

static const char *tail_json = ", \"attributes\": [], \"diagnostics\": []}";

static pk_profile *open_json(const jb *b)
{
    const char *name = "model.json";
    const void *data = b->s;
    uint64_t size = b->n;
    pk_profile *p = NULL;
    if (pk_profile_open_memory(PK_FORMAT_JSON, 1, &name, &data, &size, NULL, &p))
        fail_msg("the test model does not open: %s", pk_error_last());
    return p;
}

/* ---- writing and reading back ---- */

typedef struct losses {
    char items[32][256];
    int n;
} losses;

static void on_loss(void *user, const char *item, const char *reason)
{
    losses *l = user;
    (void)reason;
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->items[i], item) == 0) fail_msg("'%s' reported twice", item);
    if (l->n < 32) snprintf(l->items[l->n++], sizeof l->items[0], "%s", item);
}

static int lost(const losses *l, const char *prefix)
{
    for (int i = 0; i < l->n; i++)
        if (strncmp(l->items[i], prefix, strlen(prefix)) == 0) return 1;
    return 0;
}

static pk_profile *write_and_read(const pk_profile *p, uint32_t flags, losses *l, char *path)
{
    snprintf(path, 128, "%s/out.cubex", g_dir);
    pk_write_options o = {flags | PK_WRITE_FORCE, NULL, NULL, on_loss, l};
    if (pk_profile_write(p, PK_FORMAT_CUBE, path, &o, NULL))
        fail_msg("writing Cube: %s", pk_error_last());
    pk_profile *q = NULL;
    if (pk_profile_open(path, NULL, &q)) fail_msg("reading back: %s", pk_error_last());
    return q;
}

static double value(const pk_profile *p, pk_index loc, pk_index ctx_index, const char *metric,
                    pk_scope_kind kind)
{
    for (pk_index m = 0; m < pk_metric_count(p); m++) {
        pk_metric x;
        pk_index col;
        double v;
        pk_metric_get(p, m, &x);
        if (strcmp(x.name, metric) != 0) continue;
        if (pk_column_find(p, m, kind, &col)) return -1;
        assert_int_equal(pk_value_lookup(p, loc, ctx_index, col, &v), PK_OK);
        return v;
    }
    fail_msg("no metric %s", metric);
    return 0;
}

/* anchor.xml of a .cubex profkit wrote: the last member, after its header. */
static char *anchor_of(const char *path)
{
    size_t n;
    unsigned char *d = tu_read_file(path, &n);
    assert_non_null(d);
    for (size_t at = 0; at + 512 <= n; at += 512) {
        unsigned long long size = strtoull((const char *)d + at + 124, NULL, 8);
        if (strcmp((const char *)d + at, "anchor.xml") == 0) {
            char *x = strndup((const char *)d + at + 512, size);
            free(d);
            return x;
        }
        at += (size + 511) / 512 * 512;
    }
    free(d);
    fail_msg("%s has no anchor.xml", path);
    return NULL;
}

/* Elements `tag` that open at nesting depth 0 of their own kind. */
static int roots_of(const char *xml, const char *tag)
{
    char open[64], close[64];
    snprintf(open, sizeof open, "<%s ", tag);
    snprintf(close, sizeof close, "</%s>", tag);
    int depth = 0, roots = 0;
    for (const char *s = xml; (s = strchr(s, '<')); s++) {
        if (strncmp(s, open, strlen(open)) == 0) roots += depth++ == 0;
        if (strncmp(s, close, strlen(close)) == 0) depth--;
    }
    return roots;
}

/* ---- the deep chain ---- */

static void chain_model(jb *b, int n)
{
    header(b, "\"THREAD\"");
    jp(b, "\"files\": [], \"functions\": [");
    for (int f = 0; f < 10; f++)
        jp(b, "%s{\"name\": \"f%d\", \"module\": null, \"offset\": 0, \"file\": null, \"line\": 0}",
           f ? ", " : "", f);
    jp(b, "], \"metrics\": [{\"name\": \"time\", \"description\": null, \"unit\": \"sec\", "
          "\"parent\": null, \"combine\": \"sum\", \"flags\": 0}], "
          "\"scopes\": [{\"name\": \"inclusive\", \"kind\": \"inclusive\", \"raw_type\": 2, "
          "\"propagation_index\": 255}], \"columns\": [{\"metric\": 0, \"scope\": 0, \"summary\": "
          "false, \"stat\": \"none\", \"formula\": null, \"combine\": \"sum\", \"raw_id\": 0}], "
          "\"contexts\": [");
    ctx(b, 1, 0, -1, "root", "none", -1, 0);
    for (int i = 1; i <= n; i++)
        ctx(b, 0, (uint64_t)i, i - 1, "function", "call", i % 10, 0);
    jp(b, "], \"locations\": [{\"raw_index\": 0, \"summary\": false, \"trace\": null, \"ids\": "
          "[{\"kind\": 0, \"name\": \"THREAD\", \"flags\": 0, \"logical\": 0, \"physical\": 0}], "
          "\"values\": [");
    for (int i = 0; i <= n; i++) /* inclusive: 1 of its own per context */
        jp(b, "%s[%d, 0, %d]", i ? ", " : "", i, n - i + 1);
    jp(b, "]}], \"traces\": []%s", tail_json);
}

static void check_chain(const pk_profile *q, int n)
{
    assert_int_equal(pk_context_count(q), (size_t)n + 1);
    pk_index deepest;
    assert_int_equal(pk_context_find(q, (uint64_t)n, &deepest), PK_OK);
    pk_context c;
    assert_int_equal(pk_context_get(q, deepest, &c), PK_OK);
    assert_int_equal(c.depth, n);
    assert_true(value(q, 0, deepest, "time", PK_SCOPE_INCLUSIVE) == 1.0);
    assert_true(value(q, 0, 0, "time", PK_SCOPE_INCLUSIVE) == n + 1.0);
}

static void test_deep_chain(void **state)
{
    (void)state;
    const int n = 100000;
    jb b = {0};
    chain_model(&b, n);
    pk_profile *p = open_json(&b);
    for (int compress = 0; compress < 2; compress++) {
        losses l = {0};
        char path[128];
        pk_profile *q = write_and_read(p, compress ? PK_WRITE_COMPRESS : 0, &l, path);
        check_chain(q, n);
        assert_int_equal(l.n, 0); /* a chain of functions: nothing to leave out */
        char *xml = anchor_of(path);
        assert_int_equal(roots_of(xml, "cnode"), 1);
        free(xml);
        pk_profile_free(q);
    }
    pk_profile_free(p);
    free(b.s);
}

/* ---- names ---- */

/* Function names as raw bytes in the JSON (the reader keeps them), and
 * what they must read back as. */
static const struct {
    const char *json, *back;
} names[] = {
    {"plain", "plain"},
    {"tab\\tnl\\ncr\\r.", "tab\tnl\ncr\r."}, /* inside: the reader trims the ends */
    {"ctl\\u0001\\u001f.", "ctl\xEF\xBF\xBD\xEF\xBF\xBD."},
    {"<a & \\\"b\\\" 'c'>", "<a & \"b\" 'c'>"},
    {"bad\xff\xfe.", "bad\xEF\xBF\xBD\xEF\xBF\xBD."},
    {"cut\xc3", "cut\xEF\xBF\xBD"},
    {"surrogate\xed\xa0\x80.", "surrogate\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD."},
    {"overlong\xc0\xaf.", "overlong\xEF\xBF\xBD\xEF\xBF\xBD."},
    {"nonchar\xef\xbf\xbe.", "nonchar\xEF\xBF\xBD."},
    {"kept \xc3\xa9 \xf0\x9f\x98\x80", "kept \xc3\xa9 \xf0\x9f\x98\x80"},
};

static void test_names(void **state)
{
    (void)state;
    size_t n = sizeof names / sizeof *names;
    jb b = {0};
    header(&b, "\"THREAD\"");
    jp(&b,
       "\"files\": [{\"path\": \"dir\\nwith\\u0002newline.c\", \"flags\": 0}], \"functions\": [");
    for (size_t f = 0; f < n; f++)
        jp(&b, "%s{\"name\": \"%s\", \"module\": null, \"offset\": 0, \"file\": 0, \"line\": 3}",
           f ? ", " : "", names[f].json);
    jp(&b, "], \"metrics\": [{\"name\": \"m\\u0003\\u00e9\", \"description\": \"d\\u0004\", "
           "\"unit\": null, \"parent\": null, \"combine\": \"sum\", \"flags\": 0}], \"scopes\": "
           "[{\"name\": \"inclusive\", \"kind\": \"inclusive\", \"raw_type\": 2, "
           "\"propagation_index\": 255}], \"columns\": [{\"metric\": 0, \"scope\": 0, \"summary\": "
           "false, \"stat\": \"none\", \"formula\": null, \"combine\": \"sum\", \"raw_id\": 0}], "
           "\"contexts\": [");
    ctx(&b, 1, 0, -1, "root", "none", -1, 0);
    for (size_t f = 0; f < n; f++)
        ctx(&b, 0, f + 1, 0, "function", "call", (int)f, 0);
    jp(&b,
       "], \"locations\": [{\"raw_index\": 0, \"summary\": false, \"trace\": null, \"ids\": "
       "[{\"kind\": 0, \"name\": \"THREAD\", \"flags\": 0, \"logical\": 0, \"physical\": 0}], "
       "\"values\": [[1, 0, 1]]}], \"traces\": []%s",
       tail_json);
    pk_profile *p = open_json(&b);
    losses l = {0};
    char path[128];
    pk_profile *q = write_and_read(p, 0, &l, path); /* expat refuses ill-formed XML */
    for (size_t f = 0; f < n; f++) {
        pk_function fn;
        pk_file file;
        assert_int_equal(pk_function_get(q, (pk_index)f, &fn), PK_OK);
        assert_string_equal(fn.name, names[f].back);
        assert_int_equal(pk_file_get(q, fn.file, &file), PK_OK);
        assert_string_equal(file.path, "dir\nwith\xEF\xBF\xBDnewline.c");
    }
    pk_metric m;
    assert_int_equal(pk_metric_get(q, 0, &m), PK_OK);
    assert_string_equal(m.name, "m\xEF\xBF\xBD\xc3\xa9");
    assert_string_equal(m.description, "d\xEF\xBF\xBD");
    pk_profile_free(q), pk_profile_free(p);
    free(b.s);
}

/* The anchor of test_one_root's model: one root cnode and one system-tree
 * root, groups before child nodes, the locations named by their tuples. */
static void check_one_root_anchor(const char *path)
{
    char *xml = anchor_of(path);
    assert_int_equal(roots_of(xml, "cnode"), 1);          /* pycubexr needs one */
    assert_int_equal(roots_of(xml, "systemtreenode"), 1); /* and one here */
    /* CubeLib's grammar: a node's location groups before its child nodes */
    const char *child = strstr(xml, "<systemtreenode Id=\"1\">");
    assert_non_null(child);
    assert_null(strstr(child, "</systemtreenode>\n<locationgroup"));
    assert_non_null(strstr(xml, "<name>node 0 [0xab]</name>"));
    assert_non_null(strstr(xml, "<name>gpucontext 1 / gpustream 7</name>\n<rank>1</rank>\n"
                                "<type>gpu</type>"));
    assert_non_null(strstr(xml, "<name>rank 3</name>"));
    free(xml);
}

/* ---- one root, one system tree ---- */

static void test_one_root(void **state)
{
    (void)state;
    jb b = {0};
    header(&b, "\"NODE\", \"RANK\", \"THREAD\", \"GPUCONTEXT\", \"GPUSTREAM\"");
    jp(&b, "\"files\": [], \"functions\": [{\"name\": \"main\", \"module\": null, \"offset\": 0, "
           "\"file\": null, \"line\": 0}, {\"name\": \"worker\", \"module\": null, \"offset\": 0, "
           "\"file\": null, \"line\": 0}], \"metrics\": [{\"name\": \"time\", \"description\": "
           "null, \"unit\": null, \"parent\": null, \"combine\": \"sum\", \"flags\": 0}], "
           "\"scopes\": [{\"name\": \"inclusive\", \"kind\": \"inclusive\", \"raw_type\": 2, "
           "\"propagation_index\": 255}], \"columns\": [{\"metric\": 0, \"scope\": 0, \"summary\": "
           "false, \"stat\": \"none\", \"formula\": null, \"combine\": \"sum\", \"raw_id\": 0}], "
           "\"contexts\": [");
    ctx(&b, 1, 0, -1, "root", "none", -1, 0);
    ctx(&b, 0, 1, 0, "entry", "none", -1, 0); /* two entry points */
    ctx(&b, 0, 2, 0, "entry", "none", -1, 0);
    ctx(&b, 0, 3, 1, "function", "call", 0, 0);
    ctx(&b, 0, 4, 2, "function", "call", 1, 0);
    jp(&b, "], \"locations\": [");
    static const char *const tuples[] = {
        "[{\"kind\": 0, \"name\": \"NODE\", \"flags\": 1, \"logical\": 0, \"physical\": 171}, "
        "{\"kind\": 2, \"name\": \"THREAD\", \"flags\": 0, \"logical\": 0, \"physical\": 0}]",
        "[{\"kind\": 0, \"name\": \"NODE\", \"flags\": 1, \"logical\": 0, \"physical\": 171}, "
        "{\"kind\": 3, \"name\": \"GPUCONTEXT\", \"flags\": 0, \"logical\": 1, \"physical\": 0}, "
        "{\"kind\": 4, \"name\": \"GPUSTREAM\", \"flags\": 0, \"logical\": 7, \"physical\": 0}]",
        "[{\"kind\": 0, \"name\": \"NODE\", \"flags\": 1, \"logical\": 1, \"physical\": 172}, "
        "{\"kind\": 1, \"name\": \"RANK\", \"flags\": 0, \"logical\": 3, \"physical\": 0}, "
        "{\"kind\": 2, \"name\": \"THREAD\", \"flags\": 0, \"logical\": 2, \"physical\": 0}]"};
    for (int l = 0; l < 3; l++)
        jp(&b,
           "%s{\"raw_index\": %d, \"summary\": false, \"trace\": null, \"ids\": %s, \"values\": "
           "[[0, 0, %d], [1, 0, 1], [2, 0, %d], [3, 0, 1], [4, 0, %d]]}",
           l ? ", " : "", l, tuples[l], 2 + l, 1 + l, 1 + l);
    jp(&b, "], \"traces\": []%s", tail_json);
    pk_profile *p = open_json(&b);
    losses l = {0};
    char path[128];
    pk_profile *q = write_and_read(p, 0, &l, path);
    check_one_root_anchor(path);
    /* read back: the model's root again, with its two entry points */
    pk_context root;
    assert_int_equal(pk_context_get(q, 0, &root), PK_OK);
    assert_int_equal(root.n_children, 2);
    assert_int_equal(pk_location_count(q), 3);
    char n0[128], n1[128], n2[128];
    pk_location_name(q, 0, n0, sizeof n0), pk_location_name(q, 1, n1, sizeof n1);
    pk_location_name(q, 2, n2, sizeof n2);
    assert_string_equal(n0, "MACHINE 0 / NODE 0 / RANK 0 / THREAD 0");
    assert_string_equal(n1, "MACHINE 0 / NODE 0 / RANK 0 / GPU 1"); /* threads' sibling */
    assert_string_equal(n2, "MACHINE 0 / NODE 1 / RANK 3 / THREAD 0");
    assert_true(value(q, 2, 0, "time", PK_SCOPE_INCLUSIVE) == 4.0); /* the root's own values */
    pk_profile_free(q), pk_profile_free(p);
    free(b.s);
}

/* ---- values from elsewhere ---- */

static void scalar_metrics(jb *b, const char *scope_kind, int summary)
{
    jp(b,
       "\"files\": [{\"path\": \"a.c\", \"flags\": 0}], \"functions\": [{\"name\": \"main\", "
       "\"module\": null, \"offset\": 0, \"file\": 0, \"line\": 1}], \"metrics\": "
       "[{\"name\": \"n\", \"description\": null, \"unit\": null, \"parent\": null, \"combine\": "
       "\"sum\", \"flags\": 0}, {\"name\": \"low\", \"description\": null, \"unit\": null, "
       "\"parent\": null, \"combine\": \"min\", \"flags\": 0}], \"scopes\": [{\"name\": \"s\", "
       "\"kind\": \"%s\", \"raw_type\": 1, \"propagation_index\": 255}], \"columns\": "
       "[{\"metric\": 0, \"scope\": 0, \"summary\": false, \"stat\": \"none\", \"formula\": null, "
       "\"combine\": \"sum\", \"raw_id\": 0}, {\"metric\": 1, \"scope\": 0, \"summary\": false, "
       "\"stat\": \"none\", \"formula\": null, \"combine\": \"sum\", \"raw_id\": 1}",
       scope_kind);
    if (summary)
        jp(b, ", {\"metric\": 0, \"scope\": 0, \"summary\": true, \"stat\": \"sum\", \"formula\": "
              "\"$$\", \"combine\": \"sum\", \"raw_id\": 0}, {\"metric\": 1, \"scope\": 0, "
              "\"summary\": true, \"stat\": \"min\", \"formula\": \"$$\", \"combine\": \"min\", "
              "\"raw_id\": 1}, {\"metric\": 0, \"scope\": 0, \"summary\": true, \"stat\": "
              "\"count\", \"formula\": \"1\", \"combine\": \"sum\", \"raw_id\": 2}");
    jp(b, "], \"contexts\": [");
    ctx(b, 1, 0, -1, "root", "none", -1, 0);
    ctx(b, 0, 1, 0, "function", "call", 0, 0);
    ctx(b, 0, 9, -1, "instruction", "none", -1, 8); /* unlisted */
    ctx(b, 0, 2, 1, "line", "lexical", -1, 0);
    ctx(b, 0, 3, 1, "line", "lexical", -1, 0);
}

static const char *thread0 =
    "[{\"kind\": 0, \"name\": \"THREAD\", \"flags\": 0, \"logical\": 0, \"physical\": 0}]";

/* The model of scalar_metrics() with `locations` (JSON), written and read
 * back; *src receives the model, the JSON text stays in b. */
static pk_profile *scalar_round_trip(jb *b, const char *scope, int summary, const char *locations,
                                     losses *l, pk_profile **src)
{
    char path[128];
    header(b, "\"THREAD\"");
    scalar_metrics(b, scope, summary);
    jp(b, "], \"locations\": [%s], \"traces\": []%s", locations, tail_json);
    *src = open_json(b);
    return write_and_read(*src, 0, l, path);
}

/* Point values: lines fold into main by sum (n) and by min (low); the
 * unlisted context keeps its value under "<unlisted contexts>". */
static void test_folding(void **state)
{
    (void)state;
    jb b = {0};
    char locations[512];
    snprintf(locations, sizeof locations,
             "{\"raw_index\": 0, \"summary\": false, \"trace\": null, \"ids\": %s, \"values\": "
             "[[2, 0, 3, 1, 5], [3, 0, 4, 1, 2], [9, 0, 10]]}",
             thread0);
    losses l = {0};
    pk_profile *p, *q = scalar_round_trip(&b, "point", 0, locations, &l, &p);
    assert_true(lost(&l, "2 loop, line and instruction contexts") && lost(&l, "1 unlisted"));
    pk_index main_ctx = PK_NONE, unlisted = PK_NONE;
    for (pk_index c = 0; c < pk_context_count(q); c++) {
        char name[64];
        pk_context_name(q, c, name, sizeof name);
        if (strcmp(name, "main") == 0) main_ctx = c;
        if (strcmp(name, "<unlisted contexts>") == 0) unlisted = c;
    }
    assert_true(main_ctx != PK_NONE && unlisted != PK_NONE);
    assert_true(value(q, 0, main_ctx, "n", PK_SCOPE_EXCLUSIVE) == 7.0);
    assert_true(value(q, 0, main_ctx, "low", PK_SCOPE_EXCLUSIVE) == 2.0);
    assert_true(value(q, 0, unlisted, "n", PK_SCOPE_EXCLUSIVE) == 10.0);
    double total; /* every point value of the source: 3 + 4 + 10 */
    assert_int_equal(pk_metric_program_total(q, 0, &total), PK_OK);
    assert_true(total == 17.0);
    pk_profile_free(q), pk_profile_free(p);
    free(b.s);
}

/* Only summary values (hpcprof without per-thread files): one location,
 * the summary's sums (and min for the min metric). */
static void test_summary_only(void **state)
{
    (void)state;
    jb b = {0};
    char locations[512];
    snprintf(locations, sizeof locations,
             "{\"raw_index\": 0, \"summary\": true, \"trace\": null, \"ids\": [], \"values\": "
             "[[1, 0, 6, 1, 2, 2, 4]]}, {\"raw_index\": 1, \"summary\": false, \"trace\": null, "
             "\"ids\": %s, \"values\": []}",
             thread0);
    losses l = {0};
    pk_profile *p, *q = scalar_round_trip(&b, "exclusive", 1, locations, &l, &p);
    assert_true(lost(&l, "1 locations") && lost(&l, "summary statistics"));
    assert_int_equal(pk_location_count(q), 1);
    pk_index main_ctx;
    assert_int_equal(pk_context_find(q, 0, &main_ctx), PK_OK); /* main: cnode 0, the root */
    assert_true(value(q, 0, main_ctx, "n", PK_SCOPE_EXCLUSIVE) == 6.0);
    assert_true(value(q, 0, main_ctx, "low", PK_SCOPE_EXCLUSIVE) == 2.0);
    pk_profile_free(q), pk_profile_free(p);
    free(b.s);
}

/* ---- what cannot be written ---- */

static void bare_model(jb *b, int metrics, int locations, int traces)
{
    header(b, "\"THREAD\"");
    jp(b,
       "\"files\": [], \"functions\": [], \"metrics\": [%s], \"scopes\": [{\"name\": \"i\", "
       "\"kind\": \"inclusive\", \"raw_type\": 2, \"propagation_index\": 255}], \"columns\": "
       "[%s], \"contexts\": [",
       metrics ? "{\"name\": \"t\", \"description\": null, \"unit\": null, \"parent\": null, "
                 "\"combine\": \"sum\", \"flags\": 0}"
               : "",
       metrics ? "{\"metric\": 0, \"scope\": 0, \"summary\": false, \"stat\": \"none\", "
                 "\"formula\": null, \"combine\": \"sum\", \"raw_id\": 0}"
               : "");
    ctx(b, 1, 0, -1, "root", "none", -1, 0);
    jp(b, "], \"locations\": [");
    if (locations)
        jp(b,
           "{\"raw_index\": 0, \"summary\": false, \"trace\": %s, \"ids\": %s, \"values\": "
           "[%s]}",
           traces ? "0" : "null", thread0, metrics ? "[0, 0, 2]" : "");
    jp(b, "], \"traces\": [%s]%s",
       traces ? "{\"location\": 0, \"samples\": [[10, 0], [20, 0]]}" : "", tail_json);
}

static void test_empty(void **state)
{
    (void)state;
    for (int metrics = 0; metrics < 2; metrics++) {
        jb b = {0};
        bare_model(&b, metrics, 0, 0);
        pk_profile *p = open_json(&b);
        losses l = {0};
        char path[128];
        pk_profile *q = write_and_read(p, 0, &l, path);
        assert_int_equal(pk_location_count(q), 1); /* Cube needs one */
        assert_int_equal(pk_metric_count(q), 1);
        assert_int_equal(lost(&l, "metrics"), !metrics);
        char *xml = anchor_of(path);
        assert_non_null(strstr(xml, "<region id=\"0\"")); /* and a region */
        assert_null(strstr(xml, "\"-1\""));               /* cube_sanity */
        assert_int_equal(roots_of(xml, "cnode"), 1);
        free(xml);
        pk_profile_free(q), pk_profile_free(p);
        free(b.s);
    }
}

static void test_strict(void **state)
{
    (void)state;
    jb b = {0};
    bare_model(&b, 1, 1, 1);
    pk_profile *p = open_json(&b);
    losses l = {0};
    char path[128];
    pk_profile *q = write_and_read(p, 0, &l, path);
    assert_int_equal(l.n, 1);
    assert_string_equal(l.items[0], "traces");
    pk_profile_free(q);
    l.n = 0;
    pk_profile_free(write_and_read(p, PK_WRITE_NO_TRACE, &l, path)); /* asked for: no note */
    assert_int_equal(l.n, 0);
    unlink(path);
    pk_write_options o = {PK_WRITE_STRICT, NULL, NULL, on_loss, &l};
    assert_int_equal(pk_profile_write(p, PK_FORMAT_CUBE, path, &o, NULL), PK_ERR_UNSUPPORTED);
    assert_non_null(strstr(pk_error_last(), "traces"));
    assert_int_not_equal(access(path, F_OK), 0); /* nothing written */
    pk_profile_free(p);
    free(b.s);
}

static int deep_to_file(int n, const char *path)
{
    jb b = {0};
    chain_model(&b, n);
    const char *name = "chain.json";
    const void *data = b.s;
    uint64_t size = b.n;
    pk_profile *p = NULL;
    pk_write_options o = {PK_WRITE_FORCE, NULL, NULL, NULL, NULL};
    int bad = pk_profile_open_memory(PK_FORMAT_JSON, 1, &name, &data, &size, NULL, &p) ||
              pk_profile_write(p, PK_FORMAT_CUBE, path, &o, NULL);
    if (bad) fprintf(stderr, "%s\n", pk_error_last());
    pk_profile_free(p);
    free(b.s);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--deep") == 0) return deep_to_file(atoi(argv[2]), argv[3]);
    snprintf(g_dir, sizeof g_dir, "/tmp/pk-cube-write-XXXXXX");
    if (!mkdtemp(g_dir)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deep_chain),   cmocka_unit_test(test_names),
        cmocka_unit_test(test_one_root),     cmocka_unit_test(test_folding),
        cmocka_unit_test(test_summary_only), cmocka_unit_test(test_empty),
        cmocka_unit_test(test_strict),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tu_remove_tree(g_dir);
    return rc;
}
