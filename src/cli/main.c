/*
 * cli/main.c — the profkit executable: dispatch to a subcommand.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
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
    {"annotate", "source lines with their costs beside them, as callgrind_annotate", cmd_annotate},
    {"view", "interactive browser view: serve it locally, or write one HTML report", cmd_view},
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
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nGlobal option (before the command):\n"
                 "  --max-memory SIZE   memory budget of the readers for what a file claims\n"
                 "                      beyond its bytes (4G, 512M, unlimited; default the\n"
                 "                      larger of 256M and 64 x the input's size); the same\n"
                 "                      as PROFKIT_MAX_MEMORY=SIZE\n"
                 "\nRun 'profkit <command> --help' for the options of a command;\n"
                 "man/profkit.1 documents them all.\n"
                 "Exit status: 0 ok, 1 bad data or no answer, 2 usage error.\n");
}

/* An interrupted profkit leaves no temporary output behind (they can be
 * gigabytes): the library removes what it is writing, then the signal
 * does what it would have done. */
static void on_signal(int sig)
{
    pk_output_cleanup();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_cleanup(void)
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

/* `--max-memory SIZE` / `--max-memory=SIZE` before the command: passed on
 * to every open through PROFKIT_MAX_MEMORY. Returns how many arguments it
 * took (0 if argv[1] is no global option), -1 on a usage error. */
static int global_option(int argc, char **argv)
{
    const char *opt = "--max-memory", *value = NULL;
    size_t len = strlen(opt);
    if (strncmp(argv[1], opt, len) != 0) return 0;
    if (argv[1][len] == '=')
        value = argv[1] + len + 1;
    else if (argv[1][len] == '\0' && argc > 2)
        value = argv[2];
    uint64_t size;
    if (!value || !cli_parse_size(value, &size) || size == 0) {
        fprintf(stderr, "profkit: --max-memory wants a size (e.g. 4G, 512M, unlimited)\n");
        return -1;
    }
    setenv("PROFKIT_MAX_MEMORY", value, 1);
    return argv[1][len] == '=' ? 1 : 2;
}

/* Every command's output is checked once it returns: a full disk, a
 * file size limit or an I/O error on standard output shows only when the
 * buffer is written, and a script must not take an empty or cut result
 * for a whole one (exit 0). A message unless the command gave one. */
static int output_checked(const char *cmd, int rc)
{
    errno = 0;
    int bad = fflush(stdout) != 0 || ferror(stdout);
    int err = errno;
    if (fclose(stdout) != 0 && !bad) bad = 1, err = errno;
    if (!bad) return rc;
    if (!cli_output_reported)
        fprintf(stderr, "profkit%s%s: writing the output failed: %s\n", cmd ? " " : "",
                cmd ? cmd : "", err ? strerror(err) : "a write to standard output failed");
    return rc == CLI_OK ? CLI_BAD : rc;
}

static const char *running; /* the command run, for messages */
static int run(int argc, char **argv);

int main(int argc, char **argv)
{
    int rc = run(argc, argv);
    return output_checked(running, rc);
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    install_cleanup();
    int took;
    while (argc > 1 && (took = global_option(argc, argv)) != 0) {
        if (took < 0) return CLI_USAGE;
        argc -= took, argv += took;
    }
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
        if (strcmp(name, commands[i].name) == 0) {
            running = commands[i].name;
            return commands[i].run(argc - 1, argv + 1);
        }
    const char *names[sizeof commands / sizeof commands[0]];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        names[i] = commands[i].name;
    const char *near = cli_nearest(name, names, sizeof names / sizeof *names);
    fprintf(stderr, "profkit: unknown command '%s'", cli_text(name));
    if (near) fprintf(stderr, "; did you mean '%s'?", near);
    fprintf(stderr, "\n\n");
    usage(stderr);
    return CLI_USAGE;
}
