/*
 * analysis/derive_plan.c — deciding, per column, what pk_profile_derive()
 * recomputes and what it keeps.
 */
#include <stdlib.h>
#include <string.h>

#include "derive_plan.h"

void dp_plan_free(dp_plan *plan)
{
    free(plan->dm_of_metric);
    free(plan->plain);
    free(plan->role_of_raw);
    free(plan->stat);
    memset(plan, 0, sizeof *plan);
}

/* A role's accumulator in a metric's slots (lex_aware per thread is the
 * function value; docs/derive.md). */
static const unsigned slot_of_role[] = {0, SL_POINT, SL_FUNCTION, SL_FUNCTION, SL_EXECUTION};

static uint8_t role_of_scope(pk_scope_kind k)
{
    switch (k) {
    case PK_SCOPE_POINT:
        return ROLE_POINT;
    case PK_SCOPE_EXCLUSIVE:
        return ROLE_FUNCTION;
    case PK_SCOPE_LEX_AWARE:
        return ROLE_LEX_AWARE;
    case PK_SCOPE_INCLUSIVE:
        return ROLE_EXECUTION;
    default:
        return ROLE_KEEP;
    }
}

/* hpcprof's formulas for the partials of Sum, Mean/StdDev/CfVar, Min, Max. */
static int formula_of(const char *f, uint8_t *out)
{
    if (!f || strcmp(f, "$$") == 0)
        *out = F_VALUE;
    else if (strcmp(f, "1") == 0)
        *out = F_ONE;
    else if (strcmp(f, "($$^2)") == 0 || strcmp(f, "$$^2") == 0)
        *out = F_SQUARE;
    else
        return 0;
    return 1;
}

static int cmp_raw_plain(const void *a, const void *b)
{
    const dp_plain *x = a, *y = b;
    return x->raw < y->raw ? -1 : x->raw > y->raw;
}

static int cmp_raw_stat(const void *a, const void *b)
{
    const dp_stat *x = a, *y = b;
    return x->raw < y->raw ? -1 : x->raw > y->raw;
}

/* Metrics with a plain point column are derivable. */
static void find_metrics(const pk_profile *p, dp_plan *plan)
{
    for (uint32_t m = 0; m < p->n_metrics; m++)
        plan->dm_of_metric[m] = PK_NONE;
    for (uint32_t c = 0; c < p->n_columns; c++) {
        const pk_column *col = &p->columns[c];
        if (!col->is_summary && p->scopes[col->scope].kind == PK_SCOPE_POINT &&
            plan->dm_of_metric[col->metric] == PK_NONE)
            plan->dm_of_metric[col->metric] = plan->n_dm++;
    }
}

static void plan_plain(const pk_profile *p, dp_plan *plan)
{
    for (uint32_t c = 0; c < p->n_columns; c++) {
        const pk_column *col = &p->columns[c];
        if (col->is_summary) continue;
        uint32_t dm = plan->dm_of_metric[col->metric];
        uint8_t role = dm == PK_NONE ? ROLE_KEEP : role_of_scope(p->scopes[col->scope].kind);
        plan->plain[plan->n_plain++] = (dp_plain){c, col->raw_id, role, dm};
        if (role == ROLE_KEEP) plan->plain[plan->n_plain - 1].slot = plan->n_keep++;
    }
    for (uint32_t i = 0; i < plan->n_plain; i++) {
        dp_plain *d = &plan->plain[i];
        if (d->role != ROLE_KEEP) d->slot = dp_metric_slot(plan, d->slot, slot_of_role[d->role]);
    }
    plan->n_slots = plan->n_keep + SL_PER_METRIC * plan->n_dm;
    qsort(plan->plain, plan->n_plain, sizeof *plan->plain, cmp_raw_plain);
}

/* The row slots a derived statistic takes its value from: the scope's
 * accumulator; at a loop, lex_aware's is the one without nested loops. */
static void set_slots(const dp_plan *plan, dp_stat *s)
{
    s->at = dp_metric_slot(plan, s->dm, slot_of_role[s->role]);
    s->at_loop = s->role == ROLE_LEX_AWARE ? dp_metric_slot(plan, s->dm, SL_NOLOOPS) : s->at;
}

static void plan_stats(const pk_profile *p, dp_plan *plan)
{
    for (uint32_t c = 0; c < p->n_columns; c++) {
        const pk_column *col = &p->columns[c];
        if (!col->is_summary) continue;
        dp_stat s = {c,
                     col->raw_id,
                     0,
                     role_of_scope(p->scopes[col->scope].kind),
                     0,
                     (uint8_t)col->combine,
                     plan->dm_of_metric[col->metric]};
        s.derived = s.dm != PK_NONE && s.role != ROLE_KEEP &&
                    formula_of(col->formula, &s.formula) && col->combine <= PK_COMBINE_MAX;
        plan->n_derived_stats += (uint32_t)s.derived;
        if (s.derived) set_slots(plan, &s);
        plan->stat[plan->n_stat++] = s;
    }
    qsort(plan->stat, plan->n_stat, sizeof *plan->stat, cmp_raw_stat);
}

pk_status dp_plan_make(const pk_profile *p, dp_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->n_raw = p->n_raw[0];
    plan->dm_of_metric = malloc((p->n_metrics + 1u) * sizeof *plan->dm_of_metric);
    plan->plain = malloc((p->n_columns + 1u) * sizeof *plan->plain);
    plan->stat = malloc((p->n_columns + 1u) * sizeof *plan->stat);
    plan->role_of_raw = malloc((plan->n_raw + 1u) * sizeof *plan->role_of_raw);
    if (!plan->dm_of_metric || !plan->plain || !plan->stat || !plan->role_of_raw) {
        dp_plan_free(plan);
        return pk_fail_nomem("planning the derivation");
    }
    find_metrics(p, plan);
    plan_plain(p, plan);
    plan_stats(p, plan);
    for (uint32_t r = 0; r < plan->n_raw; r++)
        plan->role_of_raw[r] = PK_NONE;
    for (uint32_t i = 0; i < plan->n_plain; i++)
        if (plan->plain[i].raw < plan->n_raw) plan->role_of_raw[plan->plain[i].raw] = i;
    return PK_OK;
}
