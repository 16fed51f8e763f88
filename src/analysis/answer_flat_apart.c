/*
 * analysis/answer_flat_apart.c — what tells a flat row apart from another
 * of the same name. Grouped by function, two rows share a name when they
 * are different functions: statics of one name in two files, a function
 * in two libraries. Each shown row of such a name says what differs
 * (the module, else the file, else the line of its definition), so no
 * two rows read alike, whichever of them the table shows.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/qry.h"
#include "util/error.h"
#include "util/intern.h"

typedef struct named {
    const char *name;
    pk_function fn;
    size_t pos; /* in the ranked keys: < shown is row pos */
} named;

static int by_name(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : x->pos < y->pos ? -1 : x->pos > y->pos;
}

static const char *base_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path;
}

/* Do the paths (modules or files) of the group's functions differ? By
 * their base names alone (*whole 0) or only whole (*whole 1). */
static int paths_differ(const pk_profile *p, const named *g, size_t n, int module, int *whole)
{
    const char *first = NULL, *first_base = NULL;
    int differ = 0, bases_differ = 0;
    for (size_t i = 0; i < n; i++) {
        pk_index at = module ? g[i].fn.module : g[i].fn.file;
        const char *path = "";
        pk_module m;
        pk_file f;
        if (module && at != PK_NONE && pk_module_get(p, at, &m) == PK_OK && m.path) path = m.path;
        if (!module && at != PK_NONE && pk_file_get(p, at, &f) == PK_OK && f.path) path = f.path;
        if (!first) first = path, first_base = base_name(path);
        differ |= strcmp(first, path) != 0;
        bases_differ |= strcmp(first_base, base_name(path)) != 0;
    }
    *whole = !bases_differ;
    return differ;
}

/* Say, for the group's shown rows, what tells them apart. */
static pk_status tell_group(const pk_profile *p, pk_arena *a, const named *g, size_t n,
                            pk_flat_entry *rows, size_t shown)
{
    int whole = 0, by_module = paths_differ(p, g, n, 1, &whole);
    const char *kind = by_module ? "module" : paths_differ(p, g, n, 0, &whole) ? "file" : "line";
    for (size_t i = 0; i < n; i++) {
        if (g[i].pos >= shown) continue;
        pk_flat_entry *e = &rows[g[i].pos];
        const char *path = kind[0] == 'm' ? e->module : e->file;
        char text[64];
        if (kind[0] == 'l') snprintf(text, sizeof text, "line %u", g[i].fn.line);
        e->differs = kind[0] == 'l' ? pkq_strdup(a, text)
                                    : pkq_strdup(a, !path   ? "?"
                                                    : whole ? path
                                                            : base_name(path));
        e->differs_by = kind;
        if (!e->differs) return pk_fail_nomem("a flat profile");
    }
    return PK_OK;
}

/* The names of the shown rows, by hash (open addressing, 2x room). */
typedef struct shown_names {
    uint64_t *hash;
    const char **name; /* NULL: empty slot */
    size_t mask;
} shown_names;

static int shown_find(const shown_names *t, const char *name, uint64_t h, size_t *slot)
{
    size_t j = h & t->mask;
    for (; t->name[j]; j = (j + 1) & t->mask)
        if (t->hash[j] == h && strcmp(t->name[j], name) == 0) return *slot = j, 1;
    return *slot = j, 0;
}

/* A name's hash over its first 32 bytes at most: every row's name is
 * looked up among the shown ones, and whole names (cc1's: 130 bytes on
 * average) were hashed and measured for that; a shared prefix only costs
 * a string comparison with the shown names that have it. */
static uint64_t prefix_hash(const char *name)
{
    return pk_hash_bytes(name, strnlen(name, 32));
}

/* The rows (all n) whose function's name a shown row's function has:
 * only their groups are told apart, so only they are sorted by name
 * (sorting all of cc1's 60,000 names was 7 % of `flat`). */
static size_t of_shown_names(const pk_profile *p, const uint64_t *keys, size_t n, size_t shown,
                             named *all)
{
    size_t cap = 16, k = 0, slot;
    while (cap < 2 * (shown < n ? shown : n))
        cap *= 2;
    shown_names t = {calloc(cap, sizeof *t.hash), calloc(cap, sizeof *t.name), cap - 1};
    if (!t.hash || !t.name) {
        free(t.hash), free(t.name);
        return SIZE_MAX;
    }
    for (size_t i = 0; i < n; i++) {
        named x;
        if (keys[i] >= PK_NONE || pk_function_get(p, (pk_index)keys[i], &x.fn) != PK_OK ||
            !x.fn.name)
            continue;
        uint64_t h = prefix_hash(x.fn.name);
        int known = shown_find(&t, x.fn.name, h, &slot);
        if (!known && i < shown) t.hash[slot] = h, t.name[slot] = x.fn.name, known = 1;
        if (known) x.name = x.fn.name, x.pos = i, all[k++] = x;
    }
    free(t.hash), free(t.name);
    return k;
}

pk_status pkq_flat_tell_apart(const pk_profile *p, pk_arena *a, const uint64_t *keys, size_t n,
                              pk_flat_entry *rows, size_t shown)
{
    named *all = malloc((n ? n : 1) * sizeof *all);
    size_t k = all ? of_shown_names(p, keys, n, shown, all) : SIZE_MAX;
    if (k == SIZE_MAX) {
        free(all);
        return pk_fail_nomem("a flat profile");
    }
    qsort(all, k, sizeof *all, by_name);
    pk_status st = PK_OK;
    for (size_t i = 0, j; !st && i < k; i = j) {
        int any_shown = all[i].pos < shown;
        for (j = i + 1; j < k && strcmp(all[j].name, all[i].name) == 0; j++)
            any_shown |= all[j].pos < shown;
        if (j - i > 1 && any_shown) st = tell_group(p, a, all + i, j - i, rows, shown);
    }
    free(all);
    return st;
}
