/*
 * util/buf.h — a growable byte buffer for building a small file image.
 *
 * Writers lay out structures whose pointers are only known later: they
 * append a structure with zero placeholders, remember its offset, and
 * patch the fields once the target is placed (pk_buf_set_*). Allocation
 * failure is sticky: appends become no-ops and `failed` tells.
 */
#ifndef PK_UTIL_BUF_H
#define PK_UTIL_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bytes.h"

typedef struct pk_buf {
    unsigned char *data;
    size_t len, cap;
    int failed;
} pk_buf;

void pk_buf_free(pk_buf *b);
/* Append n zero bytes; returns their offset (meaningless if failed). */
size_t pk_buf_zeros(pk_buf *b, size_t n);
/* Append bytes; returns their offset. */
size_t pk_buf_bytes(pk_buf *b, const void *data, size_t n);
/* Append a NUL-terminated copy of s; returns its offset. */
size_t pk_buf_str(pk_buf *b, const char *s);
/* Append s as well-formed UTF-8, NUL-terminated: each maximal ill-formed
 * subpart replaced by U+FFFD (util/utf8.h), for formats whose strings
 * are UTF-8; returns its offset. */
size_t pk_buf_utf8_str(pk_buf *b, const char *s);
/* Pad with zeros to a multiple of `align` (a power of two). */
void pk_buf_align(pk_buf *b, size_t align);

/* Patch fields of already appended bytes (no-ops when failed, so a
 * writer can check `failed` once at the end). */
static inline void pk_buf_set_u8(pk_buf *b, size_t at, uint8_t v)
{
    if (!b->failed && at < b->len) b->data[at] = v;
}
static inline void pk_buf_set_u16(pk_buf *b, size_t at, uint16_t v)
{
    if (!b->failed && at + 2 <= b->len) pk_put_le16(b->data + at, v);
}
static inline void pk_buf_set_u32(pk_buf *b, size_t at, uint32_t v)
{
    if (!b->failed && at + 4 <= b->len) pk_put_le32(b->data + at, v);
}
static inline void pk_buf_set_u64(pk_buf *b, size_t at, uint64_t v)
{
    if (!b->failed && at + 8 <= b->len) pk_put_le64(b->data + at, v);
}

#endif
