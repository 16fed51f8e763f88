/*
 * formats/hpcrun/read_common.c — what every .hpcrun version shares: the
 * checked cursor, strings and name/value pairs, the file header, the
 * loadmap, the metric table, the CCT shape check, and hr_parse(), which
 * picks the layout by version.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "formats/hpcrun/hr_read.h"
#include "util/error.h"
#include "util/idset.h"

pk_status hr_need(hr_cur *c, uint64_t n, const char *what)
{
    if (c->pos <= c->end && n <= c->end - c->pos) return PK_OK;
    return pk_fail(PK_ERR_FORMAT,
                   "%s: %s at byte %" PRIu64 " needs %" PRIu64 " bytes, but %s is at byte %" PRIu64,
                   c->file, what, c->pos, n, c->limit, c->end);
}

pk_status hr_need_count(hr_cur *c, uint64_t count, uint64_t min_size, const char *what)
{
    uint64_t left = c->pos <= c->end ? c->end - c->pos : 0;
    if (count <= left / min_size) return PK_OK;
    return pk_fail(PK_ERR_FORMAT,
                   "%s: %s at byte %" PRIu64 ": count %" PRIu64 " of at least %" PRIu64
                   " bytes each does not fit in the %" PRIu64 " bytes before %s",
                   c->file, what, c->pos, count, min_size, left, c->limit);
}

pk_status hr_read_u16(hr_cur *c, const char *what, uint16_t *v)
{
    pk_status st = hr_need(c, 2, what);
    if (!st) *v = hr_take16(c);
    return st;
}

pk_status hr_read_u32(hr_cur *c, const char *what, uint32_t *v)
{
    pk_status st = hr_need(c, 4, what);
    if (!st) *v = hr_take32(c);
    return st;
}

pk_status hr_read_u64(hr_cur *c, const char *what, uint64_t *v)
{
    pk_status st = hr_need(c, 8, what);
    if (!st) *v = hr_take64(c);
    return st;
}

pk_status hr_read_str(hr_cur *c, const char *what, hr_str *s)
{
    uint32_t len;
    pk_status st = hr_read_u32(c, what, &len);
    if (st) return st;
    c->pos -= 4; /* report the string's own offset */
    if ((st = hr_need(c, 4 + (uint64_t)len, what))) return st;
    s->p = (const char *)c->data + c->pos + 4;
    s->len = len;
    c->pos += 4 + (uint64_t)len;
    return PK_OK;
}

pk_status hr_read_nvpairs(hr_cur *c, pk_arena *a, const char *what, hr_nvpairs *out)
{
    uint32_t n;
    pk_status st = hr_read_u32(c, what, &n);
    if (st || (st = hr_need_count(c, n, 8, what))) return st;
    hr_nvpair *v = n ? pk_arena_array(a, n, sizeof *v) : NULL;
    if (n && !v) return pk_fail_nomem("hpcrun name/value pairs");
    for (uint32_t i = 0; i < n; i++) {
        if ((st = hr_read_str(c, what, &v[i].name))) return st;
        if ((st = hr_read_str(c, what, &v[i].value))) return st;
    }
    out->n = n;
    out->v = v;
    return PK_OK;
}

int hr_nvpairs_find(const hr_nvpairs *nv, const char *name, hr_str *value)
{
    for (uint32_t i = 0; i < nv->n; i++) {
        if (hr_str_eq(nv->v[i].name, name)) {
            *value = nv->v[i].value;
            return 1;
        }
    }
    return 0;
}

pk_status hr_read_header(hr_cur *c, pk_arena *a, hr_file *f)
{
    pk_status st = hr_need(c, HR_MAGIC_LEN + 6, "file header");
    if (st) return st;
    if (memcmp(c->data + c->pos, HR_PROFILE_MAGIC, HR_MAGIC_LEN) != 0)
        return pk_fail(PK_ERR_FORMAT, "%s: file header at byte %" PRIu64 ": no %s magic", c->file,
                       c->pos, HR_PROFILE_MAGIC);
    const uint8_t *v = c->data + c->pos + HR_MAGIC_LEN;
    memcpy(f->version, v, 5);
    f->version[5] = '\0';
    f->endian = (char)v[5];
    /* "NN.NN" as hpcrun writes it; hpcproftt uses atof(), so anything it
     * would misread is rejected here rather than guessed at. */
    if (!(v[0] >= '0' && v[0] <= '9' && v[1] >= '0' && v[1] <= '9' && v[2] == '.' && v[3] >= '0' &&
          v[3] <= '9' && v[4] >= '0' && v[4] <= '9'))
        return pk_fail(PK_ERR_FORMAT, "%s: file header at byte %" PRIu64 ": bad version '%.5s'",
                       c->file, c->pos + HR_MAGIC_LEN, (const char *)v);
    f->major = (v[0] - '0') * 10 + (v[1] - '0');
    f->minor = (v[3] - '0') * 10 + (v[4] - '0');
    c->pos += HR_MAGIC_LEN + 6;
    return hr_read_nvpairs(c, a, "file header name/value pairs", &f->hdr);
}

pk_status hr_read_loadmap(hr_cur *c, pk_arena *a, uint32_t *n_out, const hr_loadmap_entry **out)
{
    uint32_t n;
    pk_status st = hr_read_u32(c, "loadmap count", &n);
    if (st || (st = hr_need_count(c, n, 14, "loadmap"))) return st;
    hr_loadmap_entry *v = n ? pk_arena_array(a, n, sizeof *v) : NULL;
    if (n && !v) return pk_fail_nomem("hpcrun loadmap");
    for (uint32_t i = 0; i < n; i++) {
        v[i].offset = c->pos;
        if ((st = hr_read_u16(c, "loadmap entry", &v[i].id))) return st;
        if ((st = hr_read_str(c, "loadmap entry path", &v[i].path))) return st;
        if ((st = hr_read_u64(c, "loadmap entry flags", &v[i].flags))) return st;
    }
    *n_out = n;
    *out = v;
    return PK_OK;
}

/* The 16 flag bytes are hpcrun's in-memory struct copied as is (byte 0
 * type, 1 value type, 2 value format, 3 move2proc, 4-5 partner in the
 * writer's byte order — little-endian on the x86-64 machines that wrote
 * every file we have —, 6 show, 7 showPercent, 8-15 zero). hpcrun-fmt.c
 * falls back to an older packed bit-field layout, read as two big-endian
 * words, when the type is not raw/final or bytes 8-15 are not zero
 * (release-2022 hpcrun, whose byte 3 was unused, also when byte 3 is not
 * zero). We decode the same way so both print the same flags. */
static void decode_flags(hr_metric *m, int rule)
{
    const uint8_t *b = m->raw_flags;
    int tail_zero = 1;
    for (int i = 8; i < 16; i++)
        tail_zero &= b[i] == 0;
    int ok = (b[0] == HR_MTY_RAW || b[0] == HR_MTY_FINAL) && tail_zero &&
             (rule == HR_FLAGS_V4 || b[3] == 0);
    if (ok) {
        m->type = b[0], m->val_ty = b[1], m->val_fmt = b[2], m->move2proc = b[3];
        m->partner = (uint16_t)(b[4] | b[5] << 8);
        m->show = b[6], m->show_percent = b[7];
        return;
    }
    uint64_t w = pk_be64(b); /* gcc x86-64 bit-fields, least significant first */
    m->old_layout = 1;
    m->type = w & 0xf, m->val_ty = (w >> 4) & 0xf, m->val_fmt = (w >> 8) & 0xf;
    m->move2proc = 0;
    m->partner = (uint16_t)(w >> 12);
    m->show = (w >> 28) & 1, m->show_percent = (w >> 29) & 1;
}

static pk_status read_metric(hr_cur *c, int rule, hr_metric *m)
{
    pk_status st;
    m->offset = c->pos;
    if ((st = hr_read_str(c, "metric name", &m->name))) return st;
    if ((st = hr_read_str(c, "metric description", &m->desc))) return st;
    if ((st = hr_need(c, 16 + 8, "metric flags and period"))) return st;
    memcpy(m->raw_flags, c->data + c->pos, 16);
    c->pos += 16;
    decode_flags(m, rule);
    m->period = hr_take64(c);
    if ((st = hr_read_str(c, "metric formula", &m->formula))) return st;
    if ((st = hr_read_str(c, "metric format", &m->format))) return st;
    if ((st = hr_need(c, 2 + 2 + 8 + 8, "metric auxiliary fields"))) return st;
    m->is_frequency = hr_take16(c);
    m->is_multiplexed = hr_take16(c);
    m->threshold_mean = hr_word_real(hr_take64(c));
    m->num_samples = hr_take64(c);
    return PK_OK;
}

pk_status hr_read_metric_table(hr_cur *c, pk_arena *a, int rule, uint32_t *n_out,
                               const hr_metric **out)
{
    uint32_t n;
    pk_status st = hr_read_u32(c, "metric table count", &n);
    if (st || (st = hr_need_count(c, n, 60, "metric table"))) return st;
    hr_metric *v = n ? pk_arena_array(a, n, sizeof *v) : NULL;
    if (n && !v) return pk_fail_nomem("hpcrun metric table");
    for (uint32_t i = 0; i < n; i++)
        if ((st = read_metric(c, rule, &v[i]))) return st;
    *n_out = n;
    *out = v;
    return PK_OK;
}

static uint32_t id_magnitude(int32_t id)
{
    return id < 0 ? (uint32_t)0 - (uint32_t)id : (uint32_t)id;
}

int hr_ids_has(const hr_ids *ids, uint32_t id, int flag)
{
    if (ids->flags) return id < ids->n_flags && (ids->flags[id] & flag);
    return pk_idset_has(flag == HR_ID_IN_CCT ? &ids->cct : &ids->indexed, id);
}

int hr_ids_add(hr_ids *ids, uint32_t id, int flag)
{
    if (ids->flags) {
        if (id >= ids->n_flags) return -1; /* the caller sized it: cannot happen */
        ids->flags[id] |= (uint8_t)flag;
        return 0;
    }
    return pk_idset_add(flag == HR_ID_IN_CCT ? &ids->cct : &ids->indexed, id);
}

void hr_ids_free(hr_ids *ids)
{
    free(ids->flags);
    pk_idset_free(&ids->cct), pk_idset_free(&ids->indexed);
    memset(ids, 0, sizeof *ids);
}

/* Dense ids (at most a few times as many as nodes): a byte each. */
static void ids_start(hr_ids *ids, const hr_cct_node *nodes, uint64_t n)
{
    uint64_t max = 0;
    memset(ids, 0, sizeof *ids);
    for (uint64_t i = 0; i < n; i++)
        if (id_magnitude(nodes[i].id) > max) max = id_magnitude(nodes[i].id);
    if (max < 16 * n + 4096 && (ids->flags = calloc(max + 1, 1))) ids->n_flags = max + 1;
}

/* With dense ids: the nodes from the first on that pass hr_check_cct()'s
 * tests, marked, byte by byte (the general tests cost twice as much);
 * returns the first that does not, for them to report. */
static uint64_t dense_good_prefix(hr_ids *ids, const hr_cct_node *nodes, uint64_t n)
{
    uint8_t *f = ids->flags;
    uint64_t i = 0;
    for (; i < n; i++) {
        uint32_t id = id_magnitude(nodes[i].id), parent = id_magnitude(nodes[i].parent);
        if (id == 0 || (f[id] & HR_ID_IN_CCT)) break; /* id < n_flags: ids_start() */
        if (parent != 0 && (parent >= ids->n_flags || !(f[parent] & HR_ID_IN_CCT))) break;
        f[id] |= HR_ID_IN_CCT;
    }
    return i;
}

pk_status hr_check_cct(const char *file, const hr_cct_node *nodes, uint64_t n, hr_ids *out)
{
    hr_ids ids;
    ids_start(&ids, nodes, n);
    pk_status st = PK_OK;
    for (uint64_t i = ids.flags ? dense_good_prefix(&ids, nodes, n) : 0; i < n && !st; i++) {
        const hr_cct_node *x = &nodes[i];
        uint32_t id = id_magnitude(x->id), parent = id_magnitude(x->parent);
        if (id == 0)
            st = pk_fail(PK_ERR_FORMAT, "%s: cct node at byte %" PRIu64 ": id 0 is reserved", file,
                         x->offset);
        else if (hr_ids_has(&ids, id, HR_ID_IN_CCT))
            st = pk_fail(PK_ERR_FORMAT,
                         "%s: cct node at byte %" PRIu64 ": id %" PRId32 " appears twice", file,
                         x->offset, x->id);
        else if (parent != 0 && !hr_ids_has(&ids, parent, HR_ID_IN_CCT))
            st = pk_fail(PK_ERR_FORMAT,
                         "%s: cct node %" PRId32 " at byte %" PRIu64 ": parent %" PRId32
                         " is not an earlier node",
                         file, x->id, x->offset, x->parent);
        else if (hr_ids_add(&ids, id, HR_ID_IN_CCT) != 0)
            st = pk_fail_nomem("hpcrun cct ids");
    }
    if (st || !out)
        hr_ids_free(&ids);
    else
        *out = ids;
    return st;
}

pk_status hr_parse(const char *name, const void *data, uint64_t size, pk_arena *arena, hr_file *out)
{
    memset(out, 0, sizeof *out);
    out->name = name;
    out->data = data;
    out->size = size;
    hr_cur c = {name, data, 0, size, "the end of the file"};
    pk_status st = hr_need(&c, HR_MAGIC_LEN + 6, "file header");
    if (st) return st;
    if (memcmp(data, HR_PROFILE_MAGIC, HR_MAGIC_LEN) != 0)
        return pk_fail(PK_ERR_FORMAT, "%s: file header at byte 0: no %s magic", name,
                       HR_PROFILE_MAGIC);
    const uint8_t *v = out->data + HR_MAGIC_LEN;
    if (memcmp(v, "04.00", 5) == 0) return hr_parse_v4(out, arena);
    if (memcmp(v, "02.00", 5) == 0 || memcmp(v, "03.00", 5) == 0) return hr_parse_dense(out, arena);
    return pk_fail(PK_ERR_UNSUPPORTED,
                   "%s: file header at byte %d: profile version '%.5s'; profkit reads 02.00, "
                   "03.00 and 04.00",
                   name, HR_MAGIC_LEN, (const char *)v);
}
