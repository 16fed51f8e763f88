/*
 * output/flame_folded.c — folded stacks ("main;solve;dot 2.5", one line per
 * frame with a positive self value) of a frame tree: what flamegraph.pl,
 * inferno and speedscope read. Refused before a byte is written when a
 * deep tree would make it quadratically large.
 */
#include <stdlib.h>
#include <string.h>

#include "profkit/analysis.h"
#include "profkit/output.h"
#include "util/error.h"
#include "util/text_escape.h"

#define NAME_MAX 1024

/* Every output built on a reconstructed tree says so. */
static int reconstructed(const pk_profile *p)
{
    pk_profile_info pi;
    return pk_profile_get_info(p, &pi) == PK_OK && pi.reconstructed;
}

/* Append frame i's name to the path buffer at *len, ';' separated; a
 * control character or invalid byte in the name in its visible form
 * (text_escape.h), so no name can break a line or a terminal. */
static int push_name(const pk_profile *p, const pk_frame *f, char **path, size_t *cap, size_t *len)
{
    char raw[NAME_MAX], name[2 * NAME_MAX];
    pk_frame_name(p, f, raw, sizeof raw);
    size_t k = pk_text_escape(raw, name, sizeof name);
    if (k >= sizeof name) k = strlen(name);
    if (*len + k + 2 > *cap) {
        size_t cap2 = 2 * (*len + k + 2);
        char *grown = realloc(*path, cap2);
        if (!grown) return -1;
        *path = grown, *cap = cap2;
    }
    if (*len) (*path)[(*len)++] = ';';
    for (size_t j = 0; j < k; j++)
        (*path)[(*len)++] = name[j] == ';' ? ':' : name[j];
    (*path)[*len] = 0;
    return 0;
}

/* Depth-first over frames, the path of names kept in one buffer. */
static pk_status folded_walk(FILE *out, const pk_profile *p, const pk_frame *f, size_t n,
                             size_t *path_len, char **path, size_t *cap)
{
    size_t top = 0, *stack = malloc(n * sizeof *stack);
    if (!stack) return pk_fail_nomem("writing folded stacks");
    for (pk_index c = f[0].first_child; c != PK_NONE; c = f[c].next_sibling)
        stack[top++] = c;
    while (top) {
        pk_index i = (pk_index)stack[--top];
        path_len[f[i].depth] = f[i].depth > 1 ? path_len[f[i].depth - 1] : 0;
        size_t len = path_len[f[i].depth];
        if (push_name(p, &f[i], path, cap, &len) < 0) break;
        path_len[f[i].depth] = len;
        if (f[i].self > 0) {
            char v[40];
            pk_format_double(v, sizeof v, f[i].self);
            fprintf(out, "%s %s\n", *path, v);
        }
        (*path)[len] = 0;
        for (pk_index c = f[i].first_child; c != PK_NONE; c = f[c].next_sibling)
            stack[top++] = c;
    }
    free(stack);
    return top ? pk_fail_nomem("writing folded stacks") : PK_OK;
}

/* Stacks repeat the path from the root on every line, so a deep tree's
 * folded text grows with the square of its depth: a chain 100,000 deep
 * makes 19.5 GB from a 24 MB profile. Such output is refused before a
 * byte is written, when it would pass FOLDED_MAX_BYTES and be more than
 * FOLDED_MAX_RATIO times the frames' own text (real profiles, a few
 * hundred frames deep, stay far below both). */
#define FOLDED_MAX_BYTES (1ull << 30)
#define FOLDED_MAX_RATIO 1024

static pk_status folded_size_check(const pk_profile *p, const pk_frame *f, size_t n)
{
    uint64_t *plen = malloc(n * sizeof *plen), total = 0, own = 0;
    if (!plen) return pk_fail_nomem("writing folded stacks");
    char name[NAME_MAX];
    uint32_t deepest = 0;
    plen[0] = 0;
    for (size_t i = 1; i < n; i++) { /* parents come before their children */
        size_t k = pk_frame_name(p, &f[i], name, sizeof name);
        k = k >= sizeof name ? sizeof name - 1 : k;
        uint64_t up = f[i].parent != PK_NONE && f[i].parent < i ? plen[f[i].parent] : 0;
        plen[i] = up + k + (up != 0);
        own += k + 1;
        if (f[i].self > 0) total += plen[i] + 24, own += 24;
        if (f[i].depth > deepest) deepest = f[i].depth;
    }
    free(plen);
    if (total <= FOLDED_MAX_BYTES || total / FOLDED_MAX_RATIO <= own) return PK_OK;
    return pk_fail(PK_ERR_LIMIT,
                   "folded stacks: the output would take about %.1f GB for %zu frames (each line "
                   "repeats its whole path, and the tree is %u frames deep); write the profile "
                   "as speedscope or profkit JSON instead, which grow with the tree, not with "
                   "the square of its depth",
                   (double)total / 1e9, n, deepest);
}

pk_status pk_flame_write_folded(FILE *out, const pk_profile *p, const pk_frame *f, size_t n)
{
    if (!out || !p || !f || n == 0) return pk_fail(PK_ERR_INVALID_ARG, "folded: bad arguments");
    pk_status st = folded_size_check(p, f, n);
    if (st) return st;
    uint32_t max_depth = 0;
    for (size_t i = 0; i < n; i++)
        if (f[i].depth > max_depth) max_depth = f[i].depth;
    size_t *path_len = calloc((size_t)max_depth + 2, sizeof *path_len), cap = 4096;
    char *path = malloc(cap);
    if (reconstructed(p)) /* readers of folded stacks skip a line they cannot read */
        fputs("# calling contexts RECONSTRUCTED from the call graph (approximate)\n", out);
    st = path_len && path ? folded_walk(out, p, f, n, path_len, &path, &cap)
                          : pk_fail_nomem("writing folded stacks");
    free(path_len), free(path);
    if (!st && ferror(out)) st = pk_fail(PK_ERR_IO, "folded: write error");
    return st;
}
