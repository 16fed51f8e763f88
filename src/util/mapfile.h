/*
 * util/mapfile.h — read-only memory mapping of a whole file.
 *
 * Readers work on the mapped bytes in place (zero-copy): values in the
 * model point straight into the mapping, which lives as long as the
 * profile. Empty files map to a non-NULL zero-length buffer.
 */
#ifndef PK_UTIL_MAPFILE_H
#define PK_UTIL_MAPFILE_H

#include <stdint.h>

#include "profkit/status.h"

typedef struct pk_mapfile {
    const unsigned char *data;
    uint64_t size;
    int mapped; /* 1 if data must be munmap'ed */
} pk_mapfile;

/* Map `path`. On failure sets the last error naming the path. */
pk_status pk_map_file(const char *path, pk_mapfile *out);
void pk_unmap_file(pk_mapfile *m);
/* 1 if `path` exists (any type), 0 if not. */
int pk_path_exists(const char *path);
/* 1 if `path` is a directory. */
int pk_path_is_dir(const char *path);

#endif
