/*
 * formats/callgrind/build.c — collecting the call graph while the parser
 * streams: functions, files and objects by name, self costs, call arcs and
 * jumps, with no allocation per line (records go into growing arrays; same
 * keys are merged through hash maps or, for self costs, once at the end).
 * Costs are kept as the lines wrote them (cgb_rows, rows.c), never as
 * wide as the list of events: memory follows the values the file holds.
 */
#include <stdlib.h>
#include <string.h>

#include "cgrd.h"
#include "util/error.h"
#include "util/vec.h"

pk_status cgb_init(cg_build *b, pk_profile *p, const pk_open_options *opts)
{
    uint32_t open_flags = opts ? opts->flags : 0;
    memset(b, 0, sizeof *b);
    b->p = p;
    b->tree_threshold = opts && opts->tree_threshold > 0 ? opts->tree_threshold : 0;
    b->threads = opts ? opts->threads : 0;
    b->by_function = (open_flags & PK_OPEN_BY_FUNCTION) != 0;
    b->by_line = !b->by_function && (open_flags & PK_OPEN_BY_LINE);
    b->memo_acc = PK_NONE;
    b->tree = !(open_flags & PK_OPEN_NO_TREE);
    b->cg = calloc(1, sizeof *b->cg);
    b->memo = calloc((size_t)CGB_MEMO_KINDS * CGB_MEMO, sizeof *b->memo);
    b->call_memo = b->by_function ? malloc(CGB_CALL_MEMO * sizeof *b->call_memo) : NULL;
    if (!b->cg || !b->memo || (b->by_function && !b->call_memo))
        return pk_fail_nomem("reading a call graph");
    for (size_t i = 0; b->call_memo && i < CGB_CALL_MEMO; i++)
        b->call_memo[i].arc = PK_NONE;
    b->cg->by_function = b->by_function;
    /* the words each map's keys use (see the key[] of each lookup) */
    b->fn_map.words = 3, b->acc_map.words = 3, b->line_map.words = 1;
    b->file_map.words = b->mod_map.words = 1;
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
    cgb_rows_free(&b->acc_rows);
    cgb_rows_free(&b->call_rows);
    cgb_rows_free(&b->line_rows);
    free(b->line_key);
    free(b->call_slots);
    free(b->raw);
    free(b->raw_v);
    free(b->raw_ev);
    free(b->memo);
    free(b->call_memo);
    pk_kmap *maps[] = {&b->fn_map,  &b->file_map, &b->mod_map,
                       &b->acc_map, &b->jump_map, &b->line_map};
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++)
        pk_kmap_free(maps[i]);
    memset(b, 0, sizeof *b);
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
    b->stride = cg->n_events; /* rows keep their lengths: nothing to widen */
    return PK_OK;
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
    uint64_t row;
    if (b->by_function) {
        pk_status st = cgb_rows_new(&b->acc_rows, &row);
        if (st) return st;
    }
    uint32_t *k = b->acc_key + (size_t)b->n_acc * 3;
    k[0] = part, k[1] = fn, k[2] = file;
    b->n_acc++;
    return PK_OK;
}

/* By line: the row of (acc, line), added if new; consecutive cost lines
 * mostly share it (instructions of one line). */
static pk_status line_row(cg_build *b, uint32_t acc, uint32_t line, uint32_t *out)
{
    if (b->memo_acc == acc && b->memo_line == line) return *out = b->memo_idx, PK_OK;
    uint64_t key[PK_KMAP_WORDS] = {(uint64_t)acc << 32 | line};
    int added;
    if (pk_kmap_upsert(&b->line_map, key, b->n_line, out, &added))
        return pk_fail_nomem("storing costs");
    if (added) {
        uint64_t row;
        pk_status st = cgb_rows_new(&b->line_rows, &row);
        if (!st && pk_vec_reserve((void **)&b->line_key, &b->cap_line, 2 * (b->n_line + 1u),
                                  sizeof *b->line_key))
            st = pk_fail_nomem("storing costs");
        if (st) return st;
        b->line_key[2 * b->n_line] = acc, b->line_key[2 * b->n_line + 1] = line;
        b->n_line++;
    }
    b->memo_acc = acc, b->memo_line = line, b->memo_idx = *out;
    return PK_OK;
}

pk_status cgb_self(cg_build *b, uint32_t acc, uint32_t line, uint64_t instr, uint64_t bb,
                   const double *values, const uint32_t *nz, uint32_t k)
{
    if (b->by_function) return cgb_rows_add(&b->acc_rows, acc, values, nz, k);
    if (b->by_line) {
        uint32_t row;
        pk_status st = line_row(b, acc, line, &row);
        return st ? st : cgb_rows_add(&b->line_rows, row, values, nz, k);
    }
    if (b->n_raw >= UINT32_MAX - 1) return pk_fail(PK_ERR_FORMAT, "more than 2^32 cost lines");
    if (pk_vec_reserve((void **)&b->raw, &b->cap_raw, b->n_raw + 1, sizeof *b->raw) ||
        pk_vec_reserve((void **)&b->raw_v, &b->cap_raw_v, b->n_raw_v + k + 1, sizeof *b->raw_v) ||
        pk_vec_reserve((void **)&b->raw_ev, &b->cap_raw_ev, b->n_raw_v + k + 1, sizeof *b->raw_ev))
        return pk_fail_nomem("storing costs");
    b->raw[b->n_raw] = (cgb_raw){instr, bb, acc, line, k, (uint32_t)b->n_raw};
    b->n_raw++;
    for (uint32_t j = 0; j < k; j++)
        b->raw_v[b->n_raw_v + j] = values[nz[j]];
    memcpy(b->raw_ev + b->n_raw_v, nz, k * sizeof *nz);
    b->n_raw_v += k;
    return PK_OK;
}

/* Call arcs are found again through a table of record indexes whose keys
 * are the records themselves: caller, callee and (unless by function) the
 * call site. */
static uint64_t call_hash(const pk_cg_call_rec *c, int by_function)
{
    uint64_t h = ((uint64_t)c->part << 32 | c->caller) * 0x9e3779b97f4a7c15ull;
    h = (h ^ c->callee) * 0xff51afd7ed558ccdull;
    if (!by_function) {
        h = (h ^ ((uint64_t)c->file << 32 | c->line)) * 0xc4ceb9fe1a85ec53ull;
        h = (h ^ c->instr ^ (c->bb << 21)) * 0x9e3779b97f4a7c15ull;
    }
    return h ^ (h >> 31);
}

static int same_call(const pk_cg_call_rec *a, const pk_cg_call_rec *b, int by_function)
{
    if (a->part != b->part || a->caller != b->caller || a->callee != b->callee) return 0;
    return by_function ||
           (a->file == b->file && a->line == b->line && a->instr == b->instr && a->bb == b->bb);
}

/* Slots hold the key's hash above the record index (an empty slot is all
 * ones): a probe reads a record only when the hashes agree. */
#define SLOT(h, i) ((uint64_t)(uint32_t)((h) >> 32) << 32 | (i))

static pk_status grow_call_slots(cg_build *b)
{
    size_t cap = b->cap_call_slots ? 2 * b->cap_call_slots : 1024;
    uint64_t *s = malloc(cap * sizeof *s);
    if (!s) return pk_fail_nomem("storing calls");
    memset(s, 0xff, cap * sizeof *s);
    for (uint64_t i = 0; i < b->cg->n_calls; i++) {
        uint64_t h = call_hash(&b->cg->calls[i], b->by_function);
        size_t j = h & (cap - 1);
        while (s[j] != UINT64_MAX)
            j = (j + 1) & (cap - 1);
        s[j] = SLOT(h, i);
    }
    free(b->call_slots);
    b->call_slots = s, b->cap_call_slots = cap;
    return PK_OK;
}

static pk_status find_call_slot(cg_build *b, const pk_cg_call_rec *c, uint32_t *out);

/* By function, the arcs a stretch of a file uses come back line after
 * line (a function's few callees): a direct-mapped memo of recent arcs,
 * keyed (part, caller, callee) in the slot itself, answers them without
 * touching the arc table, whose probes are cache misses once it holds a
 * million arcs. */
static cgb_call_memo *call_memo(cg_build *b, const pk_cg_call_rec *c)
{
    uint64_t h = ((uint64_t)c->part << 32 | c->caller) * 0x9e3779b97f4a7c15ull;
    h = (h ^ c->callee) * 0xff51afd7ed558ccdull;
    return &b->call_memo[(h ^ (h >> 32)) & (CGB_CALL_MEMO - 1)];
}

/* The arc of `c` (added if new, positions dropped when by function). */
static pk_status find_call(cg_build *b, const pk_cg_call_rec *c, uint32_t *out)
{
    cgb_call_memo *m = b->by_function && b->call_memo ? call_memo(b, c) : NULL;
    if (m && m->arc != PK_NONE && m->part == c->part && m->caller == c->caller &&
        m->callee == c->callee) {
        *out = m->arc;
        return PK_OK;
    }
    pk_status st = find_call_slot(b, c, out);
    if (!st && m) *m = (cgb_call_memo){c->part, c->caller, c->callee, *out};
    return st;
}

/* The arc table's entry for `c` (added if new). */
static pk_status find_call_slot(cg_build *b, const pk_cg_call_rec *c, uint32_t *out)
{
    pk_cg *cg = b->cg;
    if ((cg->n_calls + 1) * 2 > b->cap_call_slots) {
        pk_status st = grow_call_slots(b);
        if (st) return st;
    }
    uint64_t h = call_hash(c, b->by_function);
    size_t mask = b->cap_call_slots - 1, j = h & mask;
    for (uint64_t s; (s = b->call_slots[j]) != UINT64_MAX; j = (j + 1) & mask)
        if (s >> 32 == (uint32_t)(h >> 32) &&
            same_call(&cg->calls[(uint32_t)s], c, b->by_function)) {
            *out = (uint32_t)s;
            return PK_OK;
        }
    if (cg->n_calls >= UINT32_MAX - 1) return pk_fail(PK_ERR_FORMAT, "more than 2^32 call arcs");
    uint64_t row;
    pk_status st = cgb_rows_new(&b->call_rows, &row);
    if (st) return st;
    if (pk_vec_reserve((void **)&cg->calls, &b->cap_calls, cg->n_calls + 1, sizeof *cg->calls))
        return pk_fail_nomem("storing calls");
    pk_cg_call_rec *r = &cg->calls[cg->n_calls];
    *r = *c;
    r->count = 0;
    if (b->by_function) {
        r->file = r->to_file = PK_NONE;
        r->line = r->to_line = 0;
        r->instr = r->bb = r->to_instr = r->to_bb = 0;
    }
    b->call_slots[j] = SLOT(h, cg->n_calls);
    *out = (uint32_t)cg->n_calls++;
    return PK_OK;
}

pk_status cgb_call(cg_build *b, const pk_cg_call_rec *c, const double *values, const uint32_t *nz,
                   uint32_t k)
{
    uint32_t i = 0;
    pk_cg_call_rec at_line;
    if (b->by_line) { /* the call site's line only, and the target's */
        at_line = *c;
        at_line.instr = at_line.bb = at_line.to_instr = at_line.to_bb = 0;
        c = &at_line;
    }
    pk_status st = find_call(b, c, &i);
    if (st) return st;
    b->cg->calls[i].count += c->count;
    return cgb_rows_add(&b->call_rows, i, values, nz, k);
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
