/*
 * profkit/dump.h — every structure of every file, as a stream of records.
 *
 * pk_dump() walks a profile's files with the same checked reader that
 * pk_profile_open() uses and hands each structure it decodes to a callback
 * as a pk_record: which file, at which byte offset, what it is, and its
 * fields. The CLI renders records as text or JSON lines (docs/dump.md);
 * programs can consume them directly.
 *
 * On damaged input the records decoded before the problem are delivered,
 * then pk_dump() fails with the same error pk_profile_open() would give.
 */
#ifndef PROFKIT_DUMP_H
#define PROFKIT_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pk_field_type {
    PK_FIELD_UINT = 0, /* v.u, printed in decimal */
    PK_FIELD_HEX = 1,  /* v.u, printed as 0x... (pointers, offsets, sizes, bit sets) */
    PK_FIELD_REAL = 2, /* v.d, printed so that it reads back exactly */
    PK_FIELD_STR = 3,  /* v.s, may be NULL (absent) */
    PK_FIELD_BOOL = 4, /* v.u, 0 or 1 */
} pk_field_type;

typedef struct pk_field {
    const char *key;
    pk_field_type type;
    union {
        uint64_t u;
        double d;
        const char *s;
    } v;
} pk_field;

/* pk_record.offset of a record that has no byte offset of its own: the
 * text prints "-", JSON null. */
#define PK_RECORD_NO_OFFSET UINT64_MAX

typedef struct pk_record {
    const char *file;    /* "meta.db", "profile.db", ... */
    uint64_t offset;     /* byte offset of the structure in file, or
                            PK_RECORD_NO_OFFSET (text formats read whole) */
    const char *section; /* dump section it belongs to, e.g. "contexts" */
    const char *type;    /* record type, e.g. "context"; see docs/dump.md */
    size_t n_fields;
    const pk_field *fields;
} pk_record;

/* Receives each record; return nonzero to stop the dump early. The record
 * and its strings are only valid during the call. */
typedef int (*pk_record_fn)(void *user, const pk_record *record);

typedef struct pk_dump_options {
    /* Comma-separated section names to emit (see pk_dump_sections()), or
     * NULL for all of them. */
    const char *sections;
    /* Memory budget of the reader, as pk_open_options.max_memory. */
    uint64_t max_memory;
} pk_dump_options;

/* Dump the profile at `path`. `opts` may be NULL. */
PK_API pk_status pk_dump(const char *path, const pk_dump_options *opts, pk_record_fn fn,
                         void *user);

/* Same, from in-memory file images (see pk_profile_open_memory()). */
PK_API pk_status pk_dump_memory(pk_format format, size_t n_files, const char *const *names,
                                const void *const *data, const uint64_t *sizes,
                                const pk_dump_options *opts, pk_record_fn fn, void *user);

/* NULL-terminated list of the section names a format's dump knows
 * (NULL for a format pk_dump() lists no records of). pk_dump() refuses an
 * unknown name with PK_ERR_INVALID_ARG, naming the format's sections. */
PK_API const char *const *pk_dump_sections(pk_format format);
/* The format whose records pk_dump() lists for `path` (detected as
 * pk_dump() detects it): PK_FORMAT_HPCTOOLKIT_V4, _CALLGRIND, _CUBE or
 * _HPCRUN. PK_ERR_UNSUPPORTED for a profile dump does not take apart
 * (experiment.xml, profkit JSON, a measurement directory). */
PK_API pk_status pk_dump_format(const char *path, pk_format *out);

#ifdef __cplusplus
}
#endif

#endif /* PROFKIT_DUMP_H */
