/*
 * view/conns.h — the server's table of connections with their phase and
 * its start, for limits on time and number (conns.c).
 */
#ifndef PK_VIEW_CONNS_H
#define PK_VIEW_CONNS_H

#include <microhttpd.h>
#include <pthread.h>
#include <stddef.h>

#define PKV_MAX_CONNS       128  /* libmicrohttpd's connection limit too */
#define PKV_REQUEST_SECONDS 10.0 /* to send a whole request (or idle between them) */
#define PKV_ANSWER_SECONDS  60.0 /* to compute an answer and read it */

typedef struct pkv_conn {
    int fd;       /* -1: a free slot */
    double since; /* the phase's start, monotonic seconds */
    int busy;     /* a request is being answered */
    int ended;    /* shut down by us, not yet closed by libmicrohttpd */
} pkv_conn;

typedef struct pkv_conns {
    pthread_mutex_t lock;
    pkv_conn slot[PKV_MAX_CONNS];
    size_t evicted; /* connections ended for their time or to make room */
} pkv_conns;

void pkv_conns_init(pkv_conns *t);
/* MHD_OPTION_NOTIFY_CONNECTION (cls: the table). */
void pkv_conns_notify(void *cls, struct MHD_Connection *connection, void **socket_context,
                      enum MHD_ConnectionNotificationCode code);
/* A request's headers arrived (the access handler's first call). */
void pkv_conns_request(pkv_conns *t, struct MHD_Connection *connection);
/* MHD_OPTION_NOTIFY_COMPLETED (cls: the table): the answer went. */
void pkv_conns_completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                         enum MHD_RequestTerminationCode toe);
/* End the connections past their phase's time limit (the main thread,
 * about once a second). */
void pkv_conns_reap(pkv_conns *t);

#endif
