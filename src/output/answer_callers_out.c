/*
 * output/answer_callers_out.c — the callers and callees answer as JSON
 * (profkit.callers/1): one object per function the pattern picked, with
 * its values, its direct callers (callees) and, from a calling-context
 * tree, the tree around it nested as profkit.tree/1 nests nodes.
 */
#include "analysis/qry.h"

static void json_arc(pk_json *j, const pk_arc_entry *e)
{
    pk_json_object_begin(j);
    pk_json_key(j, "name"), pk_json_string(j, e->name);
    pk_json_key(j, "calls"), pk_json_double(j, e->calls);
    pk_json_key(j, "inclusive"), pk_json_double(j, e->inclusive);
    pk_json_key(j, "self"), pk_json_double(j, e->self);
    pk_json_key(j, "cycle"), pk_json_uint(j, e->cycle);
    pk_json_object_end(j);
}

static pk_status json_block(pk_json *j, const pk_callers_block *b)
{
    pk_status st = PK_OK;
    pk_json_object_begin(j);
    pk_json_key(j, "name"), pk_json_string(j, b->name);
    pk_json_key(j, "module"), pk_json_string(j, b->module);
    pk_json_key(j, "file"), pk_json_string(j, b->file);
    pk_json_key(j, "self"), pk_json_double(j, b->self);
    pk_json_key(j, "inclusive"), pk_json_double(j, b->inclusive);
    pk_json_key(j, "called"), pk_json_double(j, b->called);
    pk_json_key(j, "cycle"), pk_json_uint(j, b->cycle);
    pk_json_key(j, "arcs");
    pk_json_array_begin(j);
    for (size_t i = 0; i < b->n_arcs; i++)
        json_arc(j, &b->arcs[i]);
    pk_json_array_end(j);
    pk_json_key(j, "hidden_arcs"), pk_json_uint(j, b->hidden_arcs);
    pk_json_key(j, "root");
    if (b->tree) {
        pk_tree_json_options o = {0};
        size_t written, pruned;
        st = pkq_tree_json_root(j, b->tree, &o, &written, &pruned);
        pk_json_key(j, "hidden"), pk_json_uint(j, b->tree->hidden);
    } else {
        pk_json_null(j);
    }
    pk_json_object_end(j);
    return st;
}

pk_status pk_callers_answer_write_json(pk_json *j, const pk_callers_answer *a)
{
    pk_status st = PK_OK;
    pk_json_object_begin(j);
    pkq_json_head(j, "profkit.callers/1", &a->head);
    pkq_json_columns(j, &a->head, NULL);
    pk_json_key(j, "view"), pk_json_string(j, a->callees ? "callees" : "callers");
    pk_json_key(j, "pattern"), pk_json_string(j, a->pattern);
    pk_json_key(j, "functions");
    pk_json_array_begin(j);
    for (size_t i = 0; i < a->n_functions && !st; i++)
        st = json_block(j, &a->functions[i]);
    pk_json_array_end(j);
    pk_json_key(j, "hidden_functions"), pk_json_uint(j, a->hidden_functions);
    pk_json_object_end(j);
    return st;
}
