/*
 * formats/callgrind/write.c — writing a profile as a Callgrind file that
 * callgrind_annotate and KCachegrind read: one part per location, names
 * compressed ("fn=(3) main" once per part, then "fn=(3)"), positions as
 * the model has them (instr in hex, lines in decimal), calls with their
 * inclusive costs, jumps. A profile without a call graph (a CCT format)
 * gets its exact one first (analysis/cct_to_cg.c). Costs must be
 * integers in Callgrind: an event with fractional values (seconds) is
 * written scaled to an integer unit and its long name says by how much.
 * Written to "<path>.tmp-<pid>" and renamed into place when complete.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/cg_model.h"
#include "callgrind.h"
#include "profkit/status.h"
#include "util/error.h"

typedef struct writer {
    const pk_profile *p;
    const pk_cg *cg;
    FILE *f;
    uint32_t ne;
    double *scale;   /* per event */
    double *row;     /* scratch: a sparse row of costs by event */
    char **names;    /* event names without spaces */
    uint8_t *def[3]; /* name defined in this part: files, functions, objects */
    uint32_t nfile, nfn, nobj;
    uint32_t cur_file, cur_obj;
    uint64_t n_values;
    int split;  /* one file per part */
    FILE **out; /* split: one stream per part */
} writer;

static int integral(double v)
{
    return v == floor(v) && fabs(v) < 9.0e18;
}

/* Scale that makes every value of event e an integer (1 if they are). */
static double scale_of(const pk_cg *cg, uint32_t e)
{
    double max = 0;
    int frac = 0;
    for (uint64_t i = 0; i < cg->n_self; i++) {
        double v = pk_cg_self_value(cg, i, e);
        frac |= !integral(v), max = fmax(max, fabs(v));
    }
    for (uint64_t i = 0; i < cg->n_calls; i++) {
        double v = pk_cg_call_value(cg, i, e);
        frac |= !integral(v), max = fmax(max, fabs(v));
    }
    if (!frac) return 1;
    double s = 1e9;
    while (s > 1 && max * s > 9.0e18)
        s /= 10;
    return s;
}

static pk_status prepare_events(writer *w)
{
    w->scale = calloc(w->ne + 1u, sizeof *w->scale);
    w->names = calloc(w->ne + 1u, sizeof *w->names);
    if (!w->scale || !w->names) return pk_fail_nomem("writing Callgrind");
    for (uint32_t e = 0; e < w->ne; e++) {
        const char *n = w->cg->events[e].name ? w->cg->events[e].name : "event";
        size_t len = strlen(n);
        w->names[e] = malloc(len + 16);
        if (!w->names[e]) return pk_fail_nomem("writing Callgrind");
        for (size_t i = 0; i <= len; i++) /* blanks split events:, = and : event: lines */
            w->names[e][i] = n[i] && strchr(" \t\n\r=:", n[i]) ? '_' : n[i];
        if (!len) strcpy(w->names[e], "event");
        for (uint32_t k = 0; k < e; k++) /* names must differ */
            if (strcmp(w->names[k], w->names[e]) == 0)
                sprintf(w->names[e] + strlen(w->names[e]), "_%u", e);
        w->scale[e] = scale_of(w->cg, e);
    }
    return PK_OK;
}

static void put_cost(writer *w, double v, uint32_t e)
{
    double x = nearbyint(v * w->scale[e]);
    fprintf(w->f, " %.0f", x == 0 ? 0.0 : x);
}

static void put_costs(writer *w, const double *v, uint32_t n)
{
    uint32_t last = 0; /* trailing zeros may be left out */
    for (uint32_t e = 0; e < n; e++)
        if (!w->cg->events[e].formula && nearbyint(v[e] * w->scale[e]) != 0) last = e + 1;
    for (uint32_t e = 0; e < last; e++)
        if (!w->cg->events[e].formula) put_cost(w, v[e], e);
    w->n_values += last;
    fputc('\n', w->f);
}

static void put_position(writer *w, uint32_t line, uint64_t instr, uint64_t bb)
{
    uint32_t pos = w->cg->positions ? w->cg->positions : PK_POS_LINE;
    const char *sep = "";
    if (pos & PK_POS_INSTR) fprintf(w->f, "%s0x%llx", sep, (unsigned long long)instr), sep = " ";
    if (pos & PK_POS_BB) fprintf(w->f, "%s0x%llx", sep, (unsigned long long)bb), sep = " ";
    if (pos & PK_POS_LINE) fprintf(w->f, "%s%u", sep, line);
}

/* "key=(id) name" the first time in a part, "key=(id)" after. */
static void put_name(writer *w, const char *key, int kind, uint32_t id, const char *name)
{
    if (name && !*name) { /* an empty name has no compressed form */
        fprintf(w->f, "%s=\n", key);
        return;
    }
    if (w->def[kind][id]) {
        fprintf(w->f, "%s=(%u)\n", key, id + 1);
        return;
    }
    w->def[kind][id] = 1;
    fprintf(w->f, "%s=(%u) %s\n", key, id + 1, name ? name : "???");
}

static void put_file(writer *w, const char *key, uint32_t file)
{
    const pk_profile *p = w->p;
    uint32_t id = file < p->n_files ? file : w->nfile - 1;
    put_name(w, key, 0, id, file < p->n_files ? p->files[file].path : "???");
}

static void put_object(writer *w, const char *key, uint32_t obj)
{
    const pk_profile *p = w->p;
    uint32_t id = obj < p->n_modules ? obj : w->nobj - 1;
    put_name(w, key, 2, id, obj < p->n_modules ? p->modules[obj].path : "???");
}

static void put_function(writer *w, const char *key, uint32_t fn)
{
    put_name(w, key, 1, fn, pk_cg_function_name(w->p, w->cg, fn));
}

static uint32_t fn_file(const writer *w, uint32_t fn)
{
    return fn < w->p->n_functions ? w->p->functions[fn].file : PK_NONE;
}

static uint32_t fn_object(const writer *w, uint32_t fn)
{
    return fn < w->p->n_functions ? w->p->functions[fn].module : PK_NONE;
}

typedef struct item {
    uint32_t part, fn;
    uint64_t idx;
} item;

static int cmp_item(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->part != y->part) return x->part < y->part ? -1 : 1;
    if (x->fn != y->fn) return x->fn < y->fn ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Records sorted by (part, function, original order). */
static item *sorted_items(uint64_t n, const void *base, size_t stride, size_t fn_field)
{
    item *it = malloc((n + 1) * sizeof *it);
    if (!it) return NULL;
    for (uint64_t i = 0; i < n; i++) {
        const char *r = (const char *)base + i * stride;
        it[i] = (item){*(const uint32_t *)r, *(const uint32_t *)(r + fn_field), i};
    }
    qsort(it, n, sizeof *it, cmp_item);
    return it;
}

typedef struct cursor3 {
    item *self, *calls, *jumps;
    uint64_t is, ic, ij;
} cursor3;

static void switch_file(writer *w, uint32_t *cur, uint32_t file, uint32_t fn_file_id)
{
    if (file == *cur) return;
    put_file(w, file == fn_file_id ? "fe" : "fi", file);
    *cur = file;
}

static void write_calls(writer *w, cursor3 *c, uint32_t part, uint32_t fn, uint32_t ffile,
                        uint32_t *cur)
{
    const pk_cg *cg = w->cg;
    for (; c->ic < cg->n_calls && c->calls[c->ic].part == part && c->calls[c->ic].fn == fn;
         c->ic++) {
        const pk_cg_call_rec *r = &cg->calls[c->calls[c->ic].idx];
        switch_file(w, cur, r->file, ffile);
        if (fn_object(w, r->callee) != fn_object(w, fn))
            put_object(w, "cob", fn_object(w, r->callee));
        uint32_t to_file = r->to_file != PK_NONE ? r->to_file : fn_file(w, r->callee);
        if (to_file != *cur) put_file(w, "cfi", to_file);
        put_function(w, "cfn", r->callee);
        fprintf(w->f, "calls=%.0f ", r->count);
        put_position(w, r->to_line, r->to_instr, r->to_bb);
        fputc('\n', w->f);
        put_position(w, r->line, r->instr, r->bb);
        const double *v;
        put_costs(w, v, pk_cg_call_costs(cg, c->calls[c->ic].idx, w->row, &v));
    }
}

static void write_jumps(writer *w, cursor3 *c, uint32_t part, uint32_t fn, uint32_t ffile,
                        uint32_t *cur)
{
    const pk_cg *cg = w->cg;
    for (; c->ij < cg->n_jumps && c->jumps[c->ij].part == part && c->jumps[c->ij].fn == fn;
         c->ij++) {
        const pk_cg_jump_rec *r = &cg->jumps[c->jumps[c->ij].idx];
        switch_file(w, cur, r->file, ffile);
        if (r->to_file != *cur) put_file(w, "jfi", r->to_file);
        if (r->to_fn != fn) put_function(w, "jfn", r->to_fn);
        if (r->conditional)
            fprintf(w->f, "jcnd=%.0f/%.0f ", r->followed, r->executed);
        else
            fprintf(w->f, "jump=%.0f ", r->followed);
        put_position(w, r->to_line, r->to_instr, r->to_bb);
        fputc('\n', w->f);
        put_position(w, r->line, r->instr, r->bb);
        fputc('\n', w->f);
    }
}

static void write_function(writer *w, cursor3 *c, uint32_t part, uint32_t fn)
{
    const pk_cg *cg = w->cg;
    uint32_t obj = fn_object(w, fn), file = fn_file(w, fn), cur = file;
    if (obj != PK_NONE || w->cur_obj != PK_NONE) put_object(w, "ob", obj), w->cur_obj = obj;
    if (file != PK_NONE || w->cur_file != PK_NONE) put_file(w, "fl", file), w->cur_file = file;
    put_function(w, "fn", fn);
    for (; c->is < cg->n_self && c->self[c->is].part == part && c->self[c->is].fn == fn; c->is++) {
        const pk_cg_self_rec *r = &cg->self[c->self[c->is].idx];
        switch_file(w, &cur, r->file, file);
        put_position(w, r->line, r->instr, r->bb);
        const double *v;
        put_costs(w, v, pk_cg_self_costs(cg, c->self[c->is].idx, w->row, &v));
    }
    write_calls(w, c, part, fn, file, &cur);
    write_jumps(w, c, part, fn, file, &cur);
    fputc('\n', w->f);
}

/* Smallest function with records left in this part, PK_NONE if none. */
static uint32_t next_function(const writer *w, const cursor3 *c, uint32_t part)
{
    uint32_t best = PK_NONE;
    if (c->is < w->cg->n_self && c->self[c->is].part == part) best = c->self[c->is].fn;
    if (c->ic < w->cg->n_calls && c->calls[c->ic].part == part && c->calls[c->ic].fn < best)
        best = c->calls[c->ic].fn;
    if (c->ij < w->cg->n_jumps && c->jumps[c->ij].part == part && c->jumps[c->ij].fn < best)
        best = c->jumps[c->ij].fn;
    return best;
}

static void write_sums(writer *w, const char *key, const double *sum)
{
    fprintf(w->f, "%s:", key);
    for (uint32_t e = 0; e < w->ne; e++)
        if (!w->cg->events[e].formula) fprintf(w->f, " %.0f", sum[e]);
    fputc('\n', w->f);
}

static void write_header(writer *w, uint32_t k, const double *sum)
{
    const pk_cg *cg = w->cg;
    const pk_cg_part_rec *part = &cg->parts[k];
    if (k == 0 || w->split)
        fprintf(w->f, "# callgrind format\nversion: 1\ncreator: profkit %s\n", pk_version());
    if (part->pid) fprintf(w->f, "pid: %llu\n", (unsigned long long)part->pid);
    if (part->cmd) fprintf(w->f, "cmd: %s\n", part->cmd);
    fprintf(w->f, "part: %u\n", part->number ? part->number : k + 1);
    if (part->thread != 1 || cg->n_parts > 1) fprintf(w->f, "thread: %u\n", part->thread);
    for (uint32_t d = 0; d < part->n_descs; d++)
        fprintf(w->f, "desc: %s\n", part->descs[d]);
    uint32_t pos = cg->positions ? cg->positions : PK_POS_LINE;
    fprintf(w->f, "\npositions:%s%s%s\n", pos & PK_POS_INSTR ? " instr" : "",
            pos & PK_POS_BB ? " bb" : "", pos & PK_POS_LINE ? " line" : "");
    /* Readers number events in order of first mention: once one event needs
     * an event: line, every event gets one, so the order survives. */
    int all = 0;
    for (uint32_t e = 0; e < w->ne; e++)
        all |= cg->events[e].formula || cg->events[e].long_name || w->scale[e] != 1;
    for (uint32_t e = 0; all && e < w->ne; e++) {
        const pk_cg_event_rec *ev = &cg->events[e];
        if (ev->formula)
            fprintf(w->f, "event: %s = %s\n", w->names[e], ev->formula);
        else {
            char note[80] = "";
            if (w->scale[e] != 1)
                snprintf(note, sizeof note, " [profkit wrote the values multiplied by %.0g]",
                         w->scale[e]);
            if (ev->long_name || *note)
                fprintf(w->f, "event: %s : %s%s\n", w->names[e], ev->long_name ? ev->long_name : "",
                        note);
            else
                fprintf(w->f, "event: %s\n", w->names[e]);
        }
    }
    fprintf(w->f, "events:");
    for (uint32_t e = 0; e < w->ne; e++)
        if (!cg->events[e].formula) fprintf(w->f, " %s", w->names[e]);
    fputc('\n', w->f);
    write_sums(w, "summary", sum);
    fputc('\n', w->f);
}

/* Sum of part k's costs as written (the part's records are the sorted
 * ones from the cursor on), for its summary: and totals: lines. */
static void part_sums(const writer *w, const cursor3 *c, uint32_t k, double *sum)
{
    const pk_cg *cg = w->cg;
    memset(sum, 0, (w->ne + 1u) * sizeof *sum);
    for (uint64_t j = c->is; j < cg->n_self && c->self[j].part == k; j++)
        for (uint32_t e = 0; e < w->ne; e++)
            sum[e] += nearbyint(pk_cg_self_value(cg, c->self[j].idx, e) * w->scale[e]);
}

static pk_status write_body(writer *w)
{
    const pk_cg *cg = w->cg;
    cursor3 c = {sorted_items(cg->n_self, cg->self, sizeof *cg->self, 4),
                 sorted_items(cg->n_calls, cg->calls, sizeof *cg->calls, 4),
                 sorted_items(cg->n_jumps, cg->jumps, sizeof *cg->jumps, 4),
                 0,
                 0,
                 0};
    double *sum = malloc((w->ne + 1u) * sizeof *sum);
    pk_status st = c.self && c.calls && c.jumps && sum ? PK_OK : pk_fail_nomem("writing Callgrind");
    for (uint32_t k = 0; k < cg->n_parts && !st; k++) {
        if (w->split) w->f = w->out[k];
        part_sums(w, &c, k, sum);
        write_header(w, k, sum);
        for (int d = 0; d < 3; d++)
            memset(w->def[d], 0, d == 0 ? w->nfile : d == 1 ? w->nfn : w->nobj);
        w->cur_file = w->cur_obj = PK_NONE;
        for (uint32_t fn; (fn = next_function(w, &c, k)) != PK_NONE;)
            write_function(w, &c, k, fn);
        write_sums(w, "totals", sum);
        fputc('\n', w->f);
    }
    free(c.self), free(c.calls), free(c.jumps), free(sum);
    return st;
}

static void writer_free(writer *w)
{
    for (uint32_t e = 0; w->names && e < w->ne; e++)
        free(w->names[e]);
    free(w->names), free(w->scale), free(w->row);
    for (int d = 0; d < 3; d++)
        free(w->def[d]);
}

static pk_status prepare(writer *w)
{
    const pk_profile *p = w->p;
    w->nfile = (uint32_t)p->n_files + 1, w->nobj = (uint32_t)p->n_modules + 1;
    w->nfn = w->cg->n_functions > p->n_functions ? w->cg->n_functions : (uint32_t)p->n_functions;
    w->def[0] = calloc(w->nfile, 1), w->def[1] = calloc(w->nfn + 1u, 1),
    w->def[2] = calloc(w->nobj, 1);
    w->ne = w->cg->n_events;
    w->row = malloc((w->ne + 1u) * sizeof *w->row);
    if (!w->def[0] || !w->def[1] || !w->def[2] || !w->row)
        return pk_fail_nomem("writing Callgrind");
    return prepare_events(w);
}

static FILE *create(const char *tmp, pk_status *st)
{
    FILE *f = fopen(tmp, "w");
    if (!f) *st = pk_fail(PK_ERR_IO, "%s: cannot create: %s", tmp, strerror(errno));
    if (f) setvbuf(f, NULL, _IOFBF, 1 << 20);
    return f;
}

static pk_status finish(FILE *f, const char *tmp, pk_status st)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        st = st ? st : pk_fail(PK_ERR_IO, "%s: write failed: %s", tmp, strerror(errno));
    return st;
}

/* The files written: `path`, or with PK_WRITE_SPLIT and several parts
 * "path-01", "path-02"... as callgrind names per-thread files, so the
 * set opens as one run by its base name (here and in KCachegrind). */
typedef struct targets {
    uint32_t n;
    char (*path)[4096];
    char (*tmp)[4096];
} targets;

static pk_status name_targets(targets *t, const char *path, uint32_t n, int force)
{
    t->n = n;
    t->path = malloc(n * sizeof *t->path), t->tmp = malloc(n * sizeof *t->tmp);
    if (!t->path || !t->tmp) return pk_fail_nomem("writing Callgrind");
    int digits = n > 99 ? snprintf(NULL, 0, "%u", n) : 2;
    for (uint32_t k = 0; k < n; k++) {
        if (n == 1)
            snprintf(t->path[k], sizeof t->path[k], "%s", path);
        else
            snprintf(t->path[k], sizeof t->path[k], "%s-%0*u", path, digits, k + 1);
        snprintf(t->tmp[k], sizeof t->tmp[k], "%s.tmp-%ld", t->path[k], (long)getpid());
        if (!force && access(t->path[k], F_OK) == 0)
            return pk_fail(PK_ERR_IO, "%s: exists (use --force to replace it)", t->path[k]);
    }
    return PK_OK;
}

static pk_status write_files(writer *w, const targets *t)
{
    pk_status st = PK_OK;
    w->out = calloc(t->n, sizeof *w->out);
    if (!w->out) return pk_fail_nomem("writing Callgrind");
    for (uint32_t k = 0; k < t->n && !st; k++)
        w->out[k] = create(t->tmp[k], &st);
    w->f = w->out[0];
    if (!st) st = write_body(w);
    for (uint32_t k = 0; k < t->n; k++)
        if (w->out[k]) st = finish(w->out[k], t->tmp[k], st);
    for (uint32_t k = 0; k < t->n && !st; k++)
        if (rename(t->tmp[k], t->path[k]) != 0)
            st =
                pk_fail(PK_ERR_IO, "%s: cannot rename into place: %s", t->path[k], strerror(errno));
    return st;
}

static void count_bytes(const targets *t, pk_write_stats *stats)
{
    stats->bytes = 0, stats->n_files = t->n;
    for (uint32_t k = 0; k < t->n; k++) {
        FILE *f = fopen(t->path[k], "r");
        if (!f) continue;
        fseek(f, 0, SEEK_END);
        stats->bytes += (uint64_t)ftell(f);
        fclose(f);
    }
}

pk_status cg_write(const pk_profile *p, const char *path, const pk_write_options *opts,
                   pk_write_stats *stats)
{
    uint32_t flags = opts ? opts->flags : 0;
    pk_cg *own = NULL;
    pk_status st = p->cg ? PK_OK : pk_cg_from_cct(p, &own);
    if (st) return st;
    writer w = {.p = p, .cg = p->cg ? p->cg : own};
    w.split = (flags & PK_WRITE_SPLIT) && w.cg->n_parts > 1;
    targets t = {0};
    st = name_targets(&t, path, w.split ? w.cg->n_parts : 1, (flags & PK_WRITE_FORCE) != 0);
    if (!st) st = prepare(&w);
    if (!st) st = write_files(&w, &t);
    if (st)
        for (uint32_t k = 0; t.tmp && k < t.n; k++)
            unlink(t.tmp[k]);
    if (!st) count_bytes(&t, stats);
    stats->n_values = w.n_values;
    free(t.path), free(t.tmp), free(w.out);
    writer_free(&w);
    pk_cg_free(own);
    return st;
}
