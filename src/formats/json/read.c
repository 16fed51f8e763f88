/*
 * formats/json/read.c — reading profkit.model/1 JSON (docs/json.md):
 * detection, and the streaming driver that turns yajl's parse events into
 * records for the handlers (read_rec.c, read_loc.c, read_cg.c).
 *
 * The file is mapped and fed to yajl in windows whose pages are released
 * behind the parser, so reading a gigabyte file costs the model's memory,
 * not the file's. Every error names the file, the byte offset and the
 * JSON path ("$.contexts[12].parent") of what is wrong.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jr.h"
#include "util/error.h"
#include "util/json_string.h"
#include "util/mapfile.h"
#include "util/vec.h"

#define WINDOW (8u << 20)

/* ---- the schema's shape ---- */

typedef struct member {
    const char *key;
    uint8_t type; /* frame type of the value; F_SCALARS here means "a scalar" */
    uint8_t kind;
    uint8_t required;
} member;

static const member top_members[] = {{"schema", F_SCALARS, R_TOP, 1},
                                     {"generator", F_SCALARS, R_TOP, 0},
                                     {"profile", F_OBJREC, R_PROFILE, 1},
                                     {"identifier_kinds", F_ARRREC, R_IDKINDS, 1},
                                     {"modules", F_LIST, R_MODULE, 1},
                                     {"files", F_LIST, R_FILE, 1},
                                     {"functions", F_LIST, R_FUNCTION, 1},
                                     {"metrics", F_LIST, R_METRIC, 1},
                                     {"scopes", F_LIST, R_SCOPE, 1},
                                     {"columns", F_LIST, R_COLUMN, 1},
                                     {"contexts", F_LIST, R_CONTEXT, 1},
                                     {"locations", F_LIST, R_LOCATION, 1},
                                     {"traces", F_LIST, R_TRACE, 1},
                                     {"attributes", F_LIST, R_ATTR, 1},
                                     {"diagnostics", F_LIST, R_DIAG, 1},
                                     {"callgraph", F_SECTION, R_CG, 0},
                                     {NULL, 0, 0, 0}};

static const member cg_members[] = {{"positions", F_SCALARS, R_CG, 1},
                                    {"by_function", F_SCALARS, R_CG, 1},
                                    {"model_functions", F_SCALARS, R_CG, 1},
                                    {"extra_functions", F_ARRREC, R_CG_EXTRA, 1},
                                    {"events", F_LIST, R_EVENT, 1},
                                    {"parts", F_LIST, R_PART, 1},
                                    {"self", F_LIST, R_SELF, 1},
                                    {"calls", F_LIST, R_CALL, 1},
                                    {"jumps", F_LIST, R_JUMP, 1},
                                    {NULL, 0, 0, 0}};

/* Containers inside object records: (record kind, key) -> frame. */
static const struct {
    uint8_t parent;
    const char *key;
    uint8_t type, kind;
} nested[] = {
    {R_PROFILE, "sources", F_LIST, R_SOURCE}, {R_PROFILE, "format_version", F_SCALARS, 0},
    {R_PROFILE, "trace_range", F_SCALARS, 0}, {R_SOURCE, "version", F_SCALARS, 0},
    {R_CONTEXT, "raw", F_SCALARS, 0},         {R_LOCATION, "ids", F_LIST, R_IDENT},
    {R_LOCATION, "values", F_LIST, R_VALROW}, {R_TRACE, "samples", F_LIST, R_SAMPLE},
    {R_PART, "descs", F_SCALARS, 0},          {R_PART, "summary", F_SCALARS, 0},
    {R_PART, "totals", F_SCALARS, 0},
};

static const char *const kind_names[R_COUNT] = {
    "document",   "profile",       "source",     "identifier kinds",
    "module",     "file",          "function",   "metric",
    "scope",      "column",        "context",    "location",
    "identifier", "row of values", "trace",      "sample",
    "attribute",  "diagnostic",    "call graph", "extra function names",
    "event",      "part",          "self cost",  "call",
    "jump"};

static int is_array_record(unsigned kind)
{
    return kind == R_VALROW || kind == R_SAMPLE || kind == R_SELF || kind == R_CALL ||
           kind == R_JUMP || kind == R_IDKINDS || kind == R_CG_EXTRA;
}

/* ---- errors ---- */

uint64_t jr_offset(const jr *r)
{
    return r->base + (r->h ? yajl_get_bytes_consumed(r->h) : 0);
}

/* "$.locations[3].values[17]" of the current frames into buf. */
static void json_path(const jr *r, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "$");
    for (int i = 0; i + 1 < r->depth && n < size; i++) {
        const jr_frame *f = &r->fr[i];
        if (f->type == F_LIST || f->type == F_ARRREC || f->type == F_SCALARS)
            n += (size_t)snprintf(buf + n, size - n, "[%llu]", (unsigned long long)f->index);
        else
            n += (size_t)snprintf(buf + n, size - n, ".%s", f->key);
    }
}

pk_status jr_err(jr *r, const jr_tok *t, const char *field, const char *fmt, ...)
{
    char msg[512], path[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    json_path(r, path, sizeof path);
    r->st = pk_fail(PK_ERR_FORMAT, "%s: byte %llu, %s%s%s: %s", r->file,
                    (unsigned long long)(t ? t->at : jr_offset(r)), path,
                    field ? (field[0] == '[' ? "" : ".") : "", field ? field : "", msg);
    return r->st;
}

/* ---- buffering scalars ---- */

static uint32_t add_text(jr *r, const void *s, size_t len)
{
    if (len > UINT32_MAX / 2 || r->n_text + len + 1 > UINT32_MAX ||
        pk_vec_reserve((void **)&r->text, &r->cap_text, r->n_text + len + 1, 1)) {
        r->st = pk_fail_nomem("reading JSON");
        return UINT32_MAX;
    }
    uint32_t at = (uint32_t)r->n_text;
    memcpy(r->text + at, s, len);
    r->text[at + len] = 0;
    r->n_text += len + 1;
    return at;
}

static jr_tok *add_tok(jr *r, uint32_t key, jr_type type, const void *s, size_t len)
{
    if (pk_vec_reserve((void **)&r->toks, &r->cap_toks, r->n_toks + 1, sizeof *r->toks)) {
        r->st = pk_fail_nomem("reading JSON");
        return NULL;
    }
    uint32_t text = add_text(r, s, len);
    if (text == UINT32_MAX) return NULL;
    jr_tok *t = &r->toks[r->n_toks++];
    *t = (jr_tok){key, text, (uint32_t)len, (uint8_t)type, 0, 0, jr_offset(r)};
    return t;
}

static const member *find_member(const member *m, const char *key, int *rank)
{
    for (int i = 0; m[i].key; i++)
        if (strcmp(m[i].key, key) == 0) {
            *rank = i;
            return &m[i];
        }
    return NULL;
}

static const member *section_members(const jr_frame *f)
{
    return f->kind == R_TOP ? top_members : cg_members;
}

static pk_status top_scalar(jr *r, const char *key, const jr_tok *t)
{
    if (strcmp(key, "generator") == 0)
        return t->type == JT_STR ? PK_OK : jr_err(r, t, key, "must be a string");
    const char *s = jr_text(r, t);
    if (t->type != JT_STR || strncmp(s, JSON_SCHEMA_PREFIX, strlen(JSON_SCHEMA_PREFIX)) != 0)
        return jr_err(r, t, key, "must be \"%s\"", JSON_SCHEMA);
    if (strcmp(s, JSON_SCHEMA) != 0) {
        jr_err(r, t, key, "schema \"%s\" is not one this profkit reads (it reads \"%s\")", s,
               JSON_SCHEMA);
        return r->st = PK_ERR_UNSUPPORTED;
    }
    return PK_OK;
}

static int on_scalar(jr *r, jr_type type, const void *s, size_t len, int b)
{
    if (r->st) return 0;
    if (r->skip) return 1;
    if (!r->depth) return jr_err(r, NULL, NULL, "the document is not a JSON object"), 0;
    if (type == JT_STR && memchr(s, 0, len))
        return jr_err(r, NULL, NULL, "a string holds a NUL character (\\u0000)"), 0;
    jr_frame *f = &r->fr[r->depth - 1];
    uint32_t key = UINT32_MAX;
    if (f->type == F_LIST)
        return jr_err(r, NULL, NULL, "expected a %s (%s), found a single value",
                      kind_names[f->kind], is_array_record(f->kind) ? "an array" : "an object"),
               0;
    if (f->type == F_SECTION) {
        int rank;
        const member *m = find_member(section_members(f), f->key, &rank);
        if (!m) return 1; /* an unknown member: ignored (a later minor addition) */
        if (m->type != F_SCALARS)
            return jr_err(r, NULL, f->key, "must be %s",
                          m->type == F_LIST || m->type == F_ARRREC ? "an array" : "an object"),
                   0;
        jr_tok t = {0, 0, (uint32_t)len, (uint8_t)type, 0, (uint8_t)b, jr_offset(r)};
        size_t mark = r->n_text;
        t.text = add_text(r, s, len);
        if (t.text == UINT32_MAX) return 0;
        pk_status st = f->kind == R_TOP ? top_scalar(r, f->key, &t) : jr_cg_scalar(r, f->key, &t);
        r->n_text = mark;
        return st == PK_OK;
    }
    if (f->type == F_OBJREC) key = add_text(r, f->key, strlen(f->key));
    if (f->type == F_SCALARS) key = r->toks[f->tok_start].key;
    jr_tok *t = add_tok(r, key, type, s, len);
    if (!t) return 0;
    t->b = (uint8_t)b;
    t->in_list = f->type == F_SCALARS;
    if (f->type != F_OBJREC) f->index++;
    return 1;
}

static int cb_null(void *u)
{
    return on_scalar(u, JT_NULL, "", 0, 0);
}
static int cb_bool(void *u, int b)
{
    return on_scalar(u, JT_BOOL, b ? "true" : "false", b ? 4 : 5, b);
}
static int cb_number(void *u, const char *s, size_t len)
{
    return on_scalar(u, JT_NUM, s, len, 0);
}
/* Strings come back byte for byte: \udcXX escapes (the writer's for bytes
 * that are not UTF-8) become their bytes again, in a copy (s may point
 * into the read-only mapped file). Only strings with a byte 0xED pay. */
static int cb_string(void *u, const unsigned char *s, size_t len)
{
    if (!memchr(s, 0xed, len)) return on_scalar(u, JT_STR, s, len, 0);
    char *copy = malloc(len + 1);
    if (!copy) return jr_err(u, NULL, NULL, "out of memory"), 0;
    memcpy(copy, s, len);
    int ok = on_scalar(u, JT_STR, copy, pk_json_unescape_bytes(copy, len), 0);
    free(copy);
    return ok;
}

/* ---- containers ---- */

static int push(jr *r, jr_frame_type type, unsigned kind)
{
    if (r->depth == JR_MAX_FRAMES) return jr_err(r, NULL, NULL, "nested too deeply"), 0;
    jr_frame *f = &r->fr[r->depth++];
    *f = (jr_frame){.type = (uint8_t)type, .kind = (uint8_t)kind, .last_member = -1};
    f->tok_start = r->n_toks;
    f->text_start = r->n_text;
    return 1;
}

static int open_member(jr *r, jr_frame *f, int is_map)
{
    int rank;
    const member *m = find_member(section_members(f), f->key, &rank);
    if (!m) return r->skip = 1, 1;
    if (f->kind == R_TOP && rank > 0 && !(f->seen & 1))
        return jr_err(r, NULL, NULL, "the first member must be \"schema\": \"%s\"", JSON_SCHEMA), 0;
    if (m->type == F_SCALARS || (m->type == F_OBJREC || m->type == F_SECTION) != is_map)
        return jr_err(r, NULL, f->key, "must be %s",
                      m->type == F_SCALARS ? "a single value"
                      : is_map             ? "an array, not an object"
                                           : "an object, not an array"),
               0;
    if (rank <= f->last_member)
        return jr_err(r, NULL, f->key,
                      "comes after \"%s\": members must appear in the order docs/json.md gives",
                      section_members(f)[f->last_member].key),
               0;
    f->last_member = (int8_t)rank;
    f->seen |= 1u << rank;
    if (!push(r, (jr_frame_type)m->type, m->kind)) return 0;
    pk_status st = PK_OK;
    if (m->type == F_LIST) st = jr_list_begin(r, (jr_kind)m->kind);
    if (m->type == F_SECTION) st = jr_cg_begin(r);
    return st == PK_OK;
}

static int open_nested(jr *r, jr_frame *f, int is_map)
{
    for (size_t i = 0; i < sizeof nested / sizeof nested[0]; i++) {
        if (nested[i].parent != f->kind || strcmp(nested[i].key, f->key) != 0) continue;
        if (is_map) return jr_err(r, NULL, f->key, "must be an array, not an object"), 0;
        uint32_t key = add_text(r, f->key, strlen(f->key));
        if (key == UINT32_MAX) return 0;
        if (nested[i].type == F_SCALARS) {
            jr_tok *t = add_tok(r, key, JT_LIST, "", 0);
            if (!t || !push(r, F_SCALARS, 0)) return 0;
            r->fr[r->depth - 1].tok_start = r->n_toks - 1;
            return 1;
        }
        jr_tok *t = add_tok(r, key, JT_LIST, "", 0); /* says that the list was there */
        if (!t) return 0;
        t->b = 1;
        return push(r, F_LIST, nested[i].kind) && jr_list_begin(r, nested[i].kind) == PK_OK;
    }
    /* Not a container member: remember it as one, so a getter can say
     * that a number was expected, and skip what it holds. */
    uint32_t key = add_text(r, f->key, strlen(f->key));
    jr_tok *t = key == UINT32_MAX ? NULL : add_tok(r, key, JT_LIST, "", 0);
    if (!t) return 0;
    t->b = 2;
    r->skip = 1;
    return 1;
}

static int on_open(jr *r, int is_map)
{
    if (r->st) return 0;
    if (r->skip) return r->skip++, 1;
    if (!r->depth) {
        if (!is_map) return jr_err(r, NULL, NULL, "the document is not a JSON object"), 0;
        return push(r, F_SECTION, R_TOP);
    }
    jr_frame *f = &r->fr[r->depth - 1];
    switch (f->type) {
    case F_SECTION:
        return open_member(r, f, is_map);
    case F_OBJREC:
        return open_nested(r, f, is_map);
    case F_LIST:
        if (is_map == is_array_record(f->kind))
            return jr_err(r, NULL, NULL, "a %s must be %s", kind_names[f->kind],
                          is_map ? "an array, not an object" : "an object, not an array"),
                   0;
        if (!push(r, is_map ? F_OBJREC : F_ARRREC, f->kind)) return 0;
        return jr_record_begin(r, (jr_kind)f->kind) == PK_OK;
    default:
        return jr_err(r, NULL, NULL, "a %s holds only numbers, strings, booleans and null",
                      f->type == F_SCALARS ? "list of values" : kind_names[f->kind]),
               0;
    }
}

static pk_status close_record(jr *r, jr_frame *f, uint64_t index)
{
    switch (f->kind) {
    case R_LOCATION:
    case R_IDENT:
    case R_VALROW:
    case R_TRACE:
    case R_SAMPLE:
        return jr_loc_record(r, (jr_kind)f->kind, index);
    case R_CG_EXTRA:
    case R_EVENT:
    case R_PART:
    case R_SELF:
    case R_CALL:
    case R_JUMP:
        return jr_cg_record(r, (jr_kind)f->kind, index);
    default:
        return jr_record(r, (jr_kind)f->kind, index);
    }
}

static pk_status close_section(jr *r, jr_frame *f)
{
    const member *m = section_members(f);
    for (int i = 0; m[i].key; i++)
        if (m[i].required && !(f->seen & (1u << i)))
            return jr_err(r, NULL, NULL, "the %s has no \"%s\" member", kind_names[f->kind],
                          m[i].key);
    if (f->kind == R_CG) return jr_cg_finish(r);
    r->done = 1;
    return jr_loc_finish(r);
}

static int on_close(jr *r)
{
    if (r->st) return 0;
    if (r->skip) return r->skip--, 1;
    jr_frame *f = &r->fr[r->depth - 1];
    jr_frame *parent = r->depth > 1 ? f - 1 : NULL;
    pk_status st = PK_OK;
    if (f->type == F_SECTION) st = close_section(r, f);
    if (f->type == F_LIST) st = jr_list_end(r, (jr_kind)f->kind, f->index);
    if (f->type == F_OBJREC || f->type == F_ARRREC) {
        uint64_t index = parent && parent->type == F_LIST ? parent->index : 0;
        st = close_record(r, f, index);
        r->n_toks = f->tok_start;
        r->n_text = f->text_start;
        if (parent && parent->type == F_LIST) parent->index++;
    }
    r->depth--;
    return st == PK_OK;
}

static int cb_start_map(void *u)
{
    return on_open(u, 1);
}
static int cb_start_array(void *u)
{
    return on_open(u, 0);
}
static int cb_end(void *u)
{
    return on_close(u);
}

static int cb_key(void *u, const unsigned char *s, size_t len)
{
    jr *r = u;
    if (r->st) return 0;
    if (r->skip) return 1;
    jr_frame *f = &r->fr[r->depth - 1];
    size_t n = len < sizeof f->key - 1 ? len : sizeof f->key - 1;
    memcpy(f->key, s, n);
    f->key[n] = 0;
    if (n < len || memchr(s, 0, len)) f->key[0] = '?'; /* matches no member: ignored */
    if (f->type == F_SECTION && f->kind == R_TOP && !(f->seen & 1) && strcmp(f->key, "schema"))
        return jr_err(r, NULL, NULL, "the first member must be \"schema\": \"%s\"", JSON_SCHEMA), 0;
    if (f->type == F_SECTION) {
        int rank;
        const member *m = find_member(section_members(f), f->key, &rank);
        if (m && m->type == F_SCALARS) {
            if (rank <= f->last_member)
                return jr_err(r, NULL, f->key,
                              "comes after \"%s\": members must appear in the order "
                              "docs/json.md gives",
                              section_members(f)[f->last_member].key),
                       0;
            f->last_member = (int8_t)rank;
            f->seen |= 1u << rank;
        }
    }
    return 1;
}

static const yajl_callbacks callbacks = {cb_null,   cb_bool,        NULL,         NULL,
                                         cb_number, cb_string,      cb_start_map, cb_key,
                                         cb_end,    cb_start_array, cb_end};

/* ---- detection and the driver ---- */

static const unsigned char *skip_ws(const unsigned char *d, const unsigned char *end)
{
    while (d < end && (*d == ' ' || *d == '\t' || *d == '\n' || *d == '\r'))
        d++;
    return d;
}

int json_detect_bytes(const unsigned char *d, uint64_t n)
{
    const unsigned char *end = d + (n > 4096 ? 4096 : n);
    if (end - d >= 3 && memcmp(d, "\xef\xbb\xbf", 3) == 0) d += 3; /* a UTF-8 BOM */
    d = skip_ws(d, end);
    if (d == end || *d++ != '{') return 0;
    d = skip_ws(d, end);
    if ((size_t)(end - d) < 8 || memcmp(d, "\"schema\"", 8) != 0) return 0;
    d = skip_ws(d + 8, end);
    if (d == end || *d++ != ':') return 0;
    d = skip_ws(d, end);
    size_t l = strlen("\"" JSON_SCHEMA_PREFIX);
    return (size_t)(end - d) >= l && memcmp(d, "\"" JSON_SCHEMA_PREFIX, l) == 0;
}

int json_detect_file(const char *path)
{
    pk_mapfile m;
    if (pk_path_is_dir(path) || pk_map_file(path, &m)) {
        pk_error_clear();
        return 0;
    }
    int ok = json_detect_bytes(m.data, m.size);
    pk_unmap_file(&m);
    return ok;
}

/* yajl's own message for a syntax error, without its trailing newline. */
static pk_status syntax_error(jr *r, const unsigned char *chunk, size_t len, int at_end)
{
    unsigned char *e = yajl_get_error(r->h, 0, chunk, len);
    char msg[256];
    snprintf(msg, sizeof msg, "%s", e ? (const char *)e : "invalid JSON");
    if (e) yajl_free_error(r->h, e);
    size_t l = strlen(msg);
    while (l && (msg[l - 1] == '\n' || msg[l - 1] == ' '))
        msg[--l] = 0;
    if (!at_end) return jr_err(r, NULL, NULL, "not valid JSON: %s", msg);
    yajl_handle h = r->h;
    r->h = NULL; /* the offset is the end of the file */
    jr_err(r, NULL, NULL, "the file ends in the middle of the document (%s): it is cut off", msg);
    r->h = h;
    return r->st;
}

static pk_status parse_all(jr *r, const pk_mapfile *m)
{
    pk_release rel;
    pk_release_start(&rel, m);
    /* a UTF-8 byte order mark, which RFC 8259 lets a parser ignore */
    uint64_t off = m->size >= 3 && memcmp(m->data, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    while (off < m->size) {
        size_t len = m->size - off < WINDOW ? (size_t)(m->size - off) : WINDOW;
        r->base = off;
        yajl_status ys = yajl_parse(r->h, m->data + off, len);
        if (ys == yajl_status_client_canceled) return r->st ? r->st : PK_ERR_FORMAT;
        if (ys != yajl_status_ok) {
            r->base = off;
            return syntax_error(r, m->data + off, len, 0);
        }
        off += len;
        pk_release_advance(&rel, m->data + off);
    }
    pk_release_finish(&rel, m->data + off);
    r->base = m->size;
    yajl_status ys = yajl_complete_parse(r->h);
    if (ys == yajl_status_client_canceled) return r->st ? r->st : PK_ERR_FORMAT;
    if (ys != yajl_status_ok) {
        pk_status st = syntax_error(r, (const unsigned char *)"", 0, 1);
        return st;
    }
    if (!r->done) return jr_err(r, NULL, NULL, "the file holds no JSON document");
    return PK_OK;
}

static pk_status open_map(const char *path, const pk_mapfile *m, const pk_open_options *opts,
                          pk_profile **out)
{
    pk_profile *p;
    pk_status st = pk_model_new(&p);
    if (st) return st;
    jr r = {.p = p};
    r.file = p->path = pk_intern_cstr(&p->strings, path);
    if (!r.file) st = pk_fail_nomem("opening");
    p->format = PK_FORMAT_JSON, p->format_name = "json", p->major = 1, p->minor = 0;
    if (!st && pk_vec_reserve((void **)&r.toks, &r.cap_toks, 1, sizeof *r.toks))
        st = pk_fail_nomem("opening"); /* records' token ranges are never NULL-based */
    if (!st && !(r.h = yajl_alloc(&callbacks, NULL, &r))) st = pk_fail_nomem("opening");
    /* Strings are the model's bytes: normally UTF-8, but a source file
     * may name things in another encoding, which the writer keeps as it
     * is (docs/json.md), so it reads back exactly. */
    if (!st) yajl_config(r.h, yajl_dont_validate_strings, 1);
    if (!st) st = parse_all(&r, m);
    if (!st && r.depth)
        st = jr_err(&r, NULL, NULL, "the file ends in the middle of the document: it is cut off");
    pk_source_rec *src = st ? NULL : pk_model_add_source(p, "json");
    if (src) *src = (pk_source_rec){"json", 1, 1, m->size, 1, 0, {0}};
    if (r.h) yajl_free(r.h);
    pk_status fst = jr_free(&r);
    if (!st) st = fst;
    if (!st) st = pk_model_finish_diagnostics(p);
    if (st) {
        pk_profile_free(p);
        return st;
    }
    if (opts && (opts->flags & PK_OPEN_RECOMPUTE)) p->summary_exact = 0; /* add up the values */
    *out = p;
    return PK_OK;
}

pk_status json_open(const char *path, const pk_open_options *opts, pk_profile **out)
{
    pk_mapfile m;
    pk_status st = pk_map_file(path, &m);
    if (st) return st;
    st = open_map(path, &m, opts, out);
    pk_unmap_file(&m);
    return st;
}

pk_status json_open_memory(const char *name, const void *data, uint64_t size,
                           const pk_open_options *opts, pk_profile **out)
{
    pk_mapfile m = {data ? data : (const void *)"", size, 0};
    return open_map(name ? name : "memory.json", &m, opts, out);
}
