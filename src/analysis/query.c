/*
 * analysis/query.c — a question's options, set by name from text and
 * checked here, once, for every front end: the CLI's long options, the
 * view's URL parameters and Python's keyword arguments all arrive as
 * (name, text) pairs and mean the same thing. What needs the profile
 * (metric names, location selectors) is resolved when an answer is asked
 * for (query_metric.c, query_values.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/qry.h"
#include "profkit/pattern.h"
#include "util/error.h"

static const char *const option_names[PKQ_N_OPTIONS] = {
    [PKQ_METRIC] = "metric",
    [PKQ_LOCATION] = "location",
    [PKQ_STAT] = "stat",
    [PKQ_FOCUS] = "focus",
    [PKQ_HIDE] = "hide",
    [PKQ_THRESHOLD] = "threshold",
    [PKQ_TOP] = "top",
    [PKQ_DEPTH] = "depth",
    [PKQ_BY] = "by",
    [PKQ_LEVEL] = "level",
    [PKQ_SORT] = "sort",
    [PKQ_SEARCH] = "search",
    [PKQ_FUNCTION] = "function",
    [PKQ_CALLGRAPH] = "callgraph",
    [PKQ_CONTEXT] = "context",
    [PKQ_DIRS] = "dirs",
    [PKQ_ASM] = "asm",
    [PKQ_CHAINS] = "chains",
    [PKQ_SOURCES] = "sources",
};

static const char *const stat_names[] = {"sum", "mean", "min", "max", "stddev"};
static const char *const by_names[] = {"function", "file", "module", "line"};
static const char *const level_names[] = {"functions", "loops", "lines"};

const char *pkq_stat_name(pk_across stat)
{
    return stat <= PK_ACROSS_STDDEV ? stat_names[stat] : "?";
}

const char *pkq_by_name(pk_group_by by)
{
    return by <= PK_BY_LINE ? by_names[by] : "?";
}

const char *pkq_level_name(pk_tree_level level)
{
    return level <= PK_LEVEL_LINES ? level_names[level] : "?";
}

static void set_defaults(pk_query *q)
{
    q->stat = PK_ACROSS_SUM;
    q->threshold = 0;
    q->top = 0, q->depth = 0, q->sort = 0, q->context = 3;
    q->by = PK_BY_FUNCTION;
    q->level = PK_LEVEL_FUNCTIONS;
    q->use_callgraph = 1;
    q->fold_chains = 1;
}

pk_status pk_query_new(pk_query **out)
{
    if (!out) return pk_fail(PK_ERR_INVALID_ARG, "pk_query_new: no out-parameter");
    pk_query *q = calloc(1, sizeof *q);
    if (!q) return pk_fail_nomem("a query");
    set_defaults(q);
    *out = q;
    return PK_OK;
}

void pk_query_free(pk_query *q)
{
    if (!q) return;
    for (int i = 0; i < PKQ_N_OPTIONS; i++)
        free(q->text[i]);
    free(q);
}

pk_status pk_query_copy(const pk_query *q, pk_query **out)
{
    pk_status st = pk_query_new(out);
    for (int i = 0; !st && i < PKQ_N_OPTIONS; i++)
        if (q->text[i]) st = pk_query_set(*out, option_names[i], q->text[i]);
    if (st) pk_query_free(*out), *out = NULL;
    return st;
}

/* The word's index in names[0..n), or -1. */
static int word(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0) return i;
    return -1;
}

static pk_status bad(const char *name, const char *value, const char *want)
{
    return pk_fail(PK_ERR_INVALID_ARG, "%s wants %s, got '%.200s'", name, want, value);
}

/* A whole decimal number in [0, max]. */
static int whole(const char *s, unsigned long long max, unsigned long long *out)
{
    char *end;
    if (*s < '0' || *s > '9') return 0;
    errno = 0;
    *out = strtoull(s, &end, 10);
    return !*end && !errno && *out <= max;
}

/* A pattern is checked when it is set (pk_pattern: bounded, no
 * backreferences), so a bad one fails before any work. */
static pk_status check_pattern(const char *name, const char *value)
{
    pk_pattern *re;
    pk_status st = pk_pattern_compile(value, 0, &re);
    pk_pattern_free(re);
    return st ? pk_fail(st, "%s: %s", name, pk_error_last()) : PK_OK;
}

static pk_status parse_number(pk_query *q, int opt, const char *v)
{
    unsigned long long n;
    char *end;
    switch (opt) {
    case PKQ_THRESHOLD:
        errno = 0;
        q->threshold = strtod(v, &end);
        if (*end || !*v || errno || !(q->threshold >= 0 && q->threshold <= 100))
            return bad("threshold", v, "a percentage from 0 to 100");
        return PK_OK;
    case PKQ_TOP:
        if (!whole(v, SIZE_MAX, &n)) return bad("top", v, "a number of rows (0: all)");
        return q->top = (size_t)n, PK_OK;
    case PKQ_DEPTH:
        if (!whole(v, UINT32_MAX, &n)) return bad("depth", v, "a number of levels (0: all)");
        return q->depth = (uint32_t)n, PK_OK;
    case PKQ_SORT:
        if (!whole(v, 1u << 20, &n)) return bad("sort", v, "a column number");
        return q->sort = (size_t)n, PK_OK;
    default: /* PKQ_CONTEXT */
        if (!whole(v, 100000, &n)) return bad("context", v, "a number of lines");
        return q->context = (unsigned)n, PK_OK;
    }
}

static pk_status parse_word(pk_query *q, int opt, const char *v)
{
    int k;
    switch (opt) {
    case PKQ_STAT:
        if ((k = word(v, stat_names, 5)) < 0)
            return bad("stat", v, "sum, mean, min, max or stddev");
        return q->stat = (pk_across)k, PK_OK;
    case PKQ_BY:
        if ((k = word(v, by_names, 4)) < 0) return bad("by", v, "function, file, module or line");
        return q->by = (pk_group_by)k, PK_OK;
    case PKQ_LEVEL:
        if ((k = word(v, level_names, 3)) < 0 && strcmp(v, "function") == 0) k = 0;
        if (k < 0) return bad("level", v, "functions, loops or lines");
        return q->level = (pk_tree_level)k, PK_OK;
    default: /* PKQ_CALLGRAPH */
        if (strcmp(v, "auto") && strcmp(v, "tree")) return bad("callgraph", v, "auto or tree");
        return q->use_callgraph = strcmp(v, "auto") == 0, PK_OK;
    }
}

/* Check `v` for option `opt`, setting the parsed member. */
static pk_status parse(pk_query *q, int opt, const char *v)
{
    switch (opt) {
    case PKQ_THRESHOLD:
    case PKQ_TOP:
    case PKQ_DEPTH:
    case PKQ_SORT:
    case PKQ_CONTEXT:
        return parse_number(q, opt, v);
    case PKQ_STAT:
    case PKQ_BY:
    case PKQ_LEVEL:
    case PKQ_CALLGRAPH:
        return parse_word(q, opt, v);
    case PKQ_ASM:
        if (strcmp(v, "0") && strcmp(v, "1")) return bad("asm", v, "0 or 1");
        return q->assembly = v[0] == '1', PK_OK;
    case PKQ_CHAINS:
        if (strcmp(v, "fold") && strcmp(v, "show")) return bad("chains", v, "fold or show");
        return q->fold_chains = v[0] == 'f', PK_OK;
    case PKQ_SOURCES:
        if (strcmp(v, "any") && strcmp(v, "within")) return bad("sources", v, "any or within");
        return q->sources_within = v[0] == 'w', PK_OK;
    case PKQ_FOCUS:
    case PKQ_HIDE:
    case PKQ_SEARCH:
        return check_pattern(option_names[opt], v);
    default: /* names resolved against the profile later */
        return PK_OK;
    }
}

int pkq_option(const char *name)
{
    for (int i = 0; name && i < PKQ_N_OPTIONS; i++)
        if (strcmp(name, option_names[i]) == 0) return i;
    return -1;
}

pk_status pk_query_set(pk_query *q, const char *name, const char *value)
{
    if (!q || !name) return pk_fail(PK_ERR_INVALID_ARG, "pk_query_set: bad arguments");
    int opt = pkq_option(name);
    if (opt < 0) return pk_fail(PK_ERR_INVALID_ARG, "no option '%.64s'", name);
    if (value && memchr(value, 0, strlen(value) + 1) != value + strlen(value))
        return pk_fail(PK_ERR_INVALID_ARG, "%s: a NUL byte", name);
    if (!value || !*value) {
        pk_query fresh;
        set_defaults(&fresh);
        free(q->text[opt]);
        q->text[opt] = NULL;
        pkq_copy_parsed(q, &fresh, opt);
        return PK_OK;
    }
    pk_status st = parse(q, opt, value);
    if (st) return st;
    char *copy = strdup(value);
    if (!copy) return pk_fail_nomem("a query option");
    free(q->text[opt]);
    q->text[opt] = copy;
    return PK_OK;
}

/* The parsed member of option `opt` from `from` (its default). */
void pkq_copy_parsed(pk_query *q, const pk_query *from, int opt)
{
    switch (opt) {
    case PKQ_STAT:
        q->stat = from->stat;
        break;
    case PKQ_THRESHOLD:
        q->threshold = from->threshold;
        break;
    case PKQ_TOP:
        q->top = from->top;
        break;
    case PKQ_DEPTH:
        q->depth = from->depth;
        break;
    case PKQ_BY:
        q->by = from->by;
        break;
    case PKQ_LEVEL:
        q->level = from->level;
        break;
    case PKQ_SORT:
        q->sort = from->sort;
        break;
    case PKQ_CALLGRAPH:
        q->use_callgraph = from->use_callgraph;
        break;
    case PKQ_CONTEXT:
        q->context = from->context;
        break;
    case PKQ_ASM:
        q->assembly = from->assembly;
        break;
    case PKQ_CHAINS:
        q->fold_chains = from->fold_chains;
        break;
    case PKQ_SOURCES:
        q->sources_within = from->sources_within;
        break;
    default:
        break;
    }
}

size_t pk_query_key(const pk_query *q, char *buf, size_t size)
{
    size_t len = 0;
    for (int i = 0; i < PKQ_N_OPTIONS; i++) {
        if (!q->text[i] || !*q->text[i]) continue;
        for (const char *c = option_names[i]; *c; c++, len++)
            if (len + 1 < size) buf[len] = *c;
        if (len + 1 < size) buf[len] = '=';
        len++;
        for (const unsigned char *c = (const unsigned char *)q->text[i]; *c; c++) {
            int esc = *c == '%' || *c == '&';
            char hex[4];
            snprintf(hex, sizeof hex, "%%%02X", *c);
            for (int k = 0; k < (esc ? 3 : 1); k++, len++)
                if (len + 1 < size) buf[len] = esc ? hex[k] : (char)*c;
        }
        if (len + 1 < size) buf[len] = '&';
        len++;
    }
    if (size) buf[len < size ? len : size - 1] = 0;
    return len;
}

double pk_query_threshold(const pk_query *q)
{
    return q ? q->threshold : 0;
}

int pk_query_has_option(const char *name)
{
    return pkq_option(name) >= 0;
}

const char *pk_query_get(const pk_query *q, const char *name)
{
    int opt = pkq_option(name);
    return q && opt >= 0 ? q->text[opt] : NULL;
}

const char *pkq_text(const pk_query *q, int opt)
{
    return q->text[opt] && *q->text[opt] ? q->text[opt] : NULL;
}

int pkq_filtered(const pk_query *q)
{
    return pkq_text(q, PKQ_FOCUS) || pkq_text(q, PKQ_HIDE);
}

void pk_query_open_options(const pk_query *q, pk_answer_kind kind, unsigned width,
                           pk_open_options *o)
{
    (void)width; /* a flame graph's frames of a tenth of a pixel: see PK_ANSWER_TREE */
    /* a call graph answers flat, callers and callees from its own lists
     * when the query allows: then no tree is rebuilt */
    int lists = q->use_callgraph && q->stat == PK_ACROSS_SUM && !pkq_filtered(q);
    int several = pkq_text(q, PKQ_METRIC) && strpbrk(pkq_text(q, PKQ_METRIC), ",=");
    o->flags |= PK_OPEN_NO_TRACES | PK_OPEN_NO_CCT;
    switch (kind) {
    case PK_ANSWER_FLAT:
        if (lists)
            o->flags |=
                PK_OPEN_NO_TREE | (q->by == PK_BY_LINE ? PK_OPEN_BY_LINE : PK_OPEN_BY_FUNCTION);
        break;
    case PK_ANSWER_TREE:
        /* the whole tree: one cut at a threshold (tree_threshold) hangs
         * a "<below threshold>" node in it and moves the apportioned
         * values of the kept ones by up to a tenth of a percent */
        o->flags |= PK_OPEN_BY_FUNCTION;
        break;
    case PK_ANSWER_CALLERS:
        o->flags |= PK_OPEN_BY_FUNCTION | (lists && !several ? PK_OPEN_NO_TREE : 0);
        break;
    case PK_ANSWER_THREADS: /* totals need no tree, nor a call graph's function costs */
        o->flags |=
            PK_OPEN_BY_FUNCTION | (lists || !pkq_text(q, PKQ_FUNCTION) ? PK_OPEN_NO_TREE : 0);
        break;
    case PK_ANSWER_ANNOTATE: /* lines: by position; a call graph's lists need no tree */
        if (lists) o->flags |= PK_OPEN_NO_TREE;
        if (!q->assembly) o->flags |= PK_OPEN_BY_LINE; /* source lines: no addresses kept */
        break;
    default:
        o->flags |= PK_OPEN_BY_FUNCTION;
        break;
    }
}
