/*
 * formats/pprof/read_index.c — pass 1 over a Profile message: every
 * top-level field once, in whatever order the producer wrote them (Go
 * writes the string table last). Strings are kept as (offset, length)
 * into the stream; functions, mappings and locations with their lines as
 * small records; samples are only counted here (pass 2 reads them, once
 * every id they name can be resolved). Then every string index, id and
 * reference is checked against what exists, as go tool pprof does
 * (profile.CheckValid): ids are non-zero and unique, lines name a
 * function that exists. A location naming a mapping id no mapping has
 * is read, as go tool pprof reads it, without a mapping (and a warning).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pr.h"
#include "util/error.h"

/* "Profile.location[3].line" style names, made only for messages. */
static const char *where(char *buf, size_t size, const char *msg, uint64_t i, const char *field)
{
    snprintf(buf, size, "Profile.%s[%llu]%s%s", msg, (unsigned long long)i, field ? "." : "",
             field ? field : "");
    return buf;
}

static pk_status wire_error(pr *r, const pb_field *f, const char *msg, uint64_t i, int want)
{
    char w[160];
    char field[24];
    snprintf(field, sizeof field, "field %u", f->num);
    return pr_fail(r, f->at, where(w, sizeof w, msg, i, field),
                   "wire type %u where profile.proto has %s", f->wire,
                   want == PB_LEN ? "a length-delimited field" : "a varint");
}

/* Fields 1..n_varints of a message that are all varints (ValueType,
 * Function, Mapping): out[num - 1] = value. Other fields are skipped. */
static pk_status varints(pr *r, const pb_in *parent, const pb_field *m, const char *msg, uint64_t i,
                         uint64_t *out, uint32_t n)
{
    pb_in in = pb_sub(parent, m);
    pb_field f;
    int got;
    while ((got = pb_next(&in, &f)) > 0) {
        if (f.num < 1 || f.num > n) continue;
        if (f.wire != PB_VARINT) return wire_error(r, &f, msg, i, PB_VARINT);
        out[f.num - 1] = f.v;
    }
    if (got < 0) {
        char w[160];
        return pr_wire_fail(r, &in, where(w, sizeof w, msg, i, NULL));
    }
    return PK_OK;
}

static pk_status sample_type(pr *r, const pb_in *top, const pb_field *f, pr_vtype *out,
                             const char *msg, uint64_t i)
{
    uint64_t v[2] = {0, 0};
    PK_TRY(varints(r, top, f, msg, i, v, 2));
    *out = (pr_vtype){v[0], v[1], f->at};
    return PK_OK;
}

static pk_status function(pr *r, const pb_in *top, const pb_field *f)
{
    uint64_t v[5] = {0};
    PK_TRY(varints(r, top, f, "function", r->n_fns, v, 5));
    PK_TRY(pr_grow(r, (void **)&r->fns, &r->cap_fns, r->n_fns + 1u, sizeof *r->fns, "functions"));
    r->fns[r->n_fns++] = (pr_fn){v[0], v[1], v[2], v[3], f->at, (int64_t)v[4], PK_NONE};
    return PK_OK;
}

static pk_status mapping(pr *r, const pb_in *top, const pb_field *f)
{
    uint64_t v[10] = {0};
    PK_TRY(varints(r, top, f, "mapping", r->n_maps, v, 10));
    PK_TRY(
        pr_grow(r, (void **)&r->maps, &r->cap_maps, r->n_maps + 1u, sizeof *r->maps, "mappings"));
    r->maps[r->n_maps++] = (pr_map){v[0], v[1], v[2], v[3], v[4], v[5], f->at, PK_NONE, PK_NONE};
    return PK_OK;
}

/* Location.line: function_id (1), line (2); column (3) is not kept. */
static pk_status line(pr *r, const pb_in *loc, const pb_field *f)
{
    uint64_t v[2] = {0, 0};
    if (f->wire != PB_LEN) return wire_error(r, f, "location", r->n_locs, PB_LEN);
    PK_TRY(varints(r, loc, f, "location", r->n_locs, v, 2));
    PK_TRY(pr_grow(r, (void **)&r->lines, &r->cap_lines, r->n_lines + 1u, sizeof *r->lines,
                   "location lines"));
    r->lines[r->n_lines++] = (pr_line){v[0], (int64_t)v[1], PK_NONE};
    return PK_OK;
}

static pk_status location(pr *r, const pb_in *top, const pb_field *m)
{
    pb_in in = pb_sub(top, m);
    pb_field f;
    pr_loc l = {0, 0, m->at, 0, PK_NONE, r->n_lines, 0};
    int got;
    if (r->n_lines == UINT32_MAX) return pk_fail(PK_ERR_LIMIT, "%s: too many lines", r->file);
    while ((got = pb_next(&in, &f)) > 0) {
        if (f.num == 4) {
            PK_TRY(line(r, &in, &f));
            continue;
        }
        if (f.num < 1 || f.num > 3) continue;
        if (f.wire != PB_VARINT) return wire_error(r, &f, "location", r->n_locs, PB_VARINT);
        if (f.num == 1) l.id = f.v;
        if (f.num == 2) l.mapping_id = f.v;
        if (f.num == 3) l.address = f.v;
    }
    if (got < 0) {
        char w[160];
        return pr_wire_fail(r, &in, where(w, sizeof w, "location", r->n_locs, NULL));
    }
    l.n_lines = r->n_lines - l.first_line;
    PK_TRY(
        pr_grow(r, (void **)&r->locs, &r->cap_locs, r->n_locs + 1u, sizeof *r->locs, "locations"));
    r->locs[r->n_locs++] = l;
    return PK_OK;
}

static pk_status string(pr *r, const pb_field *f)
{
    if (f->wire != PB_LEN) return wire_error(r, f, "string_table", r->n_strs, PB_LEN);
    if (f->len > UINT32_MAX || r->n_strs == UINT32_MAX)
        return pr_fail(r, f->at, "Profile.string_table", "a string of %llu bytes",
                       (unsigned long long)f->len);
    PK_TRY(pr_grow(r, (void **)&r->strs, &r->cap_strs, r->n_strs + 1u, sizeof *r->strs,
                   "the string table"));
    r->strs[r->n_strs++] = (pr_str){(uint64_t)(f->data - r->data), (uint32_t)f->len};
    return PK_OK;
}

static pk_status comment(pr *r, const pb_in *top, const pb_field *f)
{
    pb_rep rep;
    uint64_t v;
    int got;
    if (!pb_rep_begin(&rep, top, f)) return wire_error(r, f, "comment", r->n_comments, PB_LEN);
    while ((got = pb_rep_next(&rep, &v)) > 0) {
        PK_TRY(pr_grow(r, (void **)&r->comments, &r->cap_comments, r->n_comments + 1u,
                       sizeof *r->comments, "comments"));
        r->comments[r->n_comments++] = v;
    }
    return got < 0 ? pr_wire_fail(r, &rep.in, "Profile.comment") : PK_OK;
}

/* The profile's own scalars (fields 7-10, 12, 14). */
static pk_status scalar(pr *r, const pb_field *f)
{
    if (f->wire != PB_VARINT) {
        char w[40];
        snprintf(w, sizeof w, "field %u", f->num);
        return pr_fail(r, f->at, "Profile", "%s has wire type %u where profile.proto has a varint",
                       w, f->wire);
    }
    switch (f->num) {
    case 7:
        r->drop_frames = f->v;
        break;
    case 8:
        r->keep_frames = f->v;
        break;
    case 9:
        r->time_nanos = (int64_t)f->v, r->has_time = 1;
        break;
    case 10:
        r->duration_nanos = (int64_t)f->v, r->has_duration = 1;
        break;
    case 12:
        r->period = (int64_t)f->v, r->has_period = 1;
        break;
    case 14:
        r->default_type = f->v;
        break;
    }
    return PK_OK;
}

static pk_status top_field(pr *r, const pb_in *top, const pb_field *f)
{
    if (f->num < 16) r->field_at[f->num] = f->at;
    if ((f->num >= 1 && f->num <= 5) || f->num == 11)
        if (f->wire != PB_LEN) return wire_error(r, f, "field", f->num, PB_LEN);
    switch (f->num) {
    case 1:
        PK_TRY(pr_grow(r, (void **)&r->types, &r->cap_types, r->n_types + 1u, sizeof *r->types,
                       "sample types"));
        PK_TRY(sample_type(r, top, f, &r->types[r->n_types], "sample_type", r->n_types));
        r->n_types++;
        return PK_OK;
    case 2:
        r->n_samples++;
        return PK_OK;
    case 3:
        return mapping(r, top, f);
    case 4:
        return location(r, top, f);
    case 5:
        return function(r, top, f);
    case 6:
        return string(r, f);
    case 11:
        r->has_period_type = 1;
        return sample_type(r, top, f, &r->period_type, "period_type", 0);
    case 13:
        return comment(r, top, f);
    case 7:
    case 8:
    case 9:
    case 10:
    case 12:
    case 14:
        return scalar(r, f);
    }
    return PK_OK; /* a field a newer profile.proto has: skipped */
}

/* ---- ids ---- */

static int cmp_pair(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : (x[1] > y[1]) - (x[1] < y[1]);
}

uint32_t pr_idmap_find(const pr_idmap *m, uint64_t id)
{
    if (m->dense) return id < m->dense_len ? m->dense[id] : PK_NONE;
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->sorted[2 * mid] == id) return (uint32_t)m->sorted[2 * mid + 1];
        if (m->sorted[2 * mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return PK_NONE;
}

void pr_idmap_free(pr_idmap *m)
{
    free(m->dense), free(m->sorted);
    memset(m, 0, sizeof *m);
}

/* Records of `stride` bytes whose first member is the id, `at` the
 * offset of the member holding the record's byte offset. */
static pk_status idmap_build(pr *r, pr_idmap *m, const void *base, size_t stride, uint32_t n,
                             size_t at, const char *msg)
{
    const unsigned char *b = base;
    uint64_t max = 0, *pairs;
    size_t cap = 0;
    m->n = n;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t id;
        memcpy(&id, b + i * stride, 8);
        if (id == 0) {
            char w[160];
            uint64_t off;
            memcpy(&off, b + i * stride + at, 8);
            return pr_fail(r, off, where(w, sizeof w, msg, i, "id"), "id 0 is reserved");
        }
        max = id > max ? id : max;
    }
    PK_TRY(pr_grow(r, (void **)&m->sorted, &cap, (size_t)n * 2 + 2, 8, "an id index"));
    pairs = m->sorted;
    for (uint32_t i = 0; i < n; i++)
        memcpy(&pairs[2 * i], b + i * stride, 8), pairs[2 * i + 1] = i;
    qsort(pairs, n, 16, cmp_pair);
    for (uint32_t k = 1; k < n; k++) {
        if (pairs[2 * k] != pairs[2 * k - 2]) continue;
        uint32_t i = (uint32_t)pairs[2 * k + 1];
        uint64_t off;
        char w[160];
        memcpy(&off, b + i * stride + at, 8);
        return pr_fail(r, off, where(w, sizeof w, msg, i, "id"), "id %llu is used twice",
                       (unsigned long long)pairs[2 * k]);
    }
    if (max >= (uint64_t)n * 4 + 1024) return PK_OK;
    size_t dcap = 0;
    PK_TRY(pr_grow(r, (void **)&m->dense, &dcap, (size_t)max + 1, sizeof *m->dense, "an id index"));
    memset(m->dense, 0xff, ((size_t)max + 1) * sizeof *m->dense);
    for (uint32_t k = 0; k < n; k++)
        m->dense[pairs[2 * k]] = (uint32_t)pairs[2 * k + 1];
    m->dense_len = max + 1;
    return PK_OK;
}

/* ---- checks ---- */

static pk_status check_strings(pr *r)
{
    char w[160];
    for (uint32_t i = 0; i < r->n_types; i++) {
        where(w, sizeof w, "sample_type", i, NULL);
        PK_TRY(pr_check_str(r, r->types[i].type, r->types[i].at, w));
        PK_TRY(pr_check_str(r, r->types[i].unit, r->types[i].at, w));
    }
    for (uint32_t i = 0; i < r->n_fns; i++) {
        const pr_fn *f = &r->fns[i];
        where(w, sizeof w, "function", i, NULL);
        PK_TRY(pr_check_str(r, f->name, f->at, w));
        PK_TRY(pr_check_str(r, f->sys, f->at, w));
        PK_TRY(pr_check_str(r, f->file, f->at, w));
    }
    for (uint32_t i = 0; i < r->n_maps; i++) {
        where(w, sizeof w, "mapping", i, NULL);
        PK_TRY(pr_check_str(r, r->maps[i].file, r->maps[i].at, w));
        PK_TRY(pr_check_str(r, r->maps[i].build, r->maps[i].at, w));
    }
    if (r->has_period_type) {
        PK_TRY(pr_check_str(r, r->period_type.type, r->period_type.at, "Profile.period_type"));
        PK_TRY(pr_check_str(r, r->period_type.unit, r->period_type.at, "Profile.period_type"));
    }
    for (uint32_t i = 0; i < r->n_comments; i++)
        PK_TRY(pr_check_str(r, r->comments[i], r->field_at[13], "Profile.comment"));
    PK_TRY(pr_check_str(r, r->drop_frames, r->field_at[7], "Profile.drop_frames"));
    PK_TRY(pr_check_str(r, r->keep_frames, r->field_at[8], "Profile.keep_frames"));
    return pr_check_str(r, r->default_type, r->field_at[14], "Profile.default_sample_type");
}

/* Lines name existing functions (as indexes from now on); mappings are
 * resolved, or dropped with a warning as go tool pprof drops them. */
static pk_status resolve_locations(pr *r)
{
    char w[160];
    for (uint32_t i = 0; i < r->n_locs; i++) {
        pr_loc *l = &r->locs[i];
        for (uint32_t k = 0; k < l->n_lines; k++) {
            pr_line *ln = &r->lines[l->first_line + k];
            ln->fn = ln->fn_id ? pr_idmap_find(&r->fn_ids, ln->fn_id) : PK_NONE;
            if (ln->fn == PK_NONE)
                return pr_fail(r, l->at, where(w, sizeof w, "location", i, "line"),
                               "line %u names function id %llu, which no function has (go tool "
                               "pprof refuses a line without a function too)",
                               k, (unsigned long long)ln->fn_id);
        }
        if (!l->mapping_id) continue;
        l->map = pr_idmap_find(&r->map_ids, l->mapping_id);
        if (l->map == PK_NONE) r->lost_mappings++;
    }
    if (r->lost_mappings)
        pk_model_diag(r->p, PK_SEV_WARNING, "pprof-mapping", r->file, "Profile.location", 0, 0,
                      "%llu locations name a mapping id that no mapping has: they are read "
                      "without a mapping, as go tool pprof reads them",
                      (unsigned long long)r->lost_mappings);
    return PK_OK;
}

static pk_status check(pr *r)
{
    if (r->n_strs && r->strs[0].len)
        return pr_fail(r, r->strs[0].off, "Profile.string_table[0]",
                       "the first string must be empty (it has %u bytes)", r->strs[0].len);
    PK_TRY(check_strings(r));
    if (r->n_samples && !r->n_types)
        return pr_fail(r, 0, "Profile.sample_type", "%llu samples but no sample type",
                       (unsigned long long)r->n_samples);
    PK_TRY(idmap_build(r, &r->fn_ids, r->fns, sizeof *r->fns, r->n_fns, offsetof(pr_fn, at),
                       "function"));
    PK_TRY(idmap_build(r, &r->map_ids, r->maps, sizeof *r->maps, r->n_maps, offsetof(pr_map, at),
                       "mapping"));
    PK_TRY(idmap_build(r, &r->loc_ids, r->locs, sizeof *r->locs, r->n_locs, offsetof(pr_loc, at),
                       "location"));
    return resolve_locations(r);
}

pk_status pr_index(pr *r)
{
    pb_in top = pb_whole(r->data, r->size);
    pb_field f;
    int got;
    while ((got = pb_next(&top, &f)) > 0)
        PK_TRY(top_field(r, &top, &f));
    if (got < 0) return pr_wire_fail(r, &top, "Profile");
    return check(r);
}
