/*
 * view/session.c — the profiles a view serves and the answers it keeps:
 * the library's sessions (per side: per-context values and trees cached
 * there) and the last few tree answers by question (pk_query_key()), so
 * a page's expansions and flame zooms only walk the nodes they show.
 * Answers are the library's (pk_answer_tree()); nothing here computes a
 * value.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "view/view.h"

static void entry_free(pkv_answer *e)
{
    if (!e) return;
    pk_tree_answer_free(e->tree);
    free(e->key);
    free(e->base_incl);
    free(e);
}

void pkv_session_free(pkv_session *s)
{
    for (size_t i = 0; i < PKV_TREE_CACHE; i++)
        entry_free(s->trees[i]), s->trees[i] = NULL;
    free(s->profile_doc);
    s->profile_doc = NULL;
    free(s->trace_facts);
    s->trace_facts = NULL;
}

/* "a|" or "b|" and the query's key. */
static char *key_of(int side, const pk_query *q)
{
    size_t n = pk_query_key(q, NULL, 0);
    char *key = malloc(n + 3);
    if (!key) return NULL;
    key[0] = side ? 'b' : 'a', key[1] = '|';
    pk_query_key(q, key + 2, n + 1);
    return key;
}

static pkv_answer *find(pkv_session *s, const char *key)
{
    for (size_t i = 0; i < PKV_TREE_CACHE; i++)
        if (s->trees[i] && strcmp(s->trees[i]->key, key) == 0) return s->trees[i];
    return NULL;
}

static void insert(pkv_session *s, pkv_answer *e)
{
    size_t victim = 0;
    for (size_t i = 0; i < PKV_TREE_CACHE; i++)
        if (!s->trees[i] || (s->trees[victim] && s->trees[i]->used < s->trees[victim]->used))
            victim = i;
    entry_free(s->trees[victim]);
    s->trees[victim] = e;
    e->used = ++s->clock;
}

pkv_answer *pkv_tree_answer(pkv_session *s, int side, const pk_query *q, int *status, char *err,
                            size_t size)
{
    char *key = key_of(side, q);
    if (!key) return *status = 500, snprintf(err, size, "out of memory"), NULL;
    pkv_answer *e = find(s, key);
    if (e) {
        free(key);
        e->used = ++s->clock;
        return *status = 200, e;
    }
    e = calloc(1, sizeof *e);
    if (!e) return free(key), *status = 500, snprintf(err, size, "out of memory"), NULL;
    e->key = key;
    *status = pkv_status(pk_answer_tree(s->side[side].qs, q, &e->tree), err, size);
    if (*status != 200) return entry_free(e), NULL;
    insert(s, e);
    return e;
}

int pkv_answer_base(pkv_session *s, pkv_answer *e, const pk_query *q, char *err, size_t size)
{
    if (e->base_incl || !s->side[1].p) return 200;
    int status;
    pk_query *bq = NULL;
    const char *metric = e->tree->head.columns[0].name;
    pk_index m;
    /* the base's metric of the same name, or its default when it has none */
    status = pkv_status(pk_query_copy(q, &bq), err, size);
    if (status == 200 && pk_metric_lookup(s->side[1].p, metric, &m) != PK_OK) metric = NULL;
    if (status == 200) status = pkv_status(pk_query_set(bq, "metric", metric), err, size);
    if (status == 200) status = pkv_status(pk_query_set(bq, "location", NULL), err, size);
    pkv_answer *b = status == 200 ? pkv_tree_answer(s, 1, bq, &status, err, size) : NULL;
    pk_query_free(bq);
    if (!b) return status;
    size_t n = e->tree->n_nodes;
    double *v = malloc((2 * n + 1) * sizeof *v);
    if (!v) return snprintf(err, size, "out of memory"), 500;
    status = pkv_status(pk_tree_answer_match(e->tree, b->tree, v, v + n), err, size);
    if (status != 200) return free(v), status;
    e->base_incl = v, e->base_self = v + n;
    return 200;
}
