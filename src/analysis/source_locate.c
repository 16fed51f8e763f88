/*
 * analysis/source_locate.c — where a profile's source file is on this
 * machine (pk_source_locate(), profkit/annotate.h): the copy an HPCToolkit
 * database keeps under src/, the recorded path, and the directories the
 * user names, tried with every tail of the recorded path because the
 * build tree the profile recorded is rarely where the sources are now;
 * last, the tails under the database's src/ (a copied database whose src/
 * lost the leading directories, as the hatchet test data has it).
 * pk_source_locate_within() tries only the places under the database's
 * src/ and the user's directories, and checks where the file really is
 * (symbolic links and ".." resolved): what a server may read for a URL.
 * The check is made on the opened file (/proc/self/fd names it), and its
 * device and inode are kept (pkq_source_locate_within_id()): the reader
 * maps the path again later and refuses any other file found there then,
 * so a symbolic link swapped in after the check is not followed out.
 */
#define _DEFAULT_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/source_locate.h"
#include "profkit/annotate.h"
#include "util/error.h"
#include "util/infile.h"

typedef struct finder {
    char *buf;
    size_t size;
    int too_long;
    uint64_t id[2]; /* allowed(): the device and inode of the file checked */
} finder;

/* dir/rest (dir may be NULL or "": rest alone) is a readable regular file:
 * then it is in f->buf. */
static int try_path(finder *f, const char *dir, size_t dir_len, const char *rest)
{
    int n = dir && dir_len ? snprintf(f->buf, f->size, "%.*s/%s", (int)dir_len, dir, rest)
                           : snprintf(f->buf, f->size, "%s", rest);
    if (n < 0 || (size_t)n >= f->size) {
        f->too_long = 1;
        return 0;
    }
    struct stat st;
    return stat(f->buf, &st) == 0 && S_ISREG(st.st_mode) && access(f->buf, R_OK) == 0;
}

/* The directory a profile was opened from: the path itself when it is a
 * directory (a database), else the part before its last slash. */
static size_t profile_dir(const char *path, int *is_dir)
{
    struct stat st;
    *is_dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    if (*is_dir) return strlen(path);
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) : 0;
}

/* Under dir: the path and each tail of it after a slash. */
static int try_tails(finder *f, const char *dir, const char *path)
{
    size_t dl = strlen(dir);
    for (const char *t = path; t; t = strchr(t, '/')) {
        while (*t == '/')
            t++;
        if (*t && try_path(f, dir, dl, t)) return 1;
    }
    return 0;
}

static int locate(finder *f, const char *where, const char *path, int copied,
                  const char *const *dirs, size_t n_dirs)
{
    int is_dir = 0;
    size_t dl = where ? profile_dir(where, &is_dir) : 0;
    if (copied && where && is_dir && try_path(f, where, dl, path)) return 1;
    if (path[0] == '/' && try_path(f, NULL, 0, path)) return 1;
    if (path[0] != '/' && where && dl && try_path(f, where, dl, path)) return 1;
    if (path[0] != '/' && try_path(f, NULL, 0, path)) return 1;
    /* hpcprof's copy "src/home/u/a.c" of "/home/u/a.c" */
    if (copied && strncmp(path, "src/", 4) == 0 && try_path(f, NULL, 0, path + 3)) return 1;
    for (size_t i = 0; i < n_dirs; i++)
        if (dirs[i] && *dirs[i] && try_tails(f, dirs[i], path)) return 1;
    /* a database whose src/ was rearranged (copied, trimmed): its tails there */
    if (copied && where && is_dir) {
        char src[4096];
        int k = snprintf(src, sizeof src, "%.*s/src", (int)dl, where);
        if (k > 0 && (size_t)k < sizeof src && try_tails(f, src, path)) return 1;
    }
    return 0;
}

/* The arguments checked, file's record and the profile's path (NULL
 * when unknown): what both lookups start from. */
static pk_status start(const pk_profile *p, pk_index file, const char *const *dirs, size_t n_dirs,
                       const char *buf, size_t size, const char *who, pk_file *pf,
                       pk_profile_info *pi)
{
    if (!p || !buf || size == 0 || (!dirs && n_dirs))
        return pk_fail(PK_ERR_INVALID_ARG, "%s: bad arguments", who);
    pk_status st = pk_file_get(p, file, pf);
    if (st) return st;
    if (!pf->path || !*pf->path)
        return pk_fail(PK_ERR_NOT_FOUND, "source file %u has no recorded path", file);
    if (pk_profile_get_info(p, pi) != PK_OK) pi->path = NULL;
    return PK_OK;
}

pk_status pk_source_locate(const pk_profile *p, pk_index file, const char *const *dirs,
                           size_t n_dirs, char *buf, size_t size)
{
    pk_file pf;
    pk_profile_info pi;
    pk_status st = start(p, file, dirs, n_dirs, buf, size, "pk_source_locate", &pf, &pi);
    if (st) return st;
    finder f = {buf, size, 0};
    if (locate(&f, pi.path, pf.path, (pf.flags & PK_FILE_COPIED) != 0, dirs, n_dirs)) return PK_OK;
    buf[0] = 0;
    if (f.too_long)
        return pk_fail(PK_ERR_LIMIT, "source file %s: a candidate path is too long", pf.path);
    return pk_fail(PK_ERR_NOT_FOUND, "source file %s not found", pf.path);
}

/* The resolved `real` lies in the directory `root` (resolved too). */
static int inside(const char *real, const char *root)
{
    size_t n = strlen(root);
    return n && strncmp(real, root, n) == 0 && (real[n] == '/' || (n == 1 && root[0] == '/'));
}

/* Where the open file fd really is: /proc's name of it, else (no /proc)
 * `path` resolved. */
static int real_path_of(int fd, const char *path, char real[PATH_MAX])
{
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, real, PATH_MAX - 1);
    if (n > 0 && real[0] == '/') return real[n] = 0, 1;
    return realpath(path, real) != NULL;
}

/* f->buf, as opened, lies under the database's src/ or one of dirs; its
 * device and inode into f->id. */
static int allowed(finder *f, const char *src, const char *const *dirs, size_t n_dirs)
{
    char real[PATH_MAX], root[PATH_MAX];
    struct stat st;
    int fd, ok = 0;
    if (pk_input_open(f->buf, &fd, &st) != PK_OK) return pk_error_clear(), 0;
    if (real_path_of(fd, f->buf, real)) {
        ok = src && realpath(src, root) && inside(real, root);
        for (size_t i = 0; !ok && i < n_dirs; i++)
            ok = dirs[i] && *dirs[i] && realpath(dirs[i], root) && inside(real, root);
    }
    close(fd);
    f->id[0] = (uint64_t)st.st_dev, f->id[1] = (uint64_t)st.st_ino;
    return ok;
}

pk_status pk_source_locate_within(const pk_profile *p, pk_index file, const char *const *dirs,
                                  size_t n_dirs, char *buf, size_t size)
{
    uint64_t id[2];
    return pkq_source_locate_within_id(p, file, dirs, n_dirs, buf, size, id);
}

pk_status pkq_source_locate_within_id(const pk_profile *p, pk_index file, const char *const *dirs,
                                      size_t n_dirs, char *buf, size_t size, uint64_t id[2])
{
    pk_file pf;
    pk_profile_info pi;
    pk_status st = start(p, file, dirs, n_dirs, buf, size, "pk_source_locate_within", &pf, &pi);
    if (st) return st;
    finder f = {buf, size, 0, {0, 0}};
    int is_dir = 0, copied = (pf.flags & PK_FILE_COPIED) != 0, found = 0;
    size_t dl = pi.path ? profile_dir(pi.path, &is_dir) : 0;
    char src[4096];
    int k = is_dir ? snprintf(src, sizeof src, "%.*s/src", (int)dl, pi.path) : -1;
    const char *own = k > 0 && (size_t)k < sizeof src ? src : NULL;
    if (copied && own && try_path(&f, pi.path, dl, pf.path)) found = allowed(&f, own, dirs, n_dirs);
    for (size_t i = 0; !found && i < n_dirs; i++)
        if (dirs[i] && *dirs[i] && try_tails(&f, dirs[i], pf.path))
            found = allowed(&f, own, dirs, n_dirs);
    if (!found && own && try_tails(&f, own, pf.path)) found = allowed(&f, own, dirs, n_dirs);
    if (found) return id[0] = f.id[0], id[1] = f.id[1], PK_OK;
    buf[0] = 0;
    return pk_fail(PK_ERR_NOT_FOUND,
                   "source file %s not found under the profile's src/ or the directories given",
                   pf.path);
}
