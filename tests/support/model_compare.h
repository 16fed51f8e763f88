/*
 * tests/support/model_compare.h — asserting that two profiles hold the
 * same model, through the public API only.
 *
 * Used by every round-trip test (read -> write -> read): dimensions field
 * by field, values bit for bit in both orders (location-major and
 * context-major), traces sample by sample. On the first difference it
 * fails the current cmocka test with a message naming what differs.
 */
#ifndef PK_TESTS_MODEL_COMPARE_H
#define PK_TESTS_MODEL_COMPARE_H

#include "profkit/profkit.h"

/* `label` prefixes failure messages (e.g. the database path). */
void tu_assert_same_model(const pk_profile *a, const pk_profile *b, const char *label);

/* The same, for `b` written from `a` in the intermediate v4.0 layout
 * (tests/fixtures/v40_writer.h), which has no entry points: each entry
 * point of `a` is written as a root context of hpcrun's placeholder
 * function ("<program root>"), which profkit reads as the entry point it
 * stands for, so the contexts are the same; the placeholder functions are
 * name-only functions appended after a's, used by no context. */
void tu_assert_same_model_v40(const pk_profile *a, const pk_profile *b, const char *label);

/* The same, for `b` written by the HPCToolkit writer from an `a` it had to
 * fit to HPCToolkit's readers (formats/hpctoolkit/write_shape.h; ids kept,
 * no entry point added): metrics, scopes and columns are matched by what
 * they mean, not by index or stored id; every value of a is in b bit for
 * bit; b may hold more (scopes derived, statistics combined). */
void tu_assert_same_model_shaped(const pk_profile *a, const pk_profile *b, const char *label);

#endif
