/*
 * model/skeleton.c — a profile's structure as one message, and back: what
 * the members of a parallel merge (par/merge.c) send each other instead
 * of the profiles themselves. Everything pk_profile_merge() and the
 * HPCToolkit writer read of a profile travels — description, modules,
 * files, functions, identifier kinds, metrics, scopes, columns (with
 * their raw ids), contexts (every field), locations (identifier tuples),
 * trace lines and range, attributes — except its values: planes arrive
 * empty and trace lines without samples. The decoder checks every count
 * and index against what arrived.
 */
#include "skeleton.h"

#include <stdlib.h>
#include <string.h>

#include "util/wire.h"

#define SKELETON_MAGIC 0x314c4b53u /* "SKL1" */

static void put_head(pk_buf *b, const pk_profile *p)
{
    pk_wire_u32(b, SKELETON_MAGIC);
    pk_wire_u32(b, (uint32_t)p->format);
    pk_wire_str(b, p->format_name), pk_wire_str(b, p->layout);
    pk_wire_u32(b, p->major), pk_wire_u32(b, p->minor);
    pk_wire_str(b, p->title), pk_wire_str(b, p->description), pk_wire_str(b, p->path);
    pk_wire_u8(b, (uint8_t)p->complete), pk_wire_u8(b, (uint8_t)p->reconstructed);
    pk_wire_u8(b, (uint8_t)p->has_trace_range);
    pk_wire_u64(b, p->trace_begin), pk_wire_u64(b, p->trace_end);
}

static void put_names(pk_buf *b, const pk_profile *p)
{
    pk_wire_u32(b, p->n_modules);
    for (uint32_t i = 0; i < p->n_modules; i++)
        pk_wire_str(b, p->modules[i].path);
    pk_wire_u32(b, p->n_files);
    for (uint32_t i = 0; i < p->n_files; i++)
        pk_wire_str(b, p->files[i].path), pk_wire_u32(b, p->files[i].flags);
    pk_wire_u32(b, p->n_functions);
    for (uint32_t i = 0; i < p->n_functions; i++) {
        const pk_function *f = &p->functions[i];
        pk_wire_str(b, f->name), pk_wire_u32(b, f->module), pk_wire_u64(b, f->offset);
        pk_wire_u32(b, f->file), pk_wire_u32(b, f->line);
    }
    pk_wire_u32(b, p->n_id_kinds);
    for (uint32_t i = 0; i < p->n_id_kinds; i++)
        pk_wire_str(b, p->id_kind_names[i]);
}

static void put_metrics(pk_buf *b, const pk_profile *p)
{
    pk_wire_u32(b, p->n_metrics);
    for (uint32_t i = 0; i < p->n_metrics; i++) {
        const pk_metric *m = &p->metrics[i];
        pk_wire_str(b, m->name), pk_wire_str(b, m->description), pk_wire_str(b, m->unit);
        pk_wire_u32(b, m->parent), pk_wire_u32(b, (uint32_t)m->combine), pk_wire_u32(b, m->flags);
    }
    pk_wire_u32(b, p->n_scopes);
    for (uint32_t i = 0; i < p->n_scopes; i++) {
        const pk_scope *s = &p->scopes[i];
        pk_wire_str(b, s->name), pk_wire_u32(b, (uint32_t)s->kind);
        pk_wire_u8(b, s->raw_type), pk_wire_u8(b, s->propagation_index);
    }
    pk_wire_u32(b, p->n_columns);
    for (uint32_t i = 0; i < p->n_columns; i++) {
        const pk_column *c = &p->columns[i];
        pk_wire_u32(b, c->metric), pk_wire_u32(b, c->scope), pk_wire_u8(b, (uint8_t)c->is_summary);
        pk_wire_u32(b, (uint32_t)c->stat), pk_wire_str(b, c->formula);
        pk_wire_u32(b, (uint32_t)c->combine), pk_wire_u32(b, c->raw_id);
    }
}

static void put_contexts(pk_buf *b, const pk_profile *p)
{
    pk_wire_u32(b, p->n_ctx);
    for (uint32_t i = 0; i < p->n_ctx; i++) {
        const pk_ctx_rec *c = &p->ctx[i];
        pk_wire_u64(b, c->id), pk_wire_u32(b, c->parent), pk_wire_u32(b, c->first_child);
        pk_wire_u32(b, c->n_children), pk_wire_u32(b, c->depth);
        pk_wire_u32(b, c->function), pk_wire_u32(b, c->file), pk_wire_u32(b, c->module);
        pk_wire_u32(b, c->line), pk_wire_u64(b, c->offset), pk_wire_str(b, c->entry_name);
        pk_wire_u16(b, c->propagation), pk_wire_u16(b, c->raw_entry);
        pk_wire_u8(b, c->kind), pk_wire_u8(b, c->relation), pk_wire_u8(b, c->entry);
        pk_wire_u8(b, c->flags), pk_wire_u8(b, c->raw_kind), pk_wire_u8(b, c->raw_relation);
    }
}

static void put_locations(pk_buf *b, const pk_profile *p)
{
    pk_wire_u32(b, p->n_locs);
    for (uint32_t l = 0; l < p->n_locs; l++) {
        const pk_loc_rec *x = &p->locs[l];
        pk_wire_u32(b, x->raw_index), pk_wire_u8(b, (uint8_t)x->is_summary);
        pk_wire_u32(b, x->trace), pk_wire_u32(b, x->n_ids);
        for (uint32_t k = 0; k < x->n_ids; k++) {
            const pk_ident *id = &x->ids[k];
            pk_wire_u16(b, id->kind), pk_wire_str(b, id->kind_name), pk_wire_u16(b, id->flags);
            pk_wire_u32(b, id->logical), pk_wire_u64(b, id->physical);
        }
    }
    pk_wire_u32(b, p->n_traces);
    for (uint32_t t = 0; t < p->n_traces; t++)
        pk_wire_u32(b, p->traces[t].location);
    pk_wire_u64(b, p->n_attrs);
    for (size_t a = 0; a < p->n_attrs; a++) {
        const pk_attr_rec *r = &p->attrs[a];
        pk_wire_u32(b, r->entity), pk_wire_u32(b, r->index);
        pk_wire_str(b, r->key), pk_wire_str(b, r->value);
    }
}

pk_status pk_skeleton_encode(const pk_profile *p, pk_buf *out)
{
    put_head(out, p);
    put_names(out, p);
    put_metrics(out, p);
    put_contexts(out, p);
    put_locations(out, p);
    return out->failed ? pk_fail_nomem("sending a profile's structure") : PK_OK;
}

/* ---- decoding ---- */

typedef struct reader {
    pk_wire w;
    pk_profile *p;
    int nomem, bad;
} reader;

static const char *str(reader *r)
{
    return pk_wire_getstr(&r->w, &r->p->strings, &r->nomem);
}

/* An index below n, or PK_NONE. */
static uint32_t index_below(reader *r, uint32_t n)
{
    uint32_t i = pk_wire_get32(&r->w);
    if (i != PK_NONE && i >= n) r->bad = 1;
    return i;
}

/* A count of items of at least `min` bytes that can still be in the
 * message, and an arena array of them. */
static void *array_of(reader *r, uint32_t *n, size_t elem, uint64_t min)
{
    *n = pk_wire_get32(&r->w);
    if (r->w.bad || *n > (r->w.n - r->w.at) / min) {
        r->bad = 1, *n = 0;
        return NULL;
    }
    void *a = pk_arena_array(&r->p->arena, (size_t)*n + 1, elem);
    if (!a) r->nomem = 1, *n = 0;
    return a;
}

static void take_head(reader *r)
{
    pk_profile *p = r->p;
    if (pk_wire_get32(&r->w) != SKELETON_MAGIC) r->bad = 1;
    p->format = (pk_format)pk_wire_get32(&r->w);
    p->format_name = str(r), p->layout = str(r);
    p->major = pk_wire_get32(&r->w), p->minor = pk_wire_get32(&r->w);
    p->title = str(r), p->description = str(r), p->path = str(r);
    p->complete = pk_wire_get8(&r->w), p->reconstructed = pk_wire_get8(&r->w);
    p->has_trace_range = pk_wire_get8(&r->w);
    p->trace_begin = pk_wire_get64(&r->w), p->trace_end = pk_wire_get64(&r->w);
}

static void take_names(reader *r)
{
    pk_profile *p = r->p;
    p->modules = array_of(r, &p->n_modules, sizeof *p->modules, 4);
    for (uint32_t i = 0; i < p->n_modules; i++)
        p->modules[i].path = str(r);
    p->files = array_of(r, &p->n_files, sizeof *p->files, 8);
    for (uint32_t i = 0; i < p->n_files; i++)
        p->files[i].path = str(r), p->files[i].flags = pk_wire_get32(&r->w);
    p->functions = array_of(r, &p->n_functions, sizeof *p->functions, 24);
    for (uint32_t i = 0; i < p->n_functions; i++) {
        pk_function *f = &p->functions[i];
        f->name = str(r), f->module = index_below(r, p->n_modules);
        f->offset = pk_wire_get64(&r->w), f->file = index_below(r, p->n_files);
        f->line = pk_wire_get32(&r->w);
    }
    const char **kinds = array_of(r, &p->n_id_kinds, sizeof *kinds, 4);
    for (uint32_t i = 0; i < p->n_id_kinds; i++)
        kinds[i] = str(r);
    p->id_kind_names = kinds;
}

static void take_metrics(reader *r)
{
    pk_profile *p = r->p;
    p->metrics = array_of(r, &p->n_metrics, sizeof *p->metrics, 24);
    for (uint32_t i = 0; i < p->n_metrics; i++) {
        pk_metric *m = &p->metrics[i];
        m->name = str(r), m->description = str(r), m->unit = str(r);
        m->parent = pk_wire_get32(&r->w), m->combine = (pk_combine)pk_wire_get32(&r->w);
        m->flags = pk_wire_get32(&r->w);
    }
    for (uint32_t i = 0; i < p->n_metrics; i++)
        if (p->metrics[i].parent != PK_NONE && p->metrics[i].parent >= p->n_metrics) r->bad = 1;
    p->scopes = array_of(r, &p->n_scopes, sizeof *p->scopes, 10);
    for (uint32_t i = 0; i < p->n_scopes; i++) {
        pk_scope *s = &p->scopes[i];
        s->name = str(r), s->kind = (pk_scope_kind)pk_wire_get32(&r->w);
        s->raw_type = pk_wire_get8(&r->w), s->propagation_index = pk_wire_get8(&r->w);
    }
    p->columns = array_of(r, &p->n_columns, sizeof *p->columns, 25);
    for (uint32_t i = 0; i < p->n_columns && !r->bad && !r->nomem; i++) {
        pk_column *c = &p->columns[i];
        c->metric = index_below(r, p->n_metrics), c->scope = index_below(r, p->n_scopes);
        c->is_summary = pk_wire_get8(&r->w), c->stat = (pk_stat)pk_wire_get32(&r->w);
        c->formula = str(r), c->combine = (pk_combine)pk_wire_get32(&r->w);
        c->raw_id = pk_wire_get32(&r->w);
        /* raw ids are 16-bit in every format; a table of them is allocated */
        if (c->metric == PK_NONE || c->scope == PK_NONE || c->raw_id >= 1u << 24 || r->w.bad)
            r->bad = 1;
        if (!r->bad && pk_model_map_column(p, c->is_summary ? 1 : 0, c->raw_id, i)) r->bad = 1;
    }
}

static void take_contexts(reader *r)
{
    pk_profile *p = r->p;
    uint32_t n = pk_wire_get32(&r->w);
    if (r->w.bad || n > (r->w.n - r->w.at) / 60) r->bad = 1, n = 0;
    for (uint32_t i = 0; i < n && !r->bad && !r->nomem; i++) {
        pk_ctx_rec *c;
        uint32_t at;
        if (pk_model_add_context(p, &c, &at)) {
            r->nomem = 1;
            break;
        }
        c->id = pk_wire_get64(&r->w), c->parent = index_below(r, n);
        c->first_child = index_below(r, n), c->n_children = pk_wire_get32(&r->w);
        c->depth = pk_wire_get32(&r->w), c->function = index_below(r, p->n_functions);
        c->file = index_below(r, p->n_files), c->module = index_below(r, p->n_modules);
        c->line = pk_wire_get32(&r->w), c->offset = pk_wire_get64(&r->w);
        c->entry_name = str(r);
        c->propagation = pk_wire_get16(&r->w), c->raw_entry = pk_wire_get16(&r->w);
        c->kind = pk_wire_get8(&r->w), c->relation = pk_wire_get8(&r->w);
        c->entry = pk_wire_get8(&r->w), c->flags = pk_wire_get8(&r->w);
        c->raw_kind = pk_wire_get8(&r->w), c->raw_relation = pk_wire_get8(&r->w);
        if (c->first_child != PK_NONE && (uint64_t)c->first_child + c->n_children > n) r->bad = 1;
    }
    if (!r->bad && !r->nomem && !r->w.bad && pk_model_index_contexts(p)) r->bad = 1;
}

static void take_locations(reader *r)
{
    static const unsigned char no_samples[PK_SAMPLE_SIZE];
    pk_profile *p = r->p;
    p->locs = array_of(r, &p->n_locs, sizeof *p->locs, 13);
    for (uint32_t l = 0; l < p->n_locs && !r->bad && !r->nomem; l++) {
        pk_loc_rec *x = &p->locs[l];
        x->raw_index = pk_wire_get32(&r->w), x->is_summary = pk_wire_get8(&r->w);
        x->trace = pk_wire_get32(&r->w);
        pk_ident *ids = array_of(r, &x->n_ids, sizeof *ids, 20);
        for (uint32_t k = 0; k < x->n_ids; k++) {
            ids[k].kind = pk_wire_get16(&r->w), ids[k].kind_name = str(r);
            ids[k].flags = pk_wire_get16(&r->w), ids[k].logical = pk_wire_get32(&r->w);
            ids[k].physical = pk_wire_get64(&r->w);
        }
        x->ids = ids;
    }
    p->traces = array_of(r, &p->n_traces, sizeof *p->traces, 4);
    for (uint32_t t = 0; t < p->n_traces; t++)
        p->traces[t] = (pk_trace_rec){pk_wire_get32(&r->w), no_samples, 0};
    for (uint32_t l = 0; l < p->n_locs; l++)
        if (p->locs[l].trace != PK_NONE && p->locs[l].trace >= p->n_traces) r->bad = 1;
}

static pk_status take_attrs(reader *r)
{
    uint64_t n = pk_wire_count(&r->w, 16);
    pk_status st = PK_OK;
    for (uint64_t a = 0; a < n && !st && !r->w.bad && !r->nomem; a++) {
        uint32_t entity = pk_wire_get32(&r->w), index = pk_wire_get32(&r->w);
        const char *key = str(r), *value = str(r);
        if (!key || entity > PK_ENTITY_LOCATION) r->bad = 1;
        if (!r->bad && !r->nomem)
            st = pk_model_add_attr(r->p, (pk_entity)entity, index, key, value ? value : "",
                                   value ? strlen(value) : 0);
    }
    pk_model_sort_attrs(r->p);
    return st;
}

pk_status pk_skeleton_decode(const void *data, uint64_t len, pk_profile **out)
{
    reader r = {pk_wire_reader(data, len), NULL, 0, 0};
    pk_status st = pk_model_new(&r.p);
    if (st) return st;
    take_head(&r);
    if (!r.bad) take_names(&r);
    if (!r.bad) take_metrics(&r);
    if (!r.bad) take_contexts(&r);
    if (!r.bad) take_locations(&r);
    if (!r.bad && !r.nomem) st = take_attrs(&r);
    if (!st && (r.bad || r.w.bad || r.w.at != r.w.n))
        st = pk_fail(PK_ERR_IO, "parallel build: a profile's structure arrived damaged");
    if (!st && r.nomem) st = pk_fail_nomem("receiving a profile's structure");
    if (st) {
        pk_profile_free(r.p);
        return st;
    }
    *out = r.p;
    return PK_OK;
}
