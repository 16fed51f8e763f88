/*
 * model/rowsum.h — the inner loops of whole-column scans over a row store
 * (rows.c): a row of doubles summed and its non-zero values counted, in
 * blocks the compiler vectorises (rowsum.c).
 */
#ifndef PK_MODEL_ROWSUM_H
#define PK_MODEL_ROWSUM_H

#include <stddef.h>
#include <stdint.h>

/* The n doubles at s (native byte order, any alignment) summed with their
 * rounding errors kept: the sum is *sum + *comp (about as exact as
 * Neumaier's sequential sum, ~1 ulp of the result whatever n). */
void pk_row_sum(const unsigned char *s, size_t n, double *sum, double *comp);

/* counts[l] += (value l != 0) for the n doubles at s; returns how many
 * are non-zero. */
size_t pk_row_count(const unsigned char *restrict s, size_t n, uint64_t *restrict counts);

#endif
