/*
 * output/tree_csv.c — a tree (contexts, or frames) as CSV: one row per
 * node the text tree would show, with where it is (module, file, line)
 * and its parent's id, so a spreadsheet or pandas rebuilds paths with one
 * join. Rows go parents first, in node order: one linear pass, a node
 * shown when it passes the threshold and depth and its parent is shown.
 */
#include <math.h>
#include <stdlib.h>

#include "cells.h"
#include "profkit/analysis.h"
#include "profkit/output.h"
#include "util/error.h"

typedef struct nodes {
    const pk_profile *p;
    const pk_frame *f; /* NULL: contexts */
    const double *incl, *self;
    size_t n;
} nodes;

static pk_index parent_of(const nodes *t, pk_index i)
{
    pk_context c;
    if (t->f) return t->f[i].parent;
    return pk_context_get(t->p, i, &c) ? PK_NONE : c.parent;
}

static pk_index context_of(const nodes *t, pk_index i)
{
    return t->f ? t->f[i].context : i;
}

/* output/tree.c's and frames.c's rule: by |inclusive| against the total. */
static int passes(const nodes *t, pk_index i, uint32_t depth, double total,
                  const pk_tree_options *o)
{
    if (o->shown) return o->shown[i];
    if (o->max_depth && depth > o->max_depth) return 0;
    double in = t->incl[i], ex = t->self ? t->self[i] : 0;
    if (isnan(in) || isnan(ex)) return 1;
    if (o->threshold <= 0 || isnan(total)) return in != 0.0 || ex != 0.0;
    return fabs(in) >= o->threshold / 100.0 * fabs(total);
}

static void put_double(FILE *out, double v)
{
    char num[40];
    fputc(',', out);
    if (isfinite(v)) pk_format_double(num, sizeof num, v), fputs(num, out);
}

static void header(FILE *out, const pk_tree_options *o)
{
    fputs("id,parent,depth,name,module,file,line,kind,inclusive,self", out);
    if (o->calls) fputs(",calls", out);
    for (size_t c = 1; c < o->n_columns; c++) {
        static const char *const suffix[] = {":inclusive", ":self"};
        for (int k = 0; k < 2; k++) {
            char label[300];
            snprintf(label, sizeof label, "%s%s", o->columns[c].name, suffix[k]);
            fputc(',', out);
            pk_csv_field(out, label);
        }
    }
    fputc('\n', out);
}

static void row(FILE *out, const nodes *t, pk_index i, pk_index parent, uint32_t depth,
                const pk_tree_options *o)
{
    char name[4096];
    pk_context c;
    pk_index ctx = context_of(t, i);
    pk_context_get(t->p, ctx, &c);
    pk_context_name(t->p, ctx, name, sizeof name);
    fprintf(out, "%u,", i);
    if (parent != PK_NONE) fprintf(out, "%u", parent);
    fprintf(out, ",%u,", depth);
    pk_csv_field(out, name);
    fputc(',', out);
    pk_csv_context_place(out, t->p, ctx);
    fprintf(out, ",%s", pk_kind_name(c.kind));
    put_double(out, t->incl[i]);
    put_double(out, t->self ? t->self[i] : NAN);
    if (o->calls) put_double(out, o->calls[i]);
    for (size_t k = 1; k < o->n_columns; k++) {
        put_double(out, o->columns[k].inclusive[i]);
        put_double(out, o->columns[k].self ? o->columns[k].self[i] : NAN);
    }
    fputc('\n', out);
}

static pk_status write_csv(FILE *out, const nodes *t, double total, const pk_tree_options *opts)
{
    pk_tree_options o = {.threshold = 1.0};
    if (opts) o = *opts;
    unsigned char *shown = calloc(t->n ? t->n : 1, 1);
    uint32_t *depth = calloc(t->n ? t->n : 1, sizeof *depth);
    if (!shown || !depth) {
        free(shown), free(depth);
        return pk_fail_nomem("writing the tree as CSV");
    }
    header(out, &o);
    for (pk_index i = 0; i < t->n; i++) { /* parents come before their children */
        pk_index parent = parent_of(t, i);
        int root = i == 0;
        if (!root && (parent == PK_NONE || parent >= i || !shown[parent])) continue;
        depth[i] = root ? 0 : depth[parent] + 1;
        if (!root && !passes(t, i, depth[i], total, &o)) continue;
        shown[i] = 1;
        row(out, t, i, root ? PK_NONE : parent, depth[i], &o);
    }
    free(shown), free(depth);
    return ferror(out) ? pk_fail(PK_ERR_IO, "writing the tree as CSV failed") : PK_OK;
}

pk_status pk_tree_write_csv(FILE *out, const pk_profile *p, const double *inclusive,
                            const double *exclusive, double total, const pk_tree_options *opts)
{
    if (!out || !p || !inclusive) return pk_fail(PK_ERR_INVALID_ARG, "tree: NULL argument");
    nodes t = {p, NULL, inclusive, exclusive, pk_context_count(p)};
    return write_csv(out, &t, total, opts);
}

pk_status pk_frames_write_csv(FILE *out, const pk_profile *p, const pk_frame *f, size_t n,
                              double total, const pk_tree_options *opts)
{
    if (!out || !p || !f || !n) return pk_fail(PK_ERR_INVALID_ARG, "frames: bad arguments");
    double *incl = malloc(n * sizeof *incl), *self = malloc(n * sizeof *self);
    pk_status st = incl && self ? PK_OK : pk_fail_nomem("writing the tree as CSV");
    for (size_t i = 0; !st && i < n; i++)
        incl[i] = f[i].inclusive, self[i] = f[i].self;
    nodes t = {p, f, incl, self, n};
    if (!st) st = write_csv(out, &t, total, opts);
    free(incl), free(self);
    return st;
}
