/*
 * tests/test_json_damage.c — the profkit.model/1 reader on damaged input,
 * needing no corpus: the project's own samples (tests/data) written as
 * JSON, then every prefix of that JSON (each a clean error naming the
 * file, a byte offset and that it is cut off), one specific damage at a
 * time with the error it must give (the JSON path, the byte offset of the
 * record, what was expected), bytes overwritten at random (an error or a
 * profile, never a crash), values that JSON numbers cannot hold, and
 * detection that takes profkit.model files and no other JSON.
 */
#define _GNU_SOURCE
#include "support/pk_cmocka.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/model_compare.h"
#include "support/testutil.h"

static const char *const NAME = "sample.json";
static char g_tmp[64];

static pk_status open_bytes(const void *data, size_t n, pk_profile **p)
{
    void *copy = malloc(n ? n : 1); /* exactly n bytes: ASan sees reads past the end */
    memcpy(copy, data, n);
    const void *d = copy;
    uint64_t size = n;
    pk_status st = pk_profile_open_memory(PK_FORMAT_JSON, 1, &NAME, &d, &size, NULL, p);
    free(copy); /* the profile keeps nothing of the input */
    return st;
}

/* A sample converted to JSON (malloc'ed, NUL-terminated). */
static char *as_json(const char *sample, size_t *n)
{
    pk_profile *p;
    char out[128];
    snprintf(out, sizeof out, "%s/s.json", g_tmp);
    if (pk_profile_open(sample, NULL, &p)) fail_msg("%s", pk_error_last());
    pk_write_options o = {.flags = PK_WRITE_FORCE};
    if (pk_profile_write(p, PK_FORMAT_JSON, out, &o, NULL)) fail_msg("%s", pk_error_last());
    pk_profile_free(p);
    unsigned char *t = tu_read_file(out, n);
    assert_non_null(t);
    t = realloc(t, *n + 1);
    t[*n] = 0;
    return (char *)t;
}

static char *cg_json(size_t *n)
{
    return as_json(PK_SOURCE_DIR "/tests/data/callgrind/sample.callgrind", n);
}

/* The JSON with the first `from` after `after` (may be NULL) replaced. */
static char *edited(const char *json, const char *after, const char *from, const char *to,
                    size_t *n)
{
    const char *start = after ? strstr(json, after) : json;
    assert_non_null(start);
    const char *at = strstr(start, from);
    assert_non_null(at);
    size_t len = strlen(json), pre = (size_t)(at - json), nf = strlen(from), nt = strlen(to);
    char *out = malloc(len - nf + nt + 1);
    memcpy(out, json, pre), memcpy(out + pre, to, nt);
    memcpy(out + pre + nt, at + nf, len - pre - nf + 1);
    *n = len - nf + nt;
    return out;
}

static void expect_error(const char *json, size_t n, pk_status want, const char *const *parts)
{
    pk_profile *p = NULL;
    pk_status st = open_bytes(json, n, &p);
    if (st == PK_OK) {
        pk_profile_free(p);
        fail_msg("damaged JSON opened (wanted: %s)", parts[0]);
    }
    const char *msg = pk_error_last();
    if (st != want) fail_msg("status %d, want %d: %s", st, want, msg);
    if (strncmp(msg, "sample.json: byte ", 18) != 0) fail_msg("no file and offset: %s", msg);
    for (size_t i = 0; parts[i]; i++)
        if (!strstr(msg, parts[i])) fail_msg("'%s' not in: %s", parts[i], msg);
}

#define EXPECT(json, n, ...)                                                                       \
    do {                                                                                           \
        const char *const parts_[] = {__VA_ARGS__, NULL};                                          \
        expect_error(json, n, PK_ERR_FORMAT, parts_);                                              \
    } while (0)

static void damage(const char *after, const char *from, const char *to, const char *path,
                   const char *what)
{
    size_t n, m;
    char *json = cg_json(&n);
    char *bad = edited(json, after, from, to, &m);
    EXPECT(bad, m, path, what);
    free(json), free(bad);
}

static void test_reads_back(void **state)
{
    (void)state;
    const char *samples[] = {PK_SOURCE_DIR "/tests/data/callgrind/sample.callgrind",
                             PK_SOURCE_DIR "/tests/data/cube/sample.cubex"};
    for (size_t i = 0; i < 2; i++) {
        size_t n;
        char *json = as_json(samples[i], &n);
        pk_profile *a, *b;
        assert_int_equal(pk_profile_open(samples[i], NULL, &a), PK_OK);
        if (open_bytes(json, n, &b)) fail_msg("%s", pk_error_last());
        tu_assert_same_model(a, b, samples[i]);
        tu_exercise(b, 1);
        pk_profile_free(a), pk_profile_free(b);
        free(json);
    }
}

static void test_every_prefix(void **state)
{
    (void)state;
    size_t n;
    char *json = cg_json(&n);
    for (size_t len = 0; len < n; len++) {
        pk_profile *p = NULL;
        pk_status st = open_bytes(json, len, &p);
        if (strspn(json + len, " \n") == n - len) { /* only the final newline is missing */
            if (st) fail_msg("prefix of %zu of %zu bytes: %s", len, n, pk_error_last());
            pk_profile_free(p);
            continue;
        }
        if (st == PK_OK) fail_msg("prefix of %zu of %zu bytes opened", len, n);
        const char *msg = pk_error_last();
        char want[64];
        snprintf(want, sizeof want, "sample.json: byte %zu, ", len);
        /* cut inside a token, yajl may stop a little before the end */
        if (st != PK_ERR_FORMAT || strncmp(msg, "sample.json: byte ", 18) != 0 ||
            (!strstr(msg, "cut off") && !strstr(msg, "no JSON document") &&
             !strstr(msg, "not valid JSON")))
            fail_msg("prefix %zu: %s", len, msg);
        if (strstr(msg, "cut off") && strncmp(msg, want, strlen(want)) != 0)
            fail_msg("prefix %zu: offset is not the end: %s", len, msg);
    }
    free(json);
}

static void test_wrong_types(void **state)
{
    (void)state;
    damage("\"contexts\"", "\"parent\": 0", "\"parent\": \"0\"", "$.contexts[1].parent",
           "must be a non-negative integer, not a string");
    damage("\"functions\"", "\"line\": 0", "\"line\": -1", "$.functions[0].line",
           "must be a non-negative integer, not -1");
    damage("\"metrics\"", "\"combine\": \"sum\"", "\"combine\": \"avg\"", "$.metrics[0].combine",
           "must be one of \"sum\", \"min\"");
    damage("\"columns\"", "\"summary\": false", "\"summary\": 0", "$.columns[0].summary",
           "must be true or false");
    damage("\"contexts\"", "\"raw\": [0, 0, 0]", "\"raw\": 7", "$.contexts[0].raw",
           "must be an array");
    damage("\"locations\"", "\"values\": [", "\"values\": {\"a\": [", "$.locations[0].values",
           "must be an array, not an object");
    damage(NULL, "\"modules\": [", "\"modules\": {\"a\": [", "$.modules",
           "must be an array, not an object");
}

static void test_references(void **state)
{
    (void)state;
    damage("\"functions\"", "\"file\": 0", "\"file\": 7", "$.functions[0].file",
           "7 is out of range (at most 1)");
    damage("\"contexts\"", "\"function\": 0", "\"function\": 9", "$.contexts[2].function",
           "out of range");
    damage("\"columns\"", "\"metric\": 1", "\"metric\": 2", "$.columns[1].metric", "out of range");
    damage("\"locations\"", "\n    [3, 0, 100", "\n    [2000, 0, 100",
           "$.locations[0].values[1][0]", "no context has id 2000");
    damage("\"locations\"", "\n    [3, 0, 100, 1, ", "\n    [3, 0, 100, 9, ",
           "$.locations[0].values", "column 9, but no plain column has that raw_id");
    damage("\"callgraph\"", "\"self\": [\n   [0, 0, ", "\"self\": [\n   [3, 0, ",
           "$.callgraph.self[0][0]", "3 is out of range");
    /* found by fuzz_json: metric 0's parent chain reaches metric 1, whose
     * parent does not exist; every parent is checked before any walk */
    size_t n, m1, m2;
    char *json = cg_json(&n);
    char *a = edited(json, "\"metrics\"", "\"parent\": null", "\"parent\": 1", &m1);
    char *b = edited(a, "\"Dr\"", "\"parent\": null", "\"parent\": 99", &m2);
    EXPECT(b, m2, "metric 1: parent 99 does not exist");
    free(json), free(a), free(b);
}

static void test_cube_attributes(void **state)
{
    (void)state;
    size_t n, m;
    char *json = as_json(PK_SOURCE_DIR "/tests/data/cube/sample.cubex", &n);
    char *bad = edited(json, "\"attributes\"", "\"index\": 0", "\"index\": 99", &m);
    EXPECT(bad, m, "$.attributes[0].index", "99 is out of range (at most 0)");
    free(bad);
    bad = edited(json, "\"attributes\"", "\"entity\": \"metric\"", "\"entity\": \"thing\"", &m);
    EXPECT(bad, m, "$.attributes[1].entity", "must be one of \"profile\"");
    free(bad), free(json);
}

static void test_structure(void **state)
{
    (void)state;
    /* a cycle cannot be written breadth-first: the parent must come first */
    damage("\"contexts\"", "\"id\": 2, \"parent\": 1", "\"id\": 2, \"parent\": 5",
           "$.contexts[2].parent", "does not precede context 2");
    damage("\"contexts\"", "\"id\": 1, \"parent\": 0", "\"id\": 1, \"parent\": null",
           "$.contexts[1].parent", "only the root");
    damage("\"contexts\"", "\"id\": 3, ", "\"id\": 2, ", "$.contexts", "used twice");
    damage("\"locations\"", "\n    [3, 0, 100", "\n    [2, 0, 100", "$.locations[0].values[1][0]",
           "rows must come in ascending context id");
    damage("\"functions\"", ", \"line\": 0}", "}", "$.functions[0].line", "missing");
    damage(NULL, "\"diagnostics\": [", "\"diagnosticz\": [", "$",
           "the document has no \"diagnostics\" member");
    damage(NULL, "\"generator\"", "\"scopes\": [], \"generator\"", "$.generator",
           "comes after \"scopes\": members must appear in the order");
    damage(NULL, "{\"schema\": \"profkit.model/1\",", "{\"generator\": \"x\", \"schema\": 1,", "$",
           "the first member must be \"schema\"");
    damage("\"locations\"", "\n    [3, 0, 100", "\n    [3, 0, [100]", "$.locations[0].values[1]",
           "holds only numbers");
    damage("\"locations\"", "\n    [3, 0, 100, 1, 20]", "\n    [3, 0, 100, 1]",
           "$.locations[0].values[1]", "[context id, column, value");
    damage("\"modules\"", "\"/usr/bin/demo\"", "\"/usr/bin\\u0000demo\"", "$.modules[0]",
           "NUL character");
    damage("\"callgraph\"", "\"jumps\": [\n   [0, 0, 0, 12, 4104, 0, ",
           "\"jumps\": [\n   [0, 0, 0, ", "$.callgraph.jumps[0]",
           "a jump row has 11 elements here, not 14");
    damage("\"callgraph\"", "0, true, 2, 3]", "0, 1, 2, 3]", "$.callgraph.jumps[0][11]",
           "must be true or false");
}

/* Inputs the fuzzer once failed on (fuzz/regress/fuzz_json): each a
 * clean error naming the file, here too, where the test suite's
 * sanitizer build makes undefined behaviour fatal (an empty record as the
 * first one once offset a null token array). */
static void test_fuzz_regressions(void **state)
{
    (void)state;
    static const char *const inputs[] = {"empty-identifier-kinds.json"};
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/fuzz/regress/fuzz_json/%s", PK_SOURCE_DIR, inputs[i]);
        size_t n;
        unsigned char *t = tu_read_file(path, &n);
        assert_non_null(t);
        pk_profile *p = NULL;
        assert_int_equal(open_bytes(t, n, &p), PK_ERR_FORMAT);
        assert_non_null(strstr(pk_error_last(), NAME));
        free(t);
    }
}

static void test_schema_and_syntax(void **state)
{
    (void)state;
    size_t n, m;
    char *json = cg_json(&n);
    char *bad = edited(json, NULL, "profkit.model/1", "profkit.model/2", &m);
    const char *const newer[] = {"$.schema", "\"profkit.model/2\" is not one this profkit reads",
                                 NULL};
    expect_error(bad, m, PK_ERR_UNSUPPORTED, newer);
    free(bad);
    bad = edited(json, "\"modules\"", "\"path\": \"/usr", "\"path\" \"/usr", &m);
    EXPECT(bad, m, "$.modules[0]", "not valid JSON");
    free(bad);
    char *tail = malloc(n + 8);
    memcpy(tail, json, n), memcpy(tail + n, " {}", 4);
    EXPECT(tail, n + 3, "not valid JSON");
    free(tail);
    EXPECT("[1, 2]", 6, "not a JSON object");
    free(json);
}

/* Non-finite values, which JSON numbers cannot hold, and a NaN payload. */
static void test_special_values(void **state)
{
    (void)state;
    size_t n, m, m2;
    char *json = cg_json(&n);
    char *a = edited(json, "\"locations\"", "\n    [2, 0, 107", "\n    [2, 0, \"-Infinity\"", &m);
    char *b = edited(a, "\"locations\"", "\n    [3, 0, 100",
                     "\n    [3, 0, \"NaN:0x7ff0000000000123\"", &m2);
    pk_profile *p;
    if (open_bytes(b, m2, &p)) fail_msg("%s", pk_error_last());
    pk_cursor c;
    pk_value v;
    int inf = 0, nan = 0;
    pk_location_values_begin(p, 0, &c);
    while (pk_cursor_next(&c, &v)) {
        uint64_t bits;
        memcpy(&bits, &v.value, sizeof bits);
        inf += isinf(v.value) && v.value < 0;
        nan += bits == 0x7ff0000000000123ull;
    }
    assert_int_equal(inf, 1);
    assert_int_equal(nan, 1);
    char out[128];
    snprintf(out, sizeof out, "%s/special.json", g_tmp);
    pk_write_options o = {.flags = PK_WRITE_FORCE};
    assert_int_equal(pk_profile_write(p, PK_FORMAT_JSON, out, &o, NULL), PK_OK);
    pk_profile *q;
    assert_int_equal(pk_profile_open(out, NULL, &q), PK_OK);
    tu_assert_same_model(p, q, "special values");
    pk_profile_free(p), pk_profile_free(q);
    free(json), free(a), free(b);
}

/* A name that is not UTF-8 (a Latin-1 source) is kept byte for byte. */
static void test_latin1_names(void **state)
{
    (void)state;
    size_t n, m;
    char *json = cg_json(&n);
    char *bad = edited(json, "\"functions\"", "\"main\"", "\"m\xe9in\"", &m);
    pk_profile *p, *q;
    if (open_bytes(bad, m, &p)) fail_msg("%s", pk_error_last());
    pk_function f;
    assert_int_equal(pk_function_get(p, 0, &f), PK_OK);
    assert_string_equal(f.name, "m\xe9in");
    char out[128];
    snprintf(out, sizeof out, "%s/latin1.json", g_tmp);
    pk_write_options o = {.flags = PK_WRITE_FORCE};
    assert_int_equal(pk_profile_write(p, PK_FORMAT_JSON, out, &o, NULL), PK_OK);
    assert_int_equal(pk_profile_open(out, NULL, &q), PK_OK);
    tu_assert_same_model(p, q, "latin-1 name");
    pk_profile_free(p), pk_profile_free(q);
    free(json), free(bad);
}

static void test_random_damage(void **state)
{
    (void)state;
    size_t n;
    char *json = cg_json(&n);
    char *bad = malloc(n);
    uint64_t x = 88172645463325252ull;
    static const char junk[] = "0123456789\"{}[],:-.eE nul\\\x01\xff";
    size_t opened = 0;
    for (int round = 0; round < 4000; round++) {
        memcpy(bad, json, n);
        for (int k = 0; k < 1 + round % 3; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            bad[x % n] = junk[(x >> 32) % (sizeof junk - 1)];
        }
        pk_profile *p;
        if (open_bytes(bad, n, &p) == PK_OK) {
            tu_exercise(p, 1);
            pk_profile_free(p);
            opened++;
        } else if (strncmp(pk_error_last(), "sample.json: byte ", 18) != 0) {
            fail_msg("error without file and offset: %s", pk_error_last());
        }
    }
    printf("random damage: %zu of 4000 still opened (harmless changes)\n", opened);
    free(bad), free(json);
}

static void test_detection(void **state)
{
    (void)state;
    char path[128];
    pk_profile *p;
    snprintf(path, sizeof path, "%s/other.json", g_tmp);
    assert_int_equal(
        tu_write_text(path,
                      "{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\"}"),
        0);
    assert_int_equal(pk_profile_open(path, NULL, &p), PK_ERR_UNKNOWN_FORMAT);
    assert_int_equal(tu_write_text(path, "{\"schema\": \"profkit.threads/1\", \"locations\": []}"),
                     0);
    assert_int_equal(pk_profile_open(path, NULL, &p), PK_ERR_UNKNOWN_FORMAT);
    assert_int_equal(tu_write_text(path, "\xef\xbb\xbf {\n \"schema\" : \"profkit.model/1\"}"), 0);
    assert_int_equal(pk_profile_open(path, NULL, &p), PK_ERR_FORMAT);
    assert_non_null(strstr(pk_error_last(), "has no \"profile\" member"));
    snprintf(path, sizeof path, "%s/model.txt", g_tmp); /* the name does not matter */
    size_t n;
    char *json = cg_json(&n);
    assert_int_equal(tu_write_text(path, json), 0);
    assert_int_equal(pk_profile_open(path, NULL, &p), PK_OK);
    pk_profile_info info;
    pk_profile_get_info(p, &info);
    assert_int_equal(info.format, PK_FORMAT_JSON);
    assert_string_equal(info.format_name, "json");
    assert_true(info.reconstructed);
    pk_profile_free(p);
    free(json);
}

int main(void)
{
    snprintf(g_tmp, sizeof g_tmp, "/tmp/pk-json-damage-XXXXXX");
    if (!mkdtemp(g_tmp)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_back),        cmocka_unit_test(test_every_prefix),
        cmocka_unit_test(test_wrong_types),       cmocka_unit_test(test_references),
        cmocka_unit_test(test_cube_attributes),   cmocka_unit_test(test_structure),
        cmocka_unit_test(test_schema_and_syntax), cmocka_unit_test(test_special_values),
        cmocka_unit_test(test_latin1_names),      cmocka_unit_test(test_random_damage),
        cmocka_unit_test(test_detection),         cmocka_unit_test(test_fuzz_regressions),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tu_remove_tree(g_tmp);
    return rc;
}
