/*
 * util/dynlib.c — dlopen() and dlsym() for the optional libraries
 * (dynlib.h says which and why).
 */
#include "util/dynlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int pk_dynlib_bind(const char *soname, const char *what, const pk_dynlib_sym *syms, size_t n,
                   char *why, size_t size)
{
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(why, size, "cannot load %s (%s): %s", soname, what, e ? e : "not found");
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        void *fn = dlsym(lib, syms[i].name);
        if (!fn) {
            snprintf(why, size, "%s (%s) has no function %s", soname, what, syms[i].name);
            return 0; /* lib stays open: another user may have it too */
        }
        /* POSIX: a dlsym() result converts to the function pointer it is */
        memcpy(syms[i].slot, &fn, sizeof fn);
    }
    return 1;
}
