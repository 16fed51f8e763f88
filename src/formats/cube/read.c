/*
 * formats/cube/read.c — opening a .cubex: detection, the archive (mapped
 * in place, or inflated when the whole tar is gzip-wrapped), anchor.xml
 * (itself possibly gzip-compressed, as Score-P 1.3 wrote it), then the
 * model and its values. A file's values stay in the archive, read in
 * place (rows.c): the profile keeps the mapping. An archive in memory the
 * caller owns has its values copied into planes, so nothing points into it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cube.h"
#include "util/error.h"
#include "util/gzip.h"
#include "util/mapfile.h"
#include "values.h"

static int cube_member_name(const char *s)
{
    if (strcmp(s, "anchor.xml") == 0 || strcmp(s, "remapping.spec") == 0) return 1;
    size_t i = 0;
    while (s[i] >= '0' && s[i] <= '9')
        i++;
    return i && (strcmp(s + i, ".index") == 0 || strcmp(s + i, ".data") == 0);
}

static int detect_bytes(const char *path, const unsigned char *d, uint64_t n)
{
    if (!cube_tar_looks_like(d, n)) return 0;
    char name[101];
    memcpy(name, d, 100), name[100] = 0;
    size_t pl = path ? strlen(path) : 0;
    return cube_member_name(name[0] == '.' && name[1] == '/' ? name + 2 : name) ||
           (pl > 6 && strcmp(path + pl - 6, ".cubex") == 0);
}

int cube_detect_file(const char *path)
{
    pk_mapfile m;
    if (pk_path_is_dir(path) || pk_map_file(path, &m)) {
        pk_error_clear();
        return 0;
    }
    int ok = 0;
    if (pk_is_gzip(m.data, m.size)) {
        unsigned char head[512];
        ok = pk_gunzip_head(m.data, m.size, head, sizeof head) == sizeof head &&
             detect_bytes(path, head, sizeof head);
    } else {
        ok = detect_bytes(path, m.data, m.size);
    }
    pk_unmap_file(&m);
    return ok;
}

/* anchor.xml: found, inflated if needed, parsed. */
static pk_status read_anchor(cube_read *r)
{
    const cube_member *m = cube_tar_find(&r->tar, "anchor.xml");
    if (!m)
        return pk_fail(PK_ERR_FORMAT, "%s: the archive has no anchor.xml member (%zu members)",
                       r->path, r->tar.n);
    if (!pk_is_gzip(m->data, m->size))
        return cube_anchor_parse(r->p, r->path, m->offset, m->data, m->size, &r->a);
    unsigned char *xml;
    uint64_t n;
    pk_status st = pk_gunzip_all(m->data, m->size, &r->budget, r->path, "anchor.xml", &xml, &n);
    if (st) return st;
    pk_model_diag(r->p, PK_SEV_NOTE, "gzip-anchor", r->path, "anchor.xml", 1, m->offset,
                  "anchor.xml is gzip-compressed (as Score-P 1.x wrote it)");
    st = cube_anchor_parse(r->p, r->path, 0, xml, n, &r->a);
    free(xml);
    pk_budget_release(&r->budget, n);
    return st;
}

static void set_version(pk_profile *p, const char *v)
{
    unsigned major = 0, minor = 0;
    if (v && sscanf(v, "%u.%u", &major, &minor) >= 1) p->major = major, p->minor = minor;
}

/* What the model of the anchor's definitions costs (about 400 bytes a
 * cnode, location, region, ... measured), charged as far as it passes the
 * file's size: an anchor holds each in 40 bytes or more of XML, but
 * compressed (a gzip-wrapped archive, a gzip anchor) in 4, so 240,000
 * cnodes and locations in a 1.8 MB file took 193 MB. */
#define MODEL_BYTES_PER_DEFINITION 400

static pk_status charge_model(cube_read *r)
{
    const cube_anchor *a = &r->a;
    uint64_t defs = (uint64_t)a->n_cnodes + a->n_locs + a->n_regions + a->n_stns + a->n_groups +
                    a->n_mdefs + a->n_attrs;
    uint64_t bytes = defs * MODEL_BYTES_PER_DEFINITION;
    if (bytes <= r->budget.input) return PK_OK;
    return pk_budget_charge(&r->budget, bytes - r->budget.input,
                            "%s: anchor.xml: the model of its %llu definitions (cnodes, locations, "
                            "regions, ...) at about %d bytes each",
                            r->path, (unsigned long long)defs, MODEL_BYTES_PER_DEFINITION);
}

pk_status cube_read_structure(cube_read *r, const unsigned char *d, uint64_t n)
{
    pk_status st = cube_tar_index(r->p, r->path, d, n, &r->tar);
    if (!st && r->tar.truncated)
        pk_model_diag(r->p, PK_SEV_NOTE, "tar-end", r->path, "tar archive", 1, n,
                      "the archive ends without its end-of-archive blocks");
    if (!st) st = read_anchor(r);
    if (!st) st = charge_model(r);
    if (!st) set_version(r->p, r->a.version);
    if (!st && r->p->major != 3 && r->p->major != 4)
        st = pk_fail(PK_ERR_UNSUPPORTED,
                     "%s: anchor.xml declares Cube version %s; profkit reads "
                     "Cube 3 and 4 anchors",
                     r->path, r->a.version ? r->a.version : "(none)");
    if (!st) st = cube_build_model(r);
    return st;
}

static pk_status read_archive(cube_read *r, const unsigned char *d, uint64_t n)
{
    pk_status st = cube_read_structure(r, d, n);
    if (!st) st = cube_read_values(r);
    return st;
}

void cube_read_free(cube_read *r)
{
    cube_tar_free(&r->tar);
    cube_anchor_free(&r->a);
    free(r->mb), free(r->ctx_of), free(r->bucket_of), free(r->wide), free(r->loc_col);
}

/* The row store's archive to the profile: the mapping (moved out of *map)
 * into the cubex source record, an inflated tar to the store. */
static void hand_over(pk_profile *p, cube_read *r, pk_source_rec *src, pk_mapfile *map,
                      unsigned char **tar)
{
    if (!p->rows) return;
    if (*tar) {
        r->store->tar = *tar, *tar = NULL;
        return; /* nothing points into the mapping */
    }
    src->map = *map;
    *map = (pk_mapfile){0};
    r->store->map = r->store->r.map = &src->map;
}

/* `map`: the mapping `d` lies in, which the profile may keep (then it is
 * moved out), or NULL for the caller's memory. */
static pk_status open_bytes(const char *path, const unsigned char *d, uint64_t n,
                            const pk_open_options *opts, pk_mapfile *map, pk_profile **out)
{
    pk_profile *p;
    pk_status st = pk_model_new(&p);
    if (st) return st;
    cube_read r = {.p = p, .flags = opts ? opts->flags : 0, .keep_rows = map != NULL};
    pk_budget_init(&r.budget, opts ? opts->max_memory : 0, n);
    r.path = p->path = pk_intern_cstr(&p->strings, path);
    unsigned char *tar = NULL;
    uint64_t tar_n = n;
    if (!r.path) st = pk_fail_nomem("opening");
    if (!st && pk_is_gzip(d, n)) {
        st = pk_gunzip_all(d, n, &r.budget, path, "gzip-wrapped archive", &tar, &tar_n);
        d = tar;
    }
    r.archive_bytes = tar_n;
    r.map = map && !tar ? map : NULL;
    if (!st) st = read_archive(&r, d, tar_n);
    pk_source_rec *src = st ? NULL : pk_model_add_source(p, "cubex");
    if (src) *src = (pk_source_rec){"cubex", 1, 1, n, p->major, p->minor, {0}};
    if (src) hand_over(p, &r, src, map, &tar);
    if (r.store && !p->rows) cube_store_free(r.store); /* made, never attached */
    if (!st && !src && p->rows) st = pk_fail(PK_ERR_NOMEM, "%s: no room for the archive", path);
    p->format = PK_FORMAT_CUBE, p->format_name = "cube";
    p->title = r.a.program_title;
    pk_model_sort_attrs(p);
    if (!st) st = pk_model_finish_diagnostics(p);
    cube_read_free(&r);
    free(tar);
    if (st) {
        pk_profile_free(p);
        return st;
    }
    *out = p;
    return PK_OK;
}

pk_status cube_open(const char *path, const pk_open_options *opts, pk_profile **out)
{
    pk_mapfile m;
    pk_status st = pk_map_file(path, &m);
    if (st) return st;
    /* values are read in place, a column's pages at a time (rows.c) */
    st = open_bytes(path, m.data, m.size, opts, &m, out);
    pk_unmap_file(&m);
    return st;
}

pk_status cube_open_memory(const char *name, const void *data, uint64_t size,
                           const pk_open_options *opts, pk_profile **out)
{
    return open_bytes(name ? name : "memory.cubex", data ? data : (const void *)"", size, opts,
                      NULL, out);
}
