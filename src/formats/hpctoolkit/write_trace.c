/*
 * formats/hpctoolkit/write_trace.c — trace.db from the model's traces.
 *
 * Samples are kept in trace.db's own 12-byte layout in the model, so each
 * trace line is written as one block. Layout:
 *   header | Context Trace Headers section (header + {CTH} array) |
 *   samples of each trace | footer
 */
#include "hpctk_write.h"
#include "util/error.h"
#include "util/outfile.h"

/* The time range of all traces: as the source stated it, else from the
 * samples (each trace is time-ordered). */
static void time_range(const pk_profile *p, uint64_t *lo, uint64_t *hi)
{
    *lo = *hi = 0;
    if (p->has_trace_range) {
        *lo = p->trace_begin;
        *hi = p->trace_end;
        return;
    }
    int any = 0;
    for (uint32_t t = 0; t < p->n_traces; t++) {
        const pk_trace_rec *tr = &p->traces[t];
        if (!tr->n) continue;
        uint64_t a = pk_le64(tr->samples), b = pk_le64(tr->samples + (tr->n - 1) * PK_SAMPLE_SIZE);
        if (!any || a < *lo) *lo = a;
        if (!any || b > *hi) *hi = b;
        any = 1;
    }
}

/* A trace whose location is unknown (a damaged source named a profile it
 * does not have) cannot be tied to a profile: it is left out. */
static int writable(const pk_profile *p, const pk_trace_rec *tr)
{
    return tr->location < p->n_locs;
}

pk_status hk_write_trace_db(const pk_profile *p, const hk_order *o, const char *path,
                            uint64_t *bytes, uint32_t *skipped)
{
    uint64_t lo, hi;
    uint32_t n = 0;
    time_range(p, &lo, &hi);
    for (uint32_t t = 0; t < p->n_traces; t++)
        n += (uint32_t)writable(p, &p->traces[t]);
    *skipped = p->n_traces - n;
    uint64_t section = 0x20 + (uint64_t)n * HK_SZ_TRACE_HDR;
    unsigned char h[HK_SZ_TRACE_HEADER + 0x20] = {0};
    hk_put_file_header(h, "trce");
    pk_put_le64(h + 0x10, section);
    pk_put_le64(h + 0x18, HK_SZ_TRACE_HEADER);
    pk_put_le64(h + 0x20, HK_SZ_TRACE_HEADER + 0x20); /* pTraces */
    pk_put_le32(h + 0x28, n);
    h[0x2c] = HK_SZ_TRACE_HDR;
    pk_put_le64(h + 0x30, lo);
    pk_put_le64(h + 0x38, hi);
    pk_out out;
    if (pk_out_open(&out, path) == PK_OK) {
        pk_out_bytes(&out, h, sizeof h);
        uint64_t at = HK_SZ_TRACE_HEADER + section;
        for (uint32_t t = 0; t < p->n_traces; t++) {
            const pk_trace_rec *tr = &p->traces[t];
            if (!writable(p, tr)) continue;
            pk_out_u32(&out, o->prof_of_loc[tr->location]);
            pk_out_u32(&out, 0);
            pk_out_u64(&out, at);
            pk_out_u64(&out, at + tr->n * PK_SAMPLE_SIZE);
            at += tr->n * PK_SAMPLE_SIZE;
        }
        for (uint32_t t = 0; t < p->n_traces && !out.status; t++)
            if (writable(p, &p->traces[t]))
                pk_out_bytes(&out, p->traces[t].samples, p->traces[t].n * PK_SAMPLE_SIZE);
        pk_out_expect(&out, at, "trace.db footer");
        pk_out_bytes(&out, "trace.db", 8);
    }
    *bytes += out.offset;
    return pk_out_close(&out);
}
