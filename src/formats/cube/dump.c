/*
 * formats/cube/dump.c — `profkit dump` of a Cube4 .cubex archive: its tar
 * members with their byte offsets, what anchor.xml declares (metrics,
 * regions, call tree, system tree), and each metric's N.index and N.data
 * with the byte offset of every index entry and data row, then the
 * values a row holds (docs/dump.md, "Cube").
 *
 * The records come from the reader's own checked steps (tar.c, anchor.c,
 * build.c, data.c): a damaged archive fails the dump with the error the
 * reader gives, after the records read before the damage. Offsets are
 * bytes of the archive (of the inflated tar when the whole file is
 * gzip-wrapped); compressed ZCUBEX rows give their stream's offset.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cube.h"
#include "formats/dump_fields.h"
#include "util/error.h"
#include "util/gzip.h"
#include "util/mapfile.h"
#include "util/namelist.h"
#include "values.h"

const char *const cube_section_names[] = {"members", "anchor", "metrics", "regions", "cnodes",
                                          "system",  "index",  "data",    "values",  NULL};

#define MAX_FIELDS 20
#define ZHEAD      19 /* "ZCUBEX.DATA" and the row count */

typedef struct dumper {
    cube_read *r;
    const char *file; /* the archive's base name, for the records */
    pk_record_fn fn;
    void *user;
    const char *sections;
    pk_field buf[MAX_FIELDS];
    pk_dump_fields row; /* of buf */
    int stop;
} dumper;

static int wanted(const dumper *d, const char *section)
{
    return !d->stop && pk_namelist_has(d->sections, section);
}

/* An id that may be absent (CUBE_NONE): printed as "-". */
static void put_id(dumper *d, const char *k, uint32_t v)
{
    if (v == CUBE_NONE)
        pk_dump_s(&d->row, k, NULL);
    else
        pk_dump_u(&d->row, k, v);
}

static void emit(dumper *d, uint64_t offset, const char *section, const char *type)
{
    pk_record rec = {d->file, offset, section, type, d->row.n, d->row.f};
    if (!d->stop) d->stop = d->fn(d->user, &rec);
    d->row.n = 0;
}

static void dump_members(dumper *d)
{
    const cube_tar *t = &d->r->tar;
    for (size_t i = 0; i < t->n && !d->stop; i++) {
        pk_dump_u(&d->row, "index", i);
        pk_dump_s(&d->row, "name", t->m[i].name);
        pk_dump_x(&d->row, "size", t->m[i].size);
        emit(d, t->m[i].offset, "members", "member");
    }
}

static void dump_anchor(dumper *d)
{
    const cube_anchor *a = &d->r->a;
    const cube_member *m = cube_tar_find(&d->r->tar, "anchor.xml");
    pk_dump_s(&d->row, "version", a->version);
    pk_dump_s(&d->row, "metrics_title", a->metrics_title);
    pk_dump_s(&d->row, "program_title", a->program_title);
    pk_dump_s(&d->row, "system_title", a->system_title);
    pk_dump_u(&d->row, "metrics", a->n_mdefs);
    pk_dump_u(&d->row, "regions", a->n_regions);
    pk_dump_u(&d->row, "cnodes", a->n_cnodes);
    pk_dump_u(&d->row, "system_nodes", a->n_stns);
    pk_dump_u(&d->row, "location_groups", a->n_groups);
    pk_dump_u(&d->row, "locations", a->n_locs);
    pk_dump_u(&d->row, "cube3_system", (uint64_t)a->cube3_system);
    emit(d, m ? m->offset : PK_RECORD_NO_OFFSET, "anchor", "anchor");
}

static void dump_metrics(dumper *d)
{
    const cube_anchor *a = &d->r->a;
    for (size_t i = 0; i < a->n_mdefs && !d->stop; i++) {
        const cube_mdef *m = &a->mdefs[i];
        const cube_mbuilt *b = &d->r->mb[i];
        pk_dump_u(&d->row, "index", i);
        pk_dump_u(&d->row, "id", m->id);
        put_id(d, "parent", m->parent == CUBE_NONE ? CUBE_NONE : a->mdefs[m->parent].id);
        pk_dump_s(&d->row, "uniq_name", m->uniq);
        pk_dump_s(&d->row, "disp_name", m->disp);
        pk_dump_s(&d->row, "dtype", m->dtype);
        pk_dump_s(&d->row, "uom", m->uom);
        pk_dump_s(&d->row, "type", m->type);
        pk_dump_s(&d->row, "viztype", m->viztype);
        pk_dump_s(&d->row, "convertible", m->convertible);
        pk_dump_s(&d->row, "cacheable", m->cacheable);
        pk_dump_u(&d->row, "cubepl", m->cubepl && *m->cubepl);
        /* how its rows are enumerated (docs/cube.md, "Values") */
        pk_dump_s(&d->row, "rows",
                  b->derived || b->type.dt == DT_UNKNOWN ? NULL
                  : b->inclusive                         ? "wide-search"
                                                         : "depth-first");
        emit(d, PK_RECORD_NO_OFFSET, "metrics", "metric");
    }
}

static void dump_regions(dumper *d)
{
    const cube_anchor *a = &d->r->a;
    for (size_t i = 0; i < a->n_regions && !d->stop; i++) {
        const cube_region *g = &a->regions[i];
        pk_dump_u(&d->row, "index", i);
        pk_dump_u(&d->row, "id", g->id);
        pk_dump_s(&d->row, "name", g->name);
        pk_dump_s(&d->row, "mangled_name", g->mangled);
        pk_dump_s(&d->row, "mod", g->mod);
        pk_dump_s(&d->row, "begin", g->begin);
        pk_dump_s(&d->row, "end", g->end);
        pk_dump_s(&d->row, "paradigm", g->paradigm);
        pk_dump_s(&d->row, "role", g->role);
        emit(d, PK_RECORD_NO_OFFSET, "regions", "region");
    }
}

static void dump_cnodes(dumper *d)
{
    const cube_anchor *a = &d->r->a;
    for (size_t i = 0; i < a->n_cnodes && !d->stop; i++) {
        const cube_cnode *c = &a->cnodes[i];
        pk_dump_u(&d->row, "index", i);
        pk_dump_u(&d->row, "id", c->id);
        put_id(d, "parent", c->parent == CUBE_NONE ? CUBE_NONE : a->cnodes[c->parent].id);
        put_id(d, "callee", c->has_callee ? c->callee : CUBE_NONE);
        pk_dump_s(&d->row, "line", c->line);
        pk_dump_s(&d->row, "mod", c->mod);
        emit(d, PK_RECORD_NO_OFFSET, "cnodes", "cnode");
    }
}

static void dump_system(dumper *d)
{
    const cube_anchor *a = &d->r->a;
    for (size_t i = 0; i < a->n_stns && !d->stop; i++) {
        pk_dump_u(&d->row, "index", i);
        pk_dump_s(&d->row, "name", a->stns[i].name);
        pk_dump_s(&d->row, "class", a->stns[i].klass);
        put_id(d, "parent", a->stns[i].parent);
        emit(d, PK_RECORD_NO_OFFSET, "system", "system-node");
    }
    for (int level = 0; level < 2; level++) {
        const cube_sysres *v = level ? a->locs : a->groups;
        size_t n = level ? a->n_locs : a->n_groups;
        for (size_t i = 0; i < n && !d->stop; i++) {
            pk_dump_u(&d->row, "index", i);
            pk_dump_u(&d->row, "id", v[i].id);
            pk_dump_s(&d->row, "name", v[i].name);
            pk_dump_s(&d->row, "type", v[i].type);
            pk_dump_s(&d->row, "rank", v[i].rank);
            put_id(d, level ? "group" : "system_node", v[i].parent);
            emit(d, PK_RECORD_NO_OFFSET, "system", level ? "location" : "location-group");
        }
    }
}

/* The cnode id of row `row` of metric definition m. */
static uint32_t cnode_id(const dumper *d, uint32_t m, uint32_t row)
{
    uint32_t def = cnode_of_row(d->r, &d->r->mb[m], row);
    return def < d->r->a.n_cnodes ? d->r->a.cnodes[def].id : CUBE_NONE;
}

static uint32_t row_at(const job *j, uint32_t i)
{
    return j->rows ? get32(j->rows + 4 * (size_t)i, j->swap) : i;
}

static void dump_index(dumper *d, uint32_t m, const job *j, const cube_member *mi)
{
    pk_dump_u(&d->row, "metric", d->r->a.mdefs[m].id);
    pk_dump_s(&d->row, "uniq_name", d->r->a.mdefs[m].uniq);
    pk_dump_s(&d->row, "member", mi->name);
    pk_dump_s(&d->row, "endianness", j->swap ? "big" : "little");
    pk_dump_u(
        &d->row, "version",
        (uint64_t)(j->swap ? mi->data[15] << 8 | mi->data[16] : mi->data[16] << 8 | mi->data[15]));
    pk_dump_s(&d->row, "format", j->rows ? "sparse" : "dense");
    pk_dump_u(&d->row, "n_rows", j->n_rows);
    emit(d, mi->offset, "index", "index");
    for (uint32_t i = 0; j->rows && i < j->n_rows && !d->stop; i++) {
        uint32_t row = row_at(j, i);
        pk_dump_u(&d->row, "metric", d->r->a.mdefs[m].id);
        pk_dump_u(&d->row, "position", i);
        pk_dump_u(&d->row, "row", row);
        put_id(d, "cnode", cnode_id(d, m, row));
        emit(d, mi->offset + 22 + 4 * (uint64_t)i, "index", "index-row");
    }
}

static void dump_data(dumper *d, uint32_t m, const job *j, const cube_member *md)
{
    uint64_t row_bytes = (uint64_t)d->r->n_locs * d->r->mb[m].type.size;
    pk_dump_u(&d->row, "metric", d->r->a.mdefs[m].id);
    pk_dump_s(&d->row, "member", md->name);
    pk_dump_s(&d->row, "magic", j->ztable ? "ZCUBEX.DATA" : "CUBEX.DATA");
    pk_dump_u(&d->row, "n_rows", j->n_rows);
    pk_dump_x(&d->row, "row_size", row_bytes);
    emit(d, md->offset, "data", "data");
    uint64_t zbase = ZHEAD + 24 * (uint64_t)j->n_rows;
    for (uint32_t i = 0; i < j->n_rows && !d->stop; i++) {
        uint32_t row = row_at(j, i);
        pk_dump_u(&d->row, "metric", d->r->a.mdefs[m].id);
        pk_dump_u(&d->row, "position", i);
        pk_dump_u(&d->row, "row", row);
        put_id(d, "cnode", cnode_id(d, m, row));
        if (j->ztable) {
            const unsigned char *e = j->ztable + 24 * (uint64_t)i;
            pk_dump_x(&d->row, "compressed_size", get64(e + 16, j->swap));
            emit(d, md->offset + zbase + get64(e + 8, j->swap), "data", "data-row");
        } else {
            pk_dump_x(&d->row, "size", row_bytes);
            emit(d, md->offset + 10 + i * row_bytes, "data", "data-row");
        }
    }
}

/* The location id of each data column (columns follow location ids). */
static uint32_t *column_locations(const cube_read *r)
{
    uint32_t *loc = malloc((r->n_locs + 1) * sizeof *loc);
    for (uint32_t k = 0; loc && k < r->a.n_locs; k++)
        if (r->loc_col[k] < r->n_locs) loc[r->loc_col[k]] = r->a.locs[k].id;
    return loc;
}

/* Every non-zero value of one row: its cnode, location and component. */
static void dump_row_values(dumper *d, uint32_t m, uint32_t row, const double *v,
                            const uint32_t *loc, uint64_t at, uint32_t size)
{
    const cube_dtype *t = &d->r->mb[m].type;
    uint32_t nc = t->n_comp ? t->n_comp : 1;
    char buf[32];
    for (uint32_t c = 0; c < d->r->n_locs && !d->stop; c++) {
        for (uint32_t k = 0; k < nc && !d->stop; k++) {
            if (v[(size_t)c * nc + k] == 0) continue;
            pk_dump_u(&d->row, "metric", d->r->a.mdefs[m].id);
            put_id(d, "cnode", cnode_id(d, m, row));
            pk_dump_u(&d->row, "location", loc[c]);
            if (nc > 1) pk_dump_s(&d->row, "component", cube_component_name(t, k, buf, sizeof buf));
            pk_dump_r(&d->row, "value", v[(size_t)c * nc + k]);
            emit(d, at == PK_RECORD_NO_OFFSET ? at : at + (uint64_t)c * size, "values", "value");
        }
    }
}

static pk_status dump_values(dumper *d, uint32_t m, const job *j, const cube_member *md)
{
    const cube_dtype *t = &d->r->mb[m].type;
    uint64_t row_bytes = (uint64_t)d->r->n_locs * t->size;
    uint32_t nc = t->n_comp ? t->n_comp : 1;
    unsigned char *raw = j->ztable ? malloc(row_bytes + 1) : NULL;
    double *v = malloc(((size_t)d->r->n_locs * nc + 1) * sizeof *v);
    uint32_t *loc = column_locations(d->r);
    pk_status st = (j->ztable && !raw) || !v || !loc ? pk_fail_nomem("dumping Cube values") : PK_OK;
    for (uint32_t i = 0; !st && i < j->n_rows && !d->stop; i++) {
        const unsigned char *bytes = j->ztable ? raw : j->data + i * row_bytes;
        if (j->ztable) cube_zrow(j, i, row_bytes, raw);
        cube_decode(t, j->swap, bytes, d->r->n_locs, v);
        uint64_t at = j->ztable ? PK_RECORD_NO_OFFSET : md->offset + 10 + i * row_bytes;
        dump_row_values(d, m, row_at(j, i), v, loc, at, t->size);
    }
    free(raw), free(v), free(loc);
    return st;
}

/* Each metric with data: its index, its rows, their values. */
static pk_status dump_metric_data(dumper *d)
{
    cube_read *r = d->r;
    unsigned char *seen = malloc(r->a.n_cnodes + 1);
    if (!seen) return pk_fail_nomem("dumping Cube data");
    pk_status st = PK_OK;
    for (uint32_t m = 0; m < r->a.n_mdefs && !st && !d->stop; m++) {
        if (r->mb[m].column == PK_NONE) continue; /* derived, or a type without values */
        job j;
        st = cube_locate(r, m, &j, seen);
        char name[32];
        snprintf(name, sizeof name, "%u.index", r->a.mdefs[m].id);
        const cube_member *mi = cube_tar_find(&r->tar, name);
        snprintf(name, sizeof name, "%u.data", r->a.mdefs[m].id);
        const cube_member *md = cube_tar_find(&r->tar, name);
        if (!st && mi && md && (j.data || j.ztable)) {
            if (wanted(d, "index")) dump_index(d, m, &j, mi);
            if (wanted(d, "data")) dump_data(d, m, &j, md);
            if (wanted(d, "values")) st = dump_values(d, m, &j, md);
        }
        free(j.inflated), free(j.own_rows);
    }
    free(seen);
    return st;
}

static pk_status dump_archive(dumper *d, const unsigned char *bytes, uint64_t n)
{
    pk_status st = cube_read_structure(d->r, bytes, n);
    /* members first, even when anchor.xml turns out damaged */
    if (d->r->tar.n && wanted(d, "members")) dump_members(d);
    if (st) return st;
    if (wanted(d, "anchor")) dump_anchor(d);
    if (wanted(d, "metrics")) dump_metrics(d);
    if (wanted(d, "regions")) dump_regions(d);
    if (wanted(d, "cnodes")) dump_cnodes(d);
    if (wanted(d, "system")) dump_system(d);
    if (wanted(d, "index") || wanted(d, "data") || wanted(d, "values")) st = dump_metric_data(d);
    return st;
}

static pk_status dump_bytes(const char *path, const unsigned char *data, uint64_t size,
                            uint64_t max_memory, pk_record_fn fn, void *user, const char *sections)
{
    pk_profile *p;
    pk_status st = pk_model_new(&p);
    if (st) return st;
    /* keep_rows: compressed rows stay so, inflated one at a time */
    cube_read r = {.p = p, .keep_rows = 1};
    pk_budget_init(&r.budget, max_memory, size);
    r.path = p->path = pk_intern_cstr(&p->strings, path);
    const char *base = strrchr(path, '/');
    dumper d = {
        .r = &r, .file = base ? base + 1 : path, .fn = fn, .user = user, .sections = sections};
    d.row = (pk_dump_fields){d.buf, 0, MAX_FIELDS};
    unsigned char *tar = NULL;
    uint64_t n = size;
    if (!r.path) st = pk_fail_nomem("dumping");
    if (!st && pk_is_gzip(data, size)) {
        st = pk_gunzip_all(data, size, &r.budget, path, "gzip-wrapped archive", &tar, &n);
        data = tar;
    }
    r.archive_bytes = n;
    if (!st) st = dump_archive(&d, data, n);
    cube_read_free(&r);
    free(tar);
    pk_profile_free(p);
    return st;
}

pk_status cube_dump(const char *path, uint64_t max_memory, pk_record_fn fn, void *user,
                    const char *sections)
{
    pk_mapfile m;
    pk_status st = pk_map_file(path, &m);
    if (st) return st;
    st = dump_bytes(path, m.data, m.size, max_memory, fn, user, sections);
    pk_unmap_file(&m);
    return st;
}

pk_status cube_dump_memory(const char *name, const void *data, uint64_t size, pk_record_fn fn,
                           void *user, const char *sections)
{
    return dump_bytes(name ? name : "memory.cubex", data ? data : (const void *)"", size, 0, fn,
                      user, sections);
}
