/*
 * view/server.c — the HTTP side of `profkit view` on libmicrohttpd: one
 * internal polling thread answers every request (the profiles are
 * read-only and the caches single-threaded), GET and HEAD only, exact
 * paths only (/, /app.js, /app.css, /api/<route>), bounded requests, a
 * Host check against DNS rebinding on a loopback bind, and headers that
 * keep a browser from running anything the page did not bring.
 * SIGINT/SIGTERM, waited for with sigwait(), stop it and exit 0.
 */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "view/view.h"

#define CSP "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'"

typedef struct server {
    pkv_session *s;
    int loopback;
    /* the session's caches are single-threaded: the first screen's warm-up
     * (below) and the server's thread take turns */
    pthread_mutex_t lock;
    /* requests waiting for the lock: the warm-up lets them go first (a
     * mutex is not fair, and the warm-up would take it back between its
     * steps, making the page's first request wait for all of them) */
    atomic_int waiting;
} server;

static enum MHD_Result send_body(struct MHD_Connection *c, int status, const char *type, void *body,
                                 size_t len, int owned)
{
    struct MHD_Response *r =
        owned ? MHD_create_response_from_buffer_with_free_callback(len, body, free)
              : MHD_create_response_from_buffer(len, body, MHD_RESPMEM_PERSISTENT);
    if (!r) {
        if (owned) free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Content-Security-Policy", CSP);
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, "X-Frame-Options", "DENY");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED) MHD_add_response_header(r, "Allow", "GET, HEAD");
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result send_error(struct MHD_Connection *c, int status, const char *why)
{
    pkv_response r;
    pkv_error_doc(&r, status, why);
    if (!r.body) return MHD_NO;
    return send_body(c, status, "application/json; charset=utf-8", r.body, r.len, 1);
}

/* On a loopback bind, a page of another site whose name an attacker
 * points at 127.0.0.1 (DNS rebinding) must not read the profile: the
 * Host header has to name a loopback host (any port: SSH forwards may
 * change it). */
static int host_ok(struct MHD_Connection *c, const server *sv)
{
    if (!sv->loopback) return 1;
    const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
    if (!host) return 1; /* HTTP/1.0 without Host: no browser sends that */
    size_t n = strlen(host);
    const char *colon = host[0] == '[' ? strchr(host, ']') : strrchr(host, ':');
    if (host[0] == '[')
        n = colon ? (size_t)(colon - host) + 1 : n;
    else if (colon)
        n = (size_t)(colon - host);
    return (n == 9 && strncasecmp(host, "localhost", 9) == 0) ||
           (n == 5 && strncmp(host, "[::1]", 5) == 0) ||
           (n >= 9 && n <= 15 && strncmp(host, "127.", 4) == 0 && strspn(host, "0123456789.") >= n);
}

static enum MHD_Result add_param(void *cls, enum MHD_ValueKind kind, const char *key,
                                 size_t key_size, const char *value, size_t value_size)
{
    (void)kind;
    pkv_query *q = cls;
    if (strlen(key) != key_size) {
        pkv_query_fail(q, "a NUL byte in a parameter name", NULL);
        return MHD_NO;
    }
    if (!value) { /* "?depth": no request the page makes */
        pkv_query_fail(q, "a parameter without '=' and value:", key);
        return MHD_NO;
    }
    pkv_query_add(q, key, value, value_size);
    return q->error ? MHD_NO : MHD_YES;
}

static enum MHD_Result api(struct MHD_Connection *c, server *sv, const char *route)
{
    pkv_query q = {0};
    MHD_get_connection_values_n(c, MHD_GET_ARGUMENT_KIND, add_param, &q);
    pkv_response r;
    atomic_fetch_add(&sv->waiting, 1);
    pthread_mutex_lock(&sv->lock);
    atomic_fetch_sub(&sv->waiting, 1);
    int failed = pkv_api(sv->s, route, &q, &r);
    pthread_mutex_unlock(&sv->lock);
    pkv_query_free(&q);
    if (failed) return MHD_NO;
    return send_body(c, r.status, "application/json; charset=utf-8", r.body, r.len, 1);
}

static enum MHD_Result asset(struct MHD_Connection *c, server *sv, const char *name)
{
    const char *data;
    size_t len;
    int owned;
    if (!pkv_asset(sv->s->assets_dir, name, &data, &len, &owned))
        return send_error(c, 500, "the page's asset cannot be read");
    return send_body(c, 200, pkv_asset_type(name), (void *)data, len, owned);
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **state)
{
    (void)version, (void)upload;
    server *sv = cls;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return send_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD");
    if (!*state) { /* first call: headers only; a GET with a body is refused below */
        *state = sv;
        return MHD_YES;
    }
    if (*upload_size) return send_error(c, 400, "a GET request has no body");
    if (!host_ok(c, sv)) return send_error(c, 403, "the Host header names no loopback host");
    if (strcmp(url, "/") == 0) return asset(c, sv, "index.html");
    if (strcmp(url, "/app.js") == 0) return asset(c, sv, "app.js");
    if (strcmp(url, "/app.css") == 0) return asset(c, sv, "app.css");
    if (strncmp(url, "/api/", 5) == 0 && pkv_route_known(url + 5)) return api(c, sv, url + 5);
    return send_error(c, 404, "no such page");
}

/* The address to listen on, numeric or a name that resolves. */
static int resolve(const char *bind, unsigned port, struct sockaddr_storage *ss, int *loopback)
{
    struct addrinfo hints = {.ai_flags = AI_PASSIVE, .ai_socktype = SOCK_STREAM}, *ai;
    char service[16];
    snprintf(service, sizeof service, "%u", port);
    int rc = getaddrinfo(bind, service, &hints, &ai);
    if (rc) {
        fprintf(stderr, "profkit view: cannot use --bind %s: %s\n", pkv_text(bind),
                gai_strerror(rc));
        return 0;
    }
    memcpy(ss, ai->ai_addr, ai->ai_addrlen);
    freeaddrinfo(ai);
    if (ss->ss_family == AF_INET)
        *loopback = (ntohl(((struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
    else
        *loopback = memcmp(&((struct sockaddr_in6 *)ss)->sin6_addr, &in6addr_loopback,
                           sizeof in6addr_loopback) == 0;
    return 1;
}

/* The daemon on a socket listening already (listen.c: a busy port is
 * said there, in one line). */
static struct MHD_Daemon *start(server *sv, const struct sockaddr_storage *ss, int fd)
{
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
    if (ss->ss_family == AF_INET6) flags |= MHD_USE_IPv6;
    return MHD_start_daemon(flags, 0, NULL, NULL, answer, sv, MHD_OPTION_LISTEN_SOCKET, fd,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)64,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)32,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)64 * 1024, MHD_OPTION_END);
}

/* One answer computed and dropped: what it leaves in the caches is what counts. */
static void warm(server *sv, const char *route, const char *k1, const char *v1, const char *k2,
                 const char *v2)
{
    pkv_query q = {0};
    if (k1) pkv_query_add(&q, k1, v1, strlen(v1));
    if (k2) pkv_query_add(&q, k2, v2, strlen(v2));
    pkv_response r = {0};
    pthread_mutex_lock(&sv->lock);
    while (atomic_load(&sv->waiting) > 0) {
        pthread_mutex_unlock(&sv->lock);
        sched_yield();
        pthread_mutex_lock(&sv->lock);
    }
    (void)pkv_api(sv->s, route, &q, &r);
    pthread_mutex_unlock(&sv->lock);
    free(r.body);
    pkv_query_free(&q);
}

/* The page's first screen (docs/view-panes.md: the profile's metrics and
 * totals, the flat table of every metric, the tree two levels deep, the
 * flame graph), computed while the
 * browser loads the page: on a 10^6-context profile that is most of a
 * second the first requests would otherwise wait for. A request that
 * comes earlier waits for the lock, then finds its answer cached. */
static void *warm_first_screen(void *arg)
{
    server *sv = arg;
    const pkv_side *sd = &sv->s->side[0];
    pk_metric met;
    if (pk_metric_get(sd->p, sd->default_metric, &met) || !met.name) return NULL;
    char *all = pkv_all_metrics(sd);
    warm(sv, "profile", NULL, NULL, NULL, NULL); /* every metric's total: a pass over all values */
    /* the flat table first: it computes every metric's values at once on
     * worker threads, and the tree then finds its metric's cached */
    if (all) warm(sv, "flat", "by", "function", "metrics", all);
    warm(sv, "tree", "depth", "2", "metric", met.name);
    warm(sv, "flame", "metric", met.name, "side", "a");
    free(all);
    return NULL;
}

int pkv_serve(pkv_session *s, const char *bind, unsigned port, unsigned flags)
{
    server sv = {s, 0, PTHREAD_MUTEX_INITIALIZER, 0};
    struct sockaddr_storage ss;
    if (!resolve(bind, port, &ss, &sv.loopback)) return PKV_USAGE;
    if (!sv.loopback)
        fprintf(stderr,
                "profkit view: warning: listening on %s, not a loopback address: anyone "
                "who can reach this port can read the profile\n",
                pkv_text(bind));
    /* block the stop signals before the server's thread starts, so it
     * inherits the mask and only sigwait() below receives them */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    unsigned real;
    int fd = pkv_listen(&ss, bind, port, flags & PKV_PORT_GIVEN, &real);
    struct MHD_Daemon *d = fd >= 0 ? start(&sv, &ss, fd) : NULL;
    if (!d) {
        if (fd >= 0) close(fd), fprintf(stderr, "profkit view: the HTTP server did not start\n");
        return PKV_BAD;
    }
    char host[INET6_ADDRSTRLEN] = "127.0.0.1";
    if (ss.ss_family == AF_INET6)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof host);
    else
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof host);
    char url[INET6_ADDRSTRLEN + 32];
    snprintf(url, sizeof url, ss.ss_family == AF_INET6 ? "http://[%s]:%u/" : "http://%s:%u/", host,
             real);
    printf("%s\n", url);
    fflush(stdout);
    if (flags & PKV_OPEN) pkv_open_browser(url);
    fprintf(stderr, "profkit view: serving %s; Ctrl-C stops\n", pkv_text(s->side[0].path));
    pthread_t warmer;
    int warming = pthread_create(&warmer, NULL, warm_first_screen, &sv) == 0;
    int sig;
    sigwait(&stop, &sig);
    MHD_stop_daemon(d);
    if (warming) pthread_join(warmer, NULL);
    fprintf(stderr, "profkit view: stopped\n");
    return PKV_OK;
}
