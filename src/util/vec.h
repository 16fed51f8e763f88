/*
 * util/vec.h — growing a malloc'ed array geometrically.
 *
 * Used while building arrays whose final length is not known up front
 * (contexts of a tree walk, diagnostics). Per array, not per element.
 */
#ifndef PK_UTIL_VEC_H
#define PK_UTIL_VEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/bigsize.h"

/* Make *ptr hold at least `need` elements of `elem` bytes. 0 on success. */
static inline int pk_vec_reserve(void **ptr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need) {
        if (n > SIZE_MAX / 2) return -1;
        n *= 2;
    }
    if (n > SIZE_MAX / elem) return -1;
    n = pk_big_capacity(need * elem, n * elem) / elem; /* big: on whole huge pages */
    void *p = realloc(*ptr, n * elem);
    if (!p) return -1;
    *ptr = p;
    *cap = n;
    return 0;
}

#endif
