/*
 * analysis/answer_diff_rows.c — the diff answer's tables from the
 * compared rows: which rows a table shows (changed ones, at most `top`
 * of them not counting folded ones, cut at the threshold of A's total;
 * a row whose own value did not change, only its callees', is folded),
 * each with every column's values on both sides and its name (a path:
 * its functions from the entry, whole).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/answer_diff.h"
#include "analysis/session.h"
#include "util/error.h"

size_t pk_frames_path_name(const pk_profile *p, const pk_frame *frames, pk_index i, char *buf,
                           size_t size)
{
    char probe[1];
    if (i == 0) return (size_t)snprintf(buf, size, "<program root>");
    size_t total = 0;
    for (pk_index f = i; f != PK_NONE && f != 0; f = frames[f].parent)
        total += pk_frame_name(p, &frames[f], probe, sizeof probe) + (f == i ? 0 : 3);
    if (total >= size) {
        if (size) buf[0] = 0;
        return total;
    }
    size_t pos = total;
    buf[total] = 0;
    for (pk_index f = i; f != PK_NONE && f != 0; f = frames[f].parent) {
        size_t len = pk_frame_name(p, &frames[f], probe, sizeof probe);
        if (f != i) pos -= 3, memcpy(buf + pos, " > ", 3);
        pos -= len;
        char keep = buf[pos + len]; /* the separator's blank, or the final NUL */
        pk_frame_name(p, &frames[f], buf + pos, len + 1);
        buf[pos + len] = keep;
    }
    return total;
}

static const char *status_of(const pk_diff_row *r)
{
    return r->same ? "same" : r->a == PK_NONE ? "added" : r->b == PK_NONE ? "removed" : "changed";
}

/* Is row r a change of what the table is of? (A path or an arc whose
 * inclusive value did not change is none, whatever its self value did:
 * its callees' rows show where the cost moved.) */
static int a_change(const pk_diff_row *r, int paths)
{
    return !r->same && !(paths && r->incl_same);
}

/* Does the table show row r, the k-th shown? (Rows after the first
 * unchanged one are all unchanged.) */
static int shown(const pk_query *q, const pk_diff_row *r, double total, size_t k, int self)
{
    double change = self ? r->b_self - r->a_self : r->b_incl - r->a_incl;
    if (q->top && k >= q->top) return 0;
    if (r->same) return 0;
    return !(q->threshold > 0 && total != 0 && fabs(100 * change / total) < q->threshold);
}

/* An arc's name, "caller > callee", and its ends. */
static pk_status arc_name(pkq_diff_work *w, pk_index arc, pk_diff_entry *e)
{
    const char *from, *to;
    pkq_diff_arcs_ends(w->arcs, arc, &from, &to);
    size_t len = strlen(from) + 3 + strlen(to);
    char *name = pk_arena_alloc(&w->arena, len + 1);
    e->caller = pkq_strdup(&w->arena, from), e->callee = pkq_strdup(&w->arena, to);
    if (!name || !e->caller || !e->callee) return pk_fail_nomem("a comparison");
    snprintf(name, len + 1, "%s > %s", from, to);
    e->name = name;
    return PK_OK;
}

static pk_status entry_name(pkq_diff_work *w, const pkq_diff_rows *m, const pk_diff_row *r,
                            int paths, pk_diff_entry *e)
{
    const pkq_diff_side *s = r->a != PK_NONE ? &m->a : &m->b;
    const pk_profile *p = r->a != PK_NONE ? w->sa->p : w->sb->p;
    pk_index at = r->a != PK_NONE ? r->a : r->b;
    e->side = r->a == PK_NONE, e->frame = w->arcs ? PK_NONE : at;
    if (w->arcs && paths) return arc_name(w, at, e);
    if (w->arcs) {
        e->name = pkq_strdup(&w->arena, pkq_diff_arcs_function(w->arcs, at));
        return e->name ? PK_OK : pk_fail_nomem("a comparison");
    }
    size_t len = paths ? pk_frames_path_name(p, s->frames, at, NULL, 0)
                       : pk_frame_name(p, &s->frames[at], NULL, 0);
    char *name = pk_arena_alloc(&w->arena, len + 1);
    if (!name) return pk_fail_nomem("a comparison");
    if (paths)
        pk_frames_path_name(p, s->frames, at, name, len + 1);
    else
        pk_frame_name(p, &s->frames[at], name, len + 1);
    e->name = name;
    return PK_OK;
}

/* b less a, and that in percent of |a| (NaN where a is 0 or NaN). */
static void percent_change(double a, double b, double *change, double *percent)
{
    *change = b - a;
    *percent = a != 0 && !isnan(a) && !isnan(b) ? 100 * (b - a) / fabs(a) : NAN;
}

/* The changes every front end shows: per column B less A of the table's
 * value and that in percent of A; the inclusive change and its share of
 * A's total. */
static pk_status fill_changes(pkq_diff_work *w, int paths, pk_diff_entry *e)
{
    size_t nc = w->cols.n_col;
    e->change = pk_arena_array(&w->arena, nc, sizeof *e->change);
    e->change_percent = pk_arena_array(&w->arena, nc, sizeof *e->change_percent);
    if (!e->change || !e->change_percent) return pk_fail_nomem("a comparison");
    for (size_t c = 0; c < nc; c++)
        percent_change(paths ? e->a_inclusive[c] : e->a_self[c],
                       paths ? e->b_inclusive[c] : e->b_self[c], &e->change[c],
                       &e->change_percent[c]);
    const pk_answer_column *col = &w->a->head.columns[0];
    e->inclusive_change = e->b_inclusive[0] - e->a_inclusive[0];
    e->change_share =
        col->percent && col->total != 0 ? 100 * e->inclusive_change / col->total : NAN;
    return PK_OK;
}

static pk_status fill_entry(pkq_diff_work *w, const pk_diff_row *r, int paths, pk_diff_entry *e)
{
    size_t nc = w->cols.n_col;
    const pkq_diff_rows *m = &w->base[w->main];
    e->status = status_of(r);
    e->in_cycle = r->in_cycle;
    e->folded = r->self_same && r->a != PK_NONE && r->b != PK_NONE;
    e->a_self = pk_arena_array(&w->arena, nc, sizeof *e->a_self);
    e->b_self = pk_arena_array(&w->arena, nc, sizeof *e->b_self);
    e->a_inclusive = pk_arena_array(&w->arena, nc, sizeof *e->a_inclusive);
    e->b_inclusive = pk_arena_array(&w->arena, nc, sizeof *e->b_inclusive);
    if (!e->a_self || !e->b_self || !e->a_inclusive || !e->b_inclusive)
        return pk_fail_nomem("a comparison");
    for (size_t c = 0; c < nc; c++) {
        pkq_diff_values(w, c, r, paths, 0, &e->a_self[c], &e->b_self[c]);
        pkq_diff_values(w, c, r, paths, 1, &e->a_inclusive[c], &e->b_inclusive[c]);
        if (w->arcs && paths) e->a_self[c] = e->b_self[c] = NAN; /* an arc has no self cost */
    }
    pk_status st = fill_changes(w, paths, e);
    return st ? st : entry_name(w, m, r, paths, e);
}

/* One table's shown rows; folded ones among them, not counted by top. */
static pk_status table(pkq_diff_work *w, const pk_diff_row *r, size_t n, int paths,
                       pk_diff_entry **out, size_t *n_out, size_t *hidden, size_t *n_folded)
{
    double total = w->base[w->main].a.total;
    size_t k = 0, changed = 0;
    *out = pk_arena_array(&w->arena, n ? n : 1, sizeof **out);
    if (!*out) return pk_fail_nomem("a comparison");
    *n_out = *n_folded = 0;
    for (size_t i = 0; i < n; i++)
        changed += a_change(&r[i], paths);
    for (size_t i = 0; i < n && shown(w->q, &r[i], total, k, !paths); i++) {
        if (!a_change(&r[i], paths)) continue;
        pk_status st = fill_entry(w, &r[i], paths, &(*out)[*n_out]);
        if (st) return st;
        if ((*out)[(*n_out)++].folded)
            ++*n_folded;
        else
            k++;
    }
    *hidden = changed - *n_out;
    return PK_OK;
}

static int has_diagnostic(const pk_profile *p, const char *code)
{
    pk_diagnostic d;
    for (size_t i = 0; i < pk_diagnostic_count(p); i++)
        if (pk_diagnostic_get(p, i, &d) == PK_OK && d.code && strcmp(d.code, code) == 0) return 1;
    return 0;
}

/* The notes of a comparison of call arcs: which side is a call graph, and
 * one whose calls carry more than their callees spend (no tree holds such
 * arcs: a tree made from it differs there). */
static pk_status arcs_notes(pkq_diff_work *w)
{
    pk_diff_answer *a = w->a;
    int g = pkq_diff_arcs_graphs(w->arcs), ra = g & 1, rb = g & 2;
    pk_status st = pkq_note(&a->head, &w->arena, "arcs",
                            "%s: compared per function and per call arc (caller > callee), what "
                            "both hold, not per calling path (a call graph's are reconstructed)",
                            ra && rb ? "A and B are call graphs"
                            : ra     ? "A is a call graph"
                                     : "B is a call graph");
    int ea = has_diagnostic(w->sa->p, "calls-exceed-costs"),
        eb = has_diagnostic(w->sb->p, "calls-exceed-costs");
    if (!st && (ea || eb))
        st = pkq_note(&a->head, &w->arena, "calls_exceed_costs",
                      "the calls of %s carry more than their callees spend (profkit check: "
                      "calls-exceed-costs): a calling-context tree made from it holds less on "
                      "those arcs and their callers",
                      ea && eb ? "A and B"
                      : ea     ? "A"
                               : "B");
    return st;
}

static pk_status fill_head(pkq_diff_work *w)
{
    pk_diff_answer *a = w->a;
    const pkq_diff_rows *m = &w->base[w->main];
    size_t nc = w->cols.n_col, nb = w->cols.n_base;
    int ra = pkq_reconstructed(w->sa->p), rb = pkq_reconstructed(w->sb->p);
    const char *source = m->exact ? "callgraph" : ra ? "reconstructed tree" : "tree";
    pk_status st = pkq_head_init(&a->head, &w->arena, w->sa->p, w->q, source, nc);
    double *ta = calloc(nb, sizeof *ta), *tb = calloc(nb, sizeof *tb);
    a->b_totals = pk_arena_array(&w->arena, nc, sizeof *a->b_totals);
    a->total_change = pk_arena_array(&w->arena, nc, sizeof *a->total_change);
    a->total_change_percent = pk_arena_array(&w->arena, nc, sizeof *a->total_change_percent);
    if (!st && (!ta || !tb || !a->b_totals || !a->total_change || !a->total_change_percent))
        st = pk_fail_nomem("a comparison");
    for (size_t i = 0; !st && i < nb; i++)
        ta[i] = w->base[i].a.total, tb[i] = w->base[i].b.total;
    for (size_t c = 0; !st && c < nc; c++) {
        const pkq_diff_side *s = &w->base[w->cols.col[c].base[0]].a;
        pkq_column_of_metric(&a->head.columns[c], &s->met, s->metric,
                             pkq_columns_eval(&w->cols, c, ta), &s->nf, s->has_self);
        if (w->cols.col[c].e)
            pkq_column_expression(&a->head.columns[c], &w->arena, w->cols.col[c].label);
        a->b_totals[c] = pkq_columns_eval(&w->cols, c, tb);
        percent_change(a->head.columns[c].total, a->b_totals[c], &a->total_change[c],
                       &a->total_change_percent[c]);
    }
    free(ta), free(tb);
    const pkq_values *v;
    if (!st) st = pkq_values_get(w->sa, m->a.metric, w->q, &v);
    if (!st) st = pkq_notes_of_metric(&a->head, &w->arena, v);
    if (!st && w->arcs)
        st = arcs_notes(w);
    else if (!st && (ra || rb))
        st = pkq_note(&a->head, &w->arena, "reconstructed",
                      "calling contexts of %s RECONSTRUCTED from the call graph: approximate",
                      ra && rb ? "A and B"
                      : ra     ? "A"
                               : "B");
    if (!st) a->b_metric = pkq_strdup(&w->arena, m->b.met.name), a->b_scale = m->scale;
    if (!st) a->b_unit = pkq_strdup(&w->arena, m->b.met.unit);
    return st;
}

pk_status pkq_diff_fill(pkq_diff_work *w)
{
    if (!(w->a = pk_arena_alloc(&w->arena, sizeof *w->a))) return pk_fail_nomem("a comparison");
    pk_diff_answer *a = w->a;
    const pkq_diff_rows *m = &w->base[w->main];
    a->b = w->sb->p;
    a->arcs = w->arcs != NULL;
    a->callgraphs = w->arcs ? pkq_diff_arcs_graphs(w->arcs)
                            : pkq_reconstructed(w->sa->p) | pkq_reconstructed(w->sb->p) << 1;
    pk_status st = fill_head(w);
    for (size_t i = 0; !st && i < m->nf + m->np && !a->any_change; i++)
        a->any_change = i < m->nf ? a_change(&m->fr[i], 0) : a_change(&m->pr[i - m->nf], 1);
    if (!st)
        st = table(w, m->fr, m->nf, 0, &a->functions, &a->n_functions, &a->hidden_functions,
                   &a->folded_functions);
    if (!st)
        st = table(w, m->pr, m->np, 1, &a->paths, &a->n_paths, &a->hidden_paths, &a->folded_paths);
    return st;
}

pk_status pkq_diff_keep_frames(pkq_diff_work *w, pkq_diff_rows *r)
{
    pk_diff_answer *a = w->a;
    pk_frame *fa = pk_arena_array(&w->arena, r->a.n_frames + 1, sizeof *fa);
    pk_frame *fb = pk_arena_array(&w->arena, r->b.n_frames + 1, sizeof *fb);
    pk_arena *keep = pk_arena_alloc(&w->arena, sizeof *keep);
    if (!fa || !fb || !keep) return pk_fail_nomem("a comparison");
    if (r->a.n_frames) memcpy(fa, r->a.frames, r->a.n_frames * sizeof *fa);
    if (r->b.n_frames) memcpy(fb, r->b.frames, r->b.n_frames * sizeof *fb);
    a->a_frames = fa, a->n_a_frames = r->a.n_frames;
    a->b_frames = fb, a->n_b_frames = r->b.n_frames;
    pk_frames_free(r->a.frames), pk_frames_free(r->b.frames);
    r->a.frames = r->b.frames = NULL;
    *keep = w->arena;
    a->arena_ = keep;
    return PK_OK;
}

void pk_diff_answer_free(pk_diff_answer *a)
{
    if (!a) return;
    pk_arena arena = *(pk_arena *)a->arena_;
    pk_arena_free(&arena);
}
