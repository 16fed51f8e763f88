/*
 * formats/hpctoolkit/hpctk_write.h — internals of the HPCToolkit v4 writer.
 *
 * pk_profile_write() (write.c) creates a temporary directory next to the
 * target, writes each file with the functions below, and renames the
 * directory into place. Each function works from the model only.
 */
#ifndef PK_FORMATS_HPCTOOLKIT_HPCTK_WRITE_H
#define PK_FORMATS_HPCTOOLKIT_HPCTK_WRITE_H

#include <stdio.h>

#include "hpctk.h"
#include "model/model.h"
#include "profkit/write.h"
#include "util/buf.h"

/* Which profile.db profile each location becomes. Profile 0 is always
 * the summary: the model's first summary location, or an empty one the
 * writer adds when the model has none (`added_summary`). Plain locations
 * follow as profiles 1..n, further summaries after them: hpcviewer sizes
 * its per-thread arrays by the plain profiles and indexes them with
 * cct.db's profile index. */
typedef struct hk_order {
    uint32_t n_profiles;
    uint32_t *loc_of_prof; /* PK_NONE for an added summary */
    uint32_t *prof_of_loc;
    int identity; /* profile i is location i for all i */
    int added_summary;
} hk_order;

pk_status hk_order_init(const pk_profile *p, hk_order *o);
void hk_order_free(hk_order *o);

/* profile.db's layout from its profiles' value counts (write_profile.c):
 * fill nvals/nidx per profile, then plan; the head is the header, the
 * Profile Info section and the identifier tuples. */
typedef struct hk_prof_layout {
    uint64_t *tuple_at; /* per profile, 0 for none */
    uint64_t *vals_at;  /* per profile: values; the index follows them */
    uint64_t *nvals;
    uint32_t *nidx;
    uint64_t infos_size, tuples_lo, tuples_hi, end;
} hk_prof_layout;
pk_status hk_prof_layout_init(hk_prof_layout *L, uint32_t n_profiles);
void hk_prof_layout_plan(const pk_profile *p, const hk_order *o, hk_prof_layout *L);
void hk_prof_layout_free(hk_prof_layout *L);
pk_status hk_prof_check_tuples(const pk_profile *p);
struct pk_out;
void hk_prof_put_head(struct pk_out *out, const pk_profile *p, const hk_order *o,
                      const hk_prof_layout *L);

/* cct.db's pieces (write_cct.c): the header, {CI} entries of context ids
 * [id_lo, id_hi) whose first block is at `at`, blocks' sizes. */
typedef const pk_plane *(*hk_plane_of_id)(const void *user, uint64_t id);
void hk_cct_put_header(struct pk_out *out, uint64_t n_ids);
void hk_cct_put_infos(struct pk_out *out, hk_plane_of_id plane, const void *user, uint64_t id_lo,
                      uint64_t id_hi, uint64_t at);
uint64_t hk_cct_first_block(uint64_t n_ids);
uint64_t hk_cct_block_size(const pk_plane *pl);

/* cct.db's blocks straight from the location planes, a chunk of ids at a
 * time (write_cct_chunks.c), instead of the model's whole transpose.
 * hk_cct_src_make counts the values per context; *out stays NULL when the
 * model's transpose is to be written instead (it exists already, or there
 * are too many (context, metric) cells, or a plane is not in id order). */
typedef struct hk_cct_src hk_cct_src;
pk_status hk_cct_src_make(const pk_profile *p, hk_cct_src **out);
uint64_t hk_cct_src_nvals(const hk_cct_src *s, uint32_t ctx);
uint32_t hk_cct_src_nidx(const hk_cct_src *s, uint32_t ctx);
void hk_cct_put_chunks(struct pk_out *out, hk_cct_src *s, const hk_order *o, uint64_t n_ids);
void hk_cct_src_free(hk_cct_src *s);

/* meta.db written to `out` from its first byte (write_meta.c); footer: end
 * with "_meta.db" (a parallel build writes the footer last, once every
 * member is done). */
pk_status hk_write_meta(const pk_profile *p, struct pk_out *out, int footer);
/* profile.db, cct.db, trace.db streamed to `path` (write_profile.c,
 * write_cct.c, write_trace.c); each adds the bytes it wrote to *bytes. */
pk_status hk_write_profile_db(const pk_profile *p, const hk_order *o, const char *path,
                              uint64_t *bytes);
pk_status hk_write_cct_db(const pk_profile *p, const hk_order *o, hk_cct_src *src, const char *path,
                          uint64_t *bytes);
/* Traces not tied to a location are left out; *skipped tells how many. */
pk_status hk_write_trace_db(const pk_profile *p, const hk_order *o, const char *path,
                            uint64_t *bytes, uint32_t *skipped);
/* The 16-byte common file header, with section table zeroed. */
void hk_put_file_header(unsigned char *h, const char *format);

/* The whole database at `path` (write.c), through a temporary directory. */
pk_status hk_write_db(const pk_profile *p, const char *path, const pk_write_options *o,
                      pk_write_stats *stats);

/* metrics/default.yaml: the metric taxonomy hpcviewer reads (field notes
 * §a, "METRICS.yaml taxonomy"), written to `out`. One root per metric that
 * has summary statistics; inputs name the summary statistics stored in the
 * profile (metric, scope, formula, combine) exactly as meta.db lists them. */
pk_status hk_write_metrics_yaml(const pk_profile *p, FILE *out, int *deep);
/* Pieces of it, for metrics with only[m] set (NULL: all): the `inputs`
 * items and the `roots` items, each item starting with "\n  - ". Roots
 * nest by the metric tree (`children`), at most HK_YAML_MAX_DEPTH levels:
 * *deep counts metrics put at the top because theirs is deeper. */
#define HK_YAML_MAX_DEPTH 16
void hk_yaml_put_inputs(FILE *out, const pk_profile *p, const unsigned char *only);
pk_status hk_yaml_put_roots(FILE *out, const pk_profile *p, const unsigned char *only, int *deep);
/* Does metric m have statistics a root presents? */
int hk_yaml_presented(const pk_profile *p, uint32_t m);
/* Does the metric's unit need a `unit` key (its name does not end in
 * "(unit)", hpcprof's way)? */
int hk_yaml_unit_needed(const pk_metric *met);

/* The text of metrics/default.yaml for `p` (write_yaml_keep.c): the
 * source database's own (profile attribute HK_YAML_ATTR) when it still
 * fits p, with items added for metrics it does not mention; a new one
 * otherwise, the old one reported as left out. *text is malloc'ed. */
pk_status hk_yaml_text(const pk_profile *p, const char *path, const pk_write_options *o,
                       pk_write_stats *stats, char **text, size_t *len);

#endif
