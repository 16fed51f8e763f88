/*
 * view/mhd.c — libmicrohttpd loaded at run time (see mhd.h for why): the
 * library by the soname the build linked against (PKV_MHD_SONAME, from
 * CMake), each function the view calls looked up by name.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "view/mhd.h"

#ifndef PKV_MHD_SONAME
#define PKV_MHD_SONAME "libmicrohttpd.so.12"
#endif

const pkv_mhd_api *pkv_mhd;

static pkv_mhd_api api;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char why[256];

/* Each field of api is a function pointer named as MHD_<field>. */
#define FIND(field)                                                                                \
    if (!(*(void **)&api.field = dlsym(lib, "MHD_" #field))) {                                     \
        snprintf(why, sizeof why, "%s has no MHD_%s", PKV_MHD_SONAME, #field);                     \
        return;                                                                                    \
    }

static void load_once(void)
{
    void *lib = dlopen(PKV_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, sizeof why, "cannot load the HTTP server library: %s", dlerror());
        return;
    }
    FIND(start_daemon)
    FIND(stop_daemon)
    FIND(create_response_from_buffer)
    FIND(create_response_from_buffer_with_free_callback)
    FIND(add_response_header)
    FIND(queue_response)
    FIND(destroy_response)
    FIND(lookup_connection_value)
    FIND(get_connection_values_n)
    FIND(get_connection_info)
    pkv_mhd = &api; /* the library stays loaded for the process's life */
}

int pkv_mhd_load(char *err, size_t size)
{
    pthread_once(&once, load_once);
    if (pkv_mhd) return 1;
    snprintf(err, size, "%s", why);
    return 0;
}
