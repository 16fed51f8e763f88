/*
 * view/report.c — `profkit view -o report.html`: the page as one file that
 * works offline. It asks the API the questions the page asks first (the
 * same canonical URLs, docs/view.md) and embeds the answers in
 * <script id="pk-data" type="application/json">, every '<' written
 * \u003c so no name can end the script; the stylesheet and app.js are
 * inlined, and a Content-Security-Policy forbids any network access.
 * Tree nodes and flame frames below the threshold are left out, and the
 * page says so.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "view/view.h"

#define TOP_FUNCTIONS 50

/* One request: the parameters the page sends (they make the key) and
 * the ones the report adds for the answer (not in the key). */
typedef struct req {
    const char *route;
    const char *k[8], *v[8];
    size_t n, n_key;
} req;

typedef struct report {
    pkv_session *s;
    FILE *out;
    size_t n, bytes, dropped;
    size_t functions;        /* whose callers, callees, locations, source it holds */
    size_t no_line, no_file; /* of those: source answers without lines, files not found */
    double threshold;
    int failed;
} report;

static void param(req *r, const char *k, const char *v, int in_key)
{
    if (!v || !*v || r->n == 8) return;
    r->k[r->n] = k, r->v[r->n] = v, r->n++;
    if (in_key) r->n_key = r->n;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The URL PK.url(route, params) makes: sorted names, encoded values. */
static void write_key(FILE *f, const req *r)
{
    const char *names[8];
    for (size_t i = 0; i < r->n_key; i++)
        names[i] = r->k[i];
    qsort(names, r->n_key, sizeof *names, by_name);
    fprintf(f, "\"/api/%s", r->route);
    for (size_t i = 0; i < r->n_key; i++) {
        size_t k = 0;
        while (strcmp(r->k[k], names[i]) != 0)
            k++;
        size_t need = pkv_uri_encode(NULL, 0, r->v[k]);
        char *enc = malloc(need + 1);
        if (!enc) continue;
        pkv_uri_encode(enc, need + 1, r->v[k]);
        fprintf(f, "%c%s=%s", i ? '&' : '?', names[i], enc);
        free(enc);
    }
    fputs("\":", f);
}

/* A JSON text with every '<' as \u003c: '<' occurs only inside strings. */
static void write_escaped(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '<')
            fputs("\\u003c", f);
        else
            fputc(s[i], f);
    }
}

static void ask(report *rp, const req *r)
{
    pkv_query q = {0};
    for (size_t i = 0; i < r->n; i++)
        pkv_query_add(&q, r->k[i], r->v[i], strlen(r->v[i]));
    pkv_response res;
    if (pkv_api(rp->s, r->route, &q, &res) < 0) rp->failed = 1;
    pkv_query_free(&q);
    /* a 404 or 422 is an answer (no source line known for the function;
     * no flame graph of a minimum): the page shows it as served */
    int answer = res.status == 200 || res.status == 404 || res.status == 422;
    if (answer && res.body) {
        if (rp->n++) fputc(',', rp->out);
        write_key(rp->out, r);
        write_escaped(rp->out, res.body, res.len);
        rp->bytes += res.len;
    } else {
        rp->dropped++; /* the page then says "not in this report" */
    }
    free(res.body);
}

const char *pkv_report_gaps(size_t functions, size_t no_line, size_t no_file)
{
    static char text[240];
    int n = snprintf(text, sizeof text,
                     "no source text for %zu of the report's %zu functions:", no_line + no_file,
                     functions);
    if (no_line && n > 0 && (size_t)n < sizeof text)
        n += snprintf(text + n, sizeof text - (size_t)n, " no source line known for %zu%s", no_line,
                      no_file ? "," : "");
    if (no_file && n > 0 && (size_t)n < sizeof text)
        snprintf(text + n, sizeof text - (size_t)n,
                 " source file not read for %zu (-I DIR reads files under DIR, --any-source any "
                 "file the profile names)",
                 no_file);
    return text;
}

static const char *metric_name(const pk_profile *p, pk_index m)
{
    pk_metric met;
    return pk_metric_get(p, m, &met) == PK_OK && met.name ? met.name : "";
}

char *pkv_all_metrics(const pkv_side *sd)
{
    size_t n = pk_metric_count(sd->p), len = strlen(metric_name(sd->p, sd->default_metric)) + 1;
    for (pk_index m = 0; m < n; m++)
        len += strlen(metric_name(sd->p, m)) + 1;
    char *list = malloc(len), *at = list;
    if (!list) return NULL;
    at += sprintf(at, "%s", metric_name(sd->p, sd->default_metric));
    for (pk_index m = 0; m < n; m++)
        if (m != sd->default_metric) at += sprintf(at, ",%s", metric_name(sd->p, m));
    return list;
}

static void ask_flat(report *rp)
{
    static const char *const by[] = {"function", "file", "module"};
    char *list = pkv_all_metrics(&rp->s->side[0]);
    if (!list) return (void)(rp->failed = 1);
    for (size_t i = 0; i < 3; i++) {
        req r = {.route = "flat"};
        param(&r, "by", by[i], 1);
        param(&r, "metrics", list, 1);
        ask(rp, &r);
    }
    free(list);
}

/* Tree roots of every metric; below the default metric's root, every
 * node of at least the threshold that has children, one level each. */
static void ask_tree(report *rp)
{
    const pkv_side *sd = &rp->s->side[0];
    char th[32]; /* the page asks at its threshold, the report's: as JS writes it */
    snprintf(th, sizeof th, "%g", rp->threshold);
    for (pk_index m = 0; m < pk_metric_count(sd->p); m++) {
        req r = {.route = "tree"};
        param(&r, "depth", "2", 1);
        param(&r, "metric", metric_name(sd->p, m), 1);
        param(&r, "threshold", th, 1);
        ask(rp, &r);
    }
    int status;
    char err[256], id[24];
    pk_query *q = NULL;
    pkv_answer *e = NULL;
    if (pk_query_new(&q) == PK_OK &&
        pk_query_set(q, "metric", metric_name(sd->p, sd->default_metric)) == PK_OK &&
        pk_query_set(q, "threshold", th) == PK_OK)
        e = pkv_tree_answer(rp->s, 0, q, &status, err, sizeof err);
    pk_query_free(q);
    if (!e) return;
    const pk_tree_answer *t = e->tree;
    double total = t->head.columns[0].total;
    double cut = (total < 0 ? -total : total) * rp->threshold / 100.0;
    for (pk_index i = 0; i < t->n_nodes; i++) {
        double v = t->nodes[i].inclusive;
        if (!t->shown[i] || t->child_start[i + 1] == t->child_start[i] || (v < 0 ? -v : v) < cut)
            continue;
        snprintf(id, sizeof id, "%u", i);
        req r = {.route = "tree"};
        param(&r, "depth", "1", 1);
        param(&r, "metric", metric_name(sd->p, sd->default_metric), 1);
        param(&r, "node", id, 1);
        param(&r, "threshold", th, 1);
        ask(rp, &r);
    }
}

static void ask_flame(report *rp)
{
    char min[32];
    snprintf(min, sizeof min, "%g", rp->threshold);
    req r = {.route = "flame"};
    param(&r, "metric", metric_name(rp->s->side[0].p, rp->s->side[0].default_metric), 1);
    param(&r, "min", min, 0);
    ask(rp, &r);
}

/* The panes of one selected function: callers, callees, locations, source. */
static void ask_function(report *rp, const char *metric, const char *name)
{
    static const char *const routes[] = {"callers", "callees", "locations", "source"};
    for (size_t i = 0; i < 4; i++) {
        req r = {.route = routes[i]};
        param(&r, "function", name, 1);
        param(&r, "metric", metric, 1);
        ask(rp, &r);
    }
}

/* The top functions of the default metric, by self value (the flat
 * table's first rows): what a reader of the report selects first. */
static void ask_functions(report *rp)
{
    const pkv_side *sd = &rp->s->side[0];
    const char *metric = metric_name(sd->p, sd->default_metric);
    pk_query *q = NULL;
    pk_flat_answer *a = NULL;
    size_t done = 0;
    if (pk_query_new(&q) || pk_query_set(q, "metric", metric) ||
        pk_answer_flat(sd->qs, q, &a) != PK_OK) {
        pk_query_free(q);
        return;
    }
    const char *names[TOP_FUNCTIONS];
    for (size_t i = 0; i < a->n_rows && done < TOP_FUNCTIONS; i++) {
        pk_function fn;
        if (a->rows[i].key >= pk_function_count(sd->p) ||
            pk_function_get(sd->p, (pk_index)a->rows[i].key, &fn) || !fn.name)
            continue;
        names[done++] = fn.name;
    }
    /* every function's per-location values in one pass, not one each */
    pk_session_prefetch_functions(sd->qs, q, names, done);
    size_t no_line = rp->s->gaps.no_line, no_file = rp->s->gaps.no_file;
    rp->functions = done;
    for (size_t i = 0; i < done; i++) {
        char *name = pkv_page_string(names[i]);
        if (!name) {
            rp->failed = 1;
            break;
        }
        ask_function(rp, metric, name);
        free(name);
    }
    rp->no_line = rp->s->gaps.no_line - no_line, rp->no_file = rp->s->gaps.no_file - no_file;
    pk_flat_answer_free(a);
    pk_query_free(q);
}

/* What the report holds and leaves out, in words: the banner's note
 * (/api/profile) and, when source is missing, the builder's one line on
 * stderr. */
static void write_note(report *rp)
{
    pkv_session *s = rp->s;
    int n = snprintf(s->report_note, sizeof s->report_note,
                     "a report: tree nodes and flame frames below %g %% of the total, and "
                     "callers, callees, locations and source beyond the top %zu functions, are "
                     "left out; the location, stat and profile selectors are off (the report "
                     "holds every location combined, by sum)",
                     rp->threshold, rp->functions);
    size_t at = n > 0 && (size_t)n < sizeof s->report_note ? (size_t)n : 0;
    if (at && (rp->no_line || rp->no_file))
        snprintf(s->report_note + at, sizeof s->report_note - at, "; %s",
                 pkv_report_gaps(rp->functions, rp->no_line, rp->no_file));
}

static void write_data(report *rp)
{
    const pkv_side *sd = &rp->s->side[0];
    const char *metric = metric_name(sd->p, sd->default_metric);
    ask_flat(rp);
    ask_tree(rp);
    ask_flame(rp);
    ask_functions(rp);
    /* what the Locations and Source panes show before a selection */
    req l = {.route = "locations"}, src = {.route = "source"};
    param(&l, "metric", metric, 1);
    param(&src, "metric", metric, 1);
    ask(rp, &l);
    ask(rp, &src);
    if (rp->s->side[1].p) {
        req d = {.route = "diff"};
        param(&d, "metric", metric_name(sd->p, sd->default_metric), 1);
        ask(rp, &d);
    }
    if (pk_trace_count(sd->p)) {
        req t = {.route = "trace"};
        ask(rp, &t);
    }
    /* last: its note says what the answers above could not hold */
    write_note(rp);
    req r = {.route = "profile"};
    ask(rp, &r);
}

typedef struct asset {
    const char *data;
    size_t len;
    int owned;
} asset;

static const char link_css[] = "<link rel=\"stylesheet\" href=\"/app.css\">";
static const char script_js[] = "<script src=\"/app.js\"></script>";
static const char csp[] =
    "\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">";

static const char *find(const asset *a, const char *what)
{
    size_t n = strlen(what);
    for (size_t i = 0; i + n <= a->len; i++)
        if (memcmp(a->data + i, what, n) == 0) return a->data + i;
    return NULL;
}

/* An inlined asset must not end its element early. */
static int holds_end_tag(const asset *a, const char *tag)
{
    size_t n = strlen(tag);
    for (size_t i = 0; i + n <= a->len; i++)
        if (strncasecmp(a->data + i, tag, n) == 0) return 1;
    return 0;
}

static int load(const pkv_session *s, const char *name, asset *a)
{
    if (pkv_asset(s->assets_dir, name, &a->data, &a->len, &a->owned)) return 1;
    fprintf(stderr, "profkit view: cannot read the page's %s%s%s\n", name,
            s->assets_dir ? " from " : "", s->assets_dir ? pkv_text(s->assets_dir) : "");
    return 0;
}

/* index.html with the CSP after <head>, the stylesheet and the script
 * inlined, and the data before the script. */
static int write_page(report *rp, const asset *html, const asset *css, const asset *js)
{
    const char *head = find(html, "<head>"), *link = find(html, link_css),
               *script = find(html, script_js);
    if (!head || !link || !script || link < head || script < link ||
        holds_end_tag(css, "</style") || holds_end_tag(js, "</script")) {
        fprintf(stderr, "profkit view: the page's index.html, app.css or app.js cannot be "
                        "inlined (index.html must load /app.css and /app.js)\n");
        return 0;
    }
    FILE *f = rp->out;
    const char *end = html->data + html->len;
    fwrite(html->data, 1, (size_t)(head + 6 - html->data), f);
    fputs(csp, f);
    fwrite(head + 6, 1, (size_t)(link - head - 6), f);
    fputs("<style>\n", f);
    fwrite(css->data, 1, css->len, f);
    fputs("</style>", f);
    fwrite(link + strlen(link_css), 1, (size_t)(script - link - strlen(link_css)), f);
    fputs("<script id=\"pk-data\" type=\"application/json\">{", f);
    write_data(rp);
    fputs("}</script>\n<script>\n", f);
    fwrite(js->data, 1, js->len, f);
    fputs("</script>", f);
    script += strlen(script_js);
    fwrite(script, 1, (size_t)(end - script), f);
    return !rp->failed;
}

static void stamp(pkv_session *s)
{
    const char *epoch = getenv("SOURCE_DATE_EPOCH"); /* reproducible builds' convention */
    time_t now = epoch && *epoch ? (time_t)strtoll(epoch, NULL, 10) : time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(s->generated, sizeof s->generated, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int pkv_report(pkv_session *s, const char *path, double threshold, int force)
{
    asset html = {0}, css = {0}, js = {0};
    int ok = load(s, "index.html", &html) && load(s, "app.css", &css) && load(s, "app.js", &js);
    pk_output *out = NULL;
    pk_status st = ok ? pk_output_open(path, force ? PK_WRITE_FORCE : 0, &out) : PK_OK;
    s->report = 1, s->threshold = threshold;
    stamp(s);
    report rp = {.s = s, .out = out ? pk_output_stream(out) : NULL, .threshold = threshold};
    if (ok && !st) ok = write_page(&rp, &html, &css, &js);
    /* only a report made wholly from intact files is put in place: a file
     * that shrank while it was read gave zeros (the reason is said when
     * the profile is closed, cmd_view.c) */
    int whole = 1;
    for (int i = 0; i < 2; i++)
        whole &= !s->side[i].p || pk_profile_intact(s->side[i].p) == PK_OK;
    if (ok && !st && !whole) {
        fprintf(stderr, "profkit view: %s not written: the profile changed while it was read\n",
                pkv_text(path));
        ok = 0;
    }
    if (ok && !st) st = pk_output_commit(out), out = NULL;
    pk_output_abort(out);
    for (asset *a = &html; a; a = a == &html ? &css : a == &css ? &js : NULL)
        if (a->owned) free((void *)a->data);
    if (st) return pkv_library_error(st);
    if (!ok) return PKV_BAD;
    fprintf(stderr, "profkit view: wrote %s: %zu answers, %.1f MB of data (pruned at %g %%)\n",
            pkv_text(path), rp.n, rp.bytes / 1e6, threshold);
    if (rp.no_line || rp.no_file)
        fprintf(stderr, "profkit view: %s\n",
                pkv_report_gaps(rp.functions, rp.no_line, rp.no_file));
    if (rp.dropped)
        fprintf(stderr, "profkit view: %zu answers failed and are not in the report\n", rp.dropped);
    return PKV_OK;
}
