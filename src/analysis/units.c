/*
 * analysis/units.c — how two metrics' units relate, so that values of one
 * metric in two files compare in one unit. A writer that stores integers
 * scales values by a power of 1000 and says so in the metric's unit
 * (Callgrind: seconds become "us" or "ns"; a unitless count "1e-9", a
 * billionth); HPCToolkit puts the unit at the end of a name instead
 * ("CPUTIME (sec)"). Only such known scales count: units of different
 * dimensions, or of one dimension by another factor, do not compare.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/model.h"
#include "profkit/analysis.h"

static const struct {
    const char *name;
    int exp; /* of ten, in seconds */
} time_units[] = {{"s", 0},       {"sec", 0},          {"secs", 0},          {"second", 0},
                  {"seconds", 0}, {"ms", -3},          {"msec", -3},         {"us", -6},
                  {"usec", -6},   {"\xc2\xb5s", -6},   {"microseconds", -6}, {"ns", -9},
                  {"nsec", -9},   {"nanoseconds", -9}, {"ps", -12},          {"fs", -15},
                  {"as", -18}};

typedef struct unit {
    double factor; /* "1e-9 B": 1e-9 */
    char name[64]; /* "B"; "" when none */
    int time_exp;  /* of ten, in seconds, when is_time */
    int is_time;
} unit;

/* The unit's text: the metric's own, else what ends its name in
 * parentheses ("CPUTIME (sec)") when that is a time unit. */
static const char *unit_text(const pk_metric *m, char *buf, size_t size)
{
    if (m->unit && *m->unit) return m->unit;
    const char *open = m->name ? strrchr(m->name, '(') : NULL;
    size_t len = open ? strlen(open) : 0;
    if (!open || len < 3 || open[len - 1] != ')' || len - 2 >= size) return "";
    memcpy(buf, open + 1, len - 2), buf[len - 2] = 0;
    for (size_t i = 0; i < sizeof time_units / sizeof *time_units; i++)
        if (strcmp(buf, time_units[i].name) == 0) return buf;
    return "";
}

static int parse_unit(const pk_metric *m, unit *u)
{
    char buf[64];
    const char *s = unit_text(m, buf, sizeof buf);
    char *end = (char *)s;
    u->factor = 1, u->is_time = 0, u->time_exp = 0;
    if (*s >= '0' && *s <= '9') {
        u->factor = strtod(s, &end);
        if (!(u->factor > 0) || !isfinite(u->factor)) return 0;
        while (*end == ' ')
            end++;
    }
    if (strlen(end) >= sizeof u->name) return 0;
    strcpy(u->name, end);
    for (size_t i = 0; i < sizeof time_units / sizeof *time_units; i++)
        if (strcasecmp(end, time_units[i].name) == 0 || strcmp(end, time_units[i].name) == 0)
            u->is_time = 1, u->time_exp = time_units[i].exp;
    return 1;
}

pk_status pk_metric_unit_factor(const pk_metric *from, const pk_metric *to, double *factor)
{
    if (!from || !to || !factor) return pk_fail(PK_ERR_INVALID_ARG, "pk_metric_unit_factor: NULL");
    unit a, b;
    if (!parse_unit(from, &a) || !parse_unit(to, &b))
        return pk_fail(PK_ERR_NOT_FOUND, "a unit profkit cannot read");
    double f;
    if (a.is_time && b.is_time)
        f = a.factor / b.factor * pow(10, a.time_exp - b.time_exp);
    else if (!a.is_time && !b.is_time && strcasecmp(a.name, b.name) == 0)
        f = a.factor / b.factor;
    else
        return pk_fail(PK_ERR_NOT_FOUND, "units '%s' and '%s' do not compare", a.name, b.name);
    double k = log10(f) / 3;
    if (fabs(k - nearbyint(k)) > 1e-9)
        return pk_fail(PK_ERR_NOT_FOUND, "units differ by %g, not a power of 1000", f);
    *factor = pow(1000, nearbyint(k));
    return PK_OK;
}
