/*
 * model/units.c — the one table of units profkit understands and how a
 * metric states its unit (model/units.h). Callgrind writers put a scale
 * before the unit ("1e-9 B") because Callgrind stores integers;
 * HPCToolkit puts the unit at the end of a metric's name instead.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/units.h"

static const struct {
    const char *name;
    int exp; /* of ten, in seconds */
} time_units[] = {{"s", 0},       {"sec", 0},          {"secs", 0},          {"second", 0},
                  {"seconds", 0}, {"ms", -3},          {"msec", -3},         {"us", -6},
                  {"usec", -6},   {"\xc2\xb5s", -6},   {"microseconds", -6}, {"ns", -9},
                  {"nsec", -9},   {"nanoseconds", -9}, {"ps", -12},          {"fs", -15},
                  {"as", -18}};

static const char *const byte_units[] = {"B", "byte", "bytes"};

int pk_unit_time_exp(const char *name, int *exp)
{
    for (size_t i = 0; name && i < sizeof time_units / sizeof *time_units; i++)
        if (strcmp(name, time_units[i].name) == 0 || strcasecmp(name, time_units[i].name) == 0)
            return *exp = time_units[i].exp, 1;
    return 0;
}

const char *pk_unit_time_name(int exp)
{
    static const char *const si[] = {"s", "ms", "us", "ns", "ps", "fs", "as"};
    if (exp > 0 || exp < -18 || exp % 3) return NULL;
    return si[-exp / 3];
}

const char *pk_unit_text(const pk_metric *m, char *buf, size_t size)
{
    if (m->unit && *m->unit) return m->unit;
    const char *open = m->name ? strrchr(m->name, '(') : NULL;
    size_t len = open ? strlen(open) : 0;
    if (!open || len < 3 || open[len - 1] != ')' || len - 2 >= size) return "";
    memcpy(buf, open + 1, len - 2), buf[len - 2] = 0;
    int exp;
    return pk_unit_time_exp(buf, &exp) ? buf : "";
}

int pk_unit_parse(const pk_metric *m, pk_unit *u)
{
    char buf[64];
    const char *s = pk_unit_text(m, buf, sizeof buf);
    char *end = (char *)s;
    *u = (pk_unit){1, "", PK_UNIT_NONE, 0};
    if (*s >= '0' && *s <= '9') {
        u->factor = strtod(s, &end);
        if (!(u->factor > 0) || !isfinite(u->factor)) return 0;
        while (*end == ' ')
            end++;
    }
    if (strlen(end) >= sizeof u->name) return 0;
    strcpy(u->name, end);
    if (pk_unit_time_exp(end, &u->exp))
        u->dim = PK_UNIT_TIME;
    else if (*end)
        u->dim = PK_UNIT_OTHER;
    for (size_t i = 0; *end && i < sizeof byte_units / sizeof *byte_units; i++)
        if (strcasecmp(end, byte_units[i]) == 0) u->dim = PK_UNIT_BYTES;
    return 1;
}
