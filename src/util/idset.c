/*
 * util/idset.c — set of 64-bit ids, see idset.h.
 */
#include "idset.h"

#include <stdlib.h>

#include "radix.h"

static size_t slot_of(uint64_t id, size_t cap)
{
    uint64_t h = (id + 1) * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 17) & (cap - 1);
}

void pk_idset_free(pk_idset *s)
{
    free(s->slots);
    s->slots = NULL;
    s->cap = s->count = 0;
}

static int idset_grow(pk_idset *s)
{
    size_t cap = s->cap ? s->cap * 2 : 64;
    uint64_t *slots = calloc(cap, sizeof *slots);
    if (!slots) return -1;
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->slots[i]) continue;
        size_t j = slot_of(s->slots[i] - 1, cap);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = s->slots[i];
    }
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
    return 0;
}

int pk_idset_has(const pk_idset *s, uint64_t id)
{
    if (!s->cap || id == UINT64_MAX) return 0;
    for (size_t j = slot_of(id, s->cap); s->slots[j]; j = (j + 1) & (s->cap - 1))
        if (s->slots[j] == id + 1) return 1;
    return 0;
}

int pk_idset_add(pk_idset *s, uint64_t id)
{
    if (id == UINT64_MAX) return -1;
    if ((s->count + 1) * 2 > s->cap && idset_grow(s) != 0) return -1;
    size_t j = slot_of(id, s->cap);
    while (s->slots[j]) {
        if (s->slots[j] == id + 1) return 0;
        j = (j + 1) & (s->cap - 1);
    }
    s->slots[j] = id + 1;
    s->count++;
    return 0;
}

int pk_idset_merge(pk_idset *into, const pk_idset *from)
{
    for (size_t i = 0; i < from->cap; i++)
        if (from->slots[i] && pk_idset_add(into, from->slots[i] - 1) != 0) return -1;
    return 0;
}

uint64_t *pk_idset_sorted(const pk_idset *s)
{
    uint64_t *out = malloc(s->count ? s->count * sizeof *out : 1);
    uint64_t *tmp = malloc(s->count ? s->count * sizeof *tmp : 1); /* the radix sort's room */
    if (!out || !tmp) return free(out), free(tmp), NULL;
    size_t k = 0;
    for (size_t i = 0; i < s->cap; i++)
        if (s->slots[i]) out[k++] = s->slots[i] - 1;
    pk_radix_sort_u64(out, tmp, k, 0); /* qsort was 8 % of opening a small database */
    free(tmp);
    return out;
}
