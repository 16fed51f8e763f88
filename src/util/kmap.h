/*
 * util/kmap.h — a hash map from small fixed-size integer keys to indexes.
 *
 * Readers that aggregate (Callgrind's "same position seen again", "same
 * call arc again") need to find a record by a composite key: a handful of
 * ids and positions. Keys are PK_KMAP_WORDS 64-bit words (unused words
 * zero); values are record indexes. Open addressing, power-of-two size,
 * one allocation per growth, never per entry.
 */
#ifndef PK_UTIL_KMAP_H
#define PK_UTIL_KMAP_H

#include <stddef.h>
#include <stdint.h>

#define PK_KMAP_WORDS 8

typedef struct pk_kmap_slot {
    uint64_t k[PK_KMAP_WORDS];
    uint32_t v;
    uint32_t used;
} pk_kmap_slot;

typedef struct pk_kmap {
    pk_kmap_slot *slots; /* malloc */
    size_t cap, count;
} pk_kmap;

/* Find `key`; if absent, insert it with value `v_new`. *v_out receives the
 * stored value, *added whether it was inserted. -1 when out of memory. */
int pk_kmap_upsert(pk_kmap *m, const uint64_t key[PK_KMAP_WORDS], uint32_t v_new, uint32_t *v_out,
                   int *added);
/* Stored value of `key` into *v_out: 1 if found, else 0. */
int pk_kmap_get(const pk_kmap *m, const uint64_t key[PK_KMAP_WORDS], uint32_t *v_out);
void pk_kmap_clear(pk_kmap *m);
void pk_kmap_free(pk_kmap *m);

#endif
