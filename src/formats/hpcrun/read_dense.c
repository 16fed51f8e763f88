/*
 * formats/hpcrun/read_dense.c — the 02.00 / 03.00 .hpcrun layout (hpcrun
 * releases 2016.12 to 2022.05): after the header, epochs until the end of
 * the file, each with its own epoch header, metric table, loadmap and a
 * CCT whose nodes carry one 8-byte value per metric (dense).
 *
 * 03.00 is byte-identical to 02.00 (the bump only marked trace times in
 * nanoseconds). Nodes of epochs with the logical-unwind flag carry a LUSH
 * association word and a 16-byte logical IP. The metric flags are decoded
 * with release-2022's rule (hr_read_metric_table, HR_FLAGS_V2).
 */
#include <inttypes.h>

#include "formats/hpcrun/hr_read.h"
#include "util/error.h"

#define EPOCH_TAG     "EPOCH___"
#define EPOCH_TAG_LEN 8

static pk_status read_nodes(hr_cur *c, pk_arena *a, hr_epoch *e)
{
    uint64_t n;
    int lush = e->flags & 1;
    pk_status st = hr_read_u64(c, "cct node count", &n);
    if (st) return st;
    uint64_t size = 18 + (lush ? 20 : 0) + 8 * (uint64_t)e->n_metrics;
    if ((st = hr_need_count(c, n, size, "cct nodes"))) return st;
    hr_cct_node *v = n ? pk_arena_array(a, n, sizeof *v) : NULL;
    if (n && !v) return pk_fail_nomem("hpcrun cct");
    for (uint64_t i = 0; i < n; i++) {
        hr_cct_node *x = &v[i];
        x->offset = c->pos;
        x->id = (int32_t)hr_take32(c);
        x->parent = (int32_t)hr_take32(c);
        x->has_lush = (uint8_t)lush;
        if (lush) x->lush_assoc = hr_take32(c);
        x->lm_id = hr_take16(c);
        x->lm_ip = hr_take64(c);
        if (lush) x->lip[0] = hr_take64(c), x->lip[1] = hr_take64(c);
        x->unwound = 1; /* no flag byte before 04.00 */
        x->dense = c->data + c->pos;
        c->pos += 8 * (uint64_t)e->n_metrics;
    }
    e->n_nodes = n;
    e->nodes = v;
    return hr_check_cct(c->file, v, n, NULL);
}

static pk_status read_epoch(hr_cur *c, pk_arena *a, hr_epoch *e)
{
    e->offset = c->pos;
    pk_status st = hr_need(c, EPOCH_TAG_LEN + 8 + 8 + 4, "epoch header");
    if (st) return st;
    if (memcmp(c->data + c->pos, EPOCH_TAG, EPOCH_TAG_LEN) != 0)
        return pk_fail(PK_ERR_FORMAT, "%s: epoch header at byte %" PRIu64 ": no %s tag", c->file,
                       c->pos, EPOCH_TAG);
    c->pos += EPOCH_TAG_LEN;
    e->flags = hr_take64(c);
    e->granularity = hr_take64(c);
    e->ra_distance = hr_take32(c);
    if ((st = hr_read_nvpairs(c, a, "epoch header name/value pairs", &e->nvps))) return st;
    if ((st = hr_read_metric_table(c, a, HR_FLAGS_V2, &e->n_metrics, &e->metrics))) return st;
    if ((st = hr_read_loadmap(c, a, &e->n_loadmap, &e->loadmap))) return st;
    return read_nodes(c, a, e);
}

pk_status hr_parse_dense(hr_file *f, pk_arena *a)
{
    hr_cur c = {f->name, f->data, 0, f->size, "the end of the file"};
    pk_status st = hr_read_header(&c, a, f);
    if (st) return st;
    /* Count the epochs as they come: a file holds a handful, so the
     * array grows by doubling in the arena (old copies are abandoned). */
    uint32_t cap = 0;
    hr_epoch *v = NULL;
    while (c.pos < c.end) {
        if (f->n_epochs == cap) {
            uint32_t ncap = cap ? cap * 2 : 2;
            hr_epoch *nv = pk_arena_array(a, ncap, sizeof *nv);
            if (!nv) return pk_fail_nomem("hpcrun epochs");
            if (cap) memcpy(nv, v, cap * sizeof *nv);
            v = nv, cap = ncap;
        }
        if ((st = read_epoch(&c, a, &v[f->n_epochs]))) return st;
        f->n_epochs++;
        f->epochs = v;
    }
    return PK_OK;
}
