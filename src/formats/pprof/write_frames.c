/*
 * formats/pprof/write_frames.c — calling contexts as pprof stacks.
 *
 * A frame starts at a context entered by a call (or at the top of the
 * tree) and takes in the contexts below it that are not: inlined
 * functions, lines, loops, instructions. A value at context c is a
 * sample whose leaf Location is c's frame as far as c:
 *
 *   lines    the frame's function and each inlined function in it,
 *            innermost first, each at the line where it is (an inlined
 *            function's call site line for the function around it, the
 *            deepest line or loop context for the innermost);
 *   address  the instruction context's offset in its module, whose
 *            Mapping the Location names.
 *
 * The caller's Location is the frame around the call, as far as the
 * context the call was made from; a Cube-style call site line on the
 * callee (a function context with a source location) is the caller's
 * line. Equal Locations are one (a hash table over their contents).
 * Functions pprof's reader made up for unsymbolized frames ("[libc.so]",
 * "<unknown>") become Locations without lines again. Entry points and
 * the root are no frames; a value of their own is at a function named
 * after them.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/write_loss.h"
#include "pprof.h"
#include "pw.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/vec.h"

#define MAX_FRAME  65536u       /* contexts in one frame (inlined, lexical) */
#define MAX_FRAMES (1ull << 28) /* stack entries in the whole file (gigabytes of samples) */

static pk_status nomem(void)
{
    return pk_fail_nomem("writing a pprof profile");
}

static int is_frame(const pk_ctx_rec *c)
{
    return c->kind != PK_CTX_ROOT && c->kind != PK_CTX_ENTRY && !(c->flags & PK_CTXF_UNLISTED);
}

/* ---- setup ---- */

/* The source's own mappings ("START LIMIT OFFSET BUILD PATH"). */
static pk_status source_mappings(pw *w)
{
    const pk_profile *p = w->p;
    size_t first, n;
    pk_attribute_range(p, PK_ENTITY_PROFILE, 0, &first, &n);
    for (size_t i = first; i < first + n; i++) {
        const pk_attr_rec *a = &p->attrs[i];
        unsigned long long s, l, o;
        char build[512];
        int used = 0;
        if (strcmp(a->key, PPROF_ATTR_MAPPING) ||
            sscanf(a->value, "%llx %llx %llx %511s %n", &s, &l, &o, build, &used) < 4 || !used)
            continue;
        if (pk_vec_reserve((void **)&w->maps, &w->cap_maps, w->n_maps + 1u, sizeof *w->maps))
            return nomem();
        pw_map *m = &w->maps[w->n_maps++];
        memset(m, 0, sizeof *m);
        m->path = a->value + used, m->start = s, m->limit = l, m->offset = o;
        m->build = strcmp(build, "-") ? pk_arena_strndup(&w->arena, build, strlen(build)) : NULL;
        m->module = PK_NONE;
        if (strcmp(build, "-") && !m->build) return nomem();
    }
    return PK_OK;
}

/* The stack entries the samples will need, known before a byte is
 * written: per location, each context with a value costs its stack's
 * length (frames from the root: a frame start adds one). A pprof sample
 * lists its whole stack, so a deep tree with values everywhere makes a
 * file quadratic in the depth: refused when that is past MAX_FRAMES. */
static pk_status check_size(pw *w)
{
    const pk_profile *p = w->p;
    uint32_t *frames = calloc((size_t)p->n_ctx + 1, sizeof *frames);
    uint64_t total = 0;
    if (!frames) return nomem();
    for (uint32_t c = 1; c < p->n_ctx; c++) { /* parents first */
        uint32_t par = p->ctx[c].parent;
        uint32_t up = par < p->n_ctx ? frames[par] : 0;
        frames[c] = up + (is_frame(&p->ctx[c]) && w->fs[c] == c);
    }
    for (uint32_t l = 0; l < p->n_locs; l++)
        for (uint32_t i = 0; i < p->locs[l].plane.nidx; i++) {
            uint32_t c =
                pk_model_ctx_find(p, pk_le32(p->locs[l].plane.idx + (size_t)i * PK_LM_IDX_SIZE));
            total += c < p->n_ctx ? frames[c] + 1u : 1u;
        }
    free(frames);
    if (total <= MAX_FRAMES) return PK_OK;
    return pk_fail(PK_ERR_LIMIT,
                   "%s: the samples' stacks would hold %llu frames, more than %llu: a pprof "
                   "sample lists its whole stack, and this profile has values at %s",
                   w->path, (unsigned long long)total, (unsigned long long)MAX_FRAMES,
                   "contexts too deep and too many for that");
}

pk_status pw_frames_init(pw *w)
{
    const pk_profile *p = w->p;
    size_t n = (size_t)p->n_ctx + 1;
    w->fs = malloc(n * sizeof *w->fs);
    w->loc_of = calloc(n, sizeof *w->loc_of), w->call_loc = calloc(n, sizeof *w->call_loc);
    w->fn_id = calloc(p->n_functions + 1u, sizeof *w->fn_id);
    w->map_of_module = calloc(p->n_modules + 1u, sizeof *w->map_of_module);
    if (!w->fs || !w->loc_of || !w->call_loc || !w->fn_id || !w->map_of_module) return nomem();
    w->named.words = 1;
    for (uint32_t c = 0; c < p->n_ctx; c++) {
        const pk_ctx_rec *x = &p->ctx[c];
        uint32_t par = x->parent;
        int starts = par >= p->n_ctx || !is_frame(&p->ctx[par]) ||
                     (x->relation != PK_REL_LEXICAL && x->relation != PK_REL_INLINED_CALL);
        w->fs[c] = starts || !is_frame(x) ? c : w->fs[par];
    }
    pk_status st = check_size(w);
    return st ? st : source_mappings(w);
}

void pw_frames_free(pw *w)
{
    free(w->fs), free(w->loc_of), free(w->call_loc), free(w->chain);
    free(w->locs), free(w->lines), free(w->loc_slots), free(w->fn_id), free(w->fn_ctx);
    free(w->maps), free(w->map_of_module), free(w->stack);
    pk_kmap_free(&w->named);
}

/* ---- functions ---- */

static pk_status new_function(pw *w, uint32_t ctx, uint32_t *out)
{
    if (pk_vec_reserve((void **)&w->fn_ctx, &w->cap_fn_ctx, w->n_fns + 1u, sizeof *w->fn_ctx))
        return nomem();
    w->fn_ctx[w->n_fns++] = ctx;
    *out = w->n_fns;
    return PK_OK;
}

/* The pprof function of context c: its model function's, or one named
 * as profkit names c (made once per name). */
static pk_status function_of(pw *w, uint32_t c, uint32_t *out)
{
    const pk_ctx_rec *x = &w->p->ctx[c];
    if ((x->flags & PK_CTXF_HAS_FUNCTION) && x->function < w->p->n_functions) {
        if (!w->fn_id[x->function]) PK_TRY(new_function(w, c, &w->fn_id[x->function]));
        return *out = w->fn_id[x->function], PK_OK;
    }
    char name[512];
    pk_context_name(w->p, c, name, sizeof name);
    uint64_t key[PK_KMAP_WORDS] = {pw_str(w, name)};
    int added;
    if (pk_kmap_upsert(&w->named, key, w->n_fns + 1, out, &added)) return nomem();
    return added ? new_function(w, c | 0x80000000u, out) : PK_OK;
}

static int unsymbolized(const pw *w, const pk_ctx_rec *x)
{
    return (x->flags & PK_CTXF_HAS_FUNCTION) && x->function < w->p->n_functions &&
           pk_attribute_find(w->p, PK_ENTITY_FUNCTION, x->function, PPROF_ATTR_UNSYM);
}

/* ---- mappings ---- */

static pk_status mapping_of(pw *w, uint32_t module, uint64_t addr, int symbolized, uint32_t *out)
{
    const char *path = w->p->modules[module].path;
    uint32_t any = PK_NONE, hit = PK_NONE;
    for (uint32_t i = 0; i < w->n_maps && hit == PK_NONE; i++) {
        const pw_map *m = &w->maps[i];
        if (m->made || !path || strcmp(m->path, path)) continue;
        if (any == PK_NONE) any = i;
        if (addr >= m->start && addr < m->limit) hit = i;
    }
    if (hit == PK_NONE) hit = any;
    if (hit == PK_NONE && w->map_of_module[module]) hit = w->map_of_module[module] - 1;
    if (hit == PK_NONE) { /* a module of another format: a mapping of its own */
        if (pk_vec_reserve((void **)&w->maps, &w->cap_maps, w->n_maps + 1u, sizeof *w->maps))
            return nomem();
        hit = w->n_maps++;
        w->maps[hit] = (pw_map){path, NULL, 0, 0, 0, 0, module, 0, 0, 1};
        w->map_of_module[module] = hit + 1;
    }
    pw_map *m = &w->maps[hit];
    m->used = 1, m->has_functions |= symbolized;
    if (addr > m->max_addr) m->max_addr = addr;
    *out = hit + 1;
    return PK_OK;
}

/* ---- Locations ---- */

static uint64_t hash_loc(uint32_t mapping, uint64_t addr, const pw_line *l, uint32_t n)
{
    uint64_t h = 1469598103934665603ull ^ mapping ^ addr * 31;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ ((uint64_t)l[i].fn << 32 | l[i].line)) * 1099511628211ull, h ^= h >> 31;
    return h;
}

static pk_status grow_slots(pw *w)
{
    size_t cap = w->cap_loc_slots ? 2 * w->cap_loc_slots : 1024;
    uint32_t *s = calloc(cap, sizeof *s);
    if (!s) return nomem();
    for (uint32_t i = 0; i < w->n_locs; i++) {
        size_t k = w->locs[i].hash & (cap - 1);
        while (s[k])
            k = (k + 1) & (cap - 1);
        s[k] = i + 1;
    }
    free(w->loc_slots);
    w->loc_slots = s, w->cap_loc_slots = cap;
    return PK_OK;
}

/* The id of the Location (mapping, addr, lines[n]), lines at the end of
 * w->lines (kept there when the Location is new). */
static pk_status intern_loc(pw *w, uint32_t mapping, uint64_t addr, uint32_t n, uint32_t *out)
{
    const pw_line *l = w->lines + w->n_lines;
    uint64_t h = hash_loc(mapping, addr, l, n);
    if ((w->n_locs + 1u) * 2 > w->cap_loc_slots) PK_TRY(grow_slots(w));
    size_t k = h & (w->cap_loc_slots - 1);
    for (; w->loc_slots[k]; k = (k + 1) & (w->cap_loc_slots - 1)) {
        const pw_loc *x = &w->locs[w->loc_slots[k] - 1];
        if (x->hash == h && x->mapping == mapping && x->address == addr && x->n == n &&
            !memcmp(w->lines + x->first, l, n * sizeof *l))
            return *out = w->loc_slots[k], PK_OK;
    }
    if (w->n_locs == UINT32_MAX - 1)
        return pk_fail(PK_ERR_LIMIT, "%s: too many locations", w->path);
    if (pk_vec_reserve((void **)&w->locs, &w->cap_locs, w->n_locs + 1u, sizeof *w->locs))
        return nomem();
    w->locs[w->n_locs] = (pw_loc){h, addr, mapping, (uint32_t)w->n_lines, n};
    w->n_lines += n;
    w->loc_slots[k] = ++w->n_locs;
    *out = w->n_locs;
    return PK_OK;
}

/* Frame contexts from fs[c] down to c into w->chain (outermost first). */
static pk_status frame_chain(pw *w, uint32_t c, uint32_t *n)
{
    const pk_profile *p = w->p;
    uint32_t k = 0;
    for (uint32_t x = c;; x = p->ctx[x].parent) {
        if (k == MAX_FRAME)
            return pk_fail(PK_ERR_LIMIT,
                           "%s: context %u is %u contexts deep inside one function (inlined "
                           "calls, loops, lines): more than a pprof location can list",
                           w->path, c, MAX_FRAME);
        if (pk_vec_reserve((void **)&w->chain, &w->cap_chain, k + 1u, sizeof *w->chain))
            return nomem();
        w->chain[k++] = x;
        if (x == w->fs[c]) break;
    }
    for (uint32_t i = 0; i < k / 2; i++) {
        uint32_t t = w->chain[i];
        w->chain[i] = w->chain[k - 1 - i], w->chain[k - 1 - i] = t;
    }
    *n = k;
    return PK_OK;
}

static void check_file(pw *w, const pk_ctx_rec *x, uint32_t fn)
{
    uint32_t c = w->fn_ctx[fn - 1];
    const pk_ctx_rec *f = c & 0x80000000u ? NULL : &w->p->ctx[c];
    uint32_t file =
        f && f->function < w->p->n_functions ? w->p->functions[f->function].file : PK_NONE;
    if (file != PK_NONE && x->file != file) w->reported_files = 1;
}

/* One context's part of a frame: lines (outer first, at the end of
 * w->lines) and the instruction. */
static pk_status add_step(pw *w, uint32_t c, int first, uint32_t *n, uint32_t *module,
                          uint64_t *addr)
{
    const pk_ctx_rec *x = &w->p->ctx[c];
    pw_line *l = w->lines + w->n_lines;
    uint32_t fn;
    if (x->kind == PK_CTX_INSTRUCTION && (x->flags & PK_CTXF_HAS_POINT))
        *module = x->module, *addr = x->offset;
    if (x->kind == PK_CTX_INSTRUCTION || (x->kind == PK_CTX_FUNCTION && unsymbolized(w, x)))
        return PK_OK;
    if (x->kind == PK_CTX_FUNCTION || !*n) {
        if (x->kind == PK_CTX_FUNCTION && *n && !first && (x->flags & PK_CTXF_HAS_SRCLOC))
            l[*n - 1].line = x->line; /* where the function around it inlined it */
        PK_TRY(function_of(w, c, &fn));
        if (pk_vec_reserve((void **)&w->lines, &w->cap_lines, w->n_lines + *n + 1, sizeof *l))
            return nomem();
        l = w->lines + w->n_lines;
        l[(*n)++] = (pw_line){fn, 0};
    }
    if (x->kind != PK_CTX_FUNCTION && (x->flags & PK_CTXF_HAS_SRCLOC)) {
        l[*n - 1].line = x->line;
        check_file(w, x, l[*n - 1].fn);
    }
    return PK_OK;
}

/* The Location of c's frame as far as c; `line` (if not 0) the line of
 * its innermost function instead (a callee's call site). */
static pk_status frame_loc(pw *w, uint32_t c, uint32_t line, uint32_t *out)
{
    uint32_t k = 0, n = 0, module = PK_NONE, mapping = 0;
    uint64_t addr = 0;
    PK_TRY(frame_chain(w, c, &k));
    if (pk_vec_reserve((void **)&w->lines, &w->cap_lines, w->n_lines + 1, sizeof *w->lines))
        return nomem();
    for (uint32_t i = 0; i < k; i++)
        PK_TRY(add_step(w, w->chain[i], i == 0, &n, &module, &addr));
    pw_line *l = w->lines + w->n_lines;
    if (line && n) l[n - 1].line = line;
    for (uint32_t i = 0; i < n / 2; i++) { /* pprof lists the innermost first */
        pw_line t = l[i];
        l[i] = l[n - 1 - i], l[n - 1 - i] = t;
    }
    if (module != PK_NONE) PK_TRY(mapping_of(w, module, addr, n > 0, &mapping));
    return intern_loc(w, mapping, mapping ? addr : 0, n, out);
}

/* A value of the root or an entry point itself: a function named after it. */
static pk_status named_loc(pw *w, uint32_t c, uint32_t *out)
{
    uint32_t fn;
    PK_TRY(function_of(w, c, &fn));
    if (pk_vec_reserve((void **)&w->lines, &w->cap_lines, w->n_lines + 1, sizeof *w->lines))
        return nomem();
    w->lines[w->n_lines] = (pw_line){fn, 0};
    return intern_loc(w, 0, 0, 1, out);
}

static pk_status push(pw *w, size_t *n, uint32_t loc)
{
    if (pk_vec_reserve((void **)&w->stack, &w->cap_stack, *n + 1, sizeof *w->stack)) return nomem();
    w->stack[(*n)++] = loc;
    return PK_OK;
}

pk_status pw_stack(pw *w, uint32_t c, size_t *n)
{
    const pk_profile *p = w->p;
    *n = 0;
    if (!is_frame(&p->ctx[c])) {
        if (!w->loc_of[c]) PK_TRY(named_loc(w, c, &w->loc_of[c]));
        return push(w, n, w->loc_of[c]);
    }
    if (!w->loc_of[c]) PK_TRY(frame_loc(w, c, 0, &w->loc_of[c]));
    PK_TRY(push(w, n, w->loc_of[c]));
    for (uint32_t f = w->fs[c], par; (par = p->ctx[f].parent) < p->n_ctx && is_frame(&p->ctx[par]);
         f = w->fs[par]) {
        const pk_ctx_rec *x = &p->ctx[f];
        uint32_t site = x->kind == PK_CTX_FUNCTION && (x->flags & PK_CTXF_HAS_SRCLOC) ? x->line : 0;
        if (!site && !w->loc_of[par]) PK_TRY(frame_loc(w, par, 0, &w->loc_of[par]));
        if (!w->call_loc[f]) {
            if (site)
                PK_TRY(frame_loc(w, par, site, &w->call_loc[f]));
            else
                w->call_loc[f] = w->loc_of[par];
        }
        PK_TRY(push(w, n, w->call_loc[f]));
    }
    w->n_frames += *n;
    if (w->n_frames > MAX_FRAMES)
        return pk_fail(PK_ERR_LIMIT,
                       "%s: the samples' stacks would hold more than %llu frames (a pprof "
                       "sample lists its whole stack)",
                       w->path, (unsigned long long)MAX_FRAMES);
    return PK_OK;
}

/* ---- the tables ---- */

static void write_function(pw *w, uint32_t id)
{
    const pk_profile *p = w->p;
    uint32_t c = w->fn_ctx[id - 1] & 0x7fffffffu;
    const pk_ctx_rec *x = &p->ctx[c];
    const pk_function *f = (w->fn_ctx[id - 1] & 0x80000000u) || x->function >= p->n_functions
                               ? NULL
                               : &p->functions[x->function];
    char name[512];
    if (!f || !f->name) pk_context_name(p, c, name, sizeof name);
    int unnamed = f && pk_attribute_find(p, PK_ENTITY_FUNCTION, x->function, PPROF_ATTR_UNNAMED);
    uint64_t n = unnamed ? 0 : pw_str(w, f && f->name ? f->name : name);
    const char *sys =
        f ? pk_attribute_find(p, PK_ENTITY_FUNCTION, x->function, PPROF_ATTR_SYSNAME) : NULL;
    pb_out *o = &w->scratch;
    o->len = 0;
    pb_put_uint(o, 1, id);
    pb_put_uint(o, 2, n);
    pb_put_uint(o, 3, sys ? pw_str(w, sys) : n);
    if (f && f->file < p->n_files) pb_put_uint(o, 4, pw_str(w, p->files[f->file].path));
    if (f && f->line) pb_put_uint(o, 5, f->line);
    pw_emit(w, o, 5);
}

static void write_location(pw *w, uint32_t id)
{
    const pw_loc *l = &w->locs[id - 1];
    pb_out *o = &w->scratch, line = {0};
    o->len = 0;
    pb_put_uint(o, 1, id);
    if (l->mapping) pb_put_uint(o, 2, l->mapping);
    if (l->address) pb_put_uint(o, 3, l->address);
    for (uint32_t i = 0; i < l->n; i++) {
        line.len = 0;
        pb_put_uint(&line, 1, w->lines[l->first + i].fn);
        if (w->lines[l->first + i].line) pb_put_uint(&line, 2, w->lines[l->first + i].line);
        if (line.failed) o->failed = 1;
        pb_put_bytes(o, 4, line.buf, line.len);
    }
    pb_out_free(&line);
    pw_emit(w, o, 4);
}

static void write_mapping(pw *w, uint32_t i)
{
    const pw_map *m = &w->maps[i];
    pb_out *o = &w->scratch;
    o->len = 0;
    pb_put_uint(o, 1, i + 1);
    pb_put_uint(o, 2, m->start);
    pb_put_uint(o, 3, m->made ? m->max_addr + 1 : m->limit);
    pb_put_uint(o, 4, m->offset);
    pb_put_uint(o, 5, pw_str(w, m->path));
    pb_put_uint(o, 6, pw_str(w, m->build));
    pb_put_uint(o, 7, m->has_functions);
    pw_emit(w, o, 3);
}

pk_status pw_write_tables(pw *w)
{
    pk_status st = PK_OK;
    for (uint32_t i = 0; i < w->n_maps && !st; i++)
        if (w->maps[i].used) write_mapping(w, i), st = pw_flush(w, 0);
    for (uint32_t i = 1; i <= w->n_locs && !st; i++)
        write_location(w, i), st = pw_flush(w, 0);
    for (uint32_t i = 1; i <= w->n_fns && !st; i++)
        write_function(w, i), st = pw_flush(w, 0);
    if (!st && w->reported_files)
        st = pk_write_lose(w->opts, w->stats, w->path, "source files of lines",
                           "a pprof line has only a number, in its function's file: lines of "
                           "another file (code from a header inlined without a function of its "
                           "own) are written as lines of the function around them");
    return st;
}
