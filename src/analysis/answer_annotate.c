/*
 * analysis/answer_annotate.c — source lines with their costs as an
 * answer (callgrind_annotate, `pprof list`): for a function, its own
 * costs on each line of each file it has code in (its span with the
 * costly lines and some around them); for a source file, every
 * function's costs on its lines, the whole file; with no target, the top
 * functions that have a source line. The costs come from the call graph
 * where the profile has one and the query allows it (exact, with calls
 * made on each line), else from the calling-context tree; each listing
 * is the library's pk_annotation, which annotate.h writes as text and
 * JSON. With option asm, each function's machine code instead.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/session.h"
#include "analysis/source_locate.h"
#include "util/error.h"

#define MAX_DIRS 64

typedef struct ann_work {
    pk_session *s;
    const pk_query *q;
    pk_annotate_answer *a;
    pk_arena *arena;
    int cg;
    pkq_cg cgv;
    const pkq_values *v;
    pk_line_cost *lines; /* every function's, per line (a file's listing) */
    size_t n_lines;
    double total;
    const char *unit;
    pk_number_format *format;
    const char *dirs[MAX_DIRS];
    size_t n_dirs;
    size_t cap;
} ann_work;

static pk_status flat_rows(ann_work *w, pk_group_by by, pk_flat_row **rows, size_t *n)
{
    if (w->cg) return pkq_cg_flat(w->s->p, &w->cgv, by, rows, n);
    return pk_flat_profile(w->s->p, w->v->incl, w->v->excl, by, rows, n);
}

static pk_status file_lines(ann_work *w)
{
    if (w->lines) return PK_OK;
    pk_flat_row *rows;
    size_t n;
    pk_status st = flat_rows(w, PK_BY_LINE, &rows, &n);
    if (!st) st = pk_line_costs(rows, n, &w->lines, &w->n_lines);
    if (!st) pk_flat_free(rows);
    return st;
}

/* A copy in the answer's arena. */
static void *keep(ann_work *w, const void *src, size_t n, size_t size)
{
    void *dst = pk_arena_array(w->arena, n ? n : 1, size);
    if (dst && n) memcpy(dst, src, n * size);
    return dst;
}

/* One listing: lines [first, last] of `file` with `lines` (that file's,
 * sorted; copied), the whole file when `whole`. */
static pk_status add_listing(ann_work *w, const char *heading, pk_index file, uint32_t first,
                             uint32_t last, int whole, const pk_line_cost *lines, size_t n,
                             const pk_function_lines *fn)
{
    pk_file pf;
    char found[4096] = "";
    pk_line_range *ranges = NULL;
    size_t n_ranges = 0;
    pk_status st = pk_file_get(w->s->p, file, &pf);
    if (st) return st;
    uint64_t id[2] = {0, 0};
    st = w->q->sources_within
             ? pkq_source_locate_within_id(w->s->p, file, w->dirs, w->n_dirs, found, sizeof found,
                                           id)
             : pk_source_locate(w->s->p, file, w->dirs, w->n_dirs, found, sizeof found);
    if (st && st != PK_ERR_NOT_FOUND && st != PK_ERR_LIMIT) return st; /* not found: costs alone */
    double min_cost = w->q->threshold / 100.0 * fabs(w->total);
    if (!whole && (st = pk_annotate_ranges(lines, n, first, last, min_cost, w->q->context, 1,
                                           &ranges, &n_ranges)) != PK_OK)
        return st;
    pk_annotate_answer *a = w->a;
    if (a->n_listings == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 8;
        pk_annotation *more = pk_arena_array(w->arena, cap, sizeof *more);
        if (!more) return free(ranges), pk_fail_nomem("an annotation");
        if (a->n_listings) memcpy(more, a->listings, a->n_listings * sizeof *more);
        a->listings = more, w->cap = cap;
    }
    pk_annotation *an = &a->listings[a->n_listings];
    *an = (pk_annotation){pkq_strdup(w->arena, heading),
                          pf.path,
                          found[0] ? pkq_strdup(w->arena, found) : NULL,
                          keep(w, lines, n, sizeof *lines),
                          n,
                          whole ? NULL : keep(w, ranges, n_ranges, sizeof *ranges),
                          n_ranges,
                          w->total,
                          w->unit,
                          1,
                          w->cg,
                          w->format,
                          fn ? keep(w, fn, 1, sizeof *fn) : NULL,
                          id[0],
                          id[1]};
    free(ranges);
    if (fn && an->function) ((pk_function_lines *)an->function)->lines = (pk_line_cost *)an->lines;
    a->n_listings++;
    return PK_OK;
}

/* A function's listings: its span's file first, then each other file it
 * has costed lines in (code inlined from a header, Callgrind's fi=/fe=),
 * so its self column adds up to its self cost. */
static pk_status list_function(ann_work *w, const char *heading, const pk_source_span *span,
                               const pk_function_lines *fl)
{
    size_t at, n;
    pk_line_costs_of_file(fl->lines, fl->n_lines, span->file, &at, &n);
    uint32_t first = span->first, last = span->last;
    if (n && fl->lines[at].line < first) first = fl->lines[at].line; /* all its lines */
    if (n && fl->lines[at + n - 1].line > last) last = fl->lines[at + n - 1].line;
    pk_status st = add_listing(w, heading, span->file, first, last, 0, fl->lines + at, n, fl);
    for (size_t i = 0; i < fl->n_lines && !st; i += n) {
        pk_line_costs_of_file(fl->lines, fl->n_lines, fl->lines[i].file, &at, &n);
        if (fl->lines[i].file == span->file) continue;
        st = add_listing(w, heading, fl->lines[i].file, fl->lines[at].line,
                         fl->lines[at + n - 1].line, 0, fl->lines + at, n, fl);
    }
    return st;
}

static pk_status add_missing(ann_work *w, const char *name)
{
    pk_annotate_answer *a = w->a;
    const char **m = pk_arena_array(w->arena, a->n_missing + 1, sizeof *m);
    if (!m) return pk_fail_nomem("an annotation");
    if (a->n_missing) memcpy(m, a->missing, a->n_missing * sizeof *m);
    m[a->n_missing++] = pkq_strdup(w->arena, name ? name : "?");
    a->missing = m;
    return PK_OK;
}

static pk_status list_functions(ann_work *w, const pk_index *fns, size_t n)
{
    pk_source_span *spans = malloc((n ? n : 1) * sizeof *spans);
    pk_function_lines *fl = calloc(n ? n : 1, sizeof *fl);
    pk_status st =
        spans && fl ? pk_function_spans(w->s->p, fns, n, spans) : pk_fail_nomem("an annotation");
    if (!st && w->cg)
        st = pk_callgraph_function_lines(w->s->p, w->cgv.event, w->cgv.locations,
                                         w->cgv.n_locations, fns, n, fl);
    else if (!st)
        st = pk_function_line_costs(w->s->p, w->v->incl, w->v->excl, fns, n, fl);
    for (size_t i = 0; i < n && !st; i++) {
        pk_function fn;
        char heading[1200];
        pk_function_get(w->s->p, fns[i], &fn);
        if (fl[i].same_as != PK_NONE) continue; /* listed with the first of its name */
        if (spans[i].file == PK_NONE) {
            st = add_missing(w, fn.name);
            continue;
        }
        snprintf(heading, sizeof heading, "function %s", fn.name ? fn.name : "?");
        st = list_function(w, heading, &spans[i], &fl[i]);
    }
    if (fl) pk_function_lines_free(fl, n);
    free(spans), free(fl);
    return st; /* functions without a known line: in `missing`, an answer too */
}

/* A function's machine code with its instructions' costs. */
static pk_status list_assembly(ann_work *w, const pk_index *fns, size_t n)
{
    pk_annotate_answer *a = w->a;
    a->assembly = pk_arena_array(w->arena, n ? n : 1, sizeof *a->assembly);
    if (!a->assembly) return pk_fail_nomem("an annotation");
    pk_status st = PK_OK;
    for (size_t i = 0; i < n && !st; i++) {
        pk_asm_answer *x = &a->assembly[a->n_assembly];
        pk_instr_cost *c = NULL;
        size_t nc = 0;
        pk_function f;
        pk_module m;
        pk_index module = PK_NONE;
        st = pk_function_get(w->s->p, fns[i], &f);
        if (!st && w->cg)
            st = pk_callgraph_instr_costs(w->s->p, fns[i], w->cgv.event, w->cgv.locations,
                                          w->cgv.n_locations, &c, &nc),
            module = f.module;
        else if (!st)
            st = pk_context_instr_costs(w->s->p, fns[i], w->v->excl, &c, &nc, &module);
        const char *binary =
            !st && module != PK_NONE && pk_module_get(w->s->p, module, &m) == PK_OK ? m.path : NULL;
        if (!st && !binary)
            st = pk_fail(PK_ERR_NOT_FOUND, "the profile names no binary for %s",
                         f.name ? f.name : "this function");
        if (!st) st = pk_disassemble_function(binary, f.name ? f.name : "", c, nc, &x->listing);
        free(c);
        if (st) break;
        x->function = fns[i], x->name = pkq_strdup(w->arena, f.name), x->binary = binary;
        for (size_t k = 0; k < x->listing.n; k++)
            x->self += x->listing.insns[k].self;
        a->n_assembly++;
    }
    return st;
}

static pk_status list_these(ann_work *w, const pk_index *fns, size_t n)
{
    return w->q->assembly ? list_assembly(w, fns, n) : list_functions(w, fns, n);
}

/* Source files whose recorded path is `name` or ends in "/name". */
static size_t match_files(const pk_profile *p, const char *name, pk_index *out, size_t max)
{
    size_t n = 0, len = strlen(name);
    for (size_t i = 0; i < pk_file_count(p) && n < max; i++) {
        pk_file f;
        if (pk_file_get(p, (pk_index)i, &f) != PK_OK || !f.path) continue;
        size_t fl = strlen(f.path);
        if (strcmp(f.path, name) == 0 ||
            (fl > len && f.path[fl - len - 1] == '/' && strcmp(f.path + fl - len, name) == 0))
            out[n++] = (pk_index)i;
    }
    return n;
}

static int exact_function(const pk_profile *p, const pk_index *fns, size_t n, const char *name)
{
    pk_function fn;
    return n > 0 && pk_function_get(p, fns[0], &fn) == PK_OK && fn.name && !strcmp(fn.name, name);
}

/* FUNCTION|FILE: an exact function name, else a file, else a pattern.
 * When files match, the pattern could change nothing: it is not tried
 * (on cc1's 60,000 long names it was a quarter of annotate's time). */
static pk_status list_target(ann_work *w, const char *target)
{
    pk_index files[64], *fns = NULL;
    size_t n_files = match_files(w->s->p, target, files, 64), n_fns = 0;
    pk_status st = n_files ? pkq_functions_named(w->s->p, target, &fns, &n_fns)
                           : pk_functions_matching(w->s->p, target, &fns, &n_fns);
    if (st == PK_OK && (exact_function(w->s->p, fns, n_fns, target) || n_files == 0)) {
        st = list_these(w, fns, n_fns);
    } else if (n_files && !w->q->assembly) {
        st = file_lines(w);
        for (size_t i = 0; i < n_files && !st; i++) {
            size_t at, n;
            pk_line_costs_of_file(w->lines, w->n_lines, files[i], &at, &n);
            st = add_listing(w, NULL, files[i], 1, UINT32_MAX, 1, w->lines + at, n, NULL);
        }
    } else {
        st = pk_fail(PK_ERR_NOT_FOUND, "no function or source file matches '%s'", target);
    }
    pk_functions_free(fns);
    return st;
}

static int by_self_then_inclusive(const void *a, const void *b)
{
    const pk_flat_row *x = a, *y = b;
    if (x->exclusive != y->exclusive) return x->exclusive > y->exclusive ? -1 : 1;
    if (x->inclusive != y->inclusive) return x->inclusive > y->inclusive ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* No target: the top functions by self cost that have source lines. */
static pk_status list_top(ann_work *w)
{
    pk_flat_row *rows;
    size_t n, want = w->q->top ? w->q->top : 3;
    pk_status st = flat_rows(w, PK_BY_FUNCTION, &rows, &n);
    if (st) return st;
    pk_index *fns = malloc((n ? n : 1) * sizeof *fns);
    pk_source_span *spans = malloc((n ? n : 1) * sizeof *spans);
    size_t k = 0, m = 0;
    /* a tree's functions with source often cost only through their calls
     * (the time is in libraries without lines): inclusive breaks ties */
    qsort(rows, n, sizeof *rows, by_self_then_inclusive);
    for (size_t i = 0; fns && i < n; i++)
        if ((rows[i].exclusive != 0 || rows[i].inclusive != 0) &&
            rows[i].key < pk_function_count(w->s->p))
            fns[k++] = (pk_index)rows[i].key;
    pk_flat_free(rows);
    st = fns && spans ? pk_function_spans(w->s->p, fns, k, spans) : pk_fail_nomem("annotate");
    for (size_t i = 0; !st && i < k && m < want; i++)
        if (spans[i].file != PK_NONE) fns[m++] = fns[i];
    if (!st && m == 0) /* Cube regions, for one, rarely name a line */
        st = pk_fail(PK_ERR_NOT_FOUND, "no function with a cost has a known source line: nothing "
                                       "to annotate");
    if (!st) st = list_these(w, fns, m);
    free(fns), free(spans);
    return st;
}

/* The metric's values: the call graph's or the tree's, and the head. */
static pk_status values(ann_work *w)
{
    const pk_profile *p = w->s->p;
    pk_index m;
    pk_status st = pkq_metric_pick(p, pkq_text(w->q, PKQ_METRIC), &m, NULL);
    size_t event;
    w->cg = !st && pkq_uses_callgraph(p, w->q) && pk_callgraph_metric_event(p, m, &event) == PK_OK;
    const char *source = w->cg ? "callgraph" : pkq_reconstructed(p) ? "reconstructed tree" : "tree";
    if (!st) st = pkq_head_init(&w->a->head, w->arena, p, w->q, source, 1);
    if (!st && w->cg) st = pkq_cg_init(p, m, w->q, &w->cgv);
    if (!st && !w->cg) st = pkq_values_get(w->s, m, w->q, &w->v);
    if (st) return st;
    pk_metric met;
    pk_metric_get(p, m, &met);
    w->total = w->cg ? w->cgv.total : w->v->total;
    w->unit = met.unit;
    pk_number_format nf;
    if (pk_number_format_for(&met, fabs(w->total), &nf) != PK_OK)
        nf = (pk_number_format){.scale = 1};
    pk_answer_column *c = &w->a->head.columns[0];
    pkq_column_of_metric(c, &met, m, w->total, &nf, 1);
    w->format = &c->numbers;
    w->a->head.n_locations = w->cg ? w->cgv.n_locations : w->v->n_selected;
    if (w->cg)
        return pkq_note(&w->a->head, w->arena, "exact",
                        "exact, from the call graph: inclusive costs count recursion and cycles "
                        "once, as KCachegrind does");
    return pkq_notes_of_values(&w->a->head, w->arena, w->q, w->v);
}

/* option dirs: ':'-separated directories. */
static pk_status split_dirs(ann_work *w)
{
    const char *d = pkq_text(w->q, PKQ_DIRS);
    while (d && *d && w->n_dirs < MAX_DIRS) {
        const char *end = strchr(d, ':');
        size_t len = end ? (size_t)(end - d) : strlen(d);
        if (len) w->dirs[w->n_dirs++] = pk_arena_strndup(w->arena, d, len);
        d = end ? end + 1 : NULL;
    }
    for (size_t i = 0; i < w->n_dirs; i++)
        if (!w->dirs[i]) return pk_fail_nomem("annotate's directories");
    return PK_OK;
}

pk_status pk_answer_annotate(pk_session *s, const pk_query *q, pk_annotate_answer **out)
{
    if (!s || !q || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_answer_annotate: bad arguments");
    pk_arena arena;
    pk_arena_init(&arena);
    ann_work w = {.s = s, .q = q, .arena = &arena};
    w.a = pk_arena_alloc(&arena, sizeof *w.a);
    pk_arena *kept = pk_arena_alloc(&arena, sizeof *kept);
    pk_status st = w.a && kept ? split_dirs(&w) : pk_fail_nomem("an annotation");
    const char *target = pkq_text(q, PKQ_FUNCTION);
    if (!st) w.a->target = pkq_strdup(&arena, target);
    if (!st) st = values(&w);
    if (!st) st = target ? list_target(&w, target) : list_top(&w);
    pk_line_costs_free(w.lines);
    pkq_cg_free(&w.cgv);
    if (st) {
        for (size_t i = 0; w.a && i < w.a->n_assembly; i++)
            pk_asm_listing_free(&w.a->assembly[i].listing);
        return pk_arena_free(&arena), st;
    }
    *kept = arena;
    w.a->private_ = kept;
    *out = w.a;
    return PK_OK;
}

void pk_annotate_answer_free(pk_annotate_answer *a)
{
    if (!a) return;
    for (size_t i = 0; i < a->n_assembly; i++)
        pk_asm_listing_free(&a->assembly[i].listing);
    pk_arena arena = *(pk_arena *)a->private_;
    pk_arena_free(&arena);
}
