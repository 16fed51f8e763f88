/*
 * tests/test_hostile_output.c — hostile inputs and surroundings on the
 * writing side (issue 19), each on profiles made here:
 *   class 4  a chain 100,000 contexts deep: CSV and speedscope exports grow
 *            with the tree (bytes per context bounded), folded stacks,
 *            quadratic by their format, are refused before anything is
 *            written;
 *   class 5  outputs: racing writers to one target (exactly one wins, the
 *            file whole), a planted symbolic link (never followed, never
 *            replaced), --force only over profkit's own outputs (a
 *            directory with a meta.db and other files is refused),
 *            temporary files gone after a failure and after
 *            pk_output_cleanup(), a write error named with its reason;
 *   class 6  names with escape sequences, newlines, invalid UTF-8 and
 *            direction overrides: shown visibly by pk_text_escape and the
 *            tree renderer, never raw;
 *   class 9  a context whose value is NaN is shown by the tree, not hidden.
 */
#define _GNU_SOURCE
#include "support/pk_cmocka.h"

#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixtures/v4_builder.h"
#include "profkit/profkit.h"
#include "support/testutil.h"

/* Entries of the scratch directory whose name has `part` in it. */
static int count_entries(const char *part)
{
    DIR *d = opendir(tu_scratch_dir());
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strstr(e->d_name, part) != NULL;
    if (d) closedir(d);
    return n;
}

/* A profkit.model/1 JSON profile: a chain of n contexts below the root,
 * function k % 7 at depth k, exclusive value 1 each (nan_at: that one NaN),
 * named by `name` (a printf format taking the function number). */
static pk_profile *chain(uint32_t n, uint32_t nan_at, const char *name)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fprintf(f, "{\"schema\": \"profkit.model/1\", \"generator\": \"test\", \"profile\":"
               " {\"title\": null, \"description\": null, \"format\": \"json\","
               " \"format_version\": [1, 0], \"path\": \"chain\", \"reconstructed\": false,"
               " \"trace_range\": null, \"sources\": []}, \"identifier_kinds\": [\"THREAD\"],"
               " \"modules\": [], \"files\": [], \"functions\": [");
    for (int k = 0; k < 7; k++) {
        fprintf(f, "%s{\"name\": \"", k ? ", " : "");
        fprintf(f, name, k);
        fprintf(f, "\", \"module\": null, \"offset\": 0, \"file\": null, \"line\": 0}");
    }
    fprintf(f,
            "], \"metrics\": [{\"name\": \"time\", \"description\": null, \"unit\": null,"
            " \"parent\": null, \"combine\": \"sum\", \"flags\": 0}],"
            " \"scopes\": [{\"name\": \"exclusive\", \"kind\": \"exclusive\", \"raw_type\": 3,"
            " \"propagation_index\": 0}],"
            " \"columns\": [{\"metric\": 0, \"scope\": 0, \"summary\": false, \"stat\": \"none\","
            " \"formula\": null, \"combine\": \"sum\", \"raw_id\": 0}], \"contexts\": [");
    for (uint32_t i = 0; i <= n; i++) {
        char parent[16] = "null", fn[16] = "null";
        if (i) snprintf(parent, sizeof parent, "%u", i - 1), snprintf(fn, sizeof fn, "%u", i % 7);
        fprintf(f,
                "%s{\"id\": %u, \"parent\": %s, \"kind\": \"%s\", \"relation\": \"%s\","
                " \"entry\": \"none\", \"entry_name\": null, \"flags\": %d, \"function\": %s,"
                " \"file\": null, \"line\": 0, \"module\": null, \"offset\": 0,"
                " \"propagation\": 0, \"raw\": [0, 0, 0]}",
                i ? ", " : "", i, parent, i ? "function" : "root", i ? "call" : "none", i ? 1 : 0,
                fn);
    }
    fprintf(f, "], \"locations\": [{\"raw_index\": 0, \"summary\": false, \"trace\": null,"
               " \"ids\": [{\"kind\": 0, \"name\": \"THREAD\", \"flags\": 0, \"logical\": 0,"
               " \"physical\": 0}], \"values\": [");
    for (uint32_t i = 1; i <= n; i++)
        fprintf(f, i == nan_at ? "%s[%u, 0, \"NaN\"]" : "%s[%u, 0, 1]", i > 1 ? ", " : "", i);
    fprintf(f, "]}], \"traces\": [], \"attributes\": [], \"diagnostics\": []}\n");
    fclose(f);
    const char *fname = "chain.json";
    const void *data = text;
    uint64_t size = len;
    pk_profile *p = NULL;
    if (pk_profile_open_memory(PK_FORMAT_JSON, 1, &fname, &data, &size, NULL, &p) != PK_OK)
        fail_msg("chain: %s", pk_error_last());
    free(text); /* JSON keeps nothing in place */
    return p;
}

/* ---- class 4 ---- */

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void deep_trees_export_in_linear_size(void **state)
{
    (void)state;
    const uint32_t n = 100000;
    pk_profile *p = chain(n, 0, "f%d");
    char csv[128], ss[128];
    tu_scratch_path(csv, sizeof csv, "deep.csv");
    tu_scratch_path(ss, sizeof ss, "deep.speedscope.json");
    pk_output *o;
    assert_int_equal(pk_output_open(csv, 0, &o), PK_OK);
    assert_int_equal(pk_export_csv(pk_output_stream(o), p), PK_OK);
    assert_int_equal(pk_output_commit(o), PK_OK);
    assert_true(file_size(csv) < 100L * n); /* a path per row: ~50 GB */
    assert_int_equal(pk_output_open(ss, 0, &o), PK_OK);
    assert_int_equal(pk_export_speedscope(pk_output_stream(o), p, 0, "deep"), PK_OK);
    assert_int_equal(pk_output_commit(o), PK_OK);
    assert_true(file_size(ss) < 200L * n); /* sampled stacks: ~40 GB */
    /* folded stacks cannot be linear: refused before a byte is written */
    double *incl = malloc((n + 1) * sizeof *incl);
    pk_frame *f = NULL;
    size_t nf = 0;
    assert_int_equal(pk_context_scope_values(p, 0, PK_SCOPE_INCLUSIVE, incl, n + 1, NULL), PK_OK);
    assert_int_equal(pk_frames_build(p, incl, &f, &nf), PK_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    assert_int_equal(pk_flame_write_folded(mem, p, f, nf), PK_ERR_LIMIT);
    fclose(mem);
    assert_int_equal(len, 0);
    assert_non_null(strstr(pk_error_last(), "100000 frames deep"));
    free(text), free(incl);
    pk_frames_free(f);
    pk_profile_free(p);
}

/* ---- class 5 ---- */

static void write_text(const char *path, const char *text, uint32_t flags, pk_status want)
{
    pk_output *o;
    pk_status st = pk_output_open(path, flags, &o);
    if (!st) {
        fputs(text, pk_output_stream(o));
        st = pk_output_commit(o);
    }
    assert_int_equal(st, want);
}

/* A file's text, NUL-terminated (tu_read_file's buffer is exactly its size). */
static char *slurp(const char *path)
{
    size_t n;
    unsigned char *d = tu_read_file(path, &n);
    char *text = d ? malloc(n + 1) : NULL;
    if (text) memcpy(text, d, n), text[n] = '\0';
    free(d);
    return text;
}

static void racing_writers_never_clobber(void **state)
{
    (void)state;
    char path[128];
    tu_scratch_path(path, sizeof path, "race.txt");
    enum { N = 8 };
    pid_t pid[N];
    for (int i = 0; i < N; i++) {
        if ((pid[i] = fork()) == 0) {
            char line[64], *big = malloc(1 << 20);
            snprintf(line, sizeof line, "writer %d\n", i);
            for (size_t k = 0; k < (1 << 20); k++) /* long enough to overlap */
                big[k] = line[k % strlen(line)];
            pk_output *o;
            if (pk_output_open(path, 0, &o)) _exit(1);
            fwrite(big, 1, 1 << 20, pk_output_stream(o));
            _exit(pk_output_commit(o) == PK_OK ? 0 : 1);
        }
    }
    int won = 0;
    for (int i = 0; i < N; i++) {
        int status;
        waitpid(pid[i], &status, 0);
        won += WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    assert_int_equal(won, 1); /* an existing target is never replaced without FORCE */
    char *text = slurp(path);
    assert_non_null(text);
    int who = atoi(text + 7);
    char line[64];
    snprintf(line, sizeof line, "writer %d\n", who);
    for (size_t k = 0; k < (1 << 20); k += 4093) /* whole: one writer's bytes only */
        assert_int_equal(text[k], line[k % strlen(line)]);
    free(text);
    assert_int_equal(count_entries(".tmp-"), 0);
}

static void symlinks_are_neither_followed_nor_replaced(void **state)
{
    (void)state;
    char victim[128], link[128];
    tu_scratch_path(victim, sizeof victim, "victim.txt");
    tu_scratch_path(link, sizeof link, "planted.csv");
    FILE *f = fopen(victim, "w");
    fputs("precious\n", f);
    fclose(f);
    assert_int_equal(symlink(victim, link), 0);
    write_text(link, "x\n", 0, PK_ERR_IO);
    assert_non_null(strstr(pk_error_last(), "already exists"));
    write_text(link, "x\n", PK_WRITE_FORCE, PK_ERR_IO);
    assert_non_null(strstr(pk_error_last(), "symbolic link"));
    char *text = slurp(victim);
    assert_string_equal(text, "precious\n");
    free(text);
}

static void force_replaces_only_profkits_own_outputs(void **state)
{
    (void)state;
    char src[64], fake[128], notes[160], meta[160], out[128];
    pk_profile *p = tu_open_fixture(fx_sample_db(), src);
    tu_scratch_path(fake, sizeof fake, "fake.d"); /* a meta.db beside other files */
    mkdir(fake, 0755);
    snprintf(meta, sizeof meta, "%s/meta.db", fake);
    snprintf(notes, sizeof notes, "%s/notes.txt", fake);
    fclose(fopen(meta, "w")), fclose(fopen(notes, "w"));
    pk_write_options o = {.flags = PK_WRITE_FORCE};
    assert_int_equal(pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, fake, &o, NULL), PK_ERR_IO);
    assert_non_null(strstr(pk_error_last(), "cannot tell that it wrote it"));
    assert_int_equal(access(notes, F_OK), 0);
    tu_scratch_path(out, sizeof out, "own.d"); /* profkit's own: replaced */
    assert_int_equal(pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, out, NULL, NULL), PK_OK);
    assert_int_equal(pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, out, NULL, NULL), PK_ERR_IO);
    assert_int_equal(pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, out, &o, NULL), PK_OK);
    snprintf(notes, sizeof notes, "%s/mine.txt", out); /* ... until someone adds a file */
    fclose(fopen(notes, "w"));
    assert_int_equal(pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, out, &o, NULL), PK_ERR_IO);
    assert_int_equal(access(notes, F_OK), 0);
    tu_scratch_path(out, sizeof out, "own.json"); /* a file: its mark */
    assert_int_equal(pk_profile_write(p, PK_FORMAT_JSON, out, NULL, NULL), PK_OK);
    assert_int_equal(pk_profile_write(p, PK_FORMAT_JSON, out, &o, NULL), PK_OK);
    tu_scratch_path(out, sizeof out, "user.txt");
    fclose(fopen(out, "w"));
    write_text(out, "x\n", PK_WRITE_FORCE, PK_ERR_IO);
    assert_int_equal(count_entries(".tmp-"), 0);
    tu_close_fixture(p, src);
}

static void temporaries_go_on_failure_and_on_cleanup(void **state)
{
    (void)state;
    char path[128];
    tu_scratch_path(path, sizeof path, "pending.txt");
    pk_output *o;
    assert_int_equal(pk_output_open(path, 0, &o), PK_OK);
    fputs("half", pk_output_stream(o));
    assert_int_equal(count_entries(".pending.txt.tmp-"), 1);
    pk_output_cleanup(); /* what the CLI's SIGINT/SIGTERM/SIGHUP handler calls */
    assert_int_equal(count_entries(".pending.txt.tmp-"), 0);
    pk_output_abort(o);
    assert_int_equal(access(path, F_OK), -1);
    tu_scratch_path(path, sizeof path,
                    "no/such/dir/x.json"); /* cannot be created: no leak (ASan) */
    char src[64];
    pk_profile *p = tu_open_fixture(fx_sample_db(), src);
    assert_int_equal(pk_profile_write(p, PK_FORMAT_JSON, path, NULL, NULL), PK_ERR_IO);
    assert_int_equal(pk_profile_write(p, PK_FORMAT_CUBE, path, NULL, NULL), PK_ERR_IO);
    assert_non_null(strstr(pk_error_last(), "does not exist")); /* names the folder */
    tu_close_fixture(p, src);
}

static void write_errors_name_their_reason(void **state)
{
    (void)state;
    char path[128];
    tu_scratch_path(path, sizeof path, "too-big.txt");
    pid_t pid = fork();
    if (pid == 0) { /* a file size limit: writes fail with EFBIG */
        struct rlimit rl = {1 << 16, 1 << 16};
        signal(SIGXFSZ, SIG_IGN);
        setrlimit(RLIMIT_FSIZE, &rl);
        pk_output *o;
        if (pk_output_open(path, 0, &o)) _exit(2);
        for (int i = 0; i < 100000; i++)
            fputs("0123456789", pk_output_stream(o));
        if (pk_output_commit(o) == PK_OK) _exit(3);
        _exit(strstr(pk_error_last(), "File too large") && strstr(pk_error_last(), path) ? 0 : 4);
    }
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(access(path, F_OK), -1); /* nothing left: not the file, not a temporary */
    assert_int_equal(count_entries(".tmp-"), 0);
}

/* ---- class 6 and 9 ---- */

static void names_are_shown_visibly(void **state)
{
    (void)state;
    char buf[256];
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"main", "main"},
        {"std::vector<int>::at", "std::vector<int>::at"},
        {"C:\\x\\y", "C:\\x\\y"},
        {"caf\xc3\xa9 \xe6\x97\xa5", "caf\xc3\xa9 \xe6\x97\xa5"},
        {"a\x1b[2Jb", "a\\x1b[2Jb"},
        {"t\x1b]0;pwned\x07", "t\\x1b]0;pwned\\x07"},
        {"line\nforged", "line\\nforged"},
        {"\t\r\x7f", "\\t\\r\\x7f"},
        {"bad\xff\xfe", "bad\\xff\\xfe"},
        {"cut\xe2\x80", "cut\\xe2\\x80"},
        {"over\xc0\xaf", "over\\xc0\\xaf"},
        {"sur\xed\xa0\x80", "sur\\xed\\xa0\\x80"},
        {"c1\xc2\x85", "c1\\u0085"},
        {"rtl\xe2\x80\xaeltr", "rtl\\u202eltr"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t need = pk_text_escape(cases[i].in, buf, sizeof buf);
        assert_string_equal(buf, cases[i].out);
        assert_int_equal(need, strlen(cases[i].out));
    }
    assert_int_equal(pk_text_escape("ab\x1b", buf, 5), 6); /* no escape cut in half */
    assert_string_equal(buf, "ab");
}

static void tree_text(const pk_profile *p, char **text)
{
    size_t n = pk_context_count(p), len;
    double *incl = malloc(n * sizeof *incl), *excl = malloc(n * sizeof *excl), total;
    assert_int_equal(pk_context_scope_values(p, 0, PK_SCOPE_INCLUSIVE, incl, n, NULL), PK_OK);
    assert_int_equal(pk_context_scope_values(p, 0, PK_SCOPE_EXCLUSIVE, excl, n, NULL), PK_OK);
    total = incl[0];
    FILE *f = open_memstream(text, &len);
    pk_tree_options o = {.threshold = 1.0};
    assert_int_equal(pk_tree_write_text(f, p, incl, excl, total, &o), PK_OK);
    fclose(f);
    free(incl), free(excl);
}

static void the_tree_shows_names_and_nans_safely(void **state)
{
    (void)state;
    pk_profile *p = chain(6, 4, "f%d\\u001b[31m\\n\\u202e");
    char *text = NULL;
    tree_text(p, &text);
    assert_null(strchr(text, '\x1b'));
    assert_null(strstr(text, "\xe2\x80\xae"));
    assert_non_null(strstr(text, "f3\\x1b[31m\\n\\u202e"));
    int lines = 0;
    for (const char *c = text; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines,
                     1 + 7); /* header, root and six contexts: no forged line, no NaN hidden */
    assert_non_null(strstr(text, "nan"));
    free(text);
    pk_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deep_trees_export_in_linear_size),
        cmocka_unit_test(racing_writers_never_clobber),
        cmocka_unit_test(symlinks_are_neither_followed_nor_replaced),
        cmocka_unit_test(force_replaces_only_profkits_own_outputs),
        cmocka_unit_test(temporaries_go_on_failure_and_on_cleanup),
        cmocka_unit_test(write_errors_name_their_reason),
        cmocka_unit_test(names_are_shown_visibly),
        cmocka_unit_test(the_tree_shows_names_and_nans_safely),
    };
    if (tu_scratch_make("pk-hostile-out")) return 1;
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    tu_scratch_remove();
    return failed;
}
