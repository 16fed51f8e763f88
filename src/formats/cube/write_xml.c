/*
 * formats/cube/write_xml.c — the text buffer anchor.xml is built in, and
 * the one rule by which every string from the model enters it.
 *
 * Names come from any input: Callgrind files and HPCToolkit databases
 * carry whatever bytes the measured program's symbols had, including
 * invalid UTF-8 and control characters, which XML forbids. So text is
 * written as well-formed XML 1.0 whatever it holds (docs/cube.md,
 * "Names in anchor.xml"):
 *   - & < > " ' become entity references;
 *   - tab, newline and carriage return become character references
 *     (&#9; &#10; &#13;), which XML readers return unchanged, where raw
 *     ones would be normalised to spaces or newlines;
 *   - other C0 control characters, U+FFFE and U+FFFF (not XML characters)
 *     and every byte that is not part of a well-formed UTF-8 sequence
 *     (stray continuation bytes, overlong forms, surrogates, values
 *     beyond U+10FFFF, cut-off sequences) become U+FFFD, one per byte;
 *   - everything else, valid UTF-8, is copied.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cw.h"
#include "util/utf8.h"

static const char REPLACEMENT[] = "\xEF\xBF\xBD"; /* U+FFFD */

static int reserve(cw_xml *b, size_t more)
{
    if (b->failed) return -1;
    if (more > SIZE_MAX - b->n - 1) {
        b->failed = 1;
        return -1;
    }
    if (b->n + more + 1 <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 65536;
    while (cap < b->n + more + 1)
        cap = cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
    char *t = realloc(b->s, cap);
    if (!t) {
        b->failed = 1;
        return -1;
    }
    b->s = t, b->cap = cap;
    return 0;
}

void cw_put(cw_xml *b, const char *s, size_t n)
{
    if (reserve(b, n)) return;
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}

void cw_add(cw_xml *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || reserve(b, (size_t)n)) {
        b->failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)n;
}

/* Length of the well-formed UTF-8 sequence at s (lead byte >= 0x80), or
 * 0 when it is not one (util/utf8.h's table; the NUL that ends the
 * string fails as a continuation byte, so nothing past it is read). */
static size_t utf8_len(const unsigned char *s)
{
    size_t bad;
    return pk_utf8_sequence(s, SIZE_MAX, &bad);
}

/* The entity or character reference for an ASCII byte, or NULL when it
 * is copied as it is. */
static const char *reference(unsigned char c)
{
    switch (c) {
    case '&':
        return "&amp;";
    case '<':
        return "&lt;";
    case '>':
        return "&gt;";
    case '"':
        return "&quot;";
    case '\'':
        return "&apos;";
    case '\t':
        return "&#9;";
    case '\n':
        return "&#10;";
    case '\r':
        return "&#13;";
    }
    return c < 0x20 ? REPLACEMENT : NULL;
}

void cw_esc(cw_xml *b, const char *text)
{
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    while (*s) {
        const unsigned char *run = s; /* bytes copied as they are */
        for (;;) {
            if (*s >= 0x20 && *s < 0x80 && !reference(*s)) {
                s++;
            } else if (*s >= 0x80) {
                size_t n = utf8_len(s);
                /* U+FFFE and U+FFFF are not XML characters */
                if (!n || (n == 3 && s[0] == 0xEF && s[1] == 0xBF && s[2] >= 0xBE)) break;
                s += n;
            } else {
                break;
            }
        }
        cw_put(b, (const char *)run, (size_t)(s - run));
        if (!*s) break;
        const char *r = *s < 0x80 ? reference(*s) : REPLACEMENT;
        cw_put(b, r, strlen(r));
        s += *s >= 0x80 && utf8_len(s) == 3 ? 3 : 1; /* U+FFFE/F: the whole sequence */
    }
}

void cw_element(cw_xml *b, const char *name, const char *text)
{
    cw_add(b, "<%s>", name);
    cw_esc(b, text);
    cw_add(b, "</%s>\n", name);
}
