/*
 * formats/write_loss.c — pk_write_lose(): a writer's report of what it
 * leaves out, to the caller's callback, or a failure under --strict.
 */
#include <stdarg.h>
#include <stdio.h>

#include "formats/write_loss.h"

pk_status pk_write_lose(const pk_write_options *opts, pk_write_stats *stats, const char *path,
                        const char *item, const char *fmt, ...)
{
    char reason[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    if (opts && (opts->flags & PK_WRITE_STRICT))
        return pk_fail(PK_ERR_UNSUPPORTED, "%s: cannot write %s: %s (--strict)", path, item,
                       reason);
    if (stats) stats->n_losses++;
    if (opts && opts->loss) opts->loss(opts->loss_user, item, reason);
    return PK_OK;
}

void pk_write_progress(const pk_write_options *opts, uint64_t done, uint64_t estimate)
{
    if (opts && opts->progress)
        opts->progress(opts->progress_user, done, done <= estimate ? estimate : 0);
}
