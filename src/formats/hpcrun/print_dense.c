/*
 * formats/hpcrun/print_dense.c — hpcproftt's text for 02.00/03.00
 * profiles, as release-2022.05.15 printed it (the last hpcproftt that read
 * them; CallPath-Profile.cpp fmt_fread/fmt_epoch_fread/fmt_cct_fread and
 * prof-lean/hpcrun-fmt.c of that release): header, then per epoch the
 * epoch header, metric table (no ids), loadmap and the CCT with each
 * node's dense values, then the epoch count.
 */
#include <inttypes.h>

#include "formats/hpcrun/hr_print.h"

static void print_node(FILE *out, const hr_epoch *e, const hr_cct_node *x)
{
    hr_print_node_start(out, x);
    if (x->has_lush) fprintf(out, "(lip: 0x%" PRIx64 " 0x%" PRIx64 ")", x->lip[0], x->lip[1]);
    fputs("\n  (metrics:", out);
    for (uint32_t m = 0; m < e->n_metrics; m++) {
        uint64_t w = hr_dense_value(x, m);
        /* release-2022 prints real metrics with %g, all others as integers */
        if (e->metrics[m].val_fmt == HR_VALFMT_REAL)
            fprintf(out, " %g", hr_word_real(w));
        else
            fprintf(out, " %" PRIu64, w);
        if (m + 1 < e->n_metrics) fputc(' ', out);
    }
    fputs(")\n  ]\n", out);
}

void hr_print_dense(FILE *out, const hr_file *f, const pk_hpcrun_text_options *o)
{
    if (o->load_modules_only) {
        /* fmt_epoch_fread returned EOF after the first loadmap in --lm mode */
        if (f->n_epochs) hr_print_lm_only(out, &f->epochs[0]);
        return;
    }
    hr_print_header(out, f);
    for (uint32_t i = 0; i < f->n_epochs; i++) {
        const hr_epoch *e = &f->epochs[i];
        fprintf(out,
                "EPOCH___\n[epoch-hdr:\n  (flags: 0x%" PRIx64
                ")\n  (measurement-granularity: %" PRIu64 ")\n",
                e->flags, e->granularity);
        hr_print_nvpairs(out, &e->nvps);
        fputs("]\n", out);
        hr_print_metric_table(out, e, 0);
        hr_print_loadmap(out, e);
        fprintf(out, "[cct: (num-nodes: %" PRIu64 ")\n", e->n_nodes);
        for (uint64_t k = 0; k < e->n_nodes; k++)
            print_node(out, e, &e->nodes[k]);
        fputs("]\n", out);
    }
    fprintf(out, "\n[You look fine today! (num-epochs: %" PRIu32 ")]\n", f->n_epochs);
}
