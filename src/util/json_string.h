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

/* As pk_json_escape(), but lossless, for the model JSON that profkit reads
 * back (profkit.model/1): each byte that is not part of well-formed UTF-8
 * is written as the lone low surrogate \udcXX (XX the byte, 80..ff), the
 * convention of Python's "surrogateescape"; valid UTF-8 never encodes a
 * surrogate, so the mapping is unambiguous. */
void pk_json_escape_bytes(const char *s, size_t len, pk_json_emit_fn emit, void *user);
/* The reverse, in place, on a string as a JSON parser decoded it (yajl
 * turns \udcXX into the three bytes ED B2..B3 80..BF): each such
 * sequence becomes its byte again. Returns the new length. */
size_t pk_json_unescape_bytes(char *s, size_t len);

#endif /* PK_UTIL_JSON_STRING_H */
