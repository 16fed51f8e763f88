/*
 * view/mhd.c — libmicrohttpd loaded at run time (see mhd.h for why): the
 * library by the soname the build linked against (PKV_MHD_SONAME, from
 * CMake), each function the view calls looked up by name.
 */
#include <pthread.h>
#include <stdio.h>

#include "util/dynlib.h"
#include "view/mhd.h"

#ifndef PKV_MHD_SONAME
#define PKV_MHD_SONAME "libmicrohttpd.so.12"
#endif

const pkv_mhd_api *pkv_mhd;

static pkv_mhd_api api;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char why[256];

/* Each field of api is the function MHD_<field>. */
#define SYM(field) {"MHD_" #field, &api.field},
static const pk_dynlib_sym syms[] = {
    SYM(start_daemon) SYM(stop_daemon) SYM(create_response_from_buffer)
        SYM(create_response_from_buffer_with_free_callback) SYM(add_response_header)
            SYM(queue_response) SYM(destroy_response) SYM(lookup_connection_value)
                SYM(get_connection_values_n) SYM(get_connection_info)};

static void load_once(void)
{
    if (pk_dynlib_bind(PKV_MHD_SONAME, "the HTTP server library", syms,
                       sizeof syms / sizeof syms[0], why, sizeof why))
        pkv_mhd = &api; /* the library stays loaded for the process's life */
}

int pkv_mhd_load(char *err, size_t size)
{
    pthread_once(&once, load_once);
    if (pkv_mhd) return 1;
    snprintf(err, size, "%s", why);
    return 0;
}
