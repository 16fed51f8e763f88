/*
 * formats/pprof/dump.c — `profkit dump` for pprof's profile.proto: every
 * message of the Profile as the wire has it, one record per top-level
 * field (sample types, samples, mappings, locations, functions, strings,
 * the profile's scalars) with its byte offset, and records of the
 * messages nested in them (a sample's labels, a location's lines). Values
 * are as stored: string indexes and ids, not what they name (info and the
 * analysis commands resolve them). For a gzip file the offsets are of the
 * decompressed stream, and the records' file says so. Decoding uses the
 * reader's checked wire decoder (pb.h): a damaged byte ends the dump with
 * the message and the offset, after the records before it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/dump_fields.h"
#include "pb.h"
#include "pprof.h"
#include "profkit/dump.h"
#include "util/budget.h"
#include "util/error.h"
#include "util/gzip.h"
#include "util/mapfile.h"
#include "util/namelist.h"

const char *const pprof_section_names[] = {"profile",   "types",     "samples", "mappings",
                                           "locations", "functions", "strings", NULL};

/* How a field's value reads: unsigned, hex, signed (int64), bool, a
 * packed list (unsigned or signed), a nested message, string bytes. */
enum { K_NONE, K_U, K_X, K_I, K_B, K_LIST, K_ILIST, K_MSG, K_STR };

typedef struct schema {
    const char *type, *section;
    const char *name[16]; /* by field number - 1 */
    unsigned char kind[16];
    const struct schema *sub[16]; /* K_MSG: the nested message */
} schema;

static const schema value_type = {"value_type", "types", {"type", "unit"}, {K_U, K_U}, {0}};
static const schema period_type = {"period_type", "types", {"type", "unit"}, {K_U, K_U}, {0}};
static const schema label = {
    "label", "samples", {"key", "str", "num", "num_unit"}, {K_U, K_U, K_I, K_U}, {0}};
static const schema sample = {"sample",
                              "samples",
                              {"location_ids", "values", "label"},
                              {K_LIST, K_ILIST, K_MSG},
                              {NULL, NULL, &label}};
static const schema mapping = {"mapping",
                               "mappings",
                               {"id", "memory_start", "memory_limit", "file_offset", "filename",
                                "build_id", "has_functions", "has_filenames", "has_line_numbers",
                                "has_inline_frames"},
                               {K_U, K_X, K_X, K_X, K_U, K_U, K_B, K_B, K_B, K_B},
                               {0}};
static const schema line = {
    "line", "locations", {"function_id", "line", "column"}, {K_U, K_I, K_I}, {0}};
static const schema location = {"location",
                                "locations",
                                {"id", "mapping_id", "address", "line", "is_folded"},
                                {K_U, K_U, K_X, K_MSG, K_B},
                                {NULL, NULL, NULL, &line}};
static const schema function = {"function",
                                "functions",
                                {"id", "name", "system_name", "filename", "start_line"},
                                {K_U, K_U, K_U, K_U, K_I},
                                {0}};

typedef struct dumper {
    pk_record_fn fn;
    void *user;
    const char *sections, *file;
    pk_field buf[24];
    pk_dump_fields row; /* of buf */
    char *lists[2];     /* a record's packed lists, as text */
    size_t cap[2];
    int stop;
    uint64_t strings; /* string_table entries so far */
    pk_status st;
} dumper;

static void put(dumper *d, const char *k, pk_field_type t, uint64_t u)
{
    pk_dump_put(&d->row, (pk_field){k, t, {.u = u}});
}

/* An int64 as stored: exact in decimal when not negative (time_nanos
 * needs 61 bits), else as a real. */
static void put_signed(dumper *d, const char *k, uint64_t v)
{
    if ((int64_t)v >= 0)
        pk_dump_u(&d->row, k, v);
    else
        pk_dump_r(&d->row, k, (double)(int64_t)v);
}

static void emit(dumper *d, uint64_t at, const char *section, const char *type)
{
    pk_record r = {d->file, at, section, type, d->row.n, d->row.f};
    if (!d->stop && !d->st && pk_namelist_has(d->sections, section)) d->stop = d->fn(d->user, &r);
    d->row.n = 0;
}

static pk_status wire_fail(dumper *d, const pb_in *in, const char *what)
{
    return d->st = pk_fail(PK_ERR_FORMAT, "%s: byte %llu, %s: %s", d->file,
                           (unsigned long long)in->err_at, what,
                           in->err ? in->err : "damaged protobuf data");
}

/* A packed (or single) repeated varint field appended to list `which`
 * as text ("1 2 3"); signed values as int64. */
static pk_status append_list(dumper *d, const pb_in *in, const pb_field *f, int which, int sign,
                             const char *what)
{
    pb_rep r;
    uint64_t v;
    int got;
    if (!pb_rep_begin(&r, in, f)) return PK_OK; /* another wire type: skipped */
    while ((got = pb_rep_next(&r, &v)) > 0) {
        size_t len = d->lists[which] ? strlen(d->lists[which]) : 0;
        if (len + 24 >= d->cap[which]) {
            size_t cap = d->cap[which] ? 2 * d->cap[which] : 256;
            char *more = realloc(d->lists[which], cap);
            if (!more) return d->st = pk_fail_nomem("dumping a pprof profile");
            d->lists[which] = more, d->cap[which] = cap;
            more[len] = 0;
        }
        if (sign)
            snprintf(d->lists[which] + len, 24, "%s%lld", len ? " " : "", (long long)(int64_t)v);
        else
            snprintf(d->lists[which] + len, 24, "%s%llu", len ? " " : "", (unsigned long long)v);
    }
    return got < 0 ? wire_fail(d, &r.in, what) : PK_OK;
}

static pk_status message(dumper *d, const pb_in *top, const pb_field *m, const schema *s,
                         uint64_t index, uint64_t parent);

/* The fields of message m by its schema into the record; nested messages
 * after it, each a record of its own naming its parent's index. */
static pk_status fields(dumper *d, const pb_in *top, const pb_field *m, const schema *s)
{
    pb_in in = pb_sub(top, m);
    pb_field f;
    int got;
    for (int w = 0; w < 2; w++)
        if (d->lists[w]) d->lists[w][0] = 0;
    while ((got = pb_next(&in, &f)) > 0) {
        int k = f.num >= 1 && f.num <= 16 ? s->kind[f.num - 1] : K_NONE;
        const char *name = k ? s->name[f.num - 1] : NULL;
        if (k == K_LIST || k == K_ILIST) {
            if (append_list(d, &in, &f, k == K_ILIST, k == K_ILIST, s->type)) return d->st;
        } else if (k != K_NONE && k != K_MSG && f.wire == PB_VARINT) {
            if (k == K_I)
                put_signed(d, name, f.v);
            else
                put(d, name,
                    k == K_X   ? PK_FIELD_HEX
                    : k == K_B ? PK_FIELD_BOOL
                               : PK_FIELD_UINT,
                    k == K_B ? f.v != 0 : f.v);
        }
    }
    if (got < 0) return wire_fail(d, &in, s->type);
    for (int w = 0; w < 2; w++)
        for (int k = 0; k < 16; k++)
            if (s->kind[k] == (w ? K_ILIST : K_LIST))
                pk_dump_s(&d->row, s->name[k], d->lists[w] ? d->lists[w] : "");
    return PK_OK;
}

static pk_status message(dumper *d, const pb_in *top, const pb_field *m, const schema *s,
                         uint64_t index, uint64_t parent)
{
    if (m->wire != PB_LEN) {
        pb_in bad = *top;
        bad.err_at = m->at, bad.err = "a varint where profile.proto has a message";
        return wire_fail(d, &bad, s->type);
    }
    if (parent != UINT64_MAX) put(d, "parent", PK_FIELD_UINT, parent);
    put(d, "index", PK_FIELD_UINT, index);
    if (fields(d, top, m, s)) return d->st;
    emit(d, m->at, s->section, s->type);
    pb_in in = pb_sub(top, m);
    pb_field f;
    uint64_t n = 0;
    while (!d->stop && pb_next(&in, &f) > 0) /* checked above */
        if (f.num >= 1 && f.num <= 16 && s->kind[f.num - 1] == K_MSG)
            if (message(d, top, &f, s->sub[f.num - 1], n++, index)) return d->st;
    return PK_OK;
}

/* A string_table entry: its index and bytes (NUL-free copy). */
static pk_status string_entry(dumper *d, const pb_field *f)
{
    char buf[4096];
    size_t n = f->len < sizeof buf - 1 ? (size_t)f->len : sizeof buf - 1;
    if (f->data) memcpy(buf, f->data, n);
    buf[n] = 0;
    put(d, "index", PK_FIELD_UINT, d->strings++);
    put(d, "length", PK_FIELD_UINT, f->len);
    pk_dump_s(&d->row, "value", buf); /* the CLI escapes what it prints */
    emit(d, f->at, "strings", "string");
    return PK_OK;
}

static const char *const scalar_names[] = {
    "drop_frames", "keep_frames", "time_nanos",          "duration_nanos", NULL,
    "period",      "comment",     "default_sample_type", "doc_url"};

static pk_status top_field(dumper *d, const pb_in *top, const pb_field *f, uint64_t *counts)
{
    static const schema *const msgs[] = {&value_type, &sample, &mapping, &location, &function};
    if (f->num >= 1 && f->num <= 5)
        return message(d, top, f, msgs[f->num - 1], counts[f->num]++, UINT64_MAX);
    if (f->num == 6 && f->wire == PB_LEN) return string_entry(d, f);
    if (f->num == 11) /* period_type: a value type, in the "types" section */
        return message(d, top, f, &period_type, 0, UINT64_MAX);
    if (f->num == 13 && f->wire == PB_LEN) { /* comments, packed */
        if (d->lists[0]) d->lists[0][0] = 0;
        if (append_list(d, top, f, 0, 0, "Profile.comment")) return d->st;
        pk_dump_s(&d->row, "values", d->lists[0] ? d->lists[0] : "");
        emit(d, f->at, "profile", "comments");
        return PK_OK;
    }
    if (f->num >= 7 && f->num <= 15 && f->num != 11 && f->wire == PB_VARINT) {
        const char *name = scalar_names[f->num - 7];
        if (f->num == 9 || f->num == 10 || f->num == 12)
            put_signed(d, "value", f->v);
        else
            put(d, "value", PK_FIELD_UINT, f->v);
        emit(d, f->at, "profile", name);
        return PK_OK;
    }
    put(d, "field", PK_FIELD_UINT, f->num), put(d, "wire", PK_FIELD_UINT, f->wire);
    emit(d, f->at, "profile", "other_field"); /* a newer producer's field, or packed comments */
    return PK_OK;
}

static pk_status dump_stream(dumper *d, const unsigned char *p, uint64_t n)
{
    pb_in top = pb_whole(p, n);
    pb_field f;
    uint64_t counts[6] = {0};
    int got;
    while (!d->stop && !d->st && (got = pb_next(&top, &f)) > 0)
        top_field(d, &top, &f, counts);
    if (!d->st && !d->stop && got < 0) wire_fail(d, &top, "Profile");
    return d->st;
}

pk_status pprof_dump_memory(const char *name, const void *data, uint64_t size, uint64_t max_memory,
                            pk_record_fn fn, void *user, const char *sections)
{
    const unsigned char *d = data;
    char file[512];
    const char *slash = strrchr(name, '/');
    const char *base = slash ? slash + 1 : name;
    dumper dm = {.fn = fn, .user = user, .sections = sections, .file = base};
    dm.row = (pk_dump_fields){dm.buf, 0, sizeof dm.buf / sizeof *dm.buf};
    unsigned char *inflated = NULL;
    uint64_t len = size;
    if (pk_is_gzip(d, size)) {
        pk_budget b;
        pk_budget_init(&b, max_memory, size);
        pk_status st =
            pk_gunzip_all(d, size, &b, name, "the gzip-compressed pprof profile", &inflated, &len);
        if (st) return st;
        snprintf(file, sizeof file, "%s (decompressed)", base);
        dm.file = file;
    }
    pk_status st = dump_stream(&dm, inflated ? inflated : d, len);
    free(inflated), free(dm.lists[0]), free(dm.lists[1]);
    return st;
}

pk_status pprof_dump(const char *path, uint64_t max_memory, pk_record_fn fn, void *user,
                     const char *sections)
{
    pk_mapfile m;
    pk_status st = pk_map_file(path, &m);
    if (st) return st;
    st = pprof_dump_memory(path, m.data, m.size, max_memory, fn, user, sections);
    pk_unmap_file(&m);
    return st;
}
