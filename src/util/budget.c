/*
 * util/budget.c — see budget.h.
 */
#include "budget.h"

#include <stdarg.h>
#include <stdio.h>

void pk_budget_init(pk_budget *b, uint64_t max_memory, uint64_t input_bytes)
{
    uint64_t by_ratio =
        input_bytes > UINT64_MAX / PK_BUDGET_RATIO ? UINT64_MAX : input_bytes * PK_BUDGET_RATIO;
    b->limit = max_memory ? max_memory : by_ratio > PK_BUDGET_FLOOR ? by_ratio : PK_BUDGET_FLOOR;
    b->input = input_bytes;
    atomic_store(&b->used, 0);
}

/* "1.5 GiB" */
static const char *human(char *buf, size_t size, uint64_t n)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)n;
    int u = 0;
    while (v >= 1024 && u < 6)
        v /= 1024, u++;
    if (u == 0)
        snprintf(buf, size, "%llu bytes", (unsigned long long)n);
    else
        snprintf(buf, size, "%.1f %s", v, units[u]);
    return buf;
}

pk_status pk_budget_charge(pk_budget *b, uint64_t bytes, const char *what_fmt, ...)
{
    uint64_t used = atomic_load(&b->used);
    for (;;) {
        if (bytes > b->limit || used > b->limit - bytes) break;
        if (atomic_compare_exchange_weak(&b->used, &used, used + bytes)) return PK_OK;
    }
    char what[512], need[32], limit[32], input[32];
    va_list ap;
    va_start(ap, what_fmt);
    vsnprintf(what, sizeof what, what_fmt, ap);
    va_end(ap);
    uint64_t total = used > UINT64_MAX - bytes ? UINT64_MAX : used + bytes;
    return pk_fail(PK_ERR_LIMIT,
                   "%s: that takes %s of memory, more than the memory budget of %s for a %s "
                   "input; a real profile of this size does not need it (raise the budget with "
                   "--max-memory SIZE or PROFKIT_MAX_MEMORY=SIZE; pk_open_options.max_memory in "
                   "the library)",
                   what, human(need, sizeof need, total), human(limit, sizeof limit, b->limit),
                   human(input, sizeof input, b->input));
}

void pk_budget_release(pk_budget *b, uint64_t bytes)
{
    uint64_t used = atomic_load(&b->used);
    while (!atomic_compare_exchange_weak(&b->used, &used, used > bytes ? used - bytes : 0)) {
    }
}
