/*
 * util/gzip.h — recognising gzip data and peeking at what it holds, for
 * the readers that accept gzip-compressed input (Callgrind files, .cubex
 * archives) and must detect the format inside before committing to it.
 */
#ifndef PK_UTIL_GZIP_H
#define PK_UTIL_GZIP_H

#include <stddef.h>
#include <stdint.h>

/* 1 if the bytes start with the gzip magic. */
int pk_is_gzip(const unsigned char *d, uint64_t n);

/* Inflate the beginning of gzip data (reading at most its first MiB) into
 * out[size]; returns the bytes produced, 0 when the stream is damaged. */
size_t pk_gunzip_head(const unsigned char *d, uint64_t n, unsigned char *out, size_t size);

#endif
