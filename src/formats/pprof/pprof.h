/*
 * formats/pprof/pprof.h — pprof's profile.proto (docs/pprof.md): entry
 * points for formats/detect.c and formats/write.c.
 */
#ifndef PK_FORMATS_PPROF_H
#define PK_FORMATS_PPROF_H

#include "profkit/dump.h"
#include "profkit/profile.h"
#include "profkit/write.h"

/* 1 if the bytes are a pprof profile: gzip whose content, or plain bytes
 * that, read as protobuf fields of a Profile message. */
int pprof_detect_bytes(const unsigned char *d, uint64_t n);
int pprof_detect_file(const char *path);
pk_status pprof_open(const char *path, const pk_open_options *opts, pk_profile **out);
/* The same from an in-memory image called `name` (tests, fuzzers). */
pk_status pprof_open_memory(const char *name, const void *data, uint64_t size,
                            const pk_open_options *opts, pk_profile **out);

/* `profkit dump`: the Profile's messages with their offsets (dump.c). */
extern const char *const pprof_section_names[];
pk_status pprof_dump(const char *path, uint64_t max_memory, pk_record_fn fn, void *user,
                     const char *sections);
pk_status pprof_dump_memory(const char *name, const void *data, uint64_t size, uint64_t max_memory,
                            pk_record_fn fn, void *user, const char *sections);

/* Write `p` as a profile.proto at `path`: gzip-compressed unless the
 * name ends in ".pb" (docs/pprof.md). */
pk_status pprof_write(const pk_profile *p, const char *path, const pk_write_options *opts,
                      pk_write_stats *stats);

/* Attribute keys the reader sets and the writer reads back. */
#define PPROF_ATTR_LABEL     "pprof:label:"       /* location: a string label, key after it */
#define PPROF_ATTR_NUM_LABEL "pprof:num_label:"   /* location: a numeric label */
#define PPROF_ATTR_NUM_UNIT  "pprof:num_unit:"    /* location: a numeric label's unit */
#define PPROF_ATTR_MAPPING   "pprof:mapping"      /* profile: "START LIMIT OFFSET BUILD_ID PATH" */
#define PPROF_ATTR_SYSNAME   "pprof:system_name"  /* function: its system name */
#define PPROF_ATTR_UNSYM     "pprof:unsymbolized" /* function: stands for a mapping's frames */
#define PPROF_ATTR_UNNAMED   "pprof:unnamed"      /* function: named as go tool pprof names it */

#endif
