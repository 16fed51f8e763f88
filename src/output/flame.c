/*
 * output/flame.c — flame graphs of a frame tree: a self-contained
 * interactive SVG in the manner of Brendan Gregg's flamegraph.pl
 * (folded stacks are in flame_folded.c).
 *
 * The SVG reads without JavaScript: every frame carries its label as
 * static text, cut to what fits and clipped to the frame (a nested <svg>
 * viewport per frame), so it shows in an <img> or after conversion to PNG.
 * Its width follows the window (viewBox, width="100%"); the script adds
 * zoom, an in-page search box and a details line. Layout is one pass over
 * the frames (parents come before children): each frame's children are
 * placed left to right, widest first, from the frame's own left edge.
 * Frames too narrow to see are counted, not drawn, so a million-frame tree
 * still makes an SVG a browser opens at once.
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
#define LEGEND_H 20 /* the diff legend's row, under the subtitle */
#define BOTTOM   32
#define MARGIN   10
#define MIN_PX   0.1
#define NAME_MAX 1024
/* Average advance of a 12px Verdana/DejaVu Sans character: how many fit a
 * frame. The script uses the same figure, so zoomed labels agree. */
#define CHAR_PX 7.0

typedef struct layout {
    double *x; /* left edge, fraction of the root's width */
    uint32_t max_depth;
    size_t hidden;
    double top; /* y of the first frame row */
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
 * bytes that are not UTF-8) in the visible form text output uses. At most
 * `max_chars` characters (each escape counting as its length); returns how
 * many were written, or SIZE_MAX when the text had more. */
static size_t xml_text_n(FILE *out, const char *s, size_t max_chars)
{
    size_t avail = strlen(s), chars = 0;
    while (avail) {
        char esc[8];
        size_t n, k;
        const char *piece = pk_text_unit((const unsigned char *)s, avail, esc, &n, &k);
        size_t width = piece == s ? 1 : n; /* one character, or its visible escape */
        if (chars + width > max_chars) return SIZE_MAX;
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
        s += k, avail -= k, chars += width;
    }
    return chars;
}

static void xml_text(FILE *out, const char *s)
{
    xml_text_n(out, s, SIZE_MAX);
}

/* The characters of s as a label shows them (xml_text_n's count). */
static size_t text_chars(const char *s)
{
    size_t avail = strlen(s), chars = 0;
    while (avail) {
        char esc[8];
        size_t n, k;
        const char *piece = pk_text_unit((const unsigned char *)s, avail, esc, &n, &k);
        chars += piece == s ? 1 : n;
        s += k, avail -= k;
    }
    return chars;
}

/* A frame's static label: the name, or its start and "..", in as many
 * characters as fit `px` (none below three). */
static void write_label(FILE *out, const char *name, double px)
{
    double fit = floor((px - 6) / CHAR_PX);
    if (fit < 3) return;
    if (fit >= (double)text_chars(name)) {
        xml_text(out, name);
        return;
    }
    xml_text_n(out, name, (size_t)fit - 2);
    fputs("..", out);
}

/* Diff colours: red grew, blue shrank (deeper for more), grey unchanged,
 * purple new; without a base flamegraph.pl's "hot" palette, chosen by the
 * name so it is stable. The legend (write_legend) names the same colours. */
#define COLOR_UNCHANGED "rgb(235,235,235)"
#define COLOR_NEW       "rgb(190,110,230)"
#define COLOR_GREW      "rgb(255,100,100)"
#define COLOR_SHRANK    "rgb(100,100,255)"

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
        snprintf(buf, size, COLOR_NEW);
        return;
    }
    double r = max_delta > 0 ? (f->self - *base_self) / max_delta : 0;
    unsigned fade = (unsigned)(180 * (1 - fabs(r))) + 55;
    if (r == 0)
        snprintf(buf, size, COLOR_UNCHANGED);
    else if (r > 0)
        snprintf(buf, size, "rgb(255,%u,%u)", fade, fade);
    else
        snprintf(buf, size, "rgb(%u,%u,255)", fade, fade);
}

/* The load module of a frame's function (or of its context), or NULL. */
static const char *frame_module(const pk_profile *p, const pk_frame *f)
{
    pk_context c;
    pk_function fn;
    pk_module m;
    pk_index mod = PK_NONE;
    if (pk_context_get(p, f->context, &c) != PK_OK) return NULL;
    if ((c.flags & PK_CTXF_HAS_FUNCTION) && pk_function_get(p, c.function, &fn) == PK_OK)
        mod = fn.module;
    if (mod == PK_NONE && (c.flags & PK_CTXF_HAS_POINT)) mod = c.module;
    return mod != PK_NONE && pk_module_get(p, mod, &m) == PK_OK ? m.path : NULL;
}

/* "3.7 sec (52.7%)": a value with the metric's unit and its share. */
static void write_amount(FILE *out, const char *label, double v, double root, const char *unit)
{
    char value[32];
    pk_format_value(value, sizeof value, v);
    fprintf(out, "\n%s: %s", label, value);
    if (unit && *unit) {
        fputc(' ', out);
        xml_text(out, unit);
    }
    fprintf(out, " (%.2f%%)", 100.0 * v / root);
}

/* The tooltip: name, total and self with unit and share, module, and
 * against a base the change of the total. */
static void write_tooltip(FILE *out, const pk_profile *p, const pk_frame *f, pk_index i,
                          const char *name, const pk_flame_options *o)
{
    double root = f[0].inclusive;
    const char *module = frame_module(p, &f[i]);
    fputs("<title>", out);
    xml_text(out, name);
    write_amount(out, "total", f[i].inclusive, root, o->unit);
    write_amount(out, "self", f[i].self, root, o->unit);
    if (module) {
        fputs("\nmodule: ", out);
        xml_text(out, module);
    }
    if (o->base && !isnan(o->base[i])) {
        char value[32];
        pk_format_value(value, sizeof value, f[i].inclusive - o->base[i]);
        fprintf(out, "\nchange: %s%s against the base", f[i].inclusive >= o->base[i] ? "+" : "",
                value);
    } else if (o->base) {
        fputs("\nnot in the base", out);
    }
    fputs("</title>", out);
}

static void write_frame(FILE *out, const pk_profile *p, const pk_frame *f, pk_index i,
                        const layout *l, const pk_flame_options *o, double max_delta)
{
    char name[NAME_MAX], color[32];
    double root = f[0].inclusive, w = f[i].inclusive / root * o->width;
    double y = o->icicle ? l->top + f[i].depth * FRAME_H
                         : l->top + (double)(l->max_depth - f[i].depth) * FRAME_H;
    pk_frame_name(p, &f[i], name, sizeof name);
    frame_color(color, sizeof color, &f[i], o->base_self ? &o->base_self[i] : NULL, max_delta);
    fprintf(out, "<g class=\"f\" data-x=\"%.9g\" data-w=\"%.9g\" data-d=\"%u\" data-n=\"", l->x[i],
            f[i].inclusive / root, f[i].depth);
    xml_text(out, name);
    fputs("\">", out);
    write_tooltip(out, p, f, i, name, o);
    /* the nested viewport clips the label to the frame */
    fprintf(out,
            "<svg x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\"><rect width=\"100%%\" "
            "height=\"100%%\" fill=\"%s\" rx=\"2\"/><text x=\"3\" y=\"%.1f\">",
            MARGIN + l->x[i] * o->width, y, w, FRAME_H - 1, color, FRAME_H - 4.5);
    write_label(out, name, w);
    fputs("</text></svg></g>\n", out);
}

/* What the diff colours mean, one swatch each. */
static void write_legend(FILE *out, double y)
{
    static const char *const items[][2] = {{COLOR_GREW, "self grew"},
                                           {COLOR_SHRANK, "self shrank"},
                                           {COLOR_UNCHANGED, "unchanged"},
                                           {COLOR_NEW, "not in the base"}};
    fputs("<g id=\"legend\">", out);
    for (int k = 0; k < 4; k++) {
        int x = MARGIN + k * 150;
        fprintf(out,
                "<rect x=\"%d\" y=\"%.0f\" width=\"14\" height=\"12\" fill=\"%s\" "
                "stroke=\"#888\" stroke-width=\"0.5\"/><text x=\"%d\" y=\"%.0f\">%s</text>",
                x, y - 10, items[k][0], x + 19, y, items[k][1]);
    }
    fputs("<text x=\"610\" y=\"", out);
    fprintf(out, "%.0f\">(deeper colour: larger change)</text></g>\n", y);
}

static void write_head(FILE *out, const pk_flame_options *o, double height)
{
    unsigned total_w = o->width + 2 * MARGIN;
    fprintf(out,
            "<?xml version=\"1.0\" standalone=\"no\"?>\n"
            "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"100%%\" "
            "viewBox=\"0 0 %u %.0f\" data-fw=\"%u\" data-h=\"%.0f\">\n"
            "<style>text{font-family:Verdana,'DejaVu Sans',sans-serif;font-size:12px;fill:#000}"
            "g.f{cursor:pointer}g.f:hover rect{stroke:#000;stroke-width:0.5}"
            "g.f text{pointer-events:none}g.parent rect{opacity:0.5}g.hit rect{fill:#e040e0}"
            "#title{font-size:17px;text-anchor:middle}#sub{text-anchor:middle;fill:#555}"
            ".btn{cursor:pointer}#reset{opacity:0.3}#find{display:none}"
            "#find input{width:100%%;box-sizing:border-box;font:12px sans-serif}</style>\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#fafaf5\"/>\n<text id=\"title\" "
            "x=\"%u\" y=\"24\">",
            total_w, height, o->width, height, total_w / 2);
    xml_text(out, o->title ? o->title : "Flame Graph");
    fprintf(out, "</text>\n<text id=\"sub\" x=\"%u\" y=\"44\">", total_w / 2);
    xml_text(out, o->subtitle ? o->subtitle : "");
    /* the search box is an HTML input the script shows: no prompt(), and
     * nothing half-working where scripts do not run (an <img>, a PNG) */
    fprintf(out,
            "</text>\n<text id=\"reset\" class=\"btn\" x=\"%d\" y=\"24\">Reset zoom</text>\n"
            "<foreignObject id=\"find\" x=\"%u\" y=\"8\" width=\"200\" height=\"24\">"
            "<input xmlns=\"http://www.w3.org/1999/xhtml\" id=\"term\" type=\"search\" "
            "placeholder=\"Search (regular expression)\"/></foreignObject>\n"
            "<text id=\"matched\" x=\"%u\" y=\"%.0f\" text-anchor=\"end\"> </text>\n"
            "<text id=\"details\" x=\"%d\" y=\"%.0f\"> </text>\n",
            MARGIN, total_w - MARGIN - 200, total_w - MARGIN, height - 12, MARGIN, height - 12);
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

static void write_frames(FILE *out, const pk_profile *p, const pk_frame *f, size_t n, layout *l,
                         const pk_flame_options *o, double min_frac)
{
    double max_delta = largest_change(f, n, o->base_self);
    for (size_t i = 0; i < n; i++) {
        if (f[i].inclusive / f[0].inclusive < min_frac)
            l->hidden++;
        else
            write_frame(out, p, f, (pk_index)i, l, o, max_delta);
    }
    fprintf(out, "<!-- %zu frames narrower than %g pixel not drawn -->\n", l->hidden, MIN_PX);
}

/* The drawing of a profile whose total is 0: its title and a line that
 * says there is no cost, no frames (every width would be 0). */
static pk_status write_empty(FILE *out, const pk_flame_options *o)
{
    double height = TOP + FRAME_H + BOTTOM;
    write_head(out, o, height);
    fprintf(out,
            "<text id=\"empty\" x=\"%u\" y=\"%.0f\" text-anchor=\"middle\">No cost: every frame "
            "is 0, so nothing has a width</text>\n<!-- 0 frames drawn -->\n</svg>\n",
            o->width / 2 + MARGIN, (double)(TOP + FRAME_H));
    return ferror(out) ? pk_fail(PK_ERR_IO, "flame: write error") : PK_OK;
}

pk_status pk_flame_write_svg(FILE *out, const pk_profile *p, const pk_frame *f, size_t n,
                             const pk_flame_options *opts)
{
    if (!out || !p || !f || n == 0) return pk_fail(PK_ERR_INVALID_ARG, "flame: bad arguments");
    if (!(f[0].inclusive >= 0)) /* widths: a total below 0 (or NaN) has no drawing */
        return pk_fail(PK_ERR_UNSUPPORTED,
                       "flame: the root's value is %g; a flame graph draws values of 0 and more",
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
    if (f[0].inclusive == 0) return write_empty(out, &o); /* a profile of no cost: drawn empty */
    double min_frac = MIN_PX / o.width;
    layout l = {0};
    pk_status st = place_frames(f, n, min_frac, &l);
    if (st) return st;
    if (!o.base || !o.base_self) o.base = o.base_self = NULL; /* both or neither */
    l.top = TOP + (o.base ? LEGEND_H : 0);
    double height = l.top + (l.max_depth + 1.0) * FRAME_H + BOTTOM;
    write_head(out, &o, height);
    if (o.base) write_legend(out, TOP + 2);
    write_frames(out, p, f, n, &l, &o, min_frac);
    fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n",
            pk_flame_script);
    free(l.x);
    return ferror(out) ? pk_fail(PK_ERR_IO, "flame: write error") : PK_OK;
}
