/*
 * util/gzip_out.c — a fopencookie() stream deflating (zlib, gzip
 * framing) into another stdio stream. Errors are sticky: after the
 * first failure nothing more is written and close reports it.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gzip_out.h"
#include "util/error.h"

#define CHUNK (256u << 10)

struct pk_gzout {
    z_stream z;
    FILE *under;
    unsigned char out[CHUNK];
    unsigned long long in;
    int failed; /* 1 write to `under` failed, 2 zlib failed */
};

/* Run deflate over what it holds; flush = Z_NO_FLUSH or Z_FINISH. */
static void pump(pk_gzout *g, int flush)
{
    int rc;
    do {
        g->z.next_out = g->out, g->z.avail_out = CHUNK;
        rc = deflate(&g->z, flush);
        if (rc == Z_STREAM_ERROR) return (void)(g->failed = 2);
        size_t have = CHUNK - g->z.avail_out;
        if (have && fwrite(g->out, 1, have, g->under) != have) return (void)(g->failed = 1);
    } while (g->z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
}

static ssize_t gz_write(void *cookie, const char *buf, size_t n)
{
    pk_gzout *g = cookie;
    for (size_t done = 0; done < n && !g->failed;) {
        size_t part = n - done < (1u << 30) ? n - done : (1u << 30);
        g->z.next_in = (Bytef *)(uintptr_t)(buf + done);
        g->z.avail_in = (uInt)part;
        pump(g, Z_NO_FLUSH);
        done += part;
    }
    g->in += n;
    return g->failed ? -1 : (ssize_t)n;
}

FILE *pk_gzout_open(FILE *under, int level, pk_gzout **state)
{
    pk_gzout *g = calloc(1, sizeof *g);
    if (!g) return pk_fail_nomem("starting gzip output"), NULL;
    g->under = under;
    /* 15 + 16: a gzip header and trailer around the deflate stream */
    if (deflateInit2(&g->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(g);
        return pk_fail_nomem("starting gzip output"), NULL;
    }
    cookie_io_functions_t io = {NULL, gz_write, NULL, NULL};
    FILE *f = fopencookie(g, "w", io);
    if (!f) {
        deflateEnd(&g->z);
        free(g);
        return pk_fail_nomem("starting gzip output"), NULL;
    }
    setvbuf(f, NULL, _IOFBF, CHUNK);
    *state = g;
    return f;
}

pk_status pk_gzout_close(FILE *f, pk_gzout *g)
{
    int closed = fclose(f); /* hands the last buffered bytes to gz_write */
    if (!g->failed) {
        g->z.next_in = NULL, g->z.avail_in = 0;
        pump(g, Z_FINISH);
    }
    int failed = g->failed;
    deflateEnd(&g->z);
    free(g);
    if (failed == 2) return pk_fail(PK_ERR_NOMEM, "gzip compression failed");
    if (failed || closed) return pk_fail(PK_ERR_IO, "writing the compressed output failed");
    return PK_OK;
}

unsigned long long pk_gzout_in(const pk_gzout *g)
{
    return g->in;
}
