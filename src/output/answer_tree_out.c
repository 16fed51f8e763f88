/*
 * output/answer_tree_out.c — the tree answer as JSON (profkit.tree/1):
 * the shown nodes nested below one node, each with its place, values per
 * column, hot-path mark and how many shown children it has. `tree
 * --json` writes it from the root with every shown level; the view's
 * /api/tree writes one node and a few levels of its children, bounded.
 * The walk keeps its own stack: trees of any depth nest safely.
 */
#include <math.h>
#include <stdlib.h>

#include "analysis/answer_tree.h"
#include "analysis/qry.h"
#include "cells.h"
#include "util/error.h"

typedef struct node_pos {
    pk_index node;
    uint32_t level; /* below the first node */
    size_t next;    /* children[next] is the next to look at */
    size_t emitted; /* children written */
} node_pos;

typedef struct walk {
    pk_json *j;
    const pk_tree_answer *a;
    const pk_tree_json_options *o;
    size_t written; /* nodes */
    double cutoff;  /* narrower children are pruned (flame graphs) */
    size_t pruned;
} walk;

/* What a node is: its name, kind, place. */
static void node_place(pk_json *j, const pk_tree_answer *a, pk_index i)
{
    const pk_profile *p = a->head.profile;
    const pk_frame *f = &a->nodes[i];
    pk_context c;
    pk_function fn = {.module = PK_NONE, .file = PK_NONE};
    pk_module m = {0};
    pk_file file = {0};
    pk_context_get(p, f->context, &c);
    if (c.function != PK_NONE) pk_function_get(p, c.function, &fn);
    pk_index mod = c.module != PK_NONE ? c.module : fn.module;
    pk_index fi = a->level == PK_LEVEL_LINES && c.file != PK_NONE ? c.file
                  : fn.file != PK_NONE                            ? fn.file
                                                                  : c.file;
    if (mod != PK_NONE) pk_module_get(p, mod, &m);
    if (fi != PK_NONE) pk_file_get(p, fi, &file);
    pk_json_key(j, "name"), pk_json_frame_name(j, p, f);
    pk_json_key(j, "kind"), pk_json_string(j, pk_kind_name(c.kind));
    pk_json_key(j, "id"), pk_json_uint(j, c.id);
    pk_json_key(j, "relation"), pk_json_string(j, pk_relation_name(c.relation));
    pk_json_key(j, "node"), pk_json_uint(j, i);
    pk_json_key(j, "module"), pk_json_string(j, m.path);
    pk_json_key(j, "file"), pk_json_string(j, file.path);
    pk_json_key(j, "line");
    pk_json_uint(j, a->level == PK_LEVEL_LINES || fn.file == PK_NONE ? c.line : fn.line);
}

/* "via": the folded run drawn in this node's row (pkq_fold_run(): the
 * names the text shows, top down; `skipped` counts those between the
 * second and the third), or null. */
static void node_via(pk_json *j, const pk_tree_answer *a, pk_index i)
{
    pk_index up[4];
    uint32_t n = pkq_fold_run(a->nodes, a->folded, i, up);
    pk_json_key(j, "via");
    if (!n) {
        pk_json_null(j);
        return;
    }
    uint32_t named = n < 4 ? n : 4;
    pk_json_object_begin(j);
    pk_json_key(j, "frames"), pk_json_uint(j, n);
    pk_json_key(j, "names");
    pk_json_array_begin(j);
    for (uint32_t k = named; k-- > 0;)
        pk_json_frame_name(j, a->head.profile, &a->nodes[up[k]]);
    pk_json_array_end(j);
    pk_json_key(j, "skipped"), pk_json_uint(j, n - named);
    pk_json_object_end(j);
}

/* With lift_folded: the frame a folded run above it passes calls on to,
 * drawn in the run's place (i itself when it is not folded). */
static pk_index below_run(const pk_tree_answer *a, const pk_tree_json_options *o, pk_index i)
{
    while (o->lift_folded && a->folded && a->folded[i]) {
        pk_index one = pkq_tree_only_child(a, a->shown, i);
        if (one == PK_NONE) break;
        i = one;
    }
    return i;
}

static void node_values(pk_json *j, const pk_tree_answer *a, pk_index i,
                        const pk_tree_json_options *base)
{
    const pk_answer_column *c0 = &a->head.columns[0];
    pk_json_key(j, "inclusive"), pk_json_double(j, a->inclusive[0][i]);
    for (int k = 0; k < 2; k++) { /* "self" as every document; "exclusive" as tree/1 began */
        pk_json_key(j, k ? "exclusive" : "self");
        if (c0->has_self || a->level != PK_LEVEL_LINES)
            pk_json_double(j, a->self[0][i]);
        else
            pk_json_null(j);
    }
    pk_json_key(j, "hot"), pk_json_bool(j, a->hot[i]);
    pk_json_key(j, "folded"), pk_json_bool(j, a->folded && a->folded[i]);
    if (base) {
        pk_json_key(j, "base_inclusive"), pk_json_double(j, base->base_inclusive[i]);
        pk_json_key(j, "base_self"), pk_json_double(j, base->base_self[i]);
        /* the change a diff flame graph colours by: a path B lacks counts as 0 there */
        double b = base->base_inclusive[i];
        pk_json_key(j, "inclusive_change"),
            pk_json_double(j, a->inclusive[0][i] - (isnan(b) ? 0 : b));
    }
    if (a->calls) pk_json_key(j, "calls"), pk_json_double(j, a->calls[i]);
    pk_json_key(j, "values");
    pk_json_array_begin(j);
    for (size_t c = 0; c < a->head.n_columns; c++) {
        const pk_answer_column *col = &a->head.columns[c];
        int known = col->has_self || a->level != PK_LEVEL_LINES;
        pk_json_object_begin(j);
        for (int k = 0; k < 2; k++) { /* "exclusive" as the first documents named it */
            pk_json_key(j, k ? "exclusive" : "self");
            if (known)
                pk_json_double(j, a->self[c][i]);
            else
                pk_json_null(j);
        }
        pk_json_key(j, "inclusive"), pk_json_double(j, a->inclusive[c][i]);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

static size_t shown_children(const pk_tree_answer *a, pk_index i)
{
    size_t k = 0;
    for (size_t c = a->child_start[i]; c < a->child_start[i + 1]; c++)
        k += a->shown[a->children[c]];
    return k;
}

/* Open node i; 1 if its children follow (an array is open), else 0. */
static int open_node(walk *w, pk_index i, uint32_t level)
{
    pk_json *j = w->j;
    pk_json_object_begin(j);
    node_place(j, w->a, i);
    node_via(j, w->a, i);
    node_values(j, w->a, i, w->o->base_inclusive ? w->o : NULL);
    size_t kids = shown_children(w->a, i);
    pk_json_key(j, "child_count"), pk_json_uint(j, kids);
    w->written++;
    int deeper = (w->o->depth == 0 || level < w->o->depth) &&
                 !(kids && w->o->max_nodes && w->written >= w->o->max_nodes);
    pk_json_key(j, "children");
    if (!deeper) {
        pk_json_null(j);
        pk_json_key(j, "more"), pk_json_uint(j, 0);
        pk_json_object_end(j);
        return 0;
    }
    pk_json_array_begin(j);
    return 1;
}

/* The next shown child of s to write, or PK_NONE (its array then closes). */
static pk_index next_child(walk *w, node_pos *s)
{
    const pk_tree_answer *a = w->a;
    while (a->child_start[s->node] + s->next < a->child_start[s->node + 1]) {
        pk_index c = a->children[a->child_start[s->node] + s->next++];
        if (!a->shown[c]) continue;
        if (w->cutoff > 0 && !(fabs(a->nodes[c].inclusive) >= w->cutoff)) {
            w->pruned++;
            continue;
        }
        if (w->o->max_children && s->emitted >= w->o->max_children) continue;
        s->emitted++;
        return below_run(a, w->o, c);
    }
    return PK_NONE;
}

static pk_status write_nodes(walk *w, pk_index from)
{
    size_t cap = 64, top = 0;
    node_pos *stack = malloc(cap * sizeof *stack);
    if (!stack) return pk_fail_nomem("writing a tree");
    if (open_node(w, from, 0)) stack[top++] = (node_pos){from, 0, 0, 0};
    while (top) {
        node_pos *s = &stack[top - 1];
        pk_index c = next_child(w, s);
        if (c == PK_NONE) {
            pk_json_array_end(w->j);
            pk_json_key(w->j, "more"),
                pk_json_uint(w->j, shown_children(w->a, s->node) - s->emitted);
            pk_json_object_end(w->j);
            top--;
            continue;
        }
        uint32_t level = s->level + 1;
        if (!open_node(w, c, level)) continue;
        if (top == cap) {
            node_pos *more = realloc(stack, 2 * cap * sizeof *stack);
            if (!more) return free(stack), pk_fail_nomem("writing a tree");
            stack = more, cap *= 2;
        }
        stack[top++] = (node_pos){c, level, 0, 0};
    }
    free(stack);
    return PK_OK;
}

pk_status pkq_tree_json_root(pk_json *j, const pk_tree_answer *a, const pk_tree_json_options *o,
                             size_t *written, size_t *pruned)
{
    walk w = {j, a, o, 0, 0, 0};
    if (a->n_nodes && o->min_share > 0)
        w.cutoff = fabs(a->nodes[o->from].inclusive) * o->min_share / 100.0;
    pk_status st = a->n_nodes ? write_nodes(&w, o->from) : pk_json_null(j);
    *written = w.written, *pruned = w.pruned;
    return st;
}

/* A document that starts below the root says how to get there: the
 * node indexes from the root down to the first node's parent, so a page
 * can open a node it was given (a link, a reload) level by level. */
static pk_status write_path(pk_json *j, const pk_tree_answer *a, pk_index from, int lift)
{
    size_t n = 0;
    for (pk_index i = a->nodes[from].parent; i != PK_NONE && n < a->n_nodes; i = a->nodes[i].parent)
        n++;
    pk_index *up = malloc((n ? n : 1) * sizeof *up);
    if (!up) return pk_fail_nomem("writing a tree node's path");
    n = 0;
    for (pk_index i = a->nodes[from].parent; i != PK_NONE && n < a->n_nodes; i = a->nodes[i].parent)
        if (!(lift && a->folded && a->folded[i])) up[n++] = i; /* not drawn: not on the way */
    pk_json_key(j, "path");
    pk_json_array_begin(j);
    while (n > 0)
        pk_json_uint(j, up[--n]);
    pk_json_array_end(j);
    free(up);
    return PK_OK;
}

pk_status pk_tree_answer_write_json(pk_json *j, const pk_tree_answer *a,
                                    const pk_tree_json_options *opts)
{
    pk_tree_json_options none = {0}, lifted;
    const pk_tree_json_options *o = opts ? opts : &none;
    if (a->n_nodes && o->from >= a->n_nodes)
        return pk_fail(PK_ERR_NOT_FOUND, "no node %u in the tree", (unsigned)o->from);
    if (a->n_nodes && o->lift_folded) { /* a folded node is drawn as the frame below it */
        lifted = *o, lifted.from = below_run(a, o, o->from);
        o = &lifted;
    }
    size_t written, pruned;
    pk_json_object_begin(j);
    pkq_json_head(j, "profkit.tree/1", &a->head);
    pkq_json_columns(j, &a->head, NULL);
    pk_json_key(j, "level"), pk_json_string(j, a->level_name);
    if (a->calls_metric) pk_json_key(j, "calls_metric"), pk_json_string(j, a->calls_metric);
    pk_status st = a->n_nodes && o->from ? write_path(j, a, o->from, o->lift_folded) : PK_OK;
    if (st) return st;
    pk_json_key(j, "root");
    st = pkq_tree_json_root(j, a, o, &written, &pruned);
    pk_json_key(j, "hidden"), pk_json_uint(j, a->hidden);
    pk_json_key(j, "folded"), pk_json_uint(j, a->n_folded);
    if (o->min_share > 0) {
        pk_json_key(j, "min_share"), pk_json_double(j, o->min_share);
        pk_json_key(j, "pruned"), pk_json_uint(j, pruned);
        pk_json_key(j, "nodes"), pk_json_uint(j, written);
    }
    pk_json_object_end(j);
    return st;
}

/* The renderers' options for a tree answer: its columns, calls, shape. */
static pk_status render_options(const pk_tree_answer *a, const pk_text_options *t,
                                pk_value_column **cols, pk_tree_options *o)
{
    const pk_answer_column *c0 = &a->head.columns[0];
    size_t nc = a->head.n_columns;
    *cols = NULL;
    *o = (pk_tree_options){.threshold = a->threshold, .max_depth = a->depth};
    o->metric = c0->name;
    o->numbers = c0->expression ? NULL : &c0->numbers;
    o->calls = a->calls, o->shown = a->shown, o->hot = a->hot;
    if (t && a->n_folded) o->folded = a->folded; /* text only: CSV keeps every row */
    o->threshold_of = a->threshold_of;
    if (t) o->width = t->width, o->color = t->color, o->keep_mangled = t->keep_mangled;
    if (nc < 2) return PK_OK;
    if (!(*cols = calloc(nc, sizeof **cols))) return pk_fail_nomem("drawing a tree");
    for (size_t c = 0; c < nc; c++) {
        const pk_answer_column *col = &a->head.columns[c];
        int self = col->has_self || a->level != PK_LEVEL_LINES;
        (*cols)[c] = (pk_value_column){col->name,
                                       col->unit,
                                       col->total,
                                       a->inclusive[c],
                                       self ? a->self[c] : NULL,
                                       col->expression ? NULL : &col->numbers};
    }
    o->columns = *cols, o->n_columns = nc;
    return PK_OK;
}

pk_status pk_tree_answer_write_text(FILE *out, const pk_tree_answer *a, const pk_text_options *t)
{
    pk_value_column *cols;
    pk_tree_options o;
    pk_status st = render_options(a, t, &cols, &o);
    const pk_profile *p = a->head.profile;
    /* min/max values are no shares of a total: no percentages */
    double total = a->head.columns[0].percent ? a->head.columns[0].total : NAN;
    if (!st && a->level == PK_LEVEL_LINES)
        st = pk_tree_write_text(out, p, a->inclusive[0],
                                a->head.columns[0].has_self ? a->self[0] : NULL, total, &o);
    else if (!st && a->n_nodes)
        st = pk_frames_write_text(out, p, a->nodes, a->n_nodes, total, &o);
    free(cols);
    return st;
}

pk_status pk_tree_answer_write_csv(FILE *out, const pk_tree_answer *a)
{
    pk_value_column *cols;
    pk_tree_options o;
    pk_status st = render_options(a, NULL, &cols, &o);
    const pk_profile *p = a->head.profile;
    double total = a->head.columns[0].total;
    if (!st && a->level == PK_LEVEL_LINES)
        st = pk_tree_write_csv(out, p, a->inclusive[0],
                               a->head.columns[0].has_self ? a->self[0] : NULL, total, &o);
    else if (!st && a->n_nodes)
        st = pk_frames_write_csv(out, p, a->nodes, a->n_nodes, total, &o);
    free(cols);
    return st;
}
