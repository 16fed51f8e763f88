/*
 * output/frames.c — frame trees (function-level trees, callers, callees)
 * as indented text (their JSON is the answers': output/answer_tree_out.c).
 * Like output/tree.c the walk keeps its own stack, so deep recursion in
 * the profiled program cannot overflow ours. Frames a tree answer folded
 * (pk_tree_options.folded: runs that only pass calls on, as the loader
 * frames above main) are not drawn: the frame below them is, where the
 * first of them would be, named "name (via N frames: a > b > c)".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/answer_tree.h"
#include "cells.h"
#include "profkit/analysis.h"
#include "profkit/output.h"
#include "util/error.h"

typedef struct fwalk {
    const pk_profile *p;
    const pk_frame *f;
    double total;
    pk_tree_options o;
    size_t hidden;
    unsigned char *hot; /* on the hot path */
    uint32_t *lift;     /* per node: folded frames above it (NULL: none fold) */
    FILE *out;
} fwalk;

typedef struct kid {
    double key;
    pk_index i;
} kid;

/* Largest first, NaN before all (seen, and a consistent order). */
static int largest_first(const void *a, const void *b)
{
    const kid *x = a, *y = b;
    int nx = isnan(x->key), ny = isnan(y->key);
    if (nx != ny) return nx ? -1 : 1;
    if (!nx && x->key != y->key) return x->key < y->key ? 1 : -1;
    return x->i < y->i ? -1 : 1;
}

static int shown(const fwalk *w, pk_index i)
{
    if (w->o.shown) return w->o.shown[i];
    if (w->o.max_depth && w->f[i].depth > w->o.max_depth) return 0;
    if (isnan(w->f[i].inclusive) || isnan(w->f[i].self)) return 1; /* never hidden as small */
    if (w->o.threshold <= 0 || isnan(w->total)) return w->f[i].inclusive != 0;
    return fabs(w->f[i].inclusive) >= w->o.threshold / 100.0 * fabs(w->total);
}

/* The hot path's nodes flagged (the tree answer's rule). */
static unsigned char *hot_path(const pk_frame *f, size_t n)
{
    unsigned char *hot = calloc(n ? n : 1, 1);
    if (hot) pkq_mark_hot(f, n, hot);
    return hot;
}

typedef void (*frame_fn)(fwalk *w, pk_index i, int enter);

static pk_status walk(fwalk *w, size_t n, frame_fn fn)
{
    pk_index *stack = malloc(2 * n * sizeof *stack);
    kid *kids = malloc(n * sizeof *kids);
    if (!stack || !kids) {
        free(stack), free(kids);
        return pk_fail_nomem("drawing frames");
    }
    size_t top = 0;
    stack[top++] = 0;
    while (top) {
        pk_index entry = stack[--top];
        if (entry & 0x80000000u) { /* leaving */
            fn(w, entry & 0x7fffffffu, 0);
            continue;
        }
        fn(w, entry, 1);
        stack[top++] = entry | 0x80000000u;
        size_t k = 0;
        for (pk_index c = w->f[entry].first_child; c != PK_NONE; c = w->f[c].next_sibling) {
            if (shown(w, c))
                kids[k++] = (kid){fabs(w->f[c].inclusive), c};
            else
                w->hidden++;
        }
        qsort(kids, k, sizeof *kids, largest_first);
        while (k)
            stack[top++] = kids[--k].i;
    }
    free(stack), free(kids);
    return PK_OK;
}

/* One frame's display name (demangled unless asked, escaped) into buf. */
static void frame_name(const fwalk *w, pk_index i, char *buf, size_t size)
{
    char raw[1024], plain[2048];
    pk_frame_name(w->p, &w->f[i], raw, sizeof raw);
    if (!w->o.keep_mangled) pk_name_demangle(raw, plain, sizeof plain);
    pk_text_escape(w->o.keep_mangled ? raw : plain, buf, size); /* no raw controls */
}

/* " (via N frames: a > b > c)" for the folded run above frame i (the
 * first two and the last two names of a longer one), "" without one;
 * " (via N frames)" when `room` columns cannot hold the names. */
static void via_note(const fwalk *w, pk_index i, unsigned room, char *buf, size_t size)
{
    buf[0] = 0;
    if (!w->lift || !w->lift[i]) return;
    pk_index up[4]; /* bottom up: the nearest two, then the topmost two */
    uint32_t n = pkq_fold_run(w->f, w->o.folded, i, up);
    if (n == 0) return;
    char names[2048] = "", one[512];
    size_t len = 0;
    for (uint32_t j = n < 4 ? n : 4; j-- > 0 && len < sizeof names - 1;) {
        frame_name(w, up[j], one, sizeof one);
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s%s", len ? " > " : "",
                                n > 4 && j == 1 ? "... > " : "", one);
    }
    int full = snprintf(buf, size, " (via %u frame%s: %s)", n, n == 1 ? "" : "s", names);
    if (room && (unsigned)full > room / 2) snprintf(buf, size, " (via %u frames)", n);
}

static void text_frame(fwalk *w, pk_index i, int enter)
{
    if (!enter || (w->lift && w->o.folded[i])) return;
    char name[2048], via[2400];
    const pk_frame *f = &w->f[i];
    frame_name(w, i, name, sizeof name);
    char mark[24];
    uint32_t depth = f->depth - (w->lift ? w->lift[i] : 0);
    unsigned fixed = 38 + pk_columns_width(&w->o);
    unsigned indent = pk_tree_indent(depth, w->o.width, fixed, mark, sizeof mark);
    unsigned used = fixed + indent + (unsigned)strlen(mark);
    unsigned room = w->o.width > used + 20 ? w->o.width - used : 20;
    via_note(w, i, w->o.width ? room : 0, via, sizeof via);
    unsigned vlen = (unsigned)strlen(via);
    if (w->o.width) pk_name_shorten(name, room > vlen + 20 ? room - vlen : 20);
    pk_write_value_share(w->out, f->inclusive, w->total, w->o.numbers);
    fputs("  ", w->out);
    pk_write_value_share(w->out, f->self, w->total, w->o.numbers);
    pk_columns_cells(w->out, &w->o, i);
    uint32_t d = depth > 60 ? 60 : depth;
    fprintf(w->out, " %c%*s%s%s%s%s%s\n", w->hot[i] && d ? '*' : ' ', (int)indent, "", mark,
            w->o.color && d == 0 ? "\033[1m" : "", name, w->o.color && d == 0 ? "\033[0m" : "",
            via);
}

/* lift[i]: how many folded frames are above frame i (parents first). */
static pk_status fold_lifts(fwalk *w, size_t n)
{
    if (!w->o.folded) return PK_OK;
    if (!(w->lift = calloc(n, sizeof *w->lift))) return pk_fail_nomem("drawing the tree");
    for (size_t i = 1; i < n; i++) {
        pk_index up = w->f[i].parent;
        if (up != PK_NONE && up < i) w->lift[i] = w->lift[up] + (w->o.folded[up] ? 1 : 0);
    }
    return PK_OK;
}

pk_status pk_frames_write_text(FILE *out, const pk_profile *p, const pk_frame *f, size_t n,
                               double total, const pk_tree_options *opts)
{
    if (!out || !p || !f || !n) return pk_fail(PK_ERR_INVALID_ARG, "frames: bad arguments");
    fwalk w = {.p = p, .f = f, .total = total, .o = {1.0, 0, 0, 0}, .out = out};
    if (opts) w.o = *opts;
    char incl[64], self[64];
    pk_format_header(incl, sizeof incl, "inclusive", w.o.numbers);
    pk_format_header(self, sizeof self, "self", w.o.numbers);
    fprintf(out, "%17s  %17s", incl, self);
    pk_columns_header(out, &w.o);
    fprintf(out, "  %s\n", "function");
    w.hot = hot_path(f, n);
    if (!w.hot) return pk_fail_nomem("drawing the tree");
    if (w.o.hot) memcpy(w.hot, w.o.hot, n);
    pk_status st = fold_lifts(&w, n);
    if (!st) st = walk(&w, n, text_frame);
    free(w.hot), free(w.lift);
    if (w.hidden)
        fprintf(out, "(%zu %s below %g%% of %s or deeper than the limit not shown)\n", w.hidden,
                w.hidden == 1 ? "frame" : "frames", w.o.threshold,
                w.o.threshold_of ? w.o.threshold_of : "the total");
    return st;
}
