/*
 * formats/pprof/write.c — writing a profile as pprof's profile.proto
 * (docs/pprof.md): gzip-compressed as go tool pprof and Go's runtime
 * write it, or plain when the name ends in ".pb". The message is
 * streamed: sample types, then each sample as it is made
 * (write_values.c), then the mappings, locations and functions the
 * samples named (write_frames.c), the string table and the profile's
 * own fields. The first two strings are "" and the comment saying who
 * wrote the file, so a plain file starts with bytes profkit recognises
 * as its own (util/safeout.c); a gzip file says so in its header.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof.h"
#include "profkit/analysis.h"
#include "pw.h"
#include "util/error.h"
#include "util/vec.h"

#define CHUNK (1u << 20)

/* What the gzip header and the first string say (safeout.c looks for it). */
#define SIGNATURE "written by profkit"

/* ---- output ---- */

static pk_status deflate_out(pw *w, const unsigned char *d, size_t n, int flush)
{
    unsigned char out[64 << 10];
    w->z.next_in = (unsigned char *)d, w->z.avail_in = (uInt)n;
    do {
        w->z.next_out = out, w->z.avail_out = sizeof out;
        int rc = deflate(&w->z, flush);
        if (rc == Z_STREAM_ERROR) return pk_fail(PK_ERR_IO, "%s: compressing failed", w->path);
        pk_out_bytes(&w->out, out, sizeof out - w->z.avail_out);
    } while (w->z.avail_out == 0 || (flush == Z_FINISH && w->z.avail_in));
    return w->out.status;
}

pk_status pw_flush(pw *w, int final)
{
    if (w->buf.failed) return pk_fail_nomem("writing a pprof profile");
    if (!final && w->buf.len < CHUNK) return PK_OK;
    pk_status st = PK_OK;
    if (w->gzip)
        st = deflate_out(w, w->buf.buf, w->buf.len, final ? Z_FINISH : Z_NO_FLUSH);
    else
        pk_out_bytes(&w->out, w->buf.buf, w->buf.len), st = w->out.status;
    w->buf.len = 0;
    return st;
}

void pw_emit(pw *w, const pb_out *msg, uint32_t field)
{
    if (msg->failed) w->buf.failed = 1;
    pb_put_bytes(&w->buf, field, msg->buf, msg->len);
}

/* ---- strings ---- */

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

uint64_t pw_str(pw *w, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (!n || w->buf.failed) return 0;
    uint64_t key[PK_KMAP_WORDS] = {hash_bytes(s, n), n, 0};
    for (;; key[2]++) { /* a different string of the same hash: the next key */
        uint32_t i;
        int added;
        if (pk_kmap_upsert(&w->str_map, key, w->n_strs, &i, &added)) break;
        if (!added && memcmp(w->strs[i], s, n) == 0) return i;
        if (!added) continue;
        char *copy = pk_arena_strndup(&w->arena, s, n);
        if (!copy ||
            pk_vec_reserve((void **)&w->strs, &w->cap_strs, w->n_strs + 1u, sizeof *w->strs))
            break;
        w->strs[w->n_strs++] = copy;
        return i;
    }
    w->buf.failed = 1;
    return 0;
}

/* The strings not yet written, from index `from` on. */
static void write_strings(pw *w, uint32_t from)
{
    for (uint32_t i = from; i < w->n_strs; i++)
        pb_put_bytes(&w->buf, 6, w->strs[i], i ? strlen(w->strs[i]) : 0);
}

/* ---- the Profile's own fields ---- */

static void value_type(pw *w, uint32_t field, const char *type, const char *unit)
{
    w->scratch.len = 0;
    pb_put_uint(&w->scratch, 1, pw_str(w, type));
    pb_put_uint(&w->scratch, 2, pw_str(w, unit));
    pw_emit(w, &w->scratch, field);
}

static const char *attr(const pk_profile *p, const char *key)
{
    return pk_attribute_find(p, PK_ENTITY_PROFILE, 0, key);
}

static void attr_int(pw *w, uint32_t field, const char *key, int has_fallback, int64_t fallback)
{
    const char *v = attr(w->p, key);
    if (v)
        pb_put_uint(&w->buf, field, (uint64_t)strtoll(v, NULL, 10));
    else if (has_fallback)
        pb_put_uint(&w->buf, field, (uint64_t)fallback);
}

/* The comment saying who wrote the file starts the string table. */
static void head(pw *w)
{
    char c[200];
    snprintf(c, sizeof c, SIGNATURE " %s from a %s profile", pk_version(),
             w->p->format_name ? w->p->format_name : "profkit");
    uint64_t i = pw_str(w, c); /* index 1: index 0 is "" */
    write_strings(w, 0);
    pb_put_uint(&w->buf, 13, i);
    for (uint32_t m = 0; m < w->n_m; m++) {
        const pk_metric *x = &w->p->metrics[w->m[m].metric];
        value_type(w, 1, x->name, w->m[m].unit);
    }
}

static void tail(pw *w, uint32_t strings_written)
{
    const pk_profile *p = w->p;
    pk_index def;
    uint64_t b = 0, e = 0;
    int traced = pk_trace_range(p, &b, &e) == PK_OK;
    pk_error_clear();
    size_t first, n;
    pk_attribute_range(p, PK_ENTITY_PROFILE, 0, &first, &n);
    for (size_t i = first; i < first + n; i++) { /* the source's comments */
        pk_attribute a;
        pk_attribute_get(p, i, &a);
        if (!strcmp(a.key, "pprof:comment") && strncmp(a.value, SIGNATURE, strlen(SIGNATURE)))
            pb_put_uint(&w->buf, 13, pw_str(w, a.value));
    }
    if (attr(p, "pprof:period_type"))
        value_type(w, 11, attr(p, "pprof:period_type"), attr(p, "pprof:period_unit"));
    attr_int(w, 12, "pprof:period", 0, 0);
    attr_int(w, 9, "pprof:time_nanos", traced, (int64_t)b);
    attr_int(w, 10, "pprof:duration_nanos", traced, (int64_t)(e - b));
    pb_put_uint(&w->buf, 7, pw_str(w, attr(p, "pprof:drop_frames")));
    pb_put_uint(&w->buf, 8, pw_str(w, attr(p, "pprof:keep_frames")));
    if (pk_metric_default(p, &def) == PK_OK)
        for (uint32_t m = 0; m < w->n_m; m++)
            if (w->m[m].metric == def) pb_put_uint(&w->buf, 14, pw_str(w, p->metrics[def].name));
    pk_error_clear();
    write_strings(w, strings_written); /* the last: every index is known now */
}

/* ---- the driver ---- */

static int plain_name(const char *path)
{
    size_t n = strlen(path);
    return n >= 3 && strcmp(path + n - 3, ".pb") == 0;
}

static pk_status start(pw *w)
{
    PK_TRY(pk_out_create(&w->out, w->path, w->opts ? w->opts->flags & PK_WRITE_FORCE : 0));
    w->started = 1;
    if (!w->gzip) return PK_OK;
    static char comment[] = SIGNATURE;
    w->gzh.os = 3, w->gzh.comment = (Bytef *)comment;
    if (deflateInit2(&w->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return pk_fail_nomem("compressing");
    w->gzip = 2; /* deflateEnd due */
    return deflateSetHeader(&w->z, &w->gzh) == Z_OK ? PK_OK : pk_fail_nomem("compressing");
}

static pk_status write_all(pw *w)
{
    if (pk_vec_reserve((void **)&w->strs, &w->cap_strs, 16, sizeof *w->strs))
        return pk_fail_nomem("writing a pprof profile");
    w->strs[0] = "", w->n_strs = 1; /* string 0 is always "" */
    PK_TRY(pw_plan(w));
    PK_TRY(pw_frames_init(w));
    PK_TRY(start(w));
    head(w);
    uint32_t written = 2; /* "" and the comment: the others come last */
    PK_TRY(pw_samples(w));
    PK_TRY(pw_report_late(w));
    PK_TRY(pw_write_tables(w));
    tail(w, written);
    return pw_flush(w, 1);
}

pk_status pprof_write(const pk_profile *p, const char *path, const pk_write_options *opts,
                      pk_write_stats *stats)
{
    pw w;
    memset(&w, 0, sizeof w);
    w.p = p, w.path = path, w.opts = opts, w.stats = stats;
    w.gzip = !plain_name(path);
    w.str_map.words = 3;
    pk_arena_init(&w.arena);
    pk_status st = write_all(&w);
    if (w.gzip == 2) deflateEnd(&w.z);
    if (w.started) {
        uint64_t bytes = w.out.offset;
        st = pk_out_commit(&w.out, st);
        if (!st && stats) stats->bytes = bytes, stats->n_files = 1;
    }
    pw_frames_free(&w);
    pw_plan_free(&w);
    pk_kmap_free(&w.str_map);
    free(w.strs);
    pb_out_free(&w.buf), pb_out_free(&w.scratch);
    pk_arena_free(&w.arena);
    return st;
}
