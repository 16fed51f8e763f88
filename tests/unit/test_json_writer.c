/*
 * tests/unit/test_json_writer.c — the JSON writer behind every --json
 * output: the grammar it keeps (a misuse writes nothing more and is
 * reported, never a wrong document), nesting without a limit, the one
 * string rule (UTF-8 repaired by maximal subparts, control characters
 * escaped), numbers, whole long strings, and stream errors.
 */
#define _POSIX_C_SOURCE 200809L

#include "support/pk_cmocka.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profkit/profkit.h"

typedef struct sink {
    FILE *f;
    char *text;
    size_t len;
    pk_json j;
} sink;

static void open_sink(sink *s, int pretty)
{
    s->text = NULL, s->len = 0;
    s->f = open_memstream(&s->text, &s->len);
    assert_non_null(s->f);
    assert_int_equal(pk_json_init(&s->j, s->f, pretty), PK_OK);
}

/* Finish the document; returns the finish status, s->text the output. */
static pk_status close_sink(sink *s)
{
    pk_status st = pk_json_finish(&s->j);
    fclose(s->f);
    return st;
}

static char *string_json(const char *in)
{
    sink s;
    open_sink(&s, 0);
    pk_json_string(&s.j, in);
    assert_int_equal(close_sink(&s), PK_OK);
    return s.text;
}

static void strings_follow_one_rule(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"plain", "\"plain\"\n"},
        {"q\"b\\s/", "\"q\\\"b\\\\s/\"\n"},
        {"\n\t\r\b\f\x01\x1b[31m\x7f", "\"\\n\\t\\r\\b\\f\\u0001\\u001b[31m\\u007f\"\n"},
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
         "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"\n"},
        {"\xc2\x9b"
         "2J",
         "\"\\u009b2J\"\n"}, /* C1 CSI */
        {"a\xe2\x80\xa8"
         "b\xe2\x80\xa9",
         "\"a\\u2028b\\u2029\"\n"},                                     /* line separators */
        {"caf\xe9", "\"caf\xef\xbf\xbd\"\n"},                           /* Latin-1 */
        {"\xc0\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\"\n"},                 /* overlong lead */
        {"\xe0\x80\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"\n"}, /* overlong */
        {"\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"\n"}, /* surrogate */
        {"\xf4\x90\x80\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"\n"},
        {"\xe2\x82"
         "a",
         "\"\xef\xbf\xbd"
         "a\"\n"},                                /* cut 3-byte: one U+FFFD */
        {"x\xf0\x9f\x98", "\"x\xef\xbf\xbd\"\n"}, /* cut at the end */
        {"\xf0\x9f\x98\xf0\x9f\x98\x80", "\"\xef\xbf\xbd\xf0\x9f\x98\x80\"\n"},
        {"\x80\xbf", "\"\xef\xbf\xbd\xef\xbf\xbd\"\n"}, /* stray continuations */
        {"\xff\xfe", "\"\xef\xbf\xbd\xef\xbf\xbd\"\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out = string_json(cases[i].in);
        if (strcmp(out, cases[i].out) != 0) fail_msg("case %zu: got %s", i, out);
        free(out);
    }
}

static void numbers_are_json_numbers(void **state)
{
    (void)state;
    sink s;
    open_sink(&s, 0);
    pk_json_array_begin(&s.j);
    pk_json_double(&s.j, NAN);
    pk_json_double(&s.j, INFINITY);
    pk_json_double(&s.j, -INFINITY);
    pk_json_double(&s.j, -0.0);
    pk_json_double(&s.j, 1e300);
    pk_json_double(&s.j, 0.1);
    pk_json_int(&s.j, INT64_MIN);
    pk_json_uint(&s.j, UINT64_MAX);
    pk_json_array_end(&s.j);
    assert_int_equal(close_sink(&s), PK_OK);
    assert_string_equal(s.text, "[null,null,null,-0,1e+300,0.1,-9223372036854775808,"
                                "18446744073709551615]\n");
    free(s.text);
}

/* Each misuse leaves what came before it and nothing after, and finish
 * names it. */
static void misuse_writes_nothing_more(void **state)
{
    (void)state;
    enum { VALUE_NO_KEY, KEY_IN_ARRAY, KEY_AFTER_KEY, WRONG_END, OPEN_AT_END, TWO_VALUES, EMPTY };
    static const char *const before[] = {"{", "[", "{\"a\":", "[", "{\"a\":[", "1", ""};
    for (int m = VALUE_NO_KEY; m <= EMPTY; m++) {
        sink s;
        open_sink(&s, 0);
        pk_json *j = &s.j;
        pk_status st = PK_OK;
        if (m == VALUE_NO_KEY) pk_json_object_begin(j), st = pk_json_uint(j, 1);
        if (m == KEY_IN_ARRAY) pk_json_array_begin(j), st = pk_json_key(j, "a");
        if (m == KEY_AFTER_KEY)
            pk_json_object_begin(j), pk_json_key(j, "a"), st = pk_json_key(j, "b");
        if (m == WRONG_END) pk_json_array_begin(j), st = pk_json_object_end(j);
        if (m == OPEN_AT_END) pk_json_object_begin(j), pk_json_key(j, "a"), pk_json_array_begin(j);
        if (m == TWO_VALUES) pk_json_uint(j, 1), st = pk_json_uint(j, 2);
        if (m != OPEN_AT_END && m != EMPTY) {
            assert_int_equal(st, PK_ERR_INVALID_ARG);
            /* nothing after the error */
            assert_int_equal(pk_json_null(j), PK_ERR_INVALID_ARG);
            pk_json_string(j, "more");
            pk_json_array_end(j);
            pk_json_object_end(j);
        }
        assert_int_equal(close_sink(&s), PK_ERR_INVALID_ARG);
        assert_string_equal(s.text, before[m]);
        assert_non_null(strstr(pk_error_last(), "incomplete"));
        free(s.text);
    }
}

/* The "hidden" member after a deep "root": separators are the writer's. */
static void deep_nesting_has_no_limit(void **state)
{
    (void)state;
    enum { DEPTH = 100000 };
    sink s;
    open_sink(&s, 1);
    pk_json_object_begin(&s.j);
    pk_json_key(&s.j, "root");
    for (int i = 0; i < DEPTH; i++)
        pk_json_object_begin(&s.j), pk_json_key(&s.j, "c"), pk_json_array_begin(&s.j);
    for (int i = 0; i < DEPTH; i++)
        pk_json_array_end(&s.j), pk_json_object_end(&s.j);
    pk_json_key(&s.j, "hidden");
    pk_json_uint(&s.j, 4132);
    pk_json_object_end(&s.j);
    assert_int_equal(close_sink(&s), PK_OK);
    assert_non_null(strstr(s.text, "},\n  \"hidden\": 4132\n}\n"));
    /* indentation stops growing: the text stays linear in the depth */
    size_t longest = 0, run = 0;
    for (const char *c = s.text; *c; c++)
        run = *c == '\n' ? 0 : run + 1, longest = run > longest ? run : longest;
    assert_true(longest <= 2 * PK_JSON_INDENT_LEVELS + 16);
    assert_true(s.len < (size_t)DEPTH * 4 * (2 * PK_JSON_INDENT_LEVELS + 16)); /* 4 lines a level */
    free(s.text);
}

static size_t long_name(void *user, char *buf, size_t size)
{
    size_t n = *(size_t *)user;
    for (size_t i = 0; i + 1 < size && i < n; i++)
        buf[i] = (char)('a' + i % 26);
    buf[n < size ? n : size - 1] = 0;
    return n;
}

static void long_strings_are_whole(void **state)
{
    (void)state;
    size_t n = 100000;
    sink s;
    open_sink(&s, 0);
    assert_int_equal(pk_json_string_fn(&s.j, long_name, &n), PK_OK);
    assert_int_equal(close_sink(&s), PK_OK);
    assert_int_equal(s.len, n + 3);
    assert_int_equal(s.text[n], 'a' + (n - 1) % 26);
    free(s.text);
}

static void lines_are_documents_each(void **state)
{
    (void)state;
    sink s;
    open_sink(&s, 1);
    for (int i = 0; i < 2; i++) {
        pk_json_object_begin(&s.j);
        pk_json_key(&s.j, "i");
        pk_json_int(&s.j, i);
        pk_json_object_end(&s.j);
        assert_int_equal(pk_json_finish(&s.j), PK_OK);
    }
    pk_json_array_begin(&s.j);
    pk_json_array_end(&s.j);
    assert_int_equal(close_sink(&s), PK_OK);
    assert_string_equal(s.text, "{\n  \"i\": 0\n}\n{\n  \"i\": 1\n}\n[]\n");
    free(s.text);
}

static void stream_errors_are_reported(void **state)
{
    (void)state;
    FILE *f = fopen("/dev/full", "w");
    if (!f) skip();
    setvbuf(f, NULL, _IONBF, 0);
    pk_json j;
    pk_json_init(&j, f, 0);
    pk_json_string(&j, "lost");
    assert_int_equal(pk_json_finish(&j), PK_ERR_IO);
    fclose(f);
    assert_int_equal(pk_json_init(&j, NULL, 0), PK_ERR_INVALID_ARG);
    assert_int_equal(pk_json_finish(&j), PK_ERR_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strings_follow_one_rule),    cmocka_unit_test(numbers_are_json_numbers),
        cmocka_unit_test(misuse_writes_nothing_more), cmocka_unit_test(deep_nesting_has_no_limit),
        cmocka_unit_test(long_strings_are_whole),     cmocka_unit_test(lines_are_documents_each),
        cmocka_unit_test(stream_errors_are_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
