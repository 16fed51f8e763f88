/*
 * formats/pprof/read.c — opening pprof's profile.proto: detection by
 * content, the bytes (a plain .pb mapped in place, a .pb.gz inflated
 * within the open's memory budget), the error messages every pass uses,
 * and the passes in order (pr.h).
 *
 * Offsets in messages are of the protobuf stream: for a gzip file that
 * is the decompressed stream, and the message says so.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof.h"
#include "pr.h"
#include "util/gzip.h"
#include "util/mapfile.h"
#include "util/vec.h"

#define DETECT_HEAD 4096

/* ---- detection ---- */

/* The wire type field `num` of Profile has (-1: unknown field). */
static int profile_wire(uint32_t num)
{
    if (num == 13) return -2; /* comment: packed or not */
    if ((num >= 1 && num <= 6) || num == 11) return PB_LEN;
    if (num >= 7 && num <= 14) return PB_VARINT;
    return -1;
}

/* Do the bytes read as Profile fields? All of them must (but a last field
 * cut off by the end of the head or of a truncated file), the first and
 * at least one more must be fields Profile has, with its wire types. */
static int looks_like_profile(const unsigned char *d, size_t n, int whole)
{
    pb_in in = pb_whole(d, n);
    pb_field f;
    unsigned known = 0, fields = 0;
    int r;
    while ((r = pb_next(&in, &f)) > 0) {
        int want = profile_wire(f.num);
        int ok = want == -1 || (int)f.wire == want ||
                 (want == -2 && (f.wire == PB_VARINT || f.wire == PB_LEN));
        if (!ok || (fields == 0 && want == -1)) return 0;
        known += want != -1;
        fields++;
    }
    /* data cut off (the head's end, or a truncated file: the reader says
     * where) is a profile still; damage of another kind is not */
    if (r < 0 && !in.past_end) return 0;
    return known >= 2 || (whole && r == 0 && known >= 1);
}

int pprof_detect_bytes(const unsigned char *d, uint64_t n)
{
    if (pk_is_gzip(d, n)) {
        unsigned char head[DETECT_HEAD];
        size_t got = pk_gunzip_head(d, n, head, sizeof head);
        /* the head is the whole stream when it did not fill the buffer
         * and the compressed data is short enough to have been read */
        int whole = got < sizeof head && n <= (1u << 20);
        return got > 0 && looks_like_profile(head, got, whole);
    }
    size_t len = n < DETECT_HEAD ? (size_t)n : DETECT_HEAD;
    return n > 0 && looks_like_profile(d, len, n <= DETECT_HEAD);
}

int pprof_detect_file(const char *path)
{
    pk_mapfile m;
    if (pk_path_is_dir(path) || pk_map_file(path, &m)) {
        pk_error_clear();
        return 0;
    }
    int ok = pprof_detect_bytes(m.data, m.size);
    pk_unmap_file(&m);
    return ok;
}

/* ---- errors and growth ---- */

pk_status pr_fail(pr *r, uint64_t at, const char *what, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pk_fail(PK_ERR_FORMAT, "%s: %sbyte %llu, %s: %s", r->file,
                   r->inflated ? "decompressed " : "", (unsigned long long)at, what, msg);
}

pk_status pr_wire_fail(pr *r, const pb_in *in, const char *what)
{
    return pr_fail(r, in->err_at, what, "%s", in->err ? in->err : "damaged protobuf data");
}

pk_status pr_grow(pr *r, void **v, size_t *cap, size_t need, size_t elem, const char *what)
{
    if (need <= *cap) return PK_OK;
    size_t old = *cap;
    if (pk_vec_reserve(v, cap, need, elem)) return pk_fail_nomem(what);
    pk_status st = pk_budget_charge(&r->budget, (uint64_t)(*cap - old) * elem,
                                    "%s: %s: %zu entries", r->file, what, need);
    return st;
}

pk_status pr_check_str(pr *r, uint64_t idx, uint64_t at, const char *what)
{
    if (idx < r->n_strs) return PK_OK;
    return pr_fail(r, at, what, "string index %llu, but the string table has %u strings",
                   (unsigned long long)idx, r->n_strs);
}

/* ---- opening ---- */

void pr_free(pr *r)
{
    free(r->strs), free(r->types), free(r->fns), free(r->maps), free(r->locs), free(r->lines);
    free(r->comments);
    pr_idmap_free(&r->fn_ids), pr_idmap_free(&r->map_ids), pr_idmap_free(&r->loc_ids);
    free(r->ctx);
    pk_kmap_free(&r->ctx_map), pk_kmap_free(&r->memo), pk_kmap_free(&r->file_map);
    pk_kmap_free(&r->mod_map), pk_kmap_free(&r->row_map);
    free(r->stack), free(r->values), free(r->labels), free(r->chosen);
    free(r->path_loc), free(r->path_ctx);
    free(r->set_labels), free(r->sets), free(r->set_slots);
    free(r->rows), free(r->row_vals);
}

/* The model's tables a reader grows belong to the profile, whatever
 * happened (a failed open frees them with it). */
static pk_status adopt_tables(pk_profile *p, pk_status st)
{
    void *blocks[] = {p->files, p->modules, p->functions, (void *)p->id_kind_names};
    for (size_t i = 0; i < sizeof blocks / sizeof *blocks; i++)
        if (blocks[i] && pk_model_adopt_owned(p, blocks[i]) && !st) st = PK_ERR_NOMEM;
    if (st == PK_ERR_NOMEM) p->files = NULL, p->modules = NULL, p->functions = NULL;
    if (st == PK_ERR_NOMEM) p->n_files = p->n_modules = p->n_functions = 0;
    return st;
}

static pk_status read_profile(pr *r)
{
    pk_status st = pr_index(r);
    if (!st) st = pr_choose_labels(r);
    if (!st) st = pr_tree_init(r);
    if (!st) st = pr_samples(r);
    if (!st) st = pr_build_model(r);
    return adopt_tables(r->p, st);
}

static pk_status describe(pr *r, const char *name, uint64_t size)
{
    pk_profile *p = r->p;
    const char *slash = strrchr(name, '/');
    pk_source_rec *src =
        pk_model_add_source(p, pk_intern_cstr(&p->strings, slash ? slash + 1 : name));
    if (src) src->present = src->loaded = 1, src->size = size;
    p->format = PK_FORMAT_PPROF;
    p->format_name = "pprof";
    p->path = pk_intern_cstr(&p->strings, name);
    return p->path ? PK_OK : pk_fail_nomem("opening a pprof profile");
}

static pk_status open_bytes(const char *name, const unsigned char *d, uint64_t n,
                            const pk_open_options *opts, pk_profile **out)
{
    pr r;
    memset(&r, 0, sizeof r);
    r.file = name;
    r.locations_from = opts ? opts->locations_from : NULL;
    pk_budget_init(&r.budget, opts ? opts->max_memory : 0, n);
    pk_status st = pk_model_new(&r.p);
    if (st) return st;
    unsigned char *inflated = NULL;
    uint64_t len = n;
    if (pk_is_gzip(d, n)) {
        st = pk_gunzip_all(d, n, &r.budget, name, "the gzip-compressed pprof profile", &inflated,
                           &len);
        r.inflated = 1;
    }
    r.data = inflated ? inflated : d, r.size = len;
    if (!st) st = describe(&r, name, n);
    if (!st) st = read_profile(&r);
    if (!st) st = pk_model_finish_diagnostics(r.p);
    pr_free(&r);
    free(inflated);
    if (st) {
        pk_profile_free(r.p);
        return st;
    }
    *out = r.p;
    return PK_OK;
}

pk_status pprof_open(const char *path, const pk_open_options *opts, pk_profile **out)
{
    pk_mapfile m;
    pk_status st = pk_map_file(path, &m);
    if (st) return st;
    pk_map_prefault(&m);
    st = open_bytes(path, m.data, m.size, opts, out);
    pk_unmap_file(&m); /* the profile holds copies only */
    return st;
}

pk_status pprof_open_memory(const char *name, const void *data, uint64_t size,
                            const pk_open_options *opts, pk_profile **out)
{
    static const unsigned char none[1];
    return open_bytes(name ? name : "memory", data ? data : none, size, opts, out);
}
