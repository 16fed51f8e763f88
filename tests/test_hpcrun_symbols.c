/*
 * tests/test_hpcrun_symbols.c — frames of an hpcrun measurement resolved
 * from the binaries its loadmap names (libdw).
 *
 * The test writes a small 04.00 measurement of two threads whose loadmap
 * names this very test program and whose CCT holds two addresses inside
 * it (in probe_caller and probe_target, found at run time from the
 * program's load address), then opens the directory: the contexts must
 * name those functions, this source file and their lines, each function
 * once, with both threads' values at its instruction; with PK_OPEN_NO_SYMBOLS
 * they stay "module+0xoffset". Then again through a copy of the program
 * without .debug_aranges, as clang writes binaries. Skipped when the
 * library was built without libdw (it then reports no "symbols" note).
 */
#define _GNU_SOURCE
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "profkit/profkit.h"
#include "support/testutil.h"

int probe_target(int x);
int probe_caller(int x);

enum { TARGET_LINE = __LINE__ + 1 };
__attribute__((noinline, used)) int probe_target(int x)
{
    return x * 3 + 1;
}

enum { CALLER_LINE = __LINE__ + 1 };
__attribute__((noinline, used)) int probe_caller(int x)
{
    return probe_target(x) + 2;
}

/* ---- a minimal .hpcrun 04.00 writer (big-endian, sections at 1 KiB) ---- */

typedef struct wb {
    unsigned char d[8192];
    size_t n;
} wb;

static void put(wb *b, uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--)
        b->d[b->n++] = (unsigned char)(v >> (8 * i));
}
static void put_str(wb *b, const char *s)
{
    put(b, strlen(s), 4);
    memcpy(b->d + b->n, s, strlen(s));
    b->n += strlen(s);
}
static void align(wb *b)
{
    while (b->n % 1024)
        b->d[b->n++] = 0;
}

static void node(wb *b, uint32_t id, uint32_t parent, uint16_t lm, uint64_t ip)
{
    put(b, id, 4), put(b, parent, 4), put(b, lm, 2), put(b, ip, 8), put(b, 1, 1);
}

/* A thread's measurement: main fence -> caller -> target, 0.5 s at the
 * target. */
static size_t write_hpcrun(wb *b, const char *module, uint64_t caller, uint64_t target,
                           unsigned thread)
{
    static const char *const kinds[] = {"SUMMARY", "NODE", "RANK", "THREAD"};
    uint64_t at[12];
    b->n = 0;
    at[0] = b->n;
    memcpy(b->d, "HPCRUN-profile____04.00b", 24), b->n = 24;
    put(b, 1, 4), put_str(b, "program-name"), put_str(b, "probe");
    at[1] = b->n, align(b), at[2] = b->n;
    put(b, 1, 4), put(b, 1, 2), put_str(b, module), put(b, 1, 8);
    at[3] = b->n, align(b), at[4] = b->n;
    put(b, 4, 8);
    node(b, 12, 0, 0, 0x5e5072696d617279ull);  /* ^Primary */
    node(b, 14, 12, 0, 0x7c204d61696e2020ull); /* | Main */
    node(b, 16, 14, 1, caller);
    node(b, 18, 16, 1, target);
    at[5] = b->n, align(b), at[6] = b->n;
    static const unsigned char flags[16] = {1, 0, 2, 0, 0, 0, 1, 1};
    put(b, 1, 4), put_str(b, "CPUTIME (sec)"), put_str(b, "CPUTIME (sec)");
    memcpy(b->d + b->n, flags, 16), b->n += 16;
    put(b, 1, 8), put_str(b, ""), put_str(b, ""), put(b, 0, 2), put(b, 0, 2), put(b, 0, 8);
    put(b, 0, 8);
    at[7] = b->n, align(b), at[8] = b->n;
    put(b, 4, 2);
    for (int k = 0; k < 4; k++)
        put(b, (uint64_t)k, 2), put_str(b, kinds[k]);
    at[9] = b->n, align(b), at[10] = b->n;
    put(b, 1, 2), put(b, 0xC003, 2), put(b, thread, 8), put(b, thread, 8); /* THREAD */
    double half = 0.5;
    uint64_t bits;
    memcpy(&bits, &half, 8);
    put(b, 1, 8), put(b, 1, 4), put(b, bits, 8), put(b, 0, 2);
    put(b, 18, 4), put(b, 0, 8), put(b, 0x656E6421, 4), put(b, 1, 8);
    at[11] = b->n, align(b);
    uint64_t footer = b->n;
    for (int k = 0; k < 12; k++)
        put(b, at[k], 8);
    put(b, footer, 8), put(b, 0x48504352554E736Dull, 8);
    return b->n;
}

static int main_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(uintptr_t *)data = info->dlpi_addr;
    return 1; /* the first object is the program itself */
}

static pk_index find_function_ctx(const pk_profile *p, const char *name)
{
    for (size_t i = 0; i < pk_context_count(p); i++) {
        pk_context c;
        pk_function f;
        pk_context_get(p, (pk_index)i, &c);
        if (c.kind == PK_CTX_FUNCTION && c.function != PK_NONE &&
            pk_function_get(p, c.function, &f) == PK_OK && f.name && strcmp(f.name, name) == 0)
            return (pk_index)i;
    }
    return PK_NONE;
}

/* How many contexts are those of function `name`. */
static size_t count_function_ctx(const pk_profile *p, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < pk_context_count(p); i++) {
        pk_context c;
        pk_function f;
        pk_context_get(p, (pk_index)i, &c);
        n += c.kind == PK_CTX_FUNCTION && c.function != PK_NONE &&
             pk_function_get(p, c.function, &f) == PK_OK && f.name && strcmp(f.name, name) == 0;
    }
    return n;
}

/* The function's one context (both threads' frames merged into it). */
static void check_function(const pk_profile *p, const char *name, uint32_t line)
{
    pk_index i = find_function_ctx(p, name);
    if (i == PK_NONE) fail_msg("no context of function %s", name);
    assert_int_equal(count_function_ctx(p, name), 1);
    pk_context c;
    pk_function f;
    pk_file file;
    pk_context_get(p, i, &c);
    pk_function_get(p, c.function, &f);
    assert_int_equal(f.line, line);
    assert_int_equal(pk_file_get(p, f.file, &file), PK_OK);
    assert_non_null(strstr(file.path, "test_hpcrun_symbols.c"));
    /* below it: the source line, then the instruction */
    assert_int_equal(c.n_children, 1);
    pk_context l;
    pk_context_get(p, c.first_child, &l);
    assert_int_equal(l.kind, PK_CTX_LINE);
    assert_in_range(l.line, line, line + 3);
    print_message("%s defined at line %u, sampled at line %u\n", name, f.line, l.line);
}

/* The locations with values at the instruction below function `name`'s
 * line: both threads', when the second thread's frame took the first's
 * contexts. */
static size_t locations_at_point(const pk_profile *p, const char *name)
{
    pk_context c, line;
    pk_context_get(p, find_function_ctx(p, name), &c);
    pk_context_get(p, c.first_child, &line);
    assert_int_equal(line.n_children, 1);
    pk_cursor cur;
    pk_value v;
    uint64_t seen = 0;
    assert_int_equal(pk_context_values_begin(p, line.first_child, &cur), PK_OK);
    while (pk_cursor_next(&cur, &v)) {
        pk_location loc;
        assert_int_equal(pk_location_get(p, v.location, &loc), PK_OK);
        if (!loc.is_summary && v.location < 64) seen |= 1ull << v.location;
    }
    return (size_t)__builtin_popcountll(seen);
}

/* Resolves the probes through the binary `exe` (this program or a copy). */
static void resolve_through(const char *exe)
{
    char dir[64] = "/tmp/pk-sym-XXXXXX", path[4200];
    uintptr_t base = 0;
    dl_iterate_phdr(main_object, &base);
    uint64_t caller = (uintptr_t)&probe_caller - base + 4, target = (uintptr_t)&probe_target - base;
    assert_non_null(mkdtemp(dir));
    static wb b;
    for (unsigned t = 0; t < 2; t++) { /* the second thread's frames: met before */
        size_t size = write_hpcrun(&b, exe, caller, target, t);
        snprintf(path, sizeof path, "%s/probe-000000-%03u-0-1-0.hpcrun", dir, t);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(b.d, 1, size, f), size);
        fclose(f);
    }

    pk_profile *p;
    assert_int_equal(pk_profile_open(dir, NULL, &p), PK_OK);
    if (tu_count_diagnostics(p, "symbols", PK_SEV_NOTE) == 0) { /* no resolver in this build */
        pk_profile_free(p);
        tu_remove_tree(dir);
        skip();
    }
    check_function(p, "probe_caller", CALLER_LINE);
    check_function(p, "probe_target", TARGET_LINE);
    assert_int_equal(locations_at_point(p, "probe_target"), 2);
    double total;
    assert_int_equal(pk_metric_program_total(p, 0, &total), PK_OK);
    assert_true(total == 1.0);
    tu_exercise(p, 1);
    pk_profile_free(p);

    pk_open_options o = {PK_OPEN_NO_SYMBOLS, 0};
    assert_int_equal(pk_profile_open(dir, &o, &p), PK_OK);
    assert_int_equal(find_function_ctx(p, "probe_target"), PK_NONE);
    assert_int_equal(pk_function_count(p), 0);
    pk_profile_free(p);
    tu_remove_tree(dir);
}

static void self_path(char *exe, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", exe, size - 1);
    assert_true(n > 0);
    exe[n] = 0;
}

static void test_resolve(void **state)
{
    (void)state;
    char exe[4096];
    self_path(exe, sizeof exe);
    resolve_through(exe);
}

/* clang writes no .debug_aranges unless asked (-gdwarf-aranges), and libdw
 * (0.188) finds no unit for an address without it: the resolver searches
 * the units' own ranges then. A copy of this program without the section
 * stands for a clang-built binary whatever compiled the test. */
static void test_resolve_without_aranges(void **state)
{
    (void)state;
    char exe[4096], dir[64] = "/tmp/pk-sym-XXXXXX", copy[4200], cmd[8600];
    self_path(exe, sizeof exe);
    assert_non_null(mkdtemp(dir));
    snprintf(copy, sizeof copy, "%s/probe", dir);
    snprintf(cmd, sizeof cmd, "objcopy --remove-section=.debug_aranges '%s' '%s' 2>/dev/null", exe,
             copy);
    if (system(cmd) != 0) { /* binutils absent */
        tu_remove_tree(dir);
        skip();
    }
    resolve_through(copy);
    tu_remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_resolve_without_aranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
