/*
 * formats/hpcrun/hr_dump.h — the hpcrun module's entry points for
 * formats/detect.c: detection and `profkit dump` records (dump.c).
 */
#ifndef PK_FORMATS_HPCRUN_HR_DUMP_H
#define PK_FORMATS_HPCRUN_HR_DUMP_H

#include "formats/hpcrun/hpcrun.h"
#include "profkit/dump.h"

extern const char *const hr_section_names[];
/* The whole file is parsed (and checked) before the first record. */
pk_status hr_dump(const char *path, pk_record_fn fn, void *user, const char *sections);
pk_status hr_dump_memory(const char *name, const void *data, uint64_t size, pk_record_fn fn,
                         void *user, const char *sections);

#endif
