/*
 * util/gzip.c — see gzip.h.
 */
#include "gzip.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "error.h"

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

/* Room for at least one more byte in *buf: double it, charging the
 * growth. */
static pk_status grow(unsigned char **buf, size_t *cap, pk_budget *b, const char *file,
                      const char *what, uint64_t at)
{
    size_t more = *cap ? *cap : (64u << 10);
    if (more > SIZE_MAX - *cap) return pk_fail_nomem("inflating");
    pk_status st = pk_budget_charge(
        b, more, "%s: %s, compressed byte %llu: the inflated data grows past %zu bytes", file, what,
        (unsigned long long)at, *cap);
    if (st) return st;
    unsigned char *nb = realloc(*buf, *cap + more);
    if (!nb) {
        pk_budget_release(b, more);
        return pk_fail_nomem("inflating");
    }
    *buf = nb, *cap += more;
    return PK_OK;
}

pk_status pk_gunzip_all(const unsigned char *d, uint64_t n, pk_budget *b, const char *file,
                        const char *what, unsigned char **out, uint64_t *out_n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK) return pk_fail_nomem("inflating");
    unsigned char *buf = NULL;
    size_t cap = 0, len = 0;
    uint64_t used = 0;
    pk_status st = PK_OK;
    while (!st) {
        if (len == cap && (st = grow(&buf, &cap, b, file, what, used)) != PK_OK) break;
        uint64_t left = n - used;
        z.next_in = (unsigned char *)d + used;
        z.avail_in = left > (1u << 30) ? (1u << 30) : (uInt)left;
        z.next_out = buf + len;
        z.avail_out = cap - len > (1u << 30) ? (1u << 30) : (uInt)(cap - len);
        uInt in0 = z.avail_in, out0 = z.avail_out;
        int rc = inflate(&z, Z_NO_FLUSH);
        used += in0 - z.avail_in, len += out0 - z.avail_out;
        if (rc == Z_STREAM_END) {
            if (used == n || !pk_is_gzip(d + used, n - used)) break; /* trailing garbage ignored */
            inflateReset(&z);
        } else if (rc != Z_OK && !(rc == Z_BUF_ERROR && len == cap)) {
            st = pk_fail(PK_ERR_FORMAT, "%s: %s: gzip data is damaged or cut off near byte %llu",
                         file, what, (unsigned long long)used);
        }
    }
    inflateEnd(&z);
    if (st) {
        free(buf);
        pk_budget_release(b, cap);
        return st;
    }
    pk_budget_release(b, cap - len); /* what is held stays charged */
    *out = buf, *out_n = len;
    return PK_OK;
}
