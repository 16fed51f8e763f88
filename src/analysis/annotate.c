/*
 * analysis/annotate.c — the analysis behind source annotation
 * (profkit/annotate.h): flat-by-line rows as per-file line costs, the
 * lines each function spans, and which lines a listing shows.
 *
 * Where a source file is on disk is source_locate.c; the listing itself is
 * output/annotate.c.
 */
#include <stdlib.h>
#include <string.h>

#include "profkit/annotate.h"
#include "profkit/callgraph.h"
#include "util/error.h"

static int by_file_line(const void *a, const void *b)
{
    const pk_line_cost *x = a, *y = b;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

pk_status pk_line_costs(const pk_flat_row *rows, size_t n_rows, pk_line_cost **out, size_t *n_out)
{
    if ((!rows && n_rows) || !out || !n_out)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_line_costs: NULL argument");
    pk_line_cost *lines = malloc((n_rows ? n_rows : 1) * sizeof *lines);
    if (!lines) return pk_fail_nomem("collecting line costs");
    size_t n = 0;
    for (size_t i = 0; i < n_rows; i++) {
        pk_index file = (pk_index)(rows[i].key >> 32);
        uint32_t line = (uint32_t)rows[i].key;
        if (file == PK_NONE || line == 0) continue;
        lines[n++] =
            (pk_line_cost){file, line, rows[i].exclusive, rows[i].inclusive, rows[i].calls};
    }
    qsort(lines, n, sizeof *lines, by_file_line);
    *out = lines, *n_out = n;
    return PK_OK;
}

void pk_line_costs_free(pk_line_cost *lines)
{
    free(lines);
}

void pk_line_costs_of_file(const pk_line_cost *lines, size_t n_lines, pk_index file, size_t *first,
                           size_t *n)
{
    size_t lo = 0, hi = n_lines;
    while (lo < hi) { /* the first line of `file` or after it */
        size_t mid = lo + (hi - lo) / 2;
        if (lines[mid].file < file)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < n_lines && lines[end].file == file)
        end++;
    *first = lo, *n = end - lo;
}

/* A function's span as it grows: its file is fixed by the definition or
 * by the first line seen. */
static void span_add(pk_source_span *s, pk_index file, uint32_t line)
{
    if (file == PK_NONE || line == 0) return;
    if (s->file == PK_NONE) s->file = file;
    if (file != s->file) return;
    if (s->first == 0 || line < s->first) s->first = line;
    if (line > s->last) s->last = line;
}

/* The call graph's cost records and call sites, when they carry lines. */
static int spans_from_callgraph(const pk_profile *p, const pk_index *slot, pk_source_span *out)
{
    pk_cg_summary s;
    if (pk_callgraph_summary(p, &s) != PK_OK || s.by_function || !(s.positions & PK_POS_LINE))
        return 0;
    for (uint64_t i = 0; i < s.n_costs; i++) {
        pk_cg_cost c;
        if (pk_callgraph_cost(p, i, &c) == PK_OK && c.function != PK_NONE &&
            slot[c.function] != PK_NONE)
            span_add(&out[slot[c.function]], c.pos.file, c.pos.line);
    }
    for (uint64_t i = 0; i < s.n_calls; i++) {
        pk_cg_call c;
        if (pk_callgraph_call(p, i, &c) == PK_OK && c.caller != PK_NONE &&
            slot[c.caller] != PK_NONE)
            span_add(&out[slot[c.caller]], c.site.file, c.site.line);
    }
    return 1;
}

/* The calling-context tree: contexts come parents first, so each one's
 * nearest enclosing function context is known when it is reached. */
static pk_status spans_from_tree(const pk_profile *p, const pk_index *slot, pk_source_span *out)
{
    size_t n = pk_context_count(p);
    pk_index *encl = malloc((n ? n : 1) * sizeof *encl);
    if (!encl) return pk_fail_nomem("finding functions' source lines");
    for (size_t i = 0; i < n; i++) {
        pk_context c;
        encl[i] = PK_NONE;
        if (pk_context_get(p, (pk_index)i, &c) != PK_OK) continue;
        int is_function = c.kind == PK_CTX_FUNCTION && (c.flags & PK_CTXF_HAS_FUNCTION);
        if (is_function)
            encl[i] = c.function;
        else if (c.parent != PK_NONE && c.parent < i)
            encl[i] = encl[c.parent];
        /* a function context's own line is where it was called from */
        if (!is_function && encl[i] != PK_NONE && slot[encl[i]] != PK_NONE &&
            (c.flags & PK_CTXF_HAS_SRCLOC))
            span_add(&out[slot[encl[i]]], c.file, c.line);
    }
    free(encl);
    return PK_OK;
}

pk_status pk_function_spans(const pk_profile *p, const pk_index *functions, size_t n,
                            pk_source_span *out)
{
    if (!p || (!functions && n) || (!out && n))
        return pk_fail(PK_ERR_INVALID_ARG, "pk_function_spans: NULL argument");
    size_t nf = pk_function_count(p);
    pk_index *slot = malloc((nf ? nf : 1) * sizeof *slot);
    if (!slot) return pk_fail_nomem("finding functions' source lines");
    for (size_t i = 0; i < nf; i++)
        slot[i] = PK_NONE;
    for (size_t k = 0; k < n; k++) {
        pk_function fn;
        out[k] = (pk_source_span){PK_NONE, 0, 0};
        if (functions[k] >= nf || pk_function_get(p, functions[k], &fn) != PK_OK) {
            free(slot);
            return pk_fail(PK_ERR_INVALID_ARG, "pk_function_spans: no function %u", functions[k]);
        }
        slot[functions[k]] = (pk_index)k;
        span_add(&out[k], fn.file, fn.line);
    }
    pk_status st = PK_OK;
    if (!spans_from_callgraph(p, slot, out)) st = spans_from_tree(p, slot, out);
    free(slot);
    return st;
}

static int costly(const pk_line_cost *l, double min_cost)
{
    double s = l->self < 0 ? -l->self : l->self,
           i = l->inclusive < 0 ? -l->inclusive : l->inclusive;
    return (s != 0 && s >= min_cost) || (i != 0 && i >= min_cost);
}

/* Append [a, b] to the ranges, merged with the last when they touch
 * (a window may start before the first line's anchor). */
static void range_add(pk_line_range *r, size_t *n, uint32_t a, uint32_t b)
{
    if (*n && a <= r[*n - 1].last + 1) {
        if (a < r[*n - 1].first) r[*n - 1].first = a;
        if (b > r[*n - 1].last) r[*n - 1].last = b;
        return;
    }
    r[(*n)++] = (pk_line_range){a, b};
}

pk_status pk_annotate_ranges(const pk_line_cost *lines, size_t n_lines, uint32_t first,
                             uint32_t last, double min_cost, unsigned context, int show_first,
                             pk_line_range **out, size_t *n_out)
{
    if ((!lines && n_lines) || !out || !n_out)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_annotate_ranges: NULL argument");
    if (first == 0) first = 1;
    pk_line_range *r = malloc((n_lines + 1) * sizeof *r);
    if (!r) return pk_fail_nomem("choosing lines to annotate");
    size_t n = 0;
    if (show_first && first <= last) range_add(r, &n, first, first);
    for (size_t i = 0; i < n_lines; i++) {
        uint32_t line = lines[i].line;
        if (line < first || line > last || !costly(&lines[i], min_cost)) continue;
        /* the window may reach past the span: a function's closing lines
         * and the lines before its first cost are what a reader wants */
        uint32_t a = line > context ? line - context : 1;
        uint32_t b = UINT32_MAX - line > context ? line + context : UINT32_MAX;
        range_add(r, &n, a, b);
    }
    *out = r, *n_out = n;
    return PK_OK;
}
