/*
 * analysis/trace_chrome.h — the parts of the Chrome Trace Event export
 * (trace_chrome.c writes the events, trace_chrome_names.c names the
 * processes and threads and writes the file's fixed parts).
 */
#ifndef PK_ANALYSIS_TRACE_CHROME_H
#define PK_ANALYSIS_TRACE_CHROME_H

#include <stdint.h>
#include <stdio.h>

#include "trace_scan.h"

/* Where the JSON goes: a stream, or nowhere (counting only, for the
 * estimate, then into time bins). Every byte passes through put(). */
typedef struct tc_sink {
    FILE *out; /* NULL: count only */
    char *buf;
    size_t len;
    uint64_t bytes, events;
    int first; /* no item written into traceEvents yet */
    int failed;
    pk_trace_estimate *est;
    uint64_t from, to;
} tc_sink;

void tc_put(tc_sink *s, const char *p, size_t n);
/* s as JSON string content in quotes (NULL: null). */
void tc_put_string(tc_sink *s, const char *str);
/* Before an item of traceEvents: ",\n" after the first. */
void tc_separator(tc_sink *s);

/* A process and a thread of the export. */
typedef struct tc_thread {
    uint32_t pid, tid;
    char *thread;   /* thread_name */
    size_t process; /* index into the process list */
} tc_thread;
typedef struct tc_names {
    tc_thread *threads; /* per selected trace, in trace order */
    size_t n_threads;
    char **processes; /* process_name, per process */
    uint32_t *pids;
    size_t n_processes;
} tc_names;

/* Distinct call paths (trace_chrome_paths.c): a node per path of
 * functions; `of` maps each frame context to its node. */
typedef struct tc_paths {
    uint32_t *of;     /* per context (frames only): its node */
    uint32_t *parent; /* per node: the node of the path without its last frame, UINT32_MAX: none */
    uint32_t *depth;  /* per node: frames on the path */
    pk_index *frame;  /* per node: a frame context with this path (names it) */
    int32_t *text;    /* per node: its dense id for the event texts, -1 not yet */
    size_t n;
} tc_paths;
pk_status tc_paths_build(const ts_paths *paths, tc_paths *out);
void tc_paths_free(tc_paths *cp);

pk_status tc_names_make(const pk_profile *p, const ts_select *s, tc_names *out);
void tc_names_free(tc_names *n);

/* The M events of every process (process_name, process_sort_index). */
void tc_write_processes(tc_sink *s, const tc_names *n);
/* A thread's M events (thread_name, thread_sort_index). */
void tc_write_thread(tc_sink *s, const tc_names *n, size_t i);
/* The end of the file: the array closed, displayTimeUnit, otherData. */
pk_status tc_write_footer(tc_sink *s, const pk_profile *p, const ts_select *sel,
                          const pk_trace_selection *given, const pk_trace_export_options *o,
                          uint64_t origin);

#endif
