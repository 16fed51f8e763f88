/*
 * cli/cmd_trace.c — `profkit trace`: what a profile's traces say about
 * time, for the locations, window and functions the options choose: per
 * location its samples, span, running and idle time and sample gaps,
 * then the functions that took the most traced time. The library answers
 * (pk_trace_answer_compute, profkit/trace.h) and writes the JSON; this
 * file parses options and renders text.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char trace_help[] =
    "Usage: profkit trace [options] PATH\n\n"
    "Summarise the traces of a profile (HPCToolkit trace.db): the time range,\n"
    "then per location (thread, rank) its samples, first and last timestamp,\n"
    "time running (in a calling context), idle (not running) and in gaps\n"
    "(intervals over ten times the median sampling interval: missing data,\n"
    "credited to nothing; '-' for event traces such as GPU streams, whose\n"
    "long intervals are long kernels or idle time), then the functions with\n"
    "the most traced time over the locations: self (innermost on the call\n"
    "path) and inclusive (anywhere on it). A sample lasts until the next.\n\n"
    "Selection (the same in `profkit convert --to chrome`, the view, Python):\n"
    "      --location SEL  only these locations: KIND=ID[,...] (rank=3,thread=0;\n"
    "                      rank=3 is every thread of rank 3) or #N (index N)\n"
    "      --from T        the window's start, --to T its end (exclusive): a\n"
    "      --to T          number with a unit (1.5s, 250ms, 20us, 100ns, 2min)\n"
    "                      (--until T is --to T, as `convert` spells it)\n"
    "                      counted from the traces' start, or digits alone for\n"
    "                      an absolute timestamp in ns (default: all of it)\n"
    "      --focus REGEX   only samples with a function whose name matches on\n"
    "                      their call path (POSIX extended regex)\n"
    "      --hide REGEX    leave out samples with a matching function on their\n"
    "                      call path (their time shows as 'filtered')\n\n"
    "Options:\n"
    "  -n, --top N         show the N busiest locations and N top functions\n"
    "                      (default 10; 0 = all)\n"
    "      --json          as JSON (docs/json.md, profkit.trace/1)\n"
    "      --timeline PX   with --json: add the timeline the view draws, PX\n"
    "                      pixels wide (1-100000), one row per location\n"
    "  -h, --help          show this help\n\n"
    "Exit status: 0 answered, 1 unreadable input, no traces, or a selection\n"
    "that holds nothing, 2 usage error (a bad time, selector or expression).\n";

typedef struct trace_args {
    pk_trace_selection sel;
    int json;
    size_t top;
    unsigned timeline;
} trace_args;

/* A duration for people in the table's unit ("70", "0.125"). */
static const char *dur(char *buf, size_t size, double ns, const pk_number_format *nf)
{
    pk_format_number(buf, size, ns, nf);
    return buf;
}

static void say_selection(const trace_args *a, const pk_trace_answer *ans, size_t n_traces,
                          const pk_number_format *t)
{
    const pk_trace_selection *s = &a->sel;
    char b[2][48];
    if (!a->sel.location && !s->from && !s->to && !s->focus && !s->hide) return;
    printf("showing %zu of %zu traces", ans->n_locations, n_traces);
    if (s->location) printf(" (--location %s)", cli_text(s->location));
    if (s->from || s->to)
        printf(", from %s to %s %s",
               dur(b[0], sizeof b[0], (double)ans->from_ns - ans->begin_ns, t),
               dur(b[1], sizeof b[1], (double)ans->to_ns - ans->begin_ns, t), t->unit);
    if (s->focus) printf(", focus '%s'", cli_text(s->focus));
    if (s->hide) printf(", hide '%s'", cli_text(s->hide));
    printf("\n");
}

static void location_rows(const pk_profile *p, const trace_args *a, const pk_trace_answer *ans,
                          const pk_number_format *t)
{
    int filtered = a->sel.focus || a->sel.hide;
    char name[256], c[6][48], fcol[64];
    printf("%9s %11s %11s %10s %10s %5s %10s%s  %s\n", "samples", "start", "span", "running",
           "idle", "gaps", "in gaps", filtered ? "   filtered" : "", "location");
    for (size_t i = 0; i < ans->n_locations && (a->top == 0 || i < a->top); i++) {
        const pk_trace_location *l = &ans->locations[i];
        char gaps[24];
        snprintf(gaps, sizeof gaps, l->event_based ? "-" : "%llu", (unsigned long long)l->n_gaps);
        pk_location_name(p, l->location, name, sizeof name);
        if (l->n_samples == 0) {
            printf("%9d %11s %11s %10s %10s %5s %10s%s  %s\n", 0, "-", "-", "-", "-", "-", "-",
                   filtered ? "          -" : "", cli_text(name));
            continue;
        }
        if (filtered)
            snprintf(fcol, sizeof fcol, " %10s", dur(c[5], sizeof c[5], l->filtered_ns, t));
        printf("%9llu %11s %11s %10s %10s %5s %10s%s  %s\n", (unsigned long long)l->window_samples,
               dur(c[0], sizeof c[0], (double)l->begin_ns - ans->begin_ns, t),
               dur(c[1], sizeof c[1], (double)(l->end_ns - l->begin_ns), t),
               dur(c[2], sizeof c[2], l->running_ns, t), dur(c[3], sizeof c[3], l->idle_ns, t),
               gaps, dur(c[4], sizeof c[4], l->gap_ns, t), filtered ? fcol : "", cli_text(name));
    }
    if (a->top && ans->n_locations > a->top)
        printf("(%zu quieter locations not shown)\n", ans->n_locations - a->top);
}

static void text_out(const pk_profile *p, const trace_args *a, const pk_trace_answer *ans)
{
    char name[256], c[2][48], h[2][32];
    /* times relative to the traces' start, in a unit that suits the span */
    pk_number_format t;
    double span = (double)(ans->end_ns - ans->begin_ns);
    pk_number_format_for(&(pk_metric){.name = "time", .unit = "ns"}, span, &t);
    printf("%zu traces over %s %s (times in %s, from the first sample on)\n", pk_trace_count(p),
           dur(c[0], sizeof c[0], span, &t), t.unit, t.unit);
    say_selection(a, ans, pk_trace_count(p), &t);
    printf("\n");
    location_rows(p, a, ans, &t);
    pk_format_header(h[0], sizeof h[0], "time", &t);
    pk_format_header(h[1], sizeof h[1], "inclusive", &t);
    printf("\n%12s %6s %15s  %s\n", h[0], "share", h[1], "function");
    size_t shown = 0;
    for (size_t i = 0; i < ans->n_functions && (a->top == 0 || shown < a->top); i++) {
        const pk_trace_function *f = &ans->functions[i];
        if (f->self_ns == 0) break; /* the rest only call others: inclusive alone */
        pk_context_name(p, f->context, name, sizeof name);
        printf("%12s %5.1f%% %15s  %s\n", dur(c[0], sizeof c[0], f->self_ns, &t),
               ans->running_ns ? 100 * f->self_ns / ans->running_ns : 0,
               dur(c[1], sizeof c[1], f->inclusive_ns, &t), cli_name(name, 0, 0));
        shown++;
    }
}

static int json_out(const pk_profile *p, const pk_trace_answer *ans)
{
    pk_json j;
    pk_json_init(&j, stdout, 1);
    pk_trace_answer_write_json(&j, p, ans);
    return cli_json_done("trace", &j);
}

static int summarize(const pk_profile *p, const char *path, const trace_args *a)
{
    if (pk_trace_count(p) == 0) {
        fprintf(stderr,
                "profkit trace: %s has no traces (only HPCToolkit databases with a "
                "trace.db, hpcrun .hpctrace files and profkit JSON carry them)\n",
                cli_text(path));
        return CLI_BAD;
    }
    pk_trace_answer *ans = NULL;
    pk_trace_timeline_options tl = {.width = a->timeline};
    pk_status st = pk_trace_answer_compute(p, &a->sel, a->timeline ? &tl : NULL, NULL, &ans);
    if (st) return cli_library_error("trace", st);
    int rc = CLI_OK;
    if (a->json)
        rc = json_out(p, ans);
    else
        text_out(p, a, ans);
    pk_trace_answer_free(ans);
    return rc ? rc : cli_output_done("trace");
}

/* 0 to go on, else the exit status. */
static int parse(int argc, char **argv, trace_args *a)
{
    enum { O_JSON = 256, O_LOC, O_FROM, O_TO, O_FOCUS, O_HIDE, O_TIMELINE };
    static const struct option opts[] = {{"top", required_argument, NULL, 'n'},
                                         {"json", no_argument, NULL, O_JSON},
                                         {"location", required_argument, NULL, O_LOC},
                                         {"from", required_argument, NULL, O_FROM},
                                         {"to", required_argument, NULL, O_TO},
                                         {"until", required_argument, NULL, O_TO},
                                         {"focus", required_argument, NULL, O_FOCUS},
                                         {"hide", required_argument, NULL, O_HIDE},
                                         {"timeline", required_argument, NULL, O_TIMELINE},
                                         {"help", no_argument, NULL, 'h'},
                                         {0}};
    int c;
    char *end;
    while ((c = cli_getopt("trace", argc, argv, "n:h", opts)) != -1) {
        unsigned long v;
        switch (c) {
        case 'h':
            return fputs(trace_help, stdout), -1;
        case O_JSON:
            a->json = 1;
            break;
        case 'n':
            a->top = (size_t)strtoul(optarg, &end, 10);
            if (*end || !*optarg || *optarg == '-')
                return cli_usage_error("trace", "--top wants a number");
            break;
        case O_TIMELINE:
            v = strtoul(optarg, &end, 10);
            if (*end || !*optarg || *optarg == '-' || v < 1 || v > 100000)
                return cli_usage_error("trace", "--timeline wants a width of 1 to 100000 pixels");
            a->timeline = (unsigned)v;
            break;
        case O_LOC:
            a->sel.location = optarg;
            break;
        case O_FROM:
            a->sel.from = optarg;
            break;
        case O_TO:
            a->sel.to = optarg;
            break;
        case O_FOCUS:
            a->sel.focus = optarg;
            break;
        case O_HIDE:
            a->sel.hide = optarg;
            break;
        default:
            return cli_bad_option("trace");
        }
    }
    if (a->timeline && !a->json) return cli_usage_error("trace", "--timeline goes with --json");
    return 0;
}

int cmd_trace(int argc, char **argv)
{
    trace_args a = {.top = 10};
    int rc = parse(argc, argv, &a);
    if (rc) return rc < 0 ? CLI_OK : rc;
    pk_profile *p;
    const char *path;
    rc = cli_open_arg("trace", argc, argv, PK_OPEN_NO_CCT, &path, &p);
    if (rc) return rc;
    rc = summarize(p, path, &a);
    return cli_close("trace", p, rc);
}
