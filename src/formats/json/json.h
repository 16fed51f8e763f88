/*
 * formats/json/json.h — profkit's own full-model JSON (schema
 * "profkit.model/1", docs/json.md): entry points for formats/detect.c and
 * formats/write.c, and the names both halves of the module share.
 */
#ifndef PK_FORMATS_JSON_H
#define PK_FORMATS_JSON_H

#include "profkit/profile.h"
#include "profkit/write.h"

#define JSON_SCHEMA        "profkit.model/1"
#define JSON_SCHEMA_PREFIX "profkit.model/"

/* 1 if the file at `path` is a JSON document whose first member is
 * "schema": "profkit.model/..." (any version: the reader then names the
 * version it cannot read, instead of "not a profile"). */
int json_detect_file(const char *path);
int json_detect_bytes(const unsigned char *d, uint64_t n);
pk_status json_open(const char *path, const pk_open_options *opts, pk_profile **out);
/* The same from an in-memory image called `name` (tests, fuzzers). */
pk_status json_open_memory(const char *name, const void *data, uint64_t size,
                           const pk_open_options *opts, pk_profile **out);

pk_status json_write(const pk_profile *p, const char *path, const pk_write_options *opts,
                     pk_write_stats *stats);

/* Enumerations as the schema spells them, indexed by the model's values
 * (NULL-terminated). */
extern const char *const json_ctx_kinds[];
extern const char *const json_relations[];
extern const char *const json_entries[];
extern const char *const json_combines[];
extern const char *const json_scope_kinds[];
extern const char *const json_stats[];
extern const char *const json_entities[];
extern const char *const json_severities[];

#endif
