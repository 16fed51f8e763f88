/*
 * model/traces.c — per-location traces: (time, context) samples.
 *
 * Samples stay in trace.db's packed layout; they are decoded on request
 * into the caller's buffer.
 */
#include "model.h"
#include "util/bytes.h"

pk_status pk_trace_get(const pk_profile *p, pk_index i, pk_trace *out)
{
    if (!p || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_trace_get: NULL argument");
    if (i >= p->n_traces)
        return pk_fail(PK_ERR_NOT_FOUND, "trace index %u out of range (have %u)", i, p->n_traces);
    const pk_trace_rec *t = &p->traces[i];
    out->location = t->location;
    out->n_samples = t->n;
    out->time_begin = t->n ? pk_le64(t->samples) : 0;
    out->time_end = t->n ? pk_le64(t->samples + (t->n - 1) * PK_SAMPLE_SIZE) : 0;
    return PK_OK;
}

pk_status pk_trace_samples(const pk_profile *p, pk_index i, uint64_t first, size_t n,
                           pk_sample *out, size_t *n_out)
{
    if (!p || (!out && n) || !n_out)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_trace_samples: NULL argument");
    if (i >= p->n_traces)
        return pk_fail(PK_ERR_NOT_FOUND, "trace index %u out of range (have %u)", i, p->n_traces);
    const pk_trace_rec *t = &p->traces[i];
    size_t k = 0;
    for (uint64_t s = first; s < t->n && k < n; s++, k++) {
        const unsigned char *rec = t->samples + s * PK_SAMPLE_SIZE;
        uint32_t id = pk_le32(rec + 8);
        out[k].time = pk_le64(rec);
        out[k].raw_id = id;
        out[k].context = id ? pk_model_ctx_find(p, id) : PK_NONE;
    }
    *n_out = k;
    return PK_OK;
}
