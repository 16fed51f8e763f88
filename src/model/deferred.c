/*
 * model/deferred.c — value planes validated when first read, not at open.
 *
 * A big HPCToolkit database is answered from its summary profile for most
 * questions (analysis/summary.c), so validating every block of profile.db
 * and cct.db at open would read gigabytes that no answer needs. Its reader
 * places the planes, validates the summary's at once and leaves the rest
 * to the hooks attached here (docs/model.md, "Deferred validation"): a
 * question that reads one location's plane validates that block alone
 * (`--location`), one that walks every location or the context-major view
 * validates all that remain, in parallel, first. A validation failure is
 * the failure of the question that needed the plane, with the reader's
 * message (file, structure, offset).
 */
#include <stdlib.h>

#include "model.h"

/* After this many locations validated one by one, the next one validates
 * all that remain at once (on every core: a walk over all locations). */
#define PK_CHECKED_ALONE 64

void pk_model_attach_deferred(pk_profile *p, pk_deferred *d)
{
    p->deferred = d;
    p->deferred_done = 0;
}

/* Every plane not validated yet, and the context-major view. */
pk_status pk_model_check_deferred(const pk_profile *cp)
{
    pk_profile *p = (pk_profile *)cp; /* validation state is a cache, as the planes */
    if (!p->deferred || __atomic_load_n(&p->deferred_done, __ATOMIC_ACQUIRE)) return PK_OK;
    pthread_mutex_lock(&p->planes_lock);
    pk_status st = PK_OK;
    if (!p->deferred_done) {
        st = p->deferred->check_rest(p->deferred->user);
        if (!st) __atomic_store_n(&p->deferred_done, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&p->planes_lock);
    return st;
}

/* Location loc's plane, validated alone (or with all the rest). */
pk_status pk_model_check_location(const pk_profile *cp, uint32_t loc)
{
    pk_profile *p = (pk_profile *)cp;
    if (!p->deferred || __atomic_load_n(&p->deferred_done, __ATOMIC_ACQUIRE)) return PK_OK;
    if (p->loc_checked && __atomic_load_n(&p->loc_checked[loc], __ATOMIC_ACQUIRE)) return PK_OK;
    pthread_mutex_lock(&p->planes_lock);
    pk_status st = PK_OK;
    int all = 0;
    if (!p->deferred_done && !(p->loc_checked && p->loc_checked[loc])) {
        if (!p->loc_checked) p->loc_checked = calloc((size_t)p->n_locs + 1, 1);
        if (!p->loc_checked)
            st = pk_fail_nomem("validating a location's values");
        else if (p->n_checked >= PK_CHECKED_ALONE)
            all = 1;
        else if ((st = p->deferred->check_location(p->deferred->user, loc)) == PK_OK) {
            __atomic_store_n(&p->loc_checked[loc], 1, __ATOMIC_RELEASE);
            p->n_checked++;
        }
    }
    pthread_mutex_unlock(&p->planes_lock);
    return all ? pk_model_check_deferred(p) : st;
}
