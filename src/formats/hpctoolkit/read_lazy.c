/*
 * formats/hpctoolkit/read_lazy.c — deferred validation of a big
 * database's value blocks (model/deferred.c, docs/model.md "Deferred
 * validation").
 *
 * Most questions about a database are answered from hpcprof's summary
 * profile (analysis/summary.c), so an open that validated every block of
 * profile.db and cct.db would read gigabytes no answer needs. A deferred
 * open (read_profile.c decides: a big database with a summary profile,
 * opened for questions) validates the headers of every profile and
 * context and the summary profile's blocks, and names its contexts from
 * meta.db, the summary profile and cct.db's context table. The rest is
 * left to the hooks below, which run the open's own block checks when a
 * question first reads a plane: the same errors, with file, structure and
 * offset. Two things differ from an open that reads everything: warnings
 * about tolerated oddities inside those blocks (zero or non-finite
 * values, unknown metric ids) are not collected (`profkit check` reads
 * every block and reports them), and a block naming a context none of
 * those three lists is an error (the files disagree) instead of an
 * unlisted context, since the profile's contexts are fixed by then.
 */
#include <stdlib.h>
#include <string.h>

#include "hpctk.h"

typedef struct hk_lazy {
    pk_deferred ops;
    hk_reader r; /* the open's reader, with what the checks read */
} hk_lazy;

static pk_status lazy_location(void *user, uint32_t loc)
{
    hk_lazy *lz = user;
    return hk_profile_check_block(&lz->r, loc);
}

/* Every plain profile's block not validated yet, then cct.db's blocks. */
static pk_status lazy_rest(void *user)
{
    hk_lazy *lz = user;
    pk_profile *p = lz->r.p;
    unsigned char *skip = malloc((size_t)p->n_locs + 1);
    if (!skip) return pk_fail_nomem("validating profile.db");
    for (uint32_t l = 0; l < p->n_locs; l++)
        skip[l] = p->locs[l].is_summary || (p->loc_checked && p->loc_checked[l]);
    pk_status st = hk_profile_check_blocks(&lz->r, skip);
    free(skip);
    if (!st && lz->r.cct_planes) {
        st = hk_cct_check_blocks(&lz->r);
        if (!st) p->cm_unplaced = lz->r.cct_unplaced;
    }
    return st;
}

static void lazy_destroy(void *user)
{
    hk_lazy *lz = user;
    free(lz->r.cct_planes);
    free(lz);
}

pk_status hk_defer_attach(hk_reader *r)
{
    hk_lazy *lz = calloc(1, sizeof *lz);
    if (!lz) return pk_fail_nomem("deferring validation");
    lz->r = *r;
    /* what the open's reader frees stays its own; cct.db's planes move here */
    memset(lz->r.unlisted, 0, sizeof lz->r.unlisted);
    memset(lz->r.noted, 0, sizeof lz->r.noted);
    lz->r.emit = NULL;
    r->cct_planes = NULL;
    lz->ops = (pk_deferred){lz, lazy_location, lazy_rest, lazy_destroy};
    pk_model_attach_deferred(r->p, &lz->ops);
    return PK_OK;
}
