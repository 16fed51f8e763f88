/*
 * formats/callgrind/build_merge.c — a file's self costs per position, same
 * positions merged, within the memory of the records as parsed.
 *
 * A Callgrind file of instruction positions (cc1: 3.26 M cost lines) has
 * almost as many distinct positions as lines (3.1 M), so merging them as
 * they come saves nothing: what costs memory is the records. They are
 * therefore merged in place: moved into groups by (part, function, file)
 * (a permutation applied by following its cycles), each group sorted by
 * position, and every run of one position written over the records as
 * one pk_cg_self_rec (as big as a record: the array becomes cg->self).
 * Its costs go straight into the final layout of rows, chosen beforehand
 * from a first pass over the runs (the layout cgb_rows_settle() would
 * choose for them), so no intermediate rows exist. Same positions are
 * summed in the file's order, as before: the same values to the bit.
 */
#include <stdlib.h>
#include <string.h>

#include "cgrd.h"
#include "util/error.h"

_Static_assert(sizeof(cgb_raw) == sizeof(pk_cg_self_rec), "records are rewritten in place");

static int cmp_raw(const void *a, const void *b)
{
    const cgb_raw *x = a, *y = b;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->instr != y->instr) return x->instr < y->instr ? -1 : 1;
    if (x->bb != y->bb) return x->bb < y->bb ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* A group by position (file order within one): Callgrind writes a
 * function's instructions mostly ascending, so most groups are sorted
 * already and only checked. */
static void sort_group(cgb_raw *r, uint64_t n)
{
    for (uint64_t i = 1; i < n; i++)
        if (cmp_raw(&r[i - 1], &r[i]) > 0) {
            qsort(r, n, sizeof *r, cmp_raw);
            return;
        }
}

/* The records grouped by accumulator, in file order within a group:
 * *start (n_acc + 1) receives where each group begins. */
static pk_status group_in_place(cg_build *b, uint64_t **start)
{
    uint64_t *s = calloc((size_t)b->n_acc + 2, sizeof *s);
    uint32_t *dest = malloc((b->n_raw + 1) * sizeof *dest);
    if (!s || !dest) {
        free(s), free(dest);
        return pk_fail_nomem("merging costs");
    }
    for (uint64_t i = 0; i < b->n_raw; i++)
        s[b->raw[i].acc + 2]++;
    for (uint32_t a = 0; a < b->n_acc; a++)
        s[a + 2] += s[a + 1];
    for (uint64_t i = 0; i < b->n_raw; i++)
        dest[i] = (uint32_t)s[b->raw[i].acc + 1]++;
    for (uint64_t i = 0; i < b->n_raw; i++) /* each swap puts one record in place */
        while (dest[i] != i) {
            uint32_t j = dest[i], d = dest[j];
            cgb_raw r = b->raw[i];
            b->raw[i] = b->raw[j], b->raw[j] = r;
            dest[i] = d, dest[j] = j;
        }
    free(dest);
    *start = s; /* s[a] .. s[a + 1] is group a */
    return PK_OK;
}

/* Scratch to sum the records of one position: `sum` by event (zero
 * outside `touched`), `seen` marks the touched events; all stride long. */
typedef struct summer {
    double *sum, *gather;
    uint32_t *touched;
    uint8_t *seen;
    uint32_t n;
} summer;

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void sum_add(summer *s, const double *v, const uint32_t *ev, uint32_t n)
{
    for (uint32_t j = 0; j < n; j++) {
        if (!s->seen[ev[j]]) s->seen[ev[j]] = 1, s->touched[s->n++] = ev[j];
        s->sum[ev[j]] += v[j];
    }
}

/* The summed row in gather[] by touched[] (events ascending); the scratch
 * zero again. Its length is the return value. */
static uint32_t sum_take(summer *s)
{
    uint32_t n = s->n;
    qsort(s->touched, n, sizeof *s->touched, cmp_u32);
    for (uint32_t j = 0; j < n; j++) {
        uint32_t e = s->touched[j];
        s->gather[j] = s->sum[e], s->sum[e] = 0, s->seen[e] = 0;
    }
    s->n = 0;
    return n;
}

/* Where the merged rows go: counted (stats) or written into the final
 * layout (v, and off/ev as the layout has them). */
typedef struct out_rows {
    cgb_row_stats stats;
    int write;
    uint32_t ne;
    double *v;
    uint64_t *off;
    uint32_t *ev;
    uint64_t at, row;
} out_rows;

/* One merged row of n values of events ev[] (ascending; zeros dropped),
 * as cgb_rows_put() and the settled layout would hold it. */
static void out_put(out_rows *o, const double *v, const uint32_t *ev, uint32_t n)
{
    uint64_t nnz = 0;
    uint32_t last = 0;
    if (o->write && o->off) o->off[o->row] = o->at;
    for (uint32_t j = 0; j < n; j++) {
        if (v[j] == 0.0) continue;
        nnz++, last = ev[j] + 1;
        if (!o->write) continue;
        if (o->ev)
            o->v[o->at] = v[j], o->ev[o->at++] = ev[j];
        else if (o->off)
            o->v[o->at + ev[j]] = v[j];
        else
            o->v[o->row * o->ne + ev[j]] = v[j];
    }
    if (o->write && o->off && !o->ev) o->at += last;
    o->stats.nnz += nnz, o->stats.used += nnz, o->stats.span += last;
    if (nnz) o->stats.all_dense = 0;
    o->row++;
}

/* Every run of one position, in group and position order, into `o`;
 * when writing, each run's self record over the records (index w <= the
 * run's first record, already read). */
static void runs(cg_build *b, const uint64_t *start, const uint64_t *voff, summer *sm, out_rows *o)
{
    char *self = (char *)b->raw;
    uint64_t w = 0;
    for (uint32_t a = 0; a < b->n_acc; a++) {
        const uint32_t *k = b->acc_key + (size_t)a * 3;
        for (uint64_t i = start[a], first = i; i < start[a + 1]; i++) {
            const cgb_raw *r = &b->raw[i], *nx = r + 1;
            int last = i + 1 == start[a + 1] || nx->line != r->line || nx->instr != r->instr ||
                       nx->bb != r->bb;
            const double *v = b->raw_v + voff[r->at];
            const uint32_t *ev = b->raw_ev + voff[r->at];
            if (!last || i > first) sum_add(sm, v, ev, r->len);
            if (!last) continue;
            pk_cg_self_rec rec = {k[0], k[1], k[2], r->line, r->instr, r->bb};
            if (i > first) {
                uint32_t n = sum_take(sm);
                out_put(o, sm->gather, sm->touched, n);
            } else {
                out_put(o, v, ev, r->len);
            }
            if (o->write) memcpy(self + w * sizeof rec, &rec, sizeof rec);
            w++, first = i + 1;
        }
    }
}

/* The final layout of the rows `o` counted, allocated and ready to be
 * written (fixed rows zeroed, as cgb_rows_settle() makes them). */
static pk_status out_alloc(out_rows *o, uint32_t ne)
{
    uint64_t n = o->row;
    int adopt;
    o->stats.compact = o->stats.all_sparse = 1;
    cgb_layout lay = cgb_rows_layout(n, ne, &o->stats, &adopt);
    int fix = lay == CGB_LAYOUT_FIXED, sp = lay == CGB_LAYOUT_SPARSE;
    uint64_t n_v = fix ? n * ne : sp ? o->stats.nnz : o->stats.span;
    o->v = calloc(n_v + 1, sizeof *o->v);
    o->off = fix ? NULL : malloc((n + 1) * sizeof *o->off);
    o->ev = sp ? malloc((n_v + 1) * sizeof *o->ev) : NULL;
    if (!o->v || (!fix && !o->off) || (sp && !o->ev)) {
        free(o->v), free(o->off), free(o->ev);
        return pk_fail_nomem("merging costs");
    }
    o->write = 1, o->ne = ne, o->at = 0, o->row = 0;
    return PK_OK;
}

/* Where each record's values start (by its place in the file). */
static uint64_t *value_starts(const cg_build *b)
{
    uint64_t *vo = malloc((b->n_raw + 1) * sizeof *vo), v = 0;
    for (uint64_t i = 0; vo && i < b->n_raw; i++)
        vo[i] = v, v += b->raw[i].len;
    return vo;
}

/* The records, now self records, as cg->self (the slack given back). */
static pk_status take_records(cg_build *b, uint64_t n)
{
    pk_cg_self_rec *self = realloc(b->raw, (n + 1) * sizeof *self);
    if (!self) return pk_fail_nomem("merging costs");
    b->raw = NULL, b->cap_raw = 0, b->n_raw = 0;
    b->cg->self = self, b->cg->n_self = n;
    return PK_OK;
}

pk_status cgb_merge_positions(cg_build *b)
{
    pk_cg *cg = b->cg;
    size_t w = (size_t)b->stride + 1;
    uint64_t *start = NULL, *voff = value_starts(b);
    summer sm = {calloc(w, sizeof(double)), malloc(w * sizeof(double)),
                 malloc(w * sizeof(uint32_t)), calloc(w, 1), 0};
    out_rows o = {.stats = {0, 0, 0, 1, 1, 1}};
    pk_status st = voff && sm.sum && sm.gather && sm.touched && sm.seen
                       ? PK_OK
                       : pk_fail_nomem("merging costs");
    if (!st && !b->raw && !(b->raw = malloc(sizeof *b->raw))) st = pk_fail_nomem("merging costs");
    if (!st) st = group_in_place(b, &start);
    for (uint32_t a = 0; !st && a < b->n_acc; a++)
        sort_group(b->raw + start[a], start[a + 1] - start[a]);
    if (!st) runs(b, start, voff, &sm, &o); /* counting */
    if (!st) st = out_alloc(&o, cg->n_events);
    if (!st) {
        runs(b, start, voff, &sm, &o); /* writing */
        if (o.off) o.off[o.row] = o.at;
        cg->self_cost = o.v, cg->self_off = o.off, cg->self_ev = o.ev;
        st = take_records(b, o.row);
    }
    free(start), free(voff);
    free(sm.sum), free(sm.gather), free(sm.touched), free(sm.seen);
    return st;
}
