/*
 * formats/cube/anchor.h — what anchor.xml declares, as parsed (before it
 * becomes the model): metric tree, regions, call tree, system tree,
 * topologies and the attributes of each. Strings are interned in the
 * profile; arrays are malloc'ed and freed by cube_anchor_free().
 */
#ifndef PK_FORMATS_CUBE_ANCHOR_H
#define PK_FORMATS_CUBE_ANCHOR_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

#define CUBE_NONE 0xffffffffu

typedef struct cube_mdef {
    const char *uniq, *disp, *dtype, *uom, *val, *url, *descr, *type;
    const char *cubepl, *cubeplinit, *viztype, *convertible, *cacheable;
    uint32_t id, parent; /* parent: index into mdefs or CUBE_NONE */
    int has_id;
} cube_mdef;

typedef struct cube_region {
    uint32_t id;
    int has_id;
    const char *name, *mangled, *paradigm, *role, *url, *descr, *mod, *begin, *end;
} cube_region;

typedef struct cube_cnode {
    uint32_t id, callee, parent; /* parent: index into cnodes or CUBE_NONE */
    int has_id, has_callee;
    const char *mod, *line;
} cube_cnode;

/* System tree nodes (4.x systemtreenode, Cube3 machine/node). */
typedef struct cube_stn {
    const char *name, *klass, *descr;
    uint32_t parent; /* index into stns or CUBE_NONE */
} cube_stn;

/* Location groups (4.x locationgroup, Cube3 process) and locations
 * (location, Cube3 thread). */
typedef struct cube_sysres {
    uint32_t id, parent; /* group: stn index; location: group index */
    int has_id;
    const char *name, *type, *rank;
} cube_sysres;

/* An attribute of a parsed entity, attached to the model at build time. */
enum { CA_PROFILE, CA_METRIC, CA_REGION, CA_CNODE, CA_GROUP, CA_LOCATION };
typedef struct cube_pattr {
    uint32_t kind, owner;
    const char *key, *value;
} cube_pattr;

typedef struct cube_anchor {
    const char *version, *metrics_title, *program_title, *system_title;
    cube_mdef *mdefs;
    size_t n_mdefs, cap_mdefs;
    cube_region *regions;
    size_t n_regions, cap_regions;
    cube_cnode *cnodes;
    size_t n_cnodes, cap_cnodes;
    cube_stn *stns;
    size_t n_stns, cap_stns;
    cube_sysres *groups;
    size_t n_groups, cap_groups;
    cube_sysres *locs;
    size_t n_locs, cap_locs;
    cube_pattr *attrs;
    size_t n_attrs, cap_attrs;
    int cube3_system; /* machine/node/process/thread */
} cube_anchor;

/* Parse anchor.xml (`d`, `n` bytes, already inflated if it was gzip);
 * `file` and `offset` (of the member in the archive) go into messages. */
pk_status cube_anchor_parse(pk_profile *p, const char *file, uint64_t offset,
                            const unsigned char *d, uint64_t n, cube_anchor *out);
void cube_anchor_free(cube_anchor *a);

#endif
