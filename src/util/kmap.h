/*
 * util/kmap.h — a hash map from small fixed-size integer keys to indexes.
 *
 * Readers that aggregate (Callgrind's "same position seen again", "same
 * call arc again") need to find a record by a composite key: a handful of
 * ids and positions. Keys are PK_KMAP_WORDS 64-bit words (unused words
 * zero); values are record indexes. Open addressing, power-of-two size,
 * one allocation per growth, never per entry. At most 2^32 - 2 entries.
 */
#ifndef PK_UTIL_KMAP_H
#define PK_UTIL_KMAP_H

#include <stddef.h>
#include <stdint.h>

#define PK_KMAP_WORDS 8

/* A slot is 8 bytes (hash and entry number), so probing and growing touch
 * little memory; keys and values live densely in insertion order and are
 * read only when the hashes agree. */
typedef struct pk_kmap_slot {
    uint32_t hash;
    uint32_t entry; /* 1 + index into keys/values; 0 = empty */
} pk_kmap_slot;

typedef struct pk_kmap {
    pk_kmap_slot *slots; /* malloc, cap of them */
    uint64_t *keys;      /* malloc, `words` per entry */
    uint32_t *values;    /* malloc, one per entry */
    size_t cap, count, entry_cap;
    /* Key words that count (the rest of a key is ignored): 1 to
     * PK_KMAP_WORDS, 0 = all. Set before the first insertion, so maps of
     * short keys store no zeros (a million functions: 24 MB, not 64). */
    uint32_t words;
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
