/*
 * formats/hpcrun/hr_read.h — the checked byte cursor the .hpcrun readers
 * share (read_common.c, read_v4.c, read_dense.c).
 *
 * A cursor reads big-endian fields from [pos, end) of a file image and
 * fails, naming the file, the structure and the byte offset, the moment a
 * field would cross `end`: the end of the file, or of the section the
 * footer says the structure lives in.
 */
#ifndef PK_FORMATS_HPCRUN_HR_READ_H
#define PK_FORMATS_HPCRUN_HR_READ_H

#include "formats/hpcrun/hpcrun.h"
#include "util/idset.h"

typedef struct hr_cur {
    const char *file;
    const uint8_t *data;
    uint64_t pos, end;
    const char *limit; /* what `end` is: "the end of the file", "the end of the cct section" */
} hr_cur;

/* Fail unless n bytes remain; `what` names the structure being read. */
pk_status hr_need(hr_cur *c, uint64_t n, const char *what);
/* Fail unless `count` items of at least `min_size` bytes each can remain. */
pk_status hr_need_count(hr_cur *c, uint64_t count, uint64_t min_size, const char *what);

/* Unchecked loads at the cursor (after hr_need); they advance it. */
static inline uint8_t hr_take8(hr_cur *c)
{
    return c->data[c->pos++];
}
static inline uint16_t hr_take16(hr_cur *c)
{
    uint16_t v = pk_be16(c->data + c->pos);
    c->pos += 2;
    return v;
}
static inline uint32_t hr_take32(hr_cur *c)
{
    uint32_t v = pk_be32(c->data + c->pos);
    c->pos += 4;
    return v;
}
static inline uint64_t hr_take64(hr_cur *c)
{
    uint64_t v = pk_be64(c->data + c->pos);
    c->pos += 8;
    return v;
}

/* Checked reads of the format's composite primitives. */
pk_status hr_read_u16(hr_cur *c, const char *what, uint16_t *v);
pk_status hr_read_u32(hr_cur *c, const char *what, uint32_t *v);
pk_status hr_read_u64(hr_cur *c, const char *what, uint64_t *v);
pk_status hr_read_str(hr_cur *c, const char *what, hr_str *s);
pk_status hr_read_nvpairs(hr_cur *c, pk_arena *a, const char *what, hr_nvpairs *out);

/* The file header: magic, 5-byte version, endian byte, nvpairs. `magic`
 * is HR_PROFILE_MAGIC; fills version/major/minor/endian/hdr of f. */
pk_status hr_read_header(hr_cur *c, pk_arena *a, hr_file *f);

/* Metric-flag decoding rule: develop's (04.00: byte 3 is move2proc) or
 * release-2022's (02/03: byte 3 must be zero or the old layout is used). */
enum { HR_FLAGS_V4 = 0, HR_FLAGS_V2 = 1 };
pk_status hr_read_metric_table(hr_cur *c, pk_arena *a, int rule, uint32_t *n,
                               const hr_metric **out);
pk_status hr_read_loadmap(hr_cur *c, pk_arena *a, uint32_t *n, const hr_loadmap_entry **out);

/* A file's CCT node ids, and which the sparse index has named: a byte per
 * id when the ids are dense (hpcrun numbers its nodes: a few per node),
 * else id sets, so a hostile id costs no memory. */
typedef struct hr_ids {
    uint8_t *flags; /* dense: per id, HR_ID_IN_CCT | HR_ID_INDEXED */
    uint64_t n_flags;
    pk_idset cct, indexed; /* sparse */
} hr_ids;
enum { HR_ID_IN_CCT = 1, HR_ID_INDEXED = 2 };
int hr_ids_has(const hr_ids *ids, uint32_t id, int flag);
/* Note id as `flag`; -1 when out of memory. */
int hr_ids_add(hr_ids *ids, uint32_t id, int flag);
void hr_ids_free(hr_ids *ids);

/* Check that the CCT is a forest written parent-before-child: ids unique
 * (by magnitude: 02/03 leaves are negated), each parent 0 or an earlier
 * node. `ids` (may be NULL) receives them for later look-ups; the caller
 * frees it (hr_ids_free). */
pk_status hr_check_cct(const char *file, const hr_cct_node *nodes, uint64_t n, hr_ids *ids);

/* Parsers of the two profile layouts, after the magic check. */
pk_status hr_parse_v4(hr_file *f, pk_arena *a);
pk_status hr_parse_dense(hr_file *f, pk_arena *a);

#endif
