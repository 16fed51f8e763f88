/*
 * util/safeout.h — how every output profkit writes comes into being.
 *
 * An output (a file, or an HPCToolkit database directory) is written under
 * a unique temporary name next to its target, created exclusively
 * (O_EXCL / mkdir) without following symbolic links, registered for
 * removal should a signal end the program (cleanup.h), and only when
 * complete put in place:
 *   - without PK_WRITE_FORCE by renameat2(RENAME_NOREPLACE) (or link() for
 *     a file where the file system lacks it), so of two writers racing for
 *     one target exactly one succeeds and nothing is ever overwritten;
 *   - with PK_WRITE_FORCE an existing target is replaced only if profkit
 *     wrote it: a regular file carrying profkit's mark (the extended
 *     attribute user.profkit, or the signature of a profkit format in its
 *     first bytes), or a directory holding profkit's marker file
 *     (.profkit, which lists what was written) and nothing else. Anything
 *     else (a symbolic link, another type, a directory with a meta.db and
 *     other files) is refused. The replacement is an atomic exchange
 *     (RENAME_EXCHANGE), checked to have swapped the very output that was
 *     recognised, after which the old one is removed.
 * Existence is checked when an output starts too, so a doomed write fails
 * before the work, but only the commit decides.
 *
 * The target "-" is standard output, as for git, coreutils and pprof:
 * written straight to a duplicate of descriptor 1 (nothing to rename, no
 * temporary; what was written cannot be taken back), never a file named
 * "-" (write "./-" for that). A directory cannot go there.
 */
#ifndef PK_UTIL_SAFEOUT_H
#define PK_UTIL_SAFEOUT_H

#include <stdint.h>

#include "cleanup.h"
#include "profkit/status.h"

typedef struct pk_safeout {
    char target[PK_CLEANUP_PATH];
    char tmp[PK_CLEANUP_PATH];
    int is_dir, force;
    int to_stdout; /* the target is "-": s->fd is a duplicate of descriptor 1 */
    int fd;        /* files: the temporary file, open for writing; -1 when closed */
    pk_cleanup *reg;
} pk_safeout;

/* Start an output file at `target` (flags: PK_WRITE_FORCE or 0); s->fd is
 * the temporary file (standard output's duplicate for "-"). On failure
 * nothing exists and s needs no abort. */
pk_status pk_safeout_file(pk_safeout *s, const char *target, uint32_t flags);
/* Start an output directory; s->tmp is the temporary directory to fill
 * (files created in it with O_EXCL). */
pk_status pk_safeout_dir(pk_safeout *s, const char *target, uint32_t flags);
/* Close (files), check (pk_safeout_set_check), mark and put in place. On
 * failure the temporary output is removed. */
pk_status pk_safeout_commit(pk_safeout *s);
/* 1 if `target` names standard output ("-"). */
int pk_safeout_is_stdout(const char *target);
/* Remove the temporary output. Safe on a failed start or twice. */
void pk_safeout_abort(pk_safeout *s);

/* A check every commit on this thread makes first (pk_profile_write sets
 * it to "the source profile's files are still whole" around a writer, so
 * no output made from a file that shrank meanwhile is put in place). NULL
 * clears it. */
void pk_safeout_set_check(pk_status (*check)(const void *arg), const void *arg);

#endif
