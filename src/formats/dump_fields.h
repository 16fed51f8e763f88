/*
 * formats/dump_fields.h — the fields of the record a format's dumper is
 * filling (dump.c of callgrind, cube, hpcrun, pprof): one append per field
 * type, bounded by the array's capacity, so each dumper only says what a
 * record holds.
 */
#ifndef PK_FORMATS_DUMP_FIELDS_H
#define PK_FORMATS_DUMP_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "profkit/dump.h"

typedef struct pk_dump_fields {
    pk_field *f; /* cap entries */
    size_t n, cap;
} pk_dump_fields;

/* A field past the capacity is left out (no record needs that many). */
static inline void pk_dump_put(pk_dump_fields *r, pk_field x)
{
    if (r->n < r->cap) r->f[r->n++] = x;
}
static inline void pk_dump_u(pk_dump_fields *r, const char *k, uint64_t v)
{
    pk_dump_put(r, (pk_field){k, PK_FIELD_UINT, {.u = v}});
}
static inline void pk_dump_x(pk_dump_fields *r, const char *k, uint64_t v)
{
    pk_dump_put(r, (pk_field){k, PK_FIELD_HEX, {.u = v}});
}
static inline void pk_dump_b(pk_dump_fields *r, const char *k, int v)
{
    pk_dump_put(r, (pk_field){k, PK_FIELD_BOOL, {.u = v != 0}});
}
static inline void pk_dump_s(pk_dump_fields *r, const char *k, const char *v)
{
    pk_dump_put(r, (pk_field){k, PK_FIELD_STR, {.s = v}});
}
static inline void pk_dump_r(pk_dump_fields *r, const char *k, double v)
{
    pk_dump_put(r, (pk_field){k, PK_FIELD_REAL, {.d = v}});
}

#endif
