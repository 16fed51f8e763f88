/*
 * formats/pprof/read_samples.c — pass 2: the samples. Each sample's
 * stack (leaf first in the file) becomes a path of contexts from the
 * root (read_tree.c); its labels, those that make a location (all of
 * them, or --locations-from's), a label set, and each distinct set a
 * location; its values are added to the row of (set, leaf context). So
 * memory follows the distinct paths, label sets and (set, context)
 * pairs the file holds, never the number of samples.
 *
 * Labels follow go tool pprof's reading: a label with a string is a
 * string label, else one with a number or a unit a numeric one, else
 * (key only) it is ignored.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pr.h"
#include "util/error.h"

typedef struct sample_ctx {
    uint64_t index; /* which sample, for messages */
    size_t n_stack, n_values, n_labels;
    char where[64];
} sample_ctx;

static const char *field(sample_ctx *s, const char *name)
{
    snprintf(s->where, sizeof s->where, "Profile.sample[%llu].%s", (unsigned long long)s->index,
             name);
    return s->where;
}

/* ---- which labels make a location ---- */

static int str_is(const pr *r, uint64_t idx, const char *s, size_t len)
{
    uint32_t n;
    const char *t = pr_str_at(r, idx, &n);
    return n == len && memcmp(t, s, len) == 0;
}

pk_status pr_choose_labels(pr *r)
{
    const char *sel = r->locations_from;
    if (!sel) return PK_OK; /* every label */
    if (!*sel || strcmp(sel, "none") == 0) return r->one_location = 1, PK_OK;
    size_t cap = 0;
    for (const char *s = sel; *s;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        for (uint32_t i = 0; i < r->n_strs; i++) {
            if (!str_is(r, i, s, len)) continue;
            PK_TRY(pr_grow(r, (void **)&r->chosen, &cap, r->n_chosen + 1u, sizeof *r->chosen,
                           "labels"));
            r->chosen[r->n_chosen++] = i;
        }
        s += len + (comma != NULL);
    }
    if (!r->chosen) PK_TRY(pr_grow(r, (void **)&r->chosen, &cap, 1, sizeof *r->chosen, "labels"));
    return PK_OK;
}

static int chosen(const pr *r, uint64_t key)
{
    if (!r->chosen) return 1;
    for (uint32_t i = 0; i < r->n_chosen; i++)
        if (r->chosen[i] == key) return 1;
    return 0;
}

/* Remember a few label keys, to name them when a chosen one is absent. */
static void note_key(pr *r, uint64_t key)
{
    for (uint32_t i = 0; i < r->n_seen_keys; i++)
        if (r->seen_keys[i] == key) return;
    if (r->n_seen_keys < sizeof r->seen_keys / sizeof *r->seen_keys)
        r->seen_keys[r->n_seen_keys++] = key;
}

/* --locations-from names labels no sample has: the user's mistake. */
static pk_status no_chosen_label(pr *r)
{
    char keys[400] = "";
    size_t n = 0;
    for (uint32_t i = 0; i < r->n_seen_keys && n < sizeof keys - 80; i++) {
        uint32_t len;
        const char *s = pr_str_at(r, r->seen_keys[i], &len);
        n += (size_t)snprintf(keys + n, sizeof keys - n, "%s%.*s", i ? ", " : "",
                              (int)(len > 60 ? 60 : len), s);
    }
    return pk_fail(PK_ERR_INVALID_ARG,
                   "%s: no sample has a label named '%s' (the labels that make locations; "
                   "its samples' labels are: %s)",
                   r->file, r->locations_from, n ? keys : "none");
}

/* ---- label sets ---- */

static int cmp_label(const void *a, const void *b)
{
    const pr_label *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->is_num != y->is_num) return x->is_num < y->is_num ? -1 : 1;
    if (x->str != y->str) return x->str < y->str ? -1 : 1;
    if (x->num != y->num) return x->num < y->num ? -1 : 1;
    return (x->unit > y->unit) - (x->unit < y->unit);
}

static uint64_t hash_labels(const pr_label *l, size_t n)
{
    uint64_t h = 1469598103934665603ull ^ n;
    for (size_t i = 0; i < n; i++) {
        uint64_t w[5] = {l[i].key, l[i].str, (uint64_t)l[i].num, l[i].unit, (uint64_t)l[i].is_num};
        for (int k = 0; k < 5; k++)
            h = (h ^ w[k]) * 1099511628211ull, h ^= h >> 29;
    }
    return h;
}

static int same_set(const pr *r, const pr_set *s, const pr_label *l, size_t n)
{
    if (s->n != n) return 0;
    for (size_t i = 0; i < n; i++)
        if (cmp_label(&r->set_labels[s->first + i], &l[i])) return 0;
    return 1;
}

static pk_status grow_slots(pr *r)
{
    size_t cap = r->cap_slots ? r->cap_slots * 2 : 64;
    PK_TRY(pk_budget_charge(&r->budget, cap * sizeof(uint32_t), "%s: label sets: %u", r->file,
                            r->n_sets));
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots) return pk_fail_nomem("reading labels");
    pk_budget_release(&r->budget, r->cap_slots * sizeof *slots);
    for (uint32_t i = 0; i < r->n_sets; i++) {
        size_t k = r->sets[i].hash & (cap - 1);
        while (slots[k])
            k = (k + 1) & (cap - 1);
        slots[k] = i + 1;
    }
    free(r->set_slots);
    r->set_slots = slots, r->cap_slots = cap;
    return PK_OK;
}

/* The set of the sample's chosen labels (sorted in place): its index. */
static pk_status label_set(pr *r, pr_label *l, size_t n, uint32_t *out)
{
    if (r->one_location) n = 0;
    if (n > 16)
        qsort(l, n, sizeof *l, cmp_label);
    else /* a sample's few labels: insertion sort, no qsort call per sample */
        for (size_t i = 1; i < n; i++)
            for (size_t k = i; k > 0 && cmp_label(&l[k - 1], &l[k]) > 0; k--) {
                pr_label t = l[k];
                l[k] = l[k - 1], l[k - 1] = t;
            }
    uint64_t h = hash_labels(l, n);
    if ((r->n_sets + 1u) * 2 > r->cap_slots) PK_TRY(grow_slots(r));
    size_t k = h & (r->cap_slots - 1);
    for (; r->set_slots[k]; k = (k + 1) & (r->cap_slots - 1)) {
        const pr_set *s = &r->sets[r->set_slots[k] - 1];
        if (s->hash == h && same_set(r, s, l, n)) return *out = r->set_slots[k] - 1, PK_OK;
    }
    if (r->n_sets == PK_NONE - 1) return pk_fail(PK_ERR_LIMIT, "%s: too many label sets", r->file);
    PK_TRY(
        pr_grow(r, (void **)&r->sets, &r->cap_sets, r->n_sets + 1u, sizeof *r->sets, "label sets"));
    PK_TRY(pr_grow(r, (void **)&r->set_labels, &r->cap_set_labels, r->n_set_labels + n,
                   sizeof *r->set_labels, "label sets"));
    if (n) memcpy(r->set_labels + r->n_set_labels, l, n * sizeof *l);
    r->sets[r->n_sets] = (pr_set){h, (uint32_t)r->n_set_labels, (uint32_t)n};
    r->n_set_labels += n;
    r->set_slots[k] = r->n_sets + 1;
    *out = r->n_sets++;
    return PK_OK;
}

/* ---- rows of values ---- */

pk_status pr_row_of(pr *r, uint32_t set, uint32_t ctx, uint32_t *row)
{
    uint64_t key[PK_KMAP_WORDS] = {set, ctx};
    int added;
    if (r->n_rows == PK_NONE - 1) return pk_fail(PK_ERR_LIMIT, "%s: too many values", r->file);
    if (pk_kmap_upsert(&r->row_map, key, r->n_rows, row, &added))
        return pk_fail_nomem("reading samples");
    if (added) {
        size_t n = r->n_rows + 1u;
        PK_TRY(pr_grow(r, (void **)&r->rows, &r->cap_rows, n, sizeof *r->rows, "values"));
        PK_TRY(pr_grow(r, (void **)&r->row_vals, &r->cap_row_vals, n * r->n_types,
                       sizeof *r->row_vals, "values"));
        r->rows[*row] = (pr_rowkey){set, ctx};
        memset(r->row_vals + (size_t)*row * r->n_types, 0, r->n_types * sizeof *r->row_vals);
        r->n_rows++;
    }
    return PK_OK;
}

static pk_status add_row(pr *r, uint32_t set, uint32_t ctx, const int64_t *v)
{
    int any = 0;
    for (uint32_t m = 0; m < r->n_types; m++)
        any |= v[m] != 0;
    if (!any) return PK_OK;
    uint32_t row;
    PK_TRY(pr_row_of(r, set, ctx, &row));
    for (uint32_t m = 0; m < r->n_types; m++)
        r->row_vals[(size_t)row * r->n_types + m] += (double)v[m];
    return PK_OK;
}

/* ---- one sample ---- */

static pk_status locations(pr *r, sample_ctx *s, const pb_in *in, const pb_field *f)
{
    pb_rep rep;
    uint64_t id;
    int got;
    if (!pb_rep_begin(&rep, in, f))
        return pr_fail(r, f->at, field(s, "location_id"), "wire type %u", f->wire);
    while ((got = pb_rep_next(&rep, &id)) > 0) {
        uint32_t loc = pr_idmap_find(&r->loc_ids, id);
        if (loc == PK_NONE)
            return pr_fail(r, f->at, field(s, "location_id"),
                           "location id %llu, which no location has", (unsigned long long)id);
        PK_TRY(pr_grow(r, (void **)&r->stack, &r->cap_stack, s->n_stack + 1, sizeof *r->stack,
                       "a stack"));
        r->stack[s->n_stack++] = loc;
    }
    return got < 0 ? pr_wire_fail(r, &rep.in, field(s, "location_id")) : PK_OK;
}

static pk_status values(pr *r, sample_ctx *s, const pb_in *in, const pb_field *f)
{
    pb_rep rep;
    uint64_t v;
    int got;
    if (!pb_rep_begin(&rep, in, f))
        return pr_fail(r, f->at, field(s, "value"), "wire type %u", f->wire);
    while ((got = pb_rep_next(&rep, &v)) > 0) {
        if (s->n_values >= r->n_types)
            return pr_fail(r, f->at, field(s, "value"),
                           "more values than the profile's %u sample types", r->n_types);
        r->values[s->n_values++] = (int64_t)v;
    }
    return got < 0 ? pr_wire_fail(r, &rep.in, field(s, "value")) : PK_OK;
}

static pk_status label(pr *r, sample_ctx *s, const pb_in *in, const pb_field *f)
{
    uint64_t v[4] = {0, 0, 0, 0};
    pb_field g;
    int got;
    if (f->wire != PB_LEN) return pr_fail(r, f->at, field(s, "label"), "wire type %u", f->wire);
    pb_in m = pb_sub(in, f);
    while ((got = pb_next(&m, &g)) > 0) {
        if (g.num < 1 || g.num > 4) continue;
        if (g.wire != PB_VARINT)
            return pr_fail(r, g.at, field(s, "label"), "wire type %u for a varint", g.wire);
        v[g.num - 1] = g.v;
    }
    if (got < 0) return pr_wire_fail(r, &m, field(s, "label"));
    /* the field's name is made only for a message (this runs per label) */
    if (v[0] >= r->n_strs) return pr_check_str(r, v[0], f->at, field(s, "label.key"));
    if (v[1] >= r->n_strs) return pr_check_str(r, v[1], f->at, field(s, "label.str"));
    if (v[3] >= r->n_strs) return pr_check_str(r, v[3], f->at, field(s, "label.num_unit"));
    if (!v[1] && !v[2] && !v[3]) return PK_OK; /* go tool pprof ignores it too */
    note_key(r, v[0]);
    if (!chosen(r, v[0])) return r->unchosen_labels++, PK_OK;
    r->chosen_seen++;
    PK_TRY(pr_grow(r, (void **)&r->labels, &r->cap_labels, s->n_labels + 1, sizeof *r->labels,
                   "labels"));
    int is_num = v[1] == 0;
    r->labels[s->n_labels++] = (pr_label){v[0],  is_num ? 0 : v[1],          is_num ? v[3] : 0,
                                          f->at, is_num ? (int64_t)v[2] : 0, is_num};
    return PK_OK;
}

/* The context of a stack (leaf first in r->stack: the root's side
 * last). Consecutive samples often share the frames near the root (one
 * thread's base, one request's handler): those are taken from the
 * previous sample's path, the rest looked up (pr_loc_ctx). */
static pk_status stack_ctx(pr *r, size_t n, uint32_t *out)
{
    uint32_t ctx = 0;
    size_t same = 0;
    PK_TRY(pr_grow(r, (void **)&r->path_loc, &r->cap_path, n + 1, sizeof *r->path_loc, "a stack"));
    size_t cap = r->cap_path_ctx;
    PK_TRY(pr_grow(r, (void **)&r->path_ctx, &cap, n + 1, sizeof *r->path_ctx, "a stack"));
    r->cap_path_ctx = cap;
    while (same < n && same < r->n_path && r->path_loc[same] == r->stack[n - 1 - same])
        ctx = r->path_ctx[same++];
    for (size_t i = same; i < n; i++) {
        PK_TRY(pr_loc_ctx(r, ctx, r->stack[n - 1 - i], &ctx));
        r->path_loc[i] = r->stack[n - 1 - i], r->path_ctx[i] = ctx;
    }
    r->n_path = n;
    *out = ctx;
    return PK_OK;
}

static pk_status sample(pr *r, sample_ctx *s, const pb_in *top, const pb_field *f)
{
    pb_in in = pb_sub(top, f);
    pb_field g;
    int got;
    pk_status st = PK_OK;
    s->n_stack = s->n_values = s->n_labels = 0;
    while (!st && (got = pb_next(&in, &g)) > 0) {
        if (g.num == 1) st = locations(r, s, &in, &g);
        if (g.num == 2) st = values(r, s, &in, &g);
        if (g.num == 3) st = label(r, s, &in, &g);
    }
    if (st) return st;
    if (got < 0) return pr_wire_fail(r, &in, field(s, "(fields)"));
    if (s->n_values != r->n_types)
        return pr_fail(r, f->at, field(s, "value"),
                       "%zu values for %u sample types (go tool "
                       "pprof refuses the profile too)",
                       s->n_values, r->n_types);
    uint32_t ctx = 0, set;
    PK_TRY(stack_ctx(r, s->n_stack, &ctx));
    PK_TRY(label_set(r, r->labels, s->n_labels, &set));
    return add_row(r, set, ctx, r->values);
}

pk_status pr_samples(pr *r)
{
    pb_in top = pb_whole(r->data, r->size);
    pb_field f;
    sample_ctx s = {0};
    int got;
    r->row_map.words = 2;
    PK_TRY(pr_grow(r, (void **)&r->values, &r->cap_values, r->n_types + 1u, sizeof *r->values,
                   "values"));
    while ((got = pb_next(&top, &f)) > 0) { /* pass 1 read every field already */
        if (f.num != 2) continue;
        PK_TRY(sample(r, &s, &top, &f));
        s.index++;
    }
    if (got < 0) return pr_wire_fail(r, &top, "Profile");
    if (r->chosen && !r->chosen_seen && s.index) return no_chosen_label(r);
    if (!r->n_sets) { /* no sample: still one location, holding nothing */
        uint32_t set;
        PK_TRY(label_set(r, NULL, 0, &set));
    }
    return PK_OK;
}
