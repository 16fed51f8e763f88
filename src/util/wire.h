/*
 * util/wire.h — tables sent between the members of a parallel build
 * (util/team.h): little-endian integers, doubles and length-prefixed
 * strings appended to a pk_buf, and a cursor that reads them back with
 * every read checked against the bytes received (a short or garbled
 * message makes the cursor `bad`, never an out-of-bounds read).
 */
#ifndef PK_UTIL_WIRE_H
#define PK_UTIL_WIRE_H

#include <stdint.h>
#include <string.h>

#include "buf.h"
#include "bytes.h"
#include "intern.h"

#define PK_WIRE_NULL UINT32_MAX /* string length of a NULL string */

static inline void pk_wire_u8(pk_buf *b, uint8_t v)
{
    pk_buf_bytes(b, &v, 1);
}
static inline void pk_wire_u16(pk_buf *b, uint16_t v)
{
    unsigned char x[2];
    pk_put_le16(x, v);
    pk_buf_bytes(b, x, 2);
}
static inline void pk_wire_u32(pk_buf *b, uint32_t v)
{
    unsigned char x[4];
    pk_put_le32(x, v);
    pk_buf_bytes(b, x, 4);
}
static inline void pk_wire_u64(pk_buf *b, uint64_t v)
{
    unsigned char x[8];
    pk_put_le64(x, v);
    pk_buf_bytes(b, x, 8);
}
static inline void pk_wire_f64(pk_buf *b, double v)
{
    pk_wire_u64(b, pk_f64_bits(v));
}
/* A string (NULL allowed), its length first. */
static inline void pk_wire_str(pk_buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    pk_wire_u32(b, s ? (uint32_t)n : PK_WIRE_NULL);
    if (s) pk_buf_bytes(b, s, n);
}

typedef struct pk_wire {
    const unsigned char *p;
    uint64_t n, at;
    int bad; /* a read went past the end: everything read since is 0 */
} pk_wire;

static inline pk_wire pk_wire_reader(const void *p, uint64_t n)
{
    pk_wire w = {p, n, 0, 0};
    return w;
}

/* The next n bytes, or NULL (and bad) when fewer remain. */
static inline const unsigned char *pk_wire_take(pk_wire *w, uint64_t n)
{
    if (w->bad || n > w->n - w->at) {
        w->bad = 1;
        return NULL;
    }
    const unsigned char *q = w->p + w->at;
    w->at += n;
    return q;
}
static inline uint8_t pk_wire_get8(pk_wire *w)
{
    const unsigned char *q = pk_wire_take(w, 1);
    return q ? q[0] : 0;
}
static inline uint16_t pk_wire_get16(pk_wire *w)
{
    const unsigned char *q = pk_wire_take(w, 2);
    return q ? pk_le16(q) : 0;
}
static inline uint32_t pk_wire_get32(pk_wire *w)
{
    const unsigned char *q = pk_wire_take(w, 4);
    return q ? pk_le32(q) : 0;
}
static inline uint64_t pk_wire_get64(pk_wire *w)
{
    const unsigned char *q = pk_wire_take(w, 8);
    return q ? pk_le64(q) : 0;
}
static inline double pk_wire_getf64(pk_wire *w)
{
    return pk_f64_from_bits(pk_wire_get64(w));
}
/* A string interned into `in` (NULL for a NULL string); *nomem is set
 * when interning fails. */
static inline const char *pk_wire_getstr(pk_wire *w, pk_interner *in, int *nomem)
{
    uint32_t n = pk_wire_get32(w);
    if (w->bad || n == PK_WIRE_NULL) return NULL;
    const unsigned char *q = pk_wire_take(w, n);
    if (!q) return NULL;
    const char *s = pk_intern(in, (const char *)q, n);
    if (!s) *nomem = 1;
    return s;
}
/* A count of items of at least `min_size` bytes each that can still be
 * in the message (bad when it cannot: nothing is allocated for it). */
static inline uint64_t pk_wire_count(pk_wire *w, uint64_t min_size)
{
    uint64_t n = pk_wire_get64(w);
    if (!w->bad && min_size && n > (w->n - w->at) / min_size) w->bad = 1;
    return w->bad ? 0 : n;
}

#endif
