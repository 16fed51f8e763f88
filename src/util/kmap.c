/*
 * util/kmap.c — open-addressing hash map over composite integer keys.
 *
 * Slots hold a 32-bit hash and an entry number; the keys themselves sit in
 * a dense array, compared only when the hashes agree. Growing rehashes the
 * 8-byte slots from their stored hashes without touching the keys.
 */
#include "kmap.h"

#include <stdlib.h>
#include <string.h>

#include "mapfile.h"

static size_t words(const pk_kmap *m)
{
    return m->words && m->words < PK_KMAP_WORDS ? m->words : PK_KMAP_WORDS;
}

/* Each word times its own odd constant, summed (the multiplications are
 * independent, so they overlap), then mixed (murmur3's finaliser). */
static uint32_t hash_key(const pk_kmap *m, const uint64_t *k)
{
    static const uint64_t mul[PK_KMAP_WORDS] = {
        0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full, 0x165667b19e3779f9ull, 0xd6e8feb86659fd93ull,
        0xff51afd7ed558ccdull, 0xc4ceb9fe1a85ec53ull, 0x94d049bb133111ebull, 0xbf58476d1ce4e5b9ull};
    uint64_t h = 0;
    for (size_t i = 0, n = words(m); i < n; i++)
        h += (k[i] ^ (k[i] >> 29)) * mul[i];
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return (uint32_t)(h ^ (h >> 32));
}

static int same_key(const uint64_t *a, const uint64_t *b, size_t n)
{
    uint64_t d = 0;
    for (size_t i = 0; i < n; i++)
        d |= a[i] ^ b[i];
    return d == 0;
}

static const uint64_t *key_of(const pk_kmap *m, uint32_t entry)
{
    return m->keys + (size_t)(entry - 1) * words(m);
}

/* The slot holding `k`, or the empty slot where it would go. */
static size_t find_slot(const pk_kmap *m, const uint64_t *k, uint32_t h)
{
    size_t mask = m->cap - 1, i = h & mask;
    for (;; i = (i + 1) & mask) {
        const pk_kmap_slot *s = &m->slots[i];
        if (!s->entry) return i;
        if (s->hash == h && same_key(key_of(m, s->entry), k, words(m))) return i;
    }
}

static int grow_slots(pk_kmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 256;
    if (cap > SIZE_MAX / sizeof(pk_kmap_slot)) return -1;
    pk_kmap_slot *slots = calloc(cap, sizeof *slots);
    if (!slots) return -1;
    /* a big table's pages writable at once: read first, each would map the
     * zero page and then fault again, with a TLB shootdown, to be written */
    pk_mem_prefault(slots, cap * sizeof *slots);
    for (size_t i = 0; i < m->cap; i++) {
        pk_kmap_slot s = m->slots[i];
        if (!s.entry) continue;
        size_t j = s.hash & (cap - 1);
        while (slots[j].entry)
            j = (j + 1) & (cap - 1);
        slots[j] = s;
    }
    free(m->slots);
    m->slots = slots, m->cap = cap;
    return 0;
}

static int grow_entries(pk_kmap *m)
{
    size_t cap = m->entry_cap ? m->entry_cap * 2 : 64;
    if (cap > UINT32_MAX - 1) cap = UINT32_MAX - 1;
    if (cap <= m->count || cap > SIZE_MAX / (words(m) * sizeof *m->keys)) return -1;
    uint64_t *keys = realloc(m->keys, cap * words(m) * sizeof *keys);
    if (!keys) return -1;
    m->keys = keys;
    uint32_t *values = realloc(m->values, cap * sizeof *values);
    if (!values) return -1;
    m->values = values, m->entry_cap = cap;
    return 0;
}

int pk_kmap_upsert(pk_kmap *m, const uint64_t key[PK_KMAP_WORDS], uint32_t v_new, uint32_t *v_out,
                   int *added)
{
    if ((m->count + 1) * 4 > m->cap * 3 && grow_slots(m)) return -1;
    uint32_t h = hash_key(m, key);
    size_t i = find_slot(m, key, h);
    pk_kmap_slot *s = &m->slots[i];
    *added = !s->entry;
    if (s->entry) {
        *v_out = m->values[s->entry - 1];
        return 0;
    }
    if (m->count == m->entry_cap && grow_entries(m)) return -1;
    memcpy(m->keys + m->count * words(m), key, words(m) * sizeof *key);
    m->values[m->count] = v_new;
    s->hash = h, s->entry = (uint32_t)++m->count;
    *v_out = v_new;
    return 0;
}

int pk_kmap_get(const pk_kmap *m, const uint64_t key[PK_KMAP_WORDS], uint32_t *v_out)
{
    if (!m->cap) return 0;
    const pk_kmap_slot *s = &m->slots[find_slot(m, key, hash_key(m, key))];
    if (!s->entry) return 0;
    *v_out = m->values[s->entry - 1];
    return 1;
}

void pk_kmap_clear(pk_kmap *m)
{
    if (m->slots) memset(m->slots, 0, m->cap * sizeof *m->slots);
    m->count = 0;
}

void pk_kmap_free(pk_kmap *m)
{
    uint32_t w = m->words;
    free(m->slots), free(m->keys), free(m->values);
    memset(m, 0, sizeof *m);
    m->words = w;
}
