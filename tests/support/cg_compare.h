/*
 * tests/support/cg_compare.h — a call graph as canonical text (sorted
 * lines naming functions, files and objects by name), so two profiles'
 * call graphs compare with strcmp whatever their internal numbering.
 */
#ifndef TU_CG_COMPARE_H
#define TU_CG_COMPARE_H

#include "profkit/profkit.h"

/* malloc'ed text; NULL if the profile has no call graph. */
char *tu_cg_canonical(const pk_profile *p);
/* The same with every part summed into one (what the Callgrind writer
 * writes by default): events, and records of equal key merged with their
 * counts and costs added; no part headers. */
char *tu_cg_canonical_summed(const pk_profile *p);

/* What a Callgrind file in memory reads to on `threads` threads, with
 * costs kept `by` PK_OPEN_BY_FUNCTION or PK_OPEN_BY_LINE: the canonical
 * call graph, then each diagnostic (code, offset,
 * message), or the error message if it is refused. malloc'ed. Tokenized
 * on other threads (formats/callgrind/pipeline.c), a file must read
 * exactly as on one. */
char *tu_cg_reading(const char *name, const void *data, uint64_t size, unsigned threads,
                    uint32_t by);

/* Touches every call-graph accessor and computes recursion-safe function
 * costs for every event (all locations and each one); returns a sum of
 * what it saw so the work cannot be optimised away. 0 without a call graph. */
double tu_cg_exercise(const pk_profile *p);

/* `n` bytes gzip-compressed into a malloc'ed buffer of *out_n bytes
 * (NULL on failure): for feeding the readers compressed input. */
unsigned char *tu_gzip(const void *data, size_t n, size_t *out_n);

#endif
