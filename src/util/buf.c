/*
 * util/buf.c — a growable byte buffer for building a small file image.
 */
#include "buf.h"

#include <stdlib.h>

#include "vec.h"

void pk_buf_free(pk_buf *b)
{
    free(b->data);
    *b = (pk_buf){0};
}

size_t pk_buf_zeros(pk_buf *b, size_t n)
{
    size_t at = b->len;
    if (b->failed) return at;
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

void pk_buf_align(pk_buf *b, size_t align)
{
    pk_buf_zeros(b, (align - (b->len & (align - 1))) & (align - 1));
}
