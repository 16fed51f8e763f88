/*
 * output/output_file.c — pk_output_*: a safe output file (util/safeout.h)
 * as a stdio stream, for the exports and flame graphs the CLI writes.
 *
 * The stream is a fopencookie() over the temporary file's descriptor, so
 * the first failed write's errno is kept: a full disk is reported as
 * "No space left on device" at commit, not as a bare "write error".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profkit/write.h"
#include "util/error.h"
#include "util/safeout.h"

struct pk_output {
    pk_safeout s;
    FILE *f;
    int error; /* errno of the first failed write, 0 if none */
    uint64_t written;
};

static ssize_t cookie_write(void *cookie, const char *buf, size_t n)
{
    pk_output *o = cookie;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(o->s.fd, buf + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (!o->error) o->error = w < 0 ? errno : EIO;
            return -1;
        }
        done += (size_t)w;
    }
    o->written += n;
    return (ssize_t)n;
}

pk_status pk_output_open(const char *path, uint32_t flags, pk_output **out)
{
    if (!path || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_output_open: NULL argument");
    pk_output *o = calloc(1, sizeof *o);
    if (!o) return pk_fail_nomem("starting an output");
    pk_status st = pk_safeout_file(&o->s, path, flags & PK_WRITE_FORCE);
    if (st) {
        free(o);
        return st;
    }
    cookie_io_functions_t io = {NULL, cookie_write, NULL, NULL};
    o->f = fopencookie(o, "w", io);
    if (!o->f) {
        pk_safeout_abort(&o->s);
        free(o);
        return pk_fail_nomem("starting an output");
    }
    setvbuf(o->f, NULL, _IOFBF, 1 << 16);
    *out = o;
    return PK_OK;
}

FILE *pk_output_stream(pk_output *o)
{
    return o ? o->f : NULL;
}

static pk_status write_failed(const pk_output *o)
{
    return pk_fail(PK_ERR_IO, "%s: write failed after %llu bytes: %s", o->s.target,
                   (unsigned long long)o->written, strerror(o->error ? o->error : EIO));
}

pk_status pk_output_status(pk_output *o)
{
    if (!o) return pk_fail(PK_ERR_INVALID_ARG, "pk_output_status: NULL output");
    if (!o->error) fflush(o->f); /* what is still buffered may fail too */
    return o->error || ferror(o->f) ? write_failed(o) : PK_OK;
}

pk_status pk_output_commit(pk_output *o)
{
    if (!o) return pk_fail(PK_ERR_INVALID_ARG, "pk_output_commit: NULL output");
    int bad = fclose(o->f) != 0 || o->error;
    pk_status st = PK_OK;
    if (bad) {
        st = write_failed(o);
        pk_safeout_abort(&o->s);
    } else {
        st = pk_safeout_commit(&o->s);
    }
    free(o);
    return st;
}

void pk_output_abort(pk_output *o)
{
    if (!o) return;
    fclose(o->f);
    pk_safeout_abort(&o->s);
    free(o);
}
