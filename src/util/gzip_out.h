/*
 * util/gzip_out.h — a stdio stream that gzip-compresses (zlib) what is
 * written to it into another stream, for outputs users name "*.gz".
 * Memory is zlib's window and one buffer, whatever is written.
 */
#ifndef PK_UTIL_GZIP_OUT_H
#define PK_UTIL_GZIP_OUT_H

#include <stdio.h>

#include "profkit/status.h"

typedef struct pk_gzout pk_gzout;

/* A stream compressing into `under` at zlib level `level` (1-9); NULL
 * with the error set when out of memory. */
FILE *pk_gzout_open(FILE *under, int level, pk_gzout **state);
/* Finish the gzip stream and free it: PK_OK, or PK_ERR_IO when writing
 * to `under` failed or PK_ERR_NOMEM when zlib could not work; the
 * stream is closed either way. */
pk_status pk_gzout_close(FILE *f, pk_gzout *state);
/* Bytes written to the stream so far (before compression). */
unsigned long long pk_gzout_in(const pk_gzout *state);

#endif
