/*
 * tests/test_callgrind_robustness.c — damaged Callgrind input never crashes
 * the reader, and what it reports is either a clean error or a profile
 * whose every accessor works.
 *
 *   truncate: the hand-written sample (tests/data/callgrind) cut at every
 *             byte, plain and gzip-compressed; every corpus file up to
 *             128 KiB cut at 64 evenly spaced sizes;
 *   flip:     every byte of the sample replaced by each of a set of bytes
 *             that matter to the grammar (newline, space, digits, '(', ')',
 *             '=', '*', '+', '-', 'x', NUL, 0xff); 10 pseudo-random
 *             positions of every corpus file up to 128 KiB likewise.
 *
 * Each damaged copy lives in a buffer of exactly its size (ASan sees reads
 * past the end). An opened profile is exercised in full (model and call
 * graph, recursion-safe costs for every event and location), some are
 * written back and must read back as the same call graph. A refusal must
 * carry a message; with PK_OPEN_KEEP_GOING a text file that was refused
 * for a bad line must then open, marked incomplete (or, if skipping the
 * line leaves no events: line at all, be refused as holding no profile).
 *
 * Usage: callgrind_robustness truncate|flip
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support/cg_compare.h"
#include "support/testutil.h"

#define MAX_CORPUS_FILE (128 * 1024)

typedef struct stats {
    size_t opened, refused, kept_going, rewritten;
    char work[64];
} stats;

static int failures;

static void fail(const char *what, const char *name, size_t at)
{
    failures++;
    if (failures <= 20)
        fprintf(stderr, "FAIL %s: %s at %zu (%s)\n", name, what, at, pk_error_last());
}

static pk_status open_copy(const unsigned char *bytes, size_t size, uint32_t flags, pk_profile **p)
{
    static const char *const name = "damaged.callgrind";
    unsigned char *copy = malloc(size ? size : 1);
    memcpy(copy, bytes, size);
    const void *d = copy;
    uint64_t n = size;
    pk_open_options o = {.flags = flags};
    pk_status s = pk_profile_open_memory(PK_FORMAT_CALLGRIND, 1, &name, &d, &n, &o, p);
    free(copy); /* the reader keeps nothing of its input */
    return s;
}

/* Written and read back, the call graph must be the same (summed over
 * its parts, as the writer writes it by default); a profile the reader
 * marked incomplete (a cut file) must be refused instead. */
static void rewrite(const pk_profile *p, const char *name, size_t at, stats *st)
{
    char out[128];
    snprintf(out, sizeof out, "%s/rewrite.callgrind", st->work);
    pk_write_options o = {.flags = PK_WRITE_FORCE};
    pk_profile_info info;
    pk_profile_get_info(p, &info);
    if (!info.complete) {
        if (pk_profile_write(p, PK_FORMAT_CALLGRIND, out, &o, NULL) == PK_OK)
            fail("wrote an incomplete profile as complete", name, at);
        return;
    }
    if (pk_profile_write(p, PK_FORMAT_CALLGRIND, out, &o, NULL) != PK_OK) {
        fail("could not write an opened profile", name, at);
        return;
    }
    pk_profile *q;
    if (pk_profile_open(out, NULL, &q) != PK_OK) {
        fail("could not read back what it wrote", name, at);
        return;
    }
    /* several parts are written as one holding their sum */
    pk_cg_summary sum;
    int several = pk_callgraph_summary(p, &sum) == PK_OK && sum.n_parts > 1;
    char *a = several ? tu_cg_canonical_summed(p) : tu_cg_canonical(p);
    char *b = several ? tu_cg_canonical_summed(q) : tu_cg_canonical(q);
    if (!a || !b || strcmp(a, b) != 0) {
        size_t i = 0;
        while (a && b && a[i] && a[i] == b[i])
            i++;
        while (a && i && a[i - 1] != '\n')
            i--;
        fprintf(stderr, "read:      %.100s\nrewritten: %.100s\n", a ? a + i : "-", b ? b + i : "-");
        fail("rewritten call graph differs", name, at);
    }
    free(a), free(b);
    pk_profile_free(q);
    st->rewritten++;
}

static void try_damaged(const unsigned char *bytes, size_t size, const char *name, size_t at,
                        stats *st)
{
    pk_profile *p = NULL;
    pk_status s = open_copy(bytes, size, 0, &p);
    if (s == PK_OK) {
        st->opened++;
        tu_exercise(p, 0);
        tu_cg_exercise(p);
        if (st->opened % 16 == 1) rewrite(p, name, at, st);
        pk_profile_free(p);
        return;
    }
    st->refused++;
    if (!pk_error_last()[0]) fail("error without a message", name, at);
    if (s != PK_ERR_FORMAT && s != PK_ERR_UNKNOWN_FORMAT && s != PK_ERR_UNSUPPORTED)
        fail("unexpected status", name, at);
    int text = size < 2 || bytes[0] != 0x1f || bytes[1] != 0x8b;
    if (s != PK_ERR_FORMAT || !text || !strstr(pk_error_last(), "byte offset")) return;
    /* a bad line of a text file: KEEP_GOING skips it and says so */
    if (open_copy(bytes, size, PK_OPEN_KEEP_GOING, &p) != PK_OK) {
        /* skipping the bad line may leave nothing: then it must say so */
        if (!strstr(pk_error_last(), "no profile data"))
            fail("KEEP_GOING could not open", name, at);
        return;
    }
    pk_profile_info info;
    pk_profile_get_info(p, &info);
    if (info.complete) fail("KEEP_GOING skipped a line but says complete", name, at);
    tu_cg_exercise(p);
    pk_profile_free(p);
    st->kept_going++;
}

static void truncate_at(const unsigned char *d, size_t size, size_t step, const char *name,
                        stats *st)
{
    for (size_t at = 0; at < size; at += step)
        try_damaged(d, at, name, at, st);
}

static void flip_at(unsigned char *d, size_t size, size_t at, const char *name, stats *st)
{
    static const unsigned char with[] = {'\n', ' ', '0', '9', '(', ')', '=',
                                         '*',  '+', '-', 'x', 0,   0xff};
    unsigned char keep = d[at];
    for (size_t k = 0; k < sizeof with; k++) {
        if (with[k] == keep) continue;
        d[at] = with[k];
        try_damaged(d, size, name, at, st);
    }
    d[at] = keep;
}

static void run_sample(int flip, stats *st)
{
    size_t n, gn;
    unsigned char *t = tu_read_file(PK_SOURCE_DIR "/tests/data/callgrind/sample.callgrind", &n);
    if (!t) {
        fail("sample missing", "sample.callgrind", 0);
        return;
    }
    if (flip) {
        for (size_t i = 0; i < n; i++)
            flip_at(t, n, i, "sample", st);
    } else {
        truncate_at(t, n, 1, "sample", st);
        unsigned char *gz = tu_gzip(t, n, &gn);
        if (gz) truncate_at(gz, gn, 1, "sample.gz", st);
        free(gz);
    }
    free(t);
}

static void run_corpus_file(const char *path, int flip, stats *st)
{
    size_t n;
    unsigned char *d = tu_read_file(path, &n);
    if (!d) return;
    if (!flip) {
        truncate_at(d, n, n / 64 + 1, path, st);
    } else {
        unsigned x = 2463534242u;
        for (int k = 0; k < 10 && n; k++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            flip_at(d, n, x % n, path, st);
        }
    }
    free(d);
}

/* Every corpus file of callgrind/<dir>/ up to MAX_CORPUS_FILE bytes. */
static size_t run_corpus(const char *root, int flip, stats *st)
{
    static const char *const dirs[] = {"generated", "gprof2dot", "pprof", "speedscope",
                                       "valgrind-cachegrind-tests"};
    size_t used = 0;
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        char dir[4096], path[8192];
        snprintf(dir, sizeof dir, "%s/callgrind/%s", root, dirs[i]);
        DIR *dh = opendir(dir);
        for (struct dirent *e; dh && (e = readdir(dh));) {
            struct stat sb;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (e->d_name[0] == '.' || stat(path, &sb) || !S_ISREG(sb.st_mode) ||
                sb.st_size > MAX_CORPUS_FILE)
                continue;
            run_corpus_file(path, flip, st);
            used++;
        }
        if (dh) closedir(dh);
    }
    return used;
}

int main(int argc, char **argv)
{
    int flip = argc > 1 && strcmp(argv[1], "flip") == 0;
    stats st = {0};
    const char *tmp = getenv("TMPDIR");
    snprintf(st.work, sizeof st.work, "%s/pk-cgrobust-XXXXXX",
             tmp && *tmp && strlen(tmp) < 40 ? tmp : "/tmp");
    if (!mkdtemp(st.work)) {
        perror("mkdtemp");
        return 1;
    }
    run_sample(flip, &st);
    const char *corpus = tu_corpus_dir();
    size_t used = corpus ? run_corpus(corpus, flip, &st) : 0;
    tu_remove_tree(st.work);
    printf("%s: sample + %zu corpus files%s: %zu damaged copies opened (%zu rewritten and read "
           "back), %zu refused cleanly, %zu of those opened with KEEP_GOING; %d failures\n",
           flip ? "flip" : "truncate", used, corpus ? "" : " (corpus absent, skipped)", st.opened,
           st.rewritten, st.refused, st.kept_going, failures);
    return failures ? 1 : 0;
}
