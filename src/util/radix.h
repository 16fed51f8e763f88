/*
 * util/radix.h — stable LSD radix sorts of unsigned 64-bit keys: the
 * per-location sorts of readers and derivations (a few thousand keys,
 * millions of times) and the line records of a Callgrind file (hundreds
 * of thousands, once). No comparison callback; only the key bytes that
 * differ between keys are passed over.
 */
#ifndef PK_UTIL_RADIX_H
#define PK_UTIL_RADIX_H

#include <stddef.h>
#include <stdint.h>

/* Sort keys[0..n) ascending by their bytes lo_byte..7 (bytes below
 * lo_byte are ignored; equal keys keep their order); tmp has room for n. */
void pk_radix_sort_u64(uint64_t *keys, uint64_t *tmp, size_t n, unsigned lo_byte);

/* A key with a payload: sorted by key, stably. */
typedef struct pk_radix_kv {
    uint64_t key;
    uint64_t val;
} pk_radix_kv;

void pk_radix_sort_kv(pk_radix_kv *recs, pk_radix_kv *tmp, size_t n);

#endif
