/*
 * util/intern.h — string interning: one copy of each distinct string.
 *
 * Names repeat a lot in profiles (the same file path on thousands of
 * contexts, the same function in many modules' tables). Interning stores
 * each distinct string once in the profile's arena and makes equal strings
 * equal pointers, which later lets diff/merge compare names by pointer.
 */
#ifndef PK_UTIL_INTERN_H
#define PK_UTIL_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"

typedef struct pk_intern_slot {
    const char *str; /* NULL: empty slot */
    size_t len;
    uint64_t hash;
} pk_intern_slot;

typedef struct pk_interner {
    pk_arena *arena;       /* where the strings live */
    pk_intern_slot *slots; /* open addressing, power-of-two size (malloc) */
    size_t cap;
    size_t count;
} pk_interner;

void pk_intern_init(pk_interner *in, pk_arena *arena);
void pk_intern_free(pk_interner *in);
/* The interned copy of s[0..len), or NULL when out of memory. */
const char *pk_intern(pk_interner *in, const char *s, size_t len);
/* The same, with h == pk_hash_bytes(s, len) already known: a reader that
 * hashed the name on another thread while reading ahead. */
const char *pk_intern_hashed(pk_interner *in, const char *s, size_t len, uint64_t h);
/* Start loading the slot a string of hash h is looked up in first, so that
 * the pk_intern_hashed() a few lines later finds it in the cache (the
 * slots of a big profile's names are megabytes: each probe was a miss). */
void pk_intern_prefetch(const pk_interner *in, uint64_t h);
/* Later, once that slot is cached: start loading the interned copy it
 * holds, if its hash is h (the compare that confirms a name reads it). */
void pk_intern_prefetch_copy(const pk_interner *in, uint64_t h);
/* Same for a NUL-terminated string; NULL in gives NULL out. */
const char *pk_intern_cstr(pk_interner *in, const char *s);
/* The interner's hash of s[0..len), eight bytes at a time (C++ names run
 * to hundreds): for other tables of names. */
uint64_t pk_hash_bytes(const char *s, size_t len);

#endif
