/*
 * output/flame.c — flame graphs of a frame tree: a self-contained
 * interactive SVG in the manner of Brendan Gregg's flamegraph.pl, and the
 * folded-stack text that flamegraph.pl, inferno and speedscope read.
 *
 * Layout is one pass over the frames (parents come before children):
 * each frame's children are placed left to right, widest first, from the
 * frame's own left edge. Frames too narrow to see are counted, not drawn,
 * so a million-frame tree still makes an SVG a browser opens at once.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "profkit/analysis.h"
#include "profkit/output.h"
#include "util/error.h"
#include "util/text_escape.h"

#define FRAME_H  16
#define TOP      64
#define BOTTOM   32
#define MARGIN   10
#define MIN_PX   0.1
#define NAME_MAX 1024

typedef struct layout {
    double *x; /* left edge, fraction of the root's width */
    uint32_t max_depth;
    size_t hidden;
} layout;

typedef struct kid {
    double w;
    pk_index i;
} kid;

static int widest_first(const void *a, const void *b)
{
    const kid *x = a, *y = b;
    if (x->w != y->w) return x->w < y->w ? 1 : -1;
    return x->i < y->i ? -1 : 1;
}

static pk_status place_frames(const pk_frame *f, size_t n, double min_frac, layout *l)
{
    l->x = calloc(n, sizeof *l->x);
    kid *kids = malloc(n * sizeof *kids);
    if (!l->x || !kids) {
        free(kids);
        return pk_fail_nomem("laying out the flame graph");
    }
    double root = f[0].inclusive;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        for (pk_index c = f[i].first_child; c != PK_NONE; c = f[c].next_sibling)
            kids[k++] = (kid){f[c].inclusive, c};
        qsort(kids, k, sizeof *kids, widest_first);
        double at = l->x[i];
        for (size_t j = 0; j < k; j++) {
            l->x[kids[j].i] = at;
            at += kids[j].w > 0 ? kids[j].w / root : 0;
        }
        if (f[i].inclusive / root >= min_frac && f[i].depth > l->max_depth)
            l->max_depth = f[i].depth;
    }
    free(kids);
    return PK_OK;
}

/* Well-formed XML text or attribute value whatever the bytes: markup
 * characters as entities, and what XML cannot hold (control characters,
 * bytes that are not UTF-8) in the visible form text output uses. */
static void xml_text(FILE *out, const char *s)
{
    size_t avail = strlen(s);
    while (avail) {
        char esc[8];
        size_t n, k;
        const char *piece = pk_text_unit((const unsigned char *)s, avail, esc, &n, &k);
        const char *entity = piece != s  ? NULL
                             : *s == '&' ? "&amp;"
                             : *s == '<' ? "&lt;"
                             : *s == '>' ? "&gt;"
                             : *s == '"' ? "&quot;"
                                         : NULL;
        if (entity)
            fputs(entity, out);
        else
            fwrite(piece, 1, n, out);
        s += k, avail -= k;
    }
}

/* flamegraph.pl's "hot" palette, chosen by the name so it is stable. */
static void frame_color(char *buf, size_t size, const pk_frame *f, const double *base_self,
                        double max_delta)
{
    if (!base_self) {
        uint64_t h = f->name_hash;
        snprintf(buf, size, "rgb(%u,%u,%u)", 205 + (unsigned)(h % 50), (unsigned)((h >> 8) % 230),
                 (unsigned)((h >> 16) % 55));
        return;
    }
    if (isnan(*base_self)) {
        snprintf(buf, size, "rgb(255,90,90)"); /* new in this profile */
        return;
    }
    double r = max_delta > 0 ? (f->self - *base_self) / max_delta : 0;
    unsigned fade = (unsigned)(180 * (1 - fabs(r))) + 55;
    if (r == 0)
        snprintf(buf, size, "rgb(235,235,235)"); /* unchanged */
    else if (r > 0)
        snprintf(buf, size, "rgb(255,%u,%u)", fade, fade);
    else
        snprintf(buf, size, "rgb(%u,%u,255)", fade, fade);
}

static void write_frame(FILE *out, const pk_profile *p, const pk_frame *f, pk_index i,
                        const layout *l, const pk_flame_options *o, double max_delta)
{
    char name[NAME_MAX], value[32], color[32];
    double root = f[0].inclusive, w = f[i].inclusive / root * o->width;
    double y = o->icicle ? TOP + f[i].depth * FRAME_H
                         : TOP + (double)(l->max_depth - f[i].depth) * FRAME_H;
    pk_frame_name(p, &f[i], name, sizeof name);
    pk_format_value(value, sizeof value, f[i].inclusive);
    frame_color(color, sizeof color, &f[i], o->base_self ? &o->base_self[i] : NULL, max_delta);
    fprintf(out, "<g class=\"f\" data-x=\"%.9g\" data-w=\"%.9g\" data-d=\"%u\" data-n=\"", l->x[i],
            f[i].inclusive / root, f[i].depth);
    xml_text(out, name);
    fputs("\"><title>", out);
    xml_text(out, name);
    fprintf(out, " (%s, %.2f%%", value, 100.0 * f[i].inclusive / root);
    if (o->base && !isnan(o->base[i])) {
        pk_format_value(value, sizeof value, f[i].inclusive - o->base[i]);
        fprintf(out, "; %s%s against the base", f[i].inclusive >= o->base[i] ? "+" : "", value);
    } else if (o->base) {
        fputs("; not in the base", out);
    }
    fprintf(out,
            ")</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
            "rx=\"2\"/><text x=\"%.2f\" y=\"%.1f\"></text></g>\n",
            MARGIN + l->x[i] * o->width, y, w, FRAME_H - 1, color, MARGIN + l->x[i] * o->width + 3,
            y + FRAME_H - 4.5);
}

static void write_head(FILE *out, const pk_flame_options *o, double height)
{
    unsigned total_w = o->width + 2 * MARGIN;
    fprintf(
        out,
        "<?xml version=\"1.0\" standalone=\"no\"?>\n"
        "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" "
        "height=\"%.0f\" viewBox=\"0 0 %u %.0f\" data-fw=\"%u\">\n"
        "<style>text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}"
        "g.f{cursor:pointer}g.f:hover rect{stroke:#000;stroke-width:0.5}"
        "g.f text{pointer-events:none}g.parent rect{opacity:0.5}g.hit rect{fill:#e040e0}"
        "#title{font-size:17px;text-anchor:middle}#sub{text-anchor:middle;fill:#555}"
        ".btn{cursor:pointer}#reset{opacity:0.3}</style>\n"
        "<rect width=\"100%%\" height=\"100%%\" fill=\"#fafaf5\"/>\n<text id=\"title\" x=\"%u\" "
        "y=\"24\">",
        total_w, height, total_w, height, o->width, total_w / 2);
    xml_text(out, o->title ? o->title : "Flame Graph");
    fprintf(out, "</text>\n<text id=\"sub\" x=\"%u\" y=\"44\">", total_w / 2);
    xml_text(out, o->subtitle ? o->subtitle : "");
    fprintf(
        out,
        "</text>\n<text id=\"reset\" class=\"btn\" x=\"%d\" y=\"24\">Reset zoom</text>\n"
        "<text id=\"search\" class=\"btn\" x=\"%u\" y=\"24\" text-anchor=\"end\">Search</text>\n"
        "<text id=\"matched\" x=\"%u\" y=\"%.0f\" text-anchor=\"end\"> </text>\n"
        "<text id=\"details\" x=\"%d\" y=\"%.0f\"> </text>\n",
        MARGIN, total_w - MARGIN, total_w - MARGIN, height - 12, MARGIN, height - 12);
}

static double largest_change(const pk_frame *f, size_t n, const double *base_self)
{
    double m = 0;
    for (size_t i = 0; base_self && i < n; i++)
        if (!isnan(base_self[i]) && fabs(f[i].self - base_self[i]) > m)
            m = fabs(f[i].self - base_self[i]);
    return m;
}

/* Every output built on a reconstructed tree says so. */
static int reconstructed(const pk_profile *p)
{
    pk_profile_info pi;
    return pk_profile_get_info(p, &pi) == PK_OK && pi.reconstructed;
}

pk_status pk_flame_write_svg(FILE *out, const pk_profile *p, const pk_frame *f, size_t n,
                             const pk_flame_options *opts)
{
    if (!out || !p || !f || n == 0) return pk_fail(PK_ERR_INVALID_ARG, "flame: bad arguments");
    if (!(f[0].inclusive > 0))
        return pk_fail(PK_ERR_INVALID_ARG, "flame: the root's value is %g; nothing to draw",
                       f[0].inclusive);
    pk_flame_options o = {0};
    if (opts) o = *opts;
    if (o.width == 0) o.width = 1200;
    char sub[1024];
    if (reconstructed(p)) {
        snprintf(sub, sizeof sub,
                 "%s%scalling contexts RECONSTRUCTED from the call graph "
                 "(approximate)",
                 o.subtitle ? o.subtitle : "", o.subtitle ? "; " : "");
        o.subtitle = sub;
    }
    double min_frac = MIN_PX / o.width;
    layout l = {0};
    pk_status st = place_frames(f, n, min_frac, &l);
    if (st) return st;
    double height = TOP + (l.max_depth + 1.0) * FRAME_H + BOTTOM, max_delta = 0;
    if (!o.base || !o.base_self) o.base = o.base_self = NULL; /* both or neither */
    max_delta = largest_change(f, n, o.base_self);
    write_head(out, &o, height);
    for (size_t i = 0; i < n; i++) {
        if (f[i].inclusive / f[0].inclusive < min_frac)
            l.hidden++;
        else
            write_frame(out, p, f, (pk_index)i, &l, &o, max_delta);
    }
    fprintf(out, "<!-- %zu frames narrower than %g pixel not drawn -->\n", l.hidden, MIN_PX);
    fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n",
            pk_flame_script);
    free(l.x);
    return ferror(out) ? pk_fail(PK_ERR_IO, "flame: write error") : PK_OK;
}

/* Append frame i's name to the path buffer at *len, ';' separated; a
 * control character or invalid byte in the name in its visible form
 * (text_escape.h), so no name can break a line or a terminal. */
static int push_name(const pk_profile *p, const pk_frame *f, char **path, size_t *cap, size_t *len)
{
    char raw[NAME_MAX], name[2 * NAME_MAX];
    pk_frame_name(p, f, raw, sizeof raw);
    size_t k = pk_text_escape(raw, name, sizeof name);
    if (k >= sizeof name) k = strlen(name);
    if (*len + k + 2 > *cap) {
        size_t cap2 = 2 * (*len + k + 2);
        char *grown = realloc(*path, cap2);
        if (!grown) return -1;
        *path = grown, *cap = cap2;
    }
    if (*len) (*path)[(*len)++] = ';';
    for (size_t j = 0; j < k; j++)
        (*path)[(*len)++] = name[j] == ';' ? ':' : name[j];
    (*path)[*len] = 0;
    return 0;
}

/* Depth-first over frames, the path of names kept in one buffer. */
static pk_status folded_walk(FILE *out, const pk_profile *p, const pk_frame *f, size_t n,
                             size_t *path_len, char **path, size_t *cap)
{
    size_t top = 0, *stack = malloc(n * sizeof *stack);
    if (!stack) return pk_fail_nomem("writing folded stacks");
    for (pk_index c = f[0].first_child; c != PK_NONE; c = f[c].next_sibling)
        stack[top++] = c;
    while (top) {
        pk_index i = (pk_index)stack[--top];
        path_len[f[i].depth] = f[i].depth > 1 ? path_len[f[i].depth - 1] : 0;
        size_t len = path_len[f[i].depth];
        if (push_name(p, &f[i], path, cap, &len) < 0) break;
        path_len[f[i].depth] = len;
        if (f[i].self > 0) {
            char v[40];
            pk_format_double(v, sizeof v, f[i].self);
            fprintf(out, "%s %s\n", *path, v);
        }
        (*path)[len] = 0;
        for (pk_index c = f[i].first_child; c != PK_NONE; c = f[c].next_sibling)
            stack[top++] = c;
    }
    free(stack);
    return top ? pk_fail_nomem("writing folded stacks") : PK_OK;
}

/* Stacks repeat the path from the root on every line, so a deep tree's
 * folded text grows with the square of its depth: a chain 100,000 deep
 * makes 19.5 GB from a 24 MB profile. Such output is refused before a
 * byte is written, when it would pass FOLDED_MAX_BYTES and be more than
 * FOLDED_MAX_RATIO times the frames' own text (real profiles, a few
 * hundred frames deep, stay far below both). */
#define FOLDED_MAX_BYTES (1ull << 30)
#define FOLDED_MAX_RATIO 1024

static pk_status folded_size_check(const pk_profile *p, const pk_frame *f, size_t n)
{
    uint64_t *plen = malloc(n * sizeof *plen), total = 0, own = 0;
    if (!plen) return pk_fail_nomem("writing folded stacks");
    char name[NAME_MAX];
    uint32_t deepest = 0;
    plen[0] = 0;
    for (size_t i = 1; i < n; i++) { /* parents come before their children */
        size_t k = pk_frame_name(p, &f[i], name, sizeof name);
        k = k >= sizeof name ? sizeof name - 1 : k;
        uint64_t up = f[i].parent != PK_NONE && f[i].parent < i ? plen[f[i].parent] : 0;
        plen[i] = up + k + (up != 0);
        own += k + 1;
        if (f[i].self > 0) total += plen[i] + 24, own += 24;
        if (f[i].depth > deepest) deepest = f[i].depth;
    }
    free(plen);
    if (total <= FOLDED_MAX_BYTES || total / FOLDED_MAX_RATIO <= own) return PK_OK;
    return pk_fail(PK_ERR_LIMIT,
                   "folded stacks: the output would take about %.1f GB for %zu frames (each line "
                   "repeats its whole path, and the tree is %u frames deep); write the profile "
                   "as speedscope or profkit JSON instead, which grow with the tree, not with "
                   "the square of its depth",
                   (double)total / 1e9, n, deepest);
}

pk_status pk_flame_write_folded(FILE *out, const pk_profile *p, const pk_frame *f, size_t n)
{
    if (!out || !p || !f || n == 0) return pk_fail(PK_ERR_INVALID_ARG, "folded: bad arguments");
    pk_status st = folded_size_check(p, f, n);
    if (st) return st;
    uint32_t max_depth = 0;
    for (size_t i = 0; i < n; i++)
        if (f[i].depth > max_depth) max_depth = f[i].depth;
    size_t *path_len = calloc((size_t)max_depth + 2, sizeof *path_len), cap = 4096;
    char *path = malloc(cap);
    if (reconstructed(p)) /* readers of folded stacks skip a line they cannot read */
        fputs("# calling contexts RECONSTRUCTED from the call graph (approximate)\n", out);
    st = path_len && path ? folded_walk(out, p, f, n, path_len, &path, &cap)
                          : pk_fail_nomem("writing folded stacks");
    free(path_len), free(path);
    if (!st && ferror(out)) st = pk_fail(PK_ERR_IO, "folded: write error");
    return st;
}
