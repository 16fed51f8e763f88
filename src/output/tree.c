/*
 * output/tree.c — the top-down calling-context tree as text or JSON.
 *
 * The walk is iterative (an explicit stack), so deep recursion in the
 * profiled program cannot overflow ours. Children are visited largest
 * inclusive value first; contexts below the threshold or the depth limit
 * are counted, not printed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cells.h"
#include "profkit/output.h"
#include "util/error.h"

typedef struct tree_walk {
    const pk_profile *p;
    const double *incl, *excl;
    double total;
    pk_tree_options o;
    size_t hidden;
    unsigned char *hot; /* on the hot path */
    FILE *out;
    pk_json json;
} tree_walk;

typedef struct frame {
    pk_index node;
    int entered;
} frame;

typedef struct kid {
    double key; /* |inclusive| */
    pk_index node;
} kid;

/* Largest first; a NaN (a damaged or undefined value) before all, so it
 * is seen, and the order stays consistent for qsort. */
static int by_inclusive_desc(const void *a, const void *b)
{
    const kid *x = a, *y = b;
    int nx = isnan(x->key), ny = isnan(y->key);
    if (nx != ny) return nx ? -1 : 1;
    if (!nx && x->key != y->key) return x->key < y->key ? 1 : -1;
    return x->node < y->node ? -1 : 1;
}

static int shown(const tree_walk *w, pk_index i, uint32_t depth)
{
    if (w->o.shown) return w->o.shown[i];
    if (w->o.max_depth && depth > w->o.max_depth) return 0;
    /* NaN compares false with everything: shown, never hidden as "small" */
    if (isnan(w->incl[i]) || (w->excl && isnan(w->excl[i]))) return 1;
    if (w->o.threshold <= 0 || isnan(w->total))
        return w->incl[i] != 0.0 || (w->excl && w->excl[i] != 0.0);
    return fabs(w->incl[i]) >= w->o.threshold / 100.0 * fabs(w->total);
}

/* hot[c] = 1 along the hot path: the root, then while the largest child
 * holds at least half of its parent's inclusive value. */
static pk_status mark_hot_path(tree_walk *w)
{
    size_t n = pk_context_count(w->p);
    w->hot = calloc(n ? n : 1, 1);
    if (!w->hot) return pk_fail_nomem("drawing the tree");
    if (n == 0) return PK_OK;
    if (w->o.hot) return memcpy(w->hot, w->o.hot, n), PK_OK;
    pk_index node = 0;
    for (;;) {
        w->hot[node] = 1;
        pk_context c;
        pk_context_get(w->p, node, &c);
        pk_index best = PK_NONE;
        for (uint32_t i = 0; i < c.n_children; i++)
            if (best == PK_NONE || fabs(w->incl[c.first_child + i]) > fabs(w->incl[best]))
                best = c.first_child + i;
        if (best == PK_NONE || w->incl[node] == 0 ||
            fabs(w->incl[best]) < 0.5 * fabs(w->incl[node]))
            return PK_OK;
        node = best;
    }
}

typedef void (*tree_fn)(tree_walk *w, pk_index node, uint32_t depth, int enter);

/* Depth-first walk calling fn on entering and leaving every shown node. */
static pk_status walk(tree_walk *w, tree_fn fn)
{
    size_t n = pk_context_count(w->p);
    if (n == 0) return PK_OK;
    frame *stack = malloc(n * sizeof *stack);
    kid *kids = malloc(n * sizeof *kids);
    if (!stack || !kids) {
        free(stack);
        free(kids);
        return pk_fail_nomem("drawing the tree");
    }
    size_t top = 0;
    stack[top++] = (frame){0, 0};
    while (top) {
        frame *f = &stack[top - 1];
        pk_context c;
        pk_context_get(w->p, f->node, &c);
        if (f->entered) {
            fn(w, f->node, c.depth, 0);
            top--;
            continue;
        }
        f->entered = 1;
        fn(w, f->node, c.depth, 1);
        size_t k = 0;
        for (uint32_t i = 0; i < c.n_children; i++) {
            pk_index child = c.first_child + i;
            if (shown(w, child, c.depth + 1))
                kids[k++] = (kid){fabs(w->incl[child]), child};
            else
                w->hidden++;
        }
        qsort(kids, k, sizeof *kids, by_inclusive_desc);
        while (k)
            stack[top++] = (frame){kids[--k].node, 0};
    }
    free(stack);
    free(kids);
    return PK_OK;
}

static void text_node(tree_walk *w, pk_index node, uint32_t depth, int enter)
{
    if (!enter) return;
    char raw[1024], plain[2048], name[2048];
    pk_context c;
    pk_context_get(w->p, node, &c);
    pk_context_name(w->p, node, raw, sizeof raw);
    if (!w->o.keep_mangled) pk_name_demangle(raw, plain, sizeof plain);
    pk_text_escape(w->o.keep_mangled ? raw : plain, name, sizeof name); /* no raw controls */
    int inlined = c.relation == PK_REL_INLINED_CALL;
    char mark[24];
    unsigned fixed = 40 + pk_columns_width(&w->o);
    unsigned indent = pk_tree_indent(depth, w->o.width, fixed, mark, sizeof mark);
    unsigned used = fixed + indent + (unsigned)strlen(mark) + (inlined ? 10 : 0);
    if (w->o.width) pk_name_shorten(name, w->o.width > used + 20 ? w->o.width - used : 20);
    size_t len = strlen(name);
    if (inlined) snprintf(name + len, sizeof name - len, " [inlined]");
    pk_write_value_share(w->out, w->incl[node], w->total, w->o.numbers);
    fputs("  ", w->out);
    if (w->excl)
        pk_write_value_share(w->out, w->excl[node], w->total, w->o.numbers);
    else
        fprintf(w->out, "%17s", "-");
    pk_columns_cells(w->out, &w->o, node);
    fprintf(w->out, " %c%*s%s", w->hot[node] && depth > 0 ? '*' : ' ', (int)indent, "", mark);
    if (w->o.color && depth > 0) {
        const char *color = w->hot[node]                ? "\033[1;31m"
                            : c.kind == PK_CTX_FUNCTION ? "\033[1m"
                                                        : "\033[2m";
        fprintf(w->out, "%s%s\033[0m\n", color, name);
    } else {
        fprintf(w->out, "%s\n", name);
    }
}

pk_status pk_tree_write_text(FILE *out, const pk_profile *p, const double *inclusive,
                             const double *exclusive, double total, const pk_tree_options *opts)
{
    if (!out || !p || !inclusive) return pk_fail(PK_ERR_INVALID_ARG, "tree: NULL argument");
    tree_walk w = {p, inclusive, exclusive, total, {1.0, 0, 0, 0}, 0, NULL, out, {0}};
    if (opts) w.o = *opts;
    pk_status st = mark_hot_path(&w);
    if (st) return st;
    char incl[64], excl[64];
    pk_format_header(incl, sizeof incl, "inclusive", w.o.numbers);
    pk_format_header(excl, sizeof excl, "exclusive", w.o.numbers);
    fprintf(out, "%17s  %17s", incl, excl);
    pk_columns_header(out, &w.o);
    fprintf(out, "  %s\n", "context");
    st = walk(&w, text_node);
    free(w.hot);
    if (w.hidden && w.o.threshold > 0)
        fprintf(out, "(%zu contexts below %g%% of %s or deeper than the limit not shown)\n",
                w.hidden, w.o.threshold, w.o.threshold_of ? w.o.threshold_of : "the total");
    else if (w.hidden)
        fprintf(out, "(%zu contexts without a value or deeper than the limit not shown)\n",
                w.hidden);
    return st;
}

const char *pk_kind_name(pk_context_kind kind)
{
    static const char *const kinds[] = {"root", "entry",       "function", "loop",
                                        "line", "instruction", "unknown"};
    return kinds[kind <= PK_CTX_UNKNOWN ? kind : PK_CTX_UNKNOWN];
}

const char *pk_relation_name(pk_relation relation)
{
    static const char *const relations[] = {"none", "lexical", "call", "inlined-call", "unknown"};
    return relations[relation <= PK_REL_UNKNOWN ? relation : PK_REL_UNKNOWN];
}
