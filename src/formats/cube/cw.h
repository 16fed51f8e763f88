/*
 * formats/cube/cw.h — the Cube writer's plan: what of a model becomes
 * which Cube cnode, region, metric and system-tree entry (write_plan.c),
 * written out by write_anchor.c (anchor.xml) and write.c (tar, data).
 */
#ifndef PK_FORMATS_CUBE_CW_H
#define PK_FORMATS_CUBE_CW_H

#include <stdio.h>

#include "cube.h"

typedef struct cw_metric {
    pk_index metric; /* first model metric */
    uint32_t n_comp; /* model metrics (components) it spans */
    cube_dtype type;
    const char *dtype; /* as written */
    const char *kind;  /* EXCLUSIVE, INCLUSIVE, SIMPLE or a derived kind */
    pk_index cols[64]; /* column of each component, PK_NONE if none */
    int fold;          /* point scope: folded contexts add up */
    uint32_t parent;   /* Cube metric index, CUBE_NONE for roots */
} cw_metric;

typedef struct cw_cnode {
    pk_index ctx;      /* the context it stands for */
    uint32_t parent;   /* cnode index or CUBE_NONE */
    uint32_t region;   /* region id */
    uint32_t n_folded; /* lines, loops... folded into it */
} cw_cnode;

typedef struct cw_stn {
    uint32_t parent;
    uint16_t kind;
    uint32_t logical;
    const char *name, *klass;
} cw_stn;

typedef struct cw_group {
    uint32_t stn, rank;
    uint16_t kind;
    const char *name, *type;
} cw_group;

typedef struct cw_loc {
    pk_index loc;
    uint32_t group, rank;
    const char *name, *type;
} cw_loc;

typedef struct cube_writer {
    const pk_profile *p;
    int compress;
    cw_metric *m;
    uint32_t n_m;
    cw_cnode *cn;
    uint32_t n_cn;
    uint32_t *cnode_of;         /* context -> cnode it folds into, CUBE_NONE if none */
    uint32_t *wide;             /* wide-search enumeration of cnodes */
    const char **entry_regions; /* regions for entry contexts, after the functions */
    uint32_t n_entry_regions;
    cw_stn *stn;
    uint32_t n_stn;
    cw_group *grp;
    uint32_t n_grp;
    cw_loc *loc;
    uint32_t n_loc;
} cube_writer;

pk_status cw_plan(cube_writer *w);
/* The system tree; names it makes up live in `a`. */
pk_status cw_plan_system(cube_writer *w, pk_arena *a);
void cw_free(cube_writer *w);
/* anchor.xml into a malloc'ed buffer. */
pk_status cw_anchor(const cube_writer *w, char **out, size_t *n);

#endif
