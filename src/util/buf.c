/*
 * util/buf.c — a growable byte buffer for building a small file image.
 */
#include "buf.h"

#include <stdlib.h>

#include "utf8.h"
#include "vec.h"

void pk_buf_free(pk_buf *b)
{
    free(b->data);
    *b = (pk_buf){0};
}

size_t pk_buf_zeros(pk_buf *b, size_t n)
{
    size_t at = b->len;
    if (b->failed || !n) return at; /* nothing: data may still be NULL */
    if (n > SIZE_MAX - b->len || pk_vec_reserve((void **)&b->data, &b->cap, b->len + n, 1)) {
        b->failed = 1;
        return at;
    }
    memset(b->data + at, 0, n);
    b->len += n;
    return at;
}

size_t pk_buf_bytes(pk_buf *b, const void *data, size_t n)
{
    size_t at = pk_buf_zeros(b, n);
    if (!b->failed && n) memcpy(b->data + at, data, n);
    return at;
}

size_t pk_buf_str(pk_buf *b, const char *s)
{
    return pk_buf_bytes(b, s, strlen(s) + 1);
}

size_t pk_buf_utf8_str(pk_buf *b, const char *s)
{
    size_t len = strlen(s), at = b->len;
    if (pk_utf8_valid(s, len)) return pk_buf_bytes(b, s, len + 1);
    const unsigned char *p = (const unsigned char *)s, *end = p + len, *run = p;
    while (p < end) {
        size_t n = 1, bad = 0;
        if (*p >= 0x80) n = pk_utf8_sequence(p, (size_t)(end - p), &bad);
        if (n) {
            p += n;
            continue;
        }
        pk_buf_bytes(b, run, (size_t)(p - run));
        pk_buf_bytes(b, PK_UTF8_REPLACEMENT, sizeof PK_UTF8_REPLACEMENT - 1);
        run = p += bad;
    }
    pk_buf_bytes(b, run, (size_t)(end - run) + 1); /* and the NUL */
    return at;
}

void pk_buf_align(pk_buf *b, size_t align)
{
    pk_buf_zeros(b, (align - (b->len & (align - 1))) & (align - 1));
}
