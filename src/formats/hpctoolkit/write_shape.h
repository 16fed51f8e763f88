/*
 * formats/hpctoolkit/write_shape.h — fitting any model to what HPCToolkit
 * readers need before the v4 writer lays it out (docs/hpctoolkit-writer.md,
 * "From other formats").
 *
 * hpcviewer and HPCToolkit's own reader assume more than FORMATS.md says:
 * one global root with id 0 and entry points directly below it; a summary
 * profile holding each (metric, scope)'s Sum statistic under the same id
 * as the per-profile values (hpcviewer indexes cct.db and its per-thread
 * arrays with the statistic's id); identifier kinds 0-7 only; statistic
 * formulas over $$ only; the execution scope of every metric (the program
 * total); no identifier tuple on a summary profile (hpcviewer lists it as
 * a thread); cct.db values of plain profiles only. A model read from a
 * database hpcprof wrote meets all of that and is written as it is (zero
 * copy). Any other model is first copied into a shaped profile that does:
 * write_shape.c decides and assembles it, write_shape_ctx.c maps contexts,
 * write_shape_cols.c scopes and columns, write_shape_vals.c and
 * write_shape_sum.c the values.
 */
#ifndef PK_FORMATS_HPCTOOLKIT_WRITE_SHAPE_H
#define PK_FORMATS_HPCTOOLKIT_WRITE_SHAPE_H

#include "model/model.h"
#include "profkit/write.h"

/* Where a column of the shaped profile takes its values from. */
typedef enum hs_source {
    HS_NONE,     /* no values (a statistic the source has none of) */
    HS_STORED,   /* the source column `from`, value for value */
    HS_DERIVED,  /* plain: derived along the tree from the source column `from` */
    HS_COMBINED, /* summary: combined over the plain locations from shaped column `from` */
} hs_source;

/* How a combined statistic is computed from the plain values. */
typedef enum hs_reduce { HS_SUM, HS_MIN, HS_MAX, HS_COUNT, HS_SUMSQ } hs_reduce;

typedef struct hs_col {
    hs_source source;
    uint32_t from;     /* source column (STORED, DERIVED) or shaped plain column (COMBINED) */
    uint8_t reduce;    /* hs_reduce, for HS_COMBINED */
    uint8_t from_kind; /* pk_scope_kind of `from`, for HS_DERIVED */
    uint8_t kind;      /* pk_scope_kind of the column itself */
} hs_col;

typedef struct hk_shape {
    const pk_profile *p; /* the source model */
    pk_profile *q;       /* the shaped copy */
    const char *path;    /* the target, for loss reports */
    const pk_write_options *o;
    pk_write_stats *stats;

    uint32_t *q_of_p; /* source context -> shaped context */
    uint32_t entry;   /* shaped index of the entry point the writer added, or PK_NONE */
    int renumbered;   /* context ids differ from the source's */

    hs_col *col;              /* per shaped column */
    uint32_t *qcol_of_pcol;   /* source plain column -> shaped plain column holding it, PK_NONE */
    unsigned char *has_plain; /* per source metric: some plain location holds its values */
    int unknown_raw;          /* some plain value has an id no column defines */
    int plain_identity;       /* plain planes may be written as the source has them */

    uint32_t *q_of_ploc; /* source location -> shaped location, PK_NONE if not written */
    uint32_t p_summary;  /* the source's first summary location (profile 0), PK_NONE */
    uint32_t n_untupled; /* plain locations given THREAD N for want of identifiers */

    /* A parallel build's member shapes its own locations' values only:
     * what depends on every location's comes from all members. */
    const unsigned char *preset_plain; /* has_plain of every location, or NULL */
    int preset_unknown;
} hk_shape;

/* Which metrics p's plain locations hold values of (has_plain[m] = 1),
 * and whether some value has an id no plain column has. */
void hk_shape_scan_plain(const pk_profile *p, unsigned char *has_plain, int *unknown_raw);

/* How a parallel build makes the summary profile: each statistic (by
 * raw id) is `reduce` over the plain locations' values of one plain
 * column, in location order — what the serial writer (write_shape_sum.c)
 * or pk_profile_derive computes. */
typedef struct hk_sum_entry {
    uint32_t stat_raw, plain_raw;
    uint8_t reduce; /* hs_reduce */
} hk_sum_entry;
typedef struct hk_sum_plan {
    hk_sum_entry *e; /* by stat_raw */
    uint32_t n;
} hk_sum_plan;
void hk_sum_plan_free(hk_sum_plan *plan);
/* The plan when p is written as it is, or as shaped by s (write_shape_sum.c). */
pk_status hk_sum_plan_native(const pk_profile *p, hk_sum_plan *plan);
pk_status hk_sum_plan_shaped(const hk_shape *s, hk_sum_plan *plan);
/* One statistic over the run [b, e) of a context-major plane's values. */
double hs_reduce_run(const unsigned char *vals, uint64_t b, uint64_t e, uint8_t how);

/* The summary's statistics accumulated per (context, plain raw id) over
 * the plain locations (write_shape_acc.c), where these cells take less
 * memory than the context-major transpose (and at most 1 GiB): c NULL
 * otherwise. Tests set hs_cells_choice to 1 (always) or -1 (never). */
typedef struct hs_cell {
    double sum, min, max, count, sumsq;
} hs_cell;
typedef struct hs_cells {
    hs_cell *c; /* n_ctx x nr, by shaped context index */
    uint32_t nr;
} hs_cells;
extern int hs_cells_choice;
pk_status hs_cells_make(const pk_profile *q, hs_cells *out);
/* A value into the cell, as hs_reduce_run() folds a run into each
 * statistic; then each statistic of the values folded in. */
void hs_cell_add(hs_cell *c, double x);
double hs_cell_stat(const hs_cell *c, uint8_t how);
void hs_cells_free(hs_cells *c);

/* hk_shape_make for a member of a parallel build: has_plain/unknown_raw
 * as all members' values say, the summary left empty (*plan says how to
 * make it); *out = NULL when p is written as it is. */
pk_status hk_shape_make_part(const pk_profile *p, const char *path, const pk_write_options *o,
                             pk_write_stats *stats, const unsigned char *has_plain, int unknown_raw,
                             pk_profile **out, hk_sum_plan *plan);

/* 1 when the model can be written as it is: it meets every assumption
 * above (whatever format it was read from: a JSON copy of a database is
 * written as the database would be). */
int hk_shape_native(const pk_profile *p);
/* 1 when the contexts' propagation bits are to be written as they are. */
int hk_shape_bits_known(const pk_profile *p);

/* The shaped copy of `p` in *out (free with hk_shape_free(p, *out)), or
 * *out = NULL when p is written as it is. What it can, it borrows from p
 * (the tree when it needs no change, value planes written as they are),
 * so p must outlive it. What HPCToolkit cannot hold is reported through
 * pk_write_lose() for `path` (and fails under --strict). */
pk_status hk_shape_make(const pk_profile *p, const char *path, const pk_write_options *o,
                        pk_write_stats *stats, pk_profile **out);
void hk_shape_free(const pk_profile *p, pk_profile *q);
/* hk_shape_make() in two steps, so that what needs no value (meta.db) is
 * written before the summary's values are made, and a big conversion
 * never holds both: *out without the summary's values, and *rest (NULL
 * when there is nothing left to do) to finish it with hk_shape_finish(),
 * which frees *rest whatever it returns (with drop, only that: after a
 * failure). */
pk_status hk_shape_begin(const pk_profile *p, const char *path, const pk_write_options *o,
                         pk_write_stats *stats, pk_profile **out, hk_shape **rest);
pk_status hk_shape_finish(hk_shape *rest, int drop);

/* Steps of hk_shape_make(), in order. */
pk_status hs_contexts(hk_shape *s);       /* q->ctx, s->q_of_p (write_shape_ctx.c) */
pk_status hs_columns(hk_shape *s);        /* q->scopes, q->columns, s->col (write_shape_cols.c) */
pk_status hs_plain_values(hk_shape *s);   /* plain locations' planes (write_shape_vals.c) */
pk_status hs_summary_values(hk_shape *s); /* the summaries' planes (write_shape_sum.c) */

/* Values on their way into a plane (pk_plane_pack()). */
typedef struct hs_triples {
    pk_triple *t;
    size_t n, cap;
} hs_triples;

/* Append (ctx, col, v) unless v is 0 (HPCToolkit stores no zeros). */
pk_status hs_push(hs_triples *t, uint32_t ctx, uint32_t col, double v);
/* The run [*b, *e) of a location-major plane's values at context id
 * `id` (binary search of its index); 0 when it has none. */
int hs_values_at(const pk_plane *pl, uint32_t id, uint64_t *b, uint64_t *e);
/* The triples (shaped context indexes) packed into a location-major plane
 * owned by q, keyed by the contexts' ids; t is emptied. */
pk_status hs_pack(pk_profile *q, hs_triples *t, pk_plane *out);

#endif
