/*
 * view/mhd.h — libmicrohttpd's functions the view calls, loaded with
 * dlopen() when `profkit view` starts serving (mhd.c, util/dynlib.h). Linked into the
 * executable, the library and the ten it pulls in (gnutls and its
 * dependencies) were loaded by every profkit command: about 1 ms of each
 * run's 3.7, for a server most runs never start.
 */
#ifndef PK_VIEW_MHD_H
#define PK_VIEW_MHD_H

#include <microhttpd.h>
#include <stddef.h>

typedef struct pkv_mhd_api {
    struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port,
                                       MHD_AcceptPolicyCallback apc, void *apc_cls,
                                       MHD_AccessHandlerCallback dh, void *dh_cls, ...);
    void (*stop_daemon)(struct MHD_Daemon *daemon);
    struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer,
                                                        enum MHD_ResponseMemoryMode mode);
    struct MHD_Response *(*create_response_from_buffer_with_free_callback)(
        size_t size, void *buffer, MHD_ContentReaderFreeCallback crfc);
    enum MHD_Result (*add_response_header)(struct MHD_Response *response, const char *header,
                                           const char *content);
    enum MHD_Result (*queue_response)(struct MHD_Connection *connection, unsigned int status_code,
                                      struct MHD_Response *response);
    void (*destroy_response)(struct MHD_Response *response);
    const char *(*lookup_connection_value)(struct MHD_Connection *connection,
                                           enum MHD_ValueKind kind, const char *key);
    int (*get_connection_values_n)(struct MHD_Connection *connection, enum MHD_ValueKind kind,
                                   MHD_KeyValueIteratorN iterator, void *iterator_cls);
    const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *connection,
                                                           enum MHD_ConnectionInfoType info_type,
                                                           ...);
} pkv_mhd_api;

/* The functions, once pkv_mhd_load() has succeeded (NULL before). */
extern const pkv_mhd_api *pkv_mhd;

/* Loads the library (once per process; thread-safe). 1, or 0 with why
 * in ERR. */
int pkv_mhd_load(char *err, size_t size);

#endif
