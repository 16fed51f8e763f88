/*
 * view/urlenc.c — the canonical form of an API URL's values, exactly as
 * the page's encodeURIComponent writes them, so the report builder's keys
 * are the strings the page looks up (docs/view.md, "Canonical URLs").
 */
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
