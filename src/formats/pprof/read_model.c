/*
 * formats/pprof/read_model.c — what pass 2 gathered, as the model:
 *
 *   - each sample type a metric (type as name, unit as unit), its values
 *     in one exclusive scope ("function", as HPCToolkit and profkit's
 *     Callgrind reader name it): a sample's value sits at its leaf
 *     context and, since exclusive values include lexical children,
 *     also at the line and function contexts that enclose it there;
 *   - the sample type go tool pprof shows first (default_sample_type,
 *     else the last) marked as the profile's default metric;
 *   - each distinct label set a location: one identifier per label,
 *     named after its key, the value as the id (a string's ordinal
 *     among its key's values when it is no number), the exact labels
 *     kept as location attributes;
 *   - the profile's period, times, frame filters, comments and mappings
 *     as profile attributes (docs/pprof.md lists them).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof.h"
#include "pr.h"
#include "util/bytes.h"
#include "util/error.h"

static const char *str(pr *r, uint64_t idx)
{
    uint32_t len;
    const char *s = pr_str_at(r, idx, &len);
    return pk_intern(&r->p->strings, s, len);
}

/* ---- metrics ---- */

static pk_status metric_name(pr *r, uint32_t m, const char **out)
{
    char buf[64];
    const char *name = r->strs[r->types[m].type].len ? str(r, r->types[m].type) : NULL;
    if (!name) { /* a sample type without a name: named by its position */
        snprintf(buf, sizeof buf, "sample_type_%u", m);
        name = pk_intern_cstr(&r->p->strings, buf);
    }
    for (uint32_t k = 0; name && k < m; k++) { /* names pick metrics: they must differ */
        if (r->p->metrics[k].name != name) continue;
        char *twice;
        if (asprintf(&twice, "%s_%u", name, m) < 0) return pk_fail_nomem("naming metrics");
        name = pk_intern_cstr(&r->p->strings, twice);
        free(twice);
        k = (uint32_t)-1;
    }
    *out = name;
    return name ? PK_OK : pk_fail_nomem("naming metrics");
}

/* The sample type go tool pprof shows unless told otherwise. */
static uint32_t default_type(pr *r)
{
    for (uint32_t m = 0; r->default_type && m < r->n_types; m++)
        if (r->types[m].type < r->n_strs &&
            r->strs[r->types[m].type].len == r->strs[r->default_type].len &&
            !memcmp(r->data + r->strs[r->types[m].type].off, r->data + r->strs[r->default_type].off,
                    r->strs[r->default_type].len))
            return m;
    if (r->default_type)
        pk_model_diag(r->p, PK_SEV_NOTE, "pprof-default-type", r->file,
                      "Profile.default_sample_type", 1, r->field_at[14],
                      "default_sample_type names no sample type: the last one is the default, "
                      "as go tool pprof takes it");
    return r->n_types - 1;
}

static pk_status metrics(pr *r)
{
    pk_profile *p = r->p;
    static const pk_scope scope = {"function", PK_SCOPE_EXCLUSIVE, 3, 0};
    if (r->n_types > UINT16_MAX)
        return pr_fail(r, r->types[UINT16_MAX].at, "Profile.sample_type",
                       "%u sample types; profkit holds at most %u", r->n_types, UINT16_MAX);
    p->metrics = pk_arena_array(&p->arena, r->n_types + 1u, sizeof *p->metrics);
    p->columns = pk_arena_array(&p->arena, r->n_types + 1u, sizeof *p->columns);
    p->scopes = pk_arena_array(&p->arena, 1, sizeof *p->scopes);
    if (!p->metrics || !p->columns || !p->scopes) return pk_fail_nomem("setting up metrics");
    p->scopes[0] = scope, p->n_scopes = 1;
    for (uint32_t m = 0; m < r->n_types; m++) {
        pk_metric *x = &p->metrics[m];
        *x = (pk_metric){NULL, NULL, NULL, PK_NONE, PK_COMBINE_SUM, 0};
        PK_TRY(metric_name(r, m, &x->name));
        if (r->strs[r->types[m].unit].len && !(x->unit = str(r, r->types[m].unit)))
            return pk_fail_nomem("setting up metrics");
        p->n_metrics = m + 1;
        p->columns[m] = (pk_column){m, 0, 0, PK_STAT_NONE, NULL, PK_COMBINE_SUM, m};
        p->n_columns = m + 1;
        PK_TRY(pk_model_map_column(p, 0, m, m));
    }
    if (!r->n_types) return PK_OK;
    return pk_model_add_attr(p, PK_ENTITY_METRIC, default_type(r), "profkit:default", "1", 1);
}

/* ---- values ---- */

static pk_status add_to_row(pr *r, uint32_t set, uint32_t ctx, const double *v)
{
    uint32_t row;
    PK_TRY(pr_row_of(r, set, ctx, &row));
    for (uint32_t m = 0; m < r->n_types; m++)
        r->row_vals[(size_t)row * r->n_types + m] += v[m];
    return PK_OK;
}

/* Exclusive values include lexical children: each sample's value also at
 * the line and function contexts around its leaf. */
static pk_status fold_lexical(pr *r)
{
    double *v = malloc((r->n_types + 1u) * sizeof *v);
    if (!v) return pk_fail_nomem("reading samples");
    pk_status st = PK_OK;
    uint32_t n = r->n_rows;
    for (uint32_t i = 0; i < n && !st; i++) {
        uint32_t c = r->rows[i].ctx, set = r->rows[i].set;
        memcpy(v, r->row_vals + (size_t)i * r->n_types, r->n_types * sizeof *v);
        for (; !st && c && r->ctx[c].relation == PK_REL_LEXICAL; c = r->ctx[c].parent)
            st = add_to_row(r, set, r->ctx[c].parent, v);
    }
    free(v);
    return st;
}

/* One stable counting-sort pass: order[] by key(row) into out[]. */
static pk_status count_pass(const uint32_t *order, uint32_t n, const uint32_t *key, uint32_t n_keys,
                            uint32_t *out)
{
    uint32_t *start = calloc((size_t)n_keys + 1, sizeof *start);
    if (!start) return pk_fail_nomem("reading samples");
    for (uint32_t i = 0; i < n; i++)
        start[key[order[i]] + 1]++;
    for (uint32_t k = 1; k <= n_keys; k++)
        start[k] += start[k - 1];
    for (uint32_t i = 0; i < n; i++)
        out[start[key[order[i]]]++] = order[i];
    free(start);
    return PK_OK;
}

/* Rows in (location, context id) order: two counting-sort passes (by
 * context, then stably by location), linear in rows + contexts. */
static pk_status sorted_rows(pr *r, const uint32_t *new_index, uint32_t **out)
{
    size_t n = (size_t)r->n_rows + 1, cap = 0;
    uint32_t *ctx = NULL, *set = NULL, *a = NULL, *b = NULL;
    pk_status st = pr_grow(r, (void **)&ctx, &cap, n, 4, "values");
    cap = 0, st = st ? st : pr_grow(r, (void **)&set, &cap, n, 4, "values");
    cap = 0, st = st ? st : pr_grow(r, (void **)&a, &cap, n, 4, "values");
    cap = 0, st = st ? st : pr_grow(r, (void **)&b, &cap, n, 4, "values");
    for (uint32_t i = 0; i < r->n_rows && !st; i++)
        ctx[i] = new_index[r->rows[i].ctx], set[i] = r->rows[i].set, a[i] = i;
    if (!st) st = count_pass(a, r->n_rows, ctx, r->n_ctx, b);
    if (!st) st = count_pass(b, r->n_rows, set, r->n_sets, a);
    free(ctx), free(set), free(b);
    if (st) return free(a), st;
    *out = a;
    return PK_OK;
}

/* Values of one row that are not 0 (values of opposite signs, as in a
 * diff profile, may add up to 0: the model stores no zeros). */
static uint32_t nonzero(const pr *r, uint32_t row)
{
    uint32_t n = 0;
    for (uint32_t m = 0; m < r->n_types; m++)
        n += r->row_vals[(size_t)row * r->n_types + m] != 0;
    return n;
}

static pk_status planes(pr *r, const uint32_t *new_index)
{
    pk_profile *p = r->p;
    uint32_t *k;
    uint64_t n_vals = 0, n_idx = 0;
    PK_TRY(sorted_rows(r, new_index, &k));
    for (uint32_t i = 0; i < r->n_rows; i++) {
        uint32_t n = nonzero(r, i);
        n_vals += n, n_idx += n != 0;
    }
    unsigned char *idx = pk_model_alloc_owned(p, n_idx * PK_LM_IDX_SIZE + 1);
    unsigned char *vals = pk_model_alloc_owned(p, n_vals * PK_LM_VAL_SIZE + 1);
    if (!idx || !vals) return free(k), pk_fail_nomem("reading samples");
    uint64_t v = 0, x_i = 0;
    for (uint32_t i = 0; i < r->n_rows; i++) {
        uint32_t row = k[i], set = r->rows[row].set;
        pk_loc_rec *loc = &p->locs[set];
        if (!nonzero(r, row)) continue;
        if (!loc->plane.nidx) loc->plane.idx = idx + x_i * PK_LM_IDX_SIZE;
        if (!loc->plane.nidx) loc->plane.vals = vals + v * PK_LM_VAL_SIZE;
        unsigned char *rec = idx + x_i++ * PK_LM_IDX_SIZE;
        pk_put_le32(rec, new_index[r->rows[row].ctx]);
        pk_put_le64(rec + 4, v - (uint64_t)(loc->plane.vals - vals) / PK_LM_VAL_SIZE);
        for (uint32_t m = 0; m < r->n_types; m++) {
            double x = r->row_vals[(size_t)row * r->n_types + m];
            if (x == 0) continue;
            pk_put_le16(vals + v * PK_LM_VAL_SIZE, (uint16_t)m);
            pk_put_le64(vals + v * PK_LM_VAL_SIZE + 2, pk_f64_bits(x));
            v++, loc->plane.nvals++;
        }
        loc->plane.nidx++;
    }
    free(k);
    return PK_OK;
}

/* ---- locations ---- */

typedef struct id_state {
    pk_kmap kinds;      /* key string -> kind */
    pk_kmap values;     /* (kind, value) -> ordinal */
    uint32_t *n_values; /* per kind: distinct values so far */
    size_t cap_kinds;
} id_state;

static pk_status kind_of(pr *r, id_state *s, const char *key, uint16_t *out)
{
    pk_profile *p = r->p;
    uint64_t k[PK_KMAP_WORDS] = {(uint64_t)(uintptr_t)key};
    uint32_t kind;
    int added;
    if (pk_kmap_upsert(&s->kinds, k, p->n_id_kinds, &kind, &added))
        return pk_fail_nomem("reading labels");
    if (added) {
        if (p->n_id_kinds >= UINT16_MAX)
            return pk_fail(PK_ERR_LIMIT, "%s: more than %u label keys", r->file, UINT16_MAX);
        PK_TRY(pr_grow(r, (void **)&p->id_kind_names, &s->cap_kinds, p->n_id_kinds + 1u,
                       sizeof *p->id_kind_names, "labels"));
        uint32_t *nv = realloc(s->n_values, s->cap_kinds * sizeof *nv);
        if (!nv) return pk_fail_nomem("reading labels");
        s->n_values = nv, nv[p->n_id_kinds] = 0;
        p->id_kind_names[p->n_id_kinds++] = key;
    }
    *out = (uint16_t)kind;
    return PK_OK;
}

static int decimal_u32(const char *s, uint32_t *out)
{
    uint64_t v = 0;
    if (!*s || (s[0] == '0' && s[1])) return 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || (v = v * 10 + (uint64_t)(*s - '0')) > UINT32_MAX) return 0;
    }
    *out = (uint32_t)v;
    return 1;
}

static pk_status ordinal(id_state *s, uint16_t kind, uint64_t value, uint32_t *out)
{
    uint64_t k[PK_KMAP_WORDS] = {kind, value};
    int added;
    if (pk_kmap_upsert(&s->values, k, s->n_values[kind], out, &added))
        return pk_fail_nomem("reading labels");
    s->n_values[kind] += added;
    return PK_OK;
}

static pk_status attr(pr *r, uint32_t loc, const char *prefix, const char *key, const char *v)
{
    char *k;
    if (asprintf(&k, "%s%s", prefix, key) < 0) return pk_fail_nomem("reading labels");
    pk_status st = pk_model_add_attr(r->p, PK_ENTITY_LOCATION, loc, k, v, strlen(v));
    free(k);
    return st;
}

static pk_status ident(pr *r, id_state *s, uint32_t loc, const pr_label *l, pk_ident *id)
{
    const char *key = str(r, l->key), *v;
    char num[32];
    if (!key) return pk_fail_nomem("reading labels");
    PK_TRY(kind_of(r, s, key, &id->kind));
    id->kind_name = key;
    if (l->is_num) {
        snprintf(num, sizeof num, "%lld", (long long)l->num);
        PK_TRY(attr(r, loc, PPROF_ATTR_NUM_LABEL, key, num));
        if (l->unit && (v = str(r, l->unit)) && *v)
            PK_TRY(attr(r, loc, PPROF_ATTR_NUM_UNIT, key, v));
        id->physical = (uint64_t)l->num;
        if (l->num >= 0 && l->num <= UINT32_MAX) return id->logical = (uint32_t)l->num, PK_OK;
        id->flags = PK_ID_PHYSICAL; /* a negative or huge number: its ordinal, and itself */
        return ordinal(s, id->kind, (uint64_t)l->num, &id->logical);
    }
    if (!(v = str(r, l->str))) return pk_fail_nomem("reading labels");
    PK_TRY(attr(r, loc, PPROF_ATTR_LABEL, key, v));
    if (decimal_u32(v, &id->logical)) return id->physical = id->logical, PK_OK;
    /* a name: its ordinal as the id, the name itself for views (model.md) */
    PK_TRY(ordinal(s, id->kind, (uint64_t)(uintptr_t)v, &id->logical));
    id->physical = id->logical;
    return attr(r, loc, "value-name:", key, v);
}

static pk_status locations(pr *r)
{
    pk_profile *p = r->p;
    id_state s = {{0}};
    s.kinds.words = 1, s.values.words = 2;
    p->locs = pk_arena_array(&p->arena, r->n_sets + 1u, sizeof *p->locs);
    pk_ident *ids = pk_arena_array(&p->arena, r->n_set_labels + 1, sizeof *ids);
    pk_status st = p->locs && ids ? PK_OK : pk_fail_nomem("reading labels");
    for (uint32_t i = 0; i < r->n_sets && !st; i++) {
        const pr_set *set = &r->sets[i];
        pk_ident *t = ids + set->first;
        for (uint32_t k = 0; k < set->n && !st; k++)
            st = ident(r, &s, i, &r->set_labels[set->first + k], &t[k]);
        p->locs[i] = (pk_loc_rec){.raw_index = i, .n_ids = set->n, .ids = t, .trace = PK_NONE};
    }
    p->n_locs = r->n_sets;
    pk_kmap_free(&s.kinds), pk_kmap_free(&s.values), free(s.n_values);
    return st;
}

/* ---- the profile ---- */

static pk_status pattr(pr *r, const char *key, const char *value)
{
    return value ? pk_model_add_attr(r->p, PK_ENTITY_PROFILE, 0, key, value, strlen(value))
                 : pk_fail_nomem("reading a pprof profile");
}

static pk_status pattr_int(pr *r, const char *key, int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    return pattr(r, key, buf);
}

static pk_status mapping_attrs(pr *r)
{
    for (uint32_t i = 0; i < r->n_maps; i++) {
        const pr_map *m = &r->maps[i];
        const char *build = str(r, m->build), *file = str(r, m->file);
        char *v;
        if (!build || !file) return pk_fail_nomem("reading mappings");
        if (asprintf(&v, "0x%llx 0x%llx 0x%llx %s %s", (unsigned long long)m->start,
                     (unsigned long long)m->limit, (unsigned long long)m->offset,
                     *build ? build : "-", file) < 0)
            return pk_fail_nomem("reading mappings");
        pk_status st = pattr(r, PPROF_ATTR_MAPPING, v);
        free(v);
        PK_TRY(st);
        if (!r->p->title && *file) r->p->title = file; /* go tool pprof's "File:" */
    }
    return PK_OK;
}

static pk_status profile_attrs(pr *r)
{
    if (r->has_period_type) {
        PK_TRY(pattr(r, "pprof:period_type", str(r, r->period_type.type)));
        PK_TRY(pattr(r, "pprof:period_unit", str(r, r->period_type.unit)));
    }
    if (r->has_period) PK_TRY(pattr_int(r, "pprof:period", r->period));
    if (r->has_time) PK_TRY(pattr_int(r, "pprof:time_nanos", r->time_nanos));
    if (r->has_duration) PK_TRY(pattr_int(r, "pprof:duration_nanos", r->duration_nanos));
    if (r->drop_frames) PK_TRY(pattr(r, "pprof:drop_frames", str(r, r->drop_frames)));
    if (r->keep_frames) PK_TRY(pattr(r, "pprof:keep_frames", str(r, r->keep_frames)));
    for (uint32_t i = 0; i < r->n_comments; i++)
        PK_TRY(pattr(r, "pprof:comment", str(r, r->comments[i])));
    if (r->default_type) PK_TRY(pattr(r, "pprof:default_sample_type", str(r, r->default_type)));
    return mapping_attrs(r);
}

static pk_status notes(pr *r)
{
    if (r->unchosen_labels)
        PK_TRY(pk_model_diag(r->p, PK_SEV_NOTE, "pprof-labels-summed", r->file, "Profile.sample", 0,
                             0,
                             "%llu sample labels not named by --locations-from (%s) are summed "
                             "over: locations are made of the labels it names",
                             (unsigned long long)r->unchosen_labels, r->locations_from));
    return PK_OK;
}

pk_status pr_build_model(pr *r)
{
    uint32_t *new_index = NULL;
    PK_TRY(metrics(r));
    PK_TRY(fold_lexical(r));
    PK_TRY(locations(r));
    PK_TRY(pr_layout(r, &new_index));
    pk_status st = planes(r, new_index);
    free(new_index);
    if (!st) st = profile_attrs(r);
    if (!st) st = notes(r);
    if (!st) pk_model_sort_attrs(r->p);
    return st;
}
