/*
 * cli/convert_chrome.c — `profkit convert --to chrome`: a profile's
 * traces, or the part the selection chooses, as a Chrome Trace Event
 * file (pk_trace_export_chrome), written safely like every profkit
 * output. Before writing, a trace bigger than the viewers load (about
 * 256 MB of JSON) is said so, with the options that would cut it; a
 * profile without traces gives an empty trace and one note (exit 0: the
 * export is faithful, there is just nothing in it).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"

#define VIEWER_LIMIT (256ull << 20)

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Seconds after the origin, in the fewest digits that still cut inside
 * the window ("1.25s", "812ms"). */
static void time_text(char *buf, size_t size, uint64_t ns_after)
{
    if (ns_after >= 1000000000ull)
        snprintf(buf, size, "%.6gs", (double)ns_after / 1e9);
    else if (ns_after >= 1000000ull)
        snprintf(buf, size, "%.6gms", (double)ns_after / 1e6);
    else
        snprintf(buf, size, "%lluus", (unsigned long long)(ns_after / 1000));
}

static void warn_size(const pk_profile *p, const pk_trace_selection *sel,
                      const pk_trace_estimate *e, size_t threads)
{
    char a[32], b[32], c[32];
    uint64_t origin = 0;
    pk_trace_origin(p, &origin);
    fprintf(stderr,
            "profkit convert: warning: this trace is %s of JSON (%llu events); "
            "chrome://tracing stops near 256 MB, ui.perfetto.dev needs 2-4 times the file in "
            "memory, speedscope stops at 512 MB.\n",
            cli_bytes(a, sizeof a, e->bytes), (unsigned long long)e->events);
    time_text(b, sizeof b, e->fits_to_ns > origin ? e->fits_to_ns - origin : 0);
    time_text(c, sizeof c, e->to_ns > origin ? e->to_ns - origin : 0);
    fprintf(stderr,
            "  To cut it: %s%s%s--until %s (what of the window fits in 256 MB; it runs to %s),"
            " --location SEL (%zu threads now), --focus/--hide REGEX.\n",
            sel->from ? "--from " : "", sel->from ? cli_text(sel->from) : "", sel->from ? " " : "",
            b, c, threads);
}

/* Say so before writing when the export will pass what viewers load. */
static int check_size(const pk_profile *p, const pk_trace_selection *sel,
                      const pk_trace_export_options *o)
{
    uint64_t bound = 0;
    pk_status st = pk_trace_export_bound(p, sel, &bound);
    if (st) return cli_library_error("convert", st);
    if (bound <= VIEWER_LIMIT) return CLI_OK;
    pk_trace_estimate *e = malloc(sizeof *e);
    if (!e) return fprintf(stderr, "profkit convert: out of memory\n"), CLI_BAD;
    st = pk_trace_export_estimate(p, sel, o, e);
    if (!st && e->over_limit) warn_size(p, sel, e, e->threads);
    free(e);
    return st ? cli_library_error("convert", st) : CLI_OK;
}

static void report(const char *output, const pk_trace_export_stats *s, double secs)
{
    char a[32], b[32];
    struct stat st;
    FILE *out = cli_messages(output);
    int have = !cli_is_stdout(output) && stat(output, &st) == 0;
    fprintf(out, "wrote %s (chrome): %zu threads in %zu processes, %llu events, %s of JSON",
            cli_is_stdout(output) ? "standard output" : cli_text(output), s->n_threads,
            s->n_processes, (unsigned long long)s->events, cli_bytes(a, sizeof a, s->bytes));
    if (have && (uint64_t)st.st_size != s->bytes)
        fprintf(out, " (%s on disk)", cli_bytes(b, sizeof b, (unsigned long long)st.st_size));
    fprintf(out, " in %.2f s\n", secs);
}

/* Check the size, then write; the exit status. */
static int write_chrome(const pk_profile *p, const char *input, const char *output,
                        const pk_trace_selection *sel, const pk_trace_export_options *o, int force,
                        int quiet)
{
    int rc = CLI_OK;
    if (!pk_trace_count(p))
        fprintf(stderr,
                "profkit convert: note: %s has no traces (only HPCToolkit databases with "
                "a trace.db, hpcrun .hpctrace files and profkit JSON carry them): "
                "writing an empty trace\n",
                cli_text(input));
    else if ((rc = check_size(p, sel, o)) != CLI_OK)
        return rc;
    pk_output *out;
    pk_status st = pk_output_open(output, force ? PK_WRITE_FORCE : 0, &out);
    if (st) return cli_library_error("convert", st);
    pk_trace_export_stats stats;
    double t0 = now();
    st = pk_trace_export_chrome(pk_output_stream(out), p, sel, o, &stats);
    if (st == PK_ERR_IO && pk_output_status(out)) st = PK_ERR_IO; /* its message says why */
    if (st)
        pk_output_abort(out);
    else
        st = pk_output_commit(out);
    if (st) return cli_library_error("convert", st);
    if (!quiet) report(output, &stats, now() - t0);
    return CLI_OK;
}

int cli_export_chrome(const char *input, const char *output, const pk_trace_selection *sel,
                      int force, int gzip, int quiet)
{
    pk_profile *p;
    int rc = cli_open("convert", input, PK_OPEN_NO_CCT, &p);
    if (rc) return rc;
    /* each trace's median interval, found once for the estimate and the export */
    pk_trace_facts *facts = calloc(pk_trace_count(p) + 1, sizeof *facts);
    pk_trace_export_options o = {
        .gzip = gzip || ends_with(output, ".gz"), .source = input, .facts = facts};
    if (o.gzip && (rc = cli_binary_ok("convert", output, "gzip-compressed JSON")) != CLI_OK)
        return free(facts), cli_close("convert", p, rc);
    rc = facts ? write_chrome(p, input, output, sel, &o, force, quiet)
               : (fprintf(stderr, "profkit convert: out of memory\n"), CLI_BAD);
    free(facts);
    return cli_close("convert", p, rc);
}
