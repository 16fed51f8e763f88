/*
 * util/intern.c — open-addressing hash set of strings (linear probing).
 *
 * The hash reads eight bytes at a time, in four independent lanes on
 * long names: names are interned once per line that names them (a
 * Callgrind file written without name compression repeats 200-byte C++
 * names hundreds of thousands of times), and a byte at a time was most of
 * the reading time.
 */
#include "intern.h"

#include <stdlib.h>
#include <string.h>

#include "mapfile.h"

void pk_intern_init(pk_interner *in, pk_arena *arena)
{
    in->arena = arena;
    in->slots = NULL;
    in->cap = 0;
    in->count = 0;
}

void pk_intern_free(pk_interner *in)
{
    free(in->slots);
    in->slots = NULL;
    in->cap = in->count = 0;
}

static uint64_t mix(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 32);
}

/* Four lanes of eight bytes each, mixed independently (the multiplies of
 * one lane do not wait for another's): a 130-byte C++ name took 17
 * multiplies in a row, 6 % of a reading thread's time on cc1. */
uint64_t pk_hash_bytes(const char *s, size_t len)
{
    uint64_t h = 0x243f6a8885a308d3ull ^ len, w;
    size_t i = 0;
    if (len >= 32) { /* four variables, not an array: vectorised, the multiplies were emulated */
        uint64_t a = h, b = h ^ 0x13198a2e03707344ull, c = h ^ 0xa4093822299f31d0ull,
                 d = h ^ 0x082efa98ec4e6c89ull, x, y, z;
        for (; i + 32 <= len; i += 32) {
            memcpy(&w, s + i, 8), memcpy(&x, s + i + 8, 8);
            memcpy(&y, s + i + 16, 8), memcpy(&z, s + i + 24, 8);
            a = mix(a, w), b = mix(b, x), c = mix(c, y), d = mix(d, z);
        }
        h = mix(mix(mix(a, b), c), d);
    }
    for (; i + 8 <= len; i += 8) {
        memcpy(&w, s + i, 8);
        h = mix(h, w);
    }
    if (i < len) {
        w = 0;
        memcpy(&w, s + i, len - i);
        h = mix(h, w ^ 0xff);
    }
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 31);
}

static int intern_grow(pk_interner *in)
{
    size_t cap = in->cap ? in->cap * 2 : 256;
    pk_intern_slot *slots = calloc(cap, sizeof *slots);
    if (!slots) return -1;
    /* a big table's pages writable at once: read first, each would map the
     * zero page and then fault again, with a TLB shootdown, to be written */
    pk_mem_prefault(slots, cap * sizeof *slots);
    for (size_t i = 0; i < in->cap; i++) {
        if (!in->slots[i].str) continue;
        size_t j = in->slots[i].hash & (cap - 1);
        while (slots[j].str)
            j = (j + 1) & (cap - 1);
        slots[j] = in->slots[i];
    }
    free(in->slots);
    in->slots = slots;
    in->cap = cap;
    return 0;
}

const char *pk_intern(pk_interner *in, const char *s, size_t len)
{
    return pk_intern_hashed(in, s, len, pk_hash_bytes(s, len));
}

void pk_intern_prefetch(const pk_interner *in, uint64_t h)
{
    if (in->cap) __builtin_prefetch(&in->slots[h & (in->cap - 1)]);
}

void pk_intern_prefetch_copy(const pk_interner *in, uint64_t h)
{
    if (!in->cap) return;
    const pk_intern_slot *slot = &in->slots[h & (in->cap - 1)];
    if (!slot->str || slot->hash != h) return;
    for (size_t at = 0; at < slot->len; at += 64)
        __builtin_prefetch(slot->str + at);
}

const char *pk_intern_hashed(pk_interner *in, const char *s, size_t len, uint64_t h)
{
    if (in->count * 2 >= in->cap && intern_grow(in) != 0) return NULL;
    size_t j = h & (in->cap - 1);
    while (in->slots[j].str) {
        pk_intern_slot *slot = &in->slots[j];
        if (slot->hash == h && slot->len == len && memcmp(slot->str, s, len) == 0) return slot->str;
        j = (j + 1) & (in->cap - 1);
    }
    char *copy = pk_arena_strndup(in->arena, s, len);
    if (!copy) return NULL;
    in->slots[j] = (pk_intern_slot){copy, len, h};
    in->count++;
    return copy;
}

const char *pk_intern_cstr(pk_interner *in, const char *s)
{
    return s ? pk_intern(in, s, strlen(s)) : NULL;
}
