/*
 * util/gzip.h — recognising gzip data, peeking at what it holds (for the
 * readers that accept gzip-compressed input, Callgrind files and .cubex
 * archives, and must detect the format inside before committing to it),
 * and inflating a whole stream within a memory budget.
 */
#ifndef PK_UTIL_GZIP_H
#define PK_UTIL_GZIP_H

#include <stddef.h>
#include <stdint.h>

#include "budget.h"

/* 1 if the bytes start with the gzip magic. */
int pk_is_gzip(const unsigned char *d, uint64_t n);

/* Inflate the beginning of gzip data (reading at most its first MiB) into
 * out[size]; returns the bytes produced, 0 when the stream is damaged. */
size_t pk_gunzip_head(const unsigned char *d, uint64_t n, unsigned char *out, size_t size);

/* Inflate all of gzip data d[n] (several members one after the other too;
 * trailing bytes that are not gzip are ignored) into a malloc'ed buffer
 * *out of *out_n bytes. What it grows to is charged to `b` (and stays
 * charged while the caller holds it; pk_budget_release when freed), so a
 * bomb fails with PK_ERR_LIMIT after inflating no more than the budget.
 * Messages name `file`, `what` and the compressed offset. */
pk_status pk_gunzip_all(const unsigned char *d, uint64_t n, pk_budget *b, const char *file,
                        const char *what, unsigned char **out, uint64_t *out_n);

#endif
