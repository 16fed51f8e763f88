/*
 * tests/test_sizes.c — small files that claim huge sizes: every reader,
 * under an address-space limit, must answer in seconds with memory in
 * proportion to what the bytes really hold, or fail with an error naming
 * what it refused.
 *
 * Seeds are small valid inputs of every format: the fixture database
 * (v4), the project's Cube and Callgrind samples, the JSON the writer
 * makes of them, and (when the shared corpus is there) a legacy
 * experiment.xml database, the draft Prof2 database and an hpcrun
 * measurement; for pprof the profile tests/support/pprof_build.c makes
 * and the Callgrind sample written as plain profile.proto. Each seed is
 * opened many times with one count, size or
 * offset made huge:
 *   binary files: at every 4-byte aligned position, the bytes
 *                 FF FF FF F0 (huge in both byte orders), 00 FF FF FF
 *                 and 00 10 00 00 (a few million / a few thousand), and
 *                 at every 8-byte aligned one 00 00 01 00 00 00 00 00
 *                 (2^40 big-endian) and its little-endian twin;
 *   text files:   every decimal number replaced by 4294967295,
 *                 1000000000 and 18446744073709551615.
 * Each open runs in a child process with RLIMIT_AS at LIMIT_MB (under
 * AddressSanitizer, which reserves terabytes of shadow, single
 * allocations above LIMIT_MB return NULL instead: __asan_default_options)
 * and an alarm of TIME_LIMIT seconds. The child opens the image, touches
 * every accessor (tu_exercise) and exits 0 (opened), 1 (a clean error) or
 * 3 (out of memory: the reader sized memory from the claim, not from the
 * bytes). A signal, a timeout or status 3 fails the test.
 *
 * Usage: sizes FORMAT [SHARD N]   FORMAT: v4 cube callgrind json legacy
 *                                 prof2 hpcrun pprof
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixtures/v4_builder.h"
#include "support/pprof_build.h"
#include "support/testutil.h"

#define LIMIT_MB   1024
#define TIME_LIMIT 20
#define MAX_FILES  8

#if defined(__SANITIZE_ADDRESS__)
#define PK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PK_ASAN 1
#endif
#endif

#ifdef PK_ASAN
/* ASan cannot run under RLIMIT_AS; refusing big single allocations is the
 * closest it can do. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1:max_allocation_size_mb=1024";
}
#endif

typedef struct seed {
    pk_format format;
    size_t n;
    const char *names[MAX_FILES];
    unsigned char *data[MAX_FILES];
    size_t size[MAX_FILES];
    int text[MAX_FILES]; /* mutate numbers, not bytes */
} seed;

static int failures, shard, n_shards = 1;
static size_t runs, opened, refused, case_no;

static int child_open(const seed *s)
{
    const void *data[MAX_FILES];
    uint64_t sizes[MAX_FILES];
    for (size_t i = 0; i < s->n; i++)
        data[i] = s->data[i], sizes[i] = s->size[i];
    pk_open_options o = {PK_OPEN_NO_SYMBOLS, 1};
    pk_profile *p;
    pk_status st = pk_profile_open_memory(s->format, s->n, s->names, data, sizes, &o, &p);
    if (st) {
        fprintf(stderr, "%s\n", pk_error_last());
        return st == PK_ERR_NOMEM ? 3 : 1;
    }
    tu_exercise(p, 0);
    pk_profile_free(p);
    return 0;
}

/* Open the seed as it is now in a limited child; record the outcome. */
static void run_case(const seed *s, const char *what)
{
    if (case_no++ % (size_t)n_shards != (size_t)shard) return;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
#ifndef PK_ASAN
        struct rlimit rl = {(rlim_t)LIMIT_MB << 20, (rlim_t)LIMIT_MB << 20};
        setrlimit(RLIMIT_AS, &rl);
#endif
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 2); /* the clean errors' messages */
        alarm(TIME_LIMIT);
        _exit(child_open(s));
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    runs++;
    if (WIFEXITED(status) && WEXITSTATUS(status) <= 1) {
        WEXITSTATUS(status) ? refused++ : opened++;
        return;
    }
    failures++;
    if (WIFSIGNALED(status))
        fprintf(stderr, "FAIL: %s: killed by signal %d%s\n", what, WTERMSIG(status),
                WTERMSIG(status) == SIGALRM ? " (took too long)" : "");
    else
        fprintf(stderr, "FAIL: %s: %s\n", what,
                WEXITSTATUS(status) == 3 ? "out of memory (sized from a claim)" : "exit status");
}

static const unsigned char patterns4[][4] = {
    {0xff, 0xff, 0xff, 0xf0}, {0x00, 0xff, 0xff, 0xff}, {0x00, 0x10, 0x00, 0x00}};
static const unsigned char patterns8[][8] = {{0, 0, 1, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 1, 0, 0}};

static void mutate_binary(seed *s, size_t f, const char *fmt)
{
    unsigned char *d = s->data[f], save[8];
    size_t n = s->size[f] < (64u << 10) ? s->size[f] : (64u << 10);
    char what[256];
    for (size_t at = 0; at + 4 <= n; at += 4) {
        for (size_t k = 0; k < sizeof patterns4 / sizeof *patterns4; k++) {
            memcpy(save, d + at, 4);
            memcpy(d + at, patterns4[k], 4);
            snprintf(what, sizeof what, "%s %s byte %zu pattern %zu", fmt, s->names[f], at, k);
            run_case(s, what);
            memcpy(d + at, save, 4);
        }
        for (size_t k = 0; at % 8 == 0 && at + 8 <= n && k < 2; k++) {
            memcpy(save, d + at, 8);
            memcpy(d + at, patterns8[k], 8);
            snprintf(what, sizeof what, "%s %s byte %zu pattern 8/%zu", fmt, s->names[f], at, k);
            run_case(s, what);
            memcpy(d + at, save, 8);
        }
    }
}

static int number_start(const unsigned char *d, size_t i)
{
    if (d[i] < '0' || d[i] > '9') return 0;
    if (i == 0) return 1;
    unsigned char c = d[i - 1];
    return !(c == '_' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
             (c >= 'A' && c <= 'Z'));
}

static void mutate_text(seed *s, size_t f, const char *fmt)
{
    static const char *const huge[] = {"4294967295", "1000000000", "18446744073709551615"};
    unsigned char *orig = s->data[f];
    size_t size = s->size[f];
    char what[256];
    for (size_t i = 0; i < size; i++) {
        if (!number_start(orig, i)) continue;
        size_t end = i;
        while (end < size && orig[end] >= '0' && orig[end] <= '9')
            end++;
        for (size_t k = 0; k < sizeof huge / sizeof *huge; k++) {
            size_t len = strlen(huge[k]), n = size - (end - i) + len;
            unsigned char *copy = malloc(n);
            memcpy(copy, orig, i);
            memcpy(copy + i, huge[k], len);
            memcpy(copy + i + len, orig + end, size - end);
            s->data[f] = copy, s->size[f] = n;
            snprintf(what, sizeof what, "%s %s byte %zu = %s", fmt, s->names[f], i, huge[k]);
            run_case(s, what);
            free(copy);
        }
        s->data[f] = orig, s->size[f] = size;
        i = end;
    }
}

static void mutate_all(seed *s, const char *fmt)
{
    for (size_t f = 0; f < s->n; f++)
        s->text[f] ? mutate_text(s, f, fmt) : mutate_binary(s, f, fmt);
}

static void seed_free(seed *s)
{
    for (size_t f = 0; f < s->n; f++)
        free(s->data[f]);
    memset(s, 0, sizeof *s);
}

static int add_file(seed *s, const char *path, const char *name, int text)
{
    size_t n;
    unsigned char *d = tu_read_file(path, &n);
    if (!d) return fprintf(stderr, "cannot read %s\n", path), 0;
    s->names[s->n] = name, s->data[s->n] = d, s->size[s->n] = n, s->text[s->n] = text;
    s->n++;
    return 1;
}

static void run_v4(void)
{
    fx_image img[4];
    if (fx_build(fx_sample_db(), img) != 0) {
        fprintf(stderr, "FAIL: cannot build the fixture database\n");
        failures++;
        return;
    }
    seed s = {PK_FORMAT_HPCTOOLKIT_V4};
    for (int i = 0; i < 4; i++) {
        if (!img[i].data) continue;
        s.names[s.n] = img[i].name;
        s.data[s.n] = malloc(img[i].size), s.size[s.n] = img[i].size;
        memcpy(s.data[s.n++], img[i].data, img[i].size);
    }
    fx_free(img);
    mutate_all(&s, "v4");
    seed_free(&s);
}

static void run_files(pk_format format, const char *fmt, const char *dir, const char *const *names,
                      int n, int text)
{
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        seed s = {format};
        if (add_file(&s, path, names[i], text)) mutate_all(&s, fmt);
        seed_free(&s);
    }
}

/* The project's samples as profkit.model/1 JSON, written here. */
static void run_json(void)
{
    static const char *const inputs[] = {"tests/data/callgrind/sample.callgrind",
                                         "tests/data/cube/sample.cubex"};
    char dir[] = "/tmp/pk-sizes-XXXXXX";
    if (!mkdtemp(dir)) return;
    for (int i = 0; i < 2; i++) {
        char in[4096], out[4200];
        snprintf(in, sizeof in, "%s/%s", PK_SOURCE_DIR, inputs[i]);
        snprintf(out, sizeof out, "%s/%d.json", dir, i);
        pk_profile *p;
        if (pk_profile_open(in, NULL, &p) != PK_OK ||
            pk_profile_write(p, PK_FORMAT_JSON, out, NULL, NULL) != PK_OK) {
            fprintf(stderr, "FAIL: cannot make JSON of %s: %s\n", in, pk_error_last());
            failures++;
            continue;
        }
        pk_profile_free(p);
        seed s = {PK_FORMAT_JSON};
        if (add_file(&s, out, "sample.json", 1)) mutate_all(&s, "json");
        seed_free(&s);
        unlink(out);
    }
    rmdir(dir);
}

/* pprof: a profile made field by field, and one the writer made. */
static void run_pprof(void)
{
    pb_out o = {0};
    ppb_standard(&o);
    seed s = {PK_FORMAT_PPROF, 1, {"made.pb"}, {o.buf}, {o.len}, {0}};
    mutate_all(&s, "pprof");
    pb_out_free(&o);
    char dir[] = "/tmp/pk-sizes-XXXXXX", out[64];
    pk_profile *p = NULL;
    if (!mkdtemp(dir)) return;
    snprintf(out, sizeof out, "%s/written.pb", dir);
    if (pk_profile_open(PK_SOURCE_DIR "/tests/data/callgrind/sample.callgrind", NULL, &p) ||
        pk_profile_write(p, PK_FORMAT_PPROF, out, NULL, NULL)) {
        fprintf(stderr, "FAIL: cannot write a pprof profile: %s\n", pk_error_last());
        failures++;
    }
    pk_profile_free(p);
    seed t = {PK_FORMAT_PPROF};
    if (!failures && add_file(&t, out, "written.pb", 0)) mutate_all(&t, "pprof");
    seed_free(&t);
    unlink(out);
    rmdir(dir);
}

/* A corpus directory's files (those `keep` accepts) as one seed. */
static void run_corpus_dir(pk_format format, const char *fmt, const char *rel,
                           const char *const *files, size_t n_files)
{
    const char *corpus = tu_corpus_dir();
    if (!corpus) return;
    seed s = {format};
    for (size_t i = 0; i < n_files && i < MAX_FILES; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s/%s", corpus, rel, files[i]);
        size_t len = strlen(files[i]);
        int text = len > 4 && strcmp(files[i] + len - 4, ".xml") == 0;
        if (!add_file(&s, path, files[i], text)) {
            seed_free(&s);
            return;
        }
    }
    mutate_all(&s, fmt);
    seed_free(&s);
}

static void run_hpcrun(void)
{
    static const char *const files[] = {"testmeas-small-000000-000-11ac0300-5560-0.hpcrun",
                                        "testmeas-small-000000-000-11ac0300-5560-0.hpctrace"};
    run_corpus_dir(PK_FORMAT_HPCRUN, "hpcrun", "hpctoolkit/hpctoolkit-tests-meas/small.m", files,
                   2);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: sizes FORMAT [SHARD N]\n");
        return 2;
    }
    if (argc == 4) shard = atoi(argv[2]), n_shards = atoi(argv[3]);
    const char *f = argv[1];
    char dir[4096];
    if (strcmp(f, "v4") == 0) {
        run_v4();
    } else if (strcmp(f, "cube") == 0) {
        static const char *const cubes[] = {"sample.cubex", "sample-zcubex.cubex"};
        snprintf(dir, sizeof dir, "%s/tests/data/cube", PK_SOURCE_DIR);
        run_files(PK_FORMAT_CUBE, "cube", dir, cubes, 2, 0);
    } else if (strcmp(f, "callgrind") == 0) {
        static const char *const cgs[] = {"sample.callgrind", "sample-b.callgrind"};
        snprintf(dir, sizeof dir, "%s/tests/data/callgrind", PK_SOURCE_DIR);
        run_files(PK_FORMAT_CALLGRIND, "callgrind", dir, cgs, 2, 1);
    } else if (strcmp(f, "json") == 0) {
        run_json();
    } else if (strcmp(f, "legacy") == 0) {
        static const char *const files[] = {"experiment.xml",
                                            "1.cpi-000000-000-a8c00270-160443-0.metric-db",
                                            "1.cpi-000001-000-a8c00270-160444-0.metric-db"};
        run_corpus_dir(PK_FORMAT_HPCTOOLKIT_XML, "legacy", "hpctoolkit/hatchet-cpi-v2", files, 3);
    } else if (strcmp(f, "prof2") == 0) {
        static const char *const files[] = {"experiment.xml", "profile.db", "cct.db", "trace.db"};
        run_corpus_dir(PK_FORMAT_HPCTOOLKIT_DRAFT, "prof2",
                       "hpctoolkit/hpcviewer-2022.06-prof2-draft/empty-trace", files, 4);
    } else if (strcmp(f, "hpcrun") == 0) {
        run_hpcrun();
    } else if (strcmp(f, "pprof") == 0) {
        run_pprof();
    } else {
        fprintf(stderr, "unknown format %s\n", f);
        return 2;
    }
    printf("%s: %zu opens: %zu opened, %zu refused cleanly, %d failures\n", f, runs, opened,
           refused, failures);
    if (runs == 0) return TEST_SKIP;
    return failures ? 1 : 0;
}
