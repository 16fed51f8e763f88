/*
 * formats/callgrind/build_finish.c — turning what the parser collected
 * into the model: same-position self costs merged, each part's summary:
 * and totals: checked against its costs, the call graph attached, metrics
 * and locations set up, and the calling-context tree reconstructed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cg_model.h"
#include "cgrd.h"
#include "profkit/analysis.h"
#include "util/error.h"

typedef struct srt {
    uint64_t instr, bb;
    uint32_t line, idx;
} srt;

static int cmp_srt(const void *a, const void *b)
{
    const srt *x = a, *y = b;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->instr != y->instr) return x->instr < y->instr ? -1 : 1;
    if (x->bb != y->bb) return x->bb < y->bb ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* perm[] grouped by accumulator (counting sort: records stay in order). */
static uint32_t *group_by_acc(const cg_build *b, uint64_t **starts)
{
    uint64_t *start = calloc((size_t)b->n_acc + 2, sizeof *start);
    uint32_t *perm = malloc((b->n_raw + 1) * sizeof *perm);
    if (!start || !perm) {
        free(start), free(perm);
        return NULL;
    }
    for (uint64_t i = 0; i < b->n_raw; i++)
        start[b->raw[i].acc + 2]++;
    for (uint32_t a = 0; a < b->n_acc; a++)
        start[a + 2] += start[a + 1];
    for (uint64_t i = 0; i < b->n_raw; i++)
        perm[start[b->raw[i].acc + 1]++] = (uint32_t)i;
    *starts = start; /* start[a] .. start[a+1] is group a */
    return perm;
}

static void emit_group(cg_build *b, const srt *s, uint64_t n, uint32_t acc, pk_cg *cg)
{
    const uint32_t *k = b->acc_key + (size_t)acc * 3, ne = b->stride;
    for (uint64_t i = 0; i < n; i++) {
        int same = cg->n_self && i > 0 && s[i].line == s[i - 1].line &&
                   s[i].instr == s[i - 1].instr && s[i].bb == s[i - 1].bb;
        if (!same) {
            cg->self[cg->n_self] =
                (pk_cg_self_rec){k[0], k[1], k[2], s[i].line, s[i].instr, s[i].bb};
            memset(cg->self_cost + cg->n_self * ne, 0, ne * sizeof(double));
            cg->n_self++;
        }
        double *d = cg->self_cost + (cg->n_self - 1) * ne;
        const double *v = b->raw_cost + (uint64_t)s[i].idx * ne;
        for (uint32_t e = 0; e < ne; e++)
            d[e] += v[e];
    }
}

/* Self costs: one record per (part, function, file, position), positions
 * ascending within each (part, function, file) group. */
static pk_status merge_self(cg_build *b)
{
    pk_cg *cg = b->cg;
    uint64_t n = b->by_function ? b->n_acc : b->n_raw;
    cg->self = malloc((n + 1) * sizeof *cg->self);
    cg->self_cost = malloc((n + 1) * (b->stride + 1u) * sizeof *cg->self_cost);
    if (!cg->self || !cg->self_cost) return pk_fail_nomem("merging costs");
    if (b->by_function) {
        for (uint32_t a = 0; a < b->n_acc; a++) {
            const uint32_t *k = b->acc_key + (size_t)a * 3;
            cg->self[a] = (pk_cg_self_rec){k[0], k[1], k[2], 0, 0, 0};
        }
        if (b->n_acc)
            memcpy(cg->self_cost, b->acc_cost,
                   (size_t)b->n_acc * b->stride * sizeof *cg->self_cost);
        cg->n_self = b->n_acc;
        return PK_OK;
    }
    uint64_t *start = NULL;
    uint32_t *perm = group_by_acc(b, &start);
    srt *s = malloc((b->n_raw + 1) * sizeof *s);
    if (!perm || !s) {
        free(perm), free(start), free(s);
        return pk_fail_nomem("merging costs");
    }
    for (uint32_t a = 0; a < b->n_acc; a++) {
        uint64_t lo = start[a], m = start[a + 1] - lo;
        for (uint64_t i = 0; i < m; i++) {
            const cgb_raw *r = &b->raw[perm[lo + i]];
            s[i] = (srt){r->instr, r->bb, r->line, perm[lo + i]};
        }
        qsort(s, m, sizeof *s, cmp_srt);
        emit_group(b, s, m, a, cg);
    }
    free(perm), free(start), free(s);
    free(b->raw), free(b->raw_cost);
    b->raw = NULL, b->raw_cost = NULL;
    return PK_OK;
}

/* A part's summary:/totals: by global event. */
static pk_status by_event(const cg_build *b, const cgb_part *bp, const double *cols, double **out)
{
    if (!cols) return PK_OK;
    *out = calloc(b->stride + 1u, sizeof **out);
    if (!*out) return pk_fail_nomem("reading totals");
    for (uint32_t c = 0; c < bp->n_cols; c++)
        (*out)[bp->col_event[c]] = cols[c];
    return PK_OK;
}

static void check_line(cg_build *b, const pk_cg_part_rec *part, const double *stated,
                       const double *sum, const char *what, uint64_t line)
{
    for (uint32_t e = 0; stated && e < b->stride; e++) {
        if (b->cg->events[e].formula || stated[e] == sum[e]) continue;
        char where[48];
        snprintf(where, sizeof where, "line %llu", (unsigned long long)line);
        pk_model_diag(
            b->p, PK_SEV_WARNING, strcmp(what, "totals") ? "summary-mismatch" : "totals-mismatch",
            part->file, where, 0, 0,
            "part %u: '%s:' says %s = %.17g but the cost lines sum to %.17g%s", part->number, what,
            b->cg->events[e].name, stated[e], sum[e],
            strcmp(what, "totals") ? " (summary: is only required to be at least that)" : "");
        return;
    }
}

static pk_status check_parts(cg_build *b)
{
    pk_cg *cg = b->cg;
    uint32_t ne = b->stride;
    double *sums = calloc((size_t)cg->n_parts * ne + 1, sizeof *sums);
    if (!sums) return pk_fail_nomem("checking totals");
    for (uint64_t i = 0; i < cg->n_self; i++)
        for (uint32_t e = 0; e < ne; e++)
            sums[(size_t)cg->self[i].part * ne + e] += cg->self_cost[i * ne + e];
    pk_status st = PK_OK;
    for (uint32_t k = 0; k < cg->n_parts && !st; k++) {
        pk_cg_part_rec *part = &cg->parts[k];
        const cgb_part *bp = &b->bparts[k];
        st = by_event(b, bp, bp->summary, &part->summary);
        if (!st) st = by_event(b, bp, bp->totals, &part->totals);
        if (st) break;
        check_line(b, part, part->summary, sums + (size_t)k * ne, "summary", part->summary_line);
        check_line(b, part, part->totals, sums + (size_t)k * ne, "totals", part->totals_line);
    }
    free(sums);
    return st;
}

/* A file that never says which events it counts holds no profile, even
 * if its header lines (a cut file) made a part. */
static int declares_events(const cg_build *b)
{
    for (uint32_t k = 0; k < b->n_bparts; k++)
        if (b->bparts[k].n_cols) return 1;
    return 0;
}

/* An event listed in events: has data; a formula for it too (event: X =
 * ...) would hide that data from every consumer: keep the data. */
static void drop_formulas_of_data(cg_build *b)
{
    for (uint32_t k = 0; k < b->n_bparts; k++)
        for (uint32_t c = 0; c < b->bparts[k].n_cols; c++) {
            pk_cg_event_rec *ev = &b->cg->events[b->bparts[k].col_event[c]];
            if (!ev->formula) continue;
            pk_model_diag(b->p, PK_SEV_WARNING, "formula-with-data", NULL, NULL, 0, 0,
                          "event '%s' is listed in events: and also defined as '%s': the "
                          "formula is ignored",
                          ev->name, ev->formula);
            ev->formula = NULL;
        }
}

pk_status cgb_finish(cg_build *b)
{
    pk_profile *p = b->p;
    if (!b->cg->n_parts || !declares_events(b))
        return pk_fail(PK_ERR_FORMAT, "%s: no profile data (no events: line)", p->path);
    drop_formulas_of_data(b);
    pk_status st = cgb_check_formulas(b);
    if (!st) st = merge_self(b);
    if (!st) st = check_parts(b);
    if (st) return st;
    p->cg = b->cg;
    b->cg = NULL;
    p->cg->n_model_functions = p->cg->n_functions = p->n_functions;
    st = pk_cg_setup_model(p);
    if (!st) st = pk_cg_build_cct(p);
    if (!st) st = pk_cg_derive(p);
    return st;
}
