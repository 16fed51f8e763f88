/*
 * formats/hpctoolkit/common.c — checked access to v4 database files:
 * range and string checks, pointer-to-index mapping, the common file
 * header, error and diagnostic formatting, dump record emission.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "hpctk.h"
#include "util/parallel.h"

const char *const hk_section_names[HK_S_COUNT + 1] = {
    "headers",      "general",   "id-names",      "scopes",   "metrics",        "modules",
    "source-files", "functions", "contexts",      "profiles", "profile-values", "cct",
    "cct-values",   "traces",    "trace-samples", NULL,
};

pk_status hk_fail(const hk_file *f, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pk_fail(PK_ERR_FORMAT, "%s: %s", f->name, msg);
}

pk_status hk_diag(hk_reader *r, pk_severity sev, const char *code, const hk_file *f,
                  const char *structure, uint64_t offset, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pk_model_diag(r->p, sev, code, f->name, structure, 1, offset, "%s: %s at 0x%llx: %s",
                         f->name, structure, (unsigned long long)offset, msg);
}

pk_severity hk_unknown_enum_severity(const hk_file *f)
{
    return f->minor > 0 ? PK_SEV_NOTE : PK_SEV_WARNING;
}

static void describe_region(const hk_file *f, hk_region in, char *buf, size_t size)
{
    if (in.name)
        snprintf(buf, size, "outside the %s [0x%llx, 0x%llx)", in.name, (unsigned long long)in.lo,
                 (unsigned long long)in.hi);
    else
        snprintf(buf, size, "past end of file (size 0x%llx)", (unsigned long long)f->size);
}

/* The caller's label for the failing pointer, formatted only on failure. */
#define FORMAT_WHAT(buf, fmt)                                                                      \
    do {                                                                                           \
        va_list ap_;                                                                               \
        va_start(ap_, fmt);                                                                        \
        vsnprintf(buf, sizeof buf, fmt, ap_);                                                      \
        va_end(ap_);                                                                               \
    } while (0)

pk_status hk_check_range(const hk_file *f, hk_region in, uint64_t off, uint64_t count,
                         uint64_t elem, const char *count_name, const char *what_fmt, ...)
{
    if (hk_fits(in, off, count, elem)) return PK_OK;
    char what[128], where[128];
    FORMAT_WHAT(what, what_fmt);
    describe_region(f, in, where, sizeof where);
    if (count_name)
        return hk_fail(f, "%s 0x%llx + %llu*%s (%s = %llu) %s", what, (unsigned long long)off,
                       (unsigned long long)elem, count_name, count_name, (unsigned long long)count,
                       where);
    return hk_fail(f, "%s 0x%llx (%llu bytes) %s", what, (unsigned long long)off,
                   (unsigned long long)(elem * count), where);
}

pk_status hk_claim_add(hk_reader *r, const hk_file *f, hk_claim *c, uint64_t bytes,
                       const char *what, uint32_t index)
{
    c->bytes = bytes > UINT64_MAX - c->bytes ? UINT64_MAX : c->bytes + bytes;
    uint64_t excess = c->bytes > f->size ? c->bytes - f->size : 0;
    if (excess <= c->charged) return PK_OK;
    pk_status st = pk_budget_charge(&r->budget, excess - c->charged,
                                    "%s: %s %u: the blocks its entries point to add up to %llu "
                                    "bytes, more than the file's %llu (blocks shared between "
                                    "entries)",
                                    f->name, what, index, (unsigned long long)c->bytes,
                                    (unsigned long long)f->size);
    if (!st) c->charged = excess;
    return st;
}

pk_status hk_strings_add(hk_reader *r, const hk_file *f, uint64_t bytes, uint64_t off)
{
    hk_claim *c = &r->strings;
    c->bytes = bytes > UINT64_MAX - c->bytes ? UINT64_MAX : c->bytes + bytes;
    uint64_t excess = c->bytes > f->size ? c->bytes - f->size : 0;
    if (excess <= c->charged) return PK_OK;
    pk_status st = pk_budget_charge(&r->budget, excess - c->charged,
                                    "%s: the string at 0x%llx: the strings its entries name add "
                                    "up to %llu bytes, more than the file's %llu (strings that "
                                    "overlap or are shared between entries)",
                                    f->name, (unsigned long long)off, (unsigned long long)c->bytes,
                                    (unsigned long long)f->size);
    if (!st) c->charged = excess;
    return st;
}

pk_status hk_index_record(const hk_file *f, const hk_index *ix, uint32_t k, int64_t *prev,
                          uint32_t *key, uint64_t *start, uint64_t *end, const char *block_fmt, ...)
{
    const pk_plane *pl = ix->plane;
    const unsigned char *rec = pl->idx + (uint64_t)k * ix->stride;
    *key = ix->key_size == 4 ? pk_le32(rec) : pk_le16(rec);
    *start = pk_le64(rec + ix->key_size);
    *end = k + 1 < pl->nidx ? pk_le64(rec + ix->stride + ix->key_size) : pl->nvals;
    int sorted = (int64_t)*key > *prev;
    int fits = (k > 0 || *start == 0) && *start <= *end && *end <= pl->nvals;
    int64_t prev_key = *prev;
    *prev = *key;
    if (sorted && fits) return PK_OK;
    char block[128];
    FORMAT_WHAT(block, block_fmt);
    unsigned long long off = (unsigned long long)(rec - f->data);
    if (!sorted)
        return hk_fail(f, "%s: %s %u at 0x%llx: %s %u after %lld (must increase strictly)", block,
                       ix->record, k, off, ix->key, *key, (long long)prev_key);
    return hk_fail(f,
                   "%s: %s %u at 0x%llx: values [%llu, %llu) of %s %u do not fit [0, nValues = "
                   "%llu)",
                   block, ix->record, k, off, (unsigned long long)*start, (unsigned long long)*end,
                   ix->key, *key, (unsigned long long)pl->nvals);
}

static pk_status string_at(const hk_file *f, hk_region in, uint64_t off, const char **out,
                           const char *what)
{
    char where[128];
    if (off < in.lo || off >= in.hi) {
        describe_region(f, in, where, sizeof where);
        return hk_fail(f, "%s 0x%llx %s", what, (unsigned long long)off, where);
    }
    const char *s = (const char *)f->data + off;
    if (!memchr(s, '\0', in.hi - off)) {
        describe_region(f, in, where, sizeof where);
        return hk_fail(f, "%s 0x%llx: string not terminated %s", what, (unsigned long long)off,
                       where);
    }
    *out = s;
    return PK_OK;
}

pk_status hk_string_interned(hk_reader *r, const hk_file *f, hk_region in, uint64_t off,
                             int allow_null, const char **out, const char *what_fmt, ...)
{
    if (off == 0 && allow_null) {
        *out = NULL;
        return PK_OK;
    }
    const char *s = NULL, *end = NULL;
    if (off >= in.lo && off < in.hi && (end = memchr(f->data + off, '\0', in.hi - off))) {
        s = (const char *)f->data + off;
    } else {
        char what[128];
        FORMAT_WHAT(what, what_fmt);
        pk_status st = string_at(f, in, off, &s, what);
        if (st) return st;
        end = s + strlen(s);
    }
    /* Honest files store each string once, so the strings read add up to
     * less than the file; more means entries pointing into one another's
     * bytes (20,001 names at suffixes of one 1 MiB string: 10 GB of copies
     * and hashing from a 2 MB file). The excess is charged to the budget. */
    pk_status st = hk_strings_add(r, f, (uint64_t)(end - s) + 1, off);
    if (st) return st;
    *out = pk_intern(&r->p->strings, s, (size_t)(end - s));
    return *out ? PK_OK : pk_fail_nomem("reading strings");
}

pk_status hk_array_index(const hk_file *f, const hk_array *a, uint64_t ptr, uint32_t *index,
                         const char *what_fmt, ...)
{
    uint64_t rel = ptr - a->base;
    if (ptr >= a->base && a->stride && rel % a->stride == 0 && rel / a->stride < a->count) {
        *index = (uint32_t)(rel / a->stride);
        return PK_OK;
    }
    char what[128];
    FORMAT_WHAT(what, what_fmt);
    return hk_fail(f, "%s 0x%llx does not point at one of the %llu elements at 0x%llx", what,
                   (unsigned long long)ptr, (unsigned long long)a->count,
                   (unsigned long long)a->base);
}

/* Start of section `i`, which must be at least `min_size` bytes. */
pk_status hk_section_header(const hk_file *f, unsigned i, uint64_t min_size, uint64_t *hdr)
{
    const hk_region *s = &f->sect[i];
    if (s->hi - s->lo < min_size)
        return hk_fail(f, "%s at 0x%llx: %llu bytes, too small for its 0x%llx-byte header", s->name,
                       (unsigned long long)s->lo, (unsigned long long)(s->hi - s->lo),
                       (unsigned long long)min_size);
    *hdr = s->lo;
    return PK_OK;
}

/* Check an array header's stored stride against the v4.0 minimum and the
 * array against its section; fills *a. */
pk_status hk_array_in_section(hk_reader *r, const hk_file *f, unsigned sec, const char *what,
                              uint64_t ptr, uint64_t count, uint64_t stride, uint64_t min_stride,
                              hk_array *a)
{
    HK_EMIT(r, f, f->sect[sec].lo, HK_S_HEADERS, "array", HK_S("name", what), HK_X("pointer", ptr),
            HK_U("count", count), HK_U("size", stride));
    if (stride < min_stride)
        return hk_fail(f,
                       "%s: stored element size %llu is smaller than the %llu bytes of v4.0 "
                       "(not the v4.0 layout)",
                       what, (unsigned long long)stride, (unsigned long long)min_stride);
    /* An empty array points nowhere in particular (0 in some writers). */
    pk_status st =
        count ? hk_check_range(f, f->sect[sec], ptr, count, stride, "count", "%s", what) : PK_OK;
    if (st) return st;
    *a = (hk_array){count ? ptr : f->sect[sec].lo, count, stride};
    return PK_OK;
}

void hk_emit(hk_reader *r, const hk_file *f, uint64_t off, enum hk_section s, const char *type,
             const pk_field *fields, size_t n)
{
    pk_record rec = {f->name, off, hk_section_names[s], type, n, fields};
    if (r->emit(r->emit_user, &rec) != 0) r->stopped = 1;
}

static pk_status check_magic(const hk_file *f, const char *format_id)
{
    if (f->size < 16 || memcmp(f->data, "HPCTOOLKIT", 10) != 0)
        return pk_fail(PK_ERR_FORMAT,
                       "%s: file header at 0x0: not an HPCToolkit v4 file (no 'HPCTOOLKIT' magic)",
                       f->name);
    if (memcmp(f->data + 10, format_id, 4) != 0)
        return hk_fail(f, "file header at 0xa: format identifier '%.4s', expected '%s'",
                       (const char *)f->data + 10, format_id);
    return PK_OK;
}

static pk_status check_version(hk_reader *r, hk_file *f)
{
    f->major = f->data[0x0e];
    f->minor = f->data[0x0f];
    if (f->major != 4)
        return pk_fail(PK_ERR_UNSUPPORTED,
                       "%s: file header at 0xe: format version %u.%u is not supported "
                       "(this reader reads major version 4)",
                       f->name, f->major, f->minor);
    if (f->minor > 0)
        return hk_diag(r, PK_SEV_NOTE, "newer-minor-version", f, "file header", 0x0e,
                       "minor version %u.%u is newer than 4.0: fields added after 4.0 are ignored",
                       f->major, f->minor);
    return PK_OK;
}

pk_status hk_read_file_header(hk_reader *r, hk_file *f, const char *format_id, const char *footer,
                              unsigned n_sect, uint64_t header_size)
{
    static const char *const names[4][8] = {
        {"General Properties section", "Identifier Names section", "Performance Metrics section",
         "Context Tree section", "Common String Table section", "Load Modules section",
         "Source Files section", "Functions section"},
        {"Profile Info section", "Identifier Tuple section"},
        {"Context Info section"},
        {"Context Trace Headers section"},
    };
    int which = f == &r->f[HK_META] ? 0 : f == &r->f[HK_PROFILE] ? 1 : f == &r->f[HK_CCT] ? 2 : 3;
    pk_status st = check_magic(f, format_id);
    if (!st) st = check_version(r, f);
    if (st) return st;
    if (f->size < header_size + (footer ? 8 : 0))
        return hk_fail(f,
                       "file header at 0x0: file of %llu bytes is too small for the %llu-byte "
                       "header and the footer (truncated?)",
                       (unsigned long long)f->size, (unsigned long long)header_size);
    if (footer && memcmp(f->data + f->size - 8, footer, 8) != 0)
        return hk_fail(f,
                       "footer at 0x%llx: expected '%s' (file truncated or not completely "
                       "written?)",
                       (unsigned long long)(f->size - 8), footer);
    HK_EMIT(r, f, 0, HK_S_HEADERS, "file", HK_S("format", format_id), HK_U("major", f->major),
            HK_U("minor", f->minor), HK_X("size", f->size),
            HK_S("footer", footer ? footer : "(none)"));
    f->n_sect = n_sect;
    for (unsigned i = 0; i < n_sect; i++) {
        uint64_t sz = pk_le64(f->data + 0x10 + 16 * i), p = pk_le64(f->data + 0x18 + 16 * i);
        st = hk_check_range(f, hk_whole(f), p, sz, 1, "size", "file header at 0x%x: %s pointer",
                            0x10 + 16 * i, names[which][i]);
        if (st) return st;
        f->sect[i] = (hk_region){p, p + sz, names[which][i]};
        HK_EMIT(r, f, 0x10 + 16 * i, HK_S_HEADERS, "section", HK_S("name", names[which][i]),
                HK_X("size", sz), HK_X("pointer", p));
    }
    return PK_OK;
}

/* ---- parallel block scans ---- */

typedef struct scan_run {
    const hk_block_scan *bs;
    struct {
        uint32_t at; /* first failing block of this worker, or PK_NONE */
        pk_status status;
        char message[1024];
    } fail[PK_MAX_WORKERS];
} scan_run;

static uint64_t block_weight(void *user, uint32_t i)
{
    const scan_run *run = user;
    const pk_plane *pl = run->bs->plane(run->bs->user, i);
    return pl->nvals * run->bs->vsize + (uint64_t)pl->nidx * run->bs->isize;
}

static void scan_range(void *user, unsigned w, uint32_t begin, uint32_t end)
{
    scan_run *run = user;
    const hk_block_scan *bs = run->bs;
    pk_release rel;
    const unsigned char *last = NULL;
    pk_release_start(&rel, bs->map);
    for (uint32_t i = begin; i < end; i++) {
        const pk_plane *pl = bs->plane(bs->user, i);
        pk_release_advance(&rel, hk_plane_lo(pl));
        pk_status st = bs->scan(bs->user, w, i);
        if (st) {
            run->fail[w].at = i;
            run->fail[w].status = st;
            snprintf(run->fail[w].message, sizeof run->fail[w].message, "%s", pk_error_last());
            return;
        }
        pk_release_advance(&rel, last = hk_plane_hi(pl, bs->vsize, bs->isize));
    }
    if (last) pk_release_finish(&rel, last);
}

pk_status hk_scan_blocks(const hk_block_scan *bs, unsigned workers, uint32_t n, uint32_t *failed_at)
{
    scan_run *run = calloc(1, sizeof *run);
    if (!run) return pk_fail_nomem("scanning value blocks");
    run->bs = bs;
    for (unsigned w = 0; w < PK_MAX_WORKERS; w++)
        run->fail[w].at = PK_NONE;
    pk_parallel_ranges(workers, n, block_weight, scan_range, run);
    unsigned first = 0;
    for (unsigned w = 1; w < PK_MAX_WORKERS; w++)
        if (run->fail[w].at < run->fail[first].at) first = w;
    *failed_at = run->fail[first].at;
    pk_status st = *failed_at == PK_NONE
                       ? PK_OK
                       : pk_fail(run->fail[first].status, "%s", run->fail[first].message);
    free(run);
    return st;
}
