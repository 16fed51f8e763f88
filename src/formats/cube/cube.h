/*
 * formats/cube/cube.h — the Cube4 (.cubex) module: reader entry points
 * and the state shared by its parts (tar.c, anchor.c, build.c, data.c,
 * read.c, write*.c). docs/cube.md describes how Cube maps onto the model.
 */
#ifndef PK_FORMATS_CUBE_CUBE_H
#define PK_FORMATS_CUBE_CUBE_H

#include "anchor.h"
#include "profkit/dump.h"
#include "profkit/write.h"
#include "tar.h"
#include "util/budget.h"

/* A Cube data type: how one value is stored and into how many model
 * metrics ("components") it unfolds. */
typedef enum cube_dt {
    DT_F64,
    DT_I8,
    DT_U8,
    DT_I16,
    DT_U16,
    DT_I32,
    DT_U32,
    DT_I64,
    DT_U64,
    DT_COMPLEX,
    DT_RATE,
    DT_TAU,
    DT_NDOUBLES,
    DT_HISTOGRAM,
    DT_UNKNOWN,
} cube_dt;

typedef struct cube_dtype {
    cube_dt dt;
    uint32_t size;   /* bytes per value */
    uint32_t n_comp; /* model metrics it unfolds into */
    pk_combine combine;
} cube_dtype;

/* Parse a <dtype> string; DT_UNKNOWN (size 0) for SCALE_FUNC and others. */
cube_dtype cube_parse_dtype(const char *s);
/* Name of component k of a dtype ("re", "im", "min"...). */
const char *cube_component_name(const cube_dtype *t, uint32_t k, char *buf, size_t size);
/* Combine function of component k. */
pk_combine cube_component_combine(const cube_dtype *t, uint32_t k);

/* The attribute of the region profkit's writer makes up for a model's
 * root (write_tree.c); the reader takes its one cnode for the root again
 * (build.c), so a profile keeps its shape through Cube. */
#define CUBE_ROOT_ATTR "profkit root"
/* A function's load module and offset, which Cube regions have no field
 * for: written as region attributes, read back into the function. */
#define CUBE_MODULE_ATTR "profkit module"
#define CUBE_OFFSET_ATTR "profkit offset"

/* What the reader knows about each metric definition once built. */
typedef struct cube_mbuilt {
    cube_dtype type;
    uint32_t metric; /* first model metric */
    uint32_t column; /* first column, PK_NONE if it has no data */
    int inclusive;   /* stored inclusive along the call tree */
    int derived;     /* CubePL-defined: no data */
} cube_mbuilt;

typedef struct cube_read {
    pk_profile *p;
    const char *path;
    uint32_t flags; /* PK_OPEN_* */
    cube_tar tar;
    cube_anchor a;
    cube_mbuilt *mb;     /* per mdef */
    uint32_t *ctx_of;    /* cnode def -> context index */
    uint32_t root_cnode; /* cnode def standing for the model's root, CUBE_NONE */
    uint32_t *bucket_of; /* cnode def -> rank of its id (plane order) */
    uint32_t *wide;      /* wide-search enumeration: position -> cnode def */
    uint32_t *loc_col;   /* location def -> data column (= model location) */
    uint32_t n_locs;
    int keep_rows;                /* values stay in the archive: a row store, not planes */
    const struct pk_mapfile *map; /* the archive's mapping, or NULL (not ours, or inflated) */
    struct cube_store *store;     /* the row store made, which owns this state from then on */
    pk_budget budget;             /* what inflated data may take (util/budget.h) */
    uint64_t archive_bytes;       /* the tar's size (inflated, if it was gzip-wrapped) */
} cube_read;

/* calltree.c: a tree given as parent links (a uint32_t at parent +
 * i * stride, CUBE_NONE for roots). Children lists in document order
 * (n_kids may be NULL), and the wide-search enumeration of all n nodes
 * into out (stack: n entries of scratch). */
void cube_link_children(const void *parent, size_t stride, uint32_t n, uint32_t *first,
                        uint32_t *next, uint32_t *n_kids);
void cube_wide_enumeration(const void *parent, size_t stride, uint32_t n, const uint32_t *first,
                           const uint32_t *next, uint32_t *stack, uint32_t *out);

/* build.c: the anchor's dimensions into the model. */
pk_status cube_build_model(cube_read *r);
/* data.c: every metric's N.index/N.data located and checked, then into
 * value planes, or (keep_rows) a row store that takes over r's state. */
pk_status cube_read_values(cube_read *r);
/* read.c: the archive `d` (a tar, inflated already) indexed, anchor.xml
 * parsed and the model built from it (no values yet). */
pk_status cube_read_structure(cube_read *r, const unsigned char *d, uint64_t n);
/* read.c: free what a reader's state holds. */
void cube_read_free(cube_read *r);

/* dump.c: pk_dump() of a .cubex (docs/dump.md, "Cube"). */
extern const char *const cube_section_names[];
pk_status cube_dump(const char *path, uint64_t max_memory, pk_record_fn fn, void *user,
                    const char *sections);
pk_status cube_dump_memory(const char *name, const void *data, uint64_t size, pk_record_fn fn,
                           void *user, const char *sections);

/* Entry points (read.c). */
int cube_detect_file(const char *path);
pk_status cube_open(const char *path, const pk_open_options *opts, pk_profile **out);
pk_status cube_open_memory(const char *name, const void *data, uint64_t size,
                           const pk_open_options *opts, pk_profile **out);
/* write.c */
pk_status cube_write(const pk_profile *p, const char *path, const pk_write_options *opts,
                     pk_write_stats *stats);

#endif
