/*
 * formats/callgrind/escape.c — the escaping of names and strings in the
 * Callgrind files profkit writes, and its inverse for the reader (the
 * rule: cgesc.h). Decoding is a left-to-right scan that turns every
 * \xHH into its byte; the writer escapes a backslash exactly where that
 * scan would otherwise take it for the start of an escape, so decoding
 * what was written always gives back the original bytes.
 */
#include "cgesc.h"

static int hex_digit(char c)
{
    return (c >= '0' && c <= '9')   ? c - '0'
           : (c >= 'a' && c <= 'f') ? c - 'a' + 10
           : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                    : -1;
}

/* An escape \xHH starts at s[i]? */
static int escape_at(const char *s, size_t n, size_t i)
{
    return i + 3 < n && s[i] == '\\' && s[i + 1] == 'x' && hex_digit(s[i + 2]) >= 0 &&
           hex_digit(s[i + 3]) >= 0;
}

static int needs_escape(const char *s, size_t n, size_t i)
{
    unsigned char c = (unsigned char)s[i];
    if (c < 0x20 || c == 0x7f) return 1;
    if ((c == ' ' || c == '\t') && (i == 0 || i + 1 == n)) return 1;
    return c == '\\' && escape_at(s, n, i);
}

void cg_escape_write(FILE *f, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t run = i;
        while (run < n && !needs_escape(s, n, run))
            run++;
        if (run > i) fwrite(s + i, 1, run - i, f);
        if (run < n) fprintf(f, "\\x%02x", (unsigned char)s[run]);
        i = run + 1;
    }
}

size_t cg_unescape(const char *s, size_t n, char *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (escape_at(s, n, i) && (s[i + 2] != '0' || s[i + 3] != '0')) { /* names hold no NUL */
            out[k++] = (char)(hex_digit(s[i + 2]) << 4 | hex_digit(s[i + 3]));
            i += 3;
        } else {
            out[k++] = s[i];
        }
    }
    return k;
}

int cg_has_escape(const char *s, size_t n)
{
    for (size_t i = 0; i + 3 < n; i++)
        if (escape_at(s, n, i)) return 1;
    return 0;
}
