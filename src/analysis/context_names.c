/*
 * analysis/context_names.c — the contexts' display names as a categorical
 * column (pk_context_name_codes(), profkit/analysis.h): each distinct name
 * once, sorted, and each context's index among them.
 *
 * A table of values per context (Python's dataframe(), in Hatchet's
 * shape) shows a name on every row. Made here in one pass (a hash table
 * of the names met, each noted with the order it was first met in, then
 * the distinct ones sorted), a front end builds one string per distinct
 * name instead of one per context, and hashes and sorts nothing
 * (issue-233: 14,000 contexts, 8,600 names; the names were a quarter of
 * dataframe()). A table of the names' own, not the interner: the interner
 * gives each name a pointer, and a second table from pointers to their
 * order cost a third more.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "profkit/analysis.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/intern.h" /* pk_hash_bytes */
#include "util/utf8.h"

typedef struct name_work {
    pk_arena arena; /* the distinct names */
    char *buf;      /* a name */
    size_t cap;
    pk_buf fixed; /* a name not well-formed, repaired (pk_buf_utf8_str()) */
} name_work;

/* Context i's name, well-formed, in w->buf or w->fixed; NULL when out of
 * memory. */
static const char *context_name(name_work *w, const pk_profile *p, uint32_t i, size_t *len)
{
    size_t n = pk_context_name(p, i, w->buf, w->cap);
    if (n >= w->cap) {
        char *b = realloc(w->buf, n + 1);
        if (!b) return NULL;
        w->buf = b, w->cap = n + 1;
        n = pk_context_name(p, i, w->buf, w->cap);
    }
    *len = n;
    if (pk_utf8_valid(w->buf, n)) return w->buf;
    w->fixed.len = 0;
    pk_buf_utf8_str(&w->fixed, w->buf);
    if (w->fixed.failed) return NULL;
    *len = w->fixed.len - 1; /* without the NUL */
    return (const char *)w->fixed.data;
}

/* A distinct name: its first 8 bytes big-endian (most comparisons end
 * there), where it is, and the order it was first met in. */
typedef struct distinct {
    uint64_t prefix;
    const char *str;
    size_t len;
    uint32_t first;
} distinct;

static int by_bytes(const void *a, const void *b)
{
    const distinct *x = a, *y = b;
    if (x->prefix != y->prefix) return x->prefix < y->prefix ? -1 : 1;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = n > 8 ? memcmp(x->str + 8, y->str + 8, n - 8) : 0;
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

static uint64_t prefix_of(const char *s, size_t len)
{
    uint64_t k = 0;
    for (size_t i = 0; i < 8; i++)
        k = k << 8 | (i < len ? (unsigned char)s[i] : 0);
    return k;
}

/* Names to the order they were first met in: open addressing on their
 * hash; each distinct name copied into the arena once. */
typedef struct seen {
    uint32_t *slot; /* index into d + 1; 0: empty */
    uint64_t *hash; /* per distinct name */
    size_t mask;
} seen;

static pk_status seen_index(name_work *w, seen *m, const char *s, size_t len, distinct *d,
                            size_t *n, uint32_t *out)
{
    uint64_t h = pk_hash_bytes(s, len);
    size_t j = (size_t)h & m->mask;
    for (; m->slot[j]; j = (j + 1) & m->mask) {
        const distinct *e = &d[m->slot[j] - 1];
        if (m->hash[m->slot[j] - 1] == h && e->len == len && memcmp(e->str, s, len) == 0)
            return *out = e->first, PK_OK;
    }
    char *copy = pk_arena_strndup(&w->arena, s, len);
    if (!copy) return pk_fail_nomem("naming contexts");
    uint32_t k = (uint32_t)(*n)++; /* the new name's index in d */
    m->hash[k] = h;
    d[k] = (distinct){prefix_of(copy, len), copy, len, k};
    m->slot[j] = k + 1; /* 0 marks an empty slot */
    *out = k;
    return PK_OK;
}

/* Codes by first meeting (codes[i]) become ranks in the sorted names. */
static pk_status rank_names(distinct *d, size_t k, size_t n_ctx, pk_name_codes *out)
{
    uint32_t *rank = malloc((k + 1) * sizeof *rank);
    out->names = malloc((k + 1) * sizeof *out->names);
    out->lengths = malloc((k + 1) * sizeof *out->lengths);
    if (!rank || !out->names || !out->lengths) return free(rank), pk_fail_nomem("naming contexts");
    qsort(d, k, sizeof *d, by_bytes);
    for (size_t i = 0; i < k; i++) {
        out->names[i] = d[i].str, out->lengths[i] = d[i].len;
        rank[d[i].first] = (uint32_t)i;
    }
    for (size_t i = 0; i < n_ctx; i++)
        out->codes[i] = rank[out->codes[i]];
    out->n_names = k;
    free(rank);
    return PK_OK;
}

/* Every context's name met once, in codes by first meeting, distinct in d. */
static pk_status meet_names(name_work *w, const pk_profile *p, distinct *d, size_t *k,
                            uint32_t *codes)
{
    size_t cap = 16;
    while (cap < 2 * (size_t)p->n_ctx)
        cap *= 2;
    seen m = {calloc(cap, sizeof *m.slot), malloc(((size_t)p->n_ctx + 1) * sizeof *m.hash),
              cap - 1};
    pk_status st = m.slot && m.hash ? PK_OK : pk_fail_nomem("naming contexts");
    for (uint32_t i = 0; !st && i < p->n_ctx; i++) {
        size_t len;
        const char *s = context_name(w, p, i, &len);
        st = s ? seen_index(w, &m, s, len, d, k, &codes[i]) : pk_fail_nomem("naming contexts");
    }
    free(m.slot), free(m.hash);
    return st;
}

pk_status pk_context_name_codes(const pk_profile *p, pk_name_codes *out)
{
    if (!p || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_context_name_codes: no profile");
    memset(out, 0, sizeof *out);
    name_work *w = calloc(1, sizeof *w);
    distinct *d = malloc(((size_t)p->n_ctx + 1) * sizeof *d);
    out->codes = malloc(((size_t)p->n_ctx + 1) * sizeof *out->codes);
    if (w) pk_arena_init(&w->arena);
    if (w) w->cap = 256, w->buf = malloc(w->cap);
    pk_status st = w && d && out->codes && w->buf ? PK_OK : pk_fail_nomem("naming contexts");
    size_t k = 0;
    if (!st) st = meet_names(w, p, d, &k, out->codes);
    if (!st) st = rank_names(d, k, p->n_ctx, out);
    free(d);
    if (w) free(w->buf), pk_buf_free(&w->fixed);
    if (st) {
        if (w) pk_arena_free(&w->arena);
        free(w);
        pk_name_codes_free(out);
        return st;
    }
    out->storage = w; /* the arena the names live in */
    return PK_OK;
}

void pk_name_codes_free(pk_name_codes *c)
{
    if (!c) return;
    name_work *w = c->storage;
    if (w) pk_arena_free(&w->arena);
    free(w);
    free(c->names), free(c->lengths), free(c->codes);
    memset(c, 0, sizeof *c);
}
