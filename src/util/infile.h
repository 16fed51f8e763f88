/*
 * util/infile.h — opening an input file without trusting what the path
 * names.
 *
 * A path handed to profkit (or named inside a profile: a database's
 * trace.db, an hpcrun loadmap's binary) may be a FIFO, a device, a socket
 * or a directory. open(2) on a FIFO blocks until a writer appears, on some
 * devices it has side effects (a tape rewinds, a terminal becomes the
 * controlling one), so the type is checked with stat(2) before the file
 * is opened, and again with fstat(2) on what was opened (non-blocking,
 * without acquiring a terminal), so a swap between the two is caught too.
 * Only regular files are ever read.
 */
#ifndef PK_UTIL_INFILE_H
#define PK_UTIL_INFILE_H

#include <sys/stat.h>

#include "profkit/status.h"

/* Open `path` for reading; *fd (O_CLOEXEC, blocking) and *st on success.
 * Refuses anything but a regular file with PK_ERR_IO and a message naming
 * the path and what it is ("a FIFO", "a character device"...); a failed
 * open names the reason (permission denied...). */
pk_status pk_input_open(const char *path, int *fd, struct stat *st);

/* What a file of mode `mode` is, for messages: "a regular file", "a FIFO"... */
const char *pk_file_kind(unsigned mode);

/* PK_OK if `path` may be read as a profile's input: a regular file that
 * opens, or a directory that can be listed. Names the reason otherwise. */
pk_status pk_input_check(const char *path);

#endif
