/*
 * cli/cmd_convert.c — `profkit convert`: read a profile in any format
 * profkit reads, write it in another (or the same) format.
 *
 * The conversion goes through the model, so every reader pairs with every
 * writer. Writers never leave a partial result: a failed conversion leaves
 * the output path as it was.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char convert_help[] =
    "Usage: profkit convert [options] INPUT -o OUTPUT [--to FORMAT]\n\n"
    "Convert a profile to another format. Formats written so far:\n"
    "  hpctoolkit   HPCToolkit v4 database directory (meta.db, profile.db, cct.db,\n"
    "               trace.db when there are traces, metrics/default.yaml); opens in\n"
    "               hpcviewer. Chosen by default when OUTPUT ends in '.d'.\n"
    "  callgrind    Callgrind file: one part holding the sum over the locations\n"
    "               (threads, ranks, parts), call arcs with inclusive costs;\n"
    "               opens in KCachegrind and callgrind_annotate. --split writes\n"
    "               one file per location, --location SEL only SEL's. Chosen by\n"
    "               default when OUTPUT's name contains 'callgrind'. From a\n"
    "               calling-context tree the call graph is exact; values that are\n"
    "               not integers are scaled (seconds to ns...) and their unit\n"
    "               recorded (docs/callgrind.md, docs/conversion.md).\n"
    "  cube         Cube 4.4 .cubex archive; opens in CubeGUI, cube_dump and\n"
    "               pycubexr. Chosen by default when OUTPUT ends in '.cubex'.\n"
    "               Lines and loops fold into their function's call-tree node\n"
    "               (docs/cube.md).\n"
    "  pprof        pprof's profile.proto, gzip-compressed (plain when OUTPUT\n"
    "               ends in '.pb'); opens in go tool pprof, Parca, Pyroscope.\n"
    "               Each metric a sample type (integers: time in nanoseconds),\n"
    "               calling contexts as stacks, inlined functions as a\n"
    "               location's lines, each location's values as samples\n"
    "               labelled with its ids (--location SEL: SEL's, summed).\n"
    "               Chosen by default for '.pb.gz', '.pb', '.pprof'\n"
    "               (docs/pprof.md).\n"
    "  json         profkit.model/1: the whole model (contexts, metrics, every\n"
    "               value exactly, traces, attributes, call graph) as JSON that\n"
    "               profkit reads back like any profile (docs/json.md). Chosen\n"
    "               by default when OUTPUT ends in '.json' (not '.speedscope.json').\n"
    "Exports for other tools (not read back), of one metric (-m) where it matters:\n"
    "  folded       folded stacks \"main;solve;dot 2.5\" (flamegraph.pl, inferno);\n"
    "               default for OUTPUT ending in '.folded'\n"
    "  speedscope   speedscope's JSON, one profile per thread/rank; default for\n"
    "               '.speedscope.json'\n"
    "  csv          every stored value: location,context,parent,name,module,\n"
    "               file,line,metric,scope,value\n"
    "               (pandas.read_csv); default for '.csv'\n"
    "  chrome       the traces as Chrome Trace Event JSON (chrome://tracing,\n"
    "               ui.perfetto.dev, speedscope): a process per rank, a thread\n"
    "               per thread or GPU stream, nested B/E events per call path;\n"
    "               gzip when OUTPUT ends in '.gz' or with -z; default for\n"
    "               '.chrome.json[.gz]'. Streams in bounded memory; warns, with\n"
    "               the options that would cut it, when the JSON will pass\n"
    "               256 MB; a profile without traces gives an empty trace.\n"
    "               --location, --from, --until, --focus, --hide choose what\n"
    "               to export, as `profkit trace` does (docs/conversion.md)\n\n"
    "The output is written under a temporary name and renamed into place, so a\n"
    "failure never leaves a half-written profile. An existing OUTPUT is replaced\n"
    "only with --force.\n\n"
    "Options:\n"
    "  -o, --output PATH   where to write (required); - is standard output (not\n"
    "                      for a database directory or --split; binary Cube and\n"
    "                      gzip output not to a terminal)\n"
    "  -m, --metric NAME   the metric of folded and speedscope exports (default:\n"
    "                      the first time metric with a non-zero total)\n"
    "  -t, --to FORMAT     output format (see above)\n"
    "  -f, --force         replace an existing output\n"
    "  -r, --recompute     recompute every propagated scope (function, lex_aware,\n"
    "                      execution) and summary statistic from the point values,\n"
    "                      as hpcprof does, before writing (docs/derive.md)\n"
    "      --no-trace      leave traces out\n"
    "      --split         one file per location where the format has that form\n"
    "                      (callgrind: OUTPUT-01, OUTPUT-02..., opened together by\n"
    "                      the name OUTPUT, as callgrind's per-thread files are)\n"
    "      --location SEL  callgrind, pprof: only the locations SEL names,\n"
    "                      KIND=ID[,...] (rank=3,thread=0; rank=3 is all threads of\n"
    "                      rank 3) or #N (index N in 'profkit threads'), summed into\n"
    "                      one part (callgrind: one file each with --split); chrome:\n"
    "                      only their traces\n"
    "      --from T        chrome: the window's start and end (exclusive): 1.5s,\n"
    "      --until T       250ms... after the traces' start, or absolute ns\n"
    "      --focus REGEX   chrome: only samples with a matching function on their\n"
    "                      call path; --hide REGEX: without one\n"
    "  -z, --compress      compress values where the format can (cube: ZCUBEX.DATA)\n"
    "      --strict        fail (exit 1, nothing written) instead of leaving out\n"
    "                      what the output format cannot hold; without it each\n"
    "                      such item is named on stderr once (docs/conversion.md)\n"
    "      --threads N     an hpcrun measurement directory to an HPCToolkit database\n"
    "                      with N threads: the files are read, ids assigned, values\n"
    "                      derived and written by all of them (the same database,\n"
    "                      byte for byte; profkit-mpi does it over MPI ranks,\n"
    "                      docs/mpi.md)\n"
    "  -q, --quiet         print nothing on success\n"
    "  -h, --help          show this help\n\n"
    "Exit status: 0 written, 1 input unreadable, not writable in this format or\n"
    "write failed, 2 usage error.\n";

/* A one-line progress meter on stderr (only when it is a terminal): the
 * writer's estimate of the total while it holds, else what is written. */
static void show_progress(void *user, uint64_t done, uint64_t total)
{
    (void)user;
    char a[32], b[32];
    if (total >= done)
        fprintf(stderr, "\r\033[Kconvert: %s of ~%s written", cli_bytes(a, sizeof a, done),
                cli_bytes(b, sizeof b, total));
    else /* 0: the writer cannot tell */
        fprintf(stderr, "\r\033[Kconvert: %s written", cli_bytes(a, sizeof a, done));
    fflush(stderr);
}

typedef struct convert_args {
    const char *input, *output, *to, *metric, *location;
    pk_trace_selection trace; /* chrome: --from, --until, --focus, --hide */
    uint32_t write_flags;
    int quiet, recompute;
    unsigned threads; /* --threads N: the parallel path (0: not asked for) */
} convert_args;

enum { OPT_THREADS = 1000 };

/* 0 to go on, else the exit status. */
static int parse(int argc, char **argv, convert_args *a)
{
    static const struct option longopts[] = {{"output", required_argument, 0, 'o'},
                                             {"to", required_argument, 0, 't'},
                                             {"force", no_argument, 0, 'f'},
                                             {"no-trace", no_argument, 0, 'T'},
                                             {"recompute", no_argument, 0, 'r'},
                                             {"quiet", no_argument, 0, 'q'},
                                             {"split", no_argument, 0, 'S'},
                                             {"compress", no_argument, 0, 'z'},
                                             {"help", no_argument, 0, 'h'},
                                             {"metric", required_argument, 0, 'm'},
                                             {"strict", no_argument, 0, 'X'},
                                             {"location", required_argument, 0, 'L'},
                                             {"from", required_argument, 0, 'F'},
                                             {"until", required_argument, 0, 'U'},
                                             {"focus", required_argument, 0, 'P'},
                                             {"hide", required_argument, 0, 'H'},
                                             {"threads", required_argument, 0, OPT_THREADS},
                                             {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = cli_getopt("convert", argc, argv, "o:t:m:frqzh", longopts)) != -1) {
        switch (c) {
        case 'm':
            a->metric = optarg;
            break;
        case 'o':
            a->output = optarg;
            break;
        case 'z':
            a->write_flags |= PK_WRITE_COMPRESS;
            break;
        case 't':
            a->to = optarg;
            break;
        case 'f':
            a->write_flags |= PK_WRITE_FORCE;
            break;
        case 'T':
            a->write_flags |= PK_WRITE_NO_TRACE;
            break;
        case 'S':
            a->write_flags |= PK_WRITE_SPLIT;
            break;
        case 'X':
            a->write_flags |= PK_WRITE_STRICT;
            break;
        case 'L':
            a->location = optarg;
            break;
        case 'F':
            a->trace.from = optarg;
            break;
        case 'U':
            a->trace.to = optarg;
            break;
        case 'P':
            a->trace.focus = optarg;
            break;
        case 'H':
            a->trace.hide = optarg;
            break;
        case 'q':
            a->quiet = 1;
            break;
        case 'r':
            a->recompute = 1;
            break;
        case OPT_THREADS:
            if (cli_parse_threads("convert", optarg, &a->threads)) return CLI_USAGE;
            break;
        case 'h':
            fputs(convert_help, stdout);
            return -1;
        default:
            return cli_bad_option("convert");
        }
    }
    a->input = cli_one_path("convert", argc, argv, optind);
    if (!a->input) return CLI_USAGE;
    if (!a->output) return cli_usage_error("convert", "missing -o OUTPUT");
    return 0;
}

static void report(const convert_args *a, const pk_write_stats *s, double seconds)
{
    char b[32];
    FILE *out = cli_messages(a->output);
    const char *split = (a->write_flags & PK_WRITE_SPLIT) && s->n_files > 1 ? "-NN" : "";
    if (cli_is_stdout(a->output)) /* no size known of what went through a pipe */
        fprintf(out, "wrote standard output: %llu values in %.2f s\n",
                (unsigned long long)s->n_values, seconds);
    else
        fprintf(out, "wrote %s%s: %u files, %s, %llu values in %.2f s (%.0f MB/s)\n",
                cli_text(a->output), split, s->n_files, cli_bytes(b, sizeof b, s->bytes),
                (unsigned long long)s->n_values, seconds,
                seconds > 0 ? s->bytes / seconds / 1e6 : 0.0);
    if (s->n_skipped_traces)
        fprintf(out,
                "note: %u traces belong to no profile of the input (it is damaged there) and "
                "were left out\n",
                s->n_skipped_traces);
}

/* What standard output cannot take, said before anything is read. */
static int check_stdout(const convert_args *a, pk_format format)
{
    if (!cli_is_stdout(a->output)) return CLI_OK;
    if (format == PK_FORMAT_HPCTOOLKIT_V4)
        return cli_usage_error("convert", "an HPCToolkit database is a directory: it cannot be "
                                          "written to standard output (-o -); name a directory");
    if (a->write_flags & PK_WRITE_SPLIT)
        return cli_usage_error("convert", "--split writes one file per location: give a file "
                                          "name, not standard output (-o -)");
    if (format == PK_FORMAT_PPROF) /* protobuf, gzip'd or not */
        return cli_binary_ok("convert", a->output, "a pprof profile");
    return format == PK_FORMAT_CUBE ? cli_binary_ok("convert", a->output, "a Cube archive")
                                    : CLI_OK;
}

/* A selector that names no location, or is malformed, is the user's
 * mistake: said before anything is written. */
static int check_location(const pk_profile *p, const char *sel)
{
    size_t n = pk_location_count(p);
    unsigned char *selected = calloc(n + 1, 1);
    if (!selected) return fprintf(stderr, "profkit convert: out of memory\n"), CLI_BAD;
    pk_status st = pk_location_select(p, sel, selected, n, NULL);
    free(selected);
    return st ? cli_library_error("convert", st) : CLI_OK;
}

/* --threads, or profkit-mpi: an HPCToolkit database built in parallel. */
static int convert_parallel(const convert_args *a)
{
    pk_format format;
    if (a->to ? !cli_format_from_name(a->to, &format) : !cli_format_from_path(a->output, &format))
        format = PK_FORMAT_UNKNOWN;
    if (format != PK_FORMAT_HPCTOOLKIT_V4 || a->location || a->metric ||
        (a->write_flags & (PK_WRITE_SPLIT | PK_WRITE_COMPRESS)))
        return cli_usage_error("convert", "the parallel build (--threads, profkit-mpi) writes "
                                          "HPCToolkit databases only (OUTPUT.d or --to hpctoolkit; "
                                          "no --location, -m, --split, -z)");
    /* an hpcrun measurement is derived anyway: --recompute changes nothing */
    return cli_parallel_convert(a->input, a->output, a->threads ? a->threads : 1, a->write_flags,
                                a->quiet, cli_now());
}

int cmd_convert(int argc, char **argv)
{
    convert_args a = {0};
    int rc = parse(argc, argv, &a);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if (a.threads || cli_team) return convert_parallel(&a);
    int export_kind = cli_export_kind(a.to, a.output);
    if (export_kind == CLI_EXPORT_CHROME) {
        a.trace.location = a.location;
        return cli_export_chrome(a.input, a.output, &a.trace, (a.write_flags & PK_WRITE_FORCE) != 0,
                                 (a.write_flags & PK_WRITE_COMPRESS) != 0, a.quiet);
    }
    if (a.trace.from || a.trace.to || a.trace.focus || a.trace.hide)
        return cli_usage_error("convert", "--from, --until, --focus and --hide apply to --to "
                                          "chrome only");
    if (export_kind)
        return cli_export(export_kind, a.input, a.output, a.metric,
                          (a.write_flags & PK_WRITE_FORCE) != 0, a.quiet);
    pk_format format;
    if (a.to ? !cli_format_from_name(a.to, &format) : !cli_format_from_path(a.output, &format))
        return cli_usage_error(
            "convert",
            a.to ? "unknown output format '%s' (known: hpctoolkit, callgrind, cube, pprof, "
                   "json, folded, speedscope, csv, chrome)"
                 : "cannot tell the format of '%s': give --to",
            a.to ? a.to : a.output);
    if (a.location && format != PK_FORMAT_CALLGRIND && format != PK_FORMAT_PPROF)
        return cli_usage_error("convert",
                               "--location applies to callgrind, pprof and chrome output only");
    if ((rc = check_stdout(&a, format)) != CLI_OK) return rc;
    pk_profile *p;
    rc = cli_open("convert", a.input, pk_write_open_flags(format), &p);
    if (rc) return rc;
    rc = a.location ? check_location(p, a.location) : CLI_OK;
    if (rc) {
        pk_profile_free(p);
        return rc;
    }
    double t0 = cli_now();
    if (a.recompute) {
        pk_derive_report rep;
        pk_status ds = pk_profile_derive(p, NULL, &rep);
        if (ds) {
            pk_profile_free(p);
            return cli_library_error("convert", ds);
        }
        if (!a.quiet)
            fprintf(cli_messages(a.output),
                    "recomputed %u metrics and %u summary statistics in %.2f s\n", rep.n_metrics,
                    rep.n_statistics, cli_now() - t0);
    }
    pk_write_options o = {.flags = a.write_flags,
                          .loss = cli_report_loss,
                          .loss_user = (void *)a.output,
                          .location = a.location};
    if (!a.quiet && isatty(2)) o.progress = show_progress;
    pk_write_stats stats;
    t0 = cli_now();
    pk_status st = pk_profile_write(p, format, a.output, &o, &stats);
    if (o.progress) fputs("\r\033[K", stderr);
    pk_profile_free(p);
    if (st) {
        /* The arguments were fine by now: what failed is this profile in
         * this format, or the output file system: exit 1, not 2. */
        cli_library_error("convert", st);
        return CLI_BAD;
    }
    if (!a.quiet) report(&a, &stats, cli_now() - t0);
    return CLI_OK;
}
