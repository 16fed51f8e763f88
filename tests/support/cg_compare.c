/*
 * tests/support/cg_compare.c — canonical text of a call graph, and a walk
 * over every call-graph accessor for the robustness tests and the fuzzer.
 */
#define _POSIX_C_SOURCE 200809L
#include "cg_compare.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct lines {
    char **v;
    size_t n, cap;
} lines;

/* Appends one formatted line (malloc'ed, any length). */
static void addf(lines *l, const char *fmt, ...)
{
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *t = malloc((size_t)n + 1);
    vsnprintf(t, (size_t)n + 1, fmt, aq);
    va_end(aq);
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = t;
}

static const char *file_name(const pk_profile *p, pk_index f)
{
    pk_file fi;
    return f != PK_NONE && !pk_file_get(p, f, &fi) ? fi.path : "-";
}

static void function_name(const pk_profile *p, pk_index f, char *buf, size_t n)
{
    pk_function fn;
    pk_module m;
    if (pk_function_get(p, f, &fn)) {
        snprintf(buf, n, "?%u", f);
        return;
    }
    const char *obj = fn.module != PK_NONE && !pk_module_get(p, fn.module, &m) ? m.path : "-";
    snprintf(buf, n, "%s@%s@%s", fn.name ? fn.name : "-", obj, file_name(p, fn.file));
}

/* A row of costs (values, len, events as pk_cg_cost), ne values in all. */
static size_t costs(char *buf, size_t n, const double *v, size_t len, const uint32_t *events,
                    size_t ne)
{
    size_t k = 0;
    for (size_t e = 0; e < ne && k < n; e++)
        k += (size_t)snprintf(buf + k, n - k, " %.17g", pk_cg_value(v, len, events, e));
    return k;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines sorted and joined, one per line (malloc'ed); frees them. */
static char *sorted_text(lines *l)
{
    if (l->n) qsort(l->v, l->n, sizeof *l->v, cmp_str);
    size_t total = 1;
    for (size_t i = 0; i < l->n; i++)
        total += strlen(l->v[i]) + 1;
    char *out = malloc(total), *o = out;
    *o = 0;
    for (size_t i = 0; i < l->n; i++) {
        size_t k = strlen(l->v[i]);
        memcpy(o, l->v[i], k), o += k, *o++ = '\n';
        free(l->v[i]);
    }
    *o = 0;
    free(l->v);
    return out;
}

/* Events (names, long names, formulas) and what each part says of itself. */
static void add_headers(lines *l, const pk_profile *p, const pk_cg_summary *s)
{
    for (size_t e = 0; e < s->n_events; e++) {
        pk_cg_event ev;
        pk_callgraph_event(p, e, &ev);
        addf(l, "event %zu %s [%s] [%s]", e, ev.name, ev.long_name ? ev.long_name : "-",
             ev.formula ? ev.formula : "-");
    }
    for (size_t i = 0; i < s->n_parts; i++) {
        pk_cg_part pt;
        pk_callgraph_part(p, i, &pt);
        addf(l, "part %u number=%u thread=%u pid=%llu cmd=[%s]", pt.location, pt.number, pt.thread,
             (unsigned long long)pt.pid, pt.cmd ? pt.cmd : "-");
        for (size_t d = 0; d < pt.n_descs; d++)
            addf(l, "desc %u %s", pt.location, pt.descs[d]);
    }
}

char *tu_cg_canonical(const pk_profile *p)
{
    pk_cg_summary s;
    if (pk_callgraph_summary(p, &s)) return NULL;
    lines l = {0};
    char f1[4096], f2[4096], c[2048];
    add_headers(&l, p, &s);
    for (uint64_t i = 0; i < s.n_costs; i++) {
        pk_cg_cost x;
        pk_callgraph_cost(p, i, &x);
        function_name(p, x.function, f1, sizeof f1);
        costs(c, sizeof c, x.values, x.n_values, x.events, s.n_events);
        addf(&l, "cost %u %s %s %u %llx %llx%s", x.location, f1, file_name(p, x.pos.file),
             x.pos.line, (unsigned long long)x.pos.instr, (unsigned long long)x.pos.bb, c);
    }
    for (uint64_t i = 0; i < s.n_calls; i++) {
        pk_cg_call x;
        pk_callgraph_call(p, i, &x);
        function_name(p, x.caller, f1, sizeof f1);
        function_name(p, x.callee, f2, sizeof f2);
        costs(c, sizeof c, x.inclusive, x.n_values, x.events, s.n_events);
        addf(&l, "call %u %s %s %s %u %llx %.17g%s", x.location, f1, f2, file_name(p, x.site.file),
             x.site.line, (unsigned long long)x.site.instr, x.count, c);
    }
    for (uint64_t i = 0; i < s.n_jumps; i++) {
        pk_cg_jump x;
        pk_callgraph_jump(p, i, &x);
        function_name(p, x.function, f1, sizeof f1);
        function_name(p, x.target_function, f2, sizeof f2);
        addf(&l, "jump %u %s %s %u %llx -> %u %llx %d %.17g %.17g", x.location, f1, f2, x.from.line,
             (unsigned long long)x.from.instr, x.to.line, (unsigned long long)x.to.instr,
             x.conditional, x.followed, x.executed);
    }
    return sorted_text(&l);
}

/* Records keyed without their part, for the summed canonical text. */
typedef struct keyed {
    char *key;
    double *v; /* a call's count first, then its costs */
    size_t nv;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    return strcmp(((const keyed *)a)->key, ((const keyed *)b)->key);
}

/* v: a row of len values of `events` (NULL: 0, 1, 2...), nv events in all. */
static void add_keyed(keyed **r, size_t *n, size_t *cap, const char *key, double first,
                      int has_first, const double *v, size_t len, const uint32_t *events, size_t nv)
{
    if (*n == *cap) *cap = *cap ? 2 * *cap : 256, *r = realloc(*r, *cap * sizeof **r);
    keyed *k = &(*r)[(*n)++];
    k->key = strdup(key), k->nv = 0;
    k->v = malloc((nv + 1) * sizeof *k->v);
    if (has_first) k->v[k->nv++] = first;
    for (size_t e = 0; e < nv; e++)
        k->v[k->nv++] = pk_cg_value(v, len, events, e);
}

static void keyed_records(const pk_profile *p, const pk_cg_summary *s, keyed **r, size_t *n,
                          size_t *cap)
{
    char f1[4096], f2[4096], key[9000];
    for (uint64_t i = 0; i < s->n_costs; i++) {
        pk_cg_cost x;
        pk_callgraph_cost(p, i, &x);
        function_name(p, x.function, f1, sizeof f1);
        snprintf(key, sizeof key, "cost %s %s %u %llx %llx", f1, file_name(p, x.pos.file),
                 x.pos.line, (unsigned long long)x.pos.instr, (unsigned long long)x.pos.bb);
        add_keyed(r, n, cap, key, 0, 0, x.values, x.n_values, x.events, s->n_events);
    }
    for (uint64_t i = 0; i < s->n_calls; i++) {
        pk_cg_call x;
        pk_callgraph_call(p, i, &x);
        function_name(p, x.caller, f1, sizeof f1), function_name(p, x.callee, f2, sizeof f2);
        snprintf(key, sizeof key, "call %s %s %s %u %llx", f1, f2, file_name(p, x.site.file),
                 x.site.line, (unsigned long long)x.site.instr);
        add_keyed(r, n, cap, key, x.count, 1, x.inclusive, x.n_values, x.events, s->n_events);
    }
    for (uint64_t i = 0; i < s->n_jumps; i++) {
        pk_cg_jump x;
        pk_callgraph_jump(p, i, &x);
        function_name(p, x.function, f1, sizeof f1);
        function_name(p, x.target_function, f2, sizeof f2);
        snprintf(key, sizeof key, "jump %s %s %u %llx -> %u %llx %d", f1, f2, x.from.line,
                 (unsigned long long)x.from.instr, x.to.line, (unsigned long long)x.to.instr,
                 x.conditional);
        double v[2] = {x.followed, x.executed};
        add_keyed(r, n, cap, key, 0, 0, v, 2, NULL, 2);
    }
}

char *tu_cg_canonical_summed(const pk_profile *p)
{
    pk_cg_summary s;
    if (pk_callgraph_summary(p, &s)) return NULL;
    lines l = {0};
    for (size_t e = 0; e < s.n_events; e++) {
        pk_cg_event ev;
        pk_callgraph_event(p, e, &ev);
        addf(&l, "event %zu %s [%s] [%s]", e, ev.name, ev.long_name ? ev.long_name : "-",
             ev.formula ? ev.formula : "-");
    }
    keyed *r = NULL;
    size_t n = 0, cap = 0;
    keyed_records(p, &s, &r, &n, &cap);
    if (n) qsort(r, n, sizeof *r, cmp_keyed);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        for (; j < n && strcmp(r[j].key, r[i].key) == 0; j++)
            for (size_t k = 0; k < r[i].nv; k++)
                r[i].v[k] += r[j].v[k];
        char c[2048];
        costs(c, sizeof c, r[i].v, r[i].nv, NULL, r[i].nv);
        addf(&l, "%s%s", r[i].key, c);
        for (; i < j; i++)
            free(r[i].key), free(r[i].v);
    }
    free(r);
    return sorted_text(&l);
}

static double exercise_costs(const pk_profile *p, const pk_cg_summary *s)
{
    size_t nf = pk_function_count(p);
    pk_cg_function_cost *fc = malloc((nf + 1) * sizeof *fc);
    pk_cg_cycle *cy = malloc((nf + 1) * sizeof *cy);
    double sum = 0;
    for (size_t e = 0; fc && cy && e < s->n_events; e++)
        for (size_t part = 0; part <= s->n_parts; part++) {
            pk_cg_part pt;
            pk_index loc = PK_NONE;
            if (part < s->n_parts) {
                if (pk_callgraph_part(p, part, &pt)) continue;
                loc = pt.location;
            }
            uint32_t n_cycles = 0;
            if (pk_callgraph_function_costs(p, loc, e, fc, cy, &n_cycles)) continue;
            for (size_t f = 0; f < nf; f++)
                sum += fc[f].self + fc[f].inclusive + fc[f].calls;
            for (uint32_t c = 0; c < n_cycles; c++)
                sum += cy[c].inclusive;
        }
    free(fc);
    free(cy);
    return sum;
}

double tu_cg_exercise(const pk_profile *p)
{
    pk_cg_summary s;
    if (pk_callgraph_summary(p, &s)) return 0;
    double sum = 0;
    for (size_t e = 0; e < s.n_events; e++) {
        pk_cg_event ev;
        if (!pk_callgraph_event(p, e, &ev)) sum += strlen(ev.name);
    }
    for (size_t i = 0; i < s.n_parts; i++) {
        pk_cg_part pt;
        if (!pk_callgraph_part(p, i, &pt)) sum += pt.n_descs + (pt.cmd ? strlen(pt.cmd) : 0);
    }
    for (uint64_t i = 0; i < s.n_costs; i++) {
        pk_cg_cost c;
        if (!pk_callgraph_cost(p, i, &c))
            sum += pk_cg_value(c.values, c.n_values, c.events, 0) + c.pos.line;
    }
    for (uint64_t i = 0; i < s.n_calls; i++) {
        pk_cg_call c;
        if (!pk_callgraph_call(p, i, &c))
            sum += c.count + pk_cg_value(c.inclusive, c.n_values, c.events, 0);
    }
    for (uint64_t i = 0; i < s.n_jumps; i++) {
        pk_cg_jump j;
        if (!pk_callgraph_jump(p, i, &j)) sum += j.followed + j.executed;
    }
    return sum + exercise_costs(p, &s);
}

unsigned char *tu_gzip(const void *data, size_t n, size_t *out_n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 9, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK) return NULL;
    size_t cap = deflateBound(&z, (uLong)n) + 64;
    unsigned char *out = malloc(cap);
    z.next_in = (unsigned char *)data, z.avail_in = (uInt)n;
    z.next_out = out, z.avail_out = (uInt)cap;
    int r = out ? deflate(&z, Z_FINISH) : Z_MEM_ERROR;
    *out_n = cap - z.avail_out;
    deflateEnd(&z);
    if (r != Z_STREAM_END) free(out), out = NULL;
    return out;
}

char *tu_cg_reading(const char *name, const void *data, uint64_t size, unsigned threads,
                    uint32_t by)
{
    pk_open_options o = {by | PK_OPEN_NO_TREE, threads, 0};
    pk_profile *p;
    if (pk_profile_open_memory(PK_FORMAT_CALLGRIND, 1, &name, &data, &size, &o, &p))
        return strdup(pk_error_last());
    char *cg = tu_cg_canonical(p);
    size_t len = strlen(cg) + 1;
    for (size_t i = 0; i < pk_diagnostic_count(p); i++) {
        pk_diagnostic d;
        pk_diagnostic_get(p, i, &d);
        len += strlen(d.message) + strlen(d.code) + 64;
    }
    char *out = malloc(len);
    size_t k = (size_t)snprintf(out, len, "%s", cg);
    for (size_t i = 0; i < pk_diagnostic_count(p); i++) {
        pk_diagnostic d;
        pk_diagnostic_get(p, i, &d);
        k += (size_t)snprintf(out + k, len - k, "%d %s %llu %s\n", d.severity, d.code,
                              (unsigned long long)d.offset, d.message);
    }
    free(cg);
    pk_profile_free(p);
    return out;
}
