/*
 * view/view.h — what the parts of `profkit view` share: the opened
 * profiles with their per-view caches (session.c), the parsed query of an
 * API request (query.c), the JSON routes (route_*.c) behind one dispatch
 * function (routes.c) that both the HTTP server (server.c) and the report
 * builder (report.c) call, the canonical URL encoder (urlenc.c) and the
 * page's assets (assets.c).
 *
 * The server answers on one thread (libmicrohttpd's internal polling
 * thread) and the report builder on the main thread, never both at once;
 * the server's warm-up of the first screen takes turns with its thread
 * under one lock (server.c), so the caches themselves need none.
 */
#ifndef PK_VIEW_H
#define PK_VIEW_H

#include <stddef.h>
#include <stdio.h>

#include "profkit/profkit.h"

/* Exit statuses, as every profkit command: ok, bad data, usage. */
enum { PKV_OK = 0, PKV_BAD = 1, PKV_USAGE = 2 };

/* ---- messages.c ---------------------------------------------------- */

/* A name for stderr, escaped (one of a few rotating buffers). */
const char *pkv_text(const char *s);
/* The library's last error on stderr; the exit status it deserves. */
int pkv_library_error(pk_status st);

/* ---- query.c: an API request's parameters ------------------------- */

#define PKV_MAX_PARAMS      16 /* more is a 400 */
#define PKV_MAX_SOURCE_DIRS 64
#define PKV_MAX_PARAM_LEN   4096 /* bytes of one key or value, decoded */

typedef struct pkv_param {
    char *key, *value;
} pkv_param;

typedef struct pkv_query {
    pkv_param p[PKV_MAX_PARAMS];
    size_t n;
    int error;     /* set by pkv_query_add: the request is bad */
    char why[160]; /* what was wrong */
} pkv_query;

/* Add one decoded parameter (copied); a repeated name, too many, too long,
 * an empty name or a NUL byte marks the query bad. */
void pkv_query_add(pkv_query *q, const char *key, const char *value, size_t value_len);
void pkv_query_free(pkv_query *q);
/* The parameters of a URL's query text ("a=1&b=x%20y") added to q. */
void pkv_query_parse(pkv_query *q, const char *text);
/* Mark the query bad: `why`, then `key` quoted when not NULL. */
void pkv_query_fail(pkv_query *q, const char *why, const char *key);
/* The value of `key`, or NULL when absent (an empty value counts as absent,
 * as the page's canonical URLs leave empty values out). */
const char *pkv_get(const pkv_query *q, const char *key);
/* Every parameter of q is one of `allowed` (NULL-terminated); else 0 and
 * why in err. */
int pkv_only(const pkv_query *q, const char *const *allowed, char *err, size_t size);
/* An unsigned decimal in [lo, hi], or `dflt` when absent; 0 and a message
 * when it is something else. */
int pkv_uint(const pkv_query *q, const char *key, unsigned long long lo, unsigned long long hi,
             unsigned long long dflt, unsigned long long *out, char *err, size_t size);
/* A finite decimal number in [lo, hi], or `dflt` when absent. */
int pkv_double(const pkv_query *q, const char *key, double lo, double hi, double dflt, double *out,
               char *err, size_t size);

/* ---- session.c: the profiles and the answers kept ------------------- */

/* A tree answer kept for the page's expansions, by its question; with a
 * --base profile, each node's values in the base (flame graphs). */
typedef struct pkv_answer {
    char *key; /* side and pk_query_key() */
    pk_tree_answer *tree;
    double *base_incl, *base_self; /* per node, or NULL until asked */
    unsigned long long used;
} pkv_answer;

#define PKV_TREE_CACHE 8

/* The page's default threshold, % of the total: the tree's, the flame
 * graph's and the callers' frames'. /api/profile says it (page_threshold),
 * so the page asks what the server prepared at start-up. */
#define PKV_PAGE_THRESHOLD 0.1
/* The same number as the text of a query option ("0.1"). */
#define PKV_PAGE_THRESHOLD_TEXT PKV_TEXT_OF(PKV_PAGE_THRESHOLD)
#define PKV_TEXT_OF(x)          PKV_TEXT_OF_(x)
#define PKV_TEXT_OF_(x)         #x

typedef struct pkv_side {
    pk_profile *p;
    pk_session *qs; /* the library's answers and their caches */
    const char *path;
    pk_index default_metric;
} pkv_side;

typedef struct pkv_session {
    pkv_side side[2]; /* a = PATH, b = --base (p NULL without) */
    pkv_answer *trees[PKV_TREE_CACHE];
    char *profile_doc; /* /api/profile, made once (the profiles never change) */
    size_t profile_len;
    pk_trace_facts *trace_facts; /* side a: each trace's facts, found once (route_trace.c) */
    unsigned long long clock;
    const char *assets_dir; /* PROFKIT_VIEW_ASSETS, or NULL */
    /* /api/source reads only under the profile's src/ and these (-I),
     * unless any_source (--any-source) */
    const char *source_dirs[PKV_MAX_SOURCE_DIRS];
    size_t n_source_dirs;
    char *source_dirs_joined; /* the same, ':'-separated (the query's dirs), or NULL */
    int any_source;
    /* the server's session token (hex), "" with --no-token */
    char token[65];
    /* what source answers could not show (route_source.c): functions
     * without a known source line, answers whose file was not found */
    struct {
        size_t no_line, no_file;
    } gaps;
    /* report mode: what /api/profile says about the pruning */
    int report;
    double threshold;
    char generated[32];
    char report_note[400]; /* what the report left out, in words (report.c) */
} pkv_session;

/* The tree answer of q on a side, kept or computed (evicting the least
 * recently used); NULL with *status and err when the question is bad. */
pkv_answer *pkv_tree_answer(pkv_session *s, int side, const pk_query *q, int *status, char *err,
                            size_t size);
/* e's nodes' values in the --base profile (the same metric by name, q's
 * other options), once; 200 or an error status. */
int pkv_answer_base(pkv_session *s, pkv_answer *e, const pk_query *q, char *err, size_t size);
void pkv_session_free(pkv_session *s);

/* The flat pane's default `metrics`: every metric's name, the default one
 * first, comma-separated (malloc'd; NULL when out of memory; report.c). */
char *pkv_all_metrics(const pkv_side *sd);

/* ---- routes.c: the API ---------------------------------------------- */

/* The common parameters every route reads. */
typedef struct pkv_common {
    int side;
    const pkv_side *sd;
    pk_index metric;
    pk_metric met;
    const char *location;
    pk_across stat;
} pkv_common;

/* A response: HTTP status and the JSON body (malloc'd). */
typedef struct pkv_response {
    int status;
    char *body;
    size_t len;
} pkv_response;

/* Answer /api/<route> with query q: always fills *r (an error document on
 * failure). 0 on success, -1 when out of memory (r->body NULL). */
int pkv_api(pkv_session *s, const char *route, const pkv_query *q, pkv_response *r);
/* The error document {"schema":"profkit.view.error/1","error":why}. */
void pkv_error_doc(pkv_response *r, int status, const char *why);
/* Is `route` (the part after /api/) one the API has? */
int pkv_route_known(const char *route);

/* Route handlers: write the document into j, or return an HTTP error
 * status (400/404) with its message in err. 200 on success. */
typedef int (*pkv_route_fn)(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size);
int pkv_route_tree(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size);
int pkv_route_flame(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size);
int pkv_route_flat(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size);
int pkv_route_locations(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size);
int pkv_route_trace(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size);
int pkv_route_callers(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size);
int pkv_route_callees(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size);
int pkv_route_diff(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size);
int pkv_route_source(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size);
/* Routes that answer with a CLI command's own document, rendered whole
 * onto `out`. */
typedef int (*pkv_raw_fn)(pkv_session *s, const pkv_query *q, FILE *out, char *err, size_t size);
int pkv_route_profile(pkv_session *s, const pkv_query *q, FILE *out, char *err, size_t size);

/* {"schema","metric","unit","total" — the object left open. */
void pkv_json_head(pk_json *j, const char *schema, const pkv_common *c, double total);
/* The tree answer a request asks for: q's options checked against
 * `allowed`, the common ones (side, location, stat, metric) read, the
 * URL's names mapped by `names` (pkv_make_query()), and `node` checked
 * against the tree. NULL with *rc and err on failure. */
pkv_answer *pkv_tree_of(pkv_session *s, const pkv_query *q, const char *const *allowed,
                        const char *const *names, const char *level, pkv_common *c, pk_index *node,
                        pk_query **pq, int *rc, char *err, size_t size);
/* Read side, metric, location, stat (validated); 200, or 400/404 with err. */
int pkv_common_params(pkv_session *s, const pkv_query *q, pkv_common *c, char *err, size_t size);
/* The HTTP status of a library status, its message in err. */
int pkv_status(pk_status st, char *err, size_t size);
/* The question a request asks: its parameters that are query options
 * (after renaming by `names`, pairs of URL name and option name,
 * NULL-terminated; "side" left out), `top` as the default top. A bad
 * value is a 400 with the library's reason. */
int pkv_make_query(const pkv_query *q, const char *const *names, const char *top, pk_query **out,
                   char *err, size_t size);
/* A metric as -m names it (no derived expression) on a side. */
int pkv_metric(const pkv_side *sd, const char *name, pk_index *out, char *err, size_t size);
/* The function name as the profile stores it for `name` as the page sent
 * it (names with invalid UTF-8 reach the page repaired); `name` itself
 * when no function has either. */
const char *pkv_function_name(const pk_profile *p, const char *name);

/* ---- urlenc.c: canonical URLs ---------------------------------------- */

/* Append s to buf as encodeURIComponent writes it; returns the length
 * needed (as snprintf). */
size_t pkv_uri_encode(char *buf, size_t size, const char *s);
/* A name as the page holds it after JSON.parse of the server's answer
 * (invalid UTF-8 replaced as pk_json replaces it), so a report's key for
 * it is the one the page asks for; malloc'd, NULL when out of memory. */
char *pkv_page_string(const char *raw);

/* ---- assets.c ------------------------------------------------------ */

/* The asset `name` (index.html, app.js, app.css): from dir when not NULL
 * (only those names), else embedded. *data malloc'd when *owned. 0 when
 * there is no such asset or it cannot be read. */
int pkv_asset(const char *dir, const char *name, const char **data, size_t *len, int *owned);
const char *pkv_asset_type(const char *name);

/* ---- server.c ------------------------------------------------------ */

enum {
    PKV_TOKEN = 1,      /* a fresh session token in the URL (not --no-token) */
    PKV_PORT_GIVEN = 2, /* --port N: a busy port is an error, not a reason to take the next */
    PKV_OPEN = 4,       /* --open: start a browser on the URL */
};
/* Serve s on bind:port until SIGINT/SIGTERM; prints the URL on stdout
 * (with a fresh session token under PKV_TOKEN). Returns the exit status. */
int pkv_serve(pkv_session *s, const char *bind, unsigned port, unsigned flags);

/* ---- listen.c ------------------------------------------------------ */

struct sockaddr_storage;
/* A socket listening on ss (its address) at `port`; when that port is
 * in use and not `port_given`, the next free one of a few, then any.
 * The port in *bound; -1 with the reason said in one line on stderr. */
int pkv_listen(const struct sockaddr_storage *ss, const char *bind, unsigned port, int port_given,
               unsigned *bound);
/* Start the user's browser ($BROWSER, else xdg-open) on url, or say on
 * stderr that there is none; never waits for it. A `secret` URL (it
 * holds the token) is given as a file:// page of mode 0600 that goes on
 * to it, never on the browser's command line, which any user can read;
 * pkv_open_done() removes that page. */
void pkv_open_browser(const char *url, int secret);
void pkv_open_done(void);

/* ---- report.c ------------------------------------------------------ */

/* Write the page with the data for the report's URLs embedded (pruned at
 * `threshold` % of the total) to `path` as a safe output file. Returns
 * the exit status. */
int pkv_report(pkv_session *s, const char *path, double threshold, int force);
/* In words, what a report's source answers could not show: of `functions`
 * functions, `no_line` without a known source line and `no_file` whose
 * file was not found (a static buffer). */
const char *pkv_report_gaps(size_t functions, size_t no_line, size_t no_file);

#endif
