/*
 * output/numbers.c — numbers for people: digit grouping, no float noise,
 * a few significant digits for fractions, times and sizes in a unit that
 * suits their magnitude. Machine outputs (JSON, CSV) never come here;
 * they print pk_format_double()'s exact text.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/units.h"
#include "profkit/output.h"
#include "util/error.h"

/* "12345678" -> "12,345,678" (digits only, sign kept), into buf. */
static size_t group_digits(char *buf, size_t size, double r)
{
    char digits[64];
    int n = snprintf(digits, sizeof digits, "%.0f", fabs(r));
    char out[96];
    size_t k = 0;
    if (r < 0) out[k++] = '-';
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0) out[k++] = ',';
        out[k++] = digits[i];
    }
    out[k] = 0;
    return (size_t)snprintf(buf, size, "%s", out);
}

/* "26.16G": a count too wide for its column, 4 significant digits. */
static size_t compact(char *buf, size_t size, double x)
{
    static const char suffix[] = "KMGTPE";
    double a = fabs(x);
    int k = -1;
    while (k < 5 && a >= 999.95) /* 999.96K rounds to 1000K: go on to M */
        a /= 1000, k++;
    if (k < 0) return (size_t)snprintf(buf, size, "%.4g", x);
    /* "3.200G", not "3.2G": the digits line up down a column */
    return (size_t)snprintf(buf, size, "%#.4g%c", x < 0 ? -a : a, suffix[k]);
}

size_t pk_format_number(char *buf, size_t size, double v, const pk_number_format *f)
{
    double x = f ? v * f->scale : v;
    if (f && f->integers && isfinite(x)) x = nearbyint(x); /* 48.4 apportioned instructions */
    double a = fabs(x);
    unsigned width = f && f->width ? f->width : 10;
    if (isnan(x)) return (size_t)snprintf(buf, size, "nan");
    if (isinf(x)) return (size_t)snprintf(buf, size, x < 0 ? "-inf" : "inf");
    if (x == 0) return (size_t)snprintf(buf, size, "0");
    double r = nearbyint(x);
    /* 7386555.99999999 is 7386556: sums of doubles drift in the last bits */
    int integral = fabs(x - r) <= 1e-9 * (a > 1 ? a : 1);
    if (a >= 1e18) return (size_t)snprintf(buf, size, "%.3e", x);
    if (!integral && a < 1000) {
        if (a < 1e-4) return (size_t)snprintf(buf, size, "%.3e", x);
        return (size_t)snprintf(buf, size, "%.*g", f && f->digits ? (int)f->digits : 4, x);
    }
    char tmp[96];
    size_t n = group_digits(tmp, sizeof tmp, r);
    if (n > width || (f && f->compact)) return compact(buf, size, x);
    return (size_t)snprintf(buf, size, "%s", tmp);
}

size_t pk_format_value(char *buf, size_t size, double v)
{
    return pk_format_number(buf, size, v, NULL);
}

/* Does `s` (len bytes) name a unit profkit shows values in? */
static int shown_unit(const char *s, size_t len)
{
    static const char *const bytes[] = {"B", "byte", "bytes"};
    char u[32];
    int exp;
    if (len == 0 || len >= sizeof u) return 0;
    memcpy(u, s, len), u[len] = 0;
    for (size_t i = 0; i < sizeof bytes / sizeof *bytes; i++)
        if (strcmp(u, bytes[i]) == 0) return 1;
    return pk_unit_time_exp(u, &exp);
}

size_t pk_metric_label(const char *name, char *buf, size_t size)
{
    size_t n = name ? strlen(name) : 0;
    const char *open = n ? strrchr(name, '(') : NULL;
    if (open && open > name + 1 && open[-1] == ' ' && name[n - 1] == ')' &&
        shown_unit(open + 1, (size_t)(name + n - 1 - (open + 1))))
        n = (size_t)(open - 1 - name);
    return (size_t)snprintf(buf, size, "%.*s", (int)n, name ? name : "");
}

size_t pk_format_header(char *buf, size_t size, const char *label, const pk_number_format *f)
{
    if (!f || !f->unit[0]) return (size_t)snprintf(buf, size, "%s", label);
    char plain[256]; /* "GKER (sec)" shown in ms: "GKER (ms)", not "GKER (sec) (ms)" */
    pk_metric_label(label, plain, sizeof plain);
    return (size_t)snprintf(buf, size, "%s (%s)", plain, f->unit);
}

/* Seconds to s/ms/us/ns: the largest unit the magnitude is at least 1 of. */
static void time_format(const pk_unit *u, double magnitude, pk_number_format *out)
{
    double secs = magnitude * u->factor * pow(10, u->exp);
    int exp = 0;
    while (exp > -9 && secs > 0 && secs < pow(10, exp))
        exp -= 3;
    out->scale = u->factor * pow(10, u->exp - exp);
    snprintf(out->unit, sizeof out->unit, "%s", pk_unit_time_name(exp));
}

static void byte_format(const pk_unit *u, double magnitude, pk_number_format *out)
{
    static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double bytes = magnitude * u->factor;
    int k = 0;
    while (k < 5 && bytes >= 1024)
        bytes /= 1024, k++;
    out->scale = u->factor / pow(1024, k);
    snprintf(out->unit, sizeof out->unit, "%s", names[k]);
}

pk_status pk_number_format_for(const pk_metric *metric, double magnitude, pk_number_format *out)
{
    if (!metric || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_number_format_for: NULL");
    *out = (pk_number_format){1, "", 0, 0, 0, 0};
    pk_unit u;
    if (!pk_unit_parse(metric, &u)) { /* a unit profkit cannot read: shown as it is */
        snprintf(out->unit, sizeof out->unit, "%.20s", metric->unit ? metric->unit : "");
        return PK_OK;
    }
    magnitude = isfinite(magnitude) ? fabs(magnitude) : 0;
    if (u.dim == PK_UNIT_TIME) {
        time_format(&u, magnitude, out);
    } else if (u.dim == PK_UNIT_BYTES) {
        byte_format(&u, magnitude, out);
    } else {
        out->scale = u.factor;
        snprintf(out->unit, sizeof out->unit, "%.20s", u.name);
        /* a count: no unit (Callgrind's events, perf counters), or one of
         * its own the file stores as an unsigned integer (Cube's "occ") */
        out->integers =
            u.factor == 1 && (u.dim == PK_UNIT_NONE ||
                              (u.dim == PK_UNIT_OTHER && (metric->flags & PK_METRIC_UNSIGNED)));
    }
    out->compact = magnitude * out->scale >= 1e8; /* "100,000,000" is wider than 10 */
    return PK_OK;
}
