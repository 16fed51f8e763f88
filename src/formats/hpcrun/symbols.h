/*
 * formats/hpcrun/symbols.h — function, file and line of an address in a
 * binary, from its ELF symbols and DWARF (elfutils libdw), for hpcrun
 * measurements whose load modules are readable on this machine.
 *
 * Optional: built only when libdw was found (PK_HAVE_LIBDW), and loaded
 * by the first hs_new(); without it (at build or at run time) hs_new()
 * returns NULL and frames stay "module+0xoffset".
 */
#ifndef PK_FORMATS_HPCRUN_SYMBOLS_H
#define PK_FORMATS_HPCRUN_SYMBOLS_H

#include <stdint.h>

typedef struct hs_resolver hs_resolver;

#define HS_MAX_INLINE 16

/* One level of inlining at an address, outermost first: `function` was
 * inlined, called from call_file:call_line of the level above. */
typedef struct hs_inline {
    const char *function, *call_file;
    uint32_t call_line;
} hs_inline;

/* What an address resolves to. Strings stay valid until hs_free(). */
typedef struct hs_frame {
    const char *function; /* symbol (or DWARF) name; NULL if none */
    uint64_t entry;       /* offset of the function's entry in the module */
    const char *decl_file;
    uint32_t decl_line; /* where the function is defined, 0 if unknown */
    const char *file;   /* source line of the address, NULL if unknown */
    uint32_t line;
    uint32_t n_inline;
    hs_inline inl[HS_MAX_INLINE];
} hs_frame;

/* A resolver, or NULL without libdw (or out of memory). */
hs_resolver *hs_new(void);
void hs_free(hs_resolver *r);

/* Resolve `offset` (an address as the load module's ELF file numbers it,
 * what hpcrun records as lm_ip) in module number `module` at `path`.
 * Modules are opened once, on first use; unreadable ones are remembered.
 * 1 and *out filled when a function was found, else 0. */
int hs_lookup(hs_resolver *r, uint32_t module, const char *path, uint64_t offset, hs_frame *out);

#endif
