/*
 * util/utf8.c — well-formed UTF-8 (see utf8.h). Names in profiles come
 * from files of any origin: a Latin-1 file name in a Callgrind file, a
 * cut multi-byte character in a symbol. Formats that say their strings
 * are UTF-8 (JSON, HPCToolkit's meta.db) get them repaired by this rule.
 */
#include "util/utf8.h"

size_t pk_utf8_sequence(const unsigned char *p, size_t avail, size_t *bad)
{
    unsigned c = p[0], lo = 0x80, hi = 0xbf;
    size_t more;
    if (c >= 0xc2 && c <= 0xdf)
        more = 1;
    else if (c >= 0xe0 && c <= 0xef)
        more = 2, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    else if (c >= 0xf0 && c <= 0xf4)
        more = 3, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    else
        return *bad = 1, 0;
    for (size_t i = 1; i <= more; i++) {
        if (i >= avail || p[i] < lo || p[i] > hi) return *bad = i, 0;
        lo = 0x80, hi = 0xbf;
    }
    return more + 1;
}

int pk_utf8_valid(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    while (p < end) {
        size_t n = 1, bad;
        if (*p >= 0x80 && !(n = pk_utf8_sequence(p, (size_t)(end - p), &bad))) return 0;
        p += n;
    }
    return 1;
}
