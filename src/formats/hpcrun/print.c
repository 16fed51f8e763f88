/*
 * formats/hpcrun/print.c — hpcproftt's text for hpcrun measurement
 * files, line for line, written to the caller's FILE *.
 *
 * 04.00 profiles and traces print as hpcproftt of HPCToolkit develop
 * (2024-10) does (src/hpcproftt, src/common/Raw.cpp,
 * CallPath-Profile.cpp, lean/hpcrun-fmt.c, id-tuple.c); develop cannot
 * read 02.00/03.00 any more, so those print as release-2022.05.15's
 * hpcproftt did (print_dense.c). Each format string below is the one
 * upstream uses, including its quirks (signed %d/%ld for unsigned fields,
 * C strings cut at an embedded NUL, raw bytes for placeholder names);
 * docs/hpcrun.md lists where profkit differs (it checks the whole file
 * before printing anything, and stops on data hpcproftt would misread).
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>

#include "formats/hpcrun/hr_print.h"
#include "util/error.h"
#include "util/mapfile.h"
#include "util/text_escape.h"

/* A file string as hpcproftt prints it with %s: up to its first NUL;
 * control characters and invalid UTF-8 shown visibly (text_escape.h). */
void hr_put_str(FILE *out, hr_str s)
{
    size_t n = s.len ? strnlen(s.p, s.len) : 0;
    pk_text_write(out, s.p, n);
}

void hr_print_banner(FILE *out, const char *name)
{
    static const char line[] = "============================================================"
                               "=================\n"; /* 77 '=' */
    fputs(line, out);
    fprintf(out, "%s\n", name);
    fputs(line, out);
}

void hr_print_header(FILE *out, const hr_file *f)
{
    fprintf(out, "%s\n[hdr:\n  (version: %s)\n  (endian: %c)\n", HR_PROFILE_MAGIC, f->version,
            f->endian);
    hr_print_nvpairs(out, &f->hdr);
    fputs("]\n", out);
}

void hr_print_nvpairs(FILE *out, const hr_nvpairs *nv)
{
    for (uint32_t i = 0; i < nv->n; i++) {
        fputs("  [nv-pair: '", out);
        hr_put_str(out, nv->v[i].name);
        fputs("', '", out);
        hr_put_str(out, nv->v[i].value);
        fputs("']\n", out);
    }
}

/* --lm: the paths of modules to analyze (flag bit 0), without <vdso>-like
 * names, a "gpubin.<hash>" tail cut after "gpubin". */
void hr_print_lm_only(FILE *out, const hr_epoch *e)
{
    for (uint32_t i = 0; i < e->n_loadmap; i++) {
        const hr_loadmap_entry *x = &e->loadmap[i];
        size_t n = x->path.len ? strnlen(x->path.p, x->path.len) : 0;
        if ((n && x->path.p[0] == '<') || !(x->flags & HR_LM_ANALYZE)) continue;
        for (size_t k = 0; k + 7 <= n; k++) {
            if (memcmp(x->path.p + k, "gpubin.", 7) == 0) {
                n = k + 6;
                break;
            }
        }
        pk_text_write(out, x->path.p, n);
        fputc('\n', out);
    }
}

void hr_print_loadmap(FILE *out, const hr_epoch *e)
{
    fprintf(out, "[loadmap: (num-entries: %" PRIu32 ")\n", e->n_loadmap);
    for (uint32_t i = 0; i < e->n_loadmap; i++) {
        fprintf(out, "  [(id: %u) (nm: ", (unsigned)e->loadmap[i].id);
        hr_put_str(out, e->loadmap[i].path);
        fprintf(out, ") (flg: 0x%" PRIx64 ")]\n", e->loadmap[i].flags);
    }
    fputs("]\n", out);
}

/* One metric; with_id selects develop's "(id: N) " (release-2022 had none). */
void hr_print_metric(FILE *out, const hr_metric *m, int with_id, uint32_t id)
{
    fputs("  [", out);
    if (with_id) fprintf(out, "(id: %d) ", (int)id);
    fputs("(nm: ", out);
    hr_put_str(out, m->name);
    fputs(") (desc: ", out);
    hr_put_str(out, m->desc);
    fprintf(out,
            ") ((ty: %d) (val-ty: %d) (val-fmt: %d) (partner: %u) (show: %d) (showPercent: %d)) "
            "(period: %" PRIu64 ") (formula: ",
            m->type, m->val_ty, m->val_fmt, (unsigned)m->partner, m->show, m->show_percent,
            m->period);
    hr_put_str(out, m->formula);
    fputs(") (format: ", out);
    hr_put_str(out, m->format);
    /* hpcrun-fmt.c reads the two u16 flags into bools (one byte kept on
     * little-endian hosts) and prints num_samples through an int. */
    fprintf(out, ")\n    (frequency: %d) (multiplexed: %d) (period-mean: %f) (num-samples: %d)]\n",
            m->is_frequency & 0xff, m->is_multiplexed & 0xff, m->threshold_mean,
            (int)(uint32_t)m->num_samples);
}

void hr_print_metric_table(FILE *out, const hr_epoch *e, int with_id)
{
    fprintf(out, "[metric-tbl: (num-entries: %" PRIu32 ")\n", e->n_metrics);
    for (uint32_t i = 0; i < e->n_metrics; i++)
        hr_print_metric(out, &e->metrics[i], with_id, i);
    fputs("]\n", out);
}

/* The node's start up to the lm-ip, shared by both layouts. */
void hr_print_node_start(FILE *out, const hr_cct_node *x)
{
    fprintf(out, "  [node: (id: %d) (id-parent: %d) ", (int)x->id, (int)x->parent);
    if (x->has_lush) {
        static const struct {
            uint8_t as;
            const char *name;
        } as_names[] = {{0x00, "NULL"},   {0x11, "1-to-0"}, {0x36, "1-to-1"},
                        {0x42, "M-to-1"}, {0x54, "1-to-M"}, {0xa1, "0-to-0"}};
        const char *as = "ERROR!";
        for (size_t i = 0; i < sizeof as_names / sizeof as_names[0]; i++)
            if (as_names[i].as == (x->lush_assoc & 0xff)) as = as_names[i].name;
        fprintf(out, "(as: %s (%u)) ", as, (unsigned)(x->lush_assoc >> 8));
    }
    if (!x->unwound) fputs("(not unwound) ", out);
    fprintf(out, "(lm-id: %u) (lm-ip: 0x%" PRIx64 ") ", (unsigned)x->lm_id, x->lm_ip);
}

/* The 04.00 node line: placeholder characters and pretty name. */
static void print_node_v4(FILE *out, const hr_cct_node *x)
{
    hr_print_node_start(out, x);
    if (x->lm_id == HR_PLACEHOLDER_LM) {
        fputc('\'', out);
        for (int s = 56; s >= 0; s -= 8)
            fputc((int)((x->lm_ip >> s) & 0xff), out);
        fputs("' ", out);
        const char *pretty = hr_placeholder_name(x->lm_ip);
        if (pretty) fprintf(out, "\"%s\" ", pretty);
    }
    fputs("]\n", out);
}

static void print_kind(FILE *out, uint16_t raw)
{
    static const char *const interps[4] = {"BOTH", "GEN LOCAL", "GEN GLOBAL", "SINGLE"};
    static const char *const kinds[8] = {"SUMMARY",   "NODE",       "RANK",      "THREAD",
                                         "GPUDEVICE", "GPUCONTEXT", "GPUSTREAM", "CORE"};
    const char *intr = interps[raw >> 14];
    uint16_t kind = raw & 0x3fff;
    if (kind == HR_IDKIND_SUMMARY) {
        fputs("SUMMARY", out);
        if (raw != HR_IDKIND_SUMMARY) fprintf(out, "[%s]", intr);
    } else if (kind < 8) {
        fprintf(out, "%s(%s)", kinds[kind], intr);
    } else {
        fprintf(out, "[%u](%s)", (unsigned)kind, intr);
    }
}

static void print_idtuple(FILE *out, const hr_idtuple *t)
{
    fputc('[', out);
    for (uint16_t j = 0; j < t->n; j++) {
        const hr_id *x = &t->ids[j];
        fputc('(', out);
        print_kind(out, x->raw_kind);
        if (x->raw_kind == HR_IDKIND_SUMMARY)
            fputc(')', out);
        else if (x->interp == HR_IDINTERP_SINGLE)
            fprintf(out, ": %" PRIu64 ") ", x->logical);
        else
            fprintf(out, ": %" PRIu64 ", %" PRIu64 ") ", x->physical, x->logical);
    }
    fputs("]\n", out);
}

/* A sparse value word as develop prints it: integer metrics as unsigned,
 * real and unknown formats with %g. */
static void print_word(FILE *out, const char *lead, uint64_t w, const hr_metric *m)
{
    if (m->val_fmt == HR_VALFMT_INT)
        fprintf(out, "%s%" PRIu64, lead, w);
    else
        fprintf(out, "%s%g", lead, hr_word_real(w));
}

static void print_grep(FILE *out, const hr_sparse *s, const hr_epoch *e)
{
    fputs("  [metrics easy grep version:\n  (NOTES: metrics for a cct node are printed together, "
          "easy to grep)\n",
          out);
    for (uint32_t k = 0; k < s->n_nz_nodes; k++) {
        uint32_t id, next_id;
        uint64_t start, end;
        hr_sparse_index(s, k, &id, &start);
        hr_sparse_index(s, k + 1, &next_id, &end);
        fprintf(out, "    (cct node id: %d) ", (int)id);
        for (uint64_t j = start; j < end; j++) {
            uint16_t mid;
            uint64_t w;
            hr_sparse_value(s, j, &mid, &w);
            fprintf(out, "(metric %d:", mid);
            print_word(out, "", w, &e->metrics[mid]);
            fputs(") ", out);
        }
        fputc('\n', out);
    }
    fputs("  ]\n", out);
}

static void print_sparse(FILE *out, const hr_file *f, int grep)
{
    const hr_sparse *s = &f->sparse;
    const hr_epoch *e = &f->epochs[0];
    fputs("[sparse metrics:\n  [basic information:\n     id tuple:", out);
    print_idtuple(out, &s->idtuple);
    fprintf(out,
            "    (number of non-zero metrics: %" PRId64 ")\n    (number of non-zero cct nodes: "
            "%d)\n  ]\n",
            (int64_t)s->n_values, (int)s->n_nz_nodes);
    if (grep) {
        print_grep(out, s, e);
    } else {
        fputs("  [metrics:\n  (NOTES: printed in file order, help checking if hpcrun file is "
              "correct)\n",
              out);
        for (uint64_t i = 0; i < s->n_values; i++) {
            uint16_t mid;
            uint64_t w;
            hr_sparse_value(s, i, &mid, &w);
            print_word(out, "    (value: ", w, &e->metrics[mid]);
            fprintf(out, ", metric id: %d)\n", mid);
        }
        fputs("  ]\n", out);
    }
    fputs("  [cct node indices:\n", out);
    for (uint32_t k = 0; k <= s->n_nz_nodes; k++) {
        uint32_t id;
        uint64_t start;
        hr_sparse_index(s, k, &id, &start);
        if (k < s->n_nz_nodes)
            fprintf(out, "    (cct node id: %d, index: %" PRId64 ")\n", (int)id, (int64_t)start);
        else if (id == HR_SPARSE_END_ID)
            fprintf(out, "    (cct node id: END, index: %" PRId64 ")\n", (int64_t)start);
    }
    fputs("  ]\n]\n", out);
}

static void print_footer(FILE *out, const hr_footer *ft)
{
    static const char *const labels[6] = {"           hdr", "       loadmap", "           cct",
                                          "    metric-tbl", "id-tuple dxnry", "sparse metrics"};
    const hr_span *spans[6] = {&ft->hdr,     &ft->loadmap, &ft->cct,
                               &ft->metrics, &ft->iddict,  &ft->sparse};
    fputs("[footer:\n", out);
    for (int i = 0; i < 6; i++)
        fprintf(out, "  [%s start: %" PRId64 ", end: %" PRId64 "]\n", labels[i],
                (int64_t)spans[i]->start, (int64_t)spans[i]->end);
    fprintf(out, "  [        footer start: %" PRId64 "]\n", (int64_t)ft->footer_start);
    fprintf(out, "  [        MAGIC NUMBER: equal to the expected? %s]\n",
            ft->magic == HR_FOOTER_MAGIC ? "YES!" : "NO!");
    fputs("]\n", out);
}

static void print_v4(FILE *out, const hr_file *f, const pk_hpcrun_text_options *o)
{
    const hr_epoch *e = &f->epochs[0];
    if (o->load_modules_only) {
        hr_print_lm_only(out, e);
        return;
    }
    hr_print_header(out, f);
    hr_print_loadmap(out, e);
    fprintf(out, "[cct: (num-nodes: %" PRIu64 ")\n", e->n_nodes);
    for (uint64_t i = 0; i < e->n_nodes; i++)
        print_node_v4(out, &e->nodes[i]);
    fputs("]\n", out);
    hr_print_metric_table(out, e, 1);
    fprintf(out, "[id-tuple dxnry: (number of kinds: %d)\n", f->n_idkinds);
    for (uint16_t i = 0; i < f->n_idkinds; i++) {
        fprintf(out, "  (kind: %d) (kindStr: ", f->idkinds[i].kind);
        hr_put_str(out, f->idkinds[i].name);
        fputs(")\n", out);
    }
    fputs("]\n", out);
    print_sparse(out, f, o->easy_grep);
    print_footer(out, &f->footer);
    fputs("\n[You look fine today!]\n", out);
}

/* Raw.cpp's trace dump: header, then "(time, id)" per record. */
static void print_trace(FILE *out, const hr_trace *t)
{
    fprintf(out, "%s\n[hdr:\n  (version: %s)\n  (endian: %c)\n  (flags: 0x%" PRIx64 ")\n]\n",
            HR_TRACE_MAGIC, t->version, t->endian, t->flags);
    for (uint64_t i = 0; i < t->n_records; i++) {
        uint64_t time;
        uint32_t id, metric;
        hr_trace_record(t, i, &time, &id, &metric);
        fprintf(out, "(%" PRIu64 ", %" PRIu32, time, id);
        if (t->flags & HR_TRACE_LCA_RECORDED) fputs(", 0", out);
        if (t->flags & HR_TRACE_DATA_CENTRIC) fprintf(out, ", %" PRIu32, metric);
        fputs(")\n", out);
    }
}

pk_status hr_write_text(FILE *out, const char *name, const void *data, uint64_t size,
                        const pk_hpcrun_text_options *opts)
{
    static const pk_hpcrun_text_options defaults = {0, 0};
    const pk_hpcrun_text_options *o = opts ? opts : &defaults;
    int kind = hr_detect(data, size);
    if (kind == HR_KIND_NONE)
        return pk_fail(PK_ERR_UNKNOWN_FORMAT,
                       "%s: not an hpcrun measurement file (no HPCRUN-profile____ or "
                       "HPCRUN-trace______ magic)",
                       name);
    /* hpcproftt prints the banner before it reads the file; so do we, so a
     * damaged file among several is easy to place. */
    if (!o->load_modules_only) hr_print_banner(out, name);
    pk_status st;
    if (kind == HR_KIND_TRACE) {
        hr_trace t;
        if ((st = hr_trace_parse(name, data, size, &t))) return st;
        print_trace(out, &t);
        return PK_OK;
    }
    pk_arena arena;
    pk_arena_init(&arena);
    hr_file f;
    st = hr_parse(name, data, size, &arena, &f);
    if (!st && f.has_sparse)
        print_v4(out, &f, o);
    else if (!st)
        hr_print_dense(out, &f, o);
    pk_arena_free(&arena);
    return st;
}

pk_status pk_hpcrun_write_text(FILE *out, const char *path, const pk_hpcrun_text_options *opts)
{
    if (!out || !path) return pk_fail(PK_ERR_INVALID_ARG, "pk_hpcrun_write_text: NULL argument");
    pk_error_clear();
    pk_mapfile m;
    pk_status st = pk_map_file(path, &m);
    if (st) return st;
    st = hr_write_text(out, path, m.data, m.size, opts);
    pk_unmap_file(&m);
    return st;
}

int pk_hpcrun_file_kind(const char *path)
{
    return path ? hr_detect_path(path) : 0;
}
