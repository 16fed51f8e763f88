/*
 * analysis/frame_views.c — trees derived from a frame tree: the callees
 * below one function and the callers above it (pprof's peek,
 * callgrind_annotate --tree=both, hpcviewer's callers view), and the
 * matching of two profiles' frames by their path of names (diffs).
 *
 * Recursion is counted once: only the outermost frames of the function
 * (none of whose ancestors is the function too) contribute, so a
 * recursive function's inclusive value is not added to itself.
 */
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "profkit/pattern.h"

/* match[i] = frame i is named `name` (exact names win over a regex). */
static pk_status match_frames(const pk_profile *p, const pk_frame *f, size_t n, const char *name,
                              unsigned char *match, size_t *hits)
{
    char buf[PK_FRAME_NAME_MAX];
    uint64_t h = pk_frames_hash_name(name);
    *hits = 0;
    for (size_t i = 0; i < n; i++) {
        match[i] = f[i].name_hash == h && pk_frame_name(p, &f[i], buf, sizeof buf) &&
                   strcmp(buf, name) == 0;
        *hits += match[i];
    }
    if (*hits) return PK_OK;
    pk_pattern *re;
    pk_status st = pk_pattern_compile(name, 0, &re);
    if (st && strlen(name) > PK_PATTERN_MAX_LENGTH)
        return pk_fail(PK_ERR_NOT_FOUND, "no function named '%s'", name);
    if (st == PK_ERR_INVALID_ARG) /* bad syntax, a reference, too big: say which */
        return pk_fail(PK_ERR_NOT_FOUND, "no function named '%s', and as a %s", name,
                       pk_error_last());
    if (st) return st;
    for (size_t i = 1; i < n && !st; i++) {
        pk_frame_name(p, &f[i], buf, sizeof buf);
        int hit = 0;
        st = pk_pattern_match(re, buf, strlen(buf), &hit);
        match[i] = (unsigned char)hit;
        *hits += match[i];
    }
    pk_pattern_free(re);
    if (st) return st;
    return *hits ? PK_OK : pk_fail(PK_ERR_NOT_FOUND, "no function named or matching '%s'", name);
}

/* Keep only the outermost matches: drop those below another match. */
static void keep_outermost(const pk_frame *f, size_t n, unsigned char *match)
{
    unsigned char *below = calloc(n, 1);
    for (size_t i = 1; i < n && below; i++) {
        pk_index up = f[i].parent;
        below[i] = below[up] || match[up];
    }
    for (size_t i = 0; i < n && below; i++)
        if (below[i]) match[i] = 0;
    free(below);
}

static pk_status callees(pk_frames_builder *b, const pk_frame *f, size_t n,
                         const unsigned char *outer, pk_index *map)
{
    pk_index root = PK_NONE;
    pk_status st = PK_OK;
    for (size_t i = 0; i < n && !st; i++) {
        map[i] = PK_NONE;
        if (outer[i]) {
            if (root == PK_NONE)
                st = pk_frames_add(b, PK_NONE, f[i].context, f[i].name_hash, &root);
            map[i] = root;
        } else if (i > 0 && map[f[i].parent] != PK_NONE) {
            st = pk_frames_add(b, map[f[i].parent], f[i].context, f[i].name_hash, &map[i]);
        }
        if (!st && map[i] != PK_NONE) b->f[map[i]].inclusive += f[i].inclusive;
    }
    return st;
}

static pk_status callers(pk_frames_builder *b, const pk_frame *f, size_t n,
                         const unsigned char *outer)
{
    pk_index root = PK_NONE;
    pk_status st = PK_OK;
    for (size_t i = 0; i < n && !st; i++) {
        if (!outer[i]) continue;
        if (root == PK_NONE) st = pk_frames_add(b, PK_NONE, f[i].context, f[i].name_hash, &root);
        pk_index at = root;
        if (!st) b->f[root].inclusive += f[i].inclusive, b->f[root].self += f[i].self;
        for (pk_index up = f[i].parent; up != PK_NONE && up != 0 && !st; up = f[up].parent) {
            st = pk_frames_add(b, at, f[up].context, f[up].name_hash, &at);
            if (!st) b->f[at].inclusive += f[i].inclusive, b->f[at].self += f[i].self;
        }
    }
    return st;
}

pk_status pk_frames_around(const pk_profile *p, const pk_frame *f, size_t n, const char *name,
                           int want_callers, pk_frame **out, size_t *n_out)
{
    if (!p || !f || !n || !name || !out || !n_out)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_frames_around: bad arguments");
    unsigned char *match = malloc(n);
    pk_index *map = malloc(n * sizeof *map);
    pk_frames_builder b = {.p = p};
    size_t hits;
    pk_status st = match && map ? match_frames(p, f, n, name, match, &hits)
                                : pk_fail_nomem("finding a function");
    if (!st) keep_outermost(f, n, match);
    if (!st) st = want_callers ? callers(&b, f, n, match) : callees(&b, f, n, match, map);
    free(match), free(map);
    pk_kmap_free(&b.kids);
    if (st) {
        free(b.f);
        return st;
    }
    if (!want_callers) pk_frames_finish(b.f, b.n);
    *out = b.f, *n_out = b.n;
    return PK_OK;
}

static pk_status index_children(const pk_frame *f, size_t n, pk_kmap *m)
{
    for (size_t i = 1; i < n; i++) {
        uint64_t key[PK_KMAP_WORDS] = {f[i].parent, f[i].name_hash};
        uint32_t v;
        int added;
        if (pk_kmap_upsert(m, key, (uint32_t)i, &v, &added) < 0)
            return pk_fail_nomem("matching frames");
    }
    return PK_OK;
}

int pk_frames_same_name(const pk_profile *pa, const pk_frame *a, const pk_profile *pb,
                        const pk_frame *b)
{
    char x[PK_FRAME_NAME_MAX], y[PK_FRAME_NAME_MAX];
    pk_frames_key_name(pa, a->context, x, sizeof x);
    pk_frames_key_name(pb, b->context, y, sizeof y);
    return strcmp(x, y) == 0;
}

pk_status pk_frames_match(const pk_profile *pa, const pk_frame *a, size_t n_a, const pk_profile *pb,
                          const pk_frame *b, size_t n_b, pk_index *b_of_a)
{
    if (!pa || !a || !pb || !b || !b_of_a || !n_a || !n_b)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_frames_match: bad arguments");
    pk_kmap kids = {0};
    pk_status st = index_children(b, n_b, &kids);
    b_of_a[0] = 0; /* the roots */
    for (size_t i = 1; i < n_a && !st; i++) {
        pk_index up = b_of_a[a[i].parent];
        uint64_t key[PK_KMAP_WORDS] = {up, a[i].name_hash};
        uint32_t j;
        b_of_a[i] = PK_NONE;
        if (up != PK_NONE && pk_kmap_get(&kids, key, &j) &&
            pk_frames_same_name(pa, &a[i], pb, &b[j]))
            b_of_a[i] = j;
    }
    pk_kmap_free(&kids);
    return st;
}
