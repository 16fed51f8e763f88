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
    pk_field f[MAX_FIELDS];
    size_t n;
    int stop;
} dumper;

static int wanted(const dumper *d, const char *section)
{
    return !d->stop && pk_namelist_has(d->sections, section);
}

static void put_u(dumper *d, const char *k, uint64_t v)
{
    d->f[d->n++] = (pk_field){k, PK_FIELD_UINT, {.u = v}};
}
static void put_x(dumper *d, const char *k, uint64_t v)
{
    d->f[d->n++] = (pk_field){k, PK_FIELD_HEX, {.u = v}};
}
static void put_s(dumper *d, const char *k, const char *v)
{
    d->f[d->n++] = (pk_field){k, PK_FIELD_STR, {.s = v}};
}
static void put_r(dumper *d, const char *k, double v)
{
    d->f[d->n++] = (pk_field){k, PK_FIELD_REAL, {.d = v}};
}
/* An id that may be absent (CUBE_NONE): printed as "-". */
static void put_id(dumper *d, const char *k, uint32_t v)
{
    if (v == CUBE_NONE)
        put_s(d, k, NULL);
    else
        put_u(d, k, v);
}

static void emit(dumper *d, uint64_t offset, const char *section, const char *type)
{
    pk_record rec = {d->file, offset, section, type, d->n, d->f};
    if (!d->stop) d->stop = d->fn(d->user, &rec);
    d->n = 0;
}

static void dump_members(dumper *d)
{
    const cube_tar *t = &d->r->tar;
    for (size_t i = 0; i < t->n && !d->stop; i++) {
        put_u(d, "index", i);
        put_s(d, "name", t->m[i].name);
        put_x(d, "size", t->m[i].size);
        emit(d, t->m[i].offset, "members", "member");
    }
}

static void dump_anchor(dumper *d)
{
    const cube_anchor *a = &d->r->a;
    const cube_member *m = cube_tar_find(&d->r->tar, "anchor.xml");
    put_s(d, "version", a->version);
    put_s(d, "metrics_title", a->metrics_title);
    put_s(d, "program_title", a->program_title);
    put_s(d, "system_title", a->system_title);
    put_u(d, "metrics", a->n_mdefs);
    put_u(d, "regions", a->n_regions);
    put_u(d, "cnodes", a->n_cnodes);
    put_u(d, "system_nodes", a->n_stns);
    put_u(d, "location_groups", a->n_groups);
    put_u(d, "locations", a->n_locs);
    put_u(d, "cube3_system", (uint64_t)a->cube3_system);
    emit(d, m ? m->offset : PK_RECORD_NO_OFFSET, "anchor", "anchor");
}

static void dump_metrics(dumper *d)
{
    const cube_anchor *a = &d->r->a;
    for (size_t i = 0; i < a->n_mdefs && !d->stop; i++) {
        const cube_mdef *m = &a->mdefs[i];
        const cube_mbuilt *b = &d->r->mb[i];
        put_u(d, "index", i);
        put_u(d, "id", m->id);
        put_id(d, "parent", m->parent == CUBE_NONE ? CUBE_NONE : a->mdefs[m->parent].id);
        put_s(d, "uniq_name", m->uniq);
        put_s(d, "disp_name", m->disp);
        put_s(d, "dtype", m->dtype);
        put_s(d, "uom", m->uom);
        put_s(d, "type", m->type);
        put_s(d, "viztype", m->viztype);
        put_s(d, "convertible", m->convertible);
        put_s(d, "cacheable", m->cacheable);
        put_u(d, "cubepl", m->cubepl && *m->cubepl);
        /* how its rows are enumerated (docs/cube.md, "Values") */
        put_s(d, "rows",
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
        put_u(d, "index", i);
        put_u(d, "id", g->id);
        put_s(d, "name", g->name);
        put_s(d, "mangled_name", g->mangled);
        put_s(d, "mod", g->mod);
        put_s(d, "begin", g->begin);
        put_s(d, "end", g->end);
        put_s(d, "paradigm", g->paradigm);
        put_s(d, "role", g->role);
        emit(d, PK_RECORD_NO_OFFSET, "regions", "region");
    }
}

static void dump_cnodes(dumper *d)
{
    const cube_anchor *a = &d->r->a;
    for (size_t i = 0; i < a->n_cnodes && !d->stop; i++) {
        const cube_cnode *c = &a->cnodes[i];
        put_u(d, "index", i);
        put_u(d, "id", c->id);
        put_id(d, "parent", c->parent == CUBE_NONE ? CUBE_NONE : a->cnodes[c->parent].id);
        put_id(d, "callee", c->has_callee ? c->callee : CUBE_NONE);
        put_s(d, "line", c->line);
        put_s(d, "mod", c->mod);
        emit(d, PK_RECORD_NO_OFFSET, "cnodes", "cnode");
    }
}

static void dump_system(dumper *d)
{
    const cube_anchor *a = &d->r->a;
    for (size_t i = 0; i < a->n_stns && !d->stop; i++) {
        put_u(d, "index", i);
        put_s(d, "name", a->stns[i].name);
        put_s(d, "class", a->stns[i].klass);
        put_id(d, "parent", a->stns[i].parent);
        emit(d, PK_RECORD_NO_OFFSET, "system", "system-node");
    }
    for (int level = 0; level < 2; level++) {
        const cube_sysres *v = level ? a->locs : a->groups;
        size_t n = level ? a->n_locs : a->n_groups;
        for (size_t i = 0; i < n && !d->stop; i++) {
            put_u(d, "index", i);
            put_u(d, "id", v[i].id);
            put_s(d, "name", v[i].name);
            put_s(d, "type", v[i].type);
            put_s(d, "rank", v[i].rank);
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
    put_u(d, "metric", d->r->a.mdefs[m].id);
    put_s(d, "uniq_name", d->r->a.mdefs[m].uniq);
    put_s(d, "member", mi->name);
    put_s(d, "endianness", j->swap ? "big" : "little");
    put_u(
        d, "version",
        (uint64_t)(j->swap ? mi->data[15] << 8 | mi->data[16] : mi->data[16] << 8 | mi->data[15]));
    put_s(d, "format", j->rows ? "sparse" : "dense");
    put_u(d, "n_rows", j->n_rows);
    emit(d, mi->offset, "index", "index");
    for (uint32_t i = 0; j->rows && i < j->n_rows && !d->stop; i++) {
        uint32_t row = row_at(j, i);
        put_u(d, "metric", d->r->a.mdefs[m].id);
        put_u(d, "position", i);
        put_u(d, "row", row);
        put_id(d, "cnode", cnode_id(d, m, row));
        emit(d, mi->offset + 22 + 4 * (uint64_t)i, "index", "index-row");
    }
}

static void dump_data(dumper *d, uint32_t m, const job *j, const cube_member *md)
{
    uint64_t row_bytes = (uint64_t)d->r->n_locs * d->r->mb[m].type.size;
    put_u(d, "metric", d->r->a.mdefs[m].id);
    put_s(d, "member", md->name);
    put_s(d, "magic", j->ztable ? "ZCUBEX.DATA" : "CUBEX.DATA");
    put_u(d, "n_rows", j->n_rows);
    put_x(d, "row_size", row_bytes);
    emit(d, md->offset, "data", "data");
    uint64_t zbase = ZHEAD + 24 * (uint64_t)j->n_rows;
    for (uint32_t i = 0; i < j->n_rows && !d->stop; i++) {
        uint32_t row = row_at(j, i);
        put_u(d, "metric", d->r->a.mdefs[m].id);
        put_u(d, "position", i);
        put_u(d, "row", row);
        put_id(d, "cnode", cnode_id(d, m, row));
        if (j->ztable) {
            const unsigned char *e = j->ztable + 24 * (uint64_t)i;
            put_x(d, "compressed_size", get64(e + 16, j->swap));
            emit(d, md->offset + zbase + get64(e + 8, j->swap), "data", "data-row");
        } else {
            put_x(d, "size", row_bytes);
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
            put_u(d, "metric", d->r->a.mdefs[m].id);
            put_id(d, "cnode", cnode_id(d, m, row));
            put_u(d, "location", loc[c]);
            if (nc > 1) put_s(d, "component", cube_component_name(t, k, buf, sizeof buf));
            put_r(d, "value", v[(size_t)c * nc + k]);
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
