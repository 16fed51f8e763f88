/*
 * formats/hpcrun/measure_values.c — the metrics, values and trace samples
 * of one .hpcrun/.hpctrace pair, as hpcprof reads them
 * (src/hpcprof/sources/hpcrun4.cpp):
 *
 *  - metrics are matched across files by name; a metric with a formula
 *    (#N refers to metric N of the file) has no values of its own: hpcprof
 *    makes it a derived column evaluated on summary values, so the model
 *    keeps it without columns and with its formula as an attribute;
 *  - a value word is an unsigned integer or an IEEE double as the metric's
 *    value format says, multiplied by the metric's period;
 *  - values go to the node's context, or for move2proc metrics (GPU
 *    operations) to the context of the call that reached it;
 *  - trace records name CCT nodes; with the call-trace flag the sample goes
 *    to the call's context too. Unknown nodes are skipped, as hpcprof does.
 */
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "util/vec.h"

static const char *intern_str(hm_build *b, hr_str s)
{
    return pk_intern(&b->p->strings, s.len ? s.p : "", s.len);
}

static pk_status add_metric(hm_build *b, const hr_metric *m, const char *name, uint32_t *out)
{
    uint64_t key[PK_KMAP_WORDS] = {(uint64_t)(uintptr_t)name};
    int added;
    if (pk_kmap_upsert(&b->metric_map, key, b->n_metrics, out, &added) ||
        (added && pk_vec_reserve((void **)&b->metrics, &b->cap_metrics, b->n_metrics + 1u,
                                 sizeof *b->metrics)))
        return pk_fail_nomem("reading metrics");
    hm_metric *hm = &b->metrics[*out];
    if (added) {
        *hm = (hm_metric){name,
                          intern_str(b, m->desc),
                          intern_str(b, m->formula),
                          intern_str(b, m->format),
                          PK_NONE,
                          m->show,
                          0};
        if (!hm->desc || !hm->formula || !hm->format) return pk_fail_nomem("reading metrics");
        b->n_metrics++;
    }
    if (!m->formula.len) hm->has_values = 1;
    return PK_OK;
}

pk_status hm_read_metrics(hm_build *b, const hr_epoch *e)
{
    if (pk_vec_reserve((void **)&b->fmetrics, &b->cap_fmetrics, e->n_metrics + 1u,
                       sizeof *b->fmetrics))
        return pk_fail_nomem("reading metrics");
    for (uint32_t i = 0; i < e->n_metrics; i++) {
        const hr_metric *m = &e->metrics[i];
        const char *name = intern_str(b, m->name);
        uint32_t idx;
        pk_status st = name ? add_metric(b, m, name, &idx) : pk_fail_nomem("reading metrics");
        if (st) return st;
        int measured = m->formula.len == 0;
        if (measured && m->val_fmt != HR_VALFMT_INT && m->val_fmt != HR_VALFMT_REAL)
            return hm_fail(b, m->offset,
                           "metric %u (%s): value format %u is neither integer (1) nor real (2)", i,
                           name, m->val_fmt);
        b->fmetrics[i] = (hm_fmetric){measured ? idx : PK_NONE, m->period,
                                      m->val_fmt == HR_VALFMT_INT, m->move2proc};
    }
    return PK_OK;
}

static pk_status add_value(hm_build *b, hm_loc *loc, const hm_node *n, const hm_fmetric *fm,
                           uint64_t word)
{
    if (fm->metric == PK_NONE) { /* hpcrun never writes these; hpcprof could not place them */
        b->formula_values++;
        return PK_OK;
    }
    if (n->state == HM_NODE_DROPPED) {
        b->dropped_values++;
        return PK_OK;
    }
    double v = (fm->is_int ? (double)word : hr_word_real(word)) * (double)fm->period;
    if (v == 0) return PK_OK;
    if (pk_vec_reserve((void **)&loc->vals, &loc->cap_vals, loc->n_vals + 1, sizeof *loc->vals))
        return pk_fail_nomem("reading values");
    loc->vals[loc->n_vals++] = (hm_val){fm->move2proc ? n->rel : n->full, fm->metric, v};
    return PK_OK;
}

static pk_status sparse_values(hm_build *b, const hr_file *f, const hr_epoch *e, hm_loc *loc)
{
    const hr_sparse *s = &f->sparse;
    pk_status st = PK_OK;
    for (uint32_t k = 0; k < s->n_nz_nodes && !st; k++) {
        uint32_t id, next_id;
        uint64_t first, end;
        hr_sparse_index(s, k, &id, &first);
        hr_sparse_index(s, k + 1, &next_id, &end);
        const hm_node *n = hm_node_find(b, id);
        if (!n)
            return hm_fail(b, s->index_offset + (uint64_t)k * HR_SPARSE_INDEX_SIZE,
                           "sparse metrics: values for CCT node %u, which the CCT does not have",
                           id);
        for (uint64_t i = first; i < end && !st; i++) {
            uint16_t mid;
            uint64_t word;
            hr_sparse_value(s, i, &mid, &word);
            if (mid >= e->n_metrics)
                return hm_fail(b, s->values_offset + i * HR_SPARSE_VALUE_SIZE,
                               "sparse metrics: value of metric %u; the table has %u metrics", mid,
                               e->n_metrics);
            st = add_value(b, loc, n, &b->fmetrics[mid], word);
        }
    }
    return st;
}

static pk_status dense_values(hm_build *b, const hr_epoch *e, hm_loc *loc)
{
    pk_status st = PK_OK;
    for (uint64_t i = 0; i < e->n_nodes && !st; i++)
        for (uint32_t m = 0; m < e->n_metrics && !st; m++) {
            uint64_t word = hr_dense_value(&e->nodes[i], m);
            if (word) st = add_value(b, loc, &b->nodes[i], &b->fmetrics[m], word);
        }
    return st;
}

pk_status hm_read_values(hm_build *b, const hr_file *f, const hr_epoch *e, hm_loc *loc)
{
    return f->has_sparse ? sparse_values(b, f, e, loc) : dense_values(b, e, loc);
}

static int cmp_sample(const void *a, const void *b)
{
    const hm_sample *x = a, *y = b;
    if (x->time != y->time) return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

pk_status hm_read_trace(hm_build *b, const hr_trace *t, int micro, hm_loc *loc)
{
    int call_trace = (t->flags & HR_TRACE_CALL_TRACE) != 0, ordered = 1;
    loc->samples = malloc((t->n_records + 1) * sizeof *loc->samples);
    if (!loc->samples) return pk_fail_nomem("reading a trace");
    loc->has_trace = 1;
    for (uint64_t i = 0; i < t->n_records; i++) {
        uint64_t time;
        uint32_t id, metric;
        hr_trace_record(t, i, &time, &id, &metric);
        const hm_node *n = hm_node_find(b, id);
        if (!n || n->state == HM_NODE_DROPPED) {
            b->unmapped_samples++;
            continue;
        }
        uint32_t ctx = call_trace ? n->rel : n->full;
        hm_sample *s = &loc->samples[loc->n_samples];
        *s = (hm_sample){micro ? time * 1000 : time, ctx ? ctx : PK_NONE, (uint32_t)i};
        if (loc->n_samples && s[-1].time > s->time) ordered = 0;
        loc->n_samples++;
    }
    if (!ordered) qsort(loc->samples, loc->n_samples, sizeof *loc->samples, cmp_sample);
    return PK_OK;
}
