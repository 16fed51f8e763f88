/*
 * analysis/frames.c — the calling-context tree seen as stacks of function
 * frames: what flame graphs, folded stacks, speedscope, callers/callees
 * and diffs show.
 *
 * Only function contexts open a frame; loops, lines and instructions fold
 * into the function around them (unless nothing encloses them, then they
 * name their own frame). Sibling frames with the same name merge, as
 * flamegraph.pl merges equal stacks, so two contexts of one function
 * reached from different call sites of the same caller become one frame.
 * Names are compared through a 64-bit hash of the displayed name (cached
 * per function), with the strings compared on every hash hit.
 */
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/context_groups.h"
#include "frames.h"
#include "model/model.h"
#include "profkit/analysis.h"
#include "util/intern.h"
#include "util/mapfile.h"
#include "util/radix.h"

/* The interner's hash, eight bytes at a time (FNV-1a, a multiply per
 * byte in a row, was 3 % of a rebuilt tree: 58,000 names of 130 bytes);
 * never 0, which the callers' caches take for "not yet". A flame graph's
 * colours come from it (output/flame.c): they changed with it. */
uint64_t pk_frames_hash_name(const char *s)
{
    uint64_t h = pk_hash_bytes(s, strlen(s));
    return h ? h : 1;
}

pk_status pk_frames_add(pk_frames_builder *b, pk_index parent, pk_index context, uint64_t hash,
                        pk_index *out)
{
    uint64_t key[PK_KMAP_WORDS] = {parent, hash};
    uint32_t found;
    int added;
    if (!b->kids.count) b->kids.words = 2; /* keys of 16 bytes, not 64: 29 MB less for 600,000 */
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 256;
        pk_frame *f = realloc(b->f, cap * sizeof *f);
        if (!f) return pk_fail_nomem("building frames");
        b->f = f, b->cap = cap;
    }
    if (pk_kmap_upsert(&b->kids, key, (uint32_t)b->n, &found, &added) < 0)
        return pk_fail_nomem("building frames");
    if (added) {
        pk_frame *f = &b->f[b->n++];
        memset(f, 0, sizeof *f);
        f->parent = parent, f->context = context, f->name_hash = hash;
        f->first_child = f->next_sibling = PK_NONE;
        if (parent != PK_NONE) {
            f->depth = b->f[parent].depth + 1;
            f->next_sibling = b->f[parent].first_child;
            b->f[parent].first_child = found;
        }
    }
    *out = found;
    return PK_OK;
}

enum { FUNCTIONS = 0, PATHS = 1, LOOPS = 2 }; /* what opens a frame (`paths`) */

/* The name hash of context c, cached per function in fn_hash. */
static uint64_t context_hash(const pk_profile *p, uint32_t c, uint64_t *fn_hash, int paths)
{
    /* a loop is named after its position, not the function around it */
    uint32_t fn = p->ctx[c].kind == PK_CTX_LOOP ? UINT32_MAX : p->ctx[c].function;
    if (fn < p->n_functions && fn_hash[fn]) return fn_hash[fn];
    char name[PK_FRAME_NAME_MAX];
    if (paths == PATHS)
        pk_frames_key_name(p, c, name, sizeof name);
    else
        pk_context_name(p, c, name, sizeof name);
    uint64_t h = pk_frames_hash_name(name);
    if (fn < p->n_functions) fn_hash[fn] = h;
    return h;
}

/* Does context c open a frame of its own? For calling paths (PATHS),
 * only functions that are no stand-in a writer made up do; LOOPS keeps
 * loops apart from their function. */
static int opens_frame(const pk_profile *p, uint32_t c, pk_index parent_frame, int paths)
{
    const pk_ctx_rec *r = &p->ctx[c];
    if (paths == LOOPS)
        return r->kind == PK_CTX_FUNCTION || r->kind == PK_CTX_LOOP ||
               (parent_frame == 0 && r->kind != PK_CTX_ENTRY);
    if (paths == PATHS) {
        char name[PK_FRAME_NAME_MAX];
        if (r->kind != PK_CTX_FUNCTION) return 0;
        pk_context_name(p, c, name, sizeof name);
        return !pk_frames_stand_in(name);
    }
    if (r->kind == PK_CTX_FUNCTION) return 1;
    return parent_frame == 0 && r->kind != PK_CTX_ENTRY; /* nothing encloses it */
}

/* self = inclusive minus the children's; rounding dust (below 1e-12 of
 * the root) becomes 0 so flame graphs draw no slivers. */
void pk_frames_finish(pk_frame *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        f[i].self = f[i].inclusive;
    for (size_t i = n; i-- > 1;) /* children come after their parent */
        f[f[i].parent].self -= f[i].inclusive;
    double dust = 1e-12 * (f[0].inclusive < 0 ? -f[0].inclusive : f[0].inclusive);
    for (size_t i = 0; i < n; i++)
        if (f[i].self < dust && f[i].self > -dust) f[i].self = 0;
}

/* A min/max metric's frames: a frame's inclusive value is the smallest
 * (largest) of its contexts' (merged siblings' values do not add up), its
 * self value the smallest (largest) stored exclusive value of the
 * contexts folded into it, NaN without exclusive values. */
static void combine_values(pk_frames_builder *b, const double *incl, const double *excl,
                           const pk_index *frame_of, pk_combine how)
{
    const pk_profile *p = b->p;
    for (size_t f = 0; f < b->n; f++)
        b->f[f].inclusive = b->f[f].self = NAN;
    for (uint32_t c = 0; c < p->n_ctx; c++) {
        pk_index f = frame_of[c];
        if (f == PK_NONE) continue;
        /* a context opens (or merges into) a frame under its parent's;
         * loops, lines and instructions fold into their parent's frame */
        int opens = c == 0 || frame_of[p->ctx[c].parent] != f;
        if (opens) pk_combine_slot(&b->f[f].inclusive, incl[c], how);
        if (excl) pk_combine_slot(&b->f[f].self, excl[c], how);
    }
    for (size_t f = 0; f < b->n; f++) {
        if (isnan(b->f[f].inclusive)) b->f[f].inclusive = 0;
        if (excl && isnan(b->f[f].self)) b->f[f].self = 0;
    }
}

/* Do the frames' name hashes tell every function used apart? */
static int hashes_distinct(const pk_profile *p, const uint64_t *fn_hash)
{
    uint64_t *h = malloc(((size_t)p->n_functions + 1) * 2 * sizeof *h);
    size_t n = 0;
    for (uint32_t f = 0; h && f < p->n_functions; f++)
        if (fn_hash[f]) h[n++] = fn_hash[f];
    if (h) pk_radix_sort_u64(h, h + n, n, 0);
    int ok = h != NULL;
    for (size_t i = 1; ok && i < n; i++)
        ok = h[i] != h[i - 1];
    free(h);
    return ok;
}

/* build() without the (parent, name) map, for a tree where nothing can
 * merge (a tree rebuilt from a call graph): every context a function or
 * an entry point under the root (which folds into it), each parent
 * frame's children consecutive, no two of them of one function, no two
 * functions of one name hash. The frames and their order are the map's
 * (each new child first in its parent's list). Checked as it goes, never
 * assumed: 0 when the tree is not so (b as it was), 1 when built. */
static int build_unmerged(pk_frames_builder *b, const double *incl, pk_index *frame_of,
                          uint64_t *fn_hash)
{
    const pk_profile *p = b->p;
    uint32_t nf = p->n_functions, last_pf = 0;
    uint32_t *seen_under = malloc(((size_t)nf + 1) * sizeof *seen_under);
    pk_frame *f = pk_calloc_big((size_t)p->n_ctx + 1, sizeof *f);
    int ok = seen_under && f;
    for (uint32_t k = 0; ok && k < nf; k++)
        seen_under[k] = PK_NONE;
    size_t n = 1;
    if (ok)
        f[0] = (pk_frame){PK_NONE, PK_NONE, PK_NONE, 0, 0, pk_frames_hash_name("<program root>"),
                          incl[0], 0};
    frame_of[0] = 0;
    for (uint32_t c = 1; ok && c < p->n_ctx; c++) {
        const pk_ctx_rec *r = &p->ctx[c];
        uint32_t pf = r->parent < c ? frame_of[r->parent] : PK_NONE;
        if (r->kind == PK_CTX_ENTRY && pf == 0) { /* folds into the root */
            frame_of[c] = 0;
            continue;
        }
        ok = pf != PK_NONE && r->kind == PK_CTX_FUNCTION && r->function < nf && pf >= last_pf &&
             seen_under[r->function] != pf;
        if (!ok) break;
        seen_under[r->function] = pf, last_pf = pf;
        f[n] = (pk_frame){pf,
                          PK_NONE,
                          f[pf].first_child,
                          c,
                          f[pf].depth + 1,
                          context_hash(p, c, fn_hash, FUNCTIONS),
                          incl[c],
                          0};
        f[pf].first_child = (pk_index)n;
        frame_of[c] = (pk_index)n++;
    }
    ok = ok && hashes_distinct(p, fn_hash);
    free(seen_under);
    if (!ok) return free(f), 0;
    b->f = f, b->n = b->cap = n;
    return 1;
}

static pk_status build(pk_frames_builder *b, const double *incl, pk_index *frame_of,
                       uint64_t *fn_hash, int paths)
{
    if (paths == FUNCTIONS && build_unmerged(b, incl, frame_of, fn_hash)) return PK_OK;
    const pk_profile *p = b->p;
    pk_index root;
    pk_status st = pk_frames_add(b, PK_NONE, 0, pk_frames_hash_name("<program root>"), &root);
    frame_of[0] = root;
    b->f[root].inclusive = incl[0];
    for (uint32_t c = 1; c < p->n_ctx && !st; c++) { /* parents come first */
        uint32_t parent = p->ctx[c].parent;
        frame_of[c] = PK_NONE;
        if (parent >= c || frame_of[parent] == PK_NONE) continue; /* unlisted */
        pk_index pf = frame_of[parent];
        if (!opens_frame(p, c, pf, paths)) {
            frame_of[c] = pf;
            continue;
        }
        st = pk_frames_add(b, pf, c, context_hash(p, c, fn_hash, paths), &frame_of[c]);
        if (!st) b->f[frame_of[c]].inclusive += incl[c];
    }
    return st;
}

static pk_status build_frames_combined(const pk_profile *p, const double *incl, const double *excl,
                                       pk_combine how, int paths, pk_frame **frames, size_t *n)
{
    if (!p || !incl || !frames || !n) return pk_fail(PK_ERR_INVALID_ARG, "pk_frames_build: NULL");
    if (p->n_ctx == 0) return pk_fail(PK_ERR_NOT_FOUND, "the profile has no contexts");
    pk_frames_builder b = {.p = p};
    pk_index *frame_of = pk_malloc_big(p->n_ctx * sizeof *frame_of);
    uint64_t *fn_hash = calloc(p->n_functions ? p->n_functions : 1, sizeof *fn_hash);
    pk_status st = frame_of && fn_hash ? build(&b, incl, frame_of, fn_hash, paths)
                                       : pk_fail_nomem("building frames");
    int extreme = how == PK_COMBINE_MIN || how == PK_COMBINE_MAX;
    if (!st && extreme) combine_values(&b, incl, excl, frame_of, how);
    free(frame_of), free(fn_hash);
    pk_kmap_free(&b.kids);
    if (st) {
        free(b.f);
        return st;
    }
    if (!extreme) pk_frames_finish(b.f, b.n);
    *frames = b.f, *n = b.n;
    return PK_OK;
}

static pk_status build_frames(const pk_profile *p, const double *incl, int paths, pk_frame **frames,
                              size_t *n)
{
    return build_frames_combined(p, incl, NULL, PK_COMBINE_SUM, paths, frames, n);
}

pk_status pk_frames_build_combined(const pk_profile *p, const double *incl, const double *excl,
                                   pk_combine how, int loops, pk_frame **frames, size_t *n)
{
    return build_frames_combined(p, incl, excl, how, loops ? LOOPS : 0, frames, n);
}

pk_status pk_frames_build_paths_combined(const pk_profile *p, const double *incl,
                                         const double *excl, pk_combine how, pk_frame **frames,
                                         size_t *n)
{
    return build_frames_combined(p, incl, excl, how, PATHS, frames, n);
}

pk_status pk_frames_build(const pk_profile *p, const double *incl, pk_frame **frames, size_t *n)
{
    return build_frames(p, incl, 0, frames, n);
}

pk_status pk_frames_build_paths(const pk_profile *p, const double *incl, pk_frame **frames,
                                size_t *n)
{
    return build_frames(p, incl, PATHS, frames, n);
}

pk_status pk_frames_build_loops(const pk_profile *p, const double *incl, pk_frame **frames,
                                size_t *n)
{
    return build_frames(p, incl, LOOPS, frames, n);
}

void pk_frames_free(pk_frame *frames)
{
    free(frames);
}

size_t pk_frame_name(const pk_profile *p, const pk_frame *f, char *buf, size_t size)
{
    return pk_context_name(p, f->context, buf, size);
}
