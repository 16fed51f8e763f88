/*
 * model/attrs.c — key/value attributes of entities (profile, metrics,
 * functions, contexts, locations): what a format says beyond the model's
 * own fields, kept so that nothing read is lost and a writer can restore it.
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "util/vec.h"

pk_status pk_model_add_attr(pk_profile *p, pk_entity entity, uint32_t index, const char *key,
                            const char *value, size_t value_len)
{
    if (pk_vec_reserve((void **)&p->attrs, &p->cap_attrs, p->n_attrs + 1, sizeof *p->attrs))
        return pk_fail_nomem("adding an attribute");
    const char *k = pk_intern_cstr(&p->strings, key);
    const char *v = pk_intern(&p->strings, value ? value : "", value ? value_len : 0);
    if (!k || !v) return pk_fail_nomem("adding an attribute");
    p->attrs[p->n_attrs] = (pk_attr_rec){(uint32_t)entity, index, p->n_attrs, k, v};
    p->n_attrs++;
    return PK_OK;
}

static int cmp_attr(const void *a, const void *b)
{
    const pk_attr_rec *x = a, *y = b;
    if (x->entity != y->entity) return x->entity < y->entity ? -1 : 1;
    if (x->index != y->index) return x->index < y->index ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void pk_model_sort_attrs(pk_profile *p)
{
    if (p->n_attrs > 1) qsort(p->attrs, p->n_attrs, sizeof *p->attrs, cmp_attr);
    for (size_t i = 0; i < p->n_attrs; i++)
        p->attrs[i].seq = i;
}

size_t pk_attribute_count(const pk_profile *p)
{
    return p ? p->n_attrs : 0;
}

pk_status pk_attribute_get(const pk_profile *p, size_t i, pk_attribute *out)
{
    if (!p || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_attribute_get: NULL argument");
    if (i >= p->n_attrs) return pk_fail(PK_ERR_NOT_FOUND, "attribute %zu does not exist", i);
    const pk_attr_rec *a = &p->attrs[i];
    *out = (pk_attribute){(pk_entity)a->entity, a->index, a->key, a->value};
    return PK_OK;
}

/* First attribute at or after (entity, index) in the sorted order. */
static size_t lower_bound(const pk_profile *p, uint32_t entity, uint32_t index)
{
    size_t lo = 0, hi = p->n_attrs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const pk_attr_rec *a = &p->attrs[mid];
        if (a->entity < entity || (a->entity == entity && a->index < index))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

pk_status pk_attribute_range(const pk_profile *p, pk_entity entity, pk_index index, size_t *first,
                             size_t *n)
{
    if (!p || !first || !n) return pk_fail(PK_ERR_INVALID_ARG, "pk_attribute_range: NULL argument");
    size_t i = lower_bound(p, (uint32_t)entity, index), j = i;
    while (j < p->n_attrs && p->attrs[j].entity == (uint32_t)entity && p->attrs[j].index == index)
        j++;
    *first = i, *n = j - i;
    return PK_OK;
}

const char *pk_attribute_find(const pk_profile *p, pk_entity entity, pk_index index,
                              const char *key)
{
    if (!p || !key) return NULL;
    for (size_t i = lower_bound(p, (uint32_t)entity, index);
         i < p->n_attrs && p->attrs[i].entity == (uint32_t)entity && p->attrs[i].index == index;
         i++)
        if (strcmp(p->attrs[i].key, key) == 0) return p->attrs[i].value;
    return NULL;
}
