/*
 * util/text_escape.c — names made safe for a terminal (pk_text_escape,
 * pk_text_put in profkit/output.h; the internal forms in text_escape.h).
 *
 * Names come from files, and a file can hold anything: an escape
 * sequence that recolours, retitles or clears the terminal, a newline
 * that forges a line of output, bytes that are not UTF-8, Unicode
 * direction overrides that make text read differently than it is. Text
 * output shows them visibly instead (docs/robustness.md):
 *   \n \t \r            for those three,
 *   \xHH                for every other C0 control, DEL, and every byte
 *                       that is not part of valid UTF-8 (overlong forms,
 *                       surrogates and code points past U+10FFFF too),
 *   \u0085, \u202e ...  for C1 controls, the bidirectional formatting
 *                       characters (U+061C, U+200E-200F, U+202A-202E,
 *                       U+2066-2069) and the non-characters U+FFFE/FFFF
 *                       (which XML does not allow either).
 * Everything else, backslashes included, is copied as it is, so ordinary
 * names (C++ templates, Windows paths, any script) read unchanged.
 */
#include "text_escape.h"

#include <string.h>

#include "profkit/output.h"

/* Length of the valid UTF-8 sequence at s (1..4, within `avail` bytes)
 * and its code point, or 0 when the bytes there are not one. */
static int utf8_at(const unsigned char *s, size_t avail, uint32_t *cp)
{
    unsigned char c = s[0];
    int n = c < 0x80             ? 1
            : (c & 0xe0) == 0xc0 ? 2
            : (c & 0xf0) == 0xe0 ? 3
            : (c & 0xf8) == 0xf0 ? 4
                                 : 0;
    if (n == 0 || (size_t)n > avail) return 0;
    uint32_t v = n == 1 ? c : c & (0x7fu >> n);
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        v = v << 6 | (s[i] & 0x3f);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < least[n] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
    *cp = v;
    return n;
}

static int shown_escaped(uint32_t cp)
{
    return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || cp == 0x61c || cp == 0x200e ||
           cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
           cp == 0xfffe || cp == 0xffff;
}

/* The visible form of one unit (a byte, or a code point), into out[8]. */
static size_t escape_unit(const unsigned char *s, int n, uint32_t cp, char *out)
{
    if (n == 0) return (size_t)snprintf(out, 8, "\\x%02x", s[0]);
    if (cp == '\n') return memcpy(out, "\\n", 2), 2;
    if (cp == '\t') return memcpy(out, "\\t", 2), 2;
    if (cp == '\r') return memcpy(out, "\\r", 2), 2;
    if (cp < 0x80) return (size_t)snprintf(out, 8, "\\x%02x", (unsigned)cp);
    return (size_t)snprintf(out, 8, "\\u%04x", (unsigned)cp);
}

const char *pk_text_unit(const unsigned char *s, size_t avail, char esc[8], size_t *len, size_t *k)
{
    uint32_t cp = 0;
    int n = utf8_at(s, avail, &cp);
    *k = n ? (size_t)n : 1;
    if (n && !shown_escaped(cp)) return *len = *k, (const char *)s;
    *len = escape_unit(s, n, cp, esc);
    return esc;
}

size_t pk_text_escape(const char *in, char *buf, size_t size)
{
    const unsigned char *s = (const unsigned char *)(in ? in : "");
    size_t avail = strlen((const char *)s), len = 0, copied = 0;
    while (avail) {
        char esc[8];
        size_t n, k;
        const char *piece = pk_text_unit(s, avail, esc, &n, &k);
        if (copied == len && len + n < size) { /* whole pieces only: no cut escape */
            memcpy(buf + len, piece, n);
            copied += n;
        }
        len += n, s += k, avail -= k;
    }
    if (size) buf[copied] = '\0';
    return len;
}

void pk_text_write(FILE *out, const char *in, size_t avail)
{
    const unsigned char *s = (const unsigned char *)in, *run = s;
    while (avail) {
        char esc[8];
        size_t n, k;
        const char *piece = pk_text_unit(s, avail, esc, &n, &k);
        if (piece == esc) { /* what needs no escape is written in runs */
            if (s > run) fwrite(run, 1, (size_t)(s - run), out);
            fwrite(esc, 1, n, out);
            run = s + k;
        }
        s += k, avail -= k;
    }
    if (s > run) fwrite(run, 1, (size_t)(s - run), out);
}

void pk_text_put(FILE *out, const char *in)
{
    if (in) pk_text_write(out, in, strlen(in));
}

const char *pk_text_put_one(FILE *out, const char *in)
{
    char esc[8];
    size_t n, k;
    const char *piece = pk_text_unit((const unsigned char *)in, strlen(in), esc, &n, &k);
    fwrite(piece, 1, n, out);
    return in + k;
}
