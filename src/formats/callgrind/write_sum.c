/*
 * formats/callgrind/write_sum.c — one part holding the sum of a call
 * graph's parts (the chosen ones): what the Callgrind writer writes by
 * default, because callgrind_annotate reads one part per file. Self
 * costs, calls and jumps of equal key (function and positions) are
 * merged, call counts and jump counts added. Memory: the merged records,
 * one hash slot per record.
 */
#include <stdlib.h>
#include <string.h>

#include "cgw.h"
#include "util/error.h"
#include "util/kmap.h"
#include "util/vec.h"

typedef struct summer {
    const pk_cg *in;
    pk_cg *out;
    uint32_t ne;
    pk_kmap self_map, call_map, jump_map;
    size_t cap_self, cap_self_cost, cap_calls, cap_call_cost, cap_jumps;
} summer;

/* Where the records of one kind go, and their costs (NULL for jumps). */
typedef struct table {
    pk_kmap *map;
    void **recs;
    size_t *cap, size;
    uint64_t *n;
    double **costs;
    size_t *ccap;
} table;

/* Index *k of the record with `key` in t: a copy of `rec` appended, its
 * costs zeroed, when the key is new (*added). -1 when out of memory. */
static int find_or_add(const table *t, const uint64_t key[PK_KMAP_WORDS], const void *rec,
                       uint32_t ne, uint32_t *k, int *added)
{
    if (pk_kmap_upsert(t->map, key, (uint32_t)*t->n, k, added)) return -1;
    if (!*added) return 0;
    if (pk_vec_reserve(t->recs, t->cap, *t->n + 1, t->size) ||
        (t->costs && pk_vec_reserve((void **)t->costs, t->ccap, (*t->n + 1) * ne, sizeof(double))))
        return -1;
    memcpy((char *)*t->recs + (size_t)*k * t->size, rec, t->size);
    if (t->costs) memset(*t->costs + (uint64_t)*k * ne, 0, ne * sizeof(double));
    ++*t->n;
    return 0;
}

static pk_status sum_self(summer *s, uint64_t i)
{
    pk_cg *o = s->out;
    pk_cg_self_rec r = s->in->self[i];
    r.part = 0;
    uint64_t key[PK_KMAP_WORDS] = {r.fn, (uint64_t)r.file << 32 | r.line, r.instr, r.bb};
    table t = {&s->self_map, (void **)&o->self, &s->cap_self,     sizeof r,
               &o->n_self,   &o->self_cost,     &s->cap_self_cost};
    uint32_t k;
    int added;
    if (find_or_add(&t, key, &r, s->ne, &k, &added)) return PK_ERR_NOMEM;
    for (uint32_t e = 0; e < s->ne; e++)
        o->self_cost[(uint64_t)k * s->ne + e] += cgw_self(s->in, i, e);
    return PK_OK;
}

static pk_status sum_call(summer *s, uint64_t i)
{
    pk_cg *o = s->out;
    pk_cg_call_rec r = s->in->calls[i];
    r.part = 0;
    uint64_t key[PK_KMAP_WORDS] = {(uint64_t)r.caller << 32 | r.callee,
                                   (uint64_t)r.file << 32 | r.line,
                                   r.instr,
                                   r.bb,
                                   (uint64_t)r.to_file << 32 | r.to_line,
                                   r.to_instr,
                                   r.to_bb};
    table t = {&s->call_map, (void **)&o->calls, &s->cap_calls,    sizeof r,
               &o->n_calls,  &o->call_cost,      &s->cap_call_cost};
    uint32_t k;
    int added;
    if (find_or_add(&t, key, &r, s->ne, &k, &added)) return PK_ERR_NOMEM;
    o->calls[k].count = (added ? 0 : o->calls[k].count) + r.count;
    for (uint32_t e = 0; e < s->ne; e++)
        o->call_cost[(uint64_t)k * s->ne + e] += cgw_call(s->in, i, e);
    return PK_OK;
}

static pk_status sum_jump(summer *s, uint64_t i)
{
    pk_cg *o = s->out;
    pk_cg_jump_rec r = s->in->jumps[i];
    r.part = 0;
    uint64_t key[PK_KMAP_WORDS] = {(uint64_t)r.fn << 32 | r.to_fn,
                                   (uint64_t)r.file << 32 | r.line,
                                   r.instr,
                                   r.bb,
                                   (uint64_t)r.to_file << 32 | r.to_line,
                                   r.to_instr,
                                   r.to_bb,
                                   r.conditional};
    table t = {&s->jump_map, (void **)&o->jumps, &s->cap_jumps, sizeof r, &o->n_jumps, NULL, NULL};
    uint32_t k;
    int added;
    if (find_or_add(&t, key, &r, 0, &k, &added)) return PK_ERR_NOMEM;
    if (!added) o->jumps[k].followed += r.followed, o->jumps[k].executed += r.executed;
    return PK_OK;
}

/* A header field the summed parts share, or NULL / 0 when they differ. */
static void common_header(const pk_cg *in, const unsigned char *use, pk_cg_part_rec *out)
{
    int first = 1;
    for (uint32_t k = 0; k < in->n_parts; k++) {
        const pk_cg_part_rec *pt = &in->parts[k];
        if (!use[k]) continue;
        if (first) {
            out->pid = pt->pid, out->cmd = pt->cmd, out->creator = pt->creator;
            out->thread = pt->thread, out->file = pt->file, out->number = pt->number, first = 0;
            continue;
        }
        if (pt->number != out->number) out->number = 1;
        if (pt->pid != out->pid) out->pid = 0;
        if (pt->cmd != out->cmd) out->cmd = NULL;
        if (pt->thread != out->thread) out->thread = 1;
        if (pt->file != out->file) out->file = NULL;
    }
}

static int has_desc(const pk_cg_part_rec *pt, const char *d)
{
    for (uint32_t i = 0; i < pt->n_descs; i++)
        if (pt->descs[i] == d || strcmp(pt->descs[i], d) == 0) return 1;
    return 0;
}

/* The desc: lines every summed part has, in the first one's order. */
static pk_status common_descs(const pk_cg *in, const unsigned char *use, pk_cg_part_rec *out)
{
    const pk_cg_part_rec *first = NULL;
    for (uint32_t k = 0; k < in->n_parts && !first; k++)
        if (use[k]) first = &in->parts[k];
    if (!first || !first->n_descs) return PK_OK;
    out->descs = malloc(first->n_descs * sizeof *out->descs);
    if (!out->descs) return PK_ERR_NOMEM;
    for (uint32_t i = 0; i < first->n_descs; i++) {
        int everywhere = 1;
        for (uint32_t k = 0; k < in->n_parts && everywhere; k++)
            everywhere = !use[k] || has_desc(&in->parts[k], first->descs[i]);
        if (everywhere) out->descs[out->n_descs++] = first->descs[i];
    }
    return PK_OK;
}

/* What the summed parts state of their totals (summary: lines), as the
 * summed part's summary: where any part states one: each part's
 * statement, or its cost lines where it has none. */
static pk_status sum_statements(const pk_cg *in, const unsigned char *selected, pk_cg_part_rec *out)
{
    uint32_t ne = in->n_events;
    double *stated = calloc(ne + 1u, sizeof *stated), *lines = calloc(ne + 1u, sizeof *lines);
    unsigned char *has = calloc(ne + 1u, 1);
    pk_status st = stated && lines && has ? pk_cg_sum_statements(in, selected, stated, lines, has)
                                          : PK_ERR_NOMEM;
    int any = 0;
    for (uint32_t e = 0; e < ne && !st; e++)
        any |= has[e];
    if (!st && any) out->summary = stated, stated = NULL;
    free(stated), free(lines), free(has);
    return st;
}

static pk_status setup(summer *s, const unsigned char *selected, const unsigned char *use)
{
    const pk_cg *in = s->in;
    pk_cg *o = s->out;
    o->events = malloc((in->n_events + 1u) * sizeof *o->events);
    o->parts = calloc(1, sizeof *o->parts);
    if (!o->events || !o->parts) return PK_ERR_NOMEM;
    if (in->n_events) memcpy(o->events, in->events, in->n_events * sizeof *o->events);
    o->n_events = in->n_events, o->positions = in->positions, o->by_function = in->by_function;
    /* extra functions keep their numbers; their names stay with `in` */
    o->n_model_functions = in->n_model_functions, o->n_functions = in->n_functions;
    o->n_parts = 1;
    o->parts[0] = (pk_cg_part_rec){.location = PK_NONE, .number = 1, .thread = 1};
    common_header(in, use, &o->parts[0]);
    o->parts[0].positions = in->positions;
    pk_status st = common_descs(in, use, &o->parts[0]);
    return st ? st : sum_statements(in, selected, &o->parts[0]);
}

pk_status cgw_sum_parts(const pk_cg *in, const unsigned char *selected, pk_cg **out)
{
    summer s = {in, calloc(1, sizeof(pk_cg)), in->n_events, {0}, {0}, {0}, 0, 0, 0, 0, 0};
    unsigned char *use = malloc(in->n_parts + 1u);
    pk_status st = s.out && use ? PK_OK : PK_ERR_NOMEM;
    for (uint32_t k = 0; k < in->n_parts && use; k++)
        use[k] = !selected || (in->parts[k].location != PK_NONE && selected[in->parts[k].location]);
    if (!st) st = setup(&s, selected, use);
    for (uint64_t i = 0; i < in->n_self && !st; i++)
        if (use[in->self[i].part]) st = sum_self(&s, i);
    for (uint64_t i = 0; i < in->n_calls && !st; i++)
        if (use[in->calls[i].part]) st = sum_call(&s, i);
    for (uint64_t i = 0; i < in->n_jumps && !st; i++)
        if (use[in->jumps[i].part]) st = sum_jump(&s, i);
    pk_kmap_free(&s.self_map), pk_kmap_free(&s.call_map), pk_kmap_free(&s.jump_map);
    free(use);
    if (st) {
        pk_cg_free(s.out);
        return st == PK_ERR_NOMEM ? pk_fail_nomem("summing the parts of a call graph") : st;
    }
    *out = s.out;
    return PK_OK;
}
