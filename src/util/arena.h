/*
 * util/arena.h — bump allocator: one per profile, freed all at once.
 *
 * The model's small objects (strings, identifier tuples, diagnostics) are
 * carved out of large chunks, so building a profile costs a handful of
 * mallocs however many objects it has, and freeing it is one walk.
 */
#ifndef PK_UTIL_ARENA_H
#define PK_UTIL_ARENA_H

#include <stddef.h>

typedef struct pk_arena_chunk pk_arena_chunk;
typedef struct pk_arena_owned pk_arena_owned;

typedef struct pk_arena {
    pk_arena_chunk *head;  /* newest chunk first */
    size_t used;           /* bytes used in head */
    size_t total;          /* bytes allocated from the system */
    pk_arena_owned *owned; /* malloc'd blocks handed over (pk_arena_own) */
} pk_arena;

void pk_arena_init(pk_arena *a);
void pk_arena_free(pk_arena *a);
/* Zeroed, 16-byte-aligned memory, or NULL when out of memory. */
void *pk_arena_alloc(pk_arena *a, size_t size);
/* Same for n elements of `size` bytes, NULL also on overflow. */
void *pk_arena_array(pk_arena *a, size_t n, size_t size);
/* The same, not zeroed: for arrays the caller writes whole at once (an
 * hpcrun file's CCT nodes were zeroed, then written: 4 % of a
 * conversion's instructions). */
void *pk_arena_array_unset(pk_arena *a, size_t n, size_t size);
/* Copy of s[0..len) plus a NUL. */
char *pk_arena_strndup(pk_arena *a, const char *s, size_t len);
/* Hand a malloc'd block to the arena: pk_arena_free() frees it. Spares
 * copying a big array that was built with malloc/realloc into the arena
 * (both copies would be live at once). 0, or -1 when out of memory (the
 * block stays the caller's). */
int pk_arena_own(pk_arena *a, void *block);

#endif
