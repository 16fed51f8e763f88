/*
 * tests/support/pprof_build.h — pprof profile.proto messages made by hand
 * for the tests and the fuzzer's seeds: each helper appends one Profile
 * field (with the wire encoder of formats/pprof/pb.h), so a test states a
 * profile field by field, damage included, and knows every byte offset.
 */
#ifndef PK_TESTS_PPROF_BUILD_H
#define PK_TESTS_PPROF_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "formats/pprof/pb.h"

/* string_table entry (field 6) */
void ppb_str(pb_out *o, const char *s);
/* sample_type (field 1) or period_type (field 11) */
void ppb_vtype(pb_out *o, uint32_t field, uint64_t type, uint64_t unit);
void ppb_function(pb_out *o, uint64_t id, uint64_t name, uint64_t sys, uint64_t file,
                  int64_t start);
void ppb_mapping(pb_out *o, uint64_t id, uint64_t start, uint64_t limit, uint64_t offset,
                 uint64_t file, uint64_t build);
/* A location with n lines (fn[i], line[i]), innermost first. */
void ppb_location(pb_out *o, uint64_t id, uint64_t mapping, uint64_t addr, size_t n,
                  const uint64_t *fn, const int64_t *line);

/* A label: string (str != 0) or numeric (num, unit). */
typedef struct ppb_label {
    uint64_t key, str;
    int64_t num;
    uint64_t unit;
} ppb_label;

/* A sample: location ids leaf first, values, labels; `packed` 0 writes
 * each id and value as a field of its own (legal, and what some
 * producers do). */
void ppb_sample(pb_out *o, const uint64_t *locs, size_t n_locs, const int64_t *vals, size_t n_vals,
                const ppb_label *labels, size_t n_labels, int packed);
/* A varint field of the Profile (7..14: drop_frames...default_sample_type) */
void ppb_scalar(pb_out *o, uint32_t field, uint64_t v);

/* The test profile most tests start from (docs in pprof_build.c). */
void ppb_standard(pb_out *o);
/* gzip of d[n] into a malloc'ed buffer; *out_n its size. */
unsigned char *ppb_gzip(const void *d, size_t n, size_t *out_n);

#endif
