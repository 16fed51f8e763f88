/*
 * formats/pprof/pb.h — the protobuf wire format, as much of it as
 * pprof's profile.proto uses: varints, length-delimited fields, packed
 * and unpacked repeated varints, and skipping fixed32/fixed64 fields a
 * newer producer may add. Written by hand rather than with protobuf-c:
 * a generated unpacker builds one allocation per message and field
 * (every Sample, every Line) and reports a damaged byte only as "cannot
 * unpack", where profkit's readers keep memory to what a file holds and
 * name the message, the field and the byte offset of every error.
 *
 * Decoding never reads outside [base, end): every length and varint is
 * checked against the bytes that remain before it is used. A reader
 * reports errors through `err` (a static sentence) and `err_at` (the
 * offset from `base` of the byte at fault), which the caller turns into
 * a message naming the file and the field.
 */
#ifndef PK_FORMATS_PPROF_PB_H
#define PK_FORMATS_PPROF_PB_H

#include <stddef.h>
#include <stdint.h>

enum { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2, PB_SGROUP = 3, PB_EGROUP = 4, PB_I32 = 5 };

/* A view of one message's bytes inside the whole stream. */
typedef struct pb_in {
    const unsigned char *p, *end;
    const unsigned char *base; /* the stream's first byte: offsets count from here */
    const char *err;           /* set on failure: what is wrong */
    uint64_t err_at;           /* offset of the byte at fault */
    int past_end;              /* the failure is data that runs past the end */
} pb_in;

/* One field as it comes. */
typedef struct pb_field {
    uint32_t num;
    uint8_t wire;
    uint64_t v;                /* PB_VARINT, PB_I64, PB_I32: the value */
    const unsigned char *data; /* PB_LEN: the payload */
    uint64_t len;
    uint64_t at; /* offset of the field's tag */
} pb_field;

static inline pb_in pb_whole(const unsigned char *d, uint64_t n)
{
    return (pb_in){d, d + n, d, NULL, 0, 0};
}

static inline uint64_t pb_offset(const pb_in *in, const unsigned char *p)
{
    return (uint64_t)(p - in->base);
}

/* A reader of a length-delimited field's payload (a nested message);
 * empty for a field of another wire type. */
static inline pb_in pb_sub(const pb_in *in, const pb_field *f)
{
    if (!f->data) return (pb_in){in->p, in->p, in->base, NULL, 0, 0}; /* not length-delimited */
    return (pb_in){f->data, f->data + f->len, in->base, NULL, 0, 0};
}

/* The next varint: 1 and *out, or 0 with err set (runs past the end,
 * longer than 10 bytes, or more than 64 bits). */
int pb_varint(pb_in *in, uint64_t *out);

/* The next field: 1, 0 at the end of the message, -1 with err set (a bad
 * tag, field number 0, a group, an unknown wire type, a length or value
 * that runs past the end). */
int pb_next(pb_in *in, pb_field *f);

/* A repeated varint field occurrence, packed (PB_LEN) or not (PB_VARINT):
 * pb_rep_begin() then pb_rep_next() until it returns 0 (or -1 with err
 * set in rep->in). pb_rep_begin returns 0 for any other wire type. */
typedef struct pb_rep {
    pb_in in;
    uint64_t single;
    int packed, done;
} pb_rep;

int pb_rep_begin(pb_rep *r, const pb_in *parent, const pb_field *f);
int pb_rep_next(pb_rep *r, uint64_t *out);

/* ---- encoding ---- */

/* A growing output buffer; `failed` is set (and further puts ignored)
 * when memory runs out, so writers check once per message. */
typedef struct pb_out {
    unsigned char *buf;
    size_t len, cap;
    int failed;
} pb_out;

size_t pb_varint_size(uint64_t v);
void pb_put_raw(pb_out *o, const void *d, size_t n);
void pb_put_varint(pb_out *o, uint64_t v);
void pb_put_tag(pb_out *o, uint32_t num, int wire);
/* tag + varint (int64 values as their two's complement) */
void pb_put_uint(pb_out *o, uint32_t num, uint64_t v);
/* tag + length + bytes: strings and nested messages */
void pb_put_bytes(pb_out *o, uint32_t num, const void *d, size_t n);
/* tag + length + the varints packed */
void pb_put_packed(pb_out *o, uint32_t num, const uint64_t *v, size_t n);
void pb_out_free(pb_out *o);

#endif
