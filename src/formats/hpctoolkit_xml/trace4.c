/*
 * formats/hpctoolkit_xml/trace4.c — trace.db of the draft "Prof2"
 * HPCToolkit database (experiment.xml 4.0), big-endian:
 *
 *   0   "HPCPROF-tracedb_", u8 major, u8 minor, u32 num_traces, u16 num_sec
 *   24  u64 hdr_size, u64 hdr_ptr, u64 min time, u64 max time   (56 bytes)
 *   hdr_ptr: num_traces × 22 bytes: u32 profile index (profile.db),
 *            u16 type (0: calling contexts; >= 1: a metric's values),
 *            u64 line_ptr, u64 line_end
 *   lines:   (u64 time in ns, u32 trace id) samples, 12 bytes each
 *
 * The trace id is the it= attribute of an experiment.xml node (as in the
 * legacy *.hpctrace files; hpcviewer maps it the same way). The draft's
 * trace.db has no footer (hpcprof2 defined "TRACDBft" but the files
 * hpcviewer ships end with the last trace line). Metric traces (type >= 1)
 * were never written by hpcprof2; they are skipped with a warning.
 */
#include <stdlib.h>
#include <string.h>

#include "hx.h"
#include "util/bytes.h"

#define TH_SIZE 22
#define TS_SIZE 12

static pk_status check_header(hx_reader *r, const hx_file *f, uint32_t *n, uint64_t *hdr)
{
    const unsigned char *d = f->data;
    if (f->size < 56)
        return hx_fail(f, "header", 0, "%llu bytes, the header alone is 56",
                       (unsigned long long)f->size);
    if (memcmp(d, "HPCPROF-tracedb_", 16) != 0)
        return hx_fail(f, "header", 0, "magic is not HPCPROF-tracedb_");
    if (!((d[16] == 1 || d[16] == 4) && d[17] == 0))
        return hx_fail(f, "header", 16, "version %u.%u (profkit reads 1.0 and 4.0)", d[16], d[17]);
    *n = pk_be32(d + 18);
    uint64_t size = pk_be64(d + 24);
    *hdr = pk_be64(d + 32);
    if (pk_be32(d + 22) >> 16 < 1) return hx_fail(f, "header", 22, "no sections");
    if (*hdr < 56 || *hdr > f->size || size > f->size - *hdr || (uint64_t)*n * TH_SIZE > size)
        return hx_fail(f, "header", 24,
                       "%u trace headers of 22 bytes in %llu bytes at 0x%llx do not fit the file",
                       *n, (unsigned long long)size, (unsigned long long)*hdr);
    r->x.has_trace_db = 1, r->x.trace_units = 0;
    r->x.trace_min = pk_be64(d + 40), r->x.trace_max = pk_be64(d + 48);
    return PK_OK;
}

/* One trace line into the location of its profile. */
static pk_status read_line(hx_reader *r, const hx_file *f, uint64_t at)
{
    const unsigned char *e = f->data + at;
    uint32_t prof = pk_be32(e);
    uint64_t lo = pk_be64(e + 6), hi = pk_be64(e + 14);
    if (prof == 0 || prof > r->n_locs)
        return hx_fail(f, "trace header", at, "profile index %u (profile.db has 1..%zu)", prof,
                       r->n_locs);
    /* an empty line may point past the end (the sample's does) */
    if (lo != hi && (lo > hi || hi > f->size || (hi - lo) % TS_SIZE))
        return hx_fail(f, "trace header", at + 6,
                       "trace line 0x%llx..0x%llx is outside the file or not whole samples",
                       (unsigned long long)lo, (unsigned long long)hi);
    struct hx_loc *loc = &r->locs[prof - 1];
    if (loc->trace) return hx_fail(f, "trace header", at, "a second trace for profile %u", prof);
    uint64_t n = (hi - lo) / TS_SIZE, prev = 0;
    unsigned char *out = pk_model_alloc_owned(r->p, n * PK_SAMPLE_SIZE + 1);
    if (!out) return PK_ERR_NOMEM;
    for (uint64_t i = 0; i < n; i++) {
        const unsigned char *s = f->data + lo + i * TS_SIZE;
        uint64_t t = pk_be64(s), key[PK_KMAP_WORDS] = {pk_be32(s + 8)};
        uint32_t ctx = 0;
        if (key[0] && !pk_kmap_get(&r->trace_ids, key, &ctx)) r->trace_unknown++;
        if (t < prev) r->trace_unordered++;
        prev = t;
        pk_put_le64(out + i * PK_SAMPLE_SIZE, t);
        pk_put_le32(out + i * PK_SAMPLE_SIZE + 8, ctx);
    }
    loc->trace = out, loc->n_samples = n;
    return PK_OK;
}

pk_status hx_read_trace_db(hx_reader *r, const hx_file *f)
{
    uint32_t n = 0;
    uint64_t hdr = 0, skipped = 0;
    pk_status st = check_header(r, f, &n, &hdr);
    for (uint32_t i = 0; i < n && !st; i++) {
        uint64_t at = hdr + (uint64_t)i * TH_SIZE;
        if ((f->data[at + 4] << 8 | f->data[at + 5]) != 0)
            skipped++;
        else
            st = read_line(r, f, at);
    }
    if (!st && skipped)
        st = pk_model_diag(r->p, PK_SEV_WARNING, "metric-trace", f->name, "trace header", 0, 0,
                           "%llu metric traces (type >= 1) are not read",
                           (unsigned long long)skipped);
    return st;
}
