/*
 * output/complete.c — saying that a profile is incomplete, in every JSON
 * view: "complete" and the diagnostics that say what is missing.
 */
#include "profkit/analysis.h"
#include "profkit/output.h"

pk_status pk_json_completeness(pk_json *j, const pk_profile *p)
{
    pk_profile_info pi;
    int complete = pk_profile_get_info(p, &pi) || pi.complete;
    pk_json_key(j, "complete");
    pk_json_bool(j, complete);
    if (complete) return j->status;
    pk_json_key(j, "incomplete");
    pk_json_array_begin(j);
    for (size_t i = 0; i < pk_diagnostic_count(p); i++) {
        pk_diagnostic d;
        if (pk_diagnostic_get(p, i, &d) || !pk_diagnostic_is_reason(p, &d)) continue;
        pk_json_object_begin(j);
        pk_json_key(j, "code");
        pk_json_string(j, d.code);
        pk_json_key(j, "message");
        pk_json_string(j, d.message);
        pk_json_object_end(j);
    }
    return pk_json_array_end(j);
}
