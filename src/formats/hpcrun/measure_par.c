/*
 * formats/hpcrun/measure_par.c — a measurement directory read in pieces
 * by the members of a parallel build (measure_par.h).
 *
 * A piece is a builder (hm_build) that read a contiguous share of the
 * files. Its tables travel as one message (encode); *absorbing* a message
 * into a builder adds every entity it does not have yet, by the same keys
 * hm_open's builder uses, in the message's order, and returns where each
 * of the message's entities went. Member 0 absorbs the pieces in member
 * order into an empty builder: the merged builder has exactly the
 * entities, and in the order, one builder reading every file in order
 * would have (files are read in name order, shares are contiguous). Every
 * member absorbs the merged message into an empty builder (a copy of it),
 * then its own piece's message to map its indexes, and finishes the
 * profile with hm_finish, as hm_open does.
 */
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "measure_par.h"
#include "util/vec.h"
#include "util/wire.h"

#define PIECE_MAGIC 0x31504d48u /* "HMP1" */

struct hm_piece {
    pk_profile *p;
    hm_build b;
    pk_buf tables; /* its encoding, kept to map it later */
};

uint32_t hm_piece_locations(const hm_piece *pc)
{
    return pc->b.n_locs;
}

uint64_t hm_piece_bytes(const hm_piece *pc)
{
    return pc->b.hpcrun_bytes + pc->b.hpctrace_bytes;
}

void hm_piece_free(hm_piece *pc)
{
    if (!pc) return;
    hm_build_free(&pc->b);
    if (pc->p) hm_adopt_arrays(pc->p); /* a block it cannot adopt is freed */
    pk_profile_free(pc->p);
    pk_buf_free(&pc->tables);
    free(pc);
}

pk_status hm_piece_read(const char *dir, char **names, size_t n, uint32_t open_flags,
                        hm_piece **out)
{
    hm_piece *pc = calloc(1, sizeof *pc);
    if (!pc) return pk_fail_nomem("reading a measurement");
    pk_status st = pk_model_new(&pc->p);
    pk_open_options o = {open_flags, 0, 0, 0};
    if (!st) st = hm_build_init(&pc->b, pc->p, &o, dir, !(open_flags & PK_OPEN_NO_SYMBOLS));
    if (!st) st = hm_read_files(&pc->b, dir, names, n);
    if (!st) st = hm_piece_encode(pc, &pc->tables);
    if (st) {
        hm_piece_free(pc);
        return st;
    }
    *out = pc;
    return PK_OK;
}

/* ---- encoding ---- */

static void put_functions(pk_buf *w, const hm_build *b)
{
    const pk_profile *p = b->p;
    pk_wire_u32(w, p->n_functions);
    for (uint32_t i = 0; i < p->n_functions; i++) {
        const uint64_t *k = b->fn_keys[i];
        const pk_function *f = &p->functions[i];
        pk_wire_u64(w, k[0]), pk_wire_u64(w, k[1]), pk_wire_u64(w, k[2]);
        pk_wire_str(w, k[0] == 1 ? NULL : (const char *)(uintptr_t)k[3]);
        pk_wire_str(w, f->name);
        pk_wire_u32(w, f->module), pk_wire_u64(w, f->offset);
        pk_wire_u32(w, f->file), pk_wire_u32(w, f->line);
    }
}

static void put_contexts(pk_buf *w, const hm_build *b)
{
    pk_wire_u32(w, b->n_ctx);
    for (uint32_t i = 1; i < b->n_ctx; i++) { /* 0 is the root every builder has */
        const hm_ctx *c = &b->ctx[i];
        pk_wire_u32(w, c->parent);
        pk_wire_u8(w, c->kind), pk_wire_u8(w, c->relation), pk_wire_u8(w, c->entry);
        pk_wire_u32(w, c->flags), pk_wire_u32(w, c->function), pk_wire_u32(w, c->file);
        pk_wire_u32(w, c->line), pk_wire_u32(w, c->module), pk_wire_u64(w, c->offset);
        pk_wire_str(w, c->entry_name);
    }
}

static void put_metrics_frames(pk_buf *w, const hm_build *b)
{
    pk_wire_u32(w, b->n_metrics);
    for (uint32_t i = 0; i < b->n_metrics; i++) {
        const hm_metric *m = &b->metrics[i];
        pk_wire_str(w, m->name), pk_wire_str(w, m->desc);
        pk_wire_str(w, m->formula), pk_wire_str(w, m->format);
        pk_wire_u8(w, m->show), pk_wire_u8(w, (uint8_t)m->has_values);
    }
    pk_wire_u32(w, b->n_frames); /* frame_map holds their (module, offset) keys in order */
    for (uint32_t i = 0; i < b->n_frames; i++) {
        pk_wire_u32(w, (uint32_t)b->frame_map.keys[2 * (size_t)i]);
        pk_wire_u64(w, b->frame_map.keys[2 * (size_t)i + 1]);
        pk_wire_u8(w, b->frames[i].fn != PK_NONE);
    }
}

static void put_locations(pk_buf *w, const hm_build *b)
{
    pk_wire_u32(w, b->n_locs);
    for (uint32_t l = 0; l < b->n_locs; l++) {
        const hm_loc *hl = &b->locs[l];
        pk_wire_str(w, hl->file);
        pk_wire_u8(w, (uint8_t)hl->has_trace);
        pk_wire_u16(w, hl->n_ids);
        for (uint32_t k = 0; k < hl->n_ids; k++) {
            const hr_id *id = &hl->ids[k];
            pk_wire_u16(w, id->raw_kind), pk_wire_u16(w, id->kind), pk_wire_u8(w, id->interp);
            pk_wire_u64(w, id->physical), pk_wire_u64(w, id->logical);
        }
    }
}

/* What the first file said about the run (hm_open takes it from the
 * first file), and the counts reports are made of. */
static void put_head(pk_buf *w, const hm_build *b)
{
    const pk_profile *p = b->p;
    pk_wire_u8(w, b->n_locs > 0);
    pk_wire_str(w, p->title);
    pk_wire_u32(w, b->major), pk_wire_u32(w, b->minor);
    uint32_t n = 0;
    for (size_t a = 0; a < p->n_attrs; a++)
        n += p->attrs[a].entity == PK_ENTITY_PROFILE;
    pk_wire_u32(w, n);
    for (size_t a = 0; a < p->n_attrs; a++)
        if (p->attrs[a].entity == PK_ENTITY_PROFILE)
            pk_wire_str(w, p->attrs[a].key), pk_wire_str(w, p->attrs[a].value);
    uint64_t counts[] = {b->dropped_nodes,    b->dropped_values, b->formula_values,
                         b->unmapped_samples, b->hpcrun_bytes,   b->hpctrace_bytes,
                         b->n_traces};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
        pk_wire_u64(w, counts[i]);
}

static void put_build(pk_buf *w, const hm_build *b)
{
    const pk_profile *p = b->p;
    pk_wire_u32(w, PIECE_MAGIC);
    pk_wire_u32(w, p->n_modules);
    for (uint32_t i = 0; i < p->n_modules; i++)
        pk_wire_str(w, p->modules[i].path);
    pk_wire_u32(w, p->n_files);
    for (uint32_t i = 0; i < p->n_files; i++)
        pk_wire_str(w, p->files[i].path);
    put_functions(w, b);
    put_contexts(w, b);
    put_metrics_frames(w, b);
    put_locations(w, b);
    put_head(w, b);
}

pk_status hm_piece_encode(const hm_piece *pc, pk_buf *out)
{
    put_build(out, &pc->b);
    return out->failed ? pk_fail_nomem("sending a measurement's tables") : PK_OK;
}

/* ---- absorbing a message into a builder ---- */

enum { ABSORB_ALL, ABSORB_MAP }; /* MAP: the entities only (no locations, counts, head) */

/* Where the message's entities went in the builder. */
typedef struct absorb_maps {
    uint32_t *module, *file, *function, *ctx, *metric;
    uint32_t n_module, n_file, n_function, n_ctx, n_metric;
} absorb_maps;

static void maps_free(absorb_maps *m)
{
    free(m->module), free(m->file), free(m->function), free(m->ctx), free(m->metric);
    memset(m, 0, sizeof *m);
}

static uint32_t *new_map(pk_wire *w, uint32_t *n, uint64_t min_size)
{
    *n = pk_wire_get32(w);
    if (!w->bad && min_size && *n > (w->n - w->at) / min_size) w->bad = 1;
    return w->bad ? NULL : malloc(((size_t)*n + 1) * sizeof(uint32_t));
}

static uint32_t through(const uint32_t *map, uint32_t n, uint32_t i, int *bad)
{
    if (i == PK_NONE) return PK_NONE;
    if (i >= n) *bad = 1;
    return i < n ? map[i] : PK_NONE;
}

/* A message that does not parse came from a member of this very build:
 * a bug or a broken transport, said as such. */
static pk_status garbled(void)
{
    return pk_fail(PK_ERR_IO, "parallel build: a measurement's tables arrived damaged");
}

static pk_status take_paths(hm_build *b, pk_wire *w, absorb_maps *m)
{
    int nomem = 0;
    m->module = new_map(w, &m->n_module, 4);
    if (!m->module) return w->bad ? garbled() : pk_fail_nomem("merging tables");
    for (uint32_t i = 0; i < m->n_module && !w->bad; i++) {
        const char *s = pk_wire_getstr(w, &b->p->strings, &nomem);
        if (nomem || !s) return nomem ? pk_fail_nomem("merging tables") : garbled();
        if (hm_module_of(b, s, strlen(s), &m->module[i])) return PK_ERR_NOMEM;
    }
    m->file = new_map(w, &m->n_file, 4);
    if (!m->file) return w->bad ? garbled() : pk_fail_nomem("merging tables");
    for (uint32_t i = 0; i < m->n_file && !w->bad; i++) {
        const char *s = pk_wire_getstr(w, &b->p->strings, &nomem);
        if (nomem || !s) return nomem ? pk_fail_nomem("merging tables") : garbled();
        if (hm_file_of(b, s, &m->file[i])) return PK_ERR_NOMEM;
    }
    return w->bad ? garbled() : PK_OK;
}

static pk_status take_functions(hm_build *b, pk_wire *w, absorb_maps *m)
{
    int nomem = 0, bad = 0;
    m->function = new_map(w, &m->n_function, 44);
    if (!m->function) return w->bad ? garbled() : pk_fail_nomem("merging tables");
    for (uint32_t i = 0; i < m->n_function && !w->bad; i++) {
        uint64_t key[PK_KMAP_WORDS] = {pk_wire_get64(w), pk_wire_get64(w), pk_wire_get64(w)};
        const char *kname = pk_wire_getstr(w, &b->p->strings, &nomem);
        pk_function f = {pk_wire_getstr(w, &b->p->strings, &nomem), pk_wire_get32(w),
                         pk_wire_get64(w), pk_wire_get32(w), pk_wire_get32(w)};
        if (key[0] != 1) { /* symbols: keyed by module and interned name */
            key[1] = through(m->module, m->n_module, (uint32_t)key[1], &bad);
            key[3] = (uint64_t)(uintptr_t)kname;
        }
        f.module = through(m->module, m->n_module, f.module, &bad);
        f.file = through(m->file, m->n_file, f.file, &bad);
        if (nomem) return pk_fail_nomem("merging tables");
        if (bad || w->bad) return garbled();
        pk_status st = hm_function_of(b, key, &f, &m->function[i]);
        if (st) return st;
    }
    return w->bad ? garbled() : PK_OK;
}

static pk_status take_contexts(hm_build *b, pk_wire *w, absorb_maps *m)
{
    int nomem = 0, bad = 0;
    m->ctx = new_map(w, &m->n_ctx, 0);
    if (!m->ctx) return w->bad ? garbled() : pk_fail_nomem("merging tables");
    if (m->n_ctx == 0 || m->n_ctx - 1 > (w->n - w->at) / 39) return garbled();
    m->ctx[0] = 0;
    for (uint32_t i = 1; i < m->n_ctx && !w->bad; i++) {
        uint32_t parent = pk_wire_get32(w);
        hm_ctx c = {.parent = parent < i ? m->ctx[parent] : PK_NONE};
        bad |= parent >= i;
        c.kind = pk_wire_get8(w), c.relation = pk_wire_get8(w), c.entry = pk_wire_get8(w);
        c.flags = pk_wire_get32(w);
        c.function = through(m->function, m->n_function, pk_wire_get32(w), &bad);
        c.file = through(m->file, m->n_file, pk_wire_get32(w), &bad);
        c.line = pk_wire_get32(w);
        c.module = through(m->module, m->n_module, pk_wire_get32(w), &bad);
        c.offset = pk_wire_get64(w);
        c.entry_name = pk_wire_getstr(w, &b->p->strings, &nomem);
        if (nomem) return pk_fail_nomem("merging tables");
        if (bad || w->bad) return garbled();
        pk_status st = hm_ctx_get(b, &c, &m->ctx[i]);
        if (st) return st;
    }
    return w->bad ? garbled() : PK_OK;
}

static pk_status take_metric(hm_build *b, pk_wire *w, uint32_t *out)
{
    int nomem = 0, added;
    hm_metric hm = {.name = pk_wire_getstr(w, &b->p->strings, &nomem)};
    hm.desc = pk_wire_getstr(w, &b->p->strings, &nomem);
    hm.formula = pk_wire_getstr(w, &b->p->strings, &nomem);
    hm.format = pk_wire_getstr(w, &b->p->strings, &nomem);
    hm.show = pk_wire_get8(w), hm.has_values = pk_wire_get8(w), hm.model = PK_NONE;
    if (nomem) return pk_fail_nomem("merging tables");
    if (w->bad || !hm.name || !hm.desc || !hm.formula || !hm.format) return garbled();
    uint64_t key[PK_KMAP_WORDS] = {(uint64_t)(uintptr_t)hm.name};
    if (pk_kmap_upsert(&b->metric_map, key, b->n_metrics, out, &added) ||
        (added && pk_vec_reserve((void **)&b->metrics, &b->cap_metrics, b->n_metrics + 1u,
                                 sizeof *b->metrics)))
        return pk_fail_nomem("merging tables");
    if (added)
        b->metrics[b->n_metrics++] = hm; /* the first file naming it describes it */
    else
        b->metrics[*out].has_values |= hm.has_values;
    return PK_OK;
}

/* Symbol look-ups, counted once per (module, offset) as one builder would. */
static pk_status take_frames(hm_build *b, pk_wire *w, const absorb_maps *m)
{
    uint32_t n = pk_wire_get32(w);
    if (w->bad || n > (w->n - w->at) / 13) return garbled();
    for (uint32_t i = 0; i < n; i++) {
        int bad = 0, added;
        uint64_t key[PK_KMAP_WORDS] = {through(m->module, m->n_module, pk_wire_get32(w), &bad),
                                       pk_wire_get64(w)};
        int resolved = pk_wire_get8(w) != 0;
        uint32_t at;
        if (bad || w->bad) return garbled();
        if (pk_kmap_upsert(&b->frame_map, key, b->n_frames, &at, &added) ||
            (added && pk_vec_reserve((void **)&b->frames, &b->cap_frames, b->n_frames + 1u,
                                     sizeof *b->frames)))
            return pk_fail_nomem("merging tables");
        if (!added) continue;
        b->frames[b->n_frames++] = (hm_frame){.fn = resolved ? 0 : PK_NONE, .file = PK_NONE};
        b->n_resolved += (uint32_t)resolved;
    }
    return PK_OK;
}

static pk_status take_location(hm_build *b, pk_wire *w)
{
    pk_profile *p = b->p;
    int nomem = 0;
    if (pk_vec_reserve((void **)&b->locs, &b->cap_locs, b->n_locs + 1u, sizeof *b->locs))
        return pk_fail_nomem("merging tables");
    hm_loc *loc = &b->locs[b->n_locs];
    memset(loc, 0, sizeof *loc);
    loc->file = pk_wire_getstr(w, &p->strings, &nomem);
    loc->has_trace = pk_wire_get8(w);
    uint16_t n = pk_wire_get16(w);
    if (nomem) return pk_fail_nomem("merging tables");
    if (w->bad || !loc->file || n > (w->n - w->at) / 21) return garbled();
    hr_id *ids = pk_arena_array(&p->arena, n + 1u, sizeof *ids);
    if (!ids) return pk_fail_nomem("merging tables");
    for (uint16_t k = 0; k < n; k++) {
        ids[k].raw_kind = pk_wire_get16(w), ids[k].kind = pk_wire_get16(w);
        ids[k].interp = pk_wire_get8(w);
        ids[k].physical = pk_wire_get64(w), ids[k].logical = pk_wire_get64(w);
    }
    loc->ids = ids, loc->n_ids = n;
    b->n_locs++;
    return w->bad ? garbled() : PK_OK;
}

/* The first file's description of the run, unless one was taken already. */
static pk_status take_head(hm_build *b, pk_wire *w, int *have_head)
{
    pk_profile *p = b->p;
    int nomem = 0, has = pk_wire_get8(w) && !*have_head;
    const char *title = pk_wire_getstr(w, &p->strings, &nomem);
    unsigned major = pk_wire_get32(w), minor = pk_wire_get32(w);
    uint32_t n = pk_wire_get32(w);
    pk_status st = PK_OK;
    for (uint32_t a = 0; a < n && !st && !w->bad; a++) {
        const char *key = pk_wire_getstr(w, &p->strings, &nomem);
        const char *value = pk_wire_getstr(w, &p->strings, &nomem);
        if (has && key && !nomem)
            st = pk_model_add_attr(p, PK_ENTITY_PROFILE, 0, key, value ? value : "",
                                   value ? strlen(value) : 0);
    }
    if (nomem) return pk_fail_nomem("merging tables");
    if (st || w->bad) return st ? st : garbled();
    if (has) p->title = title, b->major = major, b->minor = minor, *have_head = 1;
    uint64_t *counts[] = {&b->dropped_nodes,    &b->dropped_values, &b->formula_values,
                          &b->unmapped_samples, &b->hpcrun_bytes,   &b->hpctrace_bytes};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
        *counts[i] += pk_wire_get64(w);
    b->n_traces += (uint32_t)pk_wire_get64(w);
    return w->bad ? garbled() : PK_OK;
}

static pk_status absorb(hm_build *b, const unsigned char *data, uint64_t len, int mode,
                        int *have_head, absorb_maps *m)
{
    pk_wire w = pk_wire_reader(data, len);
    memset(m, 0, sizeof *m);
    if (pk_wire_get32(&w) != PIECE_MAGIC) return garbled();
    pk_status st = take_paths(b, &w, m);
    if (!st) st = take_functions(b, &w, m);
    if (!st) st = take_contexts(b, &w, m);
    if (!st) {
        m->metric = new_map(&w, &m->n_metric, 22);
        st = m->metric ? PK_OK : w.bad ? garbled() : pk_fail_nomem("merging tables");
    }
    for (uint32_t i = 0; i < m->n_metric && !st; i++)
        st = take_metric(b, &w, &m->metric[i]);
    if (!st) st = take_frames(b, &w, m);
    if (st || mode == ABSORB_MAP) return st;
    uint32_t n = pk_wire_get32(&w);
    if (w.bad || n > (w.n - w.at) / 7) return garbled();
    for (uint32_t l = 0; l < n && !st; l++)
        st = take_location(b, &w);
    return st ? st : take_head(b, &w, have_head);
}

/* An empty builder (with its profile) to absorb messages into. */
static pk_status empty_build(hm_build *b, const char *dir)
{
    pk_profile *p;
    pk_status st = pk_model_new(&p);
    if (st) return st;
    st = hm_build_init(b, p, NULL, dir, 0);
    if (st) {
        hm_build_free(b);
        pk_profile_free(p);
    }
    return st;
}

static void drop_build(hm_build *b)
{
    pk_profile *p = b->p;
    hm_build_free(b);
    if (p) hm_adopt_arrays(p); /* a block it cannot adopt is freed */
    pk_profile_free(p);
}

pk_status hm_pieces_merge(const unsigned char *const *data, const uint64_t *lens, uint32_t n,
                          pk_buf *out)
{
    hm_build b;
    pk_status st = empty_build(&b, NULL);
    if (st) return st;
    int have_head = 0;
    for (uint32_t i = 0; i < n && !st; i++) {
        absorb_maps m;
        st = absorb(&b, data[i], lens[i], ABSORB_ALL, &have_head, &m);
        maps_free(&m);
    }
    if (!st) put_build(out, &b);
    if (!st && out->failed) st = pk_fail_nomem("merging tables");
    drop_build(&b);
    return st;
}

/* The piece's values and samples, under the merged builder's indexes,
 * moved to its locations first, first + 1, ... */
static pk_status move_values(hm_piece *pc, hm_build *g, const absorb_maps *m, uint32_t first)
{
    hm_build *b = &pc->b;
    if ((uint64_t)first + b->n_locs > g->n_locs)
        return pk_fail(PK_ERR_IO, "parallel build: a measurement's share does not fit");
    for (uint32_t l = 0; l < b->n_locs; l++) {
        hm_loc *from = &b->locs[l], *to = &g->locs[first + l];
        if (strcmp(from->file, to->file) != 0)
            return pk_fail(PK_ERR_IO, "parallel build: %s arrived where %s belongs", from->file,
                           to->file);
        for (size_t k = 0; k < from->n_vals; k++) {
            hm_val *v = &from->vals[k];
            if (v->ctx >= m->n_ctx || v->metric >= m->n_metric) return garbled();
            v->ctx = m->ctx[v->ctx], v->metric = m->metric[v->metric];
        }
        for (uint64_t k = 0; k < from->n_samples; k++) {
            hm_sample *s = &from->samples[k];
            if (s->ctx != PK_NONE) s->ctx = s->ctx < m->n_ctx ? m->ctx[s->ctx] : PK_NONE;
        }
        to->vals = from->vals, to->n_vals = from->n_vals, to->cap_vals = from->cap_vals;
        to->samples = from->samples, to->n_samples = from->n_samples;
        from->vals = NULL, from->samples = NULL, from->n_vals = from->n_samples = 0;
    }
    return PK_OK;
}

pk_status hm_piece_finish(hm_piece *pc, const unsigned char *merged, uint64_t len, const char *path,
                          const char *dir, uint32_t first, pk_profile **out)
{
    hm_build g;
    pk_status st = empty_build(&g, dir);
    if (st) return st;
    g.p->path = pk_intern_cstr(&g.p->strings, path);
    g.flags = pc->b.flags, g.sym_note = pc->b.sym != NULL;
    int have_head = 0;
    absorb_maps all, mine = {0};
    st = g.p->path ? absorb(&g, merged, len, ABSORB_ALL, &have_head, &all)
                   : pk_fail_nomem("opening");
    maps_free(&all);
    if (!st) st = absorb(&g, pc->tables.data, pc->tables.len, ABSORB_MAP, &have_head, &mine);
    if (!st && first == 0) st = pk_fail(PK_ERR_INVALID_ARG, "location 0 is the summary");
    if (!st) st = move_values(pc, &g, &mine, first - 1); /* the builder has no summary */
    maps_free(&mine);
    if (!st) st = hm_finish(&g, path, 1);
    pk_profile *p = g.p;
    hm_build_free(&g);
    if (hm_adopt_arrays(p) && !st) st = PK_ERR_NOMEM;
    if (st) {
        pk_profile_free(p);
        return st;
    }
    *out = p;
    return PK_OK;
}
