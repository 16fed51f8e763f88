/*
 * util/outfile.c — buffered sequential writing of one output file.
 */
#define _POSIX_C_SOURCE 200809L
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bytes.h"
#include "error.h"

#define OUT_BUFFER (1u << 20)

/* The buffer, once the file is open (nothing to free on failure). */
static pk_status take_buffer(pk_out *o)
{
    o->buf = malloc(OUT_BUFFER);
    if (!o->buf) return o->status = pk_fail_nomem("allocating an output buffer");
    o->cap = OUT_BUFFER;
    return PK_OK;
}

pk_status pk_out_open(pk_out *o, const char *path)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    o->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (o->fd < 0)
        return o->status = pk_fail(PK_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    if (take_buffer(o)) {
        close(o->fd);
        o->fd = -1;
        unlink(path);
    }
    return o->status;
}

pk_status pk_out_at(pk_out *o, const char *path, uint64_t offset)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    o->fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (o->fd < 0)
        return o->status = pk_fail(PK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (take_buffer(o)) {
        close(o->fd);
        o->fd = -1;
        return o->status;
    }
    pk_out_seek(o, offset);
    return o->status;
}

/* write(2) all of it, retrying on short writes and EINTR. */
static void write_all(pk_out *o, const unsigned char *p, size_t n)
{
    while (n && !o->status) {
        ssize_t w = write(o->fd, p, n > (1u << 30) ? (1u << 30) : n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            o->status =
                pk_fail(PK_ERR_IO, "%s: write failed at byte %llu: %s", o->path,
                        (unsigned long long)o->offset, w < 0 ? strerror(errno) : "no progress");
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

static void flush(pk_out *o)
{
    if (o->used) write_all(o, o->buf, o->used);
    o->used = 0;
}

void pk_out_seek(pk_out *o, uint64_t offset)
{
    if (o->status) return;
    flush(o);
    if (!o->status && lseek(o->fd, (off_t)offset, SEEK_SET) < 0)
        o->status = pk_fail(PK_ERR_IO, "%s: cannot seek to byte %llu: %s", o->path,
                            (unsigned long long)offset, strerror(errno));
    o->offset = offset;
}

void pk_out_bytes(pk_out *o, const void *data, size_t n)
{
    if (o->status || !n) return;
    if (n >= o->cap / 2) { /* big block: no copy */
        flush(o);
        write_all(o, data, n);
    } else {
        if (o->used + n > o->cap) flush(o);
        memcpy(o->buf + o->used, data, n);
        o->used += n;
    }
    o->offset += n;
}

void pk_out_zeros(pk_out *o, uint64_t n)
{
    static const unsigned char zero[256];
    while (n && !o->status) {
        size_t k = n > sizeof zero ? sizeof zero : (size_t)n;
        pk_out_bytes(o, zero, k);
        n -= k;
    }
}

void pk_out_align(pk_out *o, unsigned align)
{
    pk_out_zeros(o, (align - (o->offset & (align - 1))) & (align - 1));
}

void pk_out_u8(pk_out *o, uint8_t v)
{
    pk_out_bytes(o, &v, 1);
}

void pk_out_u16(pk_out *o, uint16_t v)
{
    unsigned char b[2];
    pk_put_le16(b, v);
    pk_out_bytes(o, b, 2);
}

void pk_out_u32(pk_out *o, uint32_t v)
{
    unsigned char b[4];
    pk_put_le32(b, v);
    pk_out_bytes(o, b, 4);
}

void pk_out_u64(pk_out *o, uint64_t v)
{
    unsigned char b[8];
    pk_put_le64(b, v);
    pk_out_bytes(o, b, 8);
}

void pk_out_expect(pk_out *o, uint64_t offset, const char *what)
{
    if (!o->status && o->offset != offset)
        o->status =
            pk_fail(PK_ERR_INVALID_ARG,
                    "%s: internal layout error: %s at byte %llu, "
                    "planned at %llu",
                    o->path, what, (unsigned long long)o->offset, (unsigned long long)offset);
}

pk_status pk_out_close(pk_out *o)
{
    if (o->fd >= 0) {
        flush(o);
        if (close(o->fd) != 0 && !o->status)
            o->status = pk_fail(PK_ERR_IO, "%s: close failed: %s", o->path, strerror(errno));
        o->fd = -1;
    }
    free(o->buf);
    o->buf = NULL;
    return o->status;
}

pk_status pk_write_file(const char *path, const void *data, size_t n)
{
    pk_out o;
    if (pk_out_open(&o, path) == PK_OK) pk_out_bytes(&o, data, n);
    return pk_out_close(&o);
}

pk_status pk_out_create(pk_out *o, const char *target, uint32_t flags)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->safe = malloc(sizeof *o->safe);
    if (!o->safe) return o->status = pk_fail_nomem("starting an output");
    if ((o->status = pk_safeout_file(o->safe, target, flags)) != PK_OK || take_buffer(o) != PK_OK) {
        pk_safeout_abort(o->safe);
        free(o->safe);
        o->safe = NULL;
        return o->status;
    }
    o->fd = o->safe->fd;
    o->path = o->safe->target;
    return PK_OK;
}

pk_status pk_out_commit(pk_out *o, pk_status st)
{
    if (o->fd >= 0) flush(o);
    if (!st) st = o->status;
    free(o->buf);
    o->buf = NULL;
    o->fd = -1;
    if (!o->safe) return st ? st : pk_fail(PK_ERR_INVALID_ARG, "pk_out_commit: no output");
    if (st) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", pk_error_last());
        pk_safeout_abort(o->safe);
        pk_fail(st, "%s", msg);
    } else {
        st = pk_safeout_commit(o->safe); /* closes the file */
    }
    free(o->safe);
    o->safe = NULL;
    return st;
}
