/*
 * formats/callgrind/build.c — collecting the call graph while the parser
 * streams: functions, files and objects by name, self costs, call arcs and
 * jumps, with no allocation per line (records go into growing arrays; same
 * keys are merged through hash maps or, for self costs, once at the end).
 */
#include <stdlib.h>
#include <string.h>

#include "cgrd.h"
#include "util/error.h"
#include "util/vec.h"

pk_status cgb_init(cg_build *b, pk_profile *p, int by_function)
{
    memset(b, 0, sizeof *b);
    b->p = p;
    b->by_function = by_function;
    b->cg = calloc(1, sizeof *b->cg);
    b->memo = calloc((size_t)CGB_MEMO_KINDS * CGB_MEMO, sizeof *b->memo);
    if (!b->cg || !b->memo) return pk_fail_nomem("reading a call graph");
    b->cg->by_function = by_function;
    return PK_OK;
}

void cgb_free(cg_build *b)
{
    if (b->bparts)
        for (uint32_t i = 0; i < b->n_bparts; i++) {
            free(b->bparts[i].col_event);
            free(b->bparts[i].summary);
            free(b->bparts[i].totals);
        }
    free(b->bparts);
    pk_cg_free(b->cg);
    free(b->acc_key);
    free(b->acc_cost);
    free(b->raw);
    free(b->raw_cost);
    free(b->memo);
    pk_kmap *maps[] = {&b->fn_map,  &b->file_map, &b->mod_map,
                       &b->acc_map, &b->call_map, &b->jump_map};
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++)
        pk_kmap_free(maps[i]);
    memset(b, 0, sizeof *b);
}

/* Re-lay `n` records of `old` values each as `new_stride` values. */
static int restride(double **arr, size_t *cap, uint64_t n, uint32_t old, uint32_t new_stride)
{
    if (!n || !*arr) return 0;
    double *d = calloc(n, (size_t)new_stride * sizeof *d);
    if (!d) return -1;
    for (uint64_t i = 0; i < n; i++)
        memcpy(d + i * new_stride, *arr + i * old, old * sizeof *d);
    free(*arr);
    *arr = d;
    *cap = n * new_stride;
    return 0;
}

/* A new event after costs were stored: widen every cost array. Rare (a
 * later part naming more events); everything else sees a fixed stride. */
static pk_status widen(cg_build *b, uint32_t n)
{
    pk_cg *cg = b->cg;
    if (restride(&b->raw_cost, &b->cap_raw_cost, b->n_raw, b->stride, n) ||
        restride(&b->acc_cost, &b->cap_acc_cost, b->n_acc, b->stride, n) ||
        restride(&cg->call_cost, &b->cap_call_cost, cg->n_calls, b->stride, n))
        return pk_fail_nomem("adding an event");
    b->stride = n;
    return PK_OK;
}

pk_status cgb_event(cg_build *b, const char *name, uint32_t *out)
{
    pk_cg *cg = b->cg;
    for (uint32_t i = 0; i < cg->n_events; i++)
        if (cg->events[i].name == name) {
            *out = i;
            return PK_OK;
        }
    if (cg->n_events >= 4096) return pk_fail(PK_ERR_FORMAT, "more than 4096 events");
    if (pk_vec_reserve((void **)&cg->events, &b->cap_events, cg->n_events + 1u, sizeof *cg->events))
        return pk_fail_nomem("adding an event");
    cg->events[cg->n_events] = (pk_cg_event_rec){name, NULL, NULL, PK_NONE};
    *out = cg->n_events++;
    return widen(b, cg->n_events);
}

pk_status cgb_new_part(cg_build *b, const char *file, uint32_t *out)
{
    pk_cg *cg = b->cg;
    if (cg->n_parts >= 1u << 20) return pk_fail(PK_ERR_FORMAT, "more than 2^20 parts");
    if (pk_vec_reserve((void **)&cg->parts, &b->cap_parts, cg->n_parts + 1u, sizeof *cg->parts) ||
        pk_vec_reserve((void **)&b->bparts, &b->cap_bparts, cg->n_parts + 1u, sizeof *b->bparts))
        return pk_fail_nomem("adding a part");
    cg->parts[cg->n_parts] =
        (pk_cg_part_rec){.location = cg->n_parts, .number = 1, .thread = 1, .file = file};
    memset(&b->bparts[cg->n_parts], 0, sizeof *b->bparts);
    b->n_bparts = cg->n_parts + 1;
    *out = cg->n_parts++;
    return PK_OK;
}

static cgb_memo *memo_slot(cg_build *b, int kind, uint64_t k0, uint64_t k1, uint64_t k2)
{
    uint64_t h = (k0 * 0x9e3779b97f4a7c15ull) ^ (k1 * 0xc2b2ae3d27d4eb4full) ^ (k2 << 17);
    return &b->memo[(size_t)kind * CGB_MEMO + ((h ^ (h >> 29)) & (CGB_MEMO - 1))];
}

static int memo_get(const cgb_memo *m, uint64_t k0, uint64_t k1, uint64_t k2, uint32_t *out)
{
    if (!m->used || m->k[0] != k0 || m->k[1] != k1 || m->k[2] != k2) return 0;
    *out = m->v;
    return 1;
}

static void memo_put(cgb_memo *m, uint64_t k0, uint64_t k1, uint64_t k2, uint32_t v)
{
    m->k[0] = k0, m->k[1] = k1, m->k[2] = k2, m->v = v, m->used = 1;
}

/* Index of an interned string in a model table (files, modules), through
 * that table's memo; *added says whether the caller must append it. */
static pk_status table_index(cg_build *b, int memo_kind, pk_kmap *map, const char *s,
                             uint32_t count, uint32_t *out, int *added)
{
    cgb_memo *m = memo_slot(b, memo_kind, (uintptr_t)s, 0, 0);
    *added = 0;
    if (memo_get(m, (uintptr_t)s, 0, 0, out)) return PK_OK;
    uint64_t key[PK_KMAP_WORDS] = {(uint64_t)(uintptr_t)s};
    if (pk_kmap_upsert(map, key, count, out, added)) return pk_fail_nomem("indexing names");
    memo_put(m, (uintptr_t)s, 0, 0, *out);
    return PK_OK;
}

pk_status cgb_file(cg_build *b, const char *path, uint32_t *out)
{
    pk_profile *p = b->p;
    int added;
    pk_status st = table_index(b, CGB_MEMO_FILE, &b->file_map, path, p->n_files, out, &added);
    if (st || !added) return st;
    if (pk_vec_reserve((void **)&p->files, &b->cap_file, p->n_files + 1u, sizeof *p->files))
        return pk_fail_nomem("adding a file");
    p->files[p->n_files++] = (pk_file){path, 0};
    return PK_OK;
}

pk_status cgb_module(cg_build *b, const char *path, uint32_t *out)
{
    pk_profile *p = b->p;
    int added;
    pk_status st = table_index(b, CGB_MEMO_MODULE, &b->mod_map, path, p->n_modules, out, &added);
    if (st || !added) return st;
    if (pk_vec_reserve((void **)&p->modules, &b->cap_mod, p->n_modules + 1u, sizeof *p->modules))
        return pk_fail_nomem("adding an object");
    p->modules[p->n_modules++] = (pk_module){path};
    return PK_OK;
}

pk_status cgb_function(cg_build *b, const char *name, uint32_t module, uint32_t file, uint32_t *out)
{
    pk_profile *p = b->p;
    cgb_memo *m = memo_slot(b, CGB_MEMO_FUNCTION, (uintptr_t)name, module, file);
    if (memo_get(m, (uintptr_t)name, module, file, out)) return PK_OK;
    uint64_t key[PK_KMAP_WORDS] = {(uint64_t)(uintptr_t)name, module, file};
    int added;
    if (pk_kmap_upsert(&b->fn_map, key, p->n_functions, out, &added))
        return pk_fail_nomem("indexing functions");
    memo_put(m, (uintptr_t)name, module, file, *out);
    if (!added) return PK_OK;
    if (p->n_functions == PK_NONE - 1) return pk_fail(PK_ERR_FORMAT, "too many functions");
    if (pk_vec_reserve((void **)&p->functions, &b->cap_fn, p->n_functions + 1u,
                       sizeof *p->functions))
        return pk_fail_nomem("adding a function");
    p->functions[p->n_functions++] = (pk_function){name, module, 0, file, 0};
    return PK_OK;
}

pk_status cgb_acc(cg_build *b, uint32_t part, uint32_t fn, uint32_t file, uint32_t *out)
{
    cgb_memo *m = memo_slot(b, CGB_MEMO_ACC, part, fn, file);
    if (memo_get(m, part, fn, file, out)) return PK_OK;
    uint64_t key[PK_KMAP_WORDS] = {part, fn, file};
    int added;
    if (pk_kmap_upsert(&b->acc_map, key, b->n_acc, out, &added))
        return pk_fail_nomem("indexing functions");
    memo_put(m, part, fn, file, *out);
    if (!added) return PK_OK;
    if (pk_vec_reserve((void **)&b->acc_key, &b->cap_acc, (b->n_acc + 1u) * 3u, sizeof *b->acc_key))
        return pk_fail_nomem("indexing functions");
    if (b->by_function) {
        if (pk_vec_reserve((void **)&b->acc_cost, &b->cap_acc_cost,
                           ((size_t)b->n_acc + 1) * b->stride, sizeof *b->acc_cost))
            return pk_fail_nomem("indexing functions");
        memset(b->acc_cost + (size_t)b->n_acc * b->stride, 0, b->stride * sizeof *b->acc_cost);
    }
    uint32_t *k = b->acc_key + (size_t)b->n_acc * 3;
    k[0] = part, k[1] = fn, k[2] = file;
    b->n_acc++;
    return PK_OK;
}

pk_status cgb_self(cg_build *b, uint32_t acc, uint32_t line, uint64_t instr, uint64_t bb,
                   const double *values)
{
    uint32_t n = b->stride;
    if (b->by_function) {
        double *d = b->acc_cost + (size_t)acc * n;
        for (uint32_t i = 0; i < n; i++)
            d[i] += values[i];
        return PK_OK;
    }
    if (b->n_raw >= UINT32_MAX - 1) return pk_fail(PK_ERR_FORMAT, "more than 2^32 cost lines");
    if (pk_vec_reserve((void **)&b->raw, &b->cap_raw, b->n_raw + 1, sizeof *b->raw) ||
        pk_vec_reserve((void **)&b->raw_cost, &b->cap_raw_cost, (b->n_raw + 1) * n,
                       sizeof *b->raw_cost))
        return pk_fail_nomem("storing costs");
    b->raw[b->n_raw] = (cgb_raw){acc, line, instr, bb};
    memcpy(b->raw_cost + b->n_raw * n, values, n * sizeof *values);
    b->n_raw++;
    return PK_OK;
}

static void call_key(const pk_cg_call_rec *c, int by_function, uint64_t *k)
{
    memset(k, 0, PK_KMAP_WORDS * sizeof *k);
    k[0] = (uint64_t)c->part << 32 | c->caller;
    k[1] = c->callee;
    if (by_function) return;
    k[2] = (uint64_t)c->file << 32 | c->line;
    k[3] = c->instr;
    k[4] = c->bb;
}

pk_status cgb_call(cg_build *b, const pk_cg_call_rec *c, const double *values)
{
    pk_cg *cg = b->cg;
    uint64_t key[PK_KMAP_WORDS];
    call_key(c, b->by_function, key);
    uint32_t i;
    int added;
    if (cg->n_calls >= UINT32_MAX - 1) return pk_fail(PK_ERR_FORMAT, "more than 2^32 call arcs");
    if (pk_kmap_upsert(&b->call_map, key, (uint32_t)cg->n_calls, &i, &added))
        return pk_fail_nomem("storing calls");
    uint32_t n = b->stride;
    if (added) {
        if (pk_vec_reserve((void **)&cg->calls, &b->cap_calls, cg->n_calls + 1,
                           sizeof *cg->calls) ||
            pk_vec_reserve((void **)&cg->call_cost, &b->cap_call_cost, (cg->n_calls + 1) * n,
                           sizeof *cg->call_cost))
            return pk_fail_nomem("storing calls");
        cg->calls[i] = *c;
        cg->calls[i].count = 0;
        if (b->by_function) {
            cg->calls[i].file = cg->calls[i].to_file = PK_NONE;
            cg->calls[i].line = cg->calls[i].to_line = 0;
            cg->calls[i].instr = cg->calls[i].bb = cg->calls[i].to_instr = cg->calls[i].to_bb = 0;
        }
        memset(cg->call_cost + (size_t)i * n, 0, n * sizeof *cg->call_cost);
        cg->n_calls++;
    }
    cg->calls[i].count += c->count;
    double *d = cg->call_cost + (size_t)i * n;
    for (uint32_t e = 0; e < n; e++)
        d[e] += values[e];
    return PK_OK;
}

pk_status cgb_jump(cg_build *b, const pk_cg_jump_rec *j)
{
    pk_cg *cg = b->cg;
    uint64_t key[PK_KMAP_WORDS] = {(uint64_t)j->part << 32 | j->fn,
                                   (uint64_t)j->file << 32 | j->line,
                                   j->instr,
                                   j->bb,
                                   (uint64_t)j->to_fn << 32 | j->to_line,
                                   j->to_instr,
                                   j->to_bb,
                                   (uint64_t)j->to_file << 1 | j->conditional};
    uint32_t i;
    int added;
    if (cg->n_jumps >= UINT32_MAX - 1) return pk_fail(PK_ERR_FORMAT, "more than 2^32 jumps");
    if (pk_kmap_upsert(&b->jump_map, key, (uint32_t)cg->n_jumps, &i, &added))
        return pk_fail_nomem("storing jumps");
    if (added) {
        if (pk_vec_reserve((void **)&cg->jumps, &b->cap_jumps, cg->n_jumps + 1, sizeof *cg->jumps))
            return pk_fail_nomem("storing jumps");
        cg->jumps[i] = *j;
        cg->jumps[i].followed = cg->jumps[i].executed = 0;
        cg->n_jumps++;
    }
    cg->jumps[i].followed += j->followed;
    cg->jumps[i].executed += j->executed;
    return PK_OK;
}
