/*
 * view/mhd.c — libmicrohttpd loaded at run time (see mhd.h for why): the
 * library by the soname the build linked against (PKV_MHD_SONAME, from
 * CMake), each function the view calls looked up by name.
 */
#include "view/mhd.h"
#include "util/dynlib.h"

#ifndef PKV_MHD_SONAME
#define PKV_MHD_SONAME "libmicrohttpd.so.12"
#endif

const pkv_mhd_api *pkv_mhd;

static pkv_mhd_api api;

/* Each field of api is the function MHD_<field>. */
#define SYM(field) {"MHD_" #field, &api.field},
/* clang-format off */
static const pk_dynlib_sym syms[] = {
    SYM(start_daemon) SYM(stop_daemon) SYM(create_response_from_buffer)
    SYM(create_response_from_buffer_with_free_callback) SYM(add_response_header)
    SYM(queue_response) SYM(destroy_response) SYM(lookup_connection_value)
    SYM(get_connection_values_n) SYM(get_connection_info)};
/* clang-format on */
static pk_dynlib lib = PK_DYNLIB_INIT(PKV_MHD_SONAME, "the HTTP server library", syms);

int pkv_mhd_load(char *err, size_t size)
{
    if (!pk_dynlib_load(&lib, err, size)) return 0;
    pkv_mhd = &api; /* the library stays loaded for the process's life */
    return 1;
}
