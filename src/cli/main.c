/*
 * cli/main.c — the profkit executable: dispatch to a subcommand.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

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
    {"convert", "write a profile as HPCToolkit, Cube, Callgrind, pprof or JSON", cmd_convert},
    {"merge", "combine runs or parts of a run into one profile", cmd_merge},
    {"dump", "every structure of every file, one record per line", cmd_dump},
};

static void usage(FILE *out)
{
    fprintf(out, "Usage: profkit <command> [options] PATH\n\n"
                 "Inspect, check, analyze and convert call-path performance profiles:\n"
                 "HPCToolkit v4 databases (directories with meta.db), Cube4 .cubex files,\n"
                 "Callgrind/Cachegrind/Xdebug files (plain or gzip), pprof profiles\n"
                 "(profile.proto, .pb.gz or .pb).\n\nCommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nGlobal options (for every command, before or after it):\n"
                 "  --max-memory SIZE   memory budget of the readers for what a file claims\n"
                 "                      beyond its bytes (4G, 512M, unlimited; default the\n"
                 "                      larger of 256M and 64 x the input's size); the same\n"
                 "                      as PROFKIT_MAX_MEMORY=SIZE\n"
                 "  --recompute         add up every location's values instead of answering\n"
                 "                      from the statistics the file stores (HPCToolkit's\n"
                 "                      summary profile), and validate every value block at\n"
                 "                      open; the same as PROFKIT_RECOMPUTE=1\n"
                 "  --locations-from LABELS\n"
                 "                      pprof: the sample labels that make a location, so\n"
                 "                      that threads and --location see them (thread_id;\n"
                 "                      pid,tid; none: one location; default every label);\n"
                 "                      the same as PROFKIT_LOCATIONS_FROM=LABELS\n"
                 "\nRun 'profkit help <command>' (or 'profkit <command> --help') for the\n"
                 "options of a command; "
                 "man/profkit.1 documents them all.\n"
                 "Exit status: 0 ok, 1 bad data or no answer, 2 usage error.\n");
}

/* The global options, taken wherever they are (before "--"): each sets
 * an environment variable every open reads (common.c), so every command
 * has them. --recompute takes no value. */
static const struct {
    const char *name, *env;
} globals[] = {{"--max-memory", "PROFKIT_MAX_MEMORY"},
               {"--locations-from", "PROFKIT_LOCATIONS_FROM"},
               {"--recompute", "PROFKIT_RECOMPUTE"}};

/* argv[i] is a global option: take it (and its value) out of argv.
 * Returns how many arguments it took (0 if none), -1 on a usage error. */
static int global_option(int argc, char **argv, int i)
{
    for (size_t g = 0; g < sizeof globals / sizeof *globals; g++) {
        const char *opt = globals[g].name, *value = NULL;
        size_t len = strlen(opt);
        if (strncmp(argv[i], opt, len) != 0 || (argv[i][len] && argv[i][len] != '=')) continue;
        if (strcmp(opt, "--recompute") == 0) { /* a flag */
            if (argv[i][len]) break;
            setenv(globals[g].env, "1", 1);
            return 1;
        }
        if (argv[i][len] == '=')
            value = argv[i] + len + 1;
        else if (i + 1 < argc)
            value = argv[i + 1];
        uint64_t size;
        if (g == 0 && (!value || !cli_parse_size(value, &size) || size == 0)) {
            fprintf(stderr, "profkit: --max-memory wants a size (e.g. 4G, 512M, unlimited)\n");
            return -1;
        }
        if (!value) {
            fprintf(stderr, "profkit: --locations-from wants label names (thread_id, or "
                            "pid,tid; none for one location)\n");
            return -1;
        }
        setenv(globals[g].env, value, 1);
        return argv[i][len] == '=' ? 1 : 2;
    }
    return 0;
}

/* Take the global options out of argv; -1 on a usage error. */
static int global_options(int *argc, char **argv)
{
    for (int i = 1; i < *argc && strcmp(argv[i], "--") != 0;) {
        int took = global_option(*argc, argv, i);
        if (took < 0) return -1;
        if (!took) {
            i++;
            continue;
        }
        memmove(argv + i, argv + i + took, (size_t)(*argc - i - took + 1) * sizeof *argv);
        *argc -= took;
    }
    return 0;
}

static const char *running; /* the command run, for messages */

static size_t n_commands(void)
{
    return sizeof commands / sizeof commands[0];
}

/* "profkit: unknown command 'x'; did you mean 'y'?" and the usage. */
static int unknown_command(const char *name)
{
    const char *names[sizeof commands / sizeof commands[0]];
    for (size_t i = 0; i < n_commands(); i++)
        names[i] = commands[i].name;
    const char *near = cli_nearest(name, names, n_commands());
    fprintf(stderr, "profkit: unknown command '%s'", cli_text(name));
    if (near) fprintf(stderr, "; did you mean '%s'?", near);
    fprintf(stderr, "\n\n");
    usage(stderr);
    return CLI_USAGE;
}

/* `profkit help CMD`, as `git help CMD`: CMD's own help. */
static int help_command(int argc, char **argv)
{
    if (argc > 1) {
        fprintf(stderr, "profkit help: one command at a time ('profkit help %s')\n",
                cli_text(argv[0]));
        return CLI_USAGE;
    }
    for (size_t i = 0; i < n_commands(); i++) {
        if (strcmp(argv[0], commands[i].name) != 0) continue;
        char *args[] = {(char *)commands[i].name, "--help", NULL};
        running = commands[i].name;
        return commands[i].run(2, args);
    }
    return unknown_command(argv[0]);
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

static int run(int argc, char **argv);

int main(int argc, char **argv)
{
    cli_use_huge_pages(argv);
#ifdef __GLIBC__
    /* Big blocks (over 4 MiB) always from mmap, so freeing one gives its
     * pages back. glibc otherwise raises the threshold to the size of each
     * big block freed (up to 32 MiB): a Callgrind tree's reconstruction
     * frees 20-30 MB arrays, the tree answer's allocations then came from
     * the heap, and the holes stayed resident (cc1 tree: 181 -> 153 MB).
     * Not lower: at 128 KiB every array of the phases after it was a fresh
     * mapping, faulted in page by page and unmapped again, a fifth of the
     * rebuilt tree's time (cc1 tree: 0.35 -> 0.32 s, 150 -> 153 MB). */
    mallopt(M_MMAP_THRESHOLD, 4 << 20);
#endif
    /* stderr line-buffered: each message leaves in one write(), so the
     * lines of profkit runs that share a log (make -j, a job array) never
     * interleave mid-line; the progress meter flushes its own */
    static char err_buffer[4096];
    setvbuf(stderr, err_buffer, _IOLBF, sizeof err_buffer);
    int rc = run(argc, argv);
    return output_checked(running, rc);
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    cli_install_cleanup();
    if (global_options(&argc, argv)) return CLI_USAGE;
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "help") == 0 && argc > 2) return help_command(argc - 2, argv + 2);
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(name, "--version") == 0) {
        printf("profkit %s\n", pk_version());
        return CLI_OK;
    }
    for (size_t i = 0; i < n_commands(); i++)
        if (strcmp(name, commands[i].name) == 0) {
            running = commands[i].name;
            return commands[i].run(argc - 1, argv + 1);
        }
    return unknown_command(name);
}
