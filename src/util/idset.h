/*
 * util/idset.h — a set of 64-bit ids (open addressing, linear probing).
 *
 * Used to collect the distinct context ids a file mentions without a
 * table indexed by id, which a damaged file could make arbitrarily large:
 * memory grows with the number of distinct ids actually seen.
 */
#ifndef PK_UTIL_IDSET_H
#define PK_UTIL_IDSET_H

#include <stddef.h>
#include <stdint.h>

typedef struct pk_idset {
    uint64_t *slots; /* id + 1; 0 = empty */
    size_t cap, count;
} pk_idset;

void pk_idset_free(pk_idset *s);
/* Add id; returns 0, or -1 when out of memory. */
int pk_idset_add(pk_idset *s, uint64_t id);
int pk_idset_has(const pk_idset *s, uint64_t id);
/* Add every id of `from`; 0, or -1 when out of memory. */
int pk_idset_merge(pk_idset *into, const pk_idset *from);
/* The ids in ascending order (malloc'ed, s->count entries), or NULL. */
uint64_t *pk_idset_sorted(const pk_idset *s);

#endif
