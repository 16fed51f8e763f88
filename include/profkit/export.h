/*
 * profkit/export.h — handing a metric's per-location values over in bulk.
 *
 * Bindings (the Python package, python/) want every value of a metric at
 * once as plain arrays they can wrap without copying, not one cursor step
 * per value. These functions fill such arrays; the library allocates them
 * and the caller releases them with pk_value_table_free(), so a binding can
 * keep them alive for exactly as long as its own array objects live.
 */
#ifndef PROFKIT_EXPORT_H
#define PROFKIT_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The stored values of one column as a sparse (context, location) matrix in
 * coordinate form: three parallel arrays of n entries, ordered by location,
 * then context (ascending source id, as pk_location_values_begin() gives
 * them). Each array is its own allocation (never NULL, even for n = 0). */
typedef struct pk_value_table {
    size_t n;
    pk_index *context;
    pk_index *location;
    double *value;
} pk_value_table;

/* Every stored value of `column` at the non-summary locations (summary
 * locations hold statistics across locations, not one location's values),
 * in one pass per location, spread over `threads` workers (0 = automatic).
 * Exactly n entries are allocated: memory is the values' own size.
 * PK_ERR_NOT_FOUND for a column out of range; on failure *out is
 * untouched. */
PK_API pk_status pk_column_values_export(const pk_profile *profile, pk_index column,
                                         unsigned threads, pk_value_table *out);

/* Release the arrays of a table filled by pk_column_values_export() and
 * zero it. NULL is a no-op. */
PK_API void pk_value_table_free(pk_value_table *table);

#ifdef __cplusplus
}
#endif

#endif /* PROFKIT_EXPORT_H */
