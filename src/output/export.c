/*
 * output/export.c — one-way exports of a profile for other tools:
 * speedscope's JSON file format (one sampled profile per location) and a
 * tidy CSV table (one row per stored value) for pandas and spreadsheets.
 *
 * speedscope (https://www.speedscope.app/file-format-schema.json): frames
 * are shared by all profiles. Each location is an "evented" profile: the
 * frame tree walked depth first, a frame opened ("O") when the walk enters
 * it and closed ("C") when it leaves, the clock advancing by each frame's
 * self value while it is on top. speedscope shows exactly what a
 * "sampled" profile of the tree's paths weighted by self values shows, but
 * a sampled profile repeats every stack in full, which grows with the
 * square of the depth (a chain 10,000 deep: 145 MB and seconds); the
 * events are two per frame. The walk follows first_child / next_sibling /
 * parent links, so no stack limits the depth. Each location's frame tree
 * is built once: shared frame indexes are handed out while the profiles
 * are written, and the shared list comes after them (JSON members have no
 * order).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profkit/analysis.h"
#include "profkit/output.h"
#include "util/error.h"
#include "util/kmap.h"

typedef struct shared_frames {
    pk_kmap by_name;   /* name hash -> shared index */
    pk_index *context; /* per shared index: a context with that name */
    uint32_t n, cap;
} shared_frames;

static const char *speedscope_unit(const char *unit)
{
    if (!unit) return "none";
    if (strcmp(unit, "sec") == 0 || strcmp(unit, "s") == 0 || strcmp(unit, "seconds") == 0)
        return "seconds";
    if (strcmp(unit, "ms") == 0) return "milliseconds";
    if (strcmp(unit, "us") == 0) return "microseconds";
    if (strcmp(unit, "ns") == 0) return "nanoseconds";
    if (strcmp(unit, "bytes") == 0 || strcmp(unit, "B") == 0) return "bytes";
    return "none";
}

/* The shared index of a frame's name, handed out on first sight. */
static int shared_index(shared_frames *s, const pk_frame *f, uint32_t *out)
{
    uint64_t key[PK_KMAP_WORDS] = {f->name_hash};
    int added;
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? 2 * s->cap : 1024;
        pk_index *grown = realloc(s->context, cap * sizeof *grown);
        if (!grown) return -1;
        s->context = grown, s->cap = cap;
    }
    if (pk_kmap_upsert(&s->by_name, key, s->n, out, &added) < 0) return -1;
    if (added) s->context[s->n++] = f->context;
    return 0;
}

/* One location's frames: inclusive values of that location alone. */
static pk_status location_frames(const pk_profile *p, pk_index metric, pk_index loc,
                                 unsigned char *sel, double *incl, pk_frame **f, size_t *n)
{
    size_t nl = pk_location_count(p), nc = pk_context_count(p);
    memset(sel, 0, nl);
    sel[loc] = 1;
    pk_status st =
        pk_context_stat_values(p, metric, PK_SCOPE_INCLUSIVE, sel, PK_ACROSS_SUM, incl, nc, NULL);
    return st ? st : pk_frames_build(p, incl, f, n);
}

static void write_frames(pk_json *j, const pk_profile *p, const shared_frames *s)
{
    pk_json_array_begin(j);
    for (uint32_t i = 0; i < s->n; i++) {
        pk_json_object_begin(j);
        pk_json_key(j, "name"), pk_json_context_name(j, p, s->context[i]);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

static void event(pk_json *j, const char *type, uint32_t frame, double at)
{
    pk_json_object_begin(j);
    pk_json_key(j, "type"), pk_json_string(j, type);
    pk_json_key(j, "frame"), pk_json_uint(j, frame);
    pk_json_key(j, "at"), pk_json_double(j, at);
    pk_json_object_end(j);
}

/* Open/close events of one location's frames below frame 0 (the root,
 * which speedscope does not show), depth first; *end gets the clock at
 * the end. Subtrees with nothing in them are left out. */
static pk_status write_events(pk_json *j, const pk_frame *f, size_t n, shared_frames *s,
                              double *end)
{
    double t = 0;
    uint32_t shared;
    pk_json_key(j, "events");
    pk_json_array_begin(j);
    pk_index i = n > 1 ? f[0].first_child : PK_NONE;
    while (i != PK_NONE) {
        if (f[i].inclusive > 0) {
            if (shared_index(s, &f[i], &shared) < 0) return pk_fail_nomem("speedscope frames");
            event(j, "O", shared, t);
            if (f[i].self > 0) t += f[i].self;
            if (f[i].first_child != PK_NONE) {
                i = f[i].first_child;
                continue;
            }
            event(j, "C", shared, t);
        }
        /* on to the next sibling, closing each parent whose last child i was */
        while (f[i].next_sibling == PK_NONE) {
            i = f[i].parent;
            if (i == 0 || i == PK_NONE) break;
            shared_index(s, &f[i], &shared); /* known since it was opened */
            event(j, "C", shared, t);
        }
        i = i == 0 || i == PK_NONE ? PK_NONE : f[i].next_sibling;
    }
    pk_json_array_end(j);
    *end = t;
    return PK_OK;
}

static pk_status write_profile(pk_json *j, const pk_profile *p, pk_index metric, pk_index l,
                               unsigned char *sel, double *incl, shared_frames *s)
{
    pk_metric met;
    pk_frame *f = NULL;
    size_t n = 0;
    double end = 0;
    pk_metric_get(p, metric, &met);
    pk_status st = location_frames(p, metric, l, sel, incl, &f, &n);
    if (!st) {
        pk_json_object_begin(j);
        pk_json_key(j, "type"), pk_json_string(j, "evented");
        pk_json_key(j, "name"), pk_json_location_name(j, p, l);
        pk_json_key(j, "unit"), pk_json_string(j, speedscope_unit(met.unit));
        pk_json_key(j, "startValue"), pk_json_double(j, 0);
        st = write_events(j, f, n, s, &end);
        pk_json_key(j, "endValue"), pk_json_double(j, end);
        pk_json_object_end(j);
    }
    pk_frames_free(f);
    return st;
}

static pk_status speedscope_body(pk_json *j, const pk_profile *p, pk_index metric, const char *name,
                                 unsigned char *sel, double *incl)
{
    shared_frames s = {{0}, NULL, 0, 0};
    pk_status st = PK_OK;
    pk_json_object_begin(j);
    pk_json_key(j, "$schema");
    pk_json_string(j, "https://www.speedscope.app/file-format-schema.json");
    pk_json_key(j, "name"), pk_json_string(j, name);
    pk_json_key(j, "exporter"), pk_json_string(j, "profkit");
    pk_json_key(j, "activeProfileIndex"), pk_json_uint(j, 0);
    pk_json_key(j, "profiles");
    pk_json_array_begin(j);
    for (pk_index l = 0; l < pk_location_count(p) && !st; l++) {
        pk_location loc;
        pk_location_get(p, l, &loc);
        if (!loc.is_summary) st = write_profile(j, p, metric, l, sel, incl, &s);
    }
    pk_json_array_end(j);
    pk_json_key(j, "shared");
    pk_json_object_begin(j);
    pk_json_key(j, "frames");
    write_frames(j, p, &s);
    pk_json_object_end(j);
    pk_json_object_end(j);
    pk_status done = pk_json_finish(j); /* always: it frees the writer */
    if (!st) st = done;
    pk_kmap_free(&s.by_name);
    free(s.context);
    return st;
}

pk_status pk_export_speedscope(FILE *out, const pk_profile *p, pk_index metric, const char *name)
{
    if (!out || !p || metric >= pk_metric_count(p))
        return pk_fail(PK_ERR_INVALID_ARG, "speedscope: bad arguments");
    size_t nl = pk_location_count(p), nc = pk_context_count(p);
    unsigned char *sel = malloc(nl ? nl : 1);
    double *incl = malloc((nc ? nc : 1) * sizeof *incl);
    pk_json j;
    pk_json_init(&j, out, 0);
    pk_profile_info pi;
    char label[1024]; /* a reconstructed tree says so in the profile's name */
    if (pk_profile_get_info(p, &pi) == PK_OK && pi.reconstructed) {
        snprintf(label, sizeof label, "%s (calling contexts RECONSTRUCTED from the call graph)",
                 name ? name : "profile");
        name = label;
    }
    pk_status st = sel && incl ? speedscope_body(&j, p, metric, name ? name : "profile", sel, incl)
                               : pk_fail_nomem("speedscope export");
    free(sel), free(incl);
    if (!st && ferror(out)) st = pk_fail(PK_ERR_IO, "speedscope: write error");
    return st;
}
