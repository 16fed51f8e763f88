/*
 * util/radix.c — stable LSD radix sorts (util/radix.h): one counting pass
 * per key byte that is not the same in every key.
 */
#include "radix.h"

#include <string.h>

/* Which bytes differ between keys: OR of all keys XOR AND of all keys. */
static uint64_t varying_u64(const uint64_t *k, size_t n)
{
    uint64_t all_or = 0, all_and = ~0ull;
    for (size_t i = 0; i < n; i++)
        all_or |= k[i], all_and &= k[i];
    return all_or ^ all_and;
}

void pk_radix_sort_u64(uint64_t *keys, uint64_t *tmp, size_t n, unsigned lo_byte)
{
    if (n < 2) return;
    uint64_t vary = varying_u64(keys, n);
    uint64_t *src = keys, *dst = tmp;
    for (unsigned b = lo_byte; b < 8; b++) {
        unsigned shift = 8 * b;
        if (!((vary >> shift) & 0xff)) continue;
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++)
            count[((src[i] >> shift) & 0xff) + 1]++;
        for (int d = 0; d < 256; d++)
            count[d + 1] += count[d];
        for (size_t i = 0; i < n; i++)
            dst[count[(src[i] >> shift) & 0xff]++] = src[i];
        uint64_t *t = src;
        src = dst, dst = t;
    }
    if (src != keys) memcpy(keys, src, n * sizeof *keys);
}

void pk_radix_sort_kv(pk_radix_kv *recs, pk_radix_kv *tmp, size_t n)
{
    if (n < 2) return;
    uint64_t all_or = 0, all_and = ~0ull;
    for (size_t i = 0; i < n; i++)
        all_or |= recs[i].key, all_and &= recs[i].key;
    uint64_t vary = all_or ^ all_and;
    pk_radix_kv *src = recs, *dst = tmp;
    for (unsigned b = 0; b < 8; b++) {
        unsigned shift = 8 * b;
        if (!((vary >> shift) & 0xff)) continue;
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++)
            count[((src[i].key >> shift) & 0xff) + 1]++;
        for (int d = 0; d < 256; d++)
            count[d + 1] += count[d];
        for (size_t i = 0; i < n; i++)
            dst[count[(src[i].key >> shift) & 0xff]++] = src[i];
        pk_radix_kv *t = src;
        src = dst, dst = t;
    }
    if (src != recs) memcpy(recs, src, n * sizeof *recs);
}
