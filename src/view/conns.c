/*
 * view/conns.c — the server's connections kept within bounds of time and
 * number, so clients that send slowly (or never read) cannot lock the
 * user out. libmicrohttpd's own timeout counts idle time only: a client
 * sending one header line every few seconds kept its connection for
 * ever, and 64 of them filled the server.
 *
 * Every connection is in one of two phases: waiting for a request (from
 * its start, or since its last answer) or being answered. Each phase has
 * a total time limit (PKV_REQUEST_SECONDS, PKV_ANSWER_SECONDS); the main
 * thread's reaper ends connections past it, and a new connection that
 * finds half the server's connections waiting ends the oldest waiting
 * one first, so a browser's request, sent whole at once, is always let
 * in. A connection is ended by shutdown(2) of its socket, which
 * libmicrohttpd then sees as the client going away and closes itself;
 * the table's lock is held from the check to the shutdown, and the
 * closing notice (which libmicrohttpd gives before it closes the socket)
 * takes the same lock, so a socket number is never one reused by another
 * connection.
 */
#define _POSIX_C_SOURCE 200809L
#include <sys/socket.h>
#include <time.h>

#include "view/conns.h"
#include "view/mhd.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static pkv_conn *slot_of(void *socket_context)
{
    return socket_context;
}

/* End the oldest connection of the phase (busy or not) or any (-1). */
static void end_oldest(pkv_conns *t, int busy)
{
    pkv_conn *old = NULL;
    for (size_t i = 0; i < PKV_MAX_CONNS; i++) {
        pkv_conn *c = &t->slot[i];
        if (c->fd >= 0 && !c->ended && (busy < 0 || c->busy == busy) &&
            (!old || c->since < old->since))
            old = c;
    }
    if (old) shutdown(old->fd, SHUT_RDWR), old->ended = 1, t->evicted++;
}

static void started(pkv_conns *t, int fd, void **socket_context)
{
    size_t waiting = 0, open = 0;
    pkv_conn *free_slot = NULL;
    for (size_t i = 0; i < PKV_MAX_CONNS; i++) {
        pkv_conn *c = &t->slot[i];
        if (c->fd < 0 && !free_slot) free_slot = c;
        open += c->fd >= 0 && !c->ended;
        waiting += c->fd >= 0 && !c->ended && !c->busy;
    }
    if (waiting >= PKV_MAX_CONNS / 2)
        end_oldest(t, 0);
    else if (open >= PKV_MAX_CONNS - 1)
        end_oldest(t, -1);
    if (!free_slot) { /* libmicrohttpd's own limit keeps this from happening */
        shutdown(fd, SHUT_RDWR);
        return;
    }
    *free_slot = (pkv_conn){fd, now(), 0, 0};
    *socket_context = free_slot;
}

void pkv_conns_init(pkv_conns *t)
{
    pthread_mutex_init(&t->lock, NULL);
    for (size_t i = 0; i < PKV_MAX_CONNS; i++)
        t->slot[i] = (pkv_conn){-1, 0, 0, 0};
    t->evicted = 0;
}

void pkv_conns_notify(void *cls, struct MHD_Connection *connection, void **socket_context,
                      enum MHD_ConnectionNotificationCode code)
{
    pkv_conns *t = cls;
    pthread_mutex_lock(&t->lock);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            pkv_mhd->get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (ci) started(t, ci->connect_fd, socket_context);
    } else if (*socket_context) {
        slot_of(*socket_context)->fd = -1; /* closed: the socket is about to go */
        *socket_context = NULL;
    }
    pthread_mutex_unlock(&t->lock);
}

/* The phase of `connection` changes: busy (a request came) or not (its
 * answer went). */
static void phase(pkv_conns *t, struct MHD_Connection *connection, int busy)
{
    const union MHD_ConnectionInfo *ci =
        pkv_mhd->get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    pthread_mutex_lock(&t->lock);
    if (ci && ci->socket_context) {
        pkv_conn *c = slot_of(ci->socket_context);
        c->busy = busy, c->since = now();
    }
    pthread_mutex_unlock(&t->lock);
}

void pkv_conns_request(pkv_conns *t, struct MHD_Connection *connection)
{
    phase(t, connection, 1);
}

void pkv_conns_completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)con_cls, (void)toe;
    phase(cls, connection, 0);
}

void pkv_conns_reap(pkv_conns *t)
{
    double at = now();
    pthread_mutex_lock(&t->lock);
    for (size_t i = 0; i < PKV_MAX_CONNS; i++) {
        pkv_conn *c = &t->slot[i];
        double limit = c->busy ? PKV_ANSWER_SECONDS : PKV_REQUEST_SECONDS;
        if (c->fd >= 0 && !c->ended && at - c->since > limit)
            shutdown(c->fd, SHUT_RDWR), c->ended = 1, t->evicted++;
    }
    pthread_mutex_unlock(&t->lock);
}
