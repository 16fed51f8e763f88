/*
 * analysis/verify.c — checks that need the whole model.
 *
 * HPCToolkit stores every per-thread value twice: profile.db by thread,
 * cct.db by context. Readers (hpcviewer's plots use cct.db, its tree
 * profile.db) silently trust that they agree; `profkit check` verifies it
 * value by value, in both directions, comparing bit patterns.
 */
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "profkit/analysis.h"
#include "util/bytes.h"

#define VERIFY_REPORT_MAX 50

typedef struct verifier {
    const pk_profile *p;
    pk_problem_fn fn;
    void *user;
    size_t problems;
} verifier;

/* Report one disagreement about (location, context, raw metric id);
 * `what` says what each file holds. */
static void problem(verifier *v, uint32_t loc, uint64_t ctx_id, uint32_t raw, const char *what)
{
    if (v->problems++ >= VERIFY_REPORT_MAX || !v->fn) return;
    char structure[64], msg[256];
    snprintf(structure, sizeof structure, "context %llu value block", (unsigned long long)ctx_id);
    snprintf(msg, sizeof msg, "profile %u, context %llu, metric id %u: %s", loc,
             (unsigned long long)ctx_id, raw, what);
    pk_diagnostic d = {PK_SEV_WARNING, "cct-mismatch", "cct.db", structure, 0, 0, msg};
    v->fn(v->user, &d);
}

/* Every profile.db value must be in cct.db, with the same bits. */
static void check_profile_side(verifier *v)
{
    const pk_profile *p = v->p;
    for (uint32_t l = 0; l < p->n_locs; l++) {
        if (p->locs[l].is_summary) continue;
        pk_cursor c;
        pk_value val;
        pk_location_values_begin(p, l, &c);
        while (pk_cursor_next(&c, &val)) {
            if (val.column == PK_NONE || val.context == PK_NONE) continue;
            double other;
            char what[96];
            int found = pk_model_cm_lookup(p, val.context, val.column, l, &other);
            if (found && pk_f64_bits(other) == pk_f64_bits(val.value)) continue;
            if (found)
                snprintf(what, sizeof what, "profile.db has %.17g, cct.db has %.17g", val.value,
                         other);
            else
                snprintf(what, sizeof what, "profile.db has %.17g, cct.db has no value", val.value);
            problem(v, l, p->ctx[val.context].id, p->columns[val.column].raw_id, what);
        }
    }
}

/* Every cct.db value must be in profile.db (differences were reported
 * from the other side already). */
static void check_cct_side(verifier *v)
{
    const pk_profile *p = v->p;
    for (uint32_t ctx = 0; ctx < p->n_ctx; ctx++) {
        pk_cursor c;
        pk_value val;
        pk_context_values_begin(p, ctx, &c);
        while (pk_cursor_next(&c, &val)) {
            if (val.column == PK_NONE || val.location == PK_NONE) continue;
            if (p->locs[val.location].is_summary) continue;
            double other;
            pk_value_lookup(p, val.location, ctx, val.column, &other);
            if (other != 0.0) continue;
            char what[96];
            snprintf(what, sizeof what, "cct.db has %.17g, profile.db has no value", val.value);
            problem(v, val.location, p->ctx[ctx].id, p->columns[val.column].raw_id, what);
        }
    }
}

pk_status pk_profile_verify(const pk_profile *p, pk_problem_fn fn, void *user, size_t *n_problems)
{
    if (!p) return pk_fail(PK_ERR_INVALID_ARG, "pk_profile_verify: NULL profile");
    verifier v = {p, fn, user, 0};
    pk_status st = pk_model_check_deferred(p); /* both files' blocks, if not yet */
    if (st) return st;
    if (p->cm_from_file && p->n_locs > 0) {
        check_profile_side(&v);
        check_cct_side(&v);
    }
    if (v.problems > VERIFY_REPORT_MAX && fn) {
        char msg[128];
        snprintf(msg, sizeof msg, "... and %zu more disagreements between profile.db and cct.db",
                 v.problems - VERIFY_REPORT_MAX);
        pk_diagnostic d = {PK_SEV_WARNING, "cct-mismatch", "cct.db", NULL, 0, 0, msg};
        fn(user, &d);
    }
    if (n_problems) *n_problems = v.problems;
    return PK_OK;
}
