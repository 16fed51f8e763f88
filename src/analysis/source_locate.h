/*
 * analysis/source_locate.h — pk_source_locate_within() with the identity
 * of the file it checked, for an answer whose reader opens the path again
 * later (source_locate.c says why).
 */
#ifndef PK_ANALYSIS_SOURCE_LOCATE_H
#define PK_ANALYSIS_SOURCE_LOCATE_H

#include <stdint.h>

#include "profkit/annotate.h"

/* pk_source_locate_within(), and on success the device and inode of the
 * file found, as it was when it was checked. */
pk_status pkq_source_locate_within_id(const pk_profile *p, pk_index file, const char *const *dirs,
                                      size_t n_dirs, char *buf, size_t size, uint64_t id[2]);

#endif
