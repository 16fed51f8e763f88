/*
 * formats/callgrind/callgrind.h — the Callgrind format module's entry
 * points for formats/detect.c and formats/write.c.
 */
#ifndef PK_FORMATS_CALLGRIND_H
#define PK_FORMATS_CALLGRIND_H

#include "profkit/profile.h"
#include "profkit/write.h"

/* 1 if `path` is a Callgrind/Cachegrind/Xdebug file (plain or gzip), or
 * the base name of a run's files (name.N, name-TT...). */
int cg_detect_path(const char *path);
int cg_detect_file(const char *path);
pk_status cg_open(const char *path, const pk_open_options *opts, pk_profile **out);
/* Same, from an in-memory image of one file called `name` (tests, fuzzers). */
pk_status cg_open_memory(const char *name, const void *data, uint64_t size,
                         const pk_open_options *opts, pk_profile **out);

/* `profkit dump`: the call graph as records (dump.c). */
#include "profkit/dump.h"
extern const char *const cg_section_names[];
pk_status cg_dump(const char *path, pk_record_fn fn, void *user, const char *sections);
pk_status cg_dump_memory(const char *name, const void *data, uint64_t size, pk_record_fn fn,
                         void *user, const char *sections);

pk_status cg_write(const pk_profile *p, const char *path, const pk_write_options *opts,
                   pk_write_stats *stats);

#endif
