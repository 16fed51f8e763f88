/*
 * util/pattern.c — the one place user regular expressions are compiled
 * and matched (include/profkit/pattern.h): POSIX extended syntax,
 * translated here into PCRE2's and matched by pcre2_dfa_match(), which
 * never backtracks.
 *
 * Why PCRE2's DFA matcher and not glibc's regexec: glibc expands bounded
 * repetitions when it compiles ((a{1,32767}){1,32767}: 3.9 GB), matches
 * backreferences by backtracking (over 60 s on one long name), and keeps
 * the DFA states it builds while matching with no bound. pcre2_dfa_match
 * runs the pattern as an automaton over the subject once (time linear in
 * the subject times the pattern's size, in a workspace of fixed size),
 * refuses backreferences, and PCRE2's compiler refuses patterns whose
 * compiled form is too large before building them. The translation
 * (rather than pcre2_pattern_convert, which drops \w, \<, \> and lets
 * Perl's (?...) through) keeps what regcomp(REG_EXTENDED) accepts and
 * rejects, with its error messages, so --focus and --hide read as before.
 */
#define _POSIX_C_SOURCE       200809L
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profkit/pattern.h"
#include "util/error.h"

#define WORKSPACE 8192 /* ints: pcre2_dfa_match's active states */
/* What one byte of the expression may become: \x{hh}-\x{hh}, \b(?<=\w),
 * or "(?:" and ")" around an item quantified again. */
#define OUT_MAX (16 * PK_PATTERN_MAX_LENGTH + 64)

struct pk_pattern {
    pcre2_code *code;
    pcre2_match_data *md;
    pcre2_match_context *mc;
    double limit;          /* seconds over all matches, <= 0: none */
    struct timespec start; /* of the first match */
    int started, expired;
    char *expr; /* for messages */
    int ws[WORKSPACE];
};

/* The translation: ERE in, PCRE2 out, and what regcomp would say. */
typedef struct tr {
    const unsigned char *s;
    size_t i, n;
    char *out;
    size_t len;
    size_t atom;                        /* where the last quantifiable item starts in out */
    int can_quant;                      /* an item precedes that a quantifier may follow */
    int quanted;                        /* ...and it already has a quantifier */
    int depth;                          /* open groups */
    size_t open[PK_PATTERN_MAX_LENGTH]; /* where each starts in out */
    const char *why;
    pk_status st;
} tr;

static void emit(tr *t, const char *s)
{
    size_t n = strlen(s);
    if (t->len + n < OUT_MAX) memcpy(t->out + t->len, s, n), t->len += n;
}

/* A literal byte, quoted so that PCRE2 reads it as itself. */
static void emit_byte(tr *t, unsigned char c)
{
    char x[8];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        x[0] = (char)c, x[1] = 0;
    else
        snprintf(x, sizeof x, "\\x{%02x}", c);
    emit(t, x);
}

static int fail(tr *t, pk_status st, const char *why)
{
    if (!t->why) t->why = why, t->st = st;
    return 0;
}

/* A new item starts at the current end of out: a quantifier may follow. */
static void item(tr *t)
{
    t->atom = t->len, t->can_quant = 1, t->quanted = 0;
}

/* An anchor or the start of a branch: nothing to quantify. */
static void no_item(tr *t)
{
    t->can_quant = 0, t->quanted = 0;
}

/* ---- bracket expressions ------------------------------------------- */

static const char *const classes[] = {"alnum", "alpha", "blank", "cntrl", "digit", "graph",
                                      "lower", "print", "punct", "space", "upper", "xdigit"};

/* One element at t->i: a byte (*c >= 0), or a class [:name:] emitted
 * (*c = -1). 0 on a syntax error. */
static int bracket_element(tr *t, int *c)
{
    const unsigned char *s = t->s;
    if (s[t->i] == '[' && t->i + 1 < t->n && strchr(":=.", s[t->i + 1])) {
        unsigned char kind = s[t->i + 1];
        size_t b = t->i + 2, e = b;
        while (e + 1 < t->n && !(s[e] == kind && s[e + 1] == ']'))
            e++;
        if (e + 1 >= t->n) return fail(t, PK_ERR_INVALID_ARG, "Unmatched [, [^, [:, [., or [=");
        t->i = e + 2;
        if (kind != ':') { /* [=c=], [.c.]: one byte in the C locale */
            if (e - b != 1) return fail(t, PK_ERR_INVALID_ARG, "Invalid collation character");
            *c = s[b];
            return 1;
        }
        for (size_t k = 0; k < sizeof classes / sizeof *classes; k++)
            if (strlen(classes[k]) == e - b && memcmp(classes[k], s + b, e - b) == 0) {
                char x[24];
                snprintf(x, sizeof x, "[:%s:]", classes[k]);
                emit(t, x);
                *c = -1;
                return 1;
            }
        return fail(t, PK_ERR_INVALID_ARG, "Invalid character class name");
    }
    *c = s[t->i++]; /* a backslash too: it is itself in brackets */
    return 1;
}

/* [...] at t->i (after the '['), emitted as a PCRE2 class of \x{hh}. */
static int bracket(tr *t)
{
    emit(t, "[");
    if (t->i < t->n && t->s[t->i] == '^') emit(t, "^"), t->i++;
    int first = 1;
    for (;;) {
        if (t->i >= t->n) return fail(t, PK_ERR_INVALID_ARG, "Unmatched [, [^, [:, [., or [=");
        if (t->s[t->i] == ']' && !first) break;
        first = 0;
        int lo, hi;
        if (!bracket_element(t, &lo)) return 0;
        int range = t->i + 1 < t->n && t->s[t->i] == '-' && t->s[t->i + 1] != ']';
        if (range && lo < 0) return fail(t, PK_ERR_INVALID_ARG, "Invalid range end");
        if (lo < 0) continue;
        emit_byte(t, (unsigned char)lo);
        if (!range) continue;
        t->i++;
        if (!bracket_element(t, &hi)) return 0;
        if (hi < 0 || hi < lo) return fail(t, PK_ERR_INVALID_ARG, "Invalid range end");
        emit(t, "-");
        emit_byte(t, (unsigned char)hi);
    }
    t->i++;
    emit(t, "]");
    return 1;
}

/* ---- quantifiers ----------------------------------------------------- */

/* A decimal at s[*i], capped at 99999 (more is too big anyway); -1 when
 * there is no digit. */
static long number(const tr *t, size_t *i)
{
    long v = -1;
    for (; *i < t->n && t->s[*i] >= '0' && t->s[*i] <= '9'; ++*i)
        v = v < 0 ? t->s[*i] - '0' : v > 9999 ? 99999 : v * 10 + (t->s[*i] - '0');
    return v;
}

/* {m}, {m,}, {m,n}, {,n} at t->i (after the '{'), emitted normalised. */
static int interval(tr *t)
{
    size_t i = t->i;
    long lo = number(t, &i), hi = -1;
    int comma = i < t->n && t->s[i] == ',';
    if (comma) i++, hi = number(t, &i);
    if (i >= t->n) return fail(t, PK_ERR_INVALID_ARG, "Unmatched \\{");
    if (t->s[i] != '}' || (lo < 0 && !comma)) {
        while (i < t->n && t->s[i] != '}')
            i++;
        return fail(t, PK_ERR_INVALID_ARG,
                    i < t->n ? "Invalid content of \\{\\}" : "Unmatched \\{");
    }
    if (lo < 0) lo = 0;
    if (!comma) hi = lo;
    if (hi >= 0 && hi < lo) return fail(t, PK_ERR_INVALID_ARG, "Invalid content of \\{\\}");
    if (lo > 32767 || hi > 32767) return fail(t, PK_ERR_INVALID_ARG, "Regular expression too big");
    char x[32];
    if (hi < 0)
        snprintf(x, sizeof x, "{%ld,}", lo);
    else
        snprintf(x, sizeof x, "{%ld,%ld}", lo, hi);
    emit(t, x);
    t->i = i + 1;
    return 1;
}

/* A quantifier c on the last item; an item quantified already is
 * wrapped first ((?:a*)+: a*+ would be possessive in PCRE2). */
static int quantifier(tr *t, unsigned char c)
{
    if (!t->can_quant) return fail(t, PK_ERR_INVALID_ARG, "Invalid preceding regular expression");
    if (t->quanted && t->len + 4 < OUT_MAX) {
        memmove(t->out + t->atom + 3, t->out + t->atom, t->len - t->atom);
        memcpy(t->out + t->atom, "(?:", 3);
        t->len += 3;
        emit(t, ")");
    }
    if (c == '{') {
        if (!interval(t)) return 0;
    } else {
        char x[2] = {(char)c, 0};
        emit(t, x);
    }
    t->quanted = 1;
    return 1;
}

/* ---- the rest ------------------------------------------------------- */

/* \c at t->i (after the backslash). */
static int escape(tr *t)
{
    if (t->i >= t->n) return fail(t, PK_ERR_INVALID_ARG, "Trailing backslash");
    unsigned char c = t->s[t->i++];
    if (c >= '1' && c <= '9')
        return fail(t, PK_ERR_INVALID_ARG,
                    "backreferences (\\1 to \\9) are not supported: no engine "
                    "matches them in time linear in the name");
    static const char *const gnu[][2] = {
        {"w", "\\w"}, {"W", "\\W"},        {"s", "\\s"},         {"S", "\\S"}, {"b", "\\b"},
        {"B", "\\B"}, {"<", "\\b(?=\\w)"}, {">", "\\b(?<=\\w)"}, {"`", "\\A"}, {"'", "\\z"}};
    for (size_t k = 0; k < sizeof gnu / sizeof *gnu; k++)
        if (c == (unsigned char)gnu[k][0][0]) {
            int anchor = k >= 4;
            if (anchor) no_item(t);
            if (!anchor) item(t);
            emit(t, gnu[k][1]);
            return 1;
        }
    item(t);
    emit_byte(t, c); /* any other escaped byte is itself */
    return 1;
}

static int step(tr *t)
{
    unsigned char c = t->s[t->i++];
    switch (c) {
    case '\\':
        return escape(t);
    case '[':
        item(t);
        return bracket(t);
    case '(':
        t->open[t->depth++] = t->len;
        emit(t, "(?:"); /* no captures: nothing reads them */
        no_item(t);
        return 1;
    case ')':
        if (!t->depth) break; /* an unmatched ')' is itself */
        emit(t, ")");
        t->atom = t->open[--t->depth], t->can_quant = 1, t->quanted = 0; /* the group */
        return 1;
    case '|':
        emit(t, "|");
        no_item(t);
        return 1;
    case '^':
    case '$':
        emit(t, c == '^' ? "^" : "$");
        no_item(t);
        return 1;
    case '*':
    case '+':
    case '?':
    case '{':
        return quantifier(t, c);
    case '.':
        item(t);
        emit(t, ".");
        return 1;
    default:
        break;
    }
    item(t);
    emit_byte(t, c);
    return 1;
}

/* expr as PCRE2 syntax into *out (malloc'd); 0 with t->why on error. */
static int translate(const char *expr, tr *t)
{
    t->s = (const unsigned char *)expr, t->n = strlen(expr);
    t->out = malloc(OUT_MAX + 1);
    if (!t->out) return fail(t, PK_ERR_NOMEM, "out of memory");
    while (t->i < t->n && step(t))
        ;
    if (!t->why && t->depth) fail(t, PK_ERR_INVALID_ARG, "Unmatched ( or \\(");
    t->out[t->len] = 0;
    return t->why == NULL;
}

/* ---- compiling and matching ----------------------------------------- */

static pk_status compile_pcre(pk_pattern *re, const char *expr, const char *pcre, unsigned flags)
{
    uint32_t opts = PCRE2_DOTALL | PCRE2_DOLLAR_ENDONLY | PCRE2_NEVER_UTF | PCRE2_NEVER_UCP |
                    PCRE2_NEVER_BACKSLASH_C | (flags & PK_PATTERN_ICASE ? PCRE2_CASELESS : 0);
    int err;
    PCRE2_SIZE at;
    re->code = pcre2_compile((PCRE2_SPTR)pcre, PCRE2_ZERO_TERMINATED, opts, &err, &at, NULL);
    size_t size = 0;
    if (re->code) pcre2_pattern_info(re->code, PCRE2_INFO_SIZE, &size);
    if (err == PCRE2_ERROR_PATTERN_TOO_LARGE || size > PK_PATTERN_MAX_COMPILED)
        return pk_fail(PK_ERR_INVALID_ARG,
                       "regular expression '%s' is too big with its repetitions written out "
                       "(profkit takes at most %u KiB compiled)",
                       expr, PK_PATTERN_MAX_COMPILED >> 10);
    if (!re->code) {
        PCRE2_UCHAR msg[160];
        pcre2_get_error_message(err, msg, sizeof msg);
        return pk_fail(PK_ERR_INVALID_ARG, "regular expression '%s': %s", expr, (char *)msg);
    }
    re->md = pcre2_match_data_create(1, NULL);
    re->mc = pcre2_match_context_create(NULL);
    if (!re->md || !re->mc) return pk_fail_nomem("compiling a regular expression");
    pcre2_set_depth_limit(re->mc, 1000); /* the DFA matcher recurses only into assertions */
    pcre2_set_heap_limit(re->mc, 16384); /* KiB */
    return PK_OK;
}

pk_status pk_pattern_compile(const char *expr, unsigned flags, pk_pattern **out)
{
    if (!expr || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_pattern_compile: NULL argument");
    *out = NULL;
    size_t n = strlen(expr);
    if (n > PK_PATTERN_MAX_LENGTH)
        return pk_fail(PK_ERR_INVALID_ARG,
                       "a regular expression of %zu bytes ('%.40s...'); profkit takes at most %d",
                       n, expr, PK_PATTERN_MAX_LENGTH);
    tr *t = calloc(1, sizeof *t);
    pk_pattern *re = calloc(1, sizeof *re);
    pk_status st = t && re ? PK_OK : pk_fail_nomem("compiling a regular expression");
    if (!st && !translate(expr, t))
        st = t->st == PK_ERR_NOMEM ? pk_fail_nomem("compiling a regular expression")
                                   : pk_fail(t->st, "regular expression '%s': %s", expr, t->why);
    if (!st && !(re->expr = strdup(expr))) st = pk_fail_nomem("compiling a regular expression");
    if (!st) st = compile_pcre(re, expr, t->out, flags);
    if (t) free(t->out);
    free(t);
    if (st) return pk_pattern_free(re), st;
    re->limit = PK_PATTERN_TIME_LIMIT;
    *out = re;
    return PK_OK;
}

void pk_pattern_set_time_limit(pk_pattern *re, double seconds)
{
    if (!re) return;
    re->limit = seconds;
    re->started = 0, re->expired = 0;
}

static double since(const struct timespec *a)
{
    struct timespec b;
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (double)(b.tv_sec - a->tv_sec) + (b.tv_nsec - a->tv_nsec) / 1e9;
}

pk_status pk_pattern_match(pk_pattern *re, const char *s, size_t len, int *matched)
{
    if (!re || (!s && len) || !matched)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_pattern_match: NULL argument");
    *matched = 0;
    if (re->limit > 0 && !re->started) clock_gettime(CLOCK_MONOTONIC, &re->start), re->started = 1;
    if (!re->expired && re->limit > 0 && since(&re->start) > re->limit) re->expired = 1;
    if (re->expired)
        return pk_fail(PK_ERR_LIMIT,
                       "matching regular expression '%s' took more than %g s; a simpler "
                       "expression or fewer names answers sooner",
                       re->expr, re->limit);
    int rc = pcre2_dfa_match(re->code, (PCRE2_SPTR)(s ? s : ""), len, 0, PCRE2_DFA_SHORTEST, re->md,
                             re->mc, re->ws, WORKSPACE);
    if (rc >= 0) return *matched = 1, PK_OK;
    if (rc == PCRE2_ERROR_NOMATCH) return PK_OK;
    if (rc == PCRE2_ERROR_DFA_WSSIZE || rc == PCRE2_ERROR_DEPTHLIMIT ||
        rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_NOMEMORY)
        return pk_fail(PK_ERR_LIMIT,
                       "regular expression '%s' is too complex to match against a name of %zu "
                       "bytes",
                       re->expr, len);
    PCRE2_UCHAR msg[160];
    pcre2_get_error_message(rc, msg, sizeof msg);
    return pk_fail(PK_ERR_INVALID_ARG, "matching regular expression '%s': %s", re->expr,
                   (char *)msg);
}

void pk_pattern_free(pk_pattern *re)
{
    if (!re) return;
    pcre2_match_data_free(re->md);
    pcre2_match_context_free(re->mc);
    pcre2_code_free(re->code);
    free(re->expr);
    free(re);
}
