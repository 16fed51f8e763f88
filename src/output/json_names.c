/*
 * output/json_names.c — the model's display names as JSON string values,
 * whole however long: the text tables cut names to fit a terminal,
 * machine output never does. Each hands the library's snprintf-like name
 * function to pk_json_string_fn(), which asks again with room enough.
 */
#include "profkit/analysis.h"
#include "profkit/output.h"

typedef struct name_of {
    const pk_profile *p;
    pk_index i;
    const struct pk_frame *frame;
} name_of;

static size_t context_name(void *user, char *buf, size_t size)
{
    const name_of *n = user;
    return pk_context_name(n->p, n->i, buf, size);
}

static size_t location_name(void *user, char *buf, size_t size)
{
    const name_of *n = user;
    return pk_location_name(n->p, n->i, buf, size);
}

static size_t frame_name(void *user, char *buf, size_t size)
{
    const name_of *n = user;
    return pk_frame_name(n->p, n->frame, buf, size);
}

pk_status pk_json_context_name(pk_json *j, const pk_profile *p, pk_index context)
{
    name_of n = {p, context, NULL};
    return pk_json_string_fn(j, context_name, &n);
}

pk_status pk_json_location_name(pk_json *j, const pk_profile *p, pk_index location)
{
    name_of n = {p, location, NULL};
    return pk_json_string_fn(j, location_name, &n);
}

pk_status pk_json_frame_name(pk_json *j, const pk_profile *p, const struct pk_frame *frame)
{
    name_of n = {p, 0, frame};
    return pk_json_string_fn(j, frame_name, &n);
}
