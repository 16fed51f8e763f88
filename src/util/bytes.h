/*
 * util/bytes.h — loads of little- and big-endian integers and doubles from
 * possibly unaligned bytes.
 *
 * Callers must have checked that the bytes exist; these helpers only fix
 * alignment and byte order (memcpy compiles to a plain load on x86).
 */
#ifndef PK_UTIL_BYTES_H
#define PK_UTIL_BYTES_H

#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PK_HOST_BIG_ENDIAN 1
#else
#define PK_HOST_BIG_ENDIAN 0
#endif

static inline uint16_t pk_le16(const void *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return PK_HOST_BIG_ENDIAN ? __builtin_bswap16(v) : v;
}

static inline uint32_t pk_le32(const void *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return PK_HOST_BIG_ENDIAN ? __builtin_bswap32(v) : v;
}

static inline uint64_t pk_le64(const void *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return PK_HOST_BIG_ENDIAN ? __builtin_bswap64(v) : v;
}

static inline double pk_le_f64(const void *p)
{
    uint64_t bits = pk_le64(p);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static inline uint16_t pk_be16(const void *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return PK_HOST_BIG_ENDIAN ? v : __builtin_bswap16(v);
}

static inline uint32_t pk_be32(const void *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return PK_HOST_BIG_ENDIAN ? v : __builtin_bswap32(v);
}

static inline uint64_t pk_be64(const void *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return PK_HOST_BIG_ENDIAN ? v : __builtin_bswap64(v);
}

static inline double pk_be_f64(const void *p)
{
    uint64_t bits = pk_be64(p);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static inline void pk_put_le16(void *p, uint16_t v)
{
    if (PK_HOST_BIG_ENDIAN) v = __builtin_bswap16(v);
    memcpy(p, &v, sizeof v);
}

static inline void pk_put_le32(void *p, uint32_t v)
{
    if (PK_HOST_BIG_ENDIAN) v = __builtin_bswap32(v);
    memcpy(p, &v, sizeof v);
}

static inline void pk_put_le64(void *p, uint64_t v)
{
    if (PK_HOST_BIG_ENDIAN) v = __builtin_bswap64(v);
    memcpy(p, &v, sizeof v);
}

static inline uint64_t pk_f64_bits(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return bits;
}

static inline double pk_f64_from_bits(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

#endif
