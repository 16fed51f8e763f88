/*
 * view/urlenc.c — the canonical form of an API URL's values, exactly as
 * the page's encodeURIComponent writes them, so the report builder's keys
 * are the strings the page looks up (docs/view.md, "Canonical URLs").
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdlib.h>
#include <string.h>

#include "view/view.h"

static int unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           (c && strchr("-_.!~*'()", c));
}

size_t pkv_uri_encode(char *buf, size_t size, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        char tmp[3] = {(char)*c, 0, 0};
        size_t k = 1;
        if (!unreserved(*c)) /* UTF-8 bytes as they are: %XX each */
            tmp[0] = '%', tmp[1] = hex[*c >> 4], tmp[2] = hex[*c & 15], k = 3;
        for (size_t i = 0; i < k; i++, n++)
            if (n + 1 < size) buf[n] = tmp[i];
    }
    if (size) buf[n < size ? n : size - 1] = 0;
    return n;
}

/* The UTF-8 bytes of code point cp (< 0x10000: what \uXXXX escapes hold). */
static size_t put_utf8(char *out, unsigned cp)
{
    if (cp < 0x80) return out[0] = (char)cp, 1;
    if (cp < 0x800) return out[0] = (char)(0xc0 | cp >> 6), out[1] = (char)(0x80 | (cp & 63)), 2;
    out[0] = (char)(0xe0 | cp >> 12), out[1] = (char)(0x80 | (cp >> 6 & 63));
    out[2] = (char)(0x80 | (cp & 63));
    return 3;
}

static unsigned hex4(const char *s)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++)
        v = v << 4 | (unsigned)(s[i] <= '9' ? s[i] - '0' : (s[i] | 32) - 'a' + 10);
    return v;
}

char *pkv_page_string(const char *raw)
{
    char *json = NULL, *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&json, &len);
    if (!f) return NULL;
    pk_json j;
    pk_json_init(&j, f, 0);
    pk_status st = pk_json_string(&j, raw);
    if (!st) st = pk_json_finish(&j);
    fclose(f);
    /* the writer's string: "..." with \" \\ \n \t \r \b \f and \u00XX,
     * \u2028, \u2029 escapes, invalid UTF-8 already replaced */
    if (!st && json && len >= 2 && (out = malloc(len))) {
        size_t k = 0;
        for (size_t i = 1; i + 1 < len && json[i] != '"'; i++) {
            if (json[i] != '\\') {
                out[k++] = json[i];
                continue;
            }
            char e = json[++i];
            if (e == 'u' && i + 4 < len)
                k += put_utf8(out + k, hex4(json + i + 1)), i += 4;
            else
                out[k++] = e == 'n'   ? '\n'
                           : e == 't' ? '\t'
                           : e == 'r' ? '\r'
                           : e == 'b' ? '\b'
                           : e == 'f' ? '\f'
                                      : e;
        }
        out[k] = 0;
    }
    free(json);
    return out;
}
