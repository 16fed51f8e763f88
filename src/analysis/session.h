/*
 * analysis/session.h — the session's insides: its cache of one
 * selection's values (query_session.c) and of flat rows per base metric
 * (answer_flat.c), shared by every answer asked of it.
 */
#ifndef PK_ANALYSIS_SESSION_H
#define PK_ANALYSIS_SESSION_H

#include "analysis/qry.h"

#define PKQ_CACHE      8
#define PKQ_FLAT_CACHE 32

/* One base metric's flat rows under a selection, sorted by key. */
typedef struct pkq_flat_rows {
    pk_index metric;
    char *location, *focus, *hide;
    pk_across stat;
    pk_group_by by;
    int from_callgraph;
    pk_flat_row *rows;
    size_t n;
    double total;
    pk_number_format nf;
    int has_excl;
    unsigned long long used;
} pkq_flat_rows;

/* Functions' values on every location (pkq_function_locations()). */
typedef struct pkq_fn_locations {
    pk_index metric;
    int from_callgraph;
    char **names;
    size_t n;
    double *incl, *self; /* [k * locations + l] */
} pkq_fn_locations;

struct pk_session {
    const pk_profile *p;
    pkq_fn_locations fnloc;
    pkq_values *cache[PKQ_CACHE];
    pkq_flat_rows *flats[PKQ_FLAT_CACHE];
    unsigned long long clock;
};

/* Nodes of per-context values at a level (LINES: every context). */
pk_status pkq_frames_build(const pk_profile *p, const double *incl, const double *excl,
                           pk_tree_level level, pk_combine how, pk_frame **f, size_t *n);
/* The rows of one base metric (cached), sorted by key. */
pk_status pkq_flat_rows_get(pk_session *s, pk_index metric, const pk_query *q, int from_callgraph,
                            const pkq_flat_rows **out);
/* The same, not cached: the caller's, freed with pkq_flat_rows_free(). */
pk_status pkq_flat_rows_make(pk_session *s, pk_index metric, const pk_query *q, int from_callgraph,
                             pkq_flat_rows **out);
void pkq_flat_rows_free(pkq_flat_rows *f);
/* Rows from the tree computed without the session (any thread may), the
 * values they came from left in *values; is such an entry cached; put an
 * entry (taken over) into the cache. */
pk_status pkq_flat_rows_compute(const pk_profile *p, pk_index metric, const pk_query *q,
                                pkq_flat_rows *f, pkq_values *values);
int pkq_flat_rows_cached(pk_session *s, pk_index metric, const pk_query *q, int from_callgraph);
void pkq_flat_rows_put(pk_session *s, pkq_flat_rows *f);
/* The rows of several metrics from the tree, on worker threads: into the
 * session's caches (cache 1), or into owned[i] for metrics[i] (cache 0;
 * entries left NULL are for the caller to compute). */
pk_status pkq_flat_prefetch(pk_session *s, const pk_index *metrics, size_t n, const pk_query *q,
                            int cache, pkq_flat_rows **owned);
/* Put computed values (taken over) into the session's cache. */
void pkq_values_put(pk_session *s, pkq_values *v);
/* The cached values of a selection, or NULL. */
const pkq_values *pkq_values_cached(pk_session *s, pk_index metric, const pk_query *q);
void pkq_session_flat_clear(pk_session *s);
/* For each of n function names, its inclusive (outermost contexts) and
 * self value on every location: incl[k * locations + l] (NaN for summary
 * locations). */
pk_status pkq_function_locations(const pk_profile *p, pk_index metric, const char *const *names,
                                 size_t n, double *incl, double *self, int use_callgraph);
void pkq_fn_locations_clear(pkq_fn_locations *f);

#endif
