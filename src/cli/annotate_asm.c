/*
 * cli/annotate_asm.c — `profkit annotate --asm`: a function's machine
 * code, each instruction with its cost (KCachegrind's machine code pane,
 * `perf annotate`), where the profile has instruction addresses
 * (Callgrind --dump-instr=yes; HPCToolkit instruction contexts) and the
 * binary its module names is readable. The library reads and decodes the
 * binary (profkit/disasm.h); this file picks the costs and prints.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The per-address costs of fn and the binary they are in. */
static pk_status costs_of(const pk_profile *p, pk_index fn, const cli_asm_source *src,
                          pk_instr_cost **c, size_t *n, const char **binary)
{
    pk_function f;
    pk_module m;
    pk_index module = PK_NONE;
    pk_status st = pk_function_get(p, fn, &f);
    if (st) return st;
    if (src->from_callgraph) {
        st = pk_callgraph_instr_costs(p, fn, src->event, src->locations, src->n_locations, c, n);
        module = f.module;
    } else {
        st = pk_context_instr_costs(p, fn, src->excl, c, n, &module);
    }
    *binary = !st && module != PK_NONE && pk_module_get(p, module, &m) == PK_OK ? m.path : NULL;
    return st;
}

static void put_header(const pk_profile *p, pk_index fn, const char *binary,
                       const pk_asm_listing *l, const cli_asm_source *src, double sum)
{
    pk_function f;
    pk_function_get(p, fn, &f);
    printf("assembly of %s in %s (0x%llx, %llu bytes", cli_name(f.name, src->keep_mangled, 0),
           cli_text(binary), (unsigned long long)l->start, (unsigned long long)l->size);
    if (l->build_id[0]) printf("; build-id %s", l->build_id);
    if (l->bias) printf("; the profile's addresses are %+lld from it", (long long)l->bias);
    printf(")\nits instructions' self %s: ", cli_text(src->metric));
    cli_put_number(stdout, sum, src->nf);
    printf(" (%.1f%% of the total)\n", src->total ? 100.0 * sum / src->total : 0.0);
    char head[64];
    pk_format_header(head, sizeof head, "self", src->nf);
    printf("%10s %6s  %10s  %s\n", head, "%", "address", "instruction");
}

int cli_annotate_asm(const pk_profile *p, pk_index fn, const cli_asm_source *src)
{
    pk_instr_cost *c = NULL;
    size_t n = 0;
    const char *binary = NULL;
    pk_asm_listing l = {0};
    pk_status st = costs_of(p, fn, src, &c, &n, &binary);
    if (!st && !binary) {
        free(c);
        fprintf(stderr, "profkit annotate: the profile names no binary for this function\n");
        return CLI_BAD;
    }
    pk_function f;
    pk_function_get(p, fn, &f);
    if (!st) st = pk_disassemble_function(binary, f.name ? f.name : "", c, n, &l);
    free(c);
    if (st) return cli_library_error("annotate", st);
    double sum = 0;
    for (size_t i = 0; i < l.n; i++)
        sum += l.insns[i].self;
    put_header(p, fn, binary, &l, src, sum);
    char cell[48];
    for (size_t i = 0; i < l.n; i++) {
        const pk_asm_insn *x = &l.insns[i];
        if (x->costed)
            pk_format_number(cell, sizeof cell, x->self, src->nf);
        else
            snprintf(cell, sizeof cell, ".");
        if (x->costed && src->total)
            printf("%10s %5.1f%%  %10llx  %s\n", cell, 100.0 * x->self / src->total,
                   (unsigned long long)x->address, x->text);
        else
            printf("%10s %6s  %10llx  %s\n", cell, "", (unsigned long long)x->address, x->text);
    }
    pk_asm_listing_free(&l);
    return CLI_OK;
}
