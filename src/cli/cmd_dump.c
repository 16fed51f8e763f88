/*
 * cli/cmd_dump.c — `profkit dump`: every structure of every file of a
 * profile, one record per line (text, or JSON lines with --json). The
 * layout is documented in docs/dump.md. hpcrun measurement files
 * (.hpcrun, .hpctrace) print as HPCToolkit's hpcproftt prints them
 * (docs/hpcrun.md), with its --lm and --grep options, so the two can be
 * diffed; --json gives them as records like every other format.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>

#include "cli.h"

static const char dump_help[] =
    "Usage: profkit dump [--json] [--section NAME[,NAME...]] PATH...\n"
    "       profkit dump --list-sections [PATH...]\n"
    "       profkit dump [-l|--lm] [-g|--grep] FILE.hpcrun|FILE.hpctrace...\n\n"
    "Print every structure of every file of the profile (HPCToolkit v4 database,\n"
    "hpcrun file, Cube archive, Callgrind file), one record per line:\n"
    "  <file> 0x<offset> <type> key=value ...\n"
    "with the byte offset of each structure, the ids the file uses, and every\n"
    "field (docs/dump.md). Damaged input: the records read before the damage\n"
    "are printed, then the error, and the exit status is 1.\n\n"
    "hpcrun measurement files (.hpcrun profiles, .hpctrace traces) are printed\n"
    "exactly as HPCToolkit's hpcproftt prints them, each after a banner with its\n"
    "name (docs/hpcrun.md); --json prints them as records instead.\n\n"
    "Options:\n"
    "  --json             one JSON object per line instead of text\n"
    "  --section LIST     only these sections (comma-separated); a name the\n"
    "                     file's format does not have is a usage error\n"
    "  --list-sections    the sections of each PATH's format, one a line (with\n"
    "                     no PATH, every format's under its name) and exit\n"
    "  -l, --lm           hpcrun files: only the load modules to analyze (hpcproftt --lm)\n"
    "  -g, --grep         hpcrun files: sparse values one line per CCT node (hpcproftt -g)\n"
    "  -h, --help         show this help\n";

enum { OPT_LIST_SECTIONS = 1001 };

typedef struct dump_out {
    int json;
    pk_status st; /* the JSON writer's error, which stopped the dump */
    int err;      /* errno of a failed write to stdout */
} dump_out;

static int write_record(void *user, const pk_record *r)
{
    dump_out *d = user;
    if (d->json)
        d->st = pk_record_write_json(stdout, r);
    else
        pk_record_write_text(stdout, r);
    if (ferror(stdout) && !d->err) d->err = errno ? errno : EIO;
    return d->st || ferror(stdout) ? 1 : 0; /* stop when the reader went away */
}

static void put_sections(pk_format f, const char *indent)
{
    const char *const *names = pk_dump_sections(f);
    for (size_t i = 0; names && names[i]; i++)
        printf("%s%s\n", indent, names[i]);
}

/* --list-sections: each PATH's own format's sections, one a line; with
 * no PATH every format's, under its name. */
static int list_sections(int argc, char **argv, int first)
{
    static const struct {
        pk_format f;
        const char *name;
    } formats[] = {{PK_FORMAT_HPCTOOLKIT_V4, "hpctoolkit"},
                   {PK_FORMAT_HPCRUN, "hpcrun"},
                   {PK_FORMAT_CUBE, "cube"},
                   {PK_FORMAT_CALLGRIND, "callgrind"},
                   {PK_FORMAT_PPROF, "pprof"}};
    if (first >= argc) {
        for (size_t k = 0; k < sizeof formats / sizeof *formats; k++) {
            printf("%s:\n", formats[k].name);
            put_sections(formats[k].f, "  ");
        }
        return CLI_OK;
    }
    for (int i = first; i < argc; i++) {
        pk_format f;
        pk_status st = pk_dump_format(argv[i], &f);
        if (st) return cli_library_error("dump", st);
        put_sections(f, "");
    }
    return CLI_OK;
}

/* Dump one PATH: hpcproftt's text for measurement files, records else. */
static int dump_one(const char *path, int json, const pk_dump_options *dopts,
                    const pk_hpcrun_text_options *topts)
{
    int hpcrun = !json && !dopts->sections && pk_hpcrun_file_kind(path) != 0;
    if (!hpcrun && (topts->load_modules_only || topts->easy_grep))
        return cli_usage_error("dump",
                               "--lm and --grep print hpcrun measurement files as "
                               "hpcproftt does (not with --json or --section); '%s' is not one",
                               path);
    dump_out d = {json, PK_OK, 0};
    pk_status st =
        hpcrun ? pk_hpcrun_write_text(stdout, path, topts) : pk_dump(path, dopts, write_record, &d);
    fflush(stdout);
    if ((st || d.st) && ferror(stdout)) { /* the JSON writer saw stdout fail: say why */
        if (d.err) errno = d.err;
        return cli_output_done("dump");
    }
    if (st || d.st) return cli_library_error("dump", st ? st : d.st);
    if (!ferror(stdout)) return CLI_OK;
    if (d.err) errno = d.err;
    return cli_output_done("dump"); /* says why, once */
}

int cmd_dump(int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, NULL, 'j'},
                                         {"section", required_argument, NULL, 's'},
                                         {"list-sections", no_argument, NULL, OPT_LIST_SECTIONS},
                                         {"lm", no_argument, NULL, 'l'},
                                         {"grep", no_argument, NULL, 'g'},
                                         {"help", no_argument, NULL, 'h'},
                                         {0}};
    int json = 0, list = 0, c;
    pk_dump_options dopts = {NULL};
    pk_hpcrun_text_options topts = {0, 0};
    while ((c = cli_getopt("dump", argc, argv, "hlg", opts)) != -1) {
        if (c == 'j')
            json = 1;
        else if (c == 's')
            dopts.sections = optarg;
        else if (c == OPT_LIST_SECTIONS)
            list = 1;
        else if (c == 'l')
            topts.load_modules_only = 1;
        else if (c == 'g')
            topts.easy_grep = 1;
        else if (c == 'h')
            return fputs(dump_help, stdout), CLI_OK;
        else
            return cli_bad_option("dump");
    }
    if (list) return list_sections(argc, argv, optind);
    if (optind >= argc) return cli_usage_error("dump", "missing PATH");
    int rc = cli_max_memory(&dopts.max_memory);
    if (rc) return rc;
    /* Like hpcproftt, stop at the first file that cannot be read. */
    for (int i = optind; i < argc; i++) {
        rc = dump_one(argv[i], json, &dopts, &topts);
        if (rc != CLI_OK) return rc;
    }
    return CLI_OK;
}
