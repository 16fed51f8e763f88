/*
 * profkit/disasm.h — the per-instruction view: a function's machine code,
 * read from the binary its module names and disassembled, each
 * instruction with the cost the profile gives its address (`profkit
 * annotate --asm`, KCachegrind's machine code pane).
 *
 * The costs come from what the profile has: a call graph's cost records
 * with instruction positions (Callgrind --dump-instr=yes), or a calling-
 * context tree's contexts with module offsets (HPCToolkit instruction
 * contexts). The binary is read with libelf, disassembled with Capstone;
 * a build without them returns PK_ERR_UNSUPPORTED.
 */
#ifndef PROFKIT_DISASM_H
#define PROFKIT_DISASM_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The self cost recorded at one instruction address of a module. */
typedef struct pk_instr_cost {
    uint64_t address;
    double self;
} pk_instr_cost;

/* Self costs of `function` per instruction address from the call graph,
 * event `event`, summed over `locations` (NULL: all), sorted by address.
 * PK_ERR_NOT_FOUND when the call graph has no instruction positions
 * (Callgrind without --dump-instr=yes). Free *out with free(). */
PK_API pk_status pk_callgraph_instr_costs(const pk_profile *profile, pk_index function,
                                          size_t event, const pk_index *locations,
                                          size_t n_locations, pk_instr_cost **out, size_t *n);
/* The same from a calling-context tree: `exclusive` per context, summed
 * per offset over the contexts with a module offset whose nearest
 * enclosing function context is of `function`; *module gets their module
 * (the first one's). PK_ERR_NOT_FOUND when no such context exists. */
PK_API pk_status pk_context_instr_costs(const pk_profile *profile, pk_index function,
                                        const double *exclusive, pk_instr_cost **out, size_t *n,
                                        pk_index *module);

/* One disassembled instruction. */
typedef struct pk_asm_insn {
    uint64_t address; /* in the binary */
    uint32_t size;
    char text[200]; /* "add rax, rdx" (Intel syntax) */
    double self;    /* cost at this instruction (0 when none) */
    int costed;     /* the profile has a cost record here */
} pk_asm_insn;

typedef struct pk_asm_listing {
    pk_asm_insn *insns;
    size_t n;
    uint64_t start, size; /* the function's symbol in the binary */
    int64_t bias;         /* profile address = binary address + bias */
    char build_id[41];    /* the binary's GNU build-id (hex), "" when none */
} pk_asm_listing;

/* Disassemble the function `name` (as the profile names it: plain or
 * demangled C++, a "@VERSION" suffix ignored) from the ELF file `binary`,
 * and place `costs` (sorted by address) on its instructions. The
 * addresses are taken as the binary's, else shifted by one bias (the
 * function's lowest costed address at its entry) when that puts every one
 * inside. Errors name the binary: PK_ERR_IO (unreadable), PK_ERR_FORMAT
 * (not ELF), PK_ERR_UNSUPPORTED (an architecture other than x86 and
 * AArch64), PK_ERR_NOT_FOUND (no such symbol: stripped?), PK_ERR_FORMAT
 * when an address with a cost lies outside the function or on no
 * instruction boundary (the binary is not the one profiled). Free with
 * pk_asm_listing_free(). */
PK_API pk_status pk_disassemble_function(const char *binary, const char *name,
                                         const pk_instr_cost *costs, size_t n_costs,
                                         pk_asm_listing *out);
PK_API void pk_asm_listing_free(pk_asm_listing *listing);

#ifdef __cplusplus
}
#endif

#endif /* PROFKIT_DISASM_H */
