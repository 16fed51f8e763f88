/*
 * util/sort.c — pk_is_sorted(), pk_sort() and pk_sort_first() (see
 * sort.h). The partial sort is a quickselect: partition around a median
 * of three until the k-th element is in place, then sort the k before it.
 * A partition that keeps failing to shrink the range (2 log2 n rounds)
 * sorts the range instead, so no input makes it quadratic. The stable
 * sort is a natural merge sort: runs already in order are merged
 * pairwise, so values appended as a few ordered runs cost a pass or two.
 */
#include "sort.h"

#include <stdlib.h>
#include <string.h>

int pk_is_sorted(const void *base, size_t n, size_t size, pk_cmp_fn cmp)
{
    const char *b = base;
    for (size_t i = 1; i < n; i++)
        if (cmp(b + (i - 1) * size, b + i * size) > 0) return 0;
    return 1;
}

void pk_sort(void *base, size_t n, size_t size, pk_cmp_fn cmp)
{
    if (n > 1 && !pk_is_sorted(base, n, size, cmp)) qsort(base, n, size, cmp);
}

/* The end of the ascending run that starts at `from`. */
static size_t run_end(const char *b, size_t from, size_t n, size_t size, pk_cmp_fn cmp)
{
    size_t i = from + 1;
    while (i < n && cmp(b + (i - 1) * size, b + i * size) <= 0)
        i++;
    return i;
}

/* src[a..m) and src[m..e) merged into dst[a..e); ties: the first run's first. */
static void merge(char *dst, const char *src, size_t a, size_t m, size_t e, size_t size,
                  pk_cmp_fn cmp)
{
    size_t i = a, j = m, k = a;
    for (; i < m && j < e; k++) {
        const char *x = src + i * size, *y = src + j * size;
        int right = cmp(y, x) < 0;
        memcpy(dst + k * size, right ? y : x, size);
        j += right, i += !right;
    }
    memcpy(dst + k * size, src + i * size, (m - i) * size);
    k += m - i;
    memcpy(dst + k * size, src + j * size, (e - j) * size);
}

int pk_sort_stable(void *base, size_t n, size_t size, pk_cmp_fn cmp)
{
    if (n < 2 || pk_is_sorted(base, n, size, cmp)) return 0;
    char *tmp = malloc(n * size), *src = base, *dst = tmp;
    if (!tmp) return -1;
    for (size_t runs = 0; runs != 1;) {
        runs = 0;
        for (size_t a = 0; a < n; runs++) {
            size_t m = run_end(src, a, n, size, cmp);
            size_t e = m < n ? run_end(src, m, n, size, cmp) : n;
            merge(dst, src, a, m, e, size, cmp);
            a = e;
        }
        char *t = src;
        src = dst, dst = t;
    }
    if (src != (char *)base) memcpy(base, src, n * size);
    free(tmp);
    return 0;
}

static void swap_bytes(char *a, char *b, size_t size)
{
    if (a == b) return;
    while (size--) {
        char t = *a;
        *a++ = *b, *b++ = t;
    }
}

/* The median of the first, middle and last elements, moved to the end. */
static void median_last(char *b, size_t n, size_t size, pk_cmp_fn cmp)
{
    char *lo = b, *mid = b + n / 2 * size, *hi = b + (n - 1) * size;
    if (cmp(mid, lo) < 0) swap_bytes(mid, lo, size);
    if (cmp(hi, lo) < 0) swap_bytes(hi, lo, size);
    if (cmp(mid, hi) < 0) swap_bytes(mid, hi, size);
}

/* Lomuto partition around the last element; returns its final index.
 * Elements equal to the pivot alternate sides, so runs of ties split. */
static size_t partition(char *b, size_t n, size_t size, pk_cmp_fn cmp)
{
    char *pivot = b + (n - 1) * size;
    size_t store = 0;
    int side = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        int c = cmp(b + i * size, pivot);
        if (c < 0 || (c == 0 && (side ^= 1))) swap_bytes(b + i * size, b + store++ * size, size);
    }
    swap_bytes(b + store * size, pivot, size);
    return store;
}

void pk_sort_first(void *base, size_t n, size_t size, size_t k, pk_cmp_fn cmp)
{
    if (k == 0 || k >= n || k > n / 4) { /* most of it wanted: a plain sort */
        pk_sort(base, n, size, cmp);
        return;
    }
    char *b = base;
    size_t lo = 0, hi = n, budget = 2;
    for (size_t m = n; m > 1; m >>= 1)
        budget += 2;
    while (hi - lo > 1) { /* the k-th smallest lies in [lo, hi) */
        if (budget-- == 0) {
            qsort(b + lo * size, hi - lo, size, cmp);
            break;
        }
        median_last(b + lo * size, hi - lo, size, cmp);
        size_t p = lo + partition(b + lo * size, hi - lo, size, cmp);
        if (p == k) break;
        if (p < k)
            lo = p + 1;
        else
            hi = p;
    }
    qsort(b, k, size, cmp);
}
