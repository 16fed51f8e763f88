/*
 * formats/cube/tar.h — the tar container of a .cubex file: an index of its
 * members over the bytes in place (ustar, pax and GNU long names).
 */
#ifndef PK_FORMATS_CUBE_TAR_H
#define PK_FORMATS_CUBE_TAR_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

typedef struct cube_member {
    char name[256];
    const unsigned char *data; /* into the archive bytes */
    uint64_t size;
    uint64_t offset; /* of the data, in the archive */
} cube_member;

typedef struct cube_tar {
    cube_member *m; /* malloc */
    size_t n;
    unsigned n_bad_checksums;
    uint64_t first_bad; /* offset of the first bad header */
    int truncated;      /* the archive ends without its end-of-archive blocks */
} cube_tar;

/* 1 if the bytes begin like a tar archive (a header with a valid
 * checksum or the ustar magic). */
int cube_tar_looks_like(const unsigned char *d, uint64_t n);

/* Index the members of the archive `d` (file name `file` for messages).
 * Wrong header checksums are tolerated and reported as warnings on `p`;
 * a header or member that runs past the end is an error. */
pk_status cube_tar_index(pk_profile *p, const char *file, const unsigned char *d, uint64_t n,
                         cube_tar *out);
void cube_tar_free(cube_tar *t);
/* The member called `name`, or NULL. */
const cube_member *cube_tar_find(const cube_tar *t, const char *name);

#endif
