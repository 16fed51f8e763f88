/*
 * cli/metric_pick.c — which metric `-m NAME` means: the exact name, else
 * the one name it begins (case-insensitively), else the one spelled alike
 * without punctuation ("CPUTIME_sec"). Several matches or none is an
 * error that lists the candidates, never a silent pick. Without -m:
 * pk_metric_default(): the first time metric with a non-zero total,
 * else the first with one, so a view never opens on a column of zeros.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/* "name" or "name:inclusive" / "name:exclusive" */
static void split_scope(const char *spec, char *name, size_t size, pk_scope_kind *scope)
{
    const char *colon = strrchr(spec, ':');
    *scope = PK_SCOPE_OTHER;
    if (colon && (strcmp(colon + 1, "inclusive") == 0 || strcmp(colon + 1, "exclusive") == 0)) {
        *scope = colon[1] == 'i' ? PK_SCOPE_INCLUSIVE : PK_SCOPE_EXCLUSIVE;
        snprintf(name, size, "%.*s", (int)(colon - spec), spec);
    } else {
        snprintf(name, size, "%s", spec);
    }
}

/* Letters and digits of `s`, lower case: a metric name as formats that
 * allow fewer characters spell it ("CPUTIME (sec)", "CPUTIME_sec"). */
static void spelled(const char *s, char *buf, size_t size)
{
    size_t k = 0;
    for (; *s && k + 1 < size; s++)
        if (isalnum((unsigned char)*s)) buf[k++] = (char)tolower((unsigned char)*s);
    buf[k] = 0;
}

enum { BY_EXACT, BY_PREFIX, BY_SPELLING };

static int matches(const char *metric, const char *name, int how)
{
    char want[512], got[512];
    if (how == BY_EXACT) return strcmp(metric, name) == 0;
    if (how == BY_PREFIX) return strncasecmp(metric, name, strlen(name)) == 0;
    spelled(name, want, sizeof want);
    spelled(metric, got, sizeof got);
    return *want && strcmp(want, got) == 0;
}

/* "D1mr, D1mw" or "Ir, Dr, ... (42 in all)" after the message. */
static void list_metrics(const pk_profile *p, const char *name, int how)
{
    size_t n = pk_metric_count(p), shown = 0, all = 0;
    for (pk_index m = 0; m < n; m++) {
        pk_metric met;
        pk_metric_get(p, m, &met);
        if (how >= 0 && !matches(met.name, name, how)) continue;
        if (all++ < 24) fprintf(stderr, "%s%s", shown++ ? ", " : "", cli_text(met.name));
    }
    if (all > shown) fprintf(stderr, ", ... (%zu in all)", all);
    fputc('\n', stderr);
}

static int pick_named(const char *cmd, const pk_profile *p, const char *name, pk_index *out)
{
    size_t n = pk_metric_count(p);
    for (int how = BY_EXACT; how <= BY_SPELLING; how++) {
        size_t hits = 0;
        for (pk_index m = 0; m < n; m++) {
            pk_metric met;
            pk_metric_get(p, m, &met);
            if (matches(met.name, name, how)) *out = hits++ ? *out : m;
        }
        if (hits == 1) return 1;
        if (hits > 1 && how != BY_EXACT) {
            if (cmd) {
                fprintf(stderr, "profkit %s: metric '%s' is ambiguous; it matches ", cmd,
                        cli_text(name));
                list_metrics(p, name, how);
            }
            return 0;
        }
        if (hits > 1) return 1; /* the same name twice: the first, as files list them */
    }
    if (cmd) {
        fprintf(stderr, "profkit %s: no metric named '%s'; the metrics are: ", cmd, cli_text(name));
        list_metrics(p, name, -1);
    }
    return 0;
}

int cli_pick_metric(const char *cmd, const pk_profile *p, const char *spec, pk_index *out,
                    pk_scope_kind *scope)
{
    char name[512];
    pk_scope_kind sk = PK_SCOPE_OTHER;
    if (spec) split_scope(spec, name, sizeof name, &sk);
    if (scope) *scope = sk;
    if (spec) return pick_named(cmd, p, name, out);
    if (pk_metric_default(p, out) == PK_OK) return 1;
    if (cmd) fprintf(stderr, "profkit %s: the profile has no metrics\n", cmd);
    return 0;
}
