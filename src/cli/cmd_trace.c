/*
 * cli/cmd_trace.c — `profkit trace`: what a profile's traces say about
 * time: per location its samples, span, running and idle time and sample
 * gaps, then the functions that took the most traced time.
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
    "the most traced time over all locations. A sample lasts until the next.\n\n"
    "Options:\n"
    "  -n, --top N       show the N busiest locations and N top functions\n"
    "                    (default 10; 0 = all)\n"
    "      --json        as JSON (docs/json.md, profkit.trace/1)\n"
    "  -h, --help        show this help\n";

typedef struct loc_sum {
    pk_index trace, location;
    pk_trace_summary s;
} loc_sum;

typedef struct fn_time {
    pk_index context; /* the function context that names it */
    double ns;
} fn_time;

static int by_running(const void *a, const void *b)
{
    const loc_sum *x = a, *y = b;
    if (x->s.running_ns != y->s.running_ns) return x->s.running_ns < y->s.running_ns ? 1 : -1;
    return x->trace < y->trace ? -1 : 1;
}

static int by_time(const void *a, const void *b)
{
    const fn_time *x = a, *y = b;
    if (x->ns != y->ns) return x->ns < y->ns ? 1 : -1;
    return x->context < y->context ? -1 : 1;
}

/* Time per function: each context's time goes to its nearest function
 * context (itself or an ancestor), grouped by function index. */
static size_t function_times(const pk_profile *p, const double *by_ctx, fn_time *out)
{
    size_t nc = pk_context_count(p), nf = pk_function_count(p), n = 0;
    double *per_fn = calloc(nf + 1, sizeof *per_fn);
    pk_index *namer = malloc((nf + 1) * sizeof *namer);
    if (!per_fn || !namer) return free(per_fn), free(namer), 0;
    for (pk_index c = 0; c < nc; c++) {
        if (by_ctx[c] == 0) continue;
        pk_context ctx;
        pk_index at = c;
        pk_context_get(p, at, &ctx);
        while (ctx.kind != PK_CTX_FUNCTION && ctx.parent != PK_NONE)
            pk_context_get(p, at = ctx.parent, &ctx);
        if (ctx.kind != PK_CTX_FUNCTION || ctx.function == PK_NONE) {
            out[n++] = (fn_time){c, by_ctx[c]}; /* no function around it */
            continue;
        }
        if (per_fn[ctx.function] == 0) namer[ctx.function] = at;
        per_fn[ctx.function] += by_ctx[c];
    }
    for (size_t f = 0; f < nf; f++)
        if (per_fn[f] != 0) out[n++] = (fn_time){namer[f], per_fn[f]};
    free(per_fn), free(namer);
    qsort(out, n, sizeof *out, by_time);
    return n;
}

/* A duration for people in the table's unit ("70", "0.125"). */
static const char *dur(char *buf, size_t size, double ns, const pk_number_format *nf)
{
    pk_format_number(buf, size, ns, nf);
    return buf;
}

static void text_out(const pk_profile *p, const loc_sum *l, size_t nl, const fn_time *f, size_t nf,
                     size_t top)
{
    uint64_t begin = 0, end = 0;
    double total = 0;
    char name[256], c[5][48], h[32];
    pk_trace_range(p, &begin, &end);
    for (size_t i = 0; i < nl; i++)
        total += l[i].s.running_ns;
    /* times relative to the first sample, in a unit that suits the span */
    pk_number_format t;
    pk_number_format_for(&(pk_metric){.name = "time", .unit = "ns"}, (double)(end - begin), &t);
    printf("%zu traces over %s %s (times in %s, from the first sample on)\n\n", nl,
           dur(c[0], sizeof c[0], (double)(end - begin), &t), t.unit, t.unit);
    printf("%9s %11s %11s %10s %10s %5s %10s  %s\n", "samples", "start", "span", "running", "idle",
           "gaps", "in gaps", "location");
    for (size_t i = 0; i < nl && (top == 0 || i < top); i++) {
        const pk_trace_summary *s = &l[i].s;
        char gaps[24];
        snprintf(gaps, sizeof gaps, s->event_based ? "-" : "%llu", (unsigned long long)s->n_gaps);
        pk_location_name(p, l[i].location, name, sizeof name);
        if (s->n_samples == 0) {
            printf("%9d %11s %11s %10s %10s %5s %10s  %s\n", 0, "-", "-", "-", "-", "-", "-",
                   cli_text(name));
            continue;
        }
        printf("%9llu %11s %11s %10s %10s %5s %10s  %s\n", (unsigned long long)s->n_samples,
               dur(c[0], sizeof c[0], (double)(s->begin - begin), &t),
               dur(c[1], sizeof c[1], (double)(s->end - s->begin), &t),
               dur(c[2], sizeof c[2], s->running_ns, &t), dur(c[3], sizeof c[3], s->idle_ns, &t),
               gaps, dur(c[4], sizeof c[4], s->gap_ns, &t), cli_text(name));
    }
    if (top && nl > top) printf("(%zu quieter locations not shown)\n", nl - top);
    pk_format_header(h, sizeof h, "time", &t);
    printf("\n%12s %6s  %s\n", h, "share", "function");
    for (size_t i = 0; i < nf && (top == 0 || i < top); i++) {
        pk_context_name(p, f[i].context, name, sizeof name);
        printf("%12s %5.1f%%  %s\n", dur(c[0], sizeof c[0], f[i].ns, &t),
               total ? 100 * f[i].ns / total : 0, cli_name(name, 0, 0));
    }
}

static int json_out(const pk_profile *p, const loc_sum *l, size_t nl, const fn_time *f, size_t nf)
{
    uint64_t begin = 0, end = 0;
    pk_json j;
    pk_trace_range(p, &begin, &end);
    pk_json_init(&j, stdout, 1);
    pk_json_object_begin(&j);
    pk_json_key(&j, "schema"), pk_json_string(&j, "profkit.trace/1");
    pk_json_key(&j, "begin_ns"), pk_json_uint(&j, begin);
    pk_json_key(&j, "end_ns"), pk_json_uint(&j, end);
    pk_json_key(&j, "locations");
    pk_json_array_begin(&j);
    for (size_t i = 0; i < nl; i++) {
        const pk_trace_summary *s = &l[i].s;
        pk_json_object_begin(&j);
        pk_json_key(&j, "location"), pk_json_location_name(&j, p, l[i].location);
        pk_json_key(&j, "samples"), pk_json_uint(&j, s->n_samples);
        pk_json_key(&j, "begin_ns"), pk_json_uint(&j, s->begin);
        pk_json_key(&j, "end_ns"), pk_json_uint(&j, s->end);
        pk_json_key(&j, "period_ns"), pk_json_uint(&j, s->period_ns);
        pk_json_key(&j, "event_based"), pk_json_bool(&j, s->event_based);
        pk_json_key(&j, "running_ns"), pk_json_double(&j, s->running_ns);
        pk_json_key(&j, "idle_ns"), pk_json_double(&j, s->idle_ns);
        pk_json_key(&j, "gaps"), pk_json_uint(&j, s->n_gaps);
        pk_json_key(&j, "gap_ns"), pk_json_double(&j, s->gap_ns);
        pk_json_key(&j, "largest_gap_ns"), pk_json_double(&j, s->largest_gap_ns);
        pk_json_object_end(&j);
    }
    pk_json_array_end(&j);
    pk_json_key(&j, "functions");
    pk_json_array_begin(&j);
    for (size_t i = 0; i < nf; i++) {
        pk_json_object_begin(&j);
        pk_json_key(&j, "name"), pk_json_context_name(&j, p, f[i].context);
        pk_json_key(&j, "time_ns"), pk_json_double(&j, f[i].ns);
        pk_json_object_end(&j);
    }
    pk_json_array_end(&j);
    pk_json_object_end(&j);
    return cli_json_done("trace", &j);
}

static int summarize(const pk_profile *p, int json, size_t top)
{
    size_t nt = pk_trace_count(p), nc = pk_context_count(p), nf = 0;
    if (nt == 0) {
        fprintf(stderr, "profkit trace: this profile has no traces\n");
        return CLI_BAD;
    }
    loc_sum *l = calloc(nt, sizeof *l);
    double *by_ctx = calloc(nc ? nc : 1, sizeof *by_ctx);
    fn_time *f = malloc((nc + pk_function_count(p) + 1) * sizeof *f);
    pk_status st = l && by_ctx && f ? PK_OK : PK_ERR_NOMEM;
    for (pk_index t = 0; t < nt && !st; t++) {
        pk_trace tr;
        pk_trace_get(p, t, &tr);
        l[t].trace = t, l[t].location = tr.location;
        st = pk_trace_summarize(p, t, by_ctx, nc, &l[t].s);
    }
    int rc = CLI_OK;
    if (!st) {
        nf = function_times(p, by_ctx, f);
        qsort(l, nt, sizeof *l, by_running);
        if (json)
            rc = json_out(p, l, nt, f, nf);
        else
            text_out(p, l, nt, f, nf, top);
    }
    free(l), free(by_ctx), free(f);
    if (st == PK_ERR_NOMEM) return fprintf(stderr, "profkit trace: out of memory\n"), CLI_BAD;
    return st ? cli_library_error("trace", st) : rc;
}

int cmd_trace(int argc, char **argv)
{
    static const struct option opts[] = {{"top", required_argument, NULL, 'n'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"help", no_argument, NULL, 'h'},
                                         {0}};
    int c, json = 0;
    size_t top = 10;
    char *end;
    while ((c = cli_getopt("trace", argc, argv, "n:h", opts)) != -1) {
        if (c == 'h') return fputs(trace_help, stdout), CLI_OK;
        if (c == 'j') {
            json = 1;
        } else if (c == 'n') {
            top = (size_t)strtoul(optarg, &end, 10);
            if (*end || !*optarg || *optarg == '-')
                return cli_usage_error("trace", "--top wants a number");
        } else {
            return cli_bad_option("trace");
        }
    }
    pk_profile *p;
    int rc = cli_open_arg("trace", argc, argv, PK_OPEN_NO_CCT, NULL, &p);
    if (rc) return rc;
    rc = summarize(p, json, top);
    return cli_close("trace", p, rc);
}
