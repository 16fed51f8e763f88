/*
 * profkit/write.h — writing a profile in one of the formats profkit knows.
 *
 * A writer works from the model only, so any profile profkit can open can
 * be written in any format it can write. Writers never leave a partial
 * result behind: they write under a temporary name next to the target and
 * rename it into place only when everything succeeded.
 */
#ifndef PROFKIT_WRITE_H
#define PROFKIT_WRITE_H

#include <stdint.h>
#include <stdio.h>

#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PK_WRITE_FORCE    0x1u /* replace an existing target */
#define PK_WRITE_NO_TRACE 0x2u /* leave traces out */
/* One file per location where the format has that form (Callgrind:
 * "path-01", "path-02"..., as callgrind writes one file per thread; a
 * single location is still written at `path`). */
#define PK_WRITE_SPLIT 0x4u
/* Compress values where the format can (Cube: ZCUBEX.DATA, one zlib
 * stream per call-tree row, as Score-P 1.x wrote them). */
#define PK_WRITE_COMPRESS 0x8u
/* Refuse to leave anything out: where the target format cannot hold part of
 * the profile (a min-combined metric in Callgrind, traces in Cube...), fail
 * with PK_ERR_UNSUPPORTED instead of writing the rest. */
#define PK_WRITE_STRICT 0x10u

/* Progress callback: `done` bytes written of about `total`. `total` is
 * an estimate, never smaller than `done`: once what is written passes
 * the estimate, `total` is 0 (unknown). Called from the writing thread,
 * at most a few hundred times. */
typedef void (*pk_progress_fn)(void *user, uint64_t done, uint64_t total);

/* Loss callback: the writer leaves `item` out (or changes it) because the
 * target format cannot hold it; `reason` is a complete sentence saying why
 * and what was written instead, if anything. Called once per item (a
 * metric, the traces, a kind of attribute), from the writing thread,
 * before anything is renamed into place. Nothing is ever left out without
 * this call: a writer with no callback to call still leaves the item out,
 * and under PK_WRITE_STRICT it fails instead. */
typedef void (*pk_loss_fn)(void *user, const char *item, const char *reason);

typedef struct pk_write_options {
    uint32_t flags;          /* PK_WRITE_* */
    pk_progress_fn progress; /* may be NULL */
    void *progress_user;
    pk_loss_fn loss; /* may be NULL */
    void *loss_user;
    /* Callgrind: write only the locations this selector names (the syntax
     * of pk_location_select(): "rank=3,thread=0", "#N"), summed into one
     * part, or one file each with PK_WRITE_SPLIT. NULL: every location. */
    const char *location;
} pk_write_options;

/* What a writer wrote (all optional to look at). */
typedef struct pk_write_stats {
    uint64_t bytes;            /* total bytes written */
    uint64_t n_values;         /* non-zero values written (all locations) */
    uint32_t n_files;          /* files written */
    uint32_t n_skipped_traces; /* traces tied to no location (damaged source): left out */
    uint32_t n_losses;         /* items reported through the loss callback */
} pk_write_stats;

/* Write `profile` as `format` at `path`. For PK_FORMAT_HPCTOOLKIT_V4 `path`
 * is a database directory (meta.db, profile.db, cct.db, trace.db when the
 * profile has traces, metrics/default.yaml). PK_ERR_IO if `path` exists and
 * PK_WRITE_FORCE is not given; PK_ERR_INVALID_ARG for an incomplete
 * profile (opened with PK_OPEN_KEEP_GOING after damage), which would
 * otherwise be written as if complete; PK_ERR_UNSUPPORTED when the profile
 * holds something the format cannot hold and PK_WRITE_STRICT is given.
 * `opts` and `stats` may be NULL. */
PK_API pk_status pk_profile_write(const pk_profile *profile, pk_format format, const char *path,
                                  const pk_write_options *opts, pk_write_stats *stats);

/* The PK_OPEN_* flags to open a profile with when it is opened to be
 * written as `format`: what reads it no finer than the format can hold.
 * HPCToolkit, Cube and pprof are written from the calling-context tree, so
 * a call graph's costs per line or instruction would be read only to be
 * dropped: PK_OPEN_BY_FUNCTION, which also makes the tree reconstructed
 * from a Callgrind file the one `profkit tree` shows (read with positions,
 * a tree big enough for the rebuild's node budget to prune can place a
 * little cost elsewhere). Callgrind and JSON keep positions: 0. */
PK_API uint32_t pk_write_open_flags(pk_format format);

/* ------------------------------------------------------------------ */
/* Output files: how every output comes into being                    */
/* ------------------------------------------------------------------ */

/* Every output profkit writes (pk_profile_write's, and the files below)
 * is written under a unique temporary name next to its target, created
 * exclusively without following symbolic links, and put in place only
 * when complete: never over an existing file, even one that appears
 * meanwhile, unless PK_WRITE_FORCE is given, and then only over an output
 * profkit itself wrote (it marks them; docs/robustness.md says how). */
typedef struct pk_output pk_output;

/* Start an output file at `path` (flags: PK_WRITE_FORCE or 0). Fails at
 * once when the target exists and may not be replaced. */
PK_API pk_status pk_output_open(const char *path, uint32_t flags, pk_output **out);
/* The stream to write to (the temporary file). */
PK_API FILE *pk_output_stream(pk_output *output);
/* PK_OK while every write to the stream has succeeded; else PK_ERR_IO with
 * a message naming the file, how far it got and why (disk full, file too
 * large...): what to report when a writer says only "write error". */
PK_API pk_status pk_output_status(pk_output *output);
/* Flush, close and put the file in place; frees `output`. A write error
 * anywhere before (disk full...) fails it, naming the file and the
 * reason, and nothing is left behind. */
PK_API pk_status pk_output_commit(pk_output *output);
/* Drop the temporary file; frees `output`. NULL is a no-op. */
PK_API void pk_output_abort(pk_output *output);

/* Remove every temporary output of this process that is still being
 * written. Async-signal-safe: a program calls it from its SIGINT, SIGTERM
 * and SIGHUP handlers before it exits (the profkit CLI does), so an
 * interrupted write leaves nothing behind. The library installs no such
 * handler itself. */
PK_API void pk_output_cleanup(void);

#ifdef __cplusplus
}
#endif

#endif /* PROFKIT_WRITE_H */
