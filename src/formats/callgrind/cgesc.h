/*
 * formats/callgrind/cgesc.h — how profkit writes a name or string that a
 * Callgrind line cannot hold as it is, and how its reader undoes that
 * (escape.c; the rule is documented in docs/callgrind.md).
 *
 * Callgrind is line-based and readers trim blanks around names, so a
 * control character (a newline would forge a record) and a blank at
 * either end of the text are written as \xHH. A backslash is written as
 * \x5c only where it would otherwise read as such an escape (followed by
 * "x" and two hex digits), so ordinary names, Windows paths included,
 * are written unchanged. Everything else, invalid UTF-8 included, is
 * copied byte for byte.
 */
#ifndef PK_FORMATS_CALLGRIND_CGESC_H
#define PK_FORMATS_CALLGRIND_CGESC_H

#include <stddef.h>
#include <stdio.h>

/* Write s[0..n) escaped to f. */
void cg_escape_write(FILE *f, const char *s, size_t n);

/* Undo cg_escape_write() on s[0..n) into out (room for n bytes: the text
 * never grows). Returns the decoded length. */
size_t cg_unescape(const char *s, size_t n, char *out);

/* 1 if s[0..n) holds something cg_unescape() would change. */
int cg_has_escape(const char *s, size_t n);

#endif
