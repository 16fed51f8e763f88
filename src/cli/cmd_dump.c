/*
 * cli/cmd_dump.c — `profkit dump`: every structure of every file of a
 * profile, one record per line (text, or JSON lines with --json). The
 * layout is documented in docs/dump.md.
 */
#define _GNU_SOURCE
#include <getopt.h>

#include "cli.h"

static const char dump_help[] =
    "Usage: profkit dump [--json] [--section NAME[,NAME...]] PATH\n\n"
    "Print every structure of every file of the profile, one record per line:\n"
    "  <file> 0x<offset> <type> key=value ...\n"
    "with the byte offset of each structure, the ids the file uses, and every\n"
    "field (docs/dump.md). Damaged input: the records read before the damage\n"
    "are printed, then the error, and the exit status is 1.\n\n"
    "Options:\n"
    "  --json             one JSON object per line instead of text\n"
    "  --section LIST     only these sections (comma-separated)\n"
    "  --list-sections    print the section names and exit\n"
    "  -h, --help         show this help\n";

static int write_record(void *user, const pk_record *r)
{
    int json = *(int *)user;
    if (json)
        pk_record_write_json(stdout, r);
    else
        pk_record_write_text(stdout, r);
    return ferror(stdout) ? 1 : 0; /* stop when the reader went away */
}

static void list_sections(void)
{
    const char *const *names = pk_dump_sections(PK_FORMAT_HPCTOOLKIT_V4);
    for (size_t i = 0; names && names[i]; i++)
        printf("%s\n", names[i]);
}

int cmd_dump(int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, NULL, 'j'},
                                         {"section", required_argument, NULL, 's'},
                                         {"list-sections", no_argument, NULL, 'l'},
                                         {"help", no_argument, NULL, 'h'},
                                         {0}};
    int json = 0, c;
    pk_dump_options dopts = {NULL};
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'j')
            json = 1;
        else if (c == 's')
            dopts.sections = optarg;
        else if (c == 'l')
            return list_sections(), CLI_OK;
        else if (c == 'h')
            return fputs(dump_help, stdout), CLI_OK;
        else
            return cli_usage_error("dump", "unknown option");
    }
    const char *path = cli_one_path("dump", argc, argv, optind);
    if (!path) return CLI_USAGE;
    pk_status st = pk_dump(path, &dopts, write_record, &json);
    fflush(stdout);
    if (st) return cli_library_error("dump", st);
    return ferror(stdout) ? CLI_BAD : CLI_OK;
}
