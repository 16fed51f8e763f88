/*
 * cli/main.c — the profkit executable: dispatch to a subcommand.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const cli_command commands[] = {
    {"info", "what a profile holds: format, files, counts, metric totals", cmd_info},
    {"tree", "top-down calling-context tree with inclusive and exclusive values", cmd_tree},
    {"flat", "flat profile per function, file, module or line", cmd_flat},
    {"callers", "bottom-up tree: who calls a function, and who calls them", cmd_callers},
    {"callees", "top-down tree below one function, merged over its call sites", cmd_callees},
    {"threads", "per-location totals: min/max/mean/stddev, imbalance, worst locations",
     cmd_threads},
    {"diff", "what changed between two profiles, per function and per call path", cmd_diff},
    {"flame", "flame graph: interactive SVG, or folded stacks", cmd_flame},
    {"trace", "traces: time per function and location, idle time, sample gaps", cmd_trace},
    {"check", "validate every structure and cross-check the files; exit 1 on problems", cmd_check},
    {"convert", "write a profile as HPCToolkit, Cube or Callgrind", cmd_convert},
    {"merge", "combine runs or parts of a run into one profile", cmd_merge},
    {"dump", "every structure of every file, one record per line", cmd_dump},
};

static void usage(FILE *out)
{
    fprintf(out, "Usage: profkit <command> [options] PATH\n\n"
                 "Inspect, check, analyze and convert call-path performance profiles:\n"
                 "HPCToolkit v4 databases (directories with meta.db), Cube4 .cubex files,\n"
                 "Callgrind/Cachegrind/Xdebug files (plain or gzip).\n\nCommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-7s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nRun 'profkit <command> --help' for the options of a command;\n"
                 "man/profkit.1 documents them all.\n"
                 "Exit status: 0 ok, 1 bad data or no answer, 2 usage error.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(name, "--version") == 0) {
        printf("profkit %s\n", pk_version());
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(name, commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "profkit: unknown command '%s'\n\n", name);
    usage(stderr);
    return CLI_USAGE;
}
