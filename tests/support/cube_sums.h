/*
 * tests/support/cube_sums.h — per-Cube-metric sums of a model, the way
 * pycubexr's reference reports them: the values as stored over every
 * cnode and location (the synthetic root left out), each Cube metric's
 * components (COMPLEX re/im, TAU_ATOMIC n/min/...) summed together.
 */
#ifndef PK_TESTS_CUBE_SUMS_H
#define PK_TESTS_CUBE_SUMS_H

#include <stddef.h>

#include "profkit/profile.h"

typedef struct tu_cube_metric {
    const char *uniq;    /* the Cube metric's uniq_name */
    pk_index metric;     /* its first model metric */
    unsigned n_comp;     /* model metrics it spans */
    double sum;          /* stored values over all components */
    double comp_sum[16]; /* the first components' sums apart */
} tu_cube_metric;

/* The Cube metrics of p in pre-order; *n receives the count. malloc'ed. */
tu_cube_metric *tu_cube_metrics(const pk_profile *p, size_t *n);

#endif
