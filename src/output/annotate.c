/*
 * output/annotate.c — an annotated source listing (profkit/annotate.h):
 * a file's lines with their costs beside them, as text or as JSON.
 *
 * One walk serves both: the source (mapped, read once front to back) is
 * cut into lines as the ranges ask for them, each handed to the renderer
 * with its cost; costs of lines the file does not have (the source
 * changed since the run) come after, and without a source file the costs
 * alone. Memory: the mapping and one line's buffer.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profkit/annotate.h"
#include "util/error.h"
#include "util/mapfile.h"

typedef struct walker walker;
/* A shown line: its text (NULL: none, past the end or no source) and
 * cost (NULL: none). `skipped` lines were left out before it. */
typedef void (*line_fn)(walker *w, uint32_t line, const char *text, size_t len,
                        const pk_line_cost *cost, uint64_t skipped);

struct walker {
    const pk_annotation *a;
    FILE *out;
    pk_json *j;
    char *buf; /* a line as shown (tabs expanded) */
    size_t cap;
    int failed;   /* out of memory */
    size_t range; /* ranges before it end before the lines asked about now */
    line_fn fn;
};

/* The cost of `line`, moving *at forward through the sorted costs. */
static const pk_line_cost *cost_at(const pk_annotation *a, size_t *at, uint32_t line)
{
    while (*at < a->n_lines && a->lines[*at].line < line)
        (*at)++;
    return *at < a->n_lines && a->lines[*at].line == line ? &a->lines[*at] : NULL;
}

/* Whether `line` is shown; lines are asked about in ascending order
 * (w->range goes back to 0 for another pass). */
static int in_ranges(walker *w, uint32_t line)
{
    const pk_annotation *a = w->a;
    if (!a->ranges) return 1;
    while (w->range < a->n_ranges && a->ranges[w->range].last < line)
        w->range++;
    return w->range < a->n_ranges && line >= a->ranges[w->range].first;
}

/* The source's lines in the ranges, then the costs past its end. */
static void walk_source(walker *w, const unsigned char *data, uint64_t size)
{
    const pk_annotation *a = w->a;
    uint64_t pos = 0, skipped = 0;
    uint32_t line = 0;
    size_t at = 0;
    while (pos < size && line < UINT32_MAX) {
        const unsigned char *nl = memchr(data + pos, '\n', size - pos);
        uint64_t end = nl ? (uint64_t)(nl - data) : size;
        line++;
        if (in_ranges(w, line))
            w->fn(w, line, (const char *)data + pos, end - pos, cost_at(a, &at, line), skipped),
                skipped = 0;
        else
            skipped++;
        pos = end + 1;
    }
    w->range = 0;
    for (size_t i = 0; i < a->n_lines; i++) /* the source has fewer lines than the run */
        if (a->lines[i].line > line && in_ranges(w, a->lines[i].line))
            w->fn(w, a->lines[i].line, NULL, 0, &a->lines[i], 0);
}

/* Without a source: the costs of the lines in the ranges. */
static void walk_costs(walker *w)
{
    for (size_t i = 0; i < w->a->n_lines; i++)
        if (in_ranges(w, w->a->lines[i].line))
            w->fn(w, w->a->lines[i].line, NULL, 0, &w->a->lines[i], 0);
}

static pk_status walk(walker *w)
{
    pk_status st = PK_OK;
    if (w->a->source) {
        pk_mapfile m;
        if ((st = pk_map_file(w->a->source, &m)) != PK_OK) return st;
        if ((w->a->source_dev || w->a->source_ino) &&
            (m.dev != w->a->source_dev || m.ino != w->a->source_ino)) {
            pk_unmap_file(&m); /* a link swapped in since it was checked */
            return pk_fail(PK_ERR_IO,
                           "%s: another file than the one found where sources are "
                           "read: not read",
                           w->a->source);
        }
        walk_source(w, m.data, m.size);
        st = pk_map_check(&m);
        pk_unmap_file(&m);
    } else {
        walk_costs(w);
    }
    free(w->buf);
    if (!st && w->failed) st = pk_fail_nomem("annotating a source file");
    return st;
}

/* The line in w->buf, NUL-terminated, tabs expanded to 8 columns when
 * `expand` (a terminal shows them so; pk_text_escape would show "\t"). */
static const char *line_text(walker *w, const char *text, size_t len, int expand)
{
    size_t need = len + 1; /* a tab takes at most 7 more */
    for (size_t i = 0; expand && i < len; i++)
        need += text[i] == '\t' ? 7 : 0;
    if (need > w->cap) {
        char *grown = realloc(w->buf, need);
        if (!grown) return w->failed = 1, "";
        w->buf = grown, w->cap = need;
    }
    size_t n = 0;
    for (size_t i = 0; i < len && text[i]; i++) {
        if (expand && text[i] == '\t') {
            do
                w->buf[n++] = ' ';
            while (n % 8);
        } else if (!(expand && text[i] == '\r' && i + 1 == len)) {
            w->buf[n++] = text[i];
        }
    }
    w->buf[n] = 0;
    return w->buf;
}

/* A value column: the value and its share, or "." for none. */
static void put_value(FILE *out, double v, double total, int with_pct, const pk_number_format *f)
{
    char s[32];
    if (v == 0) {
        fprintf(out, with_pct ? "%12s        " : "%12s", ".");
        return;
    }
    if (f)
        pk_format_number(s, sizeof s, v, f);
    else
        pk_format_value(s, sizeof s, v);
    fprintf(out, "%12s", s);
    if (with_pct) fprintf(out, " %6.2f%%", total != 0 ? 100.0 * v / total : 0.0);
}

static void text_line(walker *w, uint32_t line, const char *text, size_t len, const pk_line_cost *c,
                      uint64_t skipped)
{
    const pk_annotation *a = w->a;
    if (skipped) fprintf(w->out, "-- line %u ----------------------\n", line);
    put_value(w->out, c ? c->self : 0, a->total, 1, a->format);
    if (a->inclusive) put_value(w->out, c ? c->inclusive : 0, a->total, 1, a->format);
    if (a->calls) {
        if (c && c->calls != 0)
            fprintf(w->out, " %10.0f", c->calls);
        else
            fprintf(w->out, " %10s", ".");
    }
    fprintf(w->out, " %6u", line);
    if (text && len) {
        fputs("  ", w->out);
        pk_text_put(w->out, line_text(w, text, len, 1));
    } else if (!text && a->source) {
        fputs("  (past the end of the file: has the source changed since the run?)", w->out);
    }
    fputc('\n', w->out);
}

/* A function's cost that no line shows: how much, of how much. */
static void unlined_note(FILE *out, const pk_annotation *a)
{
    char v[32], all[32];
    double self = a->function->self, u = a->function->unlined;
    if (a->format)
        pk_format_number(v, sizeof v, u, a->format),
            pk_format_number(all, sizeof all, self, a->format);
    else
        pk_format_value(v, sizeof v, u), pk_format_value(all, sizeof all, self);
    fprintf(out, "   %s of its self cost %s (%.2f%%) has no source line: not listed\n", v, all,
            self != 0 ? 100.0 * u / self : 0.0);
}

static void text_heading(FILE *out, const pk_annotation *a)
{
    fputs("-- ", out);
    if (a->heading) {
        pk_text_put(out, a->heading);
        fputs(" in ", out);
    }
    pk_text_put(out, a->recorded ? a->recorded : "?");
    if (a->source && a->recorded && strcmp(a->source, a->recorded) != 0) {
        fputs(" (source: ", out);
        pk_text_put(out, a->source);
        fputc(')', out);
    }
    fputc('\n', out);
    if (!a->source)
        fputs("   source file not found (--source-dir DIR searches DIR): per-line costs only\n",
              out);
    if (a->function && a->function->unlined != 0) unlined_note(out, a);
    char h[48];
    pk_format_header(h, sizeof h, "self", a->format);
    fprintf(out, "%20s", h);
    pk_format_header(h, sizeof h, "inclusive", a->format);
    if (a->inclusive) fprintf(out, "%20s", h);
    if (a->calls) fprintf(out, " %10s", "calls");
    fprintf(out, " %6s%s\n", "line", a->source ? "  source" : "");
}

pk_status pk_annotation_write_text(FILE *out, const pk_annotation *a)
{
    if (!out || !a || (!a->lines && a->n_lines))
        return pk_fail(PK_ERR_INVALID_ARG, "pk_annotation_write_text: bad arguments");
    text_heading(out, a);
    walker w = {.a = a, .out = out, .fn = text_line};
    pk_status st = walk(&w);
    if (!st && ferror(out)) st = pk_fail(PK_ERR_IO, "annotate: write error");
    return st;
}

static void json_line(walker *w, uint32_t line, const char *text, size_t len, const pk_line_cost *c,
                      uint64_t skipped)
{
    (void)skipped;
    pk_json *j = w->j;
    pk_json_object_begin(j);
    pk_json_key(j, "line");
    pk_json_uint(j, line);
    pk_json_key(j, "self");
    pk_json_double(j, c ? c->self : 0);
    if (w->a->inclusive) {
        pk_json_key(j, "inclusive");
        pk_json_double(j, c ? c->inclusive : 0);
    }
    if (w->a->calls) {
        pk_json_key(j, "calls");
        pk_json_double(j, c ? c->calls : 0);
    }
    if (text) {
        pk_json_key(j, "text");
        pk_json_string(j, line_text(w, text, len, 0));
    } else if (w->a->source) {
        pk_json_key(j, "past_end");
        pk_json_bool(j, 1);
    }
    pk_json_object_end(j);
}

static void json_ranges(pk_json *j, const pk_annotation *a)
{
    pk_json_key(j, "ranges");
    if (!a->ranges) {
        pk_json_null(j);
        return;
    }
    pk_json_array_begin(j);
    for (size_t r = 0; r < a->n_ranges; r++) {
        pk_json_array_begin(j);
        pk_json_uint(j, a->ranges[r].first);
        pk_json_uint(j, a->ranges[r].last);
        pk_json_array_end(j);
    }
    pk_json_array_end(j);
}

pk_status pk_annotation_write_json(pk_json *j, const pk_annotation *a)
{
    if (!j || !a || (!a->lines && a->n_lines))
        return pk_fail(PK_ERR_INVALID_ARG, "pk_annotation_write_json: bad arguments");
    pk_json_object_begin(j);
    pk_json_key(j, "heading");
    pk_json_string(j, a->heading);
    pk_json_key(j, "file");
    pk_json_string(j, a->recorded);
    pk_json_key(j, "source");
    pk_json_string(j, a->source);
    json_ranges(j, a);
    pk_json_key(j, "function_self");
    if (a->function)
        pk_json_double(j, a->function->self);
    else
        pk_json_null(j);
    pk_json_key(j, "function_unlined");
    if (a->function)
        pk_json_double(j, a->function->unlined);
    else
        pk_json_null(j);
    pk_json_key(j, "lines");
    pk_json_array_begin(j);
    walker w = {.a = a, .j = j, .fn = json_line};
    pk_status st = walk(&w);
    pk_json_array_end(j);
    pk_json_object_end(j);
    return st;
}
