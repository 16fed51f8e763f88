/*
 * cli/cmd_merge.c — `profkit merge`: combine several profiles (runs of one
 * program, or parts of one run) into one, written in any format profkit
 * writes. The work is pk_profile_merge(); this file reads the inputs,
 * chooses the output format and reports.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>

#include "cli.h"

static const char merge_help[] =
    "Usage: profkit merge [options] INPUT INPUT... -o OUTPUT [--to FORMAT]\n\n"
    "Combine profiles into one. Inputs may be in any format profkit reads, and\n"
    "in different formats. Calling contexts are matched by their path from the\n"
    "root (function names, source positions, code addresses), so a call path\n"
    "only some inputs have is kept with their values; metrics are matched by\n"
    "name.\n\n"
    "By default every location (thread, rank, GPU stream) of every input is kept.\n"
    "When two inputs have a location with the same identity (two runs: both\n"
    "have rank 0, thread 0), each location gets a leading RUN element naming its\n"
    "input (RUN 0 = the first INPUT), so none is lost. With --mean, locations\n"
    "with the same identity become one, holding the mean over the inputs that\n"
    "have it: the average of repeated runs; traces are then left out.\n"
    "Statistics across locations (HPCToolkit's summary profile) are recomputed\n"
    "by the writer, not taken from the inputs.\n\n"
    "FORMAT is hpctoolkit, cube, callgrind, pprof or json (see `profkit convert --help`);\n"
    "by default it follows OUTPUT's name as in convert.\n\n"
    "Options:\n"
    "  -o, --output PATH   where to write (required); - is standard output\n"
    "  -t, --to FORMAT     output format\n"
    "      --mean          average locations with the same identity\n"
    "  -f, --force         replace an existing output\n"
    "  -q, --quiet         print nothing on success\n"
    "      --json          report what was merged and written as JSON\n"
    "                      (docs/json.md, profkit.merge/1)\n"
    "      --threads N     merge into an HPCToolkit database with N threads, each\n"
    "                      reading a share of the inputs (the same database, byte\n"
    "                      for byte; profkit-mpi does it over MPI ranks, docs/mpi.md)\n"
    "  -h, --help          show this help\n\n"
    "Exit status: 0 written, 1 an input unreadable or the write failed, 2 usage error.\n";

typedef struct merge_args {
    const char *output, *to;
    int mean, force, quiet, json;
    unsigned threads; /* --threads N: the parallel path (0: not asked for) */
} merge_args;

enum { OPT_JSON = 1000, OPT_THREADS };

/* 0 to go on, -1 after --help, else the exit status. */
static int parse(int argc, char **argv, merge_args *a)
{
    static const struct option longopts[] = {{"output", required_argument, 0, 'o'},
                                             {"to", required_argument, 0, 't'},
                                             {"mean", no_argument, 0, 'M'},
                                             {"force", no_argument, 0, 'f'},
                                             {"quiet", no_argument, 0, 'q'},
                                             {"json", no_argument, 0, OPT_JSON},
                                             {"help", no_argument, 0, 'h'},
                                             {"threads", required_argument, 0, OPT_THREADS},
                                             {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = cli_getopt("merge", argc, argv, "o:t:fqh", longopts)) != -1) {
        if (c == 'o')
            a->output = optarg;
        else if (c == 't')
            a->to = optarg;
        else if (c == 'M')
            a->mean = 1;
        else if (c == 'f')
            a->force = 1;
        else if (c == 'q')
            a->quiet = 1;
        else if (c == OPT_JSON)
            a->json = 1;
        else if (c == OPT_THREADS) {
            if (cli_parse_threads("merge", optarg, &a->threads)) return CLI_USAGE;
        } else if (c == 'h')
            return fputs(merge_help, stdout), -1;
        else
            return cli_bad_option("merge");
    }
    if (argc - optind < 2) return cli_usage_error("merge", "give at least two INPUTs");
    if (!a->output) return cli_usage_error("merge", "missing -o OUTPUT");
    return 0;
}

static int open_all(int n, char **paths, pk_profile **profiles)
{
    for (int i = 0; i < n; i++) {
        int rc = cli_open("merge", paths[i], 0, &profiles[i]);
        if (rc) return rc;
    }
    return 0;
}

static const char *format_name(pk_format f)
{
    return f == PK_FORMAT_HPCTOOLKIT_V4 ? "hpctoolkit"
           : f == PK_FORMAT_CUBE        ? "cube"
           : f == PK_FORMAT_CALLGRIND   ? "callgrind"
           : f == PK_FORMAT_JSON        ? "json"
                                        : "other";
}

typedef struct merged {
    int n_inputs;
    char **inputs;
    size_t n_ctx, n_locs;
    pk_format format;
    pk_write_stats stats;
} merge_report;

static int report_json(const merge_args *a, const merge_report *m)
{
    pk_json j;
    pk_json_init(&j, stdout, 1);
    pk_json_object_begin(&j);
    pk_json_key(&j, "schema"), pk_json_string(&j, "profkit.merge/1");
    pk_json_key(&j, "inputs"), pk_json_array_begin(&j);
    for (int i = 0; i < m->n_inputs; i++)
        pk_json_string(&j, m->inputs[i]);
    pk_json_array_end(&j);
    pk_json_key(&j, "mean"), pk_json_bool(&j, a->mean);
    pk_json_key(&j, "contexts"), pk_json_uint(&j, m->n_ctx);
    pk_json_key(&j, "locations"), pk_json_uint(&j, m->n_locs);
    pk_json_key(&j, "output"), pk_json_object_begin(&j);
    pk_json_key(&j, "path"), pk_json_string(&j, a->output);
    pk_json_key(&j, "format"), pk_json_string(&j, format_name(m->format));
    pk_json_key(&j, "files"), pk_json_uint(&j, m->stats.n_files);
    pk_json_key(&j, "bytes"), pk_json_uint(&j, m->stats.bytes);
    pk_json_key(&j, "values"), pk_json_uint(&j, m->stats.n_values);
    pk_json_key(&j, "left_out"), pk_json_uint(&j, m->stats.n_losses);
    pk_json_key(&j, "skipped_traces"), pk_json_uint(&j, m->stats.n_skipped_traces);
    pk_json_object_end(&j);
    pk_json_object_end(&j);
    return cli_json_done("merge", &j);
}

static int merge_and_write(pk_profile **in, int n, char **paths, const merge_args *a,
                           pk_format format)
{
    pk_merge_options mo = {a->mean};
    pk_profile *merged;
    pk_status st = pk_profile_merge((const pk_profile *const *)in, (size_t)n, &mo, &merged);
    if (st) return cli_library_error("merge", st);
    pk_write_options wo = {.flags = a->force ? PK_WRITE_FORCE : 0,
                           .loss = cli_report_loss,
                           .loss_user = (void *)a->output};
    pk_write_stats stats;
    st = pk_profile_write(merged, format, a->output, &wo, &stats);
    size_t n_locs = pk_location_count(merged), n_ctx = pk_context_count(merged);
    pk_profile_free(merged);
    if (st) return cli_library_error("merge", st);
    if (a->json) {
        merge_report m = {n, paths, n_ctx, n_locs, format, stats};
        return report_json(a, &m);
    }
    if (!a->quiet) {
        char b[32];
        FILE *out = cli_messages(a->output);
        fprintf(out, "merged %d profiles: %zu contexts, %zu locations%s\n", n, n_ctx, n_locs,
                a->mean ? " (averaged)" : "");
        if (cli_is_stdout(a->output))
            fprintf(out, "wrote standard output: %llu values\n",
                    (unsigned long long)stats.n_values);
        else
            fprintf(out, "wrote %s: %u files, %s, %llu values\n", cli_text(a->output),
                    stats.n_files, cli_bytes(b, sizeof b, stats.bytes),
                    (unsigned long long)stats.n_values);
    }
    return CLI_OK;
}

/* --threads, or profkit-mpi: the merge built in parallel. */
static int merge_parallel(const merge_args *a, pk_format format, int n, char **paths)
{
    if (format != PK_FORMAT_HPCTOOLKIT_V4)
        return cli_usage_error("merge", "the parallel merge (--threads, profkit-mpi) writes "
                                        "HPCToolkit databases only (OUTPUT.d or --to hpctoolkit)");
    pk_parallel_stats s;
    pk_status st;
    int rc = cli_parallel_merge((const char *const *)paths, n, a->output,
                                a->threads ? a->threads : 1, a->mean, a->force ? PK_WRITE_FORCE : 0,
                                a->quiet || a->json, cli_now(), &s, &st);
    if (rc || !a->json || (cli_team && cli_team->rank != 0)) return rc;
    pk_write_stats ws = s.write;
    merge_report m = {n, paths, (size_t)s.n_contexts, (size_t)s.n_locations, format, ws};
    return report_json(a, &m);
}

int cmd_merge(int argc, char **argv)
{
    merge_args a = {0};
    int rc = parse(argc, argv, &a);
    if (rc) return rc < 0 ? CLI_OK : rc;
    pk_format format;
    if (a.to ? !cli_format_from_name(a.to, &format) : !cli_format_from_path(a.output, &format))
        return cli_usage_error("merge",
                               a.to ? "unknown output format '%s' (known: hpctoolkit, callgrind, "
                                      "cube, json)"
                                    : "cannot tell the format of '%s': give --to",
                               a.to ? a.to : a.output);
    if (cli_is_stdout(a.output) && a.json)
        return cli_usage_error("merge", "--json and -o - would both write to standard output");
    if (cli_is_stdout(a.output) && format == PK_FORMAT_HPCTOOLKIT_V4)
        return cli_usage_error("merge", "an HPCToolkit database is a directory: it cannot be "
                                        "written to standard output (-o -); name a directory");
    if (format == PK_FORMAT_CUBE && (rc = cli_binary_ok("merge", a.output, "a Cube archive")))
        return rc;
    int n = argc - optind;
    if (a.threads || cli_team) return merge_parallel(&a, format, n, argv + optind);
    pk_profile **in = calloc((size_t)n, sizeof *in);
    if (!in) return cli_library_error("merge", PK_ERR_NOMEM);
    rc = open_all(n, argv + optind, in);
    if (!rc) rc = merge_and_write(in, n, argv + optind, &a, format);
    for (int i = 0; i < n; i++)
        rc = cli_close("merge", in[i], rc);
    free(in);
    return rc;
}
