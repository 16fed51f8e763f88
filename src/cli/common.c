/*
 * cli/common.c — helpers shared by the subcommands: error reporting with
 * the right exit status, opening a profile, terminal detection.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "profkit %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'profkit %s --help'.\n", cmd);
    return CLI_USAGE;
}

int cli_library_error(const char *cmd, pk_status st)
{
    fprintf(stderr, "profkit %s: %s\n", cmd, pk_error_last());
    return st == PK_ERR_INVALID_ARG ? CLI_USAGE : CLI_BAD;
}

int cli_open(const char *cmd, const char *path, uint32_t flags, pk_profile **out)
{
    pk_open_options opts = {flags};
    pk_status st = pk_profile_open(path, &opts, out);
    return st ? cli_library_error(cmd, st) : CLI_OK;
}

int cli_use_color(FILE *f, int disabled)
{
    if (disabled || !isatty(fileno(f))) return 0;
    const char *no_color = getenv("NO_COLOR");
    const char *term = getenv("TERM");
    if (no_color && *no_color) return 0;
    return !(term && strcmp(term, "dumb") == 0);
}

const char *cli_bytes(char *buf, size_t size, unsigned long long n)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)n;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, size, "%llu B", n);
    else
        snprintf(buf, size, "%.1f %s", v, units[u]);
    return buf;
}

const char *cli_one_path(const char *cmd, int argc, char **argv, int optind_)
{
    if (optind_ >= argc) {
        cli_usage_error(cmd, "missing PATH");
        return NULL;
    }
    if (optind_ + 1 < argc) {
        cli_usage_error(cmd, "unexpected argument '%s'", argv[optind_ + 1]);
        return NULL;
    }
    return argv[optind_];
}
