/*
 * formats/callgrind/dump.c — `profkit dump` for Callgrind files: the call
 * graph as read (parts, events, functions, self costs, calls, jumps), one
 * record per aggregated entry. Costs of a position that the file repeats
 * are already summed, as every Callgrind reader sums them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgrind.h"
#include "formats/dump_fields.h"
#include "model/callgraph.h"
#include "util/error.h"
#include "util/namelist.h"

const char *const cg_section_names[] = {"parts", "events", "functions", "costs",
                                        "calls", "jumps",  NULL};

typedef struct dumper {
    const pk_profile *p;
    pk_record_fn fn;
    void *user;
    const char *sections;
    pk_dump_fields row; /* n_events + 24 fields */
    int stop;
} dumper;

static int wanted(const dumper *d, const char *section)
{
    return pk_namelist_has(d->sections, section);
}

static void emit(dumper *d, const char *file, const char *section, const char *type)
{
    /* records of the parsed model: no byte offset of their own */
    pk_record r = {file, PK_RECORD_NO_OFFSET, section, type, d->row.n, d->row.f};
    if (!d->stop) d->stop = d->fn(d->user, &r);
    d->row.n = 0;
}

static const char *file_name(const pk_profile *p, uint32_t f)
{
    return f < p->n_files ? p->files[f].path : NULL;
}

static const char *const site_keys[] = {"file", "line", "instr", "bb"};
static const char *const target_keys[] = {"target_file", "target_line", "target_instr",
                                          "target_bb"};

static void put_position(dumper *d, const pk_cg *cg, const char *const *keys, uint32_t file,
                         uint32_t line, uint64_t instr, uint64_t bb)
{
    pk_dump_s(&d->row, keys[0], file_name(d->p, file));
    if (cg->positions & PK_POS_LINE) pk_dump_u(&d->row, keys[1], line);
    if (cg->positions & PK_POS_INSTR) pk_dump_x(&d->row, keys[2], instr);
    if (cg->positions & PK_POS_BB) pk_dump_x(&d->row, keys[3], bb);
}

/* Costs of every event: v[0, n), the rest 0. */
static void put_costs(dumper *d, const pk_cg *cg, pk_cg_row r)
{
    for (uint32_t e = 0, j = 0; e < cg->n_events; e++) {
        double v = j < r.n && pk_cg_row_event(r, j) == e ? r.v[j++] : 0.0;
        if (!cg->events[e].formula) pk_dump_r(&d->row, cg->events[e].name, v);
    }
}

static void dump_parts(dumper *d, const pk_cg *cg)
{
    for (uint32_t i = 0; i < cg->n_parts && !d->stop; i++) {
        const pk_cg_part_rec *r = &cg->parts[i];
        pk_dump_u(&d->row, "index", i), pk_dump_u(&d->row, "number", r->number),
            pk_dump_u(&d->row, "thread", r->thread);
        pk_dump_u(&d->row, "pid", r->pid), pk_dump_s(&d->row, "cmd", r->cmd),
            pk_dump_s(&d->row, "creator", r->creator);
        pk_dump_x(&d->row, "positions", r->positions), pk_dump_u(&d->row, "descs", r->n_descs);
        emit(d, r->file, "parts", "part");
        for (uint32_t k = 0; k < r->n_descs && !d->stop; k++) {
            pk_dump_u(&d->row, "part", i), pk_dump_s(&d->row, "desc", r->descs[k]);
            emit(d, r->file, "parts", "desc");
        }
        for (int t = 0; t < 2 && !d->stop; t++) {
            const double *v = t ? r->totals : r->summary;
            if (!v) continue;
            pk_dump_u(&d->row, "part", i);
            put_costs(d, cg, (pk_cg_row){v, NULL, cg->n_events});
            emit(d, r->file, "parts", t ? "totals" : "summary");
        }
    }
}

static void dump_events(dumper *d, const pk_cg *cg)
{
    for (uint32_t e = 0; e < cg->n_events && !d->stop; e++) {
        const pk_cg_event_rec *ev = &cg->events[e];
        pk_dump_u(&d->row, "index", e), pk_dump_s(&d->row, "name", ev->name),
            pk_dump_s(&d->row, "long_name", ev->long_name);
        pk_dump_s(&d->row, "formula", ev->formula);
        emit(d, d->p->path, "events", "event");
    }
}

static void dump_functions(dumper *d)
{
    const pk_profile *p = d->p;
    for (uint32_t i = 0; i < p->n_functions && !d->stop; i++) {
        const pk_function *f = &p->functions[i];
        pk_dump_u(&d->row, "index", i), pk_dump_s(&d->row, "name", f->name);
        pk_dump_s(&d->row, "object", f->module < p->n_modules ? p->modules[f->module].path : NULL);
        pk_dump_s(&d->row, "file", file_name(p, f->file));
        emit(d, d->p->path, "functions", "function");
    }
}

static void dump_records(dumper *d, const pk_cg *cg)
{
    for (uint64_t i = 0; i < cg->n_self && wanted(d, "costs") && !d->stop; i++) {
        const pk_cg_self_rec *r = &cg->self[i];
        pk_dump_u(&d->row, "part", r->part), pk_dump_u(&d->row, "function", r->fn);
        put_position(d, cg, site_keys, r->file, r->line, r->instr, r->bb);
        put_costs(d, cg, pk_cg_self_row(cg, i));
        emit(d, cg->parts[r->part].file, "costs", "cost");
    }
    for (uint64_t i = 0; i < cg->n_calls && wanted(d, "calls") && !d->stop; i++) {
        const pk_cg_call_rec *r = &cg->calls[i];
        pk_dump_u(&d->row, "part", r->part), pk_dump_u(&d->row, "caller", r->caller),
            pk_dump_u(&d->row, "callee", r->callee);
        pk_dump_r(&d->row, "count", r->count);
        put_position(d, cg, site_keys, r->file, r->line, r->instr, r->bb);
        put_position(d, cg, target_keys, r->to_file, r->to_line, r->to_instr, r->to_bb);
        put_costs(d, cg, pk_cg_call_row(cg, i));
        emit(d, cg->parts[r->part].file, "calls", "call");
    }
    for (uint64_t i = 0; i < cg->n_jumps && wanted(d, "jumps") && !d->stop; i++) {
        const pk_cg_jump_rec *r = &cg->jumps[i];
        pk_dump_u(&d->row, "part", r->part), pk_dump_u(&d->row, "function", r->fn),
            pk_dump_u(&d->row, "target_function", r->to_fn);
        pk_dump_u(&d->row, "conditional", r->conditional);
        pk_dump_r(&d->row, "followed", r->followed), pk_dump_r(&d->row, "executed", r->executed);
        put_position(d, cg, site_keys, r->file, r->line, r->instr, r->bb);
        put_position(d, cg, target_keys, r->to_file, r->to_line, r->to_instr, r->to_bb);
        emit(d, cg->parts[r->part].file, "jumps", "jump");
    }
}

/* Emits the records of an opened profile and frees it. */
static pk_status dump_profile(pk_profile *p, pk_record_fn fn, void *user, const char *sections)
{
    const pk_cg *cg = p->cg;
    size_t cap = (size_t)cg->n_events + 24;
    dumper d = {p, fn, user, sections, {malloc(cap * sizeof(pk_field)), 0, cap}, 0};
    if (!d.row.f) {
        pk_profile_free(p);
        return pk_fail_nomem("dumping");
    }
    if (wanted(&d, "parts")) dump_parts(&d, cg);
    if (wanted(&d, "events")) dump_events(&d, cg);
    if (wanted(&d, "functions")) dump_functions(&d);
    dump_records(&d, cg);
    free(d.row.f);
    pk_profile_free(p);
    return PK_OK;
}

pk_status cg_dump(const char *path, pk_record_fn fn, void *user, const char *sections)
{
    pk_profile *p;
    pk_status st = cg_open(path, NULL, &p);
    return st ? st : dump_profile(p, fn, user, sections);
}

pk_status cg_dump_memory(const char *name, const void *data, uint64_t size, pk_record_fn fn,
                         void *user, const char *sections)
{
    pk_profile *p;
    pk_status st = cg_open_memory(name, data, size, NULL, &p);
    return st ? st : dump_profile(p, fn, user, sections);
}
