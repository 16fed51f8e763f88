/*
 * formats/write_loss.h — how a writer says what its format cannot hold.
 *
 * Every writer calls pk_write_lose() once per item it leaves out or
 * changes (a metric Callgrind cannot sum, traces Cube has no place for),
 * before it renames anything into place. The caller's loss callback hears
 * of it; under PK_WRITE_STRICT the call fails instead, and the writer
 * returns that failure so nothing is written. Nothing is dropped silently.
 */
#ifndef PK_FORMATS_WRITE_LOSS_H
#define PK_FORMATS_WRITE_LOSS_H

#include "profkit/write.h"
#include "util/error.h"

/* Report that `item` ("metric min_time", "traces") is left out or changed
 * in `path`; `fmt` says why, as a sentence. Returns PK_OK to go on, or
 * PK_ERR_UNSUPPORTED (with the error set, naming path, item and reason)
 * under PK_WRITE_STRICT. `opts` and `stats` may be NULL. */
pk_status pk_write_lose(const pk_write_options *opts, pk_write_stats *stats, const char *path,
                        const char *item, const char *fmt, ...) PK_PRINTF(5, 6);

/* Tell the caller's progress callback (if any) that `done` bytes are
 * written of about `estimate`: the estimate only while it is at least
 * what is done, else 0 ("total unknown"), so a progress line never
 * claims a total smaller than what is already written. */
void pk_write_progress(const pk_write_options *opts, uint64_t done, uint64_t estimate);

#endif
