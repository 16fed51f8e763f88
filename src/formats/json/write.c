/*
 * formats/json/write.c — writing the whole model as profkit.model/1 JSON
 * (docs/json.md): dimensions, the context tree, every stored value of
 * every location in the model's own order, traces, attributes,
 * diagnostics and the call graph when there is one.
 *
 * Streaming: everything goes through one buffered pk_out, record after
 * record, one record a line (so the file diffs and greps well); nothing
 * is allocated per value. Doubles are written so they read back to the
 * same bits: integers as integers, others as the shortest %.15g..%.17g
 * that round-trips (pk_format_double), non-finite values as strings
 * ("NaN", "Infinity", "-Infinity", or "NaN:0x..." for a NaN with other
 * bits), because JSON numbers cannot say them. Written under a
 * temporary name and put in place when complete (util/safeout.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "jw.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "formats/write_loss.h"
#include "model/callgraph.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/json_string.h"

const char *const json_ctx_kinds[] = {"root", "entry",       "function", "loop",
                                      "line", "instruction", "unknown",  NULL};
const char *const json_relations[] = {"none", "lexical", "call", "inlined_call", "unknown", NULL};
const char *const json_entries[] = {"none", "unknown", "main", "app_thread", "other", NULL};
const char *const json_combines[] = {"sum", "min", "max", "other", NULL};
const char *const json_scope_kinds[] = {"point",     "exclusive", "inclusive",
                                        "lex_aware", "other",     NULL};
const char *const json_stats[] = {"none", "sum", "count", "sumsq", "min", "max", "other", NULL};
const char *const json_entities[] = {"profile", "metric", "function", "context", "location", NULL};
const char *const json_severities[] = {"note", "warning", "error", NULL};

/* ---- scalars ---- */

void jw_raw(jw *w, const char *s)
{
    pk_out_bytes(&w->o, s, strlen(s));
}

static void emit_out(void *user, const char *bytes, size_t n)
{
    pk_out_bytes(user, bytes, n);
}

/* Lossless: bytes that are not UTF-8 come back from \udcXX (the reader's
 * pk_json_unescape_bytes), so a name round-trips byte for byte. */
void jw_str(jw *w, const char *s)
{
    if (!s) {
        pk_out_bytes(&w->o, "null", 4);
        return;
    }
    pk_out_bytes(&w->o, "\"", 1);
    pk_json_escape_bytes(s, strlen(s), emit_out, &w->o);
    pk_out_bytes(&w->o, "\"", 1);
}

/* Decimal digits of v into the end of buf; returns the first digit. */
static char *u64_digits(char *end, uint64_t v)
{
    do
        *--end = (char)('0' + v % 10);
    while (v /= 10);
    return end;
}

void jw_u64(jw *w, uint64_t v)
{
    char buf[24], *s = u64_digits(buf + sizeof buf, v);
    pk_out_bytes(&w->o, s, (size_t)(buf + sizeof buf - s));
}

void jw_idx(jw *w, uint32_t v)
{
    if (v == PK_NONE)
        pk_out_bytes(&w->o, "null", 4);
    else
        jw_u64(w, v);
}

void jw_bool(jw *w, int v)
{
    jw_raw(w, v ? "true" : "false");
}

size_t jw_format_double(char *buf, size_t size, double v)
{
    if (isnan(v)) {
        uint64_t b;
        memcpy(&b, &v, sizeof b);
        if (b == 0x7ff8000000000000ull) return (size_t)snprintf(buf, size, "\"NaN\"");
        return (size_t)snprintf(buf, size, "\"NaN:0x%016llx\"", (unsigned long long)b);
    }
    if (isinf(v)) return (size_t)snprintf(buf, size, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    /* Counts are integers: the common case, and much cheaper than %.17g. */
    if (fabs(v) < 9007199254740992.0 && v == (double)(int64_t)v && !(v == 0 && signbit(v))) {
        int64_t i = (int64_t)v;
        char tmp[24], *s = u64_digits(tmp + sizeof tmp, i < 0 ? (uint64_t)-i : (uint64_t)i);
        if (i < 0) *--s = '-';
        size_t n = (size_t)(tmp + sizeof tmp - s);
        if (n >= size) return 0;
        memcpy(buf, s, n), buf[n] = 0;
        return n;
    }
    return pk_format_double(buf, size, v);
}

void jw_double(jw *w, double v)
{
    char buf[48];
    size_t n = jw_format_double(buf, sizeof buf, v);
    pk_out_bytes(&w->o, buf, n);
}

/* `"key": ` */
void jw_key(jw *w, const char *key)
{
    char buf[64];
    int n = snprintf(buf, sizeof buf, "\"%s\": ", key);
    pk_out_bytes(&w->o, buf, (size_t)n);
}

/* Separator before record i of a one-record-a-line list. */
void jw_item(jw *w, uint64_t i)
{
    jw_raw(w, i ? ",\n  " : "\n  ");
}

/* Start and end of a top-level member holding a list. */
void jw_list_begin(jw *w, const char *key)
{
    jw_raw(w, ",\n ");
    jw_key(w, key);
    jw_raw(w, "[");
}

void jw_list_end(jw *w, uint64_t n)
{
    jw_raw(w, n ? "\n ]" : "]");
}

/* Progress at most every 1/256 of the estimated size (a few hundred calls). */
void jw_progress(jw *w)
{
    if (!w->opts || !w->opts->progress || w->o.offset < w->next_progress) return;
    w->next_progress = w->o.offset + w->total / 256 + 1;
    pk_write_progress(w->opts, w->o.offset, w->total);
}

/* ---- the model ---- */

static void put_version(jw *w, unsigned major, unsigned minor)
{
    jw_raw(w, "[");
    jw_u64(w, major);
    jw_raw(w, ", ");
    jw_u64(w, minor);
    jw_raw(w, "]");
}

static void put_sources(jw *w)
{
    const pk_profile *p = w->p;
    jw_raw(w, "[");
    for (size_t i = 0; i < p->n_sources; i++) {
        const pk_source_rec *s = &p->sources[i];
        jw_raw(w, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
        jw_str(w, s->name);
        jw_raw(w, ", \"present\": ");
        jw_bool(w, s->present);
        jw_raw(w, ", \"loaded\": ");
        jw_bool(w, s->loaded);
        jw_raw(w, ", \"size\": ");
        jw_u64(w, s->size);
        jw_raw(w, ", \"version\": ");
        put_version(w, s->major, s->minor);
        jw_raw(w, "}");
    }
    jw_raw(w, p->n_sources ? "\n  ]" : "]");
}

static void put_profile(jw *w)
{
    const pk_profile *p = w->p;
    jw_raw(w, ",\n \"profile\": {\"title\": ");
    jw_str(w, p->title);
    jw_raw(w, ", \"description\": ");
    jw_str(w, p->description);
    jw_raw(w, ",\n  \"format\": ");
    jw_str(w, p->format_name);
    jw_raw(w, ", \"format_version\": ");
    put_version(w, p->major, p->minor);
    jw_raw(w, ", \"path\": ");
    jw_str(w, p->path);
    jw_raw(w, ",\n  \"reconstructed\": ");
    jw_bool(w, p->reconstructed);
    jw_raw(w, ", \"summary_exact\": ");
    jw_bool(w, p->summary_exact);
    jw_raw(w, ", \"trace_range\": ");
    if (p->has_trace_range && !w->no_trace) {
        jw_raw(w, "[");
        jw_u64(w, p->trace_begin);
        jw_raw(w, ", ");
        jw_u64(w, p->trace_end);
        jw_raw(w, "]");
    } else {
        jw_raw(w, "null");
    }
    jw_raw(w, ",\n  \"sources\": ");
    put_sources(w);
    jw_raw(w, "}");
}

static void put_code(jw *w)
{
    const pk_profile *p = w->p;
    jw_list_begin(w, "identifier_kinds");
    for (uint32_t i = 0; i < p->n_id_kinds; i++) {
        jw_item(w, i);
        jw_str(w, p->id_kind_names[i]);
    }
    jw_list_end(w, p->n_id_kinds);
    jw_list_begin(w, "modules");
    for (uint32_t i = 0; i < p->n_modules; i++) {
        jw_item(w, i);
        jw_raw(w, "{\"path\": ");
        jw_str(w, p->modules[i].path);
        jw_raw(w, "}");
    }
    jw_list_end(w, p->n_modules);
    jw_list_begin(w, "files");
    for (uint32_t i = 0; i < p->n_files; i++) {
        jw_item(w, i);
        jw_raw(w, "{\"path\": ");
        jw_str(w, p->files[i].path);
        jw_raw(w, ", \"flags\": ");
        jw_u64(w, p->files[i].flags);
        jw_raw(w, "}");
    }
    jw_list_end(w, p->n_files);
    jw_list_begin(w, "functions");
    for (uint32_t i = 0; i < p->n_functions; i++) {
        const pk_function *f = &p->functions[i];
        jw_item(w, i);
        jw_raw(w, "{\"name\": ");
        jw_str(w, f->name);
        jw_raw(w, ", \"module\": ");
        jw_idx(w, f->module);
        jw_raw(w, ", \"offset\": ");
        jw_u64(w, f->offset);
        jw_raw(w, ", \"file\": ");
        jw_idx(w, f->file);
        jw_raw(w, ", \"line\": ");
        jw_u64(w, f->line);
        jw_raw(w, "}");
    }
    jw_list_end(w, p->n_functions);
}

static void put_metrics(jw *w)
{
    const pk_profile *p = w->p;
    jw_list_begin(w, "metrics");
    for (uint32_t i = 0; i < p->n_metrics; i++) {
        const pk_metric *m = &p->metrics[i];
        jw_item(w, i);
        jw_raw(w, "{\"name\": ");
        jw_str(w, m->name);
        jw_raw(w, ", \"description\": ");
        jw_str(w, m->description);
        jw_raw(w, ", \"unit\": ");
        jw_str(w, m->unit);
        jw_raw(w, ", \"parent\": ");
        jw_idx(w, m->parent);
        jw_raw(w, ", \"combine\": ");
        jw_str(w, json_combines[m->combine <= PK_COMBINE_OTHER ? m->combine : PK_COMBINE_OTHER]);
        jw_raw(w, ", \"flags\": ");
        jw_u64(w, m->flags);
        jw_raw(w, "}");
    }
    jw_list_end(w, p->n_metrics);
    jw_list_begin(w, "scopes");
    for (uint32_t i = 0; i < p->n_scopes; i++) {
        const pk_scope *s = &p->scopes[i];
        jw_item(w, i);
        jw_raw(w, "{\"name\": ");
        jw_str(w, s->name);
        jw_raw(w, ", \"kind\": ");
        jw_str(w, json_scope_kinds[s->kind <= PK_SCOPE_OTHER ? s->kind : PK_SCOPE_OTHER]);
        jw_raw(w, ", \"raw_type\": ");
        jw_u64(w, s->raw_type);
        jw_raw(w, ", \"propagation_index\": ");
        jw_u64(w, s->propagation_index);
        jw_raw(w, "}");
    }
    jw_list_end(w, p->n_scopes);
    jw_list_begin(w, "columns");
    for (uint32_t i = 0; i < p->n_columns; i++) {
        const pk_column *c = &p->columns[i];
        jw_item(w, i);
        jw_raw(w, "{\"metric\": ");
        jw_u64(w, c->metric);
        jw_raw(w, ", \"scope\": ");
        jw_u64(w, c->scope);
        jw_raw(w, ", \"summary\": ");
        jw_bool(w, c->is_summary);
        jw_raw(w, ", \"stat\": ");
        jw_str(w, json_stats[c->stat <= PK_STAT_OTHER ? c->stat : PK_STAT_OTHER]);
        jw_raw(w, ", \"formula\": ");
        jw_str(w, c->formula);
        jw_raw(w, ", \"combine\": ");
        jw_str(w, json_combines[c->combine <= PK_COMBINE_OTHER ? c->combine : PK_COMBINE_OTHER]);
        jw_raw(w, ", \"raw_id\": ");
        jw_u64(w, c->raw_id);
        jw_raw(w, "}");
    }
    jw_list_end(w, p->n_columns);
}

static void put_context(jw *w, const pk_ctx_rec *c)
{
    jw_raw(w, "{\"id\": ");
    jw_u64(w, c->id);
    jw_raw(w, ", \"parent\": ");
    jw_idx(w, c->parent);
    jw_raw(w, ", \"kind\": ");
    jw_str(w, json_ctx_kinds[c->kind <= PK_CTX_UNKNOWN ? c->kind : PK_CTX_UNKNOWN]);
    jw_raw(w, ", \"relation\": ");
    jw_str(w, json_relations[c->relation <= PK_REL_UNKNOWN ? c->relation : PK_REL_UNKNOWN]);
    jw_raw(w, ", \"entry\": ");
    jw_str(w, json_entries[c->entry <= PK_ENTRY_OTHER ? c->entry : PK_ENTRY_OTHER]);
    jw_raw(w, ", \"entry_name\": ");
    jw_str(w, c->entry_name);
    jw_raw(w, ", \"flags\": ");
    jw_u64(w, c->flags);
    jw_raw(w, ", \"function\": ");
    jw_idx(w, c->function);
    jw_raw(w, ", \"file\": ");
    jw_idx(w, c->file);
    jw_raw(w, ", \"line\": ");
    jw_u64(w, c->line);
    jw_raw(w, ", \"module\": ");
    jw_idx(w, c->module);
    jw_raw(w, ", \"offset\": ");
    jw_u64(w, c->offset);
    jw_raw(w, ", \"propagation\": ");
    jw_u64(w, c->propagation);
    jw_raw(w, ", \"raw\": [");
    jw_u64(w, c->raw_kind);
    jw_raw(w, ", ");
    jw_u64(w, c->raw_relation);
    jw_raw(w, ", ");
    jw_u64(w, c->raw_entry);
    jw_raw(w, "]}");
}

static void put_contexts(jw *w)
{
    const pk_profile *p = w->p;
    jw_list_begin(w, "contexts");
    for (uint32_t i = 0; i < p->n_ctx; i++) {
        jw_item(w, i);
        put_context(w, &p->ctx[i]);
        if ((i & 0xffff) == 0xffff) jw_progress(w);
    }
    jw_list_end(w, p->n_ctx);
}

/* One location's plane: [ctx id, col, value, col, value...] a line. */
static void put_values(jw *w, const pk_plane *pl)
{
    for (uint32_t i = 0; i < pl->nidx; i++) {
        const unsigned char *rec = pl->idx + (size_t)i * PK_LM_IDX_SIZE;
        uint64_t start = pk_le64(rec + 4);
        uint64_t end = i + 1 < pl->nidx ? pk_le64(rec + PK_LM_IDX_SIZE + 4) : pl->nvals;
        if (end > pl->nvals) end = pl->nvals;
        jw_raw(w, i ? ",\n    [" : "\n    [");
        jw_u64(w, pk_le32(rec));
        for (uint64_t v = start; v < end; v++) {
            const unsigned char *val = pl->vals + v * PK_LM_VAL_SIZE;
            jw_raw(w, ", ");
            jw_u64(w, pk_le16(val));
            jw_raw(w, ", ");
            jw_double(w, pk_le_f64(val + 2));
        }
        if ((i & 0xfff) == 0xfff) jw_progress(w);
        w->stats->n_values += end > start ? end - start : 0;
        jw_raw(w, "]");
    }
    jw_raw(w, pl->nidx ? "\n  ]" : "]");
}

static void put_locations(jw *w)
{
    const pk_profile *p = w->p;
    jw_list_begin(w, "locations");
    for (uint32_t l = 0; l < p->n_locs; l++) {
        const pk_loc_rec *r = &p->locs[l];
        jw_item(w, l);
        jw_raw(w, "{\"raw_index\": ");
        jw_u64(w, r->raw_index);
        jw_raw(w, ", \"summary\": ");
        jw_bool(w, r->is_summary);
        jw_raw(w, ", \"trace\": ");
        jw_idx(w, w->no_trace ? PK_NONE : r->trace);
        jw_raw(w, ",\n   \"ids\": [");
        for (uint32_t k = 0; k < r->n_ids; k++) {
            const pk_ident *id = &r->ids[k];
            jw_raw(w, k ? ", {\"kind\": " : "{\"kind\": ");
            jw_u64(w, id->kind);
            jw_raw(w, ", \"name\": ");
            jw_str(w, id->kind_name);
            jw_raw(w, ", \"flags\": ");
            jw_u64(w, id->flags);
            jw_raw(w, ", \"logical\": ");
            jw_u64(w, id->logical);
            jw_raw(w, ", \"physical\": ");
            jw_u64(w, id->physical);
            jw_raw(w, "}");
        }
        jw_raw(w, "],\n   \"values\": [");
        put_values(w, &r->plane);
        jw_raw(w, "}");
        jw_progress(w);
    }
    jw_list_end(w, p->n_locs);
}

static void put_traces(jw *w)
{
    const pk_profile *p = w->p;
    uint32_t n = w->no_trace ? 0 : p->n_traces;
    jw_list_begin(w, "traces");
    for (uint32_t t = 0; t < n; t++) {
        const pk_trace_rec *r = &p->traces[t];
        jw_item(w, t);
        jw_raw(w, "{\"location\": ");
        jw_idx(w, r->location);
        jw_raw(w, ", \"samples\": [");
        for (uint64_t s = 0; s < r->n; s++) {
            const unsigned char *rec = r->samples + s * PK_SAMPLE_SIZE;
            jw_raw(w, s ? ",\n    [" : "\n    [");
            jw_u64(w, pk_le64(rec));
            jw_raw(w, ", ");
            jw_u64(w, pk_le32(rec + 8));
            jw_raw(w, "]");
        }
        jw_raw(w, r->n ? "\n  ]}" : "]}");
    }
    jw_list_end(w, n);
}

static void put_attributes(jw *w)
{
    const pk_profile *p = w->p;
    jw_list_begin(w, "attributes");
    for (size_t i = 0; i < p->n_attrs; i++) {
        const pk_attr_rec *a = &p->attrs[i];
        jw_item(w, i);
        jw_raw(w, "{\"entity\": ");
        jw_str(w, json_entities[a->entity <= PK_ENTITY_LOCATION ? a->entity : 0]);
        jw_raw(w, ", \"index\": ");
        jw_u64(w, a->index);
        jw_raw(w, ", \"key\": ");
        jw_str(w, a->key);
        jw_raw(w, ", \"value\": ");
        jw_str(w, a->value ? a->value : "");
        jw_raw(w, "}");
    }
    jw_list_end(w, p->n_attrs);
}

static void put_diagnostics(jw *w)
{
    const pk_profile *p = w->p;
    jw_list_begin(w, "diagnostics");
    for (size_t i = 0; i < p->n_diags; i++) {
        const pk_diagnostic *d = &p->diags[i].d;
        jw_item(w, i);
        jw_raw(w, "{\"severity\": ");
        jw_str(w, json_severities[d->severity <= PK_SEV_ERROR ? d->severity : PK_SEV_ERROR]);
        jw_raw(w, ", \"code\": ");
        jw_str(w, d->code ? d->code : "");
        jw_raw(w, ", \"file\": ");
        jw_str(w, d->file);
        jw_raw(w, ", \"structure\": ");
        jw_str(w, d->structure);
        jw_raw(w, ", \"offset\": ");
        if (d->has_offset)
            jw_u64(w, d->offset);
        else
            jw_raw(w, "null");
        jw_raw(w, ",\n   \"message\": ");
        jw_str(w, d->message ? d->message : "");
        jw_raw(w, "}");
    }
    jw_list_end(w, p->n_diags);
}

static void put_model(jw *w)
{
    jw_raw(w, "{\"schema\": \"" JSON_SCHEMA "\",\n \"generator\": ");
    char gen[64];
    snprintf(gen, sizeof gen, "profkit %s", pk_version());
    jw_str(w, gen);
    put_profile(w);
    put_code(w);
    put_metrics(w);
    put_contexts(w);
    put_locations(w);
    put_traces(w);
    put_attributes(w);
    put_diagnostics(w);
    if (w->p->cg) json_put_callgraph(w);
    jw_raw(w, "\n}\n");
}

static uint64_t estimate(const pk_profile *p)
{
    uint64_t n = (uint64_t)p->n_ctx * 260 + 4096;
    for (uint32_t l = 0; l < p->n_locs; l++)
        n += p->locs[l].plane.nvals * 22 + (uint64_t)p->locs[l].plane.nidx * 12;
    return n;
}

pk_status json_write(const pk_profile *p, const char *path, const pk_write_options *opts,
                     pk_write_stats *stats)
{
    uint32_t flags = opts ? opts->flags : 0;
    jw w = {.p = p, .opts = opts, .stats = stats, .no_trace = (flags & PK_WRITE_NO_TRACE) != 0};
    w.total = estimate(p);
    pk_status st = pk_out_create(&w.o, path, flags & PK_WRITE_FORCE);
    if (st) return st;
    put_model(&w);
    stats->bytes = w.o.offset;
    st = pk_out_commit(&w.o, PK_OK);
    if (st) return st;
    stats->n_files = 1;
    return PK_OK;
}
