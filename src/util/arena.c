/*
 * util/arena.c — bump allocator behind every profile's model.
 */
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_ALIGN 16
#define ARENA_CHUNK (64 * 1024)

struct pk_arena_chunk {
    pk_arena_chunk *next;
    size_t size; /* usable bytes after the header */
    _Alignas(ARENA_ALIGN) unsigned char data[];
};

struct pk_arena_owned {
    pk_arena_owned *next;
    void *block;
};

void pk_arena_init(pk_arena *a)
{
    a->head = NULL;
    a->used = 0;
    a->total = 0;
    a->owned = NULL;
}

void pk_arena_free(pk_arena *a)
{
    for (pk_arena_owned *o = a->owned; o; o = o->next) /* the list lives in the chunks */
        free(o->block);
    pk_arena_chunk *c = a->head;
    while (c) {
        pk_arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    pk_arena_init(a);
}

/* Start a new chunk big enough for `size` bytes. Oversized requests get a
 * chunk of their own, pushed *behind* the head so the head's free space is
 * not abandoned. */
static void *arena_new_chunk(pk_arena *a, size_t size)
{
    size_t want = size > ARENA_CHUNK / 4 ? size : ARENA_CHUNK;
    pk_arena_chunk *c = malloc(sizeof *c + want);
    if (!c) return NULL;
    c->size = want;
    a->total += want;
    if (want != ARENA_CHUNK && a->head) {
        c->next = a->head->next;
        a->head->next = c;
        return c->data;
    }
    c->next = a->head;
    a->head = c;
    a->used = size;
    return c->data;
}

/* `size` bytes as they are. */
static void *arena_take(pk_arena *a, size_t size)
{
    if (size == 0) size = 1;
    if (size > SIZE_MAX - ARENA_ALIGN) return NULL;
    size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (a->head && a->head->size - a->used >= size) {
        void *p = a->head->data + a->used;
        a->used += size;
        return p;
    }
    return arena_new_chunk(a, size);
}

void *pk_arena_alloc(pk_arena *a, size_t size)
{
    void *p = arena_take(a, size);
    if (p) memset(p, 0, size);
    return p;
}

void *pk_arena_array_unset(pk_arena *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) return NULL;
    return arena_take(a, n * size);
}

void *pk_arena_array(pk_arena *a, size_t n, size_t size)
{
    void *p = pk_arena_array_unset(a, n, size);
    if (p) memset(p, 0, n * size);
    return p;
}

char *pk_arena_strndup(pk_arena *a, const char *s, size_t len)
{
    if (len == SIZE_MAX) return NULL;
    char *d = pk_arena_alloc(a, len + 1);
    if (!d) return NULL;
    memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

int pk_arena_own(pk_arena *a, void *block)
{
    pk_arena_owned *o = pk_arena_alloc(a, sizeof *o);
    if (!o) return -1;
    o->block = block, o->next = a->owned;
    a->owned = o;
    return 0;
}
