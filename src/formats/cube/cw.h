/*
 * formats/cube/cw.h — the Cube writer's plan: what of a model becomes
 * which Cube cnode, region, metric and system-tree entry. Planned by
 * write_tree.c (call tree, regions), write_plan.c (metrics, where values
 * come from), write_system.c (system tree) and write_report.c (what Cube
 * cannot hold); written out by write_anchor.c (anchor.xml, built in a
 * write_xml.c buffer) and write.c (tar members, data rows).
 * docs/cube.md, "Writing", describes the mapping.
 */
#ifndef PK_FORMATS_CUBE_CW_H
#define PK_FORMATS_CUBE_CW_H

#include <stdio.h>

#include "cube.h"
#include "model/model.h"
#include "util/arena.h"

/* Region names the writer makes up (the root's region carries
 * CUBE_ROOT_ATTR, cube.h). */
#define CW_ROOT_NAME     "<profile root>"
#define CW_UNLISTED_NAME "<unlisted contexts>"

typedef struct cw_metric {
    pk_index metric; /* first model metric */
    uint32_t n_comp; /* model metrics (components) it spans */
    cube_dtype type;
    const char *dtype;  /* as written */
    const char *kind;   /* EXCLUSIVE, INCLUSIVE, SIMPLE or a derived kind */
    pk_index *cols;     /* column of each component, PK_NONE if none (arena) */
    pk_index excl_col;  /* stored inclusive: the profile's own exclusive column, or PK_NONE */
    pk_combine combine; /* how folded contexts combine (sum, min, max) */
    int fold;           /* point scope: the contexts folded into a cnode add up */
    int inclusive;      /* rows in wide-search order */
    int data;           /* has N.index/N.data members (a value type Cube stores) */
    uint32_t parent;    /* Cube metric index, CUBE_NONE for roots */
} cw_metric;

typedef struct cw_cnode {
    pk_index ctx;      /* the context it stands for (PK_NONE: made up) */
    uint32_t parent;   /* cnode index or CUBE_NONE */
    uint32_t region;   /* region id */
    uint32_t n_folded; /* contexts folded into it */
} cw_cnode;

/* Regions after the functions' own: entry points, call targets without a
 * function, the unlisted contexts' cnode, the synthetic root (last). */
typedef struct cw_region {
    const char *name;
    int artificial; /* made up by profkit or the measurement, not code */
    int root;       /* the synthetic root */
} cw_region;

typedef struct cw_stn {
    uint32_t parent;
    const char *name, *klass;
} cw_stn;

typedef struct cw_group {
    uint32_t stn, rank;
    const char *name, *type;
    pk_index attrs_of; /* model location whose "cube:group_attr:" attributes it has */
    uint32_t n_locs;   /* its locations */
} cw_group;

typedef struct cw_loc {
    pk_index loc; /* model location its values come from */
    uint32_t group, rank;
    const char *name, *type;
    int cube_attrs; /* write the location's own "attr:" attributes */
} cw_loc;

typedef struct cube_writer {
    const pk_profile *p;
    const char *path;
    const pk_write_options *opts;
    pk_write_stats *stats;
    pk_arena arena; /* names and small tables made up while planning */
    int compress;
    /* summary mode: the profile has no per-location values, only the
     * statistics of summary location `sum_loc` (docs/cube.md) */
    int summary;
    pk_index sum_loc;
    cw_metric *m;
    uint32_t n_m;
    cw_cnode *cn;
    uint32_t n_cn;
    uint32_t *cnode_of;  /* context -> cnode it becomes or folds into, CUBE_NONE */
    uint32_t *wide;      /* wide-search enumeration of cnodes */
    uint32_t n_folded;   /* contexts folded into another's cnode */
    uint32_t n_unlisted; /* unlisted contexts written under their own cnode */
    cw_region *reg;      /* regions after the functions */
    uint32_t n_reg;
    cw_stn *stn;
    uint32_t n_stn;
    cw_group *grp;
    uint32_t n_grp;
    cw_loc *loc;
    uint32_t n_loc;
    uint32_t *loc_col;    /* model location -> data column (written location), CUBE_NONE */
    struct cw_rows *rows; /* values from the profile's row store, or NULL (write_rows.c) */
} cube_writer;

/* write_plan.c: metrics and the columns their values come from. */
pk_status cw_plan_metrics(cube_writer *w);
/* write_tree.c: cnodes (one root) and regions; needs the metrics. */
pk_status cw_plan_tree(cube_writer *w);
/* write_system.c: the system tree (one root) and the written locations. */
pk_status cw_plan_system(cube_writer *w);
/* write_report.c: pk_write_lose() for everything Cube does not get. */
pk_status cw_report_losses(cube_writer *w);
void cw_free(cube_writer *w);

/* write_rows.c: a profile with a row store (read from Cube) is written
 * from its rows, without location planes; init after cw_plan_metrics. */
typedef struct cw_rows cw_rows;
pk_status cw_rows_init(cube_writer *w);
void cw_rows_free(cube_writer *w);
/* Column col's stored values of context ctx, one per model location
 * (0 = none), valid until the next call; NULL when it has none or a
 * column failed to open (cw_rows_status() says which). */
const double *cw_rows_get(const cube_writer *w, pk_index ctx, pk_index col);
pk_status cw_rows_status(const cube_writer *w);

/* write.c: values of context ctx, column col (component comp of nc) into
 * row (n_loc x nc doubles), combined by `how`; seen marks set entries.
 * Returns 1 when the context has a stored value in that column. */
int cw_ctx_values(const cube_writer *w, pk_index ctx, pk_index col, uint32_t comp, uint32_t nc,
                  pk_combine how, double *row, unsigned char *seen);
/* write.c: the sum of context ctx's values of column col over the written
 * locations. */
double cw_ctx_sum(const cube_writer *w, pk_index ctx, pk_index col);

/* write_xml.c: anchor.xml's text buffer; the first failure sticks. */
typedef struct cw_xml {
    char *s;
    size_t n, cap;
    int failed;
} cw_xml;
void cw_put(cw_xml *b, const char *s, size_t n);
void cw_add(cw_xml *b, const char *fmt, ...) PK_PRINTF(2, 3);
/* Text from the model, made well-formed XML (the rule is in write_xml.c). */
void cw_esc(cw_xml *b, const char *text);
void cw_element(cw_xml *b, const char *name, const char *text);

/* write_anchor.c: anchor.xml into a malloc'ed buffer. */
pk_status cw_anchor(const cube_writer *w, char **out, size_t *n);

#endif
