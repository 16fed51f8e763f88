/*
 * model/rowsum.c — a row of values summed and counted in blocks the
 * compiler vectorises (rowsum.h).
 *
 * A Cube file of 513 MB is 64 M doubles; summing them one at a time with
 * Neumaier's compensated step (a branch per value) and counting non-zero
 * ones in a second pass over a per-cell bitmap made `profkit info` three
 * times slower than reading the file. Here the row is read in blocks of
 * LANES values; each lane keeps its own sum and the exact rounding error
 * of every addition (Knuth's branch-free TwoSum: s' = s + x, b = s' - s,
 * err = (s - (s' - b)) + (x - b)), the lanes' sums and errors are joined
 * with Neumaier's step at the end. The result is the compensated sum of
 * the row (errors of the additions are all kept; only the sum of the
 * errors is rounded), like the sequential one up to the last bit, so
 * totals still agree with CubeLib's and pycubexr's long-double-free sums
 * to 1e-15 relative. The loops have a fixed trip count per block and no
 * branches, so GCC (-O2: SLP; this file is built with -O3) and clang turn
 * them into SIMD code; check with -fopt-info-vec.
 */
#include "rowsum.h"

#include <math.h>
#include <string.h>

#define LANES 8

static void neumaier(double *s, double *c, double x)
{
    double t = *s + x;
    *c += fabs(*s) >= fabs(x) ? (*s - t) + x : (x - t) + *s;
    *s = t;
}

void pk_row_sum(const unsigned char *p, size_t n, double *sum, double *comp)
{
    double s[LANES] = {0}, c[LANES] = {0}, x[LANES];
    size_t i = 0;
    for (; i + LANES <= n; i += LANES) {
        memcpy(x, p + 8 * i, sizeof x); /* unaligned: rows start anywhere in a file */
        for (int k = 0; k < LANES; k++) {
            double t = s[k] + x[k], b = t - s[k];
            c[k] += (s[k] - (t - b)) + (x[k] - b);
            s[k] = t;
        }
    }
    double rs = 0, rc = 0;
    for (int k = 0; k < LANES; k++)
        neumaier(&rs, &rc, s[k]), rc += c[k];
    for (; i < n; i++) {
        double v;
        memcpy(&v, p + 8 * i, 8);
        neumaier(&rs, &rc, v);
    }
    *sum = rs, *comp = rc;
}

#if defined(__GNUC__) /* GCC and clang: vector types, SSE2 on x86-64, NEON on arm64 */
typedef double pk_v2d __attribute__((vector_size(16)));
typedef long long pk_v2i __attribute__((vector_size(16)));

/* counts[l] -= (x != 0 ? -1 : 0), two at a time: a double comparison
 * gives a 64-bit mask of all ones, which baseline x86-64 SIMD can add but
 * not turn into a count without vector types (the loop vectoriser then
 * gives up: tried). */
size_t pk_row_count(const unsigned char *restrict p, size_t n, uint64_t *restrict counts)
{
    const pk_v2d zero = {0, 0};
    pk_v2i nz2 = {0, 0};
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        pk_v2d x;
        pk_v2i c;
        memcpy(&x, p + 8 * i, sizeof x);
        memcpy(&c, counts + i, sizeof c);
        pk_v2i m = x != zero; /* -1 where non-zero */
        c -= m, nz2 -= m;
        memcpy(counts + i, &c, sizeof c);
    }
    uint64_t nz = (uint64_t)nz2[0] + (uint64_t)nz2[1];
#else
size_t pk_row_count(const unsigned char *restrict p, size_t n, uint64_t *restrict counts)
{
    uint64_t nz = 0;
    size_t i = 0;
#endif
    for (; i < n; i++) {
        double v;
        memcpy(&v, p + 8 * i, 8);
        uint64_t one = v != 0;
        counts[i] += one, nz += one;
    }
    return (size_t)nz;
}
