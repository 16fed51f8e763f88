/*
 * util/utf8.h — the well-formed UTF-8 rule every writer shares: the
 * Unicode standard's table of well-formed byte sequences (§3.9, table
 * 3-7: no overlongs, no surrogates, nothing above U+10FFFF) and the
 * repair by "substitution of maximal subparts" (one U+FFFD for each
 * maximal ill-formed subpart; what Python's decode(errors="replace")
 * does), so that a name repaired by profkit's JSON and by a format
 * writer reads the same.
 */
#ifndef PK_UTIL_UTF8_H
#define PK_UTIL_UTF8_H

#include <stddef.h>

/* U+FFFD in UTF-8. */
#define PK_UTF8_REPLACEMENT "\xef\xbf\xbd"

/* For a byte p[0] >= 0x80 with `avail` bytes from p on: the length (2..4)
 * of the well-formed sequence at p, or 0 with *bad = the length (1..3)
 * of its maximal ill-formed subpart, the bytes one U+FFFD stands for. */
size_t pk_utf8_sequence(const unsigned char *p, size_t avail, size_t *bad);

/* 1 when s[0..len) is well-formed UTF-8 (NUL bytes included). */
int pk_utf8_valid(const char *s, size_t len);

#endif /* PK_UTIL_UTF8_H */
