/*
 * view/route_flame.c — /api/flame: the function-level tree below a node as
 * nested frames for a flame graph, pruned to what is wide enough to see
 * (and bounded in size), written without recursion so a tree of any
 * depth is safe. With --base, side a's frames carry the same path's
 * values in the base profile for a differential colouring.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "view/view.h"

#define MAX_FRAMES 20000

static const char *const flame_params[] = {"metric",   "node", "min", "side",
                                           "location", "stat", NULL};

/* Base values of every frame of t (side a): the frame of the base tree at
 * the same path of names, 0 where there is none. Kept with t. */
static int base_values(pkv_session *s, pkv_tree *t, const pk_metric *met, char *err, size_t size)
{
    if (t->base_incl) return 200;
    pk_index mb;
    int rc = 200;
    const pkv_side *b = &s->side[1];
    double *bi = calloc(t->n_frames ? t->n_frames : 1, sizeof *bi);
    double *bs = calloc(t->n_frames ? t->n_frames : 1, sizeof *bs);
    pk_index *map = malloc((t->n_frames ? t->n_frames : 1) * sizeof *map);
    if (!bi || !bs || !map) rc = 500, snprintf(err, size, "out of memory");
    if (rc == 200 && pkv_metric(b, met->name, &mb, err, size) == 200) {
        const pkv_tree *bt =
            pkv_tree_get(s, 1, mb, NULL, t->sel.stat, PKV_MODE_FUNCTION, &rc, err, size);
        if (bt && pk_frames_match(s->side[0].p, t->frames, t->n_frames, b->p, bt->frames,
                                  bt->n_frames, map) != PK_OK)
            rc = 500, snprintf(err, size, "%s", pk_error_last());
        for (size_t i = 0; bt && rc == 200 && i < t->n_frames; i++)
            if (map[i] != PK_NONE)
                bi[i] = bt->frames[map[i]].inclusive, bs[i] = bt->frames[map[i]].self;
    }
    free(map);
    if (rc != 200) return free(bi), free(bs), rc;
    t->base_incl = bi, t->base_self = bs;
    return 200;
}

typedef struct flame {
    const pk_profile *p;
    const pkv_tree *t;
    pk_json *j;
    double cutoff;
    size_t emitted, hidden;
} flame;

static void open_frame(flame *fl, pk_index i)
{
    pk_json *j = fl->j;
    const pk_frame *f = &fl->t->frames[i];
    pk_json_object_begin(j);
    pk_json_key(j, "id");
    pk_json_uint(j, i);
    pkv_json_frame_place(j, fl->p, f);
    pk_json_key(j, "self");
    pk_json_double(j, f->self);
    pk_json_key(j, "inclusive");
    pk_json_double(j, f->inclusive);
    if (fl->t->base_incl) {
        pk_json_key(j, "base_inclusive");
        pk_json_double(j, fl->t->base_incl[i]);
        pk_json_key(j, "base_self");
        pk_json_double(j, fl->t->base_self[i]);
    }
    pk_json_key(j, "children");
    pk_json_array_begin(j);
    fl->emitted++;
}

/* The next child of a frame after `c` wide enough to show (counting the
 * ones passed over), or PK_NONE. */
static pk_index next_shown(flame *fl, pk_index c)
{
    for (; c != PK_NONE; c = fl->t->frames[c].next_sibling) {
        if (fl->t->frames[c].inclusive >= fl->cutoff && fl->emitted < MAX_FRAMES) return c;
        fl->hidden++;
    }
    return PK_NONE;
}

/* Depth-first with an explicit stack of "next child to look at". */
static int write_frames(flame *fl, pk_index top)
{
    size_t cap = 64, sp = 0;
    pk_index *next = malloc(cap * sizeof *next);
    if (!next) return 0;
    open_frame(fl, top);
    next[sp++] = fl->t->frames[top].first_child;
    while (sp) {
        pk_index c = next_shown(fl, next[sp - 1]);
        if (c == PK_NONE) {
            pk_json_array_end(fl->j);
            pk_json_object_end(fl->j);
            sp--;
            continue;
        }
        next[sp - 1] = fl->t->frames[c].next_sibling;
        if (sp == cap) {
            pk_index *more = realloc(next, 2 * cap * sizeof *next);
            if (!more) return free(next), 0;
            next = more, cap *= 2;
        }
        open_frame(fl, c);
        next[sp++] = fl->t->frames[c].first_child;
    }
    free(next);
    return 1;
}

int pkv_route_flame(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size)
{
    pkv_common c;
    pk_index id;
    int rc;
    double min;
    if (!pkv_double(q, "min", 0, 100, 0.1, &min, err, size)) return 400;
    pkv_tree *t =
        (pkv_tree *)pkv_tree_of(s, q, flame_params, PKV_MODE_FUNCTION, &c, &id, &rc, err, size);
    if (!t) return rc;
    if (c.side == 0 && s->side[1].p && (rc = base_values(s, t, &c.met, err, size)) != 200)
        return rc;
    pkv_json_head(j, "profkit.view.flame/1", &c, t->vals.total);
    pk_json_key(j, "min");
    pk_json_double(j, min);
    flame fl = {c.sd->p, t, j, fabs(t->frames[id].inclusive) * min / 100.0, 0, 0};
    pk_json_key(j, "root");
    if (!write_frames(&fl, id)) return snprintf(err, size, "out of memory"), 500;
    pk_json_key(j, "frames");
    pk_json_uint(j, fl.emitted);
    pk_json_key(j, "hidden");
    pk_json_uint(j, fl.hidden);
    pk_json_object_end(j);
    return 200;
}
