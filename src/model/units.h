/*
 * model/units.h — what a metric's unit says: a scale and a dimension
 * (time, bytes or other). One table for every part of the library that
 * compares, scales or writes units (analysis/units.c, the Callgrind
 * writer, the human number format of output/numbers.c).
 */
#ifndef PK_MODEL_UNITS_H
#define PK_MODEL_UNITS_H

#include <stddef.h>

#include "profkit/profile.h"

typedef enum pk_unit_dim {
    PK_UNIT_NONE = 0, /* no unit: a count */
    PK_UNIT_TIME,
    PK_UNIT_BYTES,
    PK_UNIT_OTHER,
} pk_unit_dim;

typedef struct pk_unit {
    double factor;   /* "1e-9 B": 1e-9 (a billionth of the unit) */
    char name[64];   /* "B"; "" when none */
    pk_unit_dim dim; /* of `name` */
    int exp;         /* time: one `name` is 10^exp seconds */
} pk_unit;

/* A time unit's power of ten in seconds ("ms": -3), case-insensitive;
 * 0 when `name` is no time unit profkit knows, else 1. */
int pk_unit_time_exp(const char *name, int *exp);

/* The SI name of 10^exp seconds for exp a multiple of 3 in [-18, 0]
 * ("ns"), or NULL. */
const char *pk_unit_time_name(int exp);

/* The metric's unit text: its own, else the time unit that ends its name
 * in parentheses as HPCToolkit writes it ("CPUTIME (sec)"), copied into
 * buf; "" when none. */
const char *pk_unit_text(const pk_metric *m, char *buf, size_t size);

/* Parse the metric's unit (pk_unit_text) into u; 0 when it has a scale
 * profkit cannot read (not a positive finite number, or too long). */
int pk_unit_parse(const pk_metric *m, pk_unit *u);

#endif /* PK_MODEL_UNITS_H */
