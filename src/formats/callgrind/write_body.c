/*
 * formats/callgrind/write_body.c — the text of a Callgrind file, one part
 * per file: header (events, their long names, units and original names
 * as desc: lines), then per function its self costs, calls and jumps,
 * then totals.
 *
 * Names are compressed ("fn=(3) main" once per part, then "fn=(3)") and
 * escaped (cgesc.h). An unknown file or object is "???", as valgrind
 * writes it. What every reader assumes is written out explicitly:
 *  - each function starts with the file it is in (fl=), whenever the
 *    current file differs (callgrind_annotate names a function after the
 *    last fl=/fi=/fe=, KCachegrind and profkit after the last fl=);
 *  - a callee's object and file (cob=, cfi=) whenever they differ from
 *    the current ones, unknown ones included, since readers otherwise put
 *    the callee in the caller's object and file.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgesc.h"
#include "cgw.h"
#include "profkit/status.h"
#include "util/error.h"

#define UNSET (PK_NONE - 1) /* no fl= written yet in this part */

static void put_text(cgw *w, const char *s)
{
    cg_escape_write(w->f, s, strlen(s));
}

/* "key=(id) name" the first time in a part, "key=(id)" after; NULL name:
 * unknown ("???"). An empty name has no compressed form. */
static void put_name(cgw *w, const char *key, int kind, uint32_t id, const char *name)
{
    if (name && !*name) {
        fprintf(w->f, "%s=\n", key);
        return;
    }
    if (w->def[kind][id]) {
        fprintf(w->f, "%s=(%u)\n", key, id + 1);
        return;
    }
    w->def[kind][id] = 1;
    fprintf(w->f, "%s=(%u) ", key, id + 1);
    if (name)
        put_text(w, name);
    else
        fputs("???", w->f);
    fputc('\n', w->f);
}

static void put_file(cgw *w, const char *key, uint32_t file)
{
    const pk_profile *p = w->p;
    int known = file < p->n_files;
    put_name(w, key, 0, known ? file : w->nfile - 1, known ? p->files[file].path : NULL);
}

static void put_object(cgw *w, const char *key, uint32_t obj)
{
    const pk_profile *p = w->p;
    int known = obj < p->n_modules;
    put_name(w, key, 2, known ? obj : w->nobj - 1, known ? p->modules[obj].path : NULL);
}

static void put_function(cgw *w, const char *key, uint32_t fn)
{
    put_name(w, key, 1, fn, pk_cg_function_name(w->p, w->names, fn));
}

static uint32_t fn_file(const cgw *w, uint32_t fn)
{
    return fn < w->p->n_functions ? w->p->functions[fn].file : PK_NONE;
}

static uint32_t fn_object(const cgw *w, uint32_t fn)
{
    return fn < w->p->n_functions ? w->p->functions[fn].module : PK_NONE;
}

/* Event k's value as written (scaled, rounded) of self record i, or of
 * call arc i when `call`. */
static double written(const cgw *w, int call, uint64_t i, uint32_t k)
{
    const cgw_event *x = &w->ev[k];
    if (x->src >= w->cg->n_events) return 0;
    double v = call ? cgw_call(w->cg, i, x->src) : cgw_self(w->cg, i, x->src);
    double r = nearbyint(v * x->scale);
    return r == 0 ? 0 : r; /* no "-0" */
}

/* " " and the integer x (nearbyint()'ed), without printf's cost per
 * value: millions of them in a big file. */
static void put_integer(FILE *f, double x)
{
    if (!(fabs(x) < 9.0e18)) {
        fprintf(f, " %.0f", x);
        return;
    }
    char buf[24], *e = buf + sizeof buf, *s = e;
    int64_t v = (int64_t)x;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do
        *--s = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0) *--s = '-';
    *--s = ' ';
    fwrite(s, 1, (size_t)(e - s), f);
}

static void put_costs(cgw *w, int call, uint64_t i)
{
    uint32_t last = 0; /* trailing zeros may be left out */
    for (uint32_t k = 0; k < w->n_ev; k++)
        if (written(w, call, i, k) != 0) last = k + 1;
    for (uint32_t k = 0; k < last; k++)
        put_integer(w->f, written(w, call, i, k));
    w->n_values += last;
    fputc('\n', w->f);
}

static void put_position(cgw *w, uint32_t line, uint64_t instr)
{
    if (w->positions & PK_POS_INSTR) fprintf(w->f, "0x%llx ", (unsigned long long)instr);
    fprintf(w->f, "%u", line);
}

/* fi=/fe= to position file `file` inside function file `home`. */
static void switch_file(cgw *w, uint32_t file, uint32_t home)
{
    if (file == w->cur_fi) return;
    put_file(w, file == home ? "fe" : "fi", file);
    w->cur_fi = file;
}

/* ------------------------------------------------------------------ */
/* Records, function by function                                      */
/* ------------------------------------------------------------------ */

typedef struct item {
    uint32_t part, fn;
    uint64_t idx;
} item;

/* Records ordered by (part, function, original order): two stable
 * counting sorts (by function, then by part), linear in records plus
 * functions and parts. fn_at is the function field's byte offset in each
 * `stride`-byte record (the part is the first field). */
static item *sorted_items(uint64_t n, const void *base, size_t stride, size_t fn_at, uint32_t nfn,
                          uint32_t nparts)
{
    item *it = malloc((n + 1) * sizeof *it), *tmp = malloc((n + 1) * sizeof *tmp);
    size_t nb = (nfn > nparts ? nfn : nparts) + 2u;
    uint64_t *count = calloc(nb, sizeof *count);
    if (!it || !tmp || !count) {
        free(it), free(tmp), free(count);
        return NULL;
    }
    for (uint64_t i = 0; i < n; i++) {
        const char *r = (const char *)base + i * stride;
        uint32_t part, fn;
        memcpy(&part, r, 4), memcpy(&fn, r + fn_at, 4);
        tmp[i] = (item){part < nparts ? part : nparts, fn < nfn ? fn : nfn, i};
    }
    for (int pass = 0; pass < 2; pass++) { /* LSD: function, then part */
        item *from = pass ? it : tmp, *to = pass ? tmp : it;
        memset(count, 0, nb * sizeof *count);
        for (uint64_t i = 0; i < n; i++)
            count[(pass ? from[i].part : from[i].fn) + 1]++;
        for (size_t b = 1; b < nb; b++)
            count[b] += count[b - 1];
        for (uint64_t i = 0; i < n; i++)
            to[count[pass ? from[i].part : from[i].fn]++] = from[i];
    }
    free(it), free(count);
    return tmp;
}

typedef struct cursor {
    item *self, *calls, *jumps;
    uint64_t is, ic, ij;
} cursor;

static int at(const item *it, uint64_t i, uint64_t n, uint32_t part, uint32_t fn)
{
    return i < n && it[i].part == part && it[i].fn == fn;
}

/* callgrind_annotate's source annotation fails ("uninitialized value
 * $pairs[0]") on a source file that exists where it runs but has no cost
 * line with a line number, which happens when a file holds only call
 * sites (a CCT's call lines have no cost of their own). Such a file gets
 * one cost line of zeros at its first call site (zeros spelt out: its
 * annotation totals need a value per event). */
static void mark_call_site(cgw *w, uint32_t file, uint32_t line, uint64_t instr)
{
    if (file >= w->p->n_files || !line || w->has_line[file]) return;
    put_position(w, line, instr);
    for (uint32_t k = 0; k < w->n_ev; k++)
        fputs(" 0", w->f);
    fputc('\n', w->f);
    w->has_line[file] = 1;
}

static void write_calls(cgw *w, cursor *c, uint32_t part, uint32_t fn)
{
    const pk_cg *cg = w->cg;
    for (; at(c->calls, c->ic, cg->n_calls, part, fn); c->ic++) {
        const pk_cg_call_rec *r = &cg->calls[c->calls[c->ic].idx];
        switch_file(w, r->file, fn_file(w, fn));
        mark_call_site(w, r->file, r->line, r->instr);
        if (fn_object(w, r->callee) != w->cur_obj) put_object(w, "cob", fn_object(w, r->callee));
        if (fn_file(w, r->callee) != w->cur_fi) put_file(w, "cfi", fn_file(w, r->callee));
        put_function(w, "cfn", r->callee);
        fprintf(w->f, "calls=%.0f ", r->count);
        put_position(w, r->to_line, r->to_instr);
        fputc('\n', w->f);
        put_position(w, r->line, r->instr);
        put_costs(w, 1, c->calls[c->ic].idx);
    }
}

static void write_jumps(cgw *w, cursor *c, uint32_t part, uint32_t fn)
{
    const pk_cg *cg = w->cg;
    for (; at(c->jumps, c->ij, cg->n_jumps, part, fn); c->ij++) {
        const pk_cg_jump_rec *r = &cg->jumps[c->jumps[c->ij].idx];
        switch_file(w, r->file, fn_file(w, fn));
        if (r->to_file != w->cur_fi) put_file(w, "jfi", r->to_file);
        if (r->to_fn != fn) put_function(w, "jfn", r->to_fn);
        if (r->conditional)
            fprintf(w->f, "jcnd=%.0f/%.0f ", r->followed, r->executed);
        else
            fprintf(w->f, "jump=%.0f ", r->followed);
        put_position(w, r->to_line, r->to_instr);
        fputc('\n', w->f);
        put_position(w, r->line, r->instr);
        fputc('\n', w->f);
    }
}

static void write_function(cgw *w, cursor *c, uint32_t part, uint32_t fn)
{
    const pk_cg *cg = w->cg;
    uint32_t obj = fn_object(w, fn), file = fn_file(w, fn);
    if (obj != w->cur_obj) put_object(w, "ob", obj), w->cur_obj = obj;
    if (file != w->cur_fl || file != w->cur_fi) put_file(w, "fl", file), w->cur_fl = file;
    w->cur_fi = file;
    put_function(w, "fn", fn);
    for (; at(c->self, c->is, cg->n_self, part, fn); c->is++) {
        const pk_cg_self_rec *r = &cg->self[c->self[c->is].idx];
        switch_file(w, r->file, file);
        put_position(w, r->line, r->instr);
        put_costs(w, 0, c->self[c->is].idx);
    }
    write_calls(w, c, part, fn);
    write_jumps(w, c, part, fn);
    fputc('\n', w->f);
}

/* Smallest function with records left in this part, PK_NONE if none. */
static uint32_t next_function(const cgw *w, const cursor *c, uint32_t part)
{
    const pk_cg *cg = w->cg;
    uint32_t best = PK_NONE;
    if (c->is < cg->n_self && c->self[c->is].part == part) best = c->self[c->is].fn;
    if (c->ic < cg->n_calls && c->calls[c->ic].part == part && c->calls[c->ic].fn < best)
        best = c->calls[c->ic].fn;
    if (c->ij < cg->n_jumps && c->jumps[c->ij].part == part && c->jumps[c->ij].fn < best)
        best = c->jumps[c->ij].fn;
    return best;
}

/* Move the cursors to the first record of `part` (parts ascending). */
static void skip_to(const cgw *w, cursor *c, uint32_t part)
{
    const pk_cg *cg = w->cg;
    while (c->is < cg->n_self && c->self[c->is].part < part)
        c->is++;
    while (c->ic < cg->n_calls && c->calls[c->ic].part < part)
        c->ic++;
    while (c->ij < cg->n_jumps && c->jumps[c->ij].part < part)
        c->ij++;
}

/* ------------------------------------------------------------------ */
/* Header                                                             */
/* ------------------------------------------------------------------ */

static void write_sums(cgw *w, const char *key, const double *sum)
{
    fprintf(w->f, "%s:", key);
    for (uint32_t k = 0; k < w->n_ev; k++)
        fprintf(w->f, " %.0f", sum[k]);
    fputc('\n', w->f);
}

/* Sum of the part's self costs as written, for summary: and totals:, and
 * which files have a cost line with a line number. */
static void part_sums(const cgw *w, const cursor *c, uint32_t part, double *sum)
{
    const pk_cg *cg = w->cg;
    memset(sum, 0, (w->n_ev + 1u) * sizeof *sum);
    memset(w->has_line, 0, w->nfile);
    for (uint64_t j = c->is; j < cg->n_self && c->self[j].part == part; j++) {
        const pk_cg_self_rec *r = &cg->self[c->self[j].idx];
        if (r->file < w->p->n_files && r->line) w->has_line[r->file] = 1;
        for (uint32_t k = 0; k < w->n_ev; k++)
            sum[k] += written(w, 0, c->self[j].idx, k);
    }
}

static void put_desc(cgw *w, const char *type, const char *event, const char *value)
{
    fprintf(w->f, "desc: %s%s%s: ", type, event ? " " : "", event ? event : "");
    put_text(w, value);
    fputc('\n', w->f);
}

/* desc: lines: the part's own (profkit's metadata of an earlier writing
 * excepted: it is written anew), which locations it holds, and each
 * event's original name and unit where the events: line cannot say them. */
static void write_descs(cgw *w, const pk_cg_part_rec *part)
{
    for (uint32_t d = 0; d < part->n_descs; d++)
        if (strncmp(part->descs[d], "Name of ", 8) && strncmp(part->descs[d], "Unit of ", 8))
            fputs("desc: ", w->f), put_text(w, part->descs[d]), fputc('\n', w->f);
    char loc[512];
    if (w->n_summed > 1) {
        snprintf(loc, sizeof loc, "sum of %u", w->n_summed);
        put_desc(w, "Locations", NULL, loc);
    } else if (!w->p->cg && part->location != PK_NONE) {
        pk_location_name(w->p, part->location, loc, sizeof loc);
        put_desc(w, "Location", NULL, loc);
    }
    for (uint32_t k = 0; k < w->n_ev; k++) {
        if (w->ev[k].orig) put_desc(w, "Name of", w->ev[k].name, w->ev[k].orig);
        if (w->ev[k].unit) put_desc(w, "Unit of", w->ev[k].name, w->ev[k].unit);
    }
}

static const char *long_name(const cgw *w, const pk_cg_event_rec *ev)
{
    if (ev->metric < w->p->n_metrics) return w->p->metrics[ev->metric].description;
    return ev->long_name;
}

/* event: lines (long names, inherited events) come before events:, where
 * callgrind_annotate expects every header line. */
static void write_events(cgw *w)
{
    const pk_cg *cg = w->cg;
    for (uint32_t k = 0; k < w->n_ev; k++) {
        const char *l =
            w->ev[k].src < cg->n_events ? long_name(w, &cg->events[w->ev[k].src]) : NULL;
        if (!l || !*l) continue;
        fprintf(w->f, "event: %s : ", w->ev[k].name);
        put_text(w, l);
        fputc('\n', w->f);
    }
    for (uint32_t e = 0; e < cg->n_events; e++) {
        const pk_cg_event_rec *ev = &cg->events[e];
        if (!ev->formula) continue;
        fprintf(w->f, "event: %s = ", ev->name);
        put_text(w, ev->formula);
        if (ev->long_name && *ev->long_name) fputs(" : ", w->f), put_text(w, ev->long_name);
        fputc('\n', w->f);
    }
    fprintf(w->f, "events:");
    for (uint32_t k = 0; k < w->n_ev; k++)
        fprintf(w->f, " %s", w->ev[k].name);
    fputc('\n', w->f);
}

/* summary: what the source states of the part's totals (its summary:
 * line, as callgrind_annotate reads it), scaled as the costs are; where
 * it states nothing, the costs as written (`sum`). */
static void write_summary(cgw *w, const pk_cg_part_rec *part, const double *sum)
{
    const double *says = pk_cg_part_statement(w->cg, part);
    fprintf(w->f, "summary:");
    for (uint32_t k = 0; k < w->n_ev; k++) {
        uint32_t e = w->ev[k].src;
        double v = says && e < w->cg->n_events && says[e] != 0.0
                       ? nearbyint(says[e] * w->ev[k].scale)
                       : sum[k];
        fprintf(w->f, " %.0f", v == 0 ? 0 : v);
    }
    fputc('\n', w->f);
}

static void write_header(cgw *w, const pk_cg_part_rec *part, const double *sum)
{
    fprintf(w->f, "# callgrind format\nversion: 1\ncreator: profkit %s\n", pk_version());
    if (part->pid) fprintf(w->f, "pid: %llu\n", (unsigned long long)part->pid);
    const char *cmd = part->cmd ? part->cmd : w->p->title;
    if (cmd && *cmd) fputs("cmd: ", w->f), put_text(w, cmd), fputc('\n', w->f);
    fprintf(w->f, "part: %u\n", part->number ? part->number : 1);
    if (part->thread != 1 || (w->n_out > 1 && !w->n_summed))
        fprintf(w->f, "thread: %u\n", part->thread);
    write_descs(w, part);
    fprintf(w->f, "\npositions:%s line\n", w->positions & PK_POS_INSTR ? " instr" : "");
    write_events(w);
    write_summary(w, part, sum);
    fputc('\n', w->f);
}

static void write_part(cgw *w, cursor *c, uint32_t part, double *sum)
{
    skip_to(w, c, part);
    part_sums(w, c, part, sum);
    write_header(w, &w->cg->parts[part], sum);
    for (int d = 0; d < 3; d++)
        memset(w->def[d], 0, d == 0 ? w->nfile : d == 1 ? w->nfn : w->nobj);
    w->cur_fl = w->cur_fi = UNSET, w->cur_obj = PK_NONE;
    for (uint32_t fn; (fn = next_function(w, c, part)) != PK_NONE;)
        write_function(w, c, part, fn);
    write_sums(w, "totals", sum);
}

pk_status cgw_write_parts(cgw *w)
{
    const pk_cg *cg = w->cg;
    uint32_t nf = w->nfn, np = cg->n_parts;
    cursor c = {sorted_items(cg->n_self, cg->self, sizeof *cg->self, 4, nf, np),
                sorted_items(cg->n_calls, cg->calls, sizeof *cg->calls, 4, nf, np),
                sorted_items(cg->n_jumps, cg->jumps, sizeof *cg->jumps, 4, nf, np),
                0,
                0,
                0};
    double *sum = malloc((w->n_ev + 1u) * sizeof *sum);
    pk_status st = c.self && c.calls && c.jumps && sum ? PK_OK : pk_fail_nomem("writing Callgrind");
    for (uint32_t k = 0; k < w->n_out && !st; k++) {
        w->f = w->out[k];
        write_part(w, &c, w->part_of[k], sum);
    }
    free(c.self), free(c.calls), free(c.jumps), free(sum);
    return st;
}
