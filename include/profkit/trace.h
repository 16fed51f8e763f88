/*
 * profkit/trace.h — what a profile's traces say, for a chosen part of
 * them: which locations, which time window, which functions; and the
 * same part exported as a Chrome Trace Event file.
 *
 * One selection (pk_trace_selection) is read the same way by the CLI
 * (`profkit trace`, `profkit convert --to chrome`), the browser view
 * (/api/trace) and Python (Profile.trace()). The answer
 * (pk_trace_answer) is plain data computed once here, and
 * pk_trace_answer_write_json() is the one writer of its JSON document,
 * profkit.trace/1 (docs/json.md).
 *
 * Time rules (docs/cli.md, "trace"): a sample holds from its timestamp
 * until the next sample's; the last sample of a trace counts for
 * nothing. A timestamp earlier than the one before it counts as that
 * one's (a trace that goes backwards never runs time backwards). In a
 * sampled trace an interval longer than ten times the trace's median
 * interval is a gap (missing data, credited to nothing); a trace with
 * "not running" samples (GPU streams) records events and has no gaps.
 * A sample's call path is the chain of function contexts from the root
 * down to its context (loops and lines fold into their function); a
 * context with no function around it is its own one-frame path.
 */
#ifndef PROFKIT_TRACE_H
#define PROFKIT_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output.h"
#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which part of the traces a question is about. Every member may be NULL
 * or "" for "all of it". */
typedef struct pk_trace_selection {
    /* Locations, as pk_location_select() reads them: "rank=3",
     * "rank=0,thread=1", "#5". Only locations with a trace count. */
    const char *location;
    /* The time window [from, to), as pk_trace_time_parse() reads each:
     * "1.5s", "250ms", "+20us" relative to the traces' start, or
     * "1714021984008891000" (digits alone) absolute nanoseconds. */
    const char *from, *to;
    /* POSIX extended regular expressions on the names of the functions
     * on a sample's call path (pk_context_name() of each function
     * context; of the context itself when no function encloses it).
     * `focus`: only samples with a matching function on the path count;
     * `hide`: samples with a matching function on the path do not. Time
     * left out so is `filtered_ns`, never running time. */
    const char *focus, *hide;
} pk_trace_selection;

/* The origin relative times count from: the start of the traces as the
 * file states it (pk_trace_range()), else the earliest sample. PK_ERR_NOT_FOUND
 * when the profile has no samples. */
PK_API pk_status pk_trace_origin(const pk_profile *profile, uint64_t *origin_ns);

/* Parse one time of a selection into absolute nanoseconds: a decimal
 * number with a unit (ns, us, µs, ms, s, min; "1.5s", "+250ms") is that
 * long after `origin_ns`; digits alone are an absolute timestamp in ns.
 * Exact to the nanosecond (no floating point). PK_ERR_INVALID_ARG, with
 * a message saying what is accepted, for anything else or a time past
 * 2^64 ns. */
PK_API pk_status pk_trace_time_parse(const char *text, uint64_t origin_ns, uint64_t *out_ns);

/* What does not change between questions about one trace: worth keeping
 * between calls (a view asks many), since finding the median interval
 * reads the whole trace. `valid` is 0 until it is filled. */
typedef struct pk_trace_facts {
    int valid;
    int event_based;    /* has "not running" samples: no gaps */
    int ordered;        /* timestamps never decrease: a window starts by bisection */
    uint64_t period_ns; /* median interval between samples (0 with fewer than two) */
} pk_trace_facts;

/* The facts of trace `trace`, in memory bounded whatever its length (a
 * few passes over the samples for the median of a long trace). */
PK_API pk_status pk_trace_facts_compute(const pk_profile *profile, pk_index trace,
                                        pk_trace_facts *out);

/* One selected location: its trace's own extent and, inside the window,
 * how its time divides. running + idle + gap + filtered = covered_ns,
 * the part of [begin_ns, end_ns) inside the window. */
typedef struct pk_trace_location {
    pk_index trace, location;
    uint64_t n_samples;        /* of the whole trace */
    uint64_t begin_ns, end_ns; /* its first and last timestamp (0 if empty) */
    uint64_t period_ns;        /* median interval (pk_trace_facts) */
    int event_based;
    uint64_t window_samples; /* samples timed inside the window */
    double covered_ns;
    double running_ns;             /* in a context the selection keeps */
    double idle_ns;                /* "not running" (or a context the profile does not list) */
    double filtered_ns;            /* in a context focus/hide leaves out */
    uint64_t n_gaps;               /* gaps reaching into the window */
    double gap_ns, largest_gap_ns; /* their time inside the window */
} pk_trace_location;

/* Time per function over the selected locations. `context` names it: a
 * function context (every context of the function adds to the same
 * entry), or a context with no function around it (function PK_NONE). */
typedef struct pk_trace_function {
    pk_index context, function;
    double self_ns;      /* the function is the innermost on the path */
    double inclusive_ns; /* anywhere on the path (recursion counted once) */
    /* where it is: module and source file paths (NULL when unknown; the
     * profile's strings) and line (0 when unknown), the function's own
     * where the profile knows them, else its context's */
    const char *module, *file;
    uint32_t line;
} pk_trace_function;

/* The timeline: each row's time drawn in `width` pixels over the window;
 * within a pixel the innermost function with the most time wins, and
 * runs of pixels with one winner are one span. */
enum {
    PK_TRACE_SPAN_IDLE = -1,     /* not running */
    PK_TRACE_SPAN_GAP = -2,      /* missing samples */
    PK_TRACE_SPAN_FILTERED = -3, /* running, but left out by focus/hide */
};
typedef struct pk_trace_span {
    uint64_t begin_ns, end_ns;
    int64_t function; /* index into pk_trace_answer.functions, or PK_TRACE_SPAN_* */
} pk_trace_span;
typedef struct pk_trace_row {
    pk_index trace, location;
    size_t first_span, n_spans; /* into pk_trace_answer.spans */
} pk_trace_row;

/* What the timeline should cover; width 0 asks for none. Rows times
 * width is at most 2^24 pixels (a span per pixel at worst:
 * PK_ERR_INVALID_ARG beyond). */
typedef struct pk_trace_timeline_options {
    unsigned width; /* pixels per row, at most 100,000 */
    size_t first;   /* rows are selected locations [first, first + count) */
    size_t count;   /* 0: all of them */
} pk_trace_timeline_options;

typedef struct pk_trace_answer {
    uint64_t begin_ns, end_ns; /* the traces' range (begin_ns is the origin) */
    uint64_t from_ns, to_ns;   /* the window */
    double running_ns;         /* over the selected locations */
    /* the selected locations, most running time first */
    pk_trace_location *locations;
    size_t n_locations;
    /* every function with time, most self time first */
    pk_trace_function *functions;
    size_t n_functions;
    /* the timeline, when asked for (width > 0): rows in location order */
    unsigned width;
    size_t first_row;
    pk_trace_row *rows;
    size_t n_rows;
    pk_trace_span *spans;
    size_t n_spans;
    /* the selection as given, for the document (NULL where not given) */
    char *location, *from, *to, *focus, *hide;
} pk_trace_answer;

/* Answer `sel` (NULL: everything) on `profile`, with a timeline when
 * `timeline` asks for one (NULL: none). `facts` is NULL or the caller's
 * pk_trace_count() entries kept between calls: entries not yet `valid`
 * are computed and filled. Work is the selected samples inside the
 * window (plus one pass over a trace whose facts are not known yet).
 * PK_ERR_INVALID_ARG for a bad selector, time or expression, or a window
 * whose end is not after its start; PK_ERR_NOT_FOUND when the profile has
 * no traces, the selector names no location with one, or the window
 * holds nothing of them. */
PK_API pk_status pk_trace_answer_compute(const pk_profile *profile, const pk_trace_selection *sel,
                                         const pk_trace_timeline_options *timeline,
                                         pk_trace_facts *facts, pk_trace_answer **out);
PK_API void pk_trace_answer_free(pk_trace_answer *answer);

/* The answer as profkit.trace/1 (docs/json.md): one object, written
 * through `j` (which may be inside nothing else: it is a whole
 * document). The CLI's `trace --json`, the view's /api/trace and the
 * member names of Python's Profile.trace() all come from here. */
PK_API pk_status pk_trace_answer_write_json(pk_json *j, const pk_profile *profile,
                                            const pk_trace_answer *answer);

/* ---- export: Chrome's Trace Event format (docs/conversion.md) ---- */

typedef struct pk_trace_export_options {
    int gzip;           /* compress the stream (gzip, zlib) */
    const char *source; /* what the profile was read from, for the metadata */
    /* A size (bytes of JSON) beyond which pk_trace_export_estimate()
     * says the output is too big for the viewers; 0: 256 MiB (where
     * chrome://tracing stops). */
    uint64_t limit;
    /* NULL, or pk_trace_count() facts kept between calls, as
     * pk_trace_answer_compute() takes them (an estimate then an export
     * find each trace's median once) */
    pk_trace_facts *facts;
} pk_trace_export_options;

/* What an export will write, found before writing it: exactly the bytes
 * of JSON pk_trace_export_chrome() writes for the same selection, and
 * where in time they fall, so a caller can say which window would fit. */
#define PK_TRACE_ESTIMATE_BINS 1024
typedef struct pk_trace_estimate {
    uint64_t bytes;  /* of JSON, before any compression */
    uint64_t events; /* B and E events */
    uint64_t from_ns, to_ns;
    /* bytes of events timed in each of PK_TRACE_ESTIMATE_BINS equal parts
     * of [from_ns, to_ns) (the fixed parts of the file are not in them) */
    uint64_t bins[PK_TRACE_ESTIMATE_BINS];
    /* the end of the longest window from from_ns whose output stays
     * within the limit (to_ns when all of it does) */
    uint64_t fits_to_ns;
    int over_limit;
    size_t threads; /* threads (selected locations) in the export */
} pk_trace_estimate;

/* Count what the export of `sel` would write, without writing. A pass
 * over the selected samples; memory bounded by the profile's contexts,
 * not the trace's length. `estimate` is large: allocate it, don't put it
 * on a small stack. */
PK_API pk_status pk_trace_export_estimate(const pk_profile *profile, const pk_trace_selection *sel,
                                          const pk_trace_export_options *opts,
                                          pk_trace_estimate *estimate);
/* A cheap upper bound of the same bytes (no pass over the samples: their
 * count times the most one sample can write), so a caller counts exactly
 * only when the bound is over the limit. */
PK_API pk_status pk_trace_export_bound(const pk_profile *profile, const pk_trace_selection *sel,
                                       uint64_t *bytes);

typedef struct pk_trace_export_stats {
    uint64_t bytes; /* of JSON, before compression */
    uint64_t events;
    size_t n_threads, n_processes;
} pk_trace_export_stats;

/* Write the selection of the profile's traces to `out` as a Chrome Trace
 * Event JSON object ({"traceEvents": [...], "displayTimeUnit": "ns",
 * "otherData": {...}}), read by chrome://tracing, ui.perfetto.dev and
 * speedscope: one process per rank (an "M" process_name event), one
 * thread per thread or GPU stream (thread_name, thread_sort_index), and
 * per call-path change "E" events for the frames that end (innermost
 * first) then "B" events for those that begin, so every thread's events
 * nest perfectly. A "B" event names the function (pk_context_name()) and
 * carries its module, file and line as args; an "E" event names it
 * only. Timestamps are microseconds from the traces' start with three
 * decimals (exact nanoseconds); the absolute start is in "otherData".
 * Only running time the selection keeps has events: idle time, gaps and
 * what focus/hide leaves out have none. Streams: memory is bounded by
 * the profile's contexts, whatever the trace's length. `stats` may be NULL. */
PK_API pk_status pk_trace_export_chrome(FILE *out, const pk_profile *profile,
                                        const pk_trace_selection *sel,
                                        const pk_trace_export_options *opts,
                                        pk_trace_export_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* PROFKIT_TRACE_H */
