/*
 * formats/pprof/pb.c — see pb.h.
 */
#include "pb.h"

#include <stdlib.h>
#include <string.h>

#include "util/bytes.h"

static int fail(pb_in *in, const unsigned char *at, const char *why)
{
    in->err = why;
    in->err_at = pb_offset(in, at);
    return 0;
}

int pb_varint(pb_in *in, uint64_t *out)
{
    const unsigned char *start = in->p;
    uint64_t v = 0;
    for (unsigned i = 0; i < 10; i++) {
        if (in->p >= in->end) {
            in->past_end = 1;
            return fail(in, start, "a varint runs past the end of its message");
        }
        unsigned char b = *in->p++;
        /* the tenth byte holds bit 63 alone */
        if (i == 9 && b > 1) return fail(in, start, "a varint holds more than 64 bits");
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *out = v;
            return 1;
        }
    }
    return fail(in, start, "a varint is longer than 10 bytes");
}

static int take(pb_in *in, pb_field *f, uint64_t n, const char *why)
{
    if ((uint64_t)(in->end - in->p) < n) {
        in->past_end = 1;
        in->err = why;
        in->err_at = f->at;
        return -1;
    }
    f->data = in->p, f->len = n;
    in->p += n;
    return 1;
}

int pb_next(pb_in *in, pb_field *f)
{
    if (in->p >= in->end) return 0;
    uint64_t tag;
    f->at = pb_offset(in, in->p);
    if (!pb_varint(in, &tag)) return -1;
    f->num = (uint32_t)(tag >> 3), f->wire = (uint8_t)(tag & 7);
    f->v = 0, f->data = NULL, f->len = 0;
    if (tag >> 3 == 0 || tag >> 3 > 0x1fffffff) {
        in->err = "a field number is 0 or above 2^29-1 (not protobuf data)";
        in->err_at = f->at;
        return -1;
    }
    switch (f->wire) {
    case PB_VARINT:
        return pb_varint(in, &f->v) ? 1 : -1;
    case PB_I64:
        if (take(in, f, 8, "a fixed64 field runs past the end of its message") < 0) return -1;
        f->v = pk_le64(f->data);
        return 1;
    case PB_I32:
        if (take(in, f, 4, "a fixed32 field runs past the end of its message") < 0) return -1;
        f->v = pk_le32(f->data);
        return 1;
    case PB_LEN: {
        uint64_t n;
        if (!pb_varint(in, &n)) return -1;
        return take(in, f, n,
                    "a length-delimited field is longer than what is left of its message");
    }
    default:
        in->err = f->wire == PB_SGROUP || f->wire == PB_EGROUP
                      ? "a group (a wire type profile.proto never uses)"
                      : "an unknown wire type (6 or 7: not protobuf data)";
        in->err_at = f->at;
        return -1;
    }
}

int pb_rep_begin(pb_rep *r, const pb_in *parent, const pb_field *f)
{
    memset(r, 0, sizeof *r);
    if (f->wire == PB_VARINT) {
        r->single = f->v;
        return 1;
    }
    if (f->wire != PB_LEN) return 0;
    r->packed = 1;
    r->in = pb_sub(parent, f);
    return 1;
}

int pb_rep_next(pb_rep *r, uint64_t *out)
{
    if (!r->packed) {
        if (r->done) return 0;
        r->done = 1;
        *out = r->single;
        return 1;
    }
    if (r->in.p >= r->in.end) return 0;
    return pb_varint(&r->in, out) ? 1 : -1;
}

/* ---- encoding ---- */

size_t pb_varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80)
        v >>= 7, n++;
    return n;
}

static int reserve(pb_out *o, size_t more)
{
    if (o->failed) return 0;
    if (o->cap - o->len >= more) return 1;
    size_t cap = o->cap ? o->cap : 256;
    while (cap - o->len < more) {
        if (cap > SIZE_MAX / 2) return o->failed = 1, 0;
        cap *= 2;
    }
    unsigned char *b = realloc(o->buf, cap);
    if (!b) return o->failed = 1, 0;
    o->buf = b, o->cap = cap;
    return 1;
}

void pb_put_raw(pb_out *o, const void *d, size_t n)
{
    if (n && reserve(o, n)) memcpy(o->buf + o->len, d, n), o->len += n;
}

void pb_put_varint(pb_out *o, uint64_t v)
{
    if (!reserve(o, 10)) return;
    while (v >= 0x80) {
        o->buf[o->len++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    o->buf[o->len++] = (unsigned char)v;
}

void pb_put_tag(pb_out *o, uint32_t num, int wire)
{
    pb_put_varint(o, (uint64_t)num << 3 | (uint64_t)wire);
}

void pb_put_uint(pb_out *o, uint32_t num, uint64_t v)
{
    pb_put_tag(o, num, PB_VARINT);
    pb_put_varint(o, v);
}

void pb_put_bytes(pb_out *o, uint32_t num, const void *d, size_t n)
{
    pb_put_tag(o, num, PB_LEN);
    pb_put_varint(o, n);
    pb_put_raw(o, d, n);
}

void pb_put_packed(pb_out *o, uint32_t num, const uint64_t *v, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += pb_varint_size(v[i]);
    pb_put_tag(o, num, PB_LEN);
    pb_put_varint(o, len);
    if (!reserve(o, len)) return;
    for (size_t i = 0; i < n; i++)
        pb_put_varint(o, v[i]);
}

void pb_out_free(pb_out *o)
{
    free(o->buf);
    *o = (pb_out){0};
}
