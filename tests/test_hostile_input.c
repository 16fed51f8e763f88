/*
 * tests/test_hostile_input.c — hostile inputs and surroundings on the
 * reading side (issue 19), each on inputs made here:
 *   class 1  a gzip stream that inflates past its budget is refused with
 *            PK_ERR_LIMIT naming the file, structure and offset; a larger
 *            budget (pk_open_options.max_memory) lets it through;
 *   class 2  a FIFO, a character device, a directory-less socket as input
 *            or as a database's trace.db is refused at once, never waited
 *            on; KEEP_GOING drops such an optional file and says so;
 *   class 3  a mapped file that shrinks reads as zeros and is reported as
 *            damaged (pk_profile_intact, the open itself, the mapping's
 *            own record); a SIGBUS that is not profkit's reaches the
 *            program's own handler;
 *   class 8  a multi-file Callgrind run opened by its base name keeps its
 *            file names (they were read after being freed);
 *   class 9  a Callgrind cost of 2^64 - 1 is read; event formulas that
 *            cannot be computed are reported.
 * Run under ASan + UBSan (make asan-check), every read is checked too.
 */
#define _GNU_SOURCE
#include "support/pk_cmocka.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "fixtures/v4_builder.h"
#include "model/model.h"
#include "profkit/profkit.h"
#include "support/testutil.h"
#include "util/budget.h"
#include "util/gzip.h"
#include "util/mapfile.h"

/* ---- class 1: budgets ---- */

/* n bytes of zeros, gzip-compressed (about 1000:1). */
static unsigned char *gzip_zeros(size_t n, size_t *out_n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 31, 9, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = n / 500 + 4096;
    unsigned char *out = malloc(cap), *zeros = calloc(1, 1 << 20);
    z.next_out = out, z.avail_out = (uInt)cap;
    for (size_t done = 0; done < n; done += 1 << 20) {
        z.next_in = zeros, z.avail_in = (uInt)(n - done < (1u << 20) ? n - done : 1u << 20);
        assert_int_not_equal(deflate(&z, done + (1u << 20) >= n ? Z_FINISH : Z_NO_FLUSH),
                             Z_STREAM_ERROR);
    }
    *out_n = cap - z.avail_out;
    deflateEnd(&z);
    free(zeros);
    return out;
}

static void inflating_past_the_budget_is_refused(void **state)
{
    (void)state;
    size_t n;
    unsigned char *gz = gzip_zeros(64u << 20, &n), *out = NULL;
    assert_true(n < (1u << 20)); /* 64 MiB claimed by well under 1 MiB */
    pk_budget b;
    uint64_t got = 0;
    pk_budget_init(&b, 16u << 20, n);
    assert_int_equal(pk_gunzip_all(gz, n, &b, "bomb.gz", "the archive", &out, &got), PK_ERR_LIMIT);
    const char *msg = pk_error_last();
    assert_non_null(strstr(msg, "bomb.gz: the archive, compressed byte"));
    assert_non_null(strstr(msg, "memory budget of 16.0 MiB"));
    assert_non_null(strstr(msg, "--max-memory"));
    assert_int_equal(atomic_load(&b.used), 0); /* nothing stays charged */
    pk_budget_init(&b, 128u << 20, n);         /* raised: it opens */
    assert_int_equal(pk_gunzip_all(gz, n, &b, "bomb.gz", "the archive", &out, &got), PK_OK);
    assert_int_equal(got, 64u << 20);
    assert_int_equal(atomic_load(&b.used), got);
    free(out), free(gz);
    pk_budget_init(&b, 0, 1000); /* the default: the floor for a small input */
    assert_int_equal(b.limit, PK_BUDGET_FLOOR);
    pk_budget_init(&b, 0, 1ull << 40);
    assert_int_equal(b.limit, (1ull << 40) * PK_BUDGET_RATIO);
}

typedef struct offsets {
    uint64_t at[64];
    size_t n;
} offsets;

static int note_profile(void *user, const pk_record *r)
{
    offsets *o = user;
    if (strcmp(r->file, "profile.db") == 0 && strcmp(r->type, "profile") == 0 && o->n < 64)
        o->at[o->n++] = r->offset;
    return 0;
}

/* Profiles that all point at one value block: more than profile.db holds,
 * work and memory its bytes do not pay for. Charged to the budget. */
static void shared_value_blocks_are_charged(void **state)
{
    (void)state;
    fx_image img[4];
    assert_int_equal(fx_build(fx_sample_db(), img), 0);
    const char *names[4];
    const void *data[4];
    uint64_t sizes[4];
    for (int i = 0; i < 4; i++)
        names[i] = img[i].name, data[i] = img[i].data, sizes[i] = img[i].size;
    offsets o = {{0}, 0};
    assert_int_equal(
        pk_dump_memory(PK_FORMAT_HPCTOOLKIT_V4, 4, names, data, sizes, NULL, note_profile, &o),
        PK_OK);
    assert_true(o.n >= 3);
    for (size_t i = 2; i < o.n; i++) /* nValues, pValues, nCtxs, pCtxIndices of profile 1 */
        memcpy(img[1].data + o.at[i], img[1].data + o.at[1], 0x20);
    pk_open_options opts = {.threads = 1,
                            .max_memory = 1}; /* a budget of one byte: no excess is affordable */
    pk_profile *p = NULL;
    assert_int_equal(
        pk_profile_open_memory(PK_FORMAT_HPCTOOLKIT_V4, 4, names, data, sizes, &opts, &p),
        PK_ERR_LIMIT);
    assert_non_null(strstr(pk_error_last(), "profile.db: profile 3"));
    assert_non_null(strstr(pk_error_last(), "blocks shared between entries"));
    opts.max_memory = 0; /* the default budget affords a few shared blocks */
    assert_int_equal(
        pk_profile_open_memory(PK_FORMAT_HPCTOOLKIT_V4, 4, names, data, sizes, &opts, &p), PK_OK);
    pk_profile_free(p);
    fx_free(img);
}

/* ---- class 2: file types ---- */

static void expect_refused(const char *path, const char *kind)
{
    pk_profile *p = NULL;
    alarm(20); /* a FIFO open that blocks fails the test instead of hanging it */
    assert_int_equal(pk_profile_open(path, NULL, &p), PK_ERR_IO);
    alarm(0);
    assert_null(p);
    assert_non_null(strstr(pk_error_last(), kind));
    assert_non_null(strstr(pk_error_last(), path));
}

static void fifos_devices_and_sockets_are_refused(void **state)
{
    (void)state;
    char fifo[128], sock[96];
    tu_scratch_path(fifo, sizeof fifo, "input.fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    expect_refused(fifo, "is a FIFO");
    expect_refused("/dev/null", "is a character device");
    tu_scratch_path(sock, sizeof sock, "input.sock");
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", sock);
    assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    expect_refused(sock, "is a socket");
    close(s);
}

static void a_fifo_as_trace_db_is_refused_or_dropped(void **state)
{
    (void)state;
    char db[128], trace[160];
    tu_scratch_path(db, sizeof db, "fifo.d");
    assert_int_equal(fx_write_dir(fx_sample_db(), db), 0);
    snprintf(trace, sizeof trace, "%s/trace.db", db);
    assert_int_equal(unlink(trace), 0);
    assert_int_equal(mkfifo(trace, 0600), 0);
    expect_refused(db, "trace.db: is a FIFO");
    pk_profile *p;
    pk_open_options o = {PK_OPEN_NO_TRACES, 0};
    alarm(20);
    assert_int_equal(pk_profile_open(db, &o, &p), PK_OK); /* not wanted: not even opened */
    pk_profile_free(p);
    o.flags = PK_OPEN_KEEP_GOING; /* what `check` uses: the rest is still checked */
    assert_int_equal(pk_profile_open(db, &o, &p), PK_OK);
    alarm(0);
    pk_profile_info info;
    pk_profile_get_info(p, &info);
    assert_false(info.complete);
    assert_int_equal(tu_count_diagnostics(p, "unreadable-file", PK_SEV_ERROR), 1);
    assert_true(pk_location_count(p) > 0);
    pk_profile_free(p);
}

/* ---- class 3: a mapped file that shrinks ---- */

static void write_bytes(const char *path, size_t n, int byte)
{
    unsigned char *b = malloc(n);
    memset(b, byte, n);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    fclose(f);
    free(b);
}

static void a_shrunk_mapping_reads_zeros_and_is_damage(void **state)
{
    (void)state;
    char path[128];
    tu_scratch_path(path, sizeof path, "shrinks.bin");
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = 4 * page;
    write_bytes(path, n, 0xab);
    pk_mapfile m;
    assert_int_equal(pk_map_file(path, &m), PK_OK);
    assert_int_equal(truncate(path, (off_t)page + 100), 0);
    unsigned sum = 0;
    for (size_t i = 0; i < n; i++) /* past the end: SIGBUS without the guard */
        sum += m.data[i];
    assert_int_equal(sum, 0xab * (page + 100)); /* the rest of the cut page and beyond: 0 */
    uint64_t at = 0;
    assert_true(pk_map_damage(&m, &at));
    assert_int_equal(at, page + 100);
    assert_int_equal(pk_map_check(&m), PK_ERR_FORMAT);
    assert_non_null(strstr(pk_error_last(), "shrank while profkit was reading it"));
    pk_map_damage_report(); /* forget anything earlier */
    pk_unmap_file(&m);      /* notes the damage for whoever drives the reader */
    assert_int_equal(pk_map_damage_report(), PK_ERR_FORMAT);
    assert_non_null(strstr(pk_error_last(), path));
    assert_int_equal(pk_map_damage_report(), PK_OK); /* reported once */
}

static void a_profile_whose_file_shrinks_says_so(void **state)
{
    (void)state;
    char db[64], prof[128];
    pk_profile *p = tu_open_fixture(fx_sample_db(), db);
    assert_int_equal(pk_profile_intact(p), PK_OK);
    snprintf(prof, sizeof prof, "%s/profile.db", db);
    assert_int_equal(truncate(prof, 0), 0);
    tu_exercise(p, 0); /* every value read again: zeros, no crash */
    assert_int_equal(pk_profile_intact(p), PK_ERR_FORMAT);
    assert_non_null(strstr(pk_error_last(), "profile.db: the file shrank"));
    assert_non_null(strstr(pk_error_last(), "offset 0"));
    /* writing it now must not put an output in place */
    char out[160];
    snprintf(out, sizeof out, "%s/copy.json", db);
    assert_int_not_equal(pk_profile_write(p, PK_FORMAT_JSON, out, NULL, NULL), PK_OK);
    assert_int_equal(access(out, F_OK), -1);
    tu_close_fixture(p, db);
}

static volatile sig_atomic_t own_handler_ran;

static void own_handler(int sig, siginfo_t *si, void *ctx)
{
    (void)sig, (void)si, (void)ctx;
    own_handler_ran++;
    if (si->si_code > 0) _exit(own_handler_ran == 1 ? 42 : 43); /* a real fault: done */
}

/* In a child: the program's own SIGBUS handler, then profkit's guard
 * (first mapping), then a SIGBUS that is not profkit's: the program's
 * handler gets it, for a sent signal and for a fault in its own mapping. */
static void other_sigbus_reaches_the_programs_handler(void **state)
{
    (void)state;
    char path[128], mine[128];
    tu_scratch_path(path, sizeof path, "guarded.bin");
    tu_scratch_path(mine, sizeof mine, "not-profkits.bin");
    write_bytes(path, 8192, 1);
    write_bytes(mine, 8192, 1);
    pid_t pid = fork();
    if (pid == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = own_handler;
        sa.sa_flags = SA_SIGINFO;
        sigaction(SIGBUS, &sa, NULL);
        pk_mapfile m;
        if (pk_map_file(path, &m) != PK_OK) _exit(2);
        raise(SIGBUS); /* sent: chained, the handler returns */
        if (own_handler_ran != 1) _exit(3);
        int fd = open(mine, O_RDONLY);
        volatile const unsigned char *q = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, fd, 0);
        if (ftruncate(open(mine, O_WRONLY), 0) != 0) _exit(4);
        unsigned v = q[4096]; /* a fault in a mapping profkit does not know */
        _exit(5 + (int)v);
    }
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 43);
}

/* ---- class 8 and 9: Callgrind ---- */

static const char sample[] = "events: Ir\nfn=main\n1 18446744073709551615\n";

/* A Callgrind file's text opened from memory. */
static pk_profile *open_callgrind(const char *name, const char *text)
{
    const void *data = text;
    uint64_t size = strlen(text);
    pk_profile *p = NULL;
    assert_int_equal(pk_profile_open_memory(PK_FORMAT_CALLGRIND, 1, &name, &data, &size, NULL, &p),
                     PK_OK);
    return p;
}

static void a_run_opened_by_base_name_keeps_its_names(void **state)
{
    (void)state;
    char base[128], part[160];
    tu_scratch_path(base, sizeof base, "callgrind.out.77");
    for (int k = 1; k <= 3; k++) {
        snprintf(part, sizeof part, "%s-%02d", base, k);
        FILE *f = fopen(part, "w");
        assert_non_null(f);
        fputs(sample, f);
        fclose(f);
    }
    pk_profile *p;
    assert_int_equal(pk_profile_open(base, NULL, &p), PK_OK);
    assert_int_equal(pk_source_count(p), 3);
    for (size_t i = 0; i < 3; i++) {
        pk_source s;
        char want[32];
        pk_source_get(p, i, &s);
        snprintf(want, sizeof want, "callgrind.out.77-%02zu", i + 1);
        assert_string_equal(s.name, want); /* freed memory before: garbage, or ASan */
    }
    pk_profile_free(p);
}

static void the_largest_cost_is_read(void **state)
{
    (void)state;
    pk_profile *p = open_callgrind("max.callgrind", sample);
    double total = 0;
    assert_int_equal(pk_metric_program_total(p, 0, &total), PK_OK);
    assert_true(total == 18446744073709551615.0);
    pk_profile_free(p);
}

static void formulas_no_tool_can_compute_are_reported(void **state)
{
    (void)state;
    static const char text[] = "events: Ir Dr\nevent: A = B + Ir\nevent: B = 2*A\n"
                               "event: C = C\nevent: D = Nope + Dr\nevent: E = Ir + Dr\n"
                               "fn=main\n1 10 5\n";
    pk_profile *p = open_callgrind("formulas.callgrind", text);
    assert_int_equal(tu_count_diagnostics(p, "formula-cycle", PK_SEV_WARNING), 2); /* A-B, C */
    assert_int_equal(tu_count_diagnostics(p, "formula-unknown-event", PK_SEV_WARNING), 1);
    pk_profile_free(p);
}

/* As if another program rewrote a value of the input while the writer
 * shaped the location's values (a mapped input can change so). */
static int rewritten;
static void rewrite_one_value(const pk_profile *p)
{
    if (!rewritten) rewritten = tu_rewrite_first_value(p);
}

/* The HPCToolkit writer reads a location's plain values several times
 * while shaping them (they are never copied out): a change between two
 * passes fails the write, naming why, and leaves no database. */
static void values_changing_while_shaped_are_refused(void **state)
{
    (void)state;
    static const char text[] = "events: Ir\nfn=main\n1 10\ncfn=work\ncalls=1 2\n1 30\n"
                               "fn=work\n2 30\n";
    char out[4096];
    tu_scratch_path(out, sizeof out, "shaped.d");
    pk_profile *p = open_callgrind("shaped.callgrind", text);
    assert_int_equal(pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, out, NULL, NULL), PK_OK);
    tu_scratch_path(out, sizeof out, "changed.d");
    p->shape_between_passes = rewrite_one_value;
    p->shape_in_plane_values = 1; /* this small location's values stay in its plane */
    rewritten = 0;
    pk_status st = pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, out, NULL, NULL);
    assert_int_equal(rewritten, 1);
    assert_int_equal(st, PK_ERR_FORMAT);
    assert_non_null(strstr(pk_error_last(), "changed while they were shaped"));
    assert_false(pk_path_exists(out));
    pk_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(inflating_past_the_budget_is_refused),
        cmocka_unit_test(shared_value_blocks_are_charged),
        cmocka_unit_test(fifos_devices_and_sockets_are_refused),
        cmocka_unit_test(a_fifo_as_trace_db_is_refused_or_dropped),
        cmocka_unit_test(a_shrunk_mapping_reads_zeros_and_is_damage),
        cmocka_unit_test(a_profile_whose_file_shrinks_says_so),
        cmocka_unit_test(other_sigbus_reaches_the_programs_handler),
        cmocka_unit_test(a_run_opened_by_base_name_keeps_its_names),
        cmocka_unit_test(the_largest_cost_is_read),
        cmocka_unit_test(formulas_no_tool_can_compute_are_reported),
        cmocka_unit_test(values_changing_while_shaped_are_refused),
    };
    if (tu_scratch_make("pk-hostile")) return 1;
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    tu_scratch_remove();
    return failed;
}
