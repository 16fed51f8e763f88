/*
 * analysis/diff.c — what changed between two profiles, whatever formats
 * they come from: frames matched by their path of function names (a
 * calling context in one run is "the same" as in another when the same
 * functions called each other to reach it), and flat rows matched by
 * their display name. Rows come out sorted by the size of the change.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "context_groups.h"
#include "frames.h"

static int by_change(const void *x, const void *y)
{
    const pk_diff_row *a = x, *b = y;
    double da = fabs(a->b_incl - a->a_incl), db = fabs(b->b_incl - b->a_incl);
    double sa = fabs(a->b_self - a->a_self), sb = fabs(b->b_self - b->a_self);
    if (da != db) return da < db ? 1 : -1;
    if (sa != sb) return sa < sb ? 1 : -1;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

static int by_self_change(const void *x, const void *y)
{
    const pk_diff_row *a = x, *b = y;
    double sa = fabs(a->b_self - a->a_self), sb = fabs(b->b_self - b->a_self);
    if (sa != sb) return sa < sb ? 1 : -1;
    return by_change(x, y);
}

pk_status pk_diff_frames(const pk_profile *pa, const pk_frame *a, size_t n_a, const pk_profile *pb,
                         const pk_frame *b, size_t n_b, pk_diff_row **rows, size_t *n_rows)
{
    pk_index *b_of_a = malloc(n_a * sizeof *b_of_a);
    unsigned char *b_seen = calloc(n_b ? n_b : 1, 1);
    pk_diff_row *r = malloc((n_a + n_b) * sizeof *r);
    pk_status st = b_of_a && b_seen && r ? pk_frames_match(pa, a, n_a, pb, b, n_b, b_of_a)
                                         : pk_fail_nomem("comparing profiles");
    size_t n = 0;
    for (size_t i = 0; i < n_a && !st; i++) {
        pk_index j = b_of_a[i];
        r[n++] = (pk_diff_row){(pk_index)i,    j,
                               a[i].inclusive, j == PK_NONE ? 0 : b[j].inclusive,
                               a[i].self,      j == PK_NONE ? 0 : b[j].self};
        if (j != PK_NONE) b_seen[j] = 1;
    }
    for (size_t j = 0; j < n_b && !st; j++)
        if (!b_seen[j])
            r[n++] = (pk_diff_row){PK_NONE, (pk_index)j, 0, b[j].inclusive, 0, b[j].self};
    free(b_of_a), free(b_seen);
    if (st) {
        free(r);
        return st;
    }
    qsort(r, n, sizeof *r, by_change);
    *rows = r, *n_rows = n;
    return PK_OK;
}

typedef struct named {
    char *name;
    pk_index row;
} named;

static int by_name(const void *x, const void *y)
{
    return strcmp(((const named *)x)->name, ((const named *)y)->name);
}

/* The rows' display names, sorted, for lookups by name. */
static named *name_rows(const pk_profile *p, pk_group_by by, const pk_flat_row *rows, size_t n)
{
    named *v = calloc(n ? n : 1, sizeof *v);
    char buf[PK_FRAME_NAME_MAX];
    for (size_t i = 0; v && i < n; i++) {
        pk_flat_row_name(p, by, &rows[i], buf, sizeof buf);
        v[i] = (named){strdup(buf), (pk_index)i};
        if (!v[i].name) {
            for (size_t k = 0; k < i; k++)
                free(v[k].name);
            free(v);
            return NULL;
        }
    }
    if (v) qsort(v, n, sizeof *v, by_name);
    return v;
}

static void free_names(named *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i].name);
    free(v);
}

/* Rows of one side with equal names (one function name in two load
 * modules, say) become one: values summed into the first. */
static size_t fold_equal_names(named *v, size_t n, const pk_flat_row *rows, pk_flat_row *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k > 0 && strcmp(v[k - 1].name, v[i].name) == 0) {
            out[v[k - 1].row].inclusive += rows[v[i].row].inclusive;
            out[v[k - 1].row].exclusive += rows[v[i].row].exclusive;
            free(v[i].name);
            continue;
        }
        out[v[i].row] = rows[v[i].row];
        v[k++] = v[i];
    }
    return k;
}

/* Merge two name-sorted lists into rows (rows with equal names pair). */
static size_t pair_rows(const named *x, size_t nx, const named *y, size_t ny, const pk_flat_row *ra,
                        const pk_flat_row *rb, pk_diff_row *r)
{
    size_t i = 0, j = 0, n = 0;
    while (i < nx || j < ny) {
        int c = i == nx ? 1 : j == ny ? -1 : strcmp(x[i].name, y[j].name);
        pk_index a = c <= 0 ? x[i].row : PK_NONE, b = c >= 0 ? y[j].row : PK_NONE;
        r[n++] = (pk_diff_row){a,
                               b,
                               a == PK_NONE ? 0 : ra[a].inclusive,
                               b == PK_NONE ? 0 : rb[b].inclusive,
                               a == PK_NONE ? 0 : ra[a].exclusive,
                               b == PK_NONE ? 0 : rb[b].exclusive};
        i += c <= 0, j += c >= 0;
    }
    return n;
}

pk_status pk_diff_flat(const pk_profile *pa, const pk_flat_row *ra, size_t n_a,
                       const pk_profile *pb, const pk_flat_row *rb, size_t n_b, pk_group_by by,
                       pk_diff_row **rows, size_t *n_rows)
{
    named *x = name_rows(pa, by, ra, n_a), *y = name_rows(pb, by, rb, n_b);
    pk_diff_row *r = malloc((n_a + n_b + 1) * sizeof *r);
    pk_flat_row *fa = malloc((n_a + 1) * sizeof *fa), *fb = malloc((n_b + 1) * sizeof *fb);
    if (!x || !y || !r || !fa || !fb) {
        free_names(x, n_a), free_names(y, n_b), free(r), free(fa), free(fb);
        return pk_fail_nomem("comparing flat profiles");
    }
    size_t nx = fold_equal_names(x, n_a, ra, fa), ny = fold_equal_names(y, n_b, rb, fb);
    size_t n = pair_rows(x, nx, y, ny, fa, fb, r);
    free_names(x, nx), free_names(y, ny), free(fa), free(fb);
    qsort(r, n, sizeof *r, by_self_change);
    *rows = r, *n_rows = n;
    return PK_OK;
}

void pk_diff_free(pk_diff_row *rows)
{
    free(rows);
}

/* One side's functions: key (name hash) -> function k, with one frame of
 * it, its summed self and outermost inclusive values. */
typedef struct fn_side {
    pk_kmap keys;
    pk_index *frame, *key_of;
    double *incl, *self;
    uint32_t *active;
    unsigned char *hidden;   /* per key: left out (a call graph's cycle pseudo-functions) */
    unsigned char *in_cycle; /* per key: a function of a call graph's cycle */
    unsigned char *nested;   /* per key: a frame of it under another of it */
    size_t n;
    pk_combine how; /* how a function's frames combine: sum, or min/max */
} fn_side;

/* Fold a frame's value into its function's (min/max slots start NaN). */
static void fold(const fn_side *s, double *slot, double v)
{
    if (s->how == PK_COMBINE_MIN || s->how == PK_COMBINE_MAX)
        pk_combine_slot(slot, v, s->how);
    else
        *slot += v;
}

static void fn_side_free(fn_side *s)
{
    pk_kmap_free(&s->keys);
    free(s->frame), free(s->key_of), free(s->incl), free(s->self), free(s->active);
    free(s->hidden), free(s->in_cycle), free(s->nested);
}

/* A side whose functions' costs are known exactly (a call graph): each
 * key's self value becomes the sum over the distinct functions of its
 * frames (same-named functions together, as the tree side's keys are),
 * its inclusive value the sum of the functions', unless a frame of the
 * name runs under another of it in the tree (summing the inclusive values
 * of same-named functions that call each other would count the inner ones
 * twice: those keep the tree's, recursion counted once). */
static pk_status exact_values(const pk_profile *p, const pk_frame *f, size_t n, fn_side *s,
                              const pk_diff_exact *x)
{
    size_t nf = pk_function_count(p);
    unsigned char *done = calloc(nf + 1, 1);
    uint32_t *fns = calloc(s->n + 1, sizeof *fns);
    double *incl = calloc(s->n + 1, sizeof *incl);
    s->hidden = calloc(s->n + 1, 1), s->in_cycle = calloc(s->n + 1, 1);
    pk_status st = done && fns && incl && s->hidden && s->in_cycle
                       ? PK_OK
                       : pk_fail_nomem("comparing functions");
    if (!st && x->self) memset(s->self, 0, s->n * sizeof *s->self);
    for (size_t i = 1; !st && i < n; i++) {
        pk_context c;
        if (pk_context_get(p, f[i].context, &c) || c.function == PK_NONE || c.function >= nf ||
            done[c.function])
            continue;
        done[c.function] = 1;
        uint32_t k = s->key_of[i];
        if (x->hidden && x->hidden[c.function]) s->hidden[k] = 1;
        if (x->in_cycle && x->in_cycle[c.function]) s->in_cycle[k] = 1;
        if (x->self) s->self[k] += x->self[c.function], incl[k] += x->inclusive[c.function];
        fns[k]++;
    }
    for (size_t k = 0; !st && k < s->n; k++) {
        /* same-named functions calling each other: the name recurses
         * through the call graph, its inclusive value is the tree's */
        if (fns[k] > 1 && s->nested[k]) s->in_cycle[k] = 1;
        if (x->self && (fns[k] == 1 || !s->nested[k])) s->incl[k] = incl[k];
    }
    free(done), free(fns), free(incl);
    return st;
}

/* Inclusive values of the frames no ancestor of which is the same
 * function: a depth-first walk with an explicit stack (entries 2i enter
 * frame i, 2i+1 leave it) and a count of open frames per function. */
static pk_status outermost(const pk_frame *f, size_t n, fn_side *s)
{
    size_t *stack = malloc(2 * n * sizeof *stack), sp = 0;
    if (!stack) return pk_fail_nomem("comparing functions");
    stack[sp++] = 0;
    while (sp) {
        size_t e = stack[--sp], i = e >> 1;
        if (e & 1) {
            s->active[s->key_of[i]]--;
            continue;
        }
        if (i > 0) {
            uint32_t k = s->key_of[i];
            if (!s->active[k]++)
                fold(s, &s->incl[k], f[i].inclusive);
            else
                s->nested[k] = 1;
            stack[sp++] = e | 1;
        }
        for (pk_index c = f[i].first_child; c != PK_NONE; c = f[c].next_sibling)
            stack[sp++] = (size_t)c << 1;
    }
    free(stack);
    return PK_OK;
}

static pk_status functions_of(const pk_frame *f, size_t n, fn_side *s)
{
    s->frame = malloc(n * sizeof *s->frame), s->key_of = malloc(n * sizeof *s->key_of);
    s->incl = calloc(n, sizeof *s->incl), s->self = calloc(n, sizeof *s->self);
    s->active = calloc(n, sizeof *s->active), s->nested = calloc(n + 1, 1);
    if (!s->frame || !s->key_of || !s->incl || !s->self || !s->active || !s->nested)
        return pk_fail_nomem("comparing functions");
    int extreme = s->how == PK_COMBINE_MIN || s->how == PK_COMBINE_MAX;
    for (size_t i = 0; extreme && i < n; i++)
        s->incl[i] = s->self[i] = NAN;
    for (size_t i = 1; i < n; i++) {
        uint64_t key[PK_KMAP_WORDS] = {f[i].name_hash};
        uint32_t k;
        int added;
        if (pk_kmap_upsert(&s->keys, key, (uint32_t)s->n, &k, &added) < 0)
            return pk_fail_nomem("comparing functions");
        if (added) s->frame[s->n++] = (pk_index)i;
        s->key_of[i] = k;
        fold(s, &s->self[k], f[i].self);
    }
    pk_status st = outermost(f, n, s);
    for (size_t k = 0; extreme && k < s->n; k++) { /* none: 0, as a sum of none */
        if (isnan(s->incl[k])) s->incl[k] = 0;
        if (isnan(s->self[k])) s->self[k] = 0;
    }
    return st;
}

/* Rows for x's functions (matched in y by name) and then y's others. */
static pk_status pair_functions(const pk_profile *pa, const pk_frame *a, const fn_side *x,
                                const pk_profile *pb, const pk_frame *b, const fn_side *y,
                                pk_diff_row *r, size_t *n_rows)
{
    unsigned char *seen = calloc(y->n ? y->n : 1, 1);
    size_t n = 0;
    if (!seen) return pk_fail_nomem("comparing functions");
    for (size_t k = 0; k < x->n; k++) {
        const pk_frame *fa = &a[x->frame[k]];
        uint64_t key[PK_KMAP_WORDS] = {fa->name_hash};
        uint32_t j;
        int match =
            pk_kmap_get(&y->keys, key, &j) && pk_frames_same_name(pa, fa, pb, &b[y->frame[j]]);
        /* a pseudo-function one side hides is left out of both */
        if ((x->hidden && x->hidden[k]) || (match && y->hidden && y->hidden[j])) {
            if (match) seen[j] = 1;
            continue;
        }
        r[n] = (pk_diff_row){x->frame[k], PK_NONE, x->incl[k], 0,
                             x->self[k],  0,       0,          x->in_cycle && x->in_cycle[k]};
        if (match) {
            r[n].b = y->frame[j], r[n].b_incl = y->incl[j], r[n].b_self = y->self[j];
            r[n].in_cycle |= y->in_cycle && y->in_cycle[j];
            seen[j] = 1;
        }
        n++;
    }
    for (size_t j = 0; j < y->n; j++)
        if (!seen[j] && !(y->hidden && y->hidden[j]))
            r[n++] = (pk_diff_row){PK_NONE, y->frame[j], 0, y->incl[j],
                                   0,       y->self[j],  0, y->in_cycle && y->in_cycle[j]};
    free(seen);
    *n_rows = n;
    return PK_OK;
}

pk_status pk_diff_functions(const pk_profile *pa, const pk_frame *a, size_t n_a,
                            const pk_profile *pb, const pk_frame *b, size_t n_b, pk_diff_row **rows,
                            size_t *n_rows)
{
    return pk_diff_functions_exact(pa, a, n_a, NULL, pb, b, n_b, NULL, rows, n_rows);
}

pk_status pk_diff_functions_exact(const pk_profile *pa, const pk_frame *a, size_t n_a,
                                  const pk_diff_exact *ea, const pk_profile *pb, const pk_frame *b,
                                  size_t n_b, const pk_diff_exact *eb, pk_diff_row **rows,
                                  size_t *n_rows)
{
    return pkq_diff_functions_combined(pa, a, n_a, ea, pb, b, n_b, eb, PK_COMBINE_SUM, rows,
                                       n_rows);
}

pk_status pkq_diff_functions_combined(const pk_profile *pa, const pk_frame *a, size_t n_a,
                                      const pk_diff_exact *ea, const pk_profile *pb,
                                      const pk_frame *b, size_t n_b, const pk_diff_exact *eb,
                                      pk_combine how, pk_diff_row **rows, size_t *n_rows)
{
    if (!pa || !a || !pb || !b || !rows || !n_rows)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_diff_functions: bad arguments");
    fn_side x = {.how = how}, y = {.how = how};
    pk_status st = functions_of(a, n_a, &x);
    if (!st) st = functions_of(b, n_b, &y);
    if (!st && ea) st = exact_values(pa, a, n_a, &x, ea);
    if (!st && eb) st = exact_values(pb, b, n_b, &y, eb);
    pk_diff_row *r = st ? NULL : malloc((x.n + y.n + 1) * sizeof *r);
    size_t n = 0;
    if (!st && !r) st = pk_fail_nomem("comparing functions");
    if (!st) st = pair_functions(pa, a, &x, pb, b, &y, r, &n);
    fn_side_free(&x), fn_side_free(&y);
    if (st) {
        free(r);
        return st;
    }
    qsort(r, n, sizeof *r, by_self_change);
    *rows = r, *n_rows = n;
    return PK_OK;
}

/* Within the rounding of sums of values of this size? */
static int noise(double x, double y, double total)
{
    double scale = fmax(fmax(fabs(x), fabs(y)), fabs(total));
    return fabs(x - y) <= 1e-9 * scale;
}

void pk_diff_settle(pk_diff_row *rows, size_t n, double total)
{
    pk_diff_row *tmp = malloc((n ? n : 1) * sizeof *tmp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        rows[i].self_same = noise(rows[i].a_self, rows[i].b_self, total);
        rows[i].incl_same = noise(rows[i].a_incl, rows[i].b_incl, total);
        rows[i].same = rows[i].incl_same && rows[i].self_same;
    }
    if (!tmp) return; /* rows stay in order of change; `same` still says it */
    for (size_t i = 0; i < n; i++)
        if (!rows[i].same) tmp[k++] = rows[i];
    for (size_t i = 0; i < n; i++)
        if (rows[i].same) tmp[k++] = rows[i];
    memcpy(rows, tmp, n * sizeof *rows);
    free(tmp);
}
