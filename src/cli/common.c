/*
 * cli/common.c — helpers shared by the subcommands: error reporting with
 * the right exit status, opening a profile, terminal detection.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
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
    /* messages quote names from files */
    fprintf(stderr, "profkit %s: ", cmd);
    pk_text_put(stderr, pk_error_last());
    fputc('\n', stderr);
    return st == PK_ERR_INVALID_ARG ? CLI_USAGE : CLI_BAD;
}

void cli_report_loss(void *output, const char *item, const char *reason)
{
    fprintf(stderr, "profkit: %s: left out %s: %s\n",
            cli_is_stdout(output) ? "standard output" : cli_text(output), cli_text(item),
            cli_text(reason));
}

int cli_parse_size(const char *s, uint64_t *out)
{
    if (strcmp(s, "unlimited") == 0 || strcmp(s, "none") == 0) return *out = UINT64_MAX, 1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !(v >= 0)) return 0;
    static const char units[] = "KMGT";
    const char *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    if (*end && !u) return 0;
    if (u) {
        for (long k = u - units + 1; k > 0; k--)
            v *= 1024;
        end++;
        if (*end == 'i' || *end == 'I') end++;
        if (*end == 'B' || *end == 'b') end++;
    } else if (*end == 'B' || *end == 'b') {
        end++;
    }
    if (*end || v >= 18446744073709551615.0) return 0;
    *out = (uint64_t)v;
    return 1;
}

int cli_max_memory(uint64_t *out)
{
    const char *env = getenv("PROFKIT_MAX_MEMORY");
    *out = 0;
    if (!env || !*env) return CLI_OK;
    if (cli_parse_size(env, out) && *out) return CLI_OK;
    fprintf(stderr, "profkit: PROFKIT_MAX_MEMORY='%s' is not a size (e.g. 4G, 512M, unlimited)\n",
            env);
    return CLI_USAGE;
}

/* An incomplete profile is never shown as if it were whole: every
 * command says so on stderr, whatever it prints on stdout. */
static void warn_incomplete(const char *cmd, const char *path, const pk_profile *p)
{
    pk_profile_info pi;
    if (pk_profile_get_info(p, &pi) || pi.complete) return;
    int said = 0;
    for (size_t i = 0; i < pk_diagnostic_count(p) && said < 5; i++) {
        pk_diagnostic d;
        if (pk_diagnostic_get(p, i, &d) || !pk_diagnostic_is_reason(p, &d)) continue;
        fprintf(stderr, "profkit %s: warning: %s is incomplete: %s\n", cmd, path, d.message);
        said++;
    }
    if (!said)
        fprintf(stderr, "profkit %s: warning: %s is incomplete (profkit check lists why)\n", cmd,
                path);
}

int cli_open(const char *cmd, const char *path, uint32_t flags, pk_profile **out)
{
    pk_open_options opts = {.flags = flags};
    return cli_open_opts(cmd, path, &opts, out);
}

int cli_open_opts(const char *cmd, const char *path, const pk_open_options *o, pk_profile **out)
{
    pk_open_options opts = *o;
    if (!opts.max_memory) {
        int rc = cli_max_memory(&opts.max_memory);
        if (rc) return rc;
    }
    const char *recompute = getenv("PROFKIT_RECOMPUTE"); /* `profkit --recompute` */
    if (recompute && *recompute && strcmp(recompute, "0") != 0) opts.flags |= PK_OPEN_RECOMPUTE;
    const char *labels = getenv("PROFKIT_LOCATIONS_FROM"); /* pprof: see profkit(1) */
    if (!opts.locations_from && labels) opts.locations_from = labels;
    const char *no_symbols = getenv("PROFKIT_NO_SYMBOLS"); /* hpcrun: see profkit(1) */
    if (no_symbols && *no_symbols && strcmp(no_symbols, "0") != 0) opts.flags |= PK_OPEN_NO_SYMBOLS;
    pk_status st = pk_profile_open(path, &opts, out);
    if (st) return cli_library_error(cmd, st);
    warn_incomplete(cmd, path, *out);
    return CLI_OK;
}

int cli_close(const char *cmd, pk_profile *p, int rc)
{
    if (!p) return rc;
    pk_status st = pk_profile_intact(p);
    if (st) rc = cli_library_error(cmd, st);
    pk_profile_free(p);
    return rc;
}

int cli_use_color(FILE *f, int disabled)
{
    if (disabled || !isatty(fileno(f))) return 0;
    const char *no_color = getenv("NO_COLOR");
    const char *term = getenv("TERM");
    if (no_color && *no_color) return 0;
    return !(term && strcmp(term, "dumb") == 0);
}

unsigned cli_terminal_width(FILE *f)
{
    struct winsize ws;
    const char *columns = getenv("COLUMNS");
    unsigned long n = columns ? strtoul(columns, NULL, 10) : 0;
    if (n >= 20 && n <= 10000) return (unsigned)n; /* asked for */
    if (isatty(fileno(f)) && ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 0; /* a pipe or a file: names whole, for grep and scripts */
}

const char *cli_name(const char *raw, int keep_mangled, unsigned room)
{
    static char ring[8][2048];
    static unsigned next;
    char plain[2048], *buf = ring[next++ % 8];
    if (!keep_mangled) pk_name_demangle(raw ? raw : "-", plain, sizeof plain);
    pk_text_escape(keep_mangled ? (raw ? raw : "-") : plain, buf, sizeof ring[0]);
    pk_name_shorten(buf, room);
    return buf;
}

char **cli_labels(const char *const *names, size_t n, int keep_mangled, unsigned room)
{
    char **out = calloc(n ? n : 1, sizeof *out);
    for (size_t i = 0; out && i < n; i++) {
        char plain[2048];
        if (!(out[i] = malloc(2048))) return cli_labels_free(out, i), NULL;
        if (!keep_mangled) pk_name_demangle(names[i] ? names[i] : "-", plain, sizeof plain);
        pk_text_escape(keep_mangled ? (names[i] ? names[i] : "-") : plain, out[i], 2048);
    }
    if (out) pk_names_shorten(out, n, room);
    return out;
}

void cli_labels_free(char **labels, size_t n)
{
    for (size_t i = 0; labels && i < n; i++)
        free(labels[i]);
    free(labels);
}

const char *cli_text(const char *s)
{
    static char ring[8][2048];
    static unsigned next;
    char *buf = ring[next++ % 8];
    pk_text_escape(s ? s : "-", buf, sizeof ring[0]);
    return buf;
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

int cli_open_arg(const char *cmd, int argc, char **argv, uint32_t flags, const char **path,
                 pk_profile **out)
{
    const char *arg = cli_one_path(cmd, argc, argv, optind);
    if (!arg) return CLI_USAGE;
    if (path) *path = arg;
    return cli_open(cmd, arg, flags, out);
}

void cli_put_number(FILE *out, double v, const pk_number_format *nf)
{
    char buf[64];
    pk_number_format wide = nf ? *nf : (pk_number_format){1, "", 0, 0, 0, 0};
    wide.width = 32; /* a line of its own: no need for 20.32G, room for digits */
    wide.digits = 7;
    wide.compact = 0;
    pk_format_number(buf, sizeof buf, v, &wide);
    fprintf(out, "%s%s%s", buf, nf && nf->unit[0] ? " " : "", nf ? cli_text(nf->unit) : "");
}
