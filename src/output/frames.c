/*
 * output/frames.c — frame trees (function-level trees, callers, callees)
 * as indented text (their JSON is the answers': output/answer_tree_out.c). Like output/tree.c the
 * walk keeps its own stack, so deep recursion in the profiled program cannot overflow ours.
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

static void text_frame(fwalk *w, pk_index i, int enter)
{
    if (!enter) return;
    char raw[1024], plain[2048], name[2048];
    const pk_frame *f = &w->f[i];
    pk_frame_name(w->p, f, raw, sizeof raw);
    if (!w->o.keep_mangled) pk_name_demangle(raw, plain, sizeof plain);
    pk_text_escape(w->o.keep_mangled ? raw : plain, name, sizeof name); /* no raw controls */
    char mark[24];
    unsigned fixed = 38 + pk_columns_width(&w->o);
    unsigned indent = pk_tree_indent(f->depth, w->o.width, fixed, mark, sizeof mark);
    unsigned used = fixed + indent + (unsigned)strlen(mark);
    if (w->o.width) pk_name_shorten(name, w->o.width > used + 20 ? w->o.width - used : 20);
    pk_write_value_share(w->out, f->inclusive, w->total, w->o.numbers);
    fputs("  ", w->out);
    pk_write_value_share(w->out, f->self, w->total, w->o.numbers);
    pk_columns_cells(w->out, &w->o, i);
    uint32_t d = f->depth > 60 ? 60 : f->depth;
    fprintf(w->out, " %c%*s%s%s%s%s\n", w->hot[i] && d ? '*' : ' ', (int)indent, "", mark,
            w->o.color && d == 0 ? "\033[1m" : "", name, w->o.color && d == 0 ? "\033[0m" : "");
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
    pk_status st = walk(&w, n, text_frame);
    free(w.hot);
    if (w.hidden)
        fprintf(out, "(%zu frames below %g%% of %s or deeper than the limit not shown)\n", w.hidden,
                w.o.threshold, w.o.threshold_of ? w.o.threshold_of : "the total");
    return st;
}
