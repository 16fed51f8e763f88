/*
 * cli/suggest.c — "did you mean": the nearest of a list of names to a
 * word the user typed (edit distance), for unknown commands and options,
 * and option parsing that names what was wrong.
 */
#include <getopt.h>
#include <string.h>

#include "cli.h"

/* Optimal string alignment distance (a swap of neighbours counts 1), for
 * words of up to 63 characters; longer ones are never near. */
static size_t distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 63 || m > 63) return (size_t)-1;
    size_t d[64][64];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] != b[j - 1], best = d[i - 1][j - 1] + cost;
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[n][m];
}

const char *cli_nearest(const char *word, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t best_d = strlen(word) / 3 + 1; /* "thresold" is near, "x" is not near "tree" */
    for (size_t i = 0; i < n; i++) {
        size_t d = distance(word, names[i]);
        if (d <= best_d && (d < best_d || !best)) best = names[i], best_d = d;
    }
    return best;
}

/* The long option nearest to `word` (without its dashes). */
static const char *nearest_option(const char *word, const struct option *opts)
{
    const char *names[128];
    size_t n = 0;
    for (; opts[n].name && n < 128; n++)
        names[n] = opts[n].name;
    return cli_nearest(word, names, n);
}

int cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
               const struct option *opts)
{
    char spec[64];
    snprintf(spec, sizeof spec, ":%s", shortopts); /* ':' reports a missing value apart */
    opterr = 0;                                    /* the messages are ours */
    int c = getopt_long(argc, argv, spec, opts, NULL);
    if (c != '?' && c != ':') return c;
    const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
    if (c == ':') {
        if (strncmp(arg, "--", 2) != 0) {
            fprintf(stderr, "profkit %s: option '-%c' needs a value\n", cmd, optopt);
        } else {
            fprintf(stderr, "profkit %s: option '%s' needs a value\n", cmd, cli_text(arg));
        }
        return '?';
    }
    if (strncmp(arg, "--", 2) != 0 || optopt) {
        fprintf(stderr, "profkit %s: unknown option '-%c'\n", cmd, optopt);
        return '?';
    }
    char word[64];
    const char *name = arg + strspn(arg, "-");
    snprintf(word, sizeof word, "%.*s", (int)strcspn(name, "="), name);
    const char *near = nearest_option(word, opts);
    fprintf(stderr, "profkit %s: unknown option '--%s'", cmd, cli_text(word));
    if (near) fprintf(stderr, "; did you mean '--%s'?", near);
    fputc('\n', stderr);
    return '?';
}

int cli_bad_option(const char *cmd)
{
    fprintf(stderr, "Try 'profkit %s --help'.\n", cmd);
    return CLI_USAGE;
}
