/*
 * util/json_string.h — the one rule by which profkit's JSON outputs write
 * strings (docs/json.md): any bytes in, valid UTF-8 JSON string content
 * out, with control characters visible as escapes.
 */
#ifndef PK_UTIL_JSON_STRING_H
#define PK_UTIL_JSON_STRING_H

#include <stddef.h>

/* Receives the escaped text in runs. */
typedef void (*pk_json_emit_fn)(void *user, const char *bytes, size_t n);

/* The JSON string content (without the quotes) of s[0..len): valid
 * UTF-8 copied; each maximal ill-formed subsequence replaced by U+FFFD
 * (Unicode's "substitution of maximal subparts", what Python's
 * decode(errors="replace") does); '"' and '\\' escaped; U+0000-U+001F,
 * U+007F-U+009F, U+2028 and U+2029 written as \uXXXX (\n, \t, \r, \b, \f
 * in their short forms). Linear in len, no allocation. */
void pk_json_escape(const char *s, size_t len, pk_json_emit_fn emit, void *user);

#endif /* PK_UTIL_JSON_STRING_H */
