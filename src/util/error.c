/*
 * util/error.c — the per-thread last-error message behind pk_error_last().
 *
 * This is the only mutable state of the library outside the objects it
 * returns, and it is per thread, as in libgit2.
 */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define PK_ERROR_MAX 1024

static _Thread_local char last_error[PK_ERROR_MAX];

pk_status pk_fail(pk_status status, const char *fmt, ...)
{
    /* formatted aside first: the arguments may include pk_error_last()
     * (a message prefixed with where it happened) */
    char msg[PK_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    memcpy(last_error, msg, sizeof msg);
    return status;
}

pk_status pk_fail_nomem(const char *what)
{
    return pk_fail(PK_ERR_NOMEM, "out of memory while %s", what);
}

void pk_error_clear(void)
{
    last_error[0] = '\0';
}

const char *pk_error_last(void)
{
    return last_error;
}

const char *pk_status_str(pk_status status)
{
    switch (status) {
    case PK_OK:
        return "ok";
    case PK_ERR_INVALID_ARG:
        return "invalid argument";
    case PK_ERR_IO:
        return "i/o error";
    case PK_ERR_FORMAT:
        return "format error";
    case PK_ERR_UNSUPPORTED:
        return "unsupported";
    case PK_ERR_NOMEM:
        return "out of memory";
    case PK_ERR_NOT_FOUND:
        return "not found";
    case PK_ERR_UNKNOWN_FORMAT:
        return "unknown format";
    case PK_ERR_LIMIT:
        return "over the memory budget";
    }
    return "unknown status";
}
