/*
 * formats/open.h — reading a profile into the model: what its files hold,
 * by the reader detect.c picks. The public pk_profile_open() and
 * pk_profile_open_memory() call these, then derive what the files do not
 * hold (a call graph's reconstructed calling-context tree), so that no
 * format depends on the analyses.
 */
#ifndef PK_FORMATS_OPEN_H
#define PK_FORMATS_OPEN_H

#include "profkit/profile.h"

/* pk_profile_open() without the derived parts; `out` must not be NULL. */
pk_status pk_formats_open(const char *path, const pk_open_options *opts, pk_profile **out);
/* pk_profile_open_memory() the same way; arguments already checked. */
pk_status pk_formats_open_memory(pk_format format, size_t n, const char *const *names,
                                 const void *const *data, const uint64_t *sizes,
                                 const pk_open_options *opts, pk_profile **out);

#endif
