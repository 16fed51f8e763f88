/*
 * formats/hpcrun/dump.c — `profkit dump --json` (and --section) for hpcrun
 * measurement files: the parsed structures as pk_records, like every other
 * format's dump (docs/dump.md). The plain-text dump of these files is
 * hpcproftt's layout instead (print.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/dump_fields.h"
#include "formats/hpcrun/hr_dump.h"
#include "util/error.h"
#include "util/mapfile.h"
#include "util/namelist.h"

const char *const hr_section_names[] = {"header",    "epochs", "loadmap", "metrics", "cct",
                                        "id-tuples", "values", "footer",  "trace",   NULL};

#define MAX_FIELDS 24

typedef struct dumper {
    const char *file;
    const uint8_t *base;
    pk_record_fn fn;
    void *user;
    const char *sections;
    pk_arena *a;
    pk_field buf[MAX_FIELDS];
    pk_dump_fields row; /* of buf */
    int stop;
} dumper;

static int wanted(const dumper *d, const char *section)
{
    return pk_namelist_has(d->sections, section);
}

/* File strings are not NUL-terminated: copy (up to an embedded NUL). */
static void put_s(dumper *d, const char *k, hr_str s)
{
    size_t n = s.len ? strnlen(s.p, s.len) : 0;
    pk_dump_s(&d->row, k, pk_arena_strndup(d->a, s.len ? s.p : "", n));
}
/* Signed ids (02/03 leaves are negative) as the file's 32-bit value. */
static void put_i(dumper *d, const char *k, int32_t v)
{
    if (v >= 0)
        pk_dump_u(&d->row, k, (uint64_t)v);
    else
        pk_dump_r(&d->row, k, (double)v);
}

static void emit(dumper *d, uint64_t offset, const char *section, const char *type)
{
    pk_record r = {d->file, offset, section, type, d->row.n, d->row.f};
    if (!d->stop) d->stop = d->fn(d->user, &r);
    d->row.n = 0;
}

static void dump_nvpairs(dumper *d, const char *section, const hr_nvpairs *nv)
{
    for (uint32_t i = 0; i < nv->n; i++) {
        put_s(d, "name", nv->v[i].name);
        put_s(d, "value", nv->v[i].value);
        emit(d, (uint64_t)((const uint8_t *)nv->v[i].name.p - d->base) - 4, section, "nvpair");
    }
}

static void dump_metric(dumper *d, const hr_metric *m, uint32_t id)
{
    pk_dump_u(&d->row, "id", id);
    put_s(d, "name", m->name);
    put_s(d, "description", m->desc);
    pk_dump_u(&d->row, "type", m->type);
    pk_dump_u(&d->row, "val_ty", m->val_ty);
    pk_dump_u(&d->row, "val_fmt", m->val_fmt);
    pk_dump_u(&d->row, "move2proc", m->move2proc);
    pk_dump_u(&d->row, "partner", m->partner);
    pk_dump_u(&d->row, "show", m->show);
    pk_dump_b(&d->row, "show_percent", m->show_percent);
    pk_dump_x(&d->row, "raw_flags_0", pk_be64(m->raw_flags));
    pk_dump_x(&d->row, "raw_flags_1", pk_be64(m->raw_flags + 8));
    pk_dump_b(&d->row, "old_layout", m->old_layout);
    pk_dump_u(&d->row, "period", m->period);
    put_s(d, "formula", m->formula);
    put_s(d, "format", m->format);
    pk_dump_u(&d->row, "is_frequency", m->is_frequency);
    pk_dump_u(&d->row, "is_multiplexed", m->is_multiplexed);
    pk_dump_r(&d->row, "threshold_mean", m->threshold_mean);
    pk_dump_u(&d->row, "num_samples", m->num_samples);
    emit(d, m->offset, "metrics", "metric");
}

static void put_word(dumper *d, uint64_t w, const hr_metric *m)
{
    pk_dump_x(&d->row, "word", w);
    if (m->val_fmt == HR_VALFMT_INT)
        pk_dump_u(&d->row, "value", w);
    else
        pk_dump_r(&d->row, "value", hr_word_real(w));
}

static void dump_node(dumper *d, const hr_epoch *e, const hr_cct_node *x)
{
    if (wanted(d, "cct")) {
        put_i(d, "id", x->id);
        put_i(d, "parent", x->parent);
        pk_dump_u(&d->row, "lm_id", x->lm_id);
        pk_dump_x(&d->row, "lm_ip", x->lm_ip);
        pk_dump_b(&d->row, "unwound", x->unwound);
        if (x->has_lush) {
            pk_dump_x(&d->row, "lush_assoc", x->lush_assoc);
            pk_dump_x(&d->row, "lip_0", x->lip[0]);
            pk_dump_x(&d->row, "lip_1", x->lip[1]);
        }
        if (x->lm_id == HR_PLACEHOLDER_LM) {
            char ph[9];
            for (int i = 0; i < 8; i++)
                ph[i] = (char)(x->lm_ip >> (56 - 8 * i));
            ph[8] = '\0';
            pk_dump_s(&d->row, "placeholder", pk_arena_strndup(d->a, ph, 8));
            pk_dump_s(&d->row, "placeholder_name", hr_placeholder_name(x->lm_ip));
        }
        emit(d, x->offset, "cct", "node");
    }
    if (!x->dense || !wanted(d, "values")) return;
    uint64_t at = (uint64_t)(x->dense - d->base);
    for (uint32_t m = 0; m < e->n_metrics; m++) {
        put_i(d, "node", x->id);
        pk_dump_u(&d->row, "metric", m);
        put_word(d, hr_dense_value(x, m), &e->metrics[m]);
        emit(d, at + 8 * (uint64_t)m, "values", "value");
    }
}

static void dump_epoch(dumper *d, const hr_file *f, uint32_t k)
{
    const hr_epoch *e = &f->epochs[k];
    if (!f->has_sparse && wanted(d, "epochs")) {
        pk_dump_u(&d->row, "index", k);
        pk_dump_x(&d->row, "flags", e->flags);
        pk_dump_u(&d->row, "granularity", e->granularity);
        pk_dump_u(&d->row, "ra_distance", e->ra_distance);
        pk_dump_u(&d->row, "n_metrics", e->n_metrics);
        pk_dump_u(&d->row, "n_modules", e->n_loadmap);
        pk_dump_u(&d->row, "n_nodes", e->n_nodes);
        emit(d, e->offset, "epochs", "epoch");
        dump_nvpairs(d, "epochs", &e->nvps);
    }
    for (uint32_t i = 0; i < e->n_loadmap && wanted(d, "loadmap"); i++) {
        pk_dump_u(&d->row, "id", e->loadmap[i].id);
        put_s(d, "path", e->loadmap[i].path);
        pk_dump_x(&d->row, "flags", e->loadmap[i].flags);
        emit(d, e->loadmap[i].offset, "loadmap", "module");
    }
    for (uint32_t i = 0; i < e->n_metrics && wanted(d, "metrics"); i++)
        dump_metric(d, &e->metrics[i], i);
    for (uint64_t i = 0; i < e->n_nodes && !d->stop; i++)
        dump_node(d, e, &e->nodes[i]);
}

static void dump_sparse(dumper *d, const hr_file *f)
{
    const hr_sparse *s = &f->sparse;
    if (wanted(d, "id-tuples")) {
        for (uint16_t i = 0; i < f->n_idkinds; i++) {
            pk_dump_u(&d->row, "kind", f->idkinds[i].kind);
            put_s(d, "name", f->idkinds[i].name);
            emit(d, (uint64_t)((const uint8_t *)f->idkinds[i].name.p - d->base) - 6, "id-tuples",
                 "id-kind");
        }
        pk_dump_u(&d->row, "n_ids", s->idtuple.n);
        emit(d, s->idtuple.offset, "id-tuples", "id-tuple");
        for (uint16_t i = 0; i < s->idtuple.n; i++) {
            const hr_id *x = &s->idtuple.ids[i];
            pk_dump_u(&d->row, "kind", x->kind);
            pk_dump_u(&d->row, "interpretation", x->interp);
            pk_dump_u(&d->row, "physical", x->physical);
            pk_dump_u(&d->row, "logical", x->logical);
            emit(d, s->idtuple.offset + 2 + 18 * (uint64_t)i, "id-tuples", "id");
        }
    }
    if (!wanted(d, "values")) return;
    for (uint32_t k = 0; k < s->n_nz_nodes && !d->stop; k++) {
        uint32_t id, next;
        uint64_t start, end;
        hr_sparse_index(s, k, &id, &start);
        hr_sparse_index(s, k + 1, &next, &end);
        pk_dump_u(&d->row, "node", id);
        pk_dump_u(&d->row, "start", start);
        emit(d, s->index_offset + (uint64_t)k * HR_SPARSE_INDEX_SIZE, "values", "node-index");
        for (uint64_t j = start; j < end; j++) {
            uint16_t m;
            uint64_t w;
            hr_sparse_value(s, j, &m, &w);
            pk_dump_u(&d->row, "node", id);
            pk_dump_u(&d->row, "metric", m);
            put_word(d, w, &f->epochs[0].metrics[m]);
            emit(d, s->values_offset + j * HR_SPARSE_VALUE_SIZE, "values", "value");
        }
    }
}

static void dump_footer(dumper *d, const hr_footer *ft)
{
    static const char *const keys[12] = {"hdr_start",     "hdr_end",      "loadmap_start",
                                         "loadmap_end",   "cct_start",    "cct_end",
                                         "metrics_start", "metrics_end",  "iddict_start",
                                         "iddict_end",    "sparse_start", "sparse_end"};
    const hr_span *spans[6] = {&ft->hdr,     &ft->loadmap, &ft->cct,
                               &ft->metrics, &ft->iddict,  &ft->sparse};
    for (int i = 0; i < 6; i++) {
        pk_dump_x(&d->row, keys[2 * i], spans[i]->start);
        pk_dump_x(&d->row, keys[2 * i + 1], spans[i]->end);
    }
    pk_dump_x(&d->row, "footer_start", ft->footer_start);
    pk_dump_x(&d->row, "magic", ft->magic);
    emit(d, ft->footer_start, "footer", "footer");
}

static void dump_profile(dumper *d, const hr_file *f)
{
    if (wanted(d, "header")) {
        pk_dump_s(&d->row, "version", f->version);
        pk_dump_s(&d->row, "endian", pk_arena_strndup(d->a, &f->endian, 1));
        pk_dump_u(&d->row, "n_epochs", f->n_epochs);
        emit(d, f->has_sparse ? f->footer.hdr.start : 0, "header", "header");
        dump_nvpairs(d, "header", &f->hdr);
    }
    for (uint32_t k = 0; k < f->n_epochs && !d->stop; k++)
        dump_epoch(d, f, k);
    if (!f->has_sparse) return;
    dump_sparse(d, f);
    if (wanted(d, "footer")) dump_footer(d, &f->footer);
}

static void dump_trace(dumper *d, const hr_trace *t)
{
    if (!wanted(d, "trace")) return;
    pk_dump_s(&d->row, "version", t->version);
    pk_dump_s(&d->row, "endian", pk_arena_strndup(d->a, &t->endian, 1));
    pk_dump_x(&d->row, "flags", t->flags);
    pk_dump_u(&d->row, "n_records", t->n_records);
    emit(d, 0, "trace", "trace-header");
    for (uint64_t i = 0; i < t->n_records && !d->stop; i++) {
        uint64_t time;
        uint32_t id, metric;
        hr_trace_record(t, i, &time, &id, &metric);
        pk_dump_u(&d->row, "time", time);
        pk_dump_u(&d->row, "node", id);
        if (t->flags & HR_TRACE_DATA_CENTRIC) pk_dump_u(&d->row, "metric", metric);
        emit(d, t->header_size + i * t->record_size, "trace", "sample");
    }
}

pk_status hr_dump_memory(const char *name, const void *data, uint64_t size, pk_record_fn fn,
                         void *user, const char *sections)
{
    pk_arena a;
    pk_arena_init(&a);
    const char *slash = strrchr(name, '/');
    dumper d = {slash ? slash + 1 : name, data, fn, user, sections, &a, {{0}}, {0}, 0};
    d.row = (pk_dump_fields){d.buf, 0, MAX_FIELDS};
    pk_status st;
    if (hr_detect(data, size) == HR_KIND_TRACE) {
        hr_trace t;
        if (!(st = hr_trace_parse(name, data, size, &t))) dump_trace(&d, &t);
    } else {
        hr_file f;
        if (!(st = hr_parse(name, data, size, &a, &f))) dump_profile(&d, &f);
    }
    pk_arena_free(&a);
    return st;
}

pk_status hr_dump(const char *path, pk_record_fn fn, void *user, const char *sections)
{
    pk_mapfile m;
    pk_status st = pk_map_file(path, &m);
    if (st) return st;
    st = hr_dump_memory(path, m.data, m.size, fn, user, sections);
    pk_unmap_file(&m);
    return st;
}
