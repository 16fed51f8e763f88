/*
 * util/cleanup.h — temporary outputs a signal must not leave behind.
 *
 * Every output is first written under a temporary name (safeout.h). The
 * paths of those in progress are kept here, so that pk_output_cleanup()
 * (profkit/write.h), called from a SIGINT/SIGTERM/SIGHUP handler the
 * program installs, removes them: a temporary file, or a temporary
 * directory with what is inside it. Everything pk_output_cleanup() does is
 * async-signal-safe: fixed slots read with atomics, unlink/rmdir/openat
 * and getdents64 system calls, no allocation, no locks.
 *
 * Like the SIGBUS guard's registry this is process-wide state, as signal
 * handling is. Slots live in chunks that are never freed; a path is at
 * most PK_CLEANUP_PATH bytes (longer ones are refused before anything is
 * created).
 */
#ifndef PK_UTIL_CLEANUP_H
#define PK_UTIL_CLEANUP_H

#define PK_CLEANUP_PATH 4096

typedef struct pk_cleanup pk_cleanup;

/* Remember `path` (a file, or a directory if is_dir) as a temporary
 * output. NULL when out of memory or the path is too long: the caller
 * refuses to create it then. */
pk_cleanup *pk_cleanup_add(const char *path, int is_dir);
/* Forget it: it was renamed into place or removed. NULL is a no-op. */
void pk_cleanup_remove(pk_cleanup *c);
/* Remove a temporary directory and what the writers put in it (files and
 * directories, at most a few levels). Async-signal-safe. */
void pk_cleanup_remove_tree(const char *path);

#endif
