/*
 * tests/unit/test_pattern.c — user regular expressions (util/pattern.c,
 * issue 32): the same answers as glibc's regcomp(REG_EXTENDED) for what
 * both accept, the same refusals of bad syntax, and bounded time and
 * memory for what glibc could not bound: nested repetitions, references,
 * long names, a time limit over many matches. Run under an address-space
 * limit (not under ASan, which cannot run with one).
 */
#define _POSIX_C_SOURCE 200809L

#include "support/pk_cmocka.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "profkit/pattern.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static const char *const patterns[] = {
    "main", "^main$", "ma+in", "m.*n", "^(solve|dot)$", "a|b|", "(|x)y", "std::vector<.*>",
    "operator\\[\\]", "x\\(", "a{2}", "a{2,}", "a{,2}b", "a{1,3}$", "(ab){2}", "a**", "a+*",
    "a{2}{2}", "[]a]", "[^]a]", "[a-]", "[-a]", "[\\]", "[[:alpha:]]+::", "[[:digit:][:upper:]]",
    "[[=a=]]", "[[.-.]]", "\\w+", "\\W", "\\s", "\\bdot\\b", "\\Bo", "\\<sol", "ve\\>", "\\`main",
    "main\\'", "\\.", "a\\{", ")", "a)", "()", "(^a)", "a^", "$a", "[.]", ".", "\xc3\xa9t\xc3\xa9",
    "[\x80-\xff]", "x?y+z*", "(a|b)*c", "A", "[A-Z]", "^$",
    /* syntax errors: both refuse */
    "*a", "a|*b", "^*", "{1}", "a{3", "a{x", "a{x}", "a{2,1}", "[a", "[]", "[z-a]", "[[:foo:]]",
    "[[.ab.]]", "\\", "(", "[[:alpha:]-z]"};

static const char *const subjects[] = {"main",       "solve",  "dot",
                                       "",           "aa",     "aab",
                                       "ab",         "abab",   "]",
                                       "-",          "\\",     "std::vector<int>::push_back",
                                       "operator[]", "x(",     "a{",
                                       ")",          "MAIN",   "y",
                                       "x\ny",       "main\n", "\xc3\xa9t\xc3\xa9",
                                       "a.b",        "n",      "foo::bar1 baz",
                                       "resolve",    "c"};

static void compare(const char *pat, unsigned flags)
{
    regex_t g;
    int gflags = REG_EXTENDED | REG_NOSUB | (flags & PK_PATTERN_ICASE ? REG_ICASE : 0);
    int glibc_ok = regcomp(&g, pat, gflags) == 0;
    pk_pattern *re = NULL;
    pk_status st = pk_pattern_compile(pat, flags, &re);
    if (glibc_ok != (st == PK_OK))
        fail_msg("'%s': glibc %s it, profkit %s (%s)", pat, glibc_ok ? "accepts" : "refuses",
                 st == PK_OK ? "accepts" : "refuses", pk_error_last());
    if (!glibc_ok) {
        assert_int_equal(st, PK_ERR_INVALID_ARG);
        assert_non_null(strstr(pk_error_last(), pat));
        return;
    }
    for (size_t i = 0; i < sizeof subjects / sizeof *subjects; i++) {
        int want = regexec(&g, subjects[i], 0, NULL, 0) == 0, got = -1;
        assert_int_equal(pk_pattern_match(re, subjects[i], strlen(subjects[i]), &got), PK_OK);
        if (want != got)
            fail_msg("'%s' on '%s': glibc %d, profkit %d", pat, subjects[i], want, got);
    }
    regfree(&g);
    pk_pattern_free(re);
}

static void matches_as_glibc_does(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof patterns / sizeof *patterns; i++) {
        compare(patterns[i], 0);
        compare(patterns[i], PK_PATTERN_ICASE);
    }
}

/* 22 bytes that glibc expanded to 3.9 GB in 35 s. */
static void nested_repetitions_are_refused_at_once(void **state)
{
    (void)state;
    static const char *const big[] = {"(a{1,32767}){1,32767}", "((a{1,1000}){1,1000}){1,1000}",
                                      "((a|b){1,100}){1,100}",
                                      "(((((x{0,99}){0,99}){0,99}){0,99}))"};
    for (size_t i = 0; i < sizeof big / sizeof *big; i++) {
        pk_pattern *re = NULL;
        double t0 = now();
        assert_int_equal(pk_pattern_compile(big[i], 0, &re), PK_ERR_INVALID_ARG);
        assert_true(now() - t0 < 1.0);
        assert_null(re);
        assert_non_null(strstr(pk_error_last(), "too big"));
    }
    pk_pattern *re = NULL; /* what honest patterns use is far below the limit */
    assert_int_equal(pk_pattern_compile("^(std::)?(vector|map)<[^>]{1,200}>::(at|find)$", 0, &re),
                     PK_OK);
    pk_pattern_free(re);
}

static void references_and_long_patterns_are_refused(void **state)
{
    (void)state;
    static const char *const refs[] = {"(a*)*\\1", "(.*)\\1", "^(.+)(.+)\\2\\1$", "\\9"};
    for (size_t i = 0; i < sizeof refs / sizeof *refs; i++) {
        pk_pattern *re = NULL;
        assert_int_equal(pk_pattern_compile(refs[i], 0, &re), PK_ERR_INVALID_ARG);
        assert_non_null(strstr(pk_error_last(), "backreferences"));
    }
    char *long_pat = malloc(PK_PATTERN_MAX_LENGTH + 2);
    memset(long_pat, 'a', PK_PATTERN_MAX_LENGTH + 1);
    long_pat[PK_PATTERN_MAX_LENGTH + 1] = 0;
    pk_pattern *re = NULL;
    assert_int_equal(pk_pattern_compile(long_pat, 0, &re), PK_ERR_INVALID_ARG);
    long_pat[PK_PATTERN_MAX_LENGTH] = 0; /* at the limit: fine */
    assert_int_equal(pk_pattern_compile(long_pat, 0, &re), PK_OK);
    pk_pattern_free(re);
    free(long_pat);
}

/* A 1 MB C++ name and patterns that make backtracking engines
 * exponential or quadratic: linear here. */
static void long_names_match_in_linear_time(void **state)
{
    (void)state;
    size_t n = 1u << 20;
    char *name = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        name[i] = "std::vector<std::map<int, a>>"[i % 29];
    memcpy(name, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 40);
    name[n] = 0;
    static const char *const hard[] = {"(a|aa)*b", "(a*)*b",          "(.*)(.*)(.*)(.*)(.*)x$",
                                       "^(a+)+$",  "([a-z:<>, ]*)*;", "\\<(std::)*map\\>z"};
    for (size_t i = 0; i < sizeof hard / sizeof *hard; i++) {
        pk_pattern *re = NULL;
        assert_int_equal(pk_pattern_compile(hard[i], 0, &re), PK_OK);
        double t0 = now();
        int hit = -1;
        assert_int_equal(pk_pattern_match(re, name, n, &hit), PK_OK);
        assert_int_equal(hit, 0);
        double took = now() - t0;
        if (took > 3.0) fail_msg("'%s' on a 1 MB name took %.2f s", hard[i], took);
        pk_pattern_free(re);
    }
    free(name);
}

/* The time limit covers all matches of one compiled pattern together. */
static void the_time_limit_ends_a_long_question(void **state)
{
    (void)state;
    size_t n = 64 << 10;
    char *name = malloc(n + 1);
    memset(name, 'a', n);
    name[n] = 0;
    pk_pattern *re = NULL;
    assert_int_equal(pk_pattern_compile("(a|a?a)*(a|aa)*(a|a{2}){1,20}b", 0, &re), PK_OK);
    pk_pattern_set_time_limit(re, 0.2);
    double t0 = now();
    pk_status st = PK_OK;
    int hit;
    for (int i = 0; i < 1000000 && !st; i++)
        st = pk_pattern_match(re, name, n, &hit);
    assert_int_equal(st, PK_ERR_LIMIT);
    assert_non_null(strstr(pk_error_last(), "took more than"));
    assert_true(now() - t0 < 5.0);
    assert_int_equal(pk_pattern_match(re, "ab", 2, &hit), PK_ERR_LIMIT); /* stays expired */
    pk_pattern_set_time_limit(re, 0);                                    /* none: works again */
    assert_int_equal(pk_pattern_match(re, "ab", 2, &hit), PK_OK);
    assert_int_equal(hit, 1);
    pk_pattern_free(re);
    free(name);
}

int main(void)
{
#if !defined(__SANITIZE_ADDRESS__)
    struct rlimit rl = {512u << 20, 512u << 20}; /* glibc needed 3.9 GB for one of these */
    setrlimit(RLIMIT_AS, &rl);
#endif
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matches_as_glibc_does),
        cmocka_unit_test(nested_repetitions_are_refused_at_once),
        cmocka_unit_test(references_and_long_patterns_are_refused),
        cmocka_unit_test(long_names_match_in_linear_time),
        cmocka_unit_test(the_time_limit_ends_a_long_question),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
