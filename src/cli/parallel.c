/*
 * cli/parallel.c — the parallel paths of `convert` and `merge`: with
 * --threads N in profkit, and always in profkit-mpi, whose main sets
 * cli_team to its MPI ranks (profkit/parallel.h, docs/mpi.md). Only rank
 * 0 prints; every rank returns the same exit status.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "profkit/parallel.h"

const pk_team *cli_team;

/* An interrupted profkit leaves no temporary output behind (they can be
 * gigabytes): the library removes what it is writing, then the signal
 * does what it would have done. */
static void on_signal(int sig)
{
    pk_output_cleanup();
    signal(sig, SIG_DFL);
    raise(sig);
}

void cli_install_cleanup(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigfillset(&sa.sa_mask); /* one cleanup at a time */
        /* a signal the caller ignores (nohup, a shell's background job)
         * stays ignored */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
    }
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int speaks(void)
{
    return !cli_team || cli_team->rank == 0;
}

int cli_parse_threads(const char *cmd, const char *arg, unsigned *out)
{
    char *end;
    unsigned long n = strtoul(arg, &end, 10);
    if (end == arg || *end || n < 1 || n > 256 || arg[0] == '-')
        return cli_usage_error(cmd, "--threads wants a number from 1 to 256, not '%s'", arg);
    *out = (unsigned)n;
    return CLI_OK;
}

static void members_line(const pk_parallel_stats *s)
{
    char a[32], b[32];
    unsigned ranks = cli_team ? (unsigned)cli_team->size : 1;
    printf("read %u inputs (%s) with %u members (%u rank%s x %u thread%s); %s exchanged\n",
           s->n_inputs, cli_bytes(a, sizeof a, s->input_bytes), s->n_members, ranks,
           ranks == 1 ? "" : "s", s->n_members / ranks, s->n_members / ranks == 1 ? "" : "s",
           cli_bytes(b, sizeof b, s->sent_bytes));
    printf("time (member 0): read %.2f s, ids %.2f s, values %.2f s, write %.2f s; its CPU: "
           "%.2f, %.2f, %.2f, %.2f s\n",
           s->seconds_read, s->seconds_ids, s->seconds_values, s->seconds_write, s->cpu_read,
           s->cpu_ids, s->cpu_values, s->cpu_write);
}

static int finish(const char *cmd, const char *output, pk_status st, const pk_parallel_stats *s,
                  double seconds, int quiet)
{
    if (st) {
        if (speaks()) cli_library_error(cmd, st);
        return CLI_BAD;
    }
    if (quiet || !speaks()) return CLI_OK;
    char b[32];
    double total = s->seconds_read + s->seconds_ids + s->seconds_values + s->seconds_write;
    printf("wrote %s: %u files, %s, %llu values in %.2f s (%.0f MB/s of input)\n", cli_text(output),
           s->write.n_files, cli_bytes(b, sizeof b, s->write.bytes),
           (unsigned long long)s->write.n_values, seconds,
           total > 0 ? s->input_bytes / total / 1e6 : 0.0);
    members_line(s);
    return CLI_OK;
}

int cli_parallel_convert(const char *input, const char *output, unsigned threads,
                         uint32_t write_flags, int quiet, double seconds_start)
{
    pk_parallel_options o = {cli_team, threads, 0, write_flags, cli_report_loss, (void *)output, 0};
    const char *no_symbols = getenv("PROFKIT_NO_SYMBOLS");
    if (no_symbols && *no_symbols && no_symbols[0] != '0') o.open_flags |= PK_OPEN_NO_SYMBOLS;
    pk_parallel_stats s;
    pk_status st = pk_build_database(input, output, &o, &s);
    return finish("convert", output, st, &s, cli_now() - seconds_start, quiet);
}
int cli_parallel_merge(const char *const *inputs, int n, const char *output, unsigned threads,
                       int mean, uint32_t write_flags, int quiet, double seconds_start,
                       pk_parallel_stats *s, pk_status *st)
{
    pk_parallel_options o = {cli_team,        threads,        0,   write_flags,
                             cli_report_loss, (void *)output, mean};
    *st = pk_merge_database(inputs, (size_t)n, output, &o, s);
    return finish("merge", output, *st, s, cli_now() - seconds_start, quiet);
}
