/*
 * util/text_escape.h — the terminal-safe form of names, for the library's
 * own text renderers (dump records, hpcproftt-style text). The rule is in
 * text_escape.c; pk_text_escape() and pk_text_put() are public
 * (profkit/output.h).
 */
#ifndef PK_UTIL_TEXT_ESCAPE_H
#define PK_UTIL_TEXT_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The character (or invalid byte) at s, with `avail` bytes left: *k input
 * bytes, shown as the returned piece of *len bytes (s itself, or its
 * escape written into esc). An escape is plain ASCII. */
const char *pk_text_unit(const unsigned char *s, size_t avail, char esc[8], size_t *len, size_t *k);
/* n bytes at s (not NUL-terminated) as text output shows them. */
void pk_text_write(FILE *out, const char *s, size_t n);
/* The character at s (a non-empty string) as text output shows it;
 * returns where the next one starts. */
const char *pk_text_put_one(FILE *out, const char *s);

#endif
