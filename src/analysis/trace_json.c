/*
 * analysis/trace_json.c — the trace answer as its one JSON document,
 * profkit.trace/1 (docs/json.md): what `profkit trace --json` prints,
 * what the view's /api/trace serves and what Python's Profile.trace()
 * names its columns after. Members are only ever added to it.
 */
#include "model/model.h"
#include "trace_scan.h"
#include "util/error.h"

void ts_frame_place(const pk_profile *p, pk_index f, const char **module, const char **file,
                    uint32_t *line)
{
    pk_context c;
    pk_function fn = {.module = PK_NONE, .file = PK_NONE};
    pk_module m = {0};
    pk_file fi = {0};
    *module = *file = NULL, *line = 0;
    if (pk_context_get(p, f, &c)) return;
    if (c.function != PK_NONE) pk_function_get(p, c.function, &fn);
    pk_index mod = c.module != PK_NONE ? c.module : fn.module;
    pk_index src = fn.file != PK_NONE ? fn.file : c.file;
    if (mod != PK_NONE && !pk_module_get(p, mod, &m)) *module = m.path;
    if (src != PK_NONE && !pk_file_get(p, src, &fi)) *file = fi.path;
    *line = fn.file != PK_NONE ? fn.line : c.line;
}

static void selection(pk_json *j, const pk_trace_answer *a)
{
    pk_json_key(j, "selection");
    pk_json_object_begin(j);
    pk_json_key(j, "location"), pk_json_string(j, a->location);
    pk_json_key(j, "from"), pk_json_string(j, a->from);
    pk_json_key(j, "to"), pk_json_string(j, a->to);
    pk_json_key(j, "focus"), pk_json_string(j, a->focus);
    pk_json_key(j, "hide"), pk_json_string(j, a->hide);
    pk_json_object_end(j);
}

static void location_index(pk_json *j, pk_index l)
{
    pk_json_key(j, "index");
    if (l == PK_NONE)
        pk_json_null(j);
    else
        pk_json_uint(j, l);
}

static void one_location(pk_json *j, const pk_profile *p, const pk_trace_location *l)
{
    pk_json_object_begin(j);
    pk_json_key(j, "location"), pk_json_location_name(j, p, l->location);
    location_index(j, l->location);
    pk_json_key(j, "samples"), pk_json_uint(j, l->n_samples);
    pk_json_key(j, "begin_ns"), pk_json_uint(j, l->begin_ns);
    pk_json_key(j, "end_ns"), pk_json_uint(j, l->end_ns);
    pk_json_key(j, "period_ns"), pk_json_uint(j, l->period_ns);
    pk_json_key(j, "event_based"), pk_json_bool(j, l->event_based);
    pk_json_key(j, "running_ns"), pk_json_double(j, l->running_ns);
    pk_json_key(j, "idle_ns"), pk_json_double(j, l->idle_ns);
    pk_json_key(j, "gaps"), pk_json_uint(j, l->n_gaps);
    pk_json_key(j, "gap_ns"), pk_json_double(j, l->gap_ns);
    pk_json_key(j, "largest_gap_ns"), pk_json_double(j, l->largest_gap_ns);
    pk_json_key(j, "window_samples"), pk_json_uint(j, l->window_samples);
    pk_json_key(j, "covered_ns"), pk_json_double(j, l->covered_ns);
    pk_json_key(j, "filtered_ns"), pk_json_double(j, l->filtered_ns);
    pk_json_object_end(j);
}

static void one_function(pk_json *j, const pk_profile *p, const pk_trace_function *f, size_t id)
{
    pk_json_object_begin(j);
    pk_json_key(j, "name"), pk_json_context_name(j, p, f->context);
    pk_json_key(j, "time_ns"), pk_json_double(j, f->self_ns);
    pk_json_key(j, "id"), pk_json_uint(j, id);
    pk_json_key(j, "inclusive_ns"), pk_json_double(j, f->inclusive_ns);
    pk_json_key(j, "module"), pk_json_string(j, f->module);
    pk_json_key(j, "file"), pk_json_string(j, f->file);
    pk_json_key(j, "line"), pk_json_uint(j, f->line);
    pk_json_object_end(j);
}

static void timeline(pk_json *j, const pk_profile *p, const pk_trace_answer *a)
{
    pk_json_key(j, "timeline");
    if (!a->width) return (void)pk_json_null(j);
    pk_json_object_begin(j);
    pk_json_key(j, "width"), pk_json_uint(j, a->width);
    pk_json_key(j, "first"), pk_json_uint(j, a->first_row);
    pk_json_key(j, "rows");
    pk_json_array_begin(j);
    for (size_t r = 0; r < a->n_rows; r++) {
        const pk_trace_row *row = &a->rows[r];
        pk_json_object_begin(j);
        location_index(j, row->location);
        pk_json_key(j, "location"), pk_json_location_name(j, p, row->location);
        pk_json_key(j, "spans");
        pk_json_array_begin(j);
        for (size_t i = row->first_span; i < row->first_span + row->n_spans; i++) {
            pk_json_array_begin(j);
            pk_json_uint(j, a->spans[i].begin_ns);
            pk_json_uint(j, a->spans[i].end_ns);
            pk_json_int(j, a->spans[i].function);
            pk_json_array_end(j);
        }
        pk_json_array_end(j);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
    pk_json_object_end(j);
}

pk_status pk_trace_answer_write_json(pk_json *j, const pk_profile *p, const pk_trace_answer *a)
{
    if (!j || !p || !a) return pk_fail(PK_ERR_INVALID_ARG, "pk_trace_answer_write_json: NULL");
    pk_json_object_begin(j);
    pk_json_key(j, "schema"), pk_json_string(j, "profkit.trace/1");
    pk_json_key(j, "begin_ns"), pk_json_uint(j, a->begin_ns);
    pk_json_key(j, "end_ns"), pk_json_uint(j, a->end_ns);
    pk_json_completeness(j, p);
    pk_json_key(j, "from_ns"), pk_json_uint(j, a->from_ns);
    pk_json_key(j, "to_ns"), pk_json_uint(j, a->to_ns);
    /* the window after begin_ns: exact where a reader's numbers are
     * doubles (JavaScript) and absolute nanoseconds are not */
    pk_json_key(j, "from_offset_ns");
    pk_json_int(j, (int64_t)(a->from_ns - a->begin_ns));
    pk_json_key(j, "to_offset_ns"), pk_json_int(j, (int64_t)(a->to_ns - a->begin_ns));
    selection(j, a);
    pk_json_key(j, "running_ns"), pk_json_double(j, a->running_ns);
    pk_json_key(j, "locations_total"), pk_json_uint(j, a->n_locations);
    pk_json_key(j, "locations");
    pk_json_array_begin(j);
    for (size_t i = 0; i < a->n_locations; i++)
        one_location(j, p, &a->locations[i]);
    pk_json_array_end(j);
    pk_json_key(j, "functions");
    pk_json_array_begin(j);
    for (size_t i = 0; i < a->n_functions; i++)
        one_function(j, p, &a->functions[i], i);
    pk_json_array_end(j);
    timeline(j, p, a);
    return pk_json_object_end(j);
}
