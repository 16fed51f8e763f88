/*
 * analysis/trace_chrome_paths.c — call paths as the Chrome export compares
 * them: one node per distinct path of functions (the keys of a frame and
 * of every frame above it), so two contexts reached by different call
 * sites of the same functions are one node. Then a change of path costs
 * the frames that end and begin, found by walking up from the new path
 * until a node the open stack holds at the same depth — never a walk over
 * the whole depth of a path that did not change (a hostile tree can be a
 * million levels deep). Built in one pass over the contexts with a hash
 * table of (parent node, key).
 */
#include <stdlib.h>
#include <string.h>

#include "trace_chrome.h"
#include "util/error.h"

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

pk_status tc_paths_build(const ts_paths *paths, tc_paths *cp)
{
    size_t n = paths->n_ctx ? paths->n_ctx : 1, slots = 16;
    while (slots < 2 * n)
        slots *= 2;
    memset(cp, 0, sizeof *cp);
    cp->of = malloc(n * sizeof *cp->of), cp->parent = malloc(n * sizeof *cp->parent);
    cp->depth = malloc(n * sizeof *cp->depth), cp->frame = malloc(n * sizeof *cp->frame);
    cp->text = malloc(n * sizeof *cp->text);
    uint64_t *keys = malloc(slots * sizeof *keys); /* (parent + 1) << 32 | key, 0 empty */
    uint32_t *ids = malloc(slots * sizeof *ids);
    if (!cp->of || !cp->parent || !cp->depth || !cp->frame || !cp->text || !keys || !ids) {
        free(keys), free(ids), tc_paths_free(cp);
        return pk_fail_nomem("following call paths");
    }
    memset(keys, 0, slots * sizeof *keys);
    for (pk_index c = 0; c < paths->n_ctx; c++) {
        if (paths->frame[c] != c) continue; /* only frames are nodes */
        uint32_t up = paths->up[c] == PK_NONE ? UINT32_MAX : cp->of[paths->up[c]];
        uint64_t k = ((uint64_t)up + 1) << 32 | paths->key[c], h = mix(k) & (slots - 1);
        while (keys[h] && keys[h] != k)
            h = (h + 1) & (slots - 1);
        if (!keys[h]) { /* a path not seen yet */
            keys[h] = k, ids[h] = (uint32_t)cp->n;
            cp->parent[cp->n] = up, cp->frame[cp->n] = c, cp->text[cp->n] = -1;
            cp->depth[cp->n] = up == UINT32_MAX ? 1 : cp->depth[up] + 1;
            cp->n++;
        }
        cp->of[c] = ids[h];
    }
    free(keys), free(ids);
    return PK_OK;
}

void tc_paths_free(tc_paths *cp)
{
    free(cp->of), free(cp->parent), free(cp->depth), free(cp->frame), free(cp->text);
    memset(cp, 0, sizeof *cp);
}
