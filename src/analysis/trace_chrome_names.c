/*
 * analysis/trace_chrome_names.c — who is who in a Chrome trace export:
 * one process per rank (the location's identifier tuple without its
 * thread-level parts: THREAD, CORE, GPUDEVICE, GPUCONTEXT, GPUSTREAM),
 * one thread per location, and the fixed parts of the file (metadata
 * events, the closing otherData with the absolute start).
 *
 * pid is the rank's number when every process has a distinct rank (what
 * a user knows it by), else processes are numbered in name order; tid is
 * the location index (unique, and what `profkit threads` numbers).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "trace_chrome.h"
#include "util/error.h"
#include "util/json_string.h"

static const char *const thread_kinds[] = {"THREAD", "CORE", "GPUDEVICE", "GPUCONTEXT",
                                           "GPUSTREAM"};

static int thread_level(const pk_ident *id)
{
    for (size_t k = 0; id->kind_name && k < sizeof thread_kinds / sizeof *thread_kinds; k++)
        if (strcasecmp(id->kind_name, thread_kinds[k]) == 0) return 1;
    return 0;
}

/* "KIND n [0xphys]" parts of the tuple on one side of the split, joined
 * by " / " as pk_location_name() joins them. */
static char *tuple_part(const pk_location *l, int threads, long long *rank)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    int n = 0;
    for (size_t k = 0; k < l->n_ids; k++) {
        const pk_ident *id = &l->ids[k];
        if (thread_level(id) != threads) continue;
        if (id->kind_name && strcasecmp(id->kind_name, "RANK") == 0) *rank = id->logical;
        fprintf(f, "%s%s %u", n++ ? " / " : "", id->kind_name ? id->kind_name : "KIND",
                id->logical);
        if (id->flags & PK_ID_PHYSICAL) fprintf(f, " [0x%llx]", (unsigned long long)id->physical);
    }
    return fclose(f) ? (free(text), NULL) : text;
}

typedef struct named {
    char *process;
    long long rank;
    size_t trace; /* position in the selection */
} named;

static int by_process(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->process, y->process);
    return c ? c : (x->trace > y->trace) - (x->trace < y->trace);
}

/* Name trace i's thread and process. */
static pk_status name_one(const pk_profile *p, const ts_select *s, size_t i, tc_thread *t,
                          named *nm)
{
    pk_trace tr;
    pk_location l = {0};
    pk_trace_get(p, s->traces[i], &tr);
    nm->rank = -1, nm->trace = i;
    int known = tr.location != PK_NONE && !pk_location_get(p, tr.location, &l);
    t->tid = known ? tr.location : (uint32_t)(pk_location_count(p) + s->traces[i]);
    nm->process = known ? tuple_part(&l, 0, &nm->rank) : strdup("unknown locations");
    t->thread = known ? tuple_part(&l, 1, &nm->rank) : NULL;
    if (t->thread && !*t->thread) free(t->thread), t->thread = NULL;
    if (!t->thread) { /* no thread part: the whole name */
        size_t need = pk_location_name(p, tr.location, NULL, 0) + 1;
        if ((t->thread = malloc(need)) != NULL) pk_location_name(p, tr.location, t->thread, need);
    }
    return nm->process && t->thread ? PK_OK : pk_fail_nomem("naming threads");
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* *yes = no two of v[0..n) are equal; 0 when out of memory. */
static int distinct(const uint32_t *v, size_t n, int *yes)
{
    uint32_t *sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!sorted) return 0;
    memcpy(sorted, v, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_u32);
    for (size_t i = 1; i < n; i++)
        if (sorted[i] == sorted[i - 1]) *yes = 0;
    free(sorted);
    return 1;
}

/* Processes in name order; pids the ranks when they tell processes apart. */
static pk_status group(tc_names *n, named *nm)
{
    qsort(nm, n->n_threads, sizeof *nm, by_process);
    n->processes = malloc(n->n_threads * sizeof *n->processes);
    n->pids = malloc(n->n_threads * sizeof *n->pids);
    if (!n->processes || !n->pids) return pk_fail_nomem("naming processes");
    int ranks = 1;
    for (size_t i = 0; i < n->n_threads; i++) {
        if (i == 0 || strcmp(nm[i].process, n->processes[n->n_processes - 1]) != 0) {
            n->processes[n->n_processes] = nm[i].process;
            n->pids[n->n_processes++] = (uint32_t)(nm[i].rank >= 0 ? nm[i].rank : 0);
            ranks &= nm[i].rank >= 0 && nm[i].rank <= UINT32_MAX;
            nm[i].process = NULL; /* now the list's */
        }
        n->threads[nm[i].trace].process = n->n_processes - 1;
    }
    if (ranks && !distinct(n->pids, n->n_processes, &ranks)) return pk_fail_nomem("naming");
    for (size_t i = 0; !ranks && i < n->n_processes; i++)
        n->pids[i] = (uint32_t)i;
    for (size_t i = 0; i < n->n_threads; i++)
        n->threads[i].pid = n->pids[n->threads[i].process];
    return PK_OK;
}

pk_status tc_names_make(const pk_profile *p, const ts_select *s, tc_names *n)
{
    memset(n, 0, sizeof *n);
    n->threads = calloc(s->n_traces ? s->n_traces : 1, sizeof *n->threads);
    named *nm = calloc(s->n_traces ? s->n_traces : 1, sizeof *nm);
    pk_status st = n->threads && nm ? PK_OK : pk_fail_nomem("naming threads");
    n->n_threads = st ? 0 : s->n_traces;
    for (size_t i = 0; !st && i < s->n_traces; i++)
        st = name_one(p, s, i, &n->threads[i], &nm[i]);
    if (!st) st = group(n, nm);
    for (size_t i = 0; nm && i < s->n_traces; i++)
        free(nm[i].process);
    free(nm);
    if (st) tc_names_free(n);
    return st;
}

void tc_names_free(tc_names *n)
{
    for (size_t i = 0; i < n->n_threads; i++)
        free(n->threads[i].thread);
    for (size_t i = 0; i < n->n_processes; i++)
        free(n->processes[i]);
    free(n->threads), free(n->processes), free(n->pids);
    memset(n, 0, sizeof *n);
}

/* ---- the fixed parts of the file ---- */

static void put_text(tc_sink *s, const char *text)
{
    tc_put(s, text, strlen(text));
}

static void put_uint(tc_sink *s, uint64_t v)
{
    char b[24];
    tc_put(s, b, (size_t)snprintf(b, sizeof b, "%llu", (unsigned long long)v));
}

/* {"ph":"M","pid":P[,"tid":T],"name":NAME,"args":{KEY:  — the value follows */
static void meta_head(tc_sink *s, uint32_t pid, const uint32_t *tid, const char *name,
                      const char *key)
{
    tc_separator(s);
    put_text(s, "{\"ph\":\"M\",\"pid\":");
    put_uint(s, pid);
    if (tid) put_text(s, ",\"tid\":"), put_uint(s, *tid);
    put_text(s, ",\"name\":\""), put_text(s, name), put_text(s, "\",\"args\":{\"");
    put_text(s, key), put_text(s, "\":");
}

void tc_write_processes(tc_sink *s, const tc_names *n)
{
    for (size_t i = 0; i < n->n_processes; i++) {
        meta_head(s, n->pids[i], NULL, "process_name", "name");
        tc_put_string(s, n->processes[i]);
        put_text(s, "}}");
        meta_head(s, n->pids[i], NULL, "process_sort_index", "sort_index");
        put_uint(s, n->pids[i]);
        put_text(s, "}}");
    }
}

void tc_write_thread(tc_sink *s, const tc_names *n, size_t i)
{
    const tc_thread *t = &n->threads[i];
    meta_head(s, t->pid, &t->tid, "thread_name", "name");
    tc_put_string(s, t->thread);
    put_text(s, "}}");
    meta_head(s, t->pid, &t->tid, "thread_sort_index", "sort_index");
    put_uint(s, t->tid);
    put_text(s, "}}");
}

static void utc(char *buf, size_t size, uint64_t ns)
{
    time_t secs = (time_t)(ns / 1000000000u);
    struct tm tm;
    char day[32] = "";
    if (gmtime_r(&secs, &tm)) strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, size, "%s.%09lluZ", day, (unsigned long long)(ns % 1000000000u));
}

static void selection_json(pk_json *j, const pk_trace_selection *g)
{
    pk_json_key(j, "selection");
    pk_json_object_begin(j);
    pk_json_key(j, "location"),
        pk_json_string(j, g && g->location && *g->location ? g->location : NULL);
    pk_json_key(j, "from"), pk_json_string(j, g && g->from && *g->from ? g->from : NULL);
    pk_json_key(j, "to"), pk_json_string(j, g && g->to && *g->to ? g->to : NULL);
    pk_json_key(j, "focus"), pk_json_string(j, g && g->focus && *g->focus ? g->focus : NULL);
    pk_json_key(j, "hide"), pk_json_string(j, g && g->hide && *g->hide ? g->hide : NULL);
    pk_json_object_end(j);
}

pk_status tc_write_footer(tc_sink *s, const pk_profile *p, const ts_select *sel,
                          const pk_trace_selection *given, const pk_trace_export_options *o,
                          uint64_t origin)
{
    char *text = NULL, when[64];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return pk_fail_nomem("writing the trace's metadata");
    pk_json j;
    pk_json_init(&j, f, 0);
    pk_json_object_begin(&j);
    pk_json_key(&j, "producer"), pk_json_string(&j, "profkit");
    pk_json_key(&j, "version"), pk_json_string(&j, pk_version());
    pk_json_key(&j, "source"), pk_json_string(&j, o ? o->source : NULL);
    pk_json_key(&j, "ts"), pk_json_string(&j, "microseconds after origin_ns");
    if (sel) {
        utc(when, sizeof when, origin);
        pk_json_key(&j, "origin_ns"), pk_json_uint(&j, origin);
        pk_json_key(&j, "origin_utc"), pk_json_string(&j, when);
        pk_json_key(&j, "from_ns"), pk_json_uint(&j, sel->from);
        pk_json_key(&j, "to_ns"), pk_json_uint(&j, sel->to);
    } else {
        pk_json_key(&j, "note"), pk_json_string(&j, "the profile has no traces");
    }
    selection_json(&j, given);
    pk_json_completeness(&j, p);
    pk_json_object_end(&j);
    pk_status st = pk_json_finish(&j);
    if (fclose(f) && !st) st = pk_fail(PK_ERR_NOMEM, "writing the trace's metadata");
    if (!st) {
        while (len && text[len - 1] == '\n')
            len--;
        put_text(s, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":");
        tc_put(s, text, len);
        put_text(s, "}\n");
    }
    free(text);
    return st;
}
