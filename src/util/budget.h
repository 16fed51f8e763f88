/*
 * util/budget.h — how much memory a reader may spend on what a file
 * claims rather than holds.
 *
 * Most of what a reader allocates is bounded by the input's bytes: every
 * count is checked against the bytes that must follow it. What is not is
 * memory the bytes only imply: a compressed stream inflated (zlib can
 * expand 1000-fold), rows a file marks as all zero, dense tables over two
 * dimensions each of which is cheap to declare. Such allocations are
 * charged to the open's budget: by default the larger of
 * PK_BUDGET_FLOOR and PK_BUDGET_RATIO times the input's size, which every
 * real profile stays well inside (docs/robustness.md), while a 300 KB file
 * that claims gigabytes is refused at once with an error naming the file,
 * the structure, the offset and how to raise the limit
 * (pk_open_options.max_memory, `--max-memory`, PROFKIT_MAX_MEMORY).
 */
#ifndef PK_UTIL_BUDGET_H
#define PK_UTIL_BUDGET_H

#include <stdatomic.h>
#include <stdint.h>

#include "error.h"

#define PK_BUDGET_FLOOR (256ull << 20)
#define PK_BUDGET_RATIO 64u

typedef struct pk_budget {
    uint64_t limit; /* bytes */
    uint64_t input; /* the input's size, for the message */
    _Atomic uint64_t used;
} pk_budget;

/* `max_memory` as in pk_open_options: 0 for the default rule, otherwise
 * the limit itself (UINT64_MAX: none). */
void pk_budget_init(pk_budget *b, uint64_t max_memory, uint64_t input_bytes);
/* Charge `bytes` for `what` (a sentence fragment naming file, structure
 * and offset: "x.cubex: member 3.data, byte 512: inflating its rows").
 * PK_ERR_LIMIT with the message when it does not fit; nothing is charged
 * then. Safe to call from several threads. */
pk_status pk_budget_charge(pk_budget *b, uint64_t bytes, const char *what_fmt, ...) PK_PRINTF(3, 4);
/* Give back what an allocation charged once it is freed. */
void pk_budget_release(pk_budget *b, uint64_t bytes);

#endif
