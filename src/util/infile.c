/*
 * util/infile.c — see infile.h.
 */
#define _GNU_SOURCE
#include "infile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "error.h"

const char *pk_file_kind(unsigned mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG:
        return "a regular file";
    case S_IFDIR:
        return "a directory";
    case S_IFIFO:
        return "a FIFO";
    case S_IFCHR:
        return "a character device";
    case S_IFBLK:
        return "a block device";
    case S_IFSOCK:
        return "a socket";
    case S_IFLNK:
        return "a symbolic link";
    }
    return "not a regular file";
}

static pk_status not_regular(const char *path, unsigned mode)
{
    return pk_fail(PK_ERR_IO, "%s: is %s, not a regular file; profkit reads only regular files",
                   path, pk_file_kind(mode));
}

pk_status pk_input_open(const char *path, int *fd, struct stat *st)
{
    if (stat(path, st) != 0)
        return pk_fail(PK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(st->st_mode)) return not_regular(path, st->st_mode);
    /* O_NONBLOCK: should the path have become a FIFO since stat, open
     * returns at once instead of waiting for a writer. */
    int f = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (f < 0) return pk_fail(PK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(f, st) != 0) {
        int e = errno;
        close(f);
        return pk_fail(PK_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(st->st_mode)) {
        close(f);
        return not_regular(path, st->st_mode);
    }
    int flags = fcntl(f, F_GETFL);
    if (flags >= 0) fcntl(f, F_SETFL, flags & ~O_NONBLOCK);
    *fd = f;
    return PK_OK;
}

pk_status pk_input_check(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return pk_fail(PK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d)
            return pk_fail(PK_ERR_IO, "%s: cannot list the directory: %s", path, strerror(errno));
        closedir(d);
        return PK_OK;
    }
    int fd;
    pk_status s = pk_input_open(path, &fd, &st);
    if (!s) close(fd);
    return s;
}
