/*
 * util/gzip.c — see gzip.h.
 */
#include "gzip.h"

#include <string.h>
#include <zlib.h>

int pk_is_gzip(const unsigned char *d, uint64_t n)
{
    return n >= 2 && d[0] == 0x1f && d[1] == 0x8b;
}

size_t pk_gunzip_head(const unsigned char *d, uint64_t n, unsigned char *out, size_t size)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 32) != Z_OK) return 0;
    z.next_in = (unsigned char *)d;
    z.avail_in = n > (1u << 20) ? (1u << 20) : (uInt)n;
    z.next_out = out, z.avail_out = (uInt)size;
    int r = inflate(&z, Z_SYNC_FLUSH);
    size_t got = size - z.avail_out;
    inflateEnd(&z);
    return r == Z_OK || r == Z_STREAM_END || r == Z_BUF_ERROR ? got : 0;
}
