/*
 * view/query.c — the parameters of an API request, decoded by the HTTP
 * library (or built by the report builder) and checked strictly here:
 * bounded in number and length, no repeated or unknown names, numbers
 * that are whole numbers in range. A request the page would never make
 * is refused with a 400 that says why, never half-understood.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "view/view.h"

void pkv_query_fail(pkv_query *q, const char *why, const char *key)
{
    if (q->error) return;
    q->error = 1;
    snprintf(q->why, sizeof q->why, "%s%s%.40s%s", why, key ? " '" : "", key ? key : "",
             key ? "'" : "");
}

void pkv_query_add(pkv_query *q, const char *key, const char *value, size_t value_len)
{
    if (q->error) return;
    if (!key || !*key) return pkv_query_fail(q, "a parameter without a name", NULL);
    if (strlen(key) > 64) return pkv_query_fail(q, "a parameter name longer than 64 bytes", NULL);
    if (!value) value = "", value_len = 0;
    if (value_len > PKV_MAX_PARAM_LEN) return pkv_query_fail(q, "a parameter value too long:", key);
    if (memchr(value, 0, value_len)) return pkv_query_fail(q, "a NUL byte in parameter", key);
    for (size_t i = 0; i < q->n; i++)
        if (strcmp(q->p[i].key, key) == 0) return pkv_query_fail(q, "parameter given twice:", key);
    if (q->n == PKV_MAX_PARAMS) return pkv_query_fail(q, "too many parameters", NULL);
    char *k = strdup(key), *v = malloc(value_len + 1);
    if (!k || !v) {
        free(k), free(v);
        return pkv_query_fail(q, "out of memory", NULL);
    }
    memcpy(v, value, value_len);
    v[value_len] = 0;
    q->p[q->n++] = (pkv_param){k, v};
}

void pkv_query_free(pkv_query *q)
{
    for (size_t i = 0; i < q->n; i++)
        free(q->p[i].key), free(q->p[i].value);
    q->n = 0;
}

const char *pkv_get(const pkv_query *q, const char *key)
{
    for (size_t i = 0; i < q->n; i++)
        if (strcmp(q->p[i].key, key) == 0) return *q->p[i].value ? q->p[i].value : NULL;
    return NULL;
}

int pkv_only(const pkv_query *q, const char *const *allowed, char *err, size_t size)
{
    for (size_t i = 0; i < q->n; i++) {
        size_t k = 0;
        while (allowed[k] && strcmp(allowed[k], q->p[i].key) != 0)
            k++;
        if (!allowed[k]) {
            snprintf(err, size, "unknown parameter '%.64s'", q->p[i].key);
            return 0;
        }
    }
    return 1;
}

int pkv_uint(const pkv_query *q, const char *key, unsigned long long lo, unsigned long long hi,
             unsigned long long dflt, unsigned long long *out, char *err, size_t size)
{
    const char *s = pkv_get(q, key);
    if (!s) return *out = dflt, 1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*s < '0' || *s > '9' || *end || errno || v < lo || v > hi) {
        snprintf(err, size, "%s wants a whole number from %llu to %llu", key, lo, hi);
        return 0;
    }
    *out = v;
    return 1;
}

int pkv_double(const pkv_query *q, const char *key, double lo, double hi, double dflt, double *out,
               char *err, size_t size)
{
    const char *s = pkv_get(q, key);
    if (!s) return *out = dflt, 1;
    char *end;
    double v = strtod(s, &end);
    /* plain decimals only: no "inf", "nan", hex floats or blanks */
    int plain = strspn(s, "0123456789.eE+-") == strlen(s);
    if (!plain || *end || !isfinite(v) || v < lo || v > hi) {
        snprintf(err, size, "%s wants a number from %g to %g", key, lo, hi);
        return 0;
    }
    *out = v;
    return 1;
}

static int hex_value(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* s[0..n) percent-decoded ('+' is a blank) into out (n + 1 bytes);
 * returns the decoded length, or (size_t)-1 for a bad escape. */
static size_t decode(const char *s, size_t n, char *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%') {
            int hi = i + 1 < n ? hex_value(s[i + 1]) : -1,
                lo = i + 2 < n ? hex_value(s[i + 2]) : -1;
            if (hi < 0 || lo < 0) return (size_t)-1;
            out[k++] = (char)(hi * 16 + lo), i += 2;
        } else {
            out[k++] = s[i] == '+' ? ' ' : s[i];
        }
    }
    out[k] = 0;
    return k;
}

void pkv_query_parse(pkv_query *q, const char *text)
{
    while (text && *text && !q->error) {
        size_t len = strcspn(text, "&"), eq = strcspn(text, "=");
        if (eq > len) eq = len;
        char *key = malloc(eq + 1), *value = malloc(len - eq + 1);
        size_t kn = key ? decode(text, eq, key) : (size_t)-1;
        size_t vn =
            value ? decode(text + (eq < len ? eq + 1 : len), len - (eq < len ? eq + 1 : len), value)
                  : (size_t)-1;
        if (kn == (size_t)-1 || vn == (size_t)-1)
            pkv_query_fail(q, "a bad %-escape in the query", NULL);
        else
            pkv_query_add(q, key, value, vn);
        free(key), free(value);
        text += len + (text[len] == '&');
    }
}
