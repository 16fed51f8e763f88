/*
 * util/json_string.c — JSON string escaping with UTF-8 repair (see
 * json_string.h). Names in profiles come from files of any origin: a
 * Latin-1 file name in a Callgrind file, a terminal escape in a function
 * name, a cut multi-byte character. JSON must be UTF-8 (RFC 8259 §8.1)
 * and strict parsers refuse anything else, so every byte that is not
 * part of well-formed UTF-8 is replaced, following the Unicode standard's
 * table of well-formed sequences (§3.9, table 3-7: no overlongs, no
 * surrogates, nothing above U+10FFFF).
 */
#include "util/json_string.h"

#include "util/utf8.h"

#include <stdint.h>

static const char replacement[] = PK_UTF8_REPLACEMENT;

/* The escape for a code point that must not appear raw, or NULL. */
static const char *short_escape(uint32_t cp)
{
    switch (cp) {
    case '"':
        return "\\\"";
    case '\\':
        return "\\\\";
    case '\n':
        return "\\n";
    case '\t':
        return "\\t";
    case '\r':
        return "\\r";
    case '\b':
        return "\\b";
    case '\f':
        return "\\f";
    default:
        return NULL;
    }
}

static int needs_escape(uint32_t cp)
{
    return cp < 0x20 || cp == '"' || cp == '\\' || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 ||
           cp == 0x2029;
}

static void emit_escape(uint32_t cp, pk_json_emit_fn emit, void *user)
{
    static const char hex[] = "0123456789abcdef";
    const char *e = short_escape(cp);
    if (e) {
        emit(user, e, 2); /* every short escape is two characters */
        return;
    }
    char u[6] = {'\\', 'u', hex[cp >> 12 & 15], hex[cp >> 8 & 15], hex[cp >> 4 & 15], hex[cp & 15]};
    emit(user, u, sizeof u);
}

/* The code point of a well-formed sequence of n bytes. */
static uint32_t decode(const unsigned char *p, size_t n)
{
    uint32_t cp = n == 1 ? p[0] : p[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++)
        cp = cp << 6 | (p[i] & 0x3f);
    return cp;
}

/* An ill-formed byte: U+FFFD for its whole maximal subpart (repair), or
 * the byte itself as \udcXX (lossless). Returns the bytes consumed. */
static size_t emit_ill_formed(const unsigned char *p, size_t bad, int lossless,
                              pk_json_emit_fn emit, void *user)
{
    if (!lossless) {
        emit(user, replacement, sizeof replacement - 1);
        return bad;
    }
    static const char hex[] = "0123456789abcdef";
    char u[6] = {'\\', 'u', 'd', 'c', hex[*p >> 4], hex[*p & 15]};
    emit(user, u, sizeof u);
    return 1;
}

static void escape(const char *s, size_t len, int lossless, pk_json_emit_fn emit, void *user)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + len, *run = p;
    while (p < end) {
        size_t n = 1, bad = 0;
        if (*p >= 0x80) n = pk_utf8_sequence(p, (size_t)(end - p), &bad);
        uint32_t cp = n ? decode(p, n) : 0;
        if (n && !needs_escape(cp)) {
            p += n;
            continue;
        }
        if (p > run) emit(user, (const char *)run, (size_t)(p - run));
        if (n)
            emit_escape(cp, emit, user), p += n;
        else
            p += emit_ill_formed(p, bad, lossless, emit, user);
        run = p;
    }
    if (p > run) emit(user, (const char *)run, (size_t)(p - run));
}

void pk_json_escape(const char *s, size_t len, pk_json_emit_fn emit, void *user)
{
    escape(s, len, 0, emit, user);
}

void pk_json_escape_bytes(const char *s, size_t len, pk_json_emit_fn emit, void *user)
{
    escape(s, len, 1, emit, user);
}

size_t pk_json_unescape_bytes(char *s, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        const unsigned char *p = (const unsigned char *)s + i;
        if (p[0] == 0xed && i + 2 < len && (p[1] == 0xb2 || p[1] == 0xb3) &&
            (p[2] & 0xc0) == 0x80) {
            s[o++] = (char)(0x80 | (p[1] & 1) << 6 | (p[2] & 0x3f)); /* U+DC80..U+DCFF */
            i += 2;
        } else {
            s[o++] = (char)p[0];
        }
    }
    return o;
}
