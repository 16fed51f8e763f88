/*
 * util/dynlib.h — optional shared libraries loaded on first use.
 *
 * A few libraries serve one command each: libdw resolves the addresses of
 * hpcrun measurements, Capstone and libelf disassemble for annotate --asm,
 * libstdc++ demangles C++ names, libmicrohttpd serves `profkit view`.
 * Linked in, the dynamic loader mapped and relocated them for every run:
 * 2.3 ms of CPU for `profkit --version`, three times a run without them
 * (Capstone alone had 1 ms of relocations). Each user names the functions
 * it calls in a table of {name, slot} and a pk_dynlib for the library (by
 * the soname the build linked against: CMake finds it), and calls
 * pk_dynlib_load() before using them: the first call binds (once, for
 * every thread), later ones say how that went. A library missing at run
 * time makes that one feature say why, nothing else.
 */
#ifndef PK_UTIL_DYNLIB_H
#define PK_UTIL_DYNLIB_H

#include <pthread.h>
#include <stdatomic.h>
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

/* One library and the functions bound from it (static storage; set up
 * with PK_DYNLIB_INIT). `what` names its job in messages. */
typedef struct pk_dynlib {
    const char *soname, *what;
    const pk_dynlib_sym *syms;
    size_t n;
    pthread_mutex_t lock;
    atomic_int state; /* 0: not tried, 1: bound, -1: failed (why says why) */
    char why[256];
} pk_dynlib;
#define PK_DYNLIB_INIT(soname, what, syms)                                                         \
    {                                                                                              \
        (soname), (what), (syms), sizeof(syms) / sizeof(syms)[0], PTHREAD_MUTEX_INITIALIZER, 0, "" \
    }

/* Binds the library's functions on the first call (RTLD_NOW |
 * RTLD_LOCAL; it stays loaded for the process's life). 1 when they are
 * bound, or 0 with the reason in why ("cannot load libdw.so.1 (the DWARF
 * reader): ..."; why may be NULL). */
int pk_dynlib_load(pk_dynlib *lib, char *why, size_t size);

#endif
