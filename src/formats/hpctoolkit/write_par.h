/*
 * formats/hpctoolkit/write_par.h — an HPCToolkit v4 database written by
 * every member of a parallel build (profkit/parallel.h, util/team.h).
 *
 * Every member has the profile's whole structure (contexts, metrics,
 * locations) and the values and traces of its own locations, a
 * contiguous range. It shapes its own values as the serial writer shapes
 * all of them (write_shape*.c: what depends on every location's values
 * is reduced first), sends each value to the member that holds its
 * context's range (cct.db's transpose, write_par_cct.c), which builds
 * cct.db's blocks for the range and the summary profile's values there
 * by reducing the profiles' values in profile order. Sizes are then
 * gathered, every member computes the same layout, and each writes its
 * own parts of profile.db, cct.db and trace.db at their offsets
 * (write_par_io.c). Member 0 writes meta.db, metrics/default.yaml and
 * the headers, and, once every member has written everything, the
 * footers; then it puts the database in place (util/safeout.h). The
 * bytes are the serial writer's (hk_write_db).
 */
#ifndef PK_FORMATS_HPCTOOLKIT_WRITE_PAR_H
#define PK_FORMATS_HPCTOOLKIT_WRITE_PAR_H

#include "hpctk_write.h"
#include "util/safeout.h"
#include "util/team.h"
#include "write_shape.h"

/* Written into cct.db as they are built, a member's blocks are built this
 * many bytes at a time by default (or one block, when larger): held at
 * once, a range's blocks are a member's share of all the values, touched
 * once, written, freed. */
#define HP_CHUNK_BYTES (16u << 20)
/* Each chunk visits every location's plane (a few cache misses each):
 * with many locations chunks grow to this much per location, so that
 * this stays small beside the values. */
#define HP_CHUNK_PER_LOCATION 1024u

/* Before the footers are written: are the inputs still whole? */
typedef pk_status (*hk_par_check)(const void *arg);

pk_status hk_par_write(pk_members *m, const pk_profile *p, uint32_t first, uint32_t end,
                       const char *target, const pk_write_options *o, hk_par_check check,
                       const void *check_arg, uint64_t chunk_bytes, pk_write_stats *stats);

/* ---- shared by write_par*.c ---- */

/* A member's share of cct.db: context ids [lo, hi), their blocks as
 * cct.db holds them, and the summary profile's values there. */
typedef struct hp_range {
    uint64_t lo, hi;
    uint64_t *nvals;     /* per id in the range */
    uint32_t *nidx;      /* per id */
    pk_buf blocks;       /* the blocks, each padded to 8 bytes (unless flushed) */
    uint64_t blocks_len; /* bytes of all the range's blocks */
    int flushed;         /* the blocks are in cct.db already (written chunk by chunk) */
    pk_buf sum_vals;     /* summary values (profile.db layout) */
    pk_buf sum_idx;      /* summary index, starts counted from the range's first value */
    uint64_t sum_nvals;  /* summary values in the range */
    uint32_t sum_nidx;   /* contexts holding them */
    uint64_t n_empty;    /* unlisted contexts holding no value */
    uint64_t empty_ids[8];
} hp_range;

typedef struct hp_state {
    pk_members *m;
    const pk_profile *w; /* what is written: the shaped copy, or the profile */
    hk_order order;
    hk_sum_plan plan;
    uint32_t wfirst, wend; /* this member's locations in w */
    uint64_t n_ids;        /* cct.db's {CI} entries */
    uint64_t *range_lo;    /* n_members + 1 context-id bounds */
    const char *dir;       /* the temporary directory the files are written in */
    uint64_t chunk_bytes;  /* cct.db's blocks are built this many bytes at a time */
    hp_range r;            /* this member's */
} hp_state;

/* write_par_cct.c: the ranges, the exchange, this member's range. */
pk_status hp_ranges(hp_state *s);
pk_status hp_transpose(hp_state *s);
void hp_range_free(hp_range *r);

/* Where this member's range's values come from: the messages of every
 * member, or (direct, one process) every member's planes. */
typedef struct hp_source {
    int direct;
    const pk_gathered *g; /* messages, or each member's (profile, locations) */
    uint64_t lo, hi;      /* direct: only ids [lo, hi) of the range (hi 0: all of it) */
    uint32_t *at;         /* direct, parts in order: per location, the index entry the
                             next part starts at (PK_NONE: not known yet); or NULL */
} hp_source;
/* fn on every (profile, context) run of values in the range (or the
 * source's part of it), in profile order; vals are n plane records (raw
 * id, value). */
typedef void (*hp_run_fn)(void *user, uint64_t id, uint32_t prof, const unsigned char *vals,
                          uint64_t n);
pk_status hp_each_run(const hp_state *s, const hp_source *src, hp_run_fn fn, void *user);
/* write_par_range.c: the range's blocks and summary values. A
 * collective (every member calls it): the blocks' sizes are counted
 * first and scanned over the members, so that with a direct source each
 * member writes its blocks into cct.db (in s->dir) a chunk at a time,
 * holding one chunk rather than the range; otherwise they stay in
 * r->blocks for the writer. */
pk_status hp_build_range(hp_state *s, const hp_source *src);

#endif
