/*
 * cli/diff_paths.c — `profkit diff`'s calling paths as text ("main >
 * solve > dot") and its percentages of change. A path for a terminal
 * keeps its own function always (shortened by the name rule when even
 * that is too long) and as many callers before it as fit; a path for
 * JSON is whole, however deep.
 */
#include <math.h>
#include <string.h>

#include "cli.h"

/* Terminal columns of UTF-8 text (escaped already: no controls). */
static size_t columns_of(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* Put `s` before buf[*pos] (the path is built from its end); 0 when it
 * does not fit. */
static int prepend(char *buf, size_t *pos, const char *s)
{
    size_t n = strlen(s);
    if (n > *pos) return 0;
    *pos -= n;
    memcpy(buf + *pos, s, n);
    return 1;
}

static const char *frame_text(const pk_profile *p, const pk_frame *f, int keep_mangled,
                              unsigned room)
{
    char raw[2048];
    pk_frame_name(p, f, raw, sizeof raw);
    return cli_name(raw, keep_mangled, room);
}

const char *cli_diff_path_text(const pk_profile *p, const pk_frame *frames, pk_index i,
                               int keep_mangled, unsigned room)
{
    static char buf[8192];
    size_t pos = sizeof buf - 1, used;
    buf[pos] = 0;
    if (i == 0) return "<program root>";     /* the root's own row */
    size_t limit = room ? room : sizeof buf; /* 0: the whole path */
    pk_index up = frames[i].parent;
    int deep = up != PK_NONE && up != 0; /* callers before it: "... > " may lead */
    unsigned leaf_room = room > 6u + 8u && deep ? room - 6 : room;
    const char *leaf = frame_text(p, &frames[i], keep_mangled, leaf_room);
    prepend(buf, &pos, leaf); /* fits: cli_name's text is shorter than buf */
    used = columns_of(leaf);
    for (; up != PK_NONE && up != 0; up = frames[up].parent) {
        const char *name = frame_text(p, &frames[up], keep_mangled, 0);
        size_t more = frames[up].parent != 0 && frames[up].parent != PK_NONE ? 6 : 0;
        size_t need = columns_of(name) + 3, at = pos;
        if (used + need + more > limit || !prepend(buf, &pos, " > ") || !prepend(buf, &pos, name)) {
            pos = at;
            break;
        }
        used += need;
    }
    if (up != PK_NONE && up != 0) prepend(buf, &pos, "... > ");
    return buf + pos;
}

/* "caller > callee" in `room` columns (0: no limit): whole when it fits,
 * else the callee keeps what it needs of two thirds and the caller the
 * rest. */
const char *cli_diff_arc_text(const char *caller, const char *callee, int keep_mangled,
                              unsigned room)
{
    static char buf[8192];
    const char *from = cli_name(caller, keep_mangled, 0);
    const char *to = cli_name(callee, keep_mangled, 0);
    size_t nf = columns_of(from), nt = columns_of(to);
    if (room == 0) { /* whole names */
        snprintf(buf, sizeof buf, "%s > %s", from, to);
        return buf;
    }
    unsigned avail = room > 3 + 16 ? room - 3 : 16;
    if (nf + nt > avail) {
        unsigned to_room = nt < avail * 2 / 3 ? (unsigned)nt : avail * 2 / 3;
        if (nf < avail - to_room) to_room = avail - (unsigned)nf;
        from = cli_name(caller, keep_mangled, avail - to_room);
        to = cli_name(callee, keep_mangled, to_room);
    }
    snprintf(buf, sizeof buf, "%s > %s", from, to);
    return buf;
}

/* "+0.4%", "-100.0%", "+2591.0%"; from 10,000% on scaled like counts,
 * "+10.80M%" (never capped: the column says the true change). */
void cli_percent_text(char *buf, size_t size, double pct)
{
    if (isnan(pct)) {
        snprintf(buf, size, "-");
    } else if (fabs(pct) < 9999.95) {
        snprintf(buf, size, "%+.1f%%", pct);
    } else {
        char num[48];
        pk_number_format f = {1, "", 0, 0, 1, 0};
        pk_format_number(num, sizeof num, pct, &f);
        snprintf(buf, size, "%s%s%%", pct > 0 ? "+" : "", num);
    }
}

/* A change in percent (the library's: pk_diff_entry.change_percent);
 * "new" where it has none (the old value is 0, or undefined for a
 * derived value) and the new value b is not 0. */
void cli_change_text(char *buf, size_t size, double pct, double b)
{
    if (isnan(b))
        snprintf(buf, size, "-");
    else if (!isnan(pct))
        cli_percent_text(buf, size, pct);
    else
        snprintf(buf, size, "%s", b != 0 ? "new" : "0");
}
