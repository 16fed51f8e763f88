/*
 * formats/hpcrun/read_v4.c — the 04.00 .hpcrun layout: sections found
 * through the footer at the end of the file (header, loadmap, cct, metric
 * table, id-tuple dictionary, sparse metrics).
 *
 * Like hpcproftt, every section is read from the start the footer gives
 * and must end exactly at the end it gives; unlike hpcproftt, which seeks
 * wherever the footer points, each section must also lie inside the file
 * before the footer, and counts are checked against the bytes left in
 * their section before anything is allocated.
 */
#include <inttypes.h>

#include "formats/hpcrun/hr_read.h"
#include "util/error.h"
#include "util/idset.h"

static const char *const section_names[6] = {
    "header", "loadmap", "cct", "metric table", "id-tuple dictionary", "sparse metrics"};

static pk_status read_footer(hr_file *f)
{
    if (f->size < HR_FOOTER_SIZE)
        return pk_fail(PK_ERR_FORMAT,
                       "%s: footer: the file has %" PRIu64 " bytes, fewer than the %d of a footer",
                       f->name, f->size, HR_FOOTER_SIZE);
    uint64_t at = f->size - HR_FOOTER_SIZE, w[14];
    for (int i = 0; i < 14; i++)
        w[i] = pk_be64(f->data + at + 8 * (uint64_t)i);
    hr_footer *ft = &f->footer;
    hr_span *spans[6] = {&ft->hdr, &ft->loadmap, &ft->cct, &ft->metrics, &ft->iddict, &ft->sparse};
    for (int i = 0; i < 6; i++)
        spans[i]->start = w[2 * i], spans[i]->end = w[2 * i + 1];
    ft->footer_start = w[12];
    ft->magic = w[13];
    if (ft->magic != HR_FOOTER_MAGIC)
        return pk_fail(PK_ERR_FORMAT,
                       "%s: footer at byte %" PRIu64 ": magic at byte %" PRIu64 " is 0x%016" PRIx64
                       ", not HPCRUNsm (file truncated or not finished by hpcrun)",
                       f->name, at, at + 104, ft->magic);
    if (ft->footer_start != at)
        return pk_fail(PK_ERR_FORMAT,
                       "%s: footer at byte %" PRIu64 ": it says it starts at byte %" PRIu64 "%s",
                       f->name, at, ft->footer_start,
                       ft->footer_start < at ? ": data after the footer" : "");
    for (int i = 0; i < 6; i++) {
        if (spans[i]->start > spans[i]->end || spans[i]->end > at)
            return pk_fail(PK_ERR_FORMAT,
                           "%s: footer at byte %" PRIu64 ": %s section [%" PRIu64 ", %" PRIu64
                           ") is not inside the %" PRIu64 " bytes before the footer",
                           f->name, at + 16 * (uint64_t)i, section_names[i], spans[i]->start,
                           spans[i]->end, at);
    }
    return PK_OK;
}

/* A cursor over one section; `ends` names it in errors. */
static hr_cur section(const hr_file *f, hr_span s, const char *ends)
{
    hr_cur c = {f->name, f->data, s.start, s.end, ends};
    return c;
}

static pk_status at_end(const hr_cur *c, const char *what)
{
    if (c->pos == c->end) return PK_OK;
    return pk_fail(PK_ERR_FORMAT,
                   "%s: %s ends at byte %" PRIu64 ", but the footer says it ends at byte %" PRIu64,
                   c->file, what, c->pos, c->end);
}

static pk_status read_cct(hr_file *f, pk_arena *a, hr_epoch *e)
{
    hr_cur c = section(f, f->footer.cct, "the end of the cct section");
    uint64_t n;
    pk_status st = hr_read_u64(&c, "cct node count", &n);
    if (st || (st = hr_need_count(&c, n, HR_CCT_NODE_SIZE_V4, "cct nodes"))) return st;
    hr_cct_node *v = n ? pk_arena_array_unset(a, n, sizeof *v) : NULL;
    if (n && !v) return pk_fail_nomem("hpcrun cct");
    for (uint64_t i = 0; i < n; i++) { /* each node written whole: the array is not zeroed */
        uint64_t offset = c.pos;
        int32_t id = (int32_t)hr_take32(&c);
        int32_t parent = (int32_t)hr_take32(&c);
        uint16_t lm_id = hr_take16(&c);
        uint64_t lm_ip = hr_take64(&c);
        uint8_t unwound = hr_take8(&c) & 1;
        v[i] = (hr_cct_node){.id = id,
                             .parent = parent,
                             .lm_id = lm_id,
                             .lm_ip = lm_ip,
                             .unwound = unwound,
                             .offset = offset};
    }
    e->n_nodes = n;
    e->nodes = v;
    return at_end(&c, "the cct section");
}

static pk_status read_iddict(hr_file *f, pk_arena *a)
{
    hr_cur c = section(f, f->footer.iddict, "the end of the id-tuple dictionary section");
    uint16_t n;
    f->iddict_offset = c.pos;
    pk_status st = hr_read_u16(&c, "id-tuple dictionary count", &n);
    if (st || (st = hr_need_count(&c, n, 6, "id-tuple dictionary"))) return st;
    hr_idkind_name *v = n ? pk_arena_array(a, n, sizeof *v) : NULL;
    if (n && !v) return pk_fail_nomem("hpcrun id-tuple dictionary");
    for (uint16_t i = 0; i < n; i++) {
        if ((st = hr_read_u16(&c, "id-tuple dictionary entry", &v[i].kind))) return st;
        if ((st = hr_read_str(&c, "id-tuple dictionary name", &v[i].name))) return st;
    }
    f->n_idkinds = n;
    f->idkinds = v;
    return at_end(&c, "the id-tuple dictionary section");
}

static pk_status read_idtuple(hr_cur *c, pk_arena *a, hr_idtuple *t)
{
    t->offset = c->pos;
    pk_status st = hr_read_u16(c, "id tuple length", &t->n);
    if (st || (st = hr_need(c, (uint64_t)t->n * 18, "id tuple"))) return st;
    hr_id *v = t->n ? pk_arena_array(a, t->n, sizeof *v) : NULL;
    if (t->n && !v) return pk_fail_nomem("hpcrun id tuple");
    for (uint16_t i = 0; i < t->n; i++) {
        v[i].raw_kind = hr_take16(c);
        v[i].kind = v[i].raw_kind & 0x3fff;
        v[i].interp = (uint8_t)(v[i].raw_kind >> 14);
        v[i].physical = hr_take64(c);
        v[i].logical = hr_take64(c);
    }
    t->ids = v;
    return PK_OK;
}

static pk_status check_values(const hr_file *f, const hr_sparse *s, uint32_t n_metrics)
{
    for (uint64_t i = 0; i < s->n_values; i++) {
        uint16_t m;
        uint64_t w;
        hr_sparse_value(s, i, &m, &w);
        if (m >= n_metrics)
            return pk_fail(PK_ERR_FORMAT,
                           "%s: sparse value %" PRIu64 " at byte %" PRIu64 ": metric id %u, but "
                           "the metric table has %" PRIu32 " metrics",
                           f->name, i, s->values_offset + i * HR_SPARSE_VALUE_SIZE, m, n_metrics);
    }
    return PK_OK;
}

/* Index entries: known, distinct cct nodes whose value ranges start at 0,
 * never go backwards and end with ("end!", number of values). */
static pk_status check_index(const hr_file *f, const hr_sparse *s, hr_ids *ids)
{
    pk_status st = PK_OK;
    uint64_t prev = 0;
    for (uint32_t k = 0; k <= s->n_nz_nodes && !st; k++) {
        uint32_t id;
        uint64_t start, at = s->index_offset + (uint64_t)k * HR_SPARSE_INDEX_SIZE;
        hr_sparse_index(s, k, &id, &start);
        int last = k == s->n_nz_nodes;
        if (last && (id != HR_SPARSE_END_ID || start != s->n_values))
            st = pk_fail(PK_ERR_FORMAT,
                         "%s: sparse cct index end at byte %" PRIu64 ": (%" PRIu32 ", %" PRIu64
                         ") is not (\"end!\", %" PRIu64 ")",
                         f->name, at, id, start, s->n_values);
        else if ((k == 0 && start != 0) || start < prev || start > s->n_values)
            st = pk_fail(PK_ERR_FORMAT,
                         "%s: sparse cct index entry %" PRIu32 " at byte %" PRIu64
                         ": start %" PRIu64 " is not between %" PRIu64 " and %" PRIu64,
                         f->name, k, at, start, k == 0 ? 0 : prev, k == 0 ? 0 : s->n_values);
        else if (!last && !hr_ids_has(ids, id, HR_ID_IN_CCT))
            st = pk_fail(PK_ERR_FORMAT,
                         "%s: sparse cct index entry %" PRIu32 " at byte %" PRIu64
                         ": cct node %" PRIu32 " is not in the cct",
                         f->name, k, at, id);
        else if (!last && hr_ids_has(ids, id, HR_ID_INDEXED))
            st = pk_fail(PK_ERR_FORMAT,
                         "%s: sparse cct index entry %" PRIu32 " at byte %" PRIu64
                         ": cct node %" PRIu32 " listed twice",
                         f->name, k, at, id);
        else if (!last && hr_ids_add(ids, id, HR_ID_INDEXED) != 0)
            st = pk_fail_nomem("hpcrun sparse index");
        prev = start;
    }
    return st;
}

static pk_status read_sparse(hr_file *f, pk_arena *a, hr_ids *cct)
{
    hr_cur c = section(f, f->footer.sparse, "the end of the sparse metrics section");
    hr_sparse *s = &f->sparse;
    pk_status st = read_idtuple(&c, a, &s->idtuple);
    if (st || (st = hr_read_u64(&c, "sparse value count", &s->n_values))) return st;
    if ((st = hr_read_u32(&c, "sparse cct node count", &s->n_nz_nodes))) return st;
    if ((st = hr_need_count(&c, s->n_values, HR_SPARSE_VALUE_SIZE, "sparse values"))) return st;
    s->values_offset = c.pos;
    s->values = c.data + c.pos;
    c.pos += s->n_values * HR_SPARSE_VALUE_SIZE;
    uint64_t n_index = (uint64_t)s->n_nz_nodes + 1;
    if ((st = hr_need_count(&c, n_index, HR_SPARSE_INDEX_SIZE, "sparse cct index"))) return st;
    s->index_offset = c.pos;
    s->index = c.data + c.pos;
    c.pos += n_index * HR_SPARSE_INDEX_SIZE;
    if ((st = at_end(&c, "the sparse metrics section"))) return st;
    f->has_sparse = 1;
    if ((st = check_values(f, s, f->epochs[0].n_metrics))) return st;
    return check_index(f, s, cct);
}

pk_status hr_parse_v4(hr_file *f, pk_arena *a)
{
    pk_status st = read_footer(f);
    if (st) return st;
    hr_cur c = section(f, f->footer.hdr, "the end of the header section");
    if ((st = hr_read_header(&c, a, f)) || (st = at_end(&c, "the header section"))) return st;
    hr_epoch *e = pk_arena_alloc(a, sizeof *e);
    if (!e) return pk_fail_nomem("hpcrun epoch");
    f->n_epochs = 1;
    f->epochs = e;
    e->offset = f->footer.loadmap.start;
    c = section(f, f->footer.loadmap, "the end of the loadmap section");
    if ((st = hr_read_loadmap(&c, a, &e->n_loadmap, &e->loadmap)) ||
        (st = at_end(&c, "the loadmap section")))
        return st;
    if ((st = read_cct(f, a, e))) return st;
    c = section(f, f->footer.metrics, "the end of the metric table section");
    if ((st = hr_read_metric_table(&c, a, HR_FLAGS_V4, &e->n_metrics, &e->metrics)) ||
        (st = at_end(&c, "the metric table section")))
        return st;
    if ((st = read_iddict(f, a))) return st;
    hr_ids ids;
    if ((st = hr_check_cct(f->name, e->nodes, e->n_nodes, &ids))) return st;
    st = read_sparse(f, a, &ids);
    hr_ids_free(&ids);
    return st;
}
