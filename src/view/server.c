/*
 * view/server.c — the HTTP side of `profkit view` on libmicrohttpd: one
 * internal polling thread answers every request (the profiles are
 * read-only and the caches single-threaded), GET and HEAD only, exact
 * paths only (/, /app.js, /app.css, /api/<route>), bounded requests, a
 * Host check against DNS rebinding on a loopback bind, and headers that
 * keep a browser from running anything the page did not bring.
 *
 * Every request must carry the session's token (issue 32): a random
 * secret in the URL printed at start, which the page's first request
 * turns into a cookie (HttpOnly, SameSite=Strict, so no page of another
 * site sends it), or the X-Profkit-Token header for programs. Without it
 * any process of any user of the machine, and any web page the browser
 * opened (<img src="http://127.0.0.1:8080/api/...">), could read the
 * profile. Connections are kept within limits of time and number
 * (conns.c), and no answer is sent from a profile whose files changed
 * under it (the zeros a truncated mapping reads are not data): 503 then.
 * SIGINT/SIGTERM, waited for with sigtimedwait(), stop it and exit 0.
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
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "view/conns.h"
#include "view/mhd.h"
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
    pkv_conns conns;
    char cookie[32]; /* the token cookie's name: pk_token_PORT (cookies ignore ports) */
    char set_cookie[160];
} server;

static enum MHD_Result send_body(struct MHD_Connection *c, int status, const char *type, void *body,
                                 size_t len, int owned, const char *set_cookie)
{
    struct MHD_Response *r =
        owned ? pkv_mhd->create_response_from_buffer_with_free_callback(len, body, free)
              : pkv_mhd->create_response_from_buffer(len, body, MHD_RESPMEM_PERSISTENT);
    if (!r) {
        if (owned) free(body);
        return MHD_NO;
    }
    pkv_mhd->add_response_header(r, "Content-Type", type);
    pkv_mhd->add_response_header(r, "Cache-Control", "no-store");
    pkv_mhd->add_response_header(r, "X-Content-Type-Options", "nosniff");
    pkv_mhd->add_response_header(r, "Content-Security-Policy", CSP);
    pkv_mhd->add_response_header(r, "Referrer-Policy", "no-referrer");
    pkv_mhd->add_response_header(r, "X-Frame-Options", "DENY");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        pkv_mhd->add_response_header(r, "Allow", "GET, HEAD");
    if (set_cookie) pkv_mhd->add_response_header(r, "Set-Cookie", set_cookie);
    enum MHD_Result ret = pkv_mhd->queue_response(c, (unsigned)status, r);
    pkv_mhd->destroy_response(r);
    return ret;
}

static enum MHD_Result send_error(struct MHD_Connection *c, int status, const char *why)
{
    pkv_response r;
    pkv_error_doc(&r, status, why);
    if (!r.body) return MHD_NO;
    return send_body(c, status, "application/json; charset=utf-8", r.body, r.len, 1, NULL);
}

/* a and b equal, in time that does not depend on where they differ */
static int same_secret(const char *a, const char *b)
{
    if (!a || !b) return 0;
    size_t n = strlen(b);
    if (strlen(a) != n) return 0;
    unsigned char diff = 0;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

/* The request carries the session's token: as the cookie the first page
 * got, as a header, or (the page itself only) as the URL's ?token=. */
static int token_ok(struct MHD_Connection *c, const server *sv, int page, int *from_url)
{
    const char *token = sv->s->token;
    *from_url = 0;
    if (!token[0]) return 1; /* --no-token */
    if (same_secret(pkv_mhd->lookup_connection_value(c, MHD_COOKIE_KIND, sv->cookie), token) ||
        same_secret(pkv_mhd->lookup_connection_value(c, MHD_HEADER_KIND, "X-Profkit-Token"), token))
        return 1;
    *from_url =
        page &&
        same_secret(pkv_mhd->lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token"), token);
    return *from_url;
}

/* Every file of every side still whole: else 0 and why in err. */
static int intact(const pkv_session *s, char *err, size_t size)
{
    for (int i = 0; i < 2; i++)
        if (s->side[i].p && pk_profile_intact(s->side[i].p) != PK_OK) {
            snprintf(err, size,
                     "the profile changed on disk while profkit view served it (%s); nothing is "
                     "answered from it now: restart profkit view to see it as it is",
                     pk_error_last());
            return 0;
        }
    return 1;
}

/* On a loopback bind, a page of another site whose name an attacker
 * points at 127.0.0.1 (DNS rebinding) must not read the profile: the
 * Host header has to name a loopback host (any port: SSH forwards may
 * change it). */
static int host_ok(struct MHD_Connection *c, const server *sv)
{
    if (!sv->loopback) return 1;
    const char *host = pkv_mhd->lookup_connection_value(c, MHD_HEADER_KIND, "Host");
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
    pkv_mhd->get_connection_values_n(c, MHD_GET_ARGUMENT_KIND, add_param, &q);
    pkv_response r;
    char err[1200];
    atomic_fetch_add(&sv->waiting, 1);
    pthread_mutex_lock(&sv->lock);
    atomic_fetch_sub(&sv->waiting, 1);
    /* before (no work on a changed profile) and after (what was read
     * while computing may be zeros) */
    int ok = intact(sv->s, err, sizeof err);
    int failed = ok ? pkv_api(sv->s, route, &q, &r) : 0;
    if (ok && !failed && !intact(sv->s, err, sizeof err)) ok = 0, free(r.body);
    pthread_mutex_unlock(&sv->lock);
    pkv_query_free(&q);
    if (!ok) return send_error(c, 503, err);
    if (failed) return MHD_NO;
    return send_body(c, r.status, "application/json; charset=utf-8", r.body, r.len, 1, NULL);
}

static enum MHD_Result asset(struct MHD_Connection *c, server *sv, const char *name,
                             const char *set_cookie)
{
    const char *data;
    size_t len;
    int owned;
    if (!pkv_asset(sv->s->assets_dir, name, &data, &len, &owned))
        return send_error(c, 500, "the page's asset cannot be read");
    return send_body(c, 200, pkv_asset_type(name), (void *)data, len, owned, set_cookie);
}

/* Where a request is: its headers seen, or a body came that a GET must
 * not have (read and dropped, then answered 400). */
static char headers_seen, body_seen;

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **state)
{
    (void)version, (void)upload;
    server *sv = cls;
    if (!*state) { /* first call: headers only */
        pkv_conns_request(&sv->conns, c);
        *state = &headers_seen;
        return MHD_YES;
    }
    if (*upload_size) { /* a body: dropped as it comes, answered once whole */
        *upload_size = 0;
        *state = &body_seen;
        return MHD_YES;
    }
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return send_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD");
    if (*state == &body_seen) return send_error(c, 400, "a GET request has no body");
    if (!host_ok(c, sv)) return send_error(c, 403, "the Host header names no loopback host");
    int from_url, page = strcmp(url, "/") == 0;
    if (!token_ok(c, sv, page, &from_url))
        return send_error(
            c, 403,
            "this server serves only who has its session token: open the URL "
            "profkit view printed (with ?token=), or send the X-Profkit-Token header");
    if (page) return asset(c, sv, "index.html", from_url ? sv->set_cookie : NULL);
    if (strcmp(url, "/app.js") == 0) return asset(c, sv, "app.js", NULL);
    if (strcmp(url, "/app.css") == 0) return asset(c, sv, "app.css", NULL);
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
    /* no limit per address: every local user connects from 127.0.0.1,
     * so one would let 32 slow connections lock the user out; conns.c
     * bounds time and number instead */
    return pkv_mhd->start_daemon(
        flags, 0, NULL, NULL, answer, sv, MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)PKV_MAX_CONNS, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)PKV_REQUEST_SECONDS,
        MHD_OPTION_NOTIFY_CONNECTION, pkv_conns_notify, &sv->conns, MHD_OPTION_NOTIFY_COMPLETED,
        pkv_conns_completed, &sv->conns, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)64 * 1024,
        MHD_OPTION_END);
}

/* A fresh session token: 32 random bytes as hex. */
static int make_token(pkv_session *s)
{
    unsigned char raw[32];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
        if (n <= 0) return 0;
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(s->token + 2 * i, 3, "%02x", raw[i]);
    return 1;
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
    /* the page's default tree */
    warm(sv, "tree", "threshold", PKV_PAGE_THRESHOLD_TEXT, "metric", met.name);
    warm(sv, "flame", "metric", met.name, "side", "a");
    free(all);
    return NULL;
}

/* Until SIGINT or SIGTERM, ending connections past their time once a
 * second. */
static void wait_for_stop(server *sv, const sigset_t *stop)
{
    struct timespec second = {1, 0};
    for (;;) {
        int sig = sigtimedwait(stop, NULL, &second);
        if (sig == SIGINT || sig == SIGTERM) return;
        pkv_conns_reap(&sv->conns);
    }
}

int pkv_serve(pkv_session *s, const char *bind, unsigned port, unsigned flags)
{
    server sv = {s, 0, PTHREAD_MUTEX_INITIALIZER, 0};
    pkv_conns_init(&sv.conns);
    char why[256];
    if (!pkv_mhd_load(why, sizeof why)) {
        fprintf(stderr, "profkit view: %s\n", why);
        return PKV_BAD;
    }
    struct sockaddr_storage ss;
    if (!resolve(bind, port, &ss, &sv.loopback)) return PKV_USAGE;
    s->token[0] = 0;
    int token = flags & PKV_TOKEN;
    if (token && !make_token(s)) {
        fprintf(stderr, "profkit view: no random bytes for the session token (getrandom)\n");
        return PKV_BAD;
    }
    if (!token)
        fprintf(stderr, "profkit view: warning: --no-token: any process or user on this machine, "
                        "and any web page the browser opens, can read the profile\n");
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
    snprintf(sv.cookie, sizeof sv.cookie, "pk_token_%u", real);
    snprintf(sv.set_cookie, sizeof sv.set_cookie, "%s=%s; HttpOnly; SameSite=Strict; Path=/",
             sv.cookie, s->token);
    char host[INET6_ADDRSTRLEN] = "127.0.0.1";
    if (ss.ss_family == AF_INET6)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof host);
    else
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof host);
    char url[INET6_ADDRSTRLEN + 128];
    snprintf(url, sizeof url,
             ss.ss_family == AF_INET6 ? "http://[%s]:%u/%s%s" : "http://%s:%u/%s%s", host, real,
             s->token[0] ? "?token=" : "", s->token);
    printf("%s\n", url);
    fflush(stdout);
    if (flags & PKV_OPEN) pkv_open_browser(url, s->token[0] != 0);
    fprintf(stderr, "profkit view: serving %s; Ctrl-C stops\n", pkv_text(s->side[0].path));
    pthread_t warmer;
    int warming = pthread_create(&warmer, NULL, warm_first_screen, &sv) == 0;
    wait_for_stop(&sv, &stop);
    pkv_mhd->stop_daemon(d);
    if (warming) pthread_join(warmer, NULL);
    pkv_open_done();
    fprintf(stderr, "profkit view: stopped\n");
    return PKV_OK;
}
