/*
 * tests/unit/test_util.c — the small building blocks: arena, interner,
 * id set, JSON writer, number formatting, error messages.
 */
#define _POSIX_C_SOURCE 200809L

#include "support/pk_cmocka.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profkit/profkit.h"
#include "util/arena.h"
#include "util/bigsize.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/hugebuf.h"
#include "util/idset.h"
#include "util/intern.h"
#include "util/radix.h"
#include "util/sort.h"
#include "util/vec.h"

static void arena_gives_zeroed_aligned_memory(void **state)
{
    (void)state;
    pk_arena a;
    pk_arena_init(&a);
    for (size_t size = 1; size < 100000; size = size * 3 + 1) {
        unsigned char *p = pk_arena_alloc(&a, size);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 16, 0);
        for (size_t i = 0; i < size; i++)
            assert_int_equal(p[i], 0);
        memset(p, 0xab, size);
    }
    assert_null(pk_arena_array(&a, SIZE_MAX / 2, 4)); /* overflow refused */
    char *s = pk_arena_strndup(&a, "hello world", 5);
    assert_string_equal(s, "hello");
    pk_arena_free(&a);
}

static void interner_returns_one_copy_per_string(void **state)
{
    (void)state;
    pk_arena a;
    pk_interner in;
    pk_arena_init(&a);
    pk_intern_init(&in, &a);
    const char *x = pk_intern_cstr(&in, "main");
    char buf[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(buf, sizeof buf, "f%d", i);
        assert_non_null(pk_intern_cstr(&in, buf));
    }
    assert_ptr_equal(x, pk_intern_cstr(&in, "main"));
    assert_ptr_equal(pk_intern(&in, "mainly", 4), x);
    assert_ptr_not_equal(pk_intern_cstr(&in, "f1"), pk_intern_cstr(&in, "f10"));
    assert_int_equal(in.count, 5001);
    assert_null(pk_intern_cstr(&in, NULL));
    pk_intern_free(&in);
    pk_arena_free(&a);
}

static void idset_collects_distinct_ids_sorted(void **state)
{
    (void)state;
    pk_idset s = {0};
    for (uint64_t i = 0; i < 1000; i++)
        assert_int_equal(pk_idset_add(&s, (i * 7919) % 500), 0);
    assert_int_equal(s.count, 500);
    assert_true(pk_idset_has(&s, 0));
    assert_false(pk_idset_has(&s, 500));
    uint64_t *ids = pk_idset_sorted(&s);
    for (uint64_t i = 0; i < 500; i++)
        assert_int_equal(ids[i], i);
    free(ids);
    assert_int_equal(pk_idset_add(&s, UINT64_MAX), -1);
    pk_idset_free(&s);
}

/* Capture what a writer produced. */
static char *capture(void (*fn)(FILE *))
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    fn(f);
    fclose(f);
    return out;
}

static void write_sample_json(FILE *f)
{
    pk_json j;
    pk_json_init(&j, f, 0);
    pk_json_object_begin(&j);
    pk_json_key(&j, "s");
    pk_json_string(&j, "a\"b\\c\n\x01");
    pk_json_key(&j, "n");
    pk_json_array_begin(&j);
    pk_json_double(&j, 0.1);
    pk_json_double(&j, NAN);
    pk_json_uint(&j, 18446744073709551615ull);
    pk_json_int(&j, -3);
    pk_json_bool(&j, 1);
    pk_json_null(&j);
    pk_json_array_end(&j);
    pk_json_key(&j, "e");
    pk_json_object_begin(&j);
    pk_json_object_end(&j);
    pk_json_object_end(&j);
    pk_json_finish(&j);
}

static void json_writer_escapes_and_separates(void **state)
{
    (void)state;
    char *out = capture(write_sample_json);
    assert_string_equal(out,
                        "{\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"n\":[0.1,null,18446744073709551615,"
                        "-3,true,null],\"e\":{}}\n");
    free(out);
}

static void doubles_print_shortest_exact(void **state)
{
    (void)state;
    char buf[40];
    const double samples[] = {0.20111400000000001, 1.210259, 1e300, -0.0, 5e-324, 1.0 / 3};
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        pk_format_double(buf, sizeof buf, samples[i]);
        assert_true(strtod(buf, NULL) == samples[i]);
    }
    pk_format_double(buf, sizeof buf, 1.210259);
    assert_string_equal(buf, "1.210259");
    pk_format_value(buf, sizeof buf, 0.60531600);
    assert_string_equal(buf, "0.6053");
    pk_format_value(buf, sizeof buf, 7.5e9);
    assert_string_equal(buf, "7.500G"); /* 7,500,000,000 is wider than 10 */
}

/* Numbers for people: grouping, no float noise, units that suit. */
static void numbers_read_like_a_person_writes_them(void **state)
{
    (void)state;
    char buf[64];
    pk_format_value(buf, sizeof buf, 7386555.99999999);
    assert_string_equal(buf, "7,386,556");
    pk_format_value(buf, sizeof buf, -1234.0);
    assert_string_equal(buf, "-1,234");
    pk_format_value(buf, sizeof buf, 999.96e3 * 1000);
    assert_string_equal(buf, "1.000G"); /* 999.96M to 4 digits: not "1000M" */
    pk_format_value(buf, sizeof buf, 26158368000.0);
    assert_string_equal(buf, "26.16G");
    pk_format_value(buf, sizeof buf, 3.025);
    assert_string_equal(buf, "3.025");
    pk_format_value(buf, sizeof buf, 2.0);
    assert_string_equal(buf, "2");
    pk_number_format nf;
    pk_metric usec = {.name = "CPUTIME (usec)"};
    assert_int_equal(pk_number_format_for(&usec, 26158368.0, &nf), PK_OK);
    assert_string_equal(nf.unit, "s");
    pk_format_number(buf, sizeof buf, 2616218.0, &nf);
    assert_string_equal(buf, "2.616");
    pk_metric ns = {.name = "time", .unit = "ns"};
    assert_int_equal(pk_number_format_for(&ns, 5e5, &nf), PK_OK);
    assert_string_equal(nf.unit, "us");
    pk_format_number(buf, sizeof buf, 5e5, &nf);
    assert_string_equal(buf, "500");
    pk_metric bytes = {.name = "mem", .unit = "bytes"};
    assert_int_equal(pk_number_format_for(&bytes, 1.3e10, &nf), PK_OK);
    assert_string_equal(nf.unit, "GiB");
    pk_format_number(buf, sizeof buf, 1.3e10, &nf);
    assert_string_equal(buf, "12.11");
    pk_metric billionths = {.name = "Ir", .unit = "1e-9"}; /* a Callgrind writer's scale */
    assert_int_equal(pk_number_format_for(&billionths, 2.5e9, &nf), PK_OK);
    assert_string_equal(nf.unit, "");
    pk_format_number(buf, sizeof buf, 2.5e9, &nf);
    assert_string_equal(buf, "2.5");
    pk_format_header(buf, sizeof buf, "inclusive", &(pk_number_format){1, "ms", 0, 0, 0});
    assert_string_equal(buf, "inclusive (ms)");
}

/* Derived metrics: precedence, names, quotes, x/0, errors that say where. */
static void expressions_evaluate_and_explain(void **state)
{
    (void)state;
    pk_expr *e;
    assert_int_equal(pk_expr_parse("(Ir - Dr) * 2 + -D1mr / Dr", &e), PK_OK);
    assert_int_equal(pk_expr_var_count(e), 3);
    assert_string_equal(pk_expr_var_name(e, 0), "Ir");
    assert_string_equal(pk_expr_var_name(e, 2), "D1mr");
    double v[] = {10, 4, 2};
    assert_true(pk_expr_eval(e, v) == 11.5);
    v[1] = 0;
    assert_true(isnan(pk_expr_eval(e, v))); /* x/0: no value */
    pk_expr_free(e);
    assert_int_equal(pk_expr_parse("cycles/\"CPUTIME (sec)\"", &e), PK_OK);
    assert_string_equal(pk_expr_var_name(e, 1), "CPUTIME (sec)");
    pk_expr_free(e);
    assert_int_equal(pk_expr_parse("D1mr/(Dr", &e), PK_ERR_INVALID_ARG);
    assert_non_null(strstr(pk_error_last(), "')' expected at character 9"));
    assert_int_equal(pk_expr_parse("Ir Dr", &e), PK_ERR_INVALID_ARG);
    assert_int_equal(pk_expr_parse("", &e), PK_ERR_INVALID_ARG);
    char deep[200];
    memset(deep, '(', 100), strcpy(deep + 100, "x");
    assert_int_equal(pk_expr_parse(deep, &e), PK_ERR_INVALID_ARG); /* bounded nesting */
    memset(deep, '-', 100);
    assert_int_equal(pk_expr_parse(deep, &e), PK_ERR_INVALID_ARG);
    assert_int_equal(pk_expr_parse("((x)", &e), PK_ERR_INVALID_ARG); /* fuzz: ran past the end */
}

/* Ill-formed UTF-8 becomes one U+FFFD per maximal subpart (as Python's
 * errors="replace"); well-formed text, control characters included, stays. */
static void buffers_write_strings_as_well_formed_utf8(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"plain \x01\x1b[31m \xc3\xa9", "plain \x01\x1b[31m \xc3\xa9"},
        {"bad\xffutf8", "bad\xef\xbf\xbdutf8"},
        {"cut\xe2\x82", "cut\xef\xbf\xbd"},                         /* one subpart */
        {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},                   /* overlong: two */
        {"\xed\xa0\x80x", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdx"}, /* surrogate */
        {"\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        pk_buf b = {0};
        pk_buf_zeros(&b, 3);
        size_t at = pk_buf_utf8_str(&b, cases[i].in);
        assert_false(b.failed);
        assert_int_equal(at, 3);
        assert_string_equal((const char *)b.data + at, cases[i].out);
        assert_int_equal(b.len, 3 + strlen(cases[i].out) + 1);
        pk_buf_free(&b);
    }
}

static void errors_are_per_call_messages(void **state)
{
    (void)state;
    assert_int_equal(pk_fail(PK_ERR_FORMAT, "x.db: %s at 0x%x", "thing", 16), PK_ERR_FORMAT);
    assert_string_equal(pk_error_last(), "x.db: thing at 0x10");
    pk_error_clear();
    assert_string_equal(pk_error_last(), "");
    assert_string_equal(pk_status_str(PK_ERR_NOMEM), "out of memory");
    pk_profile *p = NULL;
    assert_int_equal(pk_profile_open("/nonexistent/db", NULL, &p), PK_ERR_IO);
    assert_non_null(strstr(pk_error_last(), "/nonexistent/db"));
    assert_null(p);
}

/* libstdc++'s demangler, loaded on the first mangled name (util/dynlib.h):
 * decorations after the name stay, plain and malformed names pass as they
 * are, and a name longer than the buffer is cut, never overrun. */
static void cxx_names_demangle_on_first_use(void **state)
{
    (void)state;
    char buf[64];
    assert_int_equal(pk_name_demangle("_ZN3foo3barEv", buf, sizeof buf), strlen("foo::bar()"));
    assert_string_equal(buf, "foo::bar()");
    pk_name_demangle("_ZN3foo3barEv [libfoo.so]", buf, sizeof buf);
    assert_string_equal(buf, "foo::bar() [libfoo.so]");
    pk_name_demangle("main", buf, sizeof buf);
    assert_string_equal(buf, "main");
    pk_name_demangle("_Zgarbage", buf, sizeof buf);
    assert_string_equal(buf, "_Zgarbage");
    char small[6];
    assert_int_equal(pk_name_demangle("_ZN3foo3barEv", small, sizeof small), strlen("foo::bar()"));
    assert_string_equal(small, "foo::");
}

static int int_asc(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* pk_sort_first: the first k are the k smallest in order, every element
 * is kept; on random, sorted, reversed and all-equal input, and for k at
 * either end. pk_sort leaves sorted input alone and sorts the rest. */
static void sorts_only_what_is_asked(void **state)
{
    (void)state;
    enum { N = 5000 };
    int *a = malloc(N * sizeof *a), *ref = malloc(N * sizeof *ref);
    assert_non_null(a), assert_non_null(ref);
    unsigned seed = 12345;
    for (int shape = 0; shape < 4; shape++) {
        for (int i = 0; i < N; i++) {
            seed = seed * 1103515245u + 12345u;
            ref[i] = shape == 0 ? (int)(seed >> 8) % 1000 : shape == 1 ? i : shape == 2 ? N - i : 7;
        }
        const size_t ks[] = {0, 1, 2, 25, 600, N / 4 + 1, N - 1, N, N + 3};
        for (size_t t = 0; t < sizeof ks / sizeof *ks; t++) {
            memcpy(a, ref, N * sizeof *a);
            pk_sort_first(a, N, sizeof *a, ks[t], int_asc);
            size_t k = ks[t] == 0 || ks[t] > N ? N : ks[t];
            assert_true(pk_is_sorted(a, k, sizeof *a, int_asc));
            long sum = 0, want = 0;
            for (int i = 0; i < N; i++)
                sum += a[i], want += ref[i];
            assert_int_equal(sum, want);
            for (size_t i = k; i < N; i++)
                assert_true(a[i] >= a[k - 1]);
        }
    }
    memcpy(a, ref, N * sizeof *a);
    a[0] = 9, a[1] = 3;
    assert_false(pk_is_sorted(a, N, sizeof *a, int_asc));
    pk_sort(a, N, sizeof *a, int_asc);
    assert_true(pk_is_sorted(a, N, sizeof *a, int_asc));
    free(a), free(ref);
}

typedef struct tagged {
    int key, seq;
} tagged;

static int tagged_asc(const void *a, const void *b)
{
    return int_asc(&((const tagged *)a)->key, &((const tagged *)b)->key);
}

/* pk_sort_stable: in order, equal keys in their first order, nothing
 * lost; on random keys with many ties, on a few ordered runs (how shaped
 * HPCToolkit values come), on sorted and on reversed input, and at sizes
 * around run boundaries. */
static void sorts_stably(void **state)
{
    (void)state;
    enum { N = 3001 };
    tagged *a = malloc(N * sizeof *a);
    assert_non_null(a);
    unsigned seed = 777;
    const size_t sizes[] = {0, 1, 2, 3, 17, N};
    for (int shape = 0; shape < 4; shape++)
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
            size_t n = sizes[z];
            for (size_t i = 0; i < n; i++) {
                seed = seed * 1103515245u + 12345u;
                int k = shape == 0   ? (int)(seed >> 8) % 50
                        : shape == 1 ? (int)(i % 700) /* five ordered runs */
                        : shape == 2 ? (int)i
                                     : (int)(n - i);
                a[i] = (tagged){k, (int)i};
            }
            assert_int_equal(pk_sort_stable(a, n, sizeof *a, tagged_asc), 0);
            long sum = 0;
            for (size_t i = 0; i < n; i++) {
                sum += a[i].seq;
                if (i)
                    assert_true(a[i - 1].key < a[i].key ||
                                (a[i - 1].key == a[i].key && a[i - 1].seq < a[i].seq));
            }
            assert_int_equal(sum, n ? (long)n * ((long)n - 1) / 2 : 0);
        }
    free(a);
}

/* Big blocks are sized so that glibc's mapping of them (the block, 16
 * bytes of header, rounded to 4 KiB) is whole 2 MiB pages: growing arrays
 * never get less than they need, fixed blocks grow by 1/64 at most, and
 * small ones are left as they are. */
static int whole_huge(size_t bytes)
{
    size_t chunk = (bytes + 8 + 15) / 16 * 16;        /* glibc's request2size() */
    size_t mapped = (chunk + 8 + 4095) / 4096 * 4096; /* sysmalloc_mmap(): + header, pages */
    return mapped % PK_HUGE_PAGE == 0;
}

static void big_blocks_fill_whole_huge_pages(void **state)
{
    (void)state;
    size_t sizes[] = {1,
                      4096,
                      PK_HUGE_PAGE - 33,
                      PK_HUGE_PAGE - 32,
                      PK_HUGE_PAGE,
                      PK_HUGE_PAGE + 1,
                      3 * PK_HUGE_PAGE + 12345,
                      (size_t)100 << 20,
                      ((size_t)100 << 20) + 1,
                      ((size_t)1 << 30) - 7};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i], b = pk_big_bytes(n);
        assert_true(b >= n);
        if (n < PK_HUGE_PAGE) assert_int_equal(b, n);
        if (b != n) assert_true(whole_huge(b) && b - n <= n / 64);
        if (n >= ((size_t)128 << 20)) assert_true(whole_huge(b)); /* 2 MiB is <= 1/64 */
        size_t f = pk_big_floor(n);
        if (f) assert_true(f <= n && whole_huge(f) && n - f < PK_HUGE_PAGE);
        size_t c = pk_big_capacity(n / 2 + 1, n);
        assert_true(c >= n / 2 + 1 && c <= n);
    }
    /* a growing array: its capacity always holds what was asked */
    void *v = NULL;
    size_t cap = 0;
    for (size_t need = 1; need < ((size_t)40 << 20); need = need * 3 + 7) {
        assert_int_equal(pk_vec_reserve(&v, &cap, need, 8), 0);
        assert_true(cap >= need);
        /* whole huge pages, unless no such size lies between need and cap */
        if (cap * 8 >= PK_HUGE_PAGE)
            assert_true(whole_huge(cap * 8) || pk_big_floor(cap * 8) < need * 8);
    }
    free(v);
}

/* A huge-page buffer grows in whole huge pages and keeps what it holds. */
static void huge_buffers_grow_and_keep_their_bytes(void **state)
{
    (void)state;
    unsigned char *b = NULL;
    size_t cap = 0, filled = 0;
    for (size_t need = 1; need < ((size_t)9 << 20); need = need * 5 + 3) {
        assert_int_equal(pk_hugebuf_reserve((void **)&b, &cap, need), 0);
        assert_true(cap >= need && cap % PK_HUGE_PAGE == 0 && cap - need < PK_HUGE_PAGE);
        for (size_t i = 0; i < filled; i++)
            assert_int_equal(b[i], (unsigned char)(i * 131 >> 3));
        for (size_t i = filled; i < need; i++)
            b[i] = (unsigned char)(i * 131 >> 3);
        filled = need;
    }
    size_t before = cap;
    assert_int_equal(pk_hugebuf_reserve((void **)&b, &cap, 1), 0); /* never shrinks */
    assert_int_equal(cap, before);
    assert_int_equal(pk_hugebuf_reserve((void **)&b, &cap, SIZE_MAX), -1); /* no such size */
    assert_int_equal(cap, before);
    assert_int_equal(b[filled - 1], (unsigned char)((filled - 1) * 131 >> 3));
    pk_hugebuf_free(b, cap);
    pk_hugebuf_free(NULL, 0);
}

/* Keys shaped as the Callgrind line sorts make them (a file id above a
 * line number, many equal), and keys that differ only in their top byte:
 * ascending, equal keys in their first order, nothing lost. */
static void radix_sorts_keys_stably(void **state)
{
    (void)state;
    enum { N = 5000 };
    pk_radix_kv *a = malloc(2 * N * sizeof *a);
    assert_non_null(a);
    unsigned seed = 4242;
    for (int shape = 0; shape < 3; shape++) {
        for (size_t i = 0; i < N; i++) {
            seed = seed * 1103515245u + 12345u;
            uint64_t k = shape == 0   ? (uint64_t)(seed >> 8) % 300 << 32 | (seed >> 4) % 700
                         : shape == 1 ? (uint64_t)((seed >> 9) % 5) << 56
                                      : (uint64_t)7 << 40; /* one key: nothing to pass over */
            a[i] = (pk_radix_kv){k, i};
        }
        pk_radix_sort_kv(a, a + N, N);
        uint64_t sum = 0;
        for (size_t i = 0; i < N; i++) {
            sum += a[i].val;
            if (i)
                assert_true(a[i - 1].key < a[i].key ||
                            (a[i - 1].key == a[i].key && a[i - 1].val < a[i].val));
        }
        assert_int_equal(sum, (uint64_t)N * (N - 1) / 2);
    }
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arena_gives_zeroed_aligned_memory),
        cmocka_unit_test(interner_returns_one_copy_per_string),
        cmocka_unit_test(idset_collects_distinct_ids_sorted),
        cmocka_unit_test(json_writer_escapes_and_separates),
        cmocka_unit_test(doubles_print_shortest_exact),
        cmocka_unit_test(numbers_read_like_a_person_writes_them),
        cmocka_unit_test(expressions_evaluate_and_explain),
        cmocka_unit_test(buffers_write_strings_as_well_formed_utf8),
        cmocka_unit_test(errors_are_per_call_messages),
        cmocka_unit_test(cxx_names_demangle_on_first_use),
        cmocka_unit_test(sorts_only_what_is_asked),
        cmocka_unit_test(sorts_stably),
        cmocka_unit_test(radix_sorts_keys_stably),
        cmocka_unit_test(big_blocks_fill_whole_huge_pages),
        cmocka_unit_test(huge_buffers_grow_and_keep_their_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
