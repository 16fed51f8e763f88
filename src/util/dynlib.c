/*
 * util/dynlib.c — dlopen() and dlsym() for the optional libraries
 * (dynlib.h says which and why), once per library for every thread.
 */
#include "util/dynlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* Opens the library and binds every function: 1, or 0 with lib->why. */
static int bind_all(pk_dynlib *lib)
{
    void *h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(lib->why, sizeof lib->why, "cannot load %s (%s): %s", lib->soname, lib->what,
                 e ? e : "not found");
        return 0;
    }
    for (size_t i = 0; i < lib->n; i++) {
        void *fn = dlsym(h, lib->syms[i].name);
        if (!fn) {
            snprintf(lib->why, sizeof lib->why, "%s (%s) has no function %s", lib->soname,
                     lib->what, lib->syms[i].name);
            return 0; /* h stays open: another user may have it too */
        }
        /* POSIX: a dlsym() result converts to the function pointer it is */
        memcpy(lib->syms[i].slot, &fn, sizeof fn);
    }
    return 1;
}

int pk_dynlib_load(pk_dynlib *lib, char *why, size_t size)
{
    int state = atomic_load_explicit(&lib->state, memory_order_acquire);
    if (state == 0) {
        pthread_mutex_lock(&lib->lock);
        state = atomic_load_explicit(&lib->state, memory_order_relaxed);
        if (state == 0) {
            state = bind_all(lib) ? 1 : -1;
            atomic_store_explicit(&lib->state, state, memory_order_release);
        }
        pthread_mutex_unlock(&lib->lock);
    }
    if (state < 0 && why && size) snprintf(why, size, "%s", lib->why);
    return state > 0;
}
