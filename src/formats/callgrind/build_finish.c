/*
 * formats/callgrind/build_finish.c — turning what the parser collected
 * into the model: a Cachegrind file's functions one per name (not per
 * source file), same-position self costs merged, each part's summary:
 * and totals: checked against its costs, the call graph attached (its
 * metrics, locations and reconstructed tree are derived from it when the
 * profile is opened: pk_profile_open()).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgrd.h"
#include "util/error.h"
#include "util/radix.h"
#include "util/vec.h"

/* Records [0, k) of one accumulator (their indexes) by line: by
 * insertion when few, else by a radix sort of (line, index) pairs in
 * *room (grown to the longest run sorted so). -1 when out of memory. */
static int sort_run(const cg_build *b, uint32_t *run, size_t k, pk_radix_kv **room, size_t *cap)
{
    const uint32_t *key = b->line_key;
    if (k <= 16) {
        for (size_t i = 1; i < k; i++) {
            uint32_t x = run[i];
            size_t j = i;
            for (; j > 0 && key[2 * run[j - 1] + 1] > key[2 * x + 1]; j--)
                run[j] = run[j - 1];
            run[j] = x;
        }
        return 0;
    }
    if (pk_vec_reserve((void **)room, cap, 2 * k, sizeof **room)) return -1;
    pk_radix_kv *kv = *room;
    for (size_t i = 0; i < k; i++)
        kv[i] = (pk_radix_kv){key[2 * run[i] + 1], run[i]};
    pk_radix_sort_kv(kv, kv + k, k);
    for (size_t i = 0; i < k; i++)
        run[i] = (uint32_t)kv[i].val;
    return 0;
}

/* The line records' indexes in (accumulator, line) order: counted out by
 * accumulator, then each one's lines sorted. 4 bytes a record, beside
 * the sorting room of the longest run: a sort of (key, index) pairs took
 * 32 bytes a record at the parse's end, near a conversion's peak. */
static uint32_t *line_order(const cg_build *b)
{
    size_t n = b->n_line;
    uint32_t *at = calloc((size_t)b->n_acc + 2, sizeof *at);
    uint32_t *order = malloc((n + 1) * sizeof *order);
    pk_radix_kv *room = NULL;
    size_t cap = 0;
    int bad = !at || !order;
    for (size_t i = 0; !bad && i < n; i++)
        at[b->line_key[2 * i] + 1]++;
    for (uint32_t a = 0; !bad && a <= b->n_acc; a++)
        at[a + 1] += at[a];
    for (uint32_t i = 0; !bad && i < n; i++)
        order[at[b->line_key[2 * i]]++] = i; /* at[a]: now where a's run ends */
    for (uint32_t a = 0; !bad && a < b->n_acc; a++) {
        uint32_t from = a ? at[a - 1] : 0;
        bad = sort_run(b, order + from, at[a] - from, &room, &cap);
    }
    free(at), free(room);
    if (bad) free(order);
    return bad ? NULL : order;
}

/* By line: one record per (accumulator, line), lines ascending within
 * each accumulator, as cgb_merge_positions() orders positions. */
static pk_status merge_lines(cg_build *b, cgb_rows *o)
{
    pk_cg *cg = b->cg;
    uint32_t *order = line_order(b);
    uint32_t *ev = malloc(((size_t)b->stride + 1) * sizeof *ev);
    pk_status st = order && ev ? PK_OK : pk_fail_nomem("merging costs");
    for (size_t i = 0; !st && i < b->n_line; i++) {
        const uint32_t *k = b->acc_key + (size_t)b->line_key[2 * order[i]] * 3;
        cg->self[cg->n_self++] =
            (pk_cg_self_rec){k[0], k[1], k[2], b->line_key[2 * order[i] + 1], 0, 0};
        st = cgb_rows_copy(o, &b->line_rows, order[i], ev);
    }
    free(order), free(ev);
    cgb_rows_free(&b->line_rows);
    return st;
}

/* Self costs: per position (merged, build_merge.c), by line, or, by
 * function, one per accumulator (its in-place rows as they are). */
static pk_status merge_self(cg_build *b)
{
    pk_cg *cg = b->cg;
    if (!b->by_function && !b->by_line) {
        pk_status st = cgb_merge_positions(b);
        free(b->raw_v), free(b->raw_ev);
        b->raw_v = NULL, b->raw_ev = NULL;
        return st;
    }
    uint64_t n = b->by_function ? b->n_acc : b->n_line;
    cgb_rows o = {0};
    cg->self = malloc((n + 1) * sizeof *cg->self);
    pk_status st = cg->self ? PK_OK : pk_fail_nomem("merging costs");
    if (!st && b->by_function) {
        for (uint32_t a = 0; a < b->n_acc; a++) {
            const uint32_t *k = b->acc_key + (size_t)a * 3;
            cg->self[a] = (pk_cg_self_rec){k[0], k[1], k[2], 0, 0, 0};
        }
        cg->n_self = b->n_acc;
        st = cgb_rows_settle(&b->acc_rows, cg->n_events, &cg->self_cost, &cg->self_off,
                             &cg->self_ev);
    } else if (!st) {
        st = merge_lines(b, &o);
        if (!st)
            st = cgb_rows_settle(&o, cg->n_events, &cg->self_cost, &cg->self_off, &cg->self_ev);
    }
    if (st) cg->n_self = 0;
    cgb_rows_free(&o);
    return st;
}

/* Call arcs' inclusive costs, from the in-place rows to the final ones. */
static pk_status settle_calls(cg_build *b)
{
    pk_cg *cg = b->cg;
    return cgb_rows_settle(&b->call_rows, cg->n_events, &cg->call_cost, &cg->call_off,
                           &cg->call_ev);
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

/* The events of one kind of difference, "Ir 279408 (cost lines 279406)"
 * one after another (the first 8, then how many more). */
typedef struct diff_list {
    char text[640];
    size_t len;
    uint32_t n;
} diff_list;

static void list_add(diff_list *l, const char *event, double stated, double sum)
{
    if (l->n++ < 8 && l->len < sizeof l->text)
        l->len += (size_t)snprintf(l->text + l->len, sizeof l->text - l->len,
                                   "%s%.80s %.17g (cost lines %.17g)", l->len ? ", " : "", event,
                                   stated, sum);
}

static const char *list_text(diff_list *l, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s", l->text, l->n > 8 ? ", ..." : "");
    if (l->n > 8) snprintf(buf + strlen(buf), size - strlen(buf), " (%u events)", l->n);
    return buf;
}

/* Every event whose stated total differs from what the part's cost lines
 * add up to. totals: is a writer's sum of its lines, so any difference is
 * a warning; summary: may exceed them (the spec asks for at least the
 * sum; valgrind counts there cost it charges to no line), which is noted,
 * while a summary: below them is a warning (percentages of it exceed
 * 100 %, here and in callgrind_annotate). */
static void check_line(cg_build *b, const pk_cg_part_rec *part, const double *stated,
                       const double *sum, int totals, uint64_t line)
{
    diff_list above = {.len = 0}, below = {.len = 0};
    for (uint32_t e = 0; stated && e < b->stride; e++) {
        if (b->cg->events[e].formula || stated[e] == sum[e]) continue;
        list_add(!totals && stated[e] > sum[e] ? &above : &below, b->cg->events[e].name, stated[e],
                 sum[e]);
    }
    char where[48], buf[700];
    snprintf(where, sizeof where, "line %llu", (unsigned long long)line);
    if (below.n)
        pk_model_diag(
            b->p, PK_SEV_WARNING, totals ? "totals-mismatch" : "summary-mismatch", part->file,
            where, 0, 0, "part %u: '%s:' differs from what the cost lines add up to: %s%s",
            part->number, totals ? "totals" : "summary", list_text(&below, buf, sizeof buf),
            totals ? ""
                   : "; the summary is the program total callgrind_annotate and "
                     "profkit report, so percentages of it exceed 100 %");
    if (above.n)
        pk_model_diag(b->p, PK_SEV_NOTE, "summary-above-costs", part->file, where, 0, 0,
                      "part %u: 'summary:' states more than the cost lines add up to: %s; the "
                      "format allows it (cost the tool counted but charged to no line), and "
                      "it is the program total callgrind_annotate and profkit report ('profkit "
                      "info' shows the cost lines' sum beside it)",
                      part->number, list_text(&above, buf, sizeof buf));
}

/* Each part's costs summed (its records grouped by a counting sort, one
 * scratch row of events), against its summary: and totals: lines. */
static pk_status check_parts(cg_build *b)
{
    pk_cg *cg = b->cg;
    uint32_t ne = b->stride, *perm = NULL;
    uint64_t *start = NULL;
    double *sum = calloc(ne + 1u, sizeof *sum);
    pk_status st = sum ? PK_OK : pk_fail_nomem("checking totals");
    if (!st) st = pk_cg_by_part(cg->self, sizeof *cg->self, cg->n_self, cg->n_parts, &start, &perm);
    for (uint32_t k = 0; k < cg->n_parts && !st; k++) {
        pk_cg_part_rec *part = &cg->parts[k];
        const cgb_part *bp = &b->bparts[k];
        st = by_event(b, bp, bp->summary, &part->summary);
        if (!st) st = by_event(b, bp, bp->totals, &part->totals);
        if (st || (!part->summary && !part->totals)) continue;
        memset(sum, 0, ne * sizeof *sum);
        for (uint64_t j = start[k]; j < start[k + 1]; j++) {
            pk_cg_row r = pk_cg_self_row(cg, perm[j]);
            for (uint32_t x = 0; x < r.n; x++)
                sum[pk_cg_row_event(r, x)] += r.v[x];
        }
        check_line(b, part, part->summary, sum, 0, part->summary_line);
        check_line(b, part, part->totals, sum, 1, part->totals_line);
    }
    free(start), free(perm), free(sum);
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

/* A file without calls, jumps or a callgrind creator is Cachegrind's
 * (valgrind --tool=cachegrind, or alike): its fl= names the source file
 * of the lines that follow, inlined headers included, not the function's,
 * so one function comes in many fl= blocks. Like cg_annotate, a function
 * is its name in its object there; its lines keep their files. */
static int lines_name_files(const cg_build *b)
{
    const pk_cg *cg = b->cg;
    if (cg->n_calls || cg->n_jumps) return 0;
    for (uint32_t k = 0; k < cg->n_parts; k++)
        if (cg->parts[k].creator && strncmp(cg->parts[k].creator, "callgrind", 9) == 0) return 0;
    return 1;
}

/* One function per name and object: the accumulators' functions
 * renumbered, the model's function list made of the first of each. */
static pk_status functions_by_name(cg_build *b)
{
    pk_profile *p = b->p;
    pk_kmap seen = {0};
    uint32_t *to = malloc(((size_t)p->n_functions + 1) * sizeof *to), n = 0;
    pk_status st = to ? PK_OK : pk_fail_nomem("merging functions");
    for (uint32_t f = 0; !st && f < p->n_functions; f++) {
        uint64_t key[PK_KMAP_WORDS] = {(uint64_t)(uintptr_t)p->functions[f].name,
                                       p->functions[f].module};
        int added;
        if (pk_kmap_upsert(&seen, key, n, &to[f], &added)) st = pk_fail_nomem("merging functions");
        if (!st && added) p->functions[n++] = p->functions[f];
    }
    for (uint32_t a = 0; !st && a < b->n_acc; a++)
        b->acc_key[(size_t)a * 3 + 1] = to[b->acc_key[(size_t)a * 3 + 1]];
    if (!st) p->n_functions = n;
    pk_kmap_free(&seen);
    free(to);
    return st;
}

pk_status cgb_finish(cg_build *b)
{
    pk_profile *p = b->p;
    if (!b->cg->n_parts || !declares_events(b))
        return pk_fail(PK_ERR_FORMAT, "%s: no profile data (no events: line)", p->path);
    drop_formulas_of_data(b);
    pk_status st = cgb_check_formulas(b);
    if (!st && lines_name_files(b)) st = functions_by_name(b);
    if (!st) st = merge_self(b);
    if (!st) st = settle_calls(b);
    if (!st) st = check_parts(b);
    if (!st) st = pk_cg_state_totals(b->cg);
    if (st) return st;
    if (b->by_line) { /* what the costs are kept by now */
        b->cg->positions &= ~(uint32_t)(PK_POS_INSTR | PK_POS_BB);
        for (uint32_t k = 0; k < b->cg->n_parts; k++)
            b->cg->parts[k].positions &= ~(uint32_t)(PK_POS_INSTR | PK_POS_BB);
    }
    p->cg = b->cg;
    b->cg = NULL;
    p->cg->n_model_functions = p->cg->n_functions = p->n_functions;
    /* metrics, locations, cycles and the tree are derived from the call
     * graph when the profile is opened (pk_profile_open()) */
    p->cg->pending = 1, p->cg->pending_tree = b->tree, p->cg->pending_threshold = b->tree_threshold;
    return PK_OK;
}
