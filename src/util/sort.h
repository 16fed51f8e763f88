/*
 * util/sort.h — comparison sorts that do less than qsort() when less is
 * asked: none at all for input already in order (rows a producer made in
 * key order), and only the first k in order when a view shows the top k
 * of tens of thousands of rows.
 */
#ifndef PK_UTIL_SORT_H
#define PK_UTIL_SORT_H

#include <stddef.h>

typedef int (*pk_cmp_fn)(const void *, const void *);

/* Whether base[0..n) is in ascending order by cmp (ties allowed). */
int pk_is_sorted(const void *base, size_t n, size_t size, pk_cmp_fn cmp);

/* qsort(), skipped when base[0..n) is in order already. */
void pk_sort(void *base, size_t n, size_t size, pk_cmp_fn cmp);

/* A stable sort (equal elements keep their order), linear for input that
 * is a few runs already in order; needs n * size bytes for a while: -1
 * (nothing moved) when they cannot be had, else 0. */
int pk_sort_stable(void *base, size_t n, size_t size, pk_cmp_fn cmp);

/* base[0..k) become the k smallest elements by cmp, in order; the others
 * follow in no particular order (none is lost). k == 0 or k >= n sorts
 * all. Expected time linear in n plus k log k; never worse than a sort. */
void pk_sort_first(void *base, size_t n, size_t size, size_t k, pk_cmp_fn cmp);

#endif
