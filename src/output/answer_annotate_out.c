/*
 * output/answer_annotate_out.c — the annotate answer as JSON
 * (profkit.annotate/1, what `annotate --json` and the view's /api/source
 * write): the head, then one object per listing (annotate.h).
 */
#include "analysis/qry.h"

pk_status pk_annotate_answer_write_json(pk_json *j, const pk_annotate_answer *a)
{
    pk_status st = PK_OK;
    pk_json_object_begin(j);
    pkq_json_head(j, "profkit.annotate/1", &a->head);
    pkq_json_columns(j, &a->head, NULL);
    pk_json_key(j, "target"), pk_json_string(j, a->target);
    pk_json_key(j, "files");
    pk_json_array_begin(j);
    for (size_t i = 0; i < a->n_listings && !st; i++)
        st = pk_annotation_write_json(j, &a->listings[i]);
    pk_json_array_end(j);
    pk_json_key(j, "missing");
    pk_json_array_begin(j);
    for (size_t i = 0; i < a->n_missing; i++)
        pk_json_string(j, a->missing[i]);
    pk_json_array_end(j);
    pk_json_object_end(j);
    return st;
}
