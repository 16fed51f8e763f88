/*
 * util/kmap.c — open-addressing hash map over composite integer keys.
 */
#include "kmap.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_key(const uint64_t *k)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < PK_KMAP_WORDS; i++) {
        h ^= k[i] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        h *= 0xff51afd7ed558ccdull;
    }
    return h ^ (h >> 31);
}

static int same_key(const uint64_t *a, const uint64_t *b)
{
    return memcmp(a, b, PK_KMAP_WORDS * sizeof *a) == 0;
}

static size_t find_slot(const pk_kmap *m, const uint64_t *k)
{
    size_t mask = m->cap - 1, i = (size_t)hash_key(k) & mask;
    while (m->slots[i].used && !same_key(m->slots[i].k, k))
        i = (i + 1) & mask;
    return i;
}

static int grow(pk_kmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 256;
    if (cap > SIZE_MAX / sizeof(pk_kmap_slot)) return -1;
    pk_kmap_slot *old = m->slots;
    size_t old_cap = m->cap;
    m->slots = calloc(cap, sizeof *m->slots);
    if (!m->slots) {
        m->slots = old;
        return -1;
    }
    m->cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].used) m->slots[find_slot(m, old[i].k)] = old[i];
    free(old);
    return 0;
}

int pk_kmap_upsert(pk_kmap *m, const uint64_t key[PK_KMAP_WORDS], uint32_t v_new, uint32_t *v_out,
                   int *added)
{
    if ((m->count + 1) * 4 > m->cap * 3 && grow(m)) return -1;
    size_t i = find_slot(m, key);
    pk_kmap_slot *s = &m->slots[i];
    *added = !s->used;
    if (!s->used) {
        memcpy(s->k, key, sizeof s->k);
        s->v = v_new;
        s->used = 1;
        m->count++;
    }
    *v_out = s->v;
    return 0;
}

int pk_kmap_get(const pk_kmap *m, const uint64_t key[PK_KMAP_WORDS], uint32_t *v_out)
{
    if (!m->cap) return 0;
    const pk_kmap_slot *s = &m->slots[find_slot(m, key)];
    if (!s->used) return 0;
    *v_out = s->v;
    return 1;
}

void pk_kmap_clear(pk_kmap *m)
{
    if (m->slots) memset(m->slots, 0, m->cap * sizeof *m->slots);
    m->count = 0;
}

void pk_kmap_free(pk_kmap *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}
