/*
 * util/dynlib.h — optional shared libraries loaded on first use.
 *
 * A few libraries serve one command each: libdw resolves the addresses of
 * hpcrun measurements, Capstone and libelf disassemble for annotate --asm,
 * libstdc++ demangles C++ names, libmicrohttpd serves `profkit view`.
 * Linked in, the dynamic loader mapped and relocated them for every run:
 * 2.3 ms of CPU for `profkit --version`, three times a run without them
 * (Capstone alone had 1 ms of relocations). Each user names the functions
 * it calls in a table of {name, slot} and binds them once (pthread_once)
 * by the soname the build linked against (CMake finds it); a library that
 * is missing at run time makes that one feature say why, nothing else.
 */
#ifndef PK_UTIL_DYNLIB_H
#define PK_UTIL_DYNLIB_H

#include <stddef.h>

/* One function to bind: its symbol name and where its address goes (a
 * function pointer of the right type, written with memcpy). */
typedef struct pk_dynlib_sym {
    const char *name;
    void *slot;
} pk_dynlib_sym;

/* A member of an API struct for function `fn`, typed as `fn` is declared
 * in the library's header, and its table entry (X-macro lists). */
#define PK_DYNLIB_FIELD(fn)      __typeof__(&fn) fn;
#define PK_DYNLIB_ENTRY(api, fn) {#fn, &(api).fn},

/* Opens `soname` (RTLD_NOW | RTLD_LOCAL; it stays loaded for the
 * process's life) and binds the n functions. 1, or 0 with the reason in
 * why ("cannot load libdw.so.1 (the DWARF reader): ..."); `what` names
 * the library's job in that message. */
int pk_dynlib_bind(const char *soname, const char *what, const pk_dynlib_sym *syms, size_t n,
                   char *why, size_t size);

#endif
