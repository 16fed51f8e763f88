/*
 * util/error.h — setting the per-thread last-error message.
 *
 * Library code reports a failure by calling pk_fail(), which formats the
 * message into thread-local storage and returns the status, so a reader can
 * write `return pk_fail(PK_ERR_FORMAT, "meta.db: ...")` in one line.
 */
#ifndef PK_UTIL_ERROR_H
#define PK_UTIL_ERROR_H

#include "profkit/status.h"

#if defined(__GNUC__)
#define PK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PK_PRINTF(f, a)
#endif

/* Record `status` with a printf-style message; returns `status`. */
pk_status pk_fail(pk_status status, const char *fmt, ...) PK_PRINTF(2, 3);

/* Record an out-of-memory failure while doing `what`. */
pk_status pk_fail_nomem(const char *what);

/* Forget the last error (pk_error_last() then returns ""). */
void pk_error_clear(void);

/* Return x's status from the calling function when it is an error. */
#define PK_TRY(x)                                                                                  \
    do {                                                                                           \
        pk_status pk_try_ = (x);                                                                   \
        if (pk_try_) return pk_try_;                                                               \
    } while (0)

#endif
