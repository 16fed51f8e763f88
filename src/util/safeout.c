/*
 * util/safeout.c — see safeout.h.
 */
#define _GNU_SOURCE
#include "safeout.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "profkit/write.h"

#define MARK_NAME    "user.profkit"
#define MARK_VALUE   "output"
#define MARKER_FILE  ".profkit"
#define MARKER_FIRST "profkit output\n"

static _Thread_local pk_status (*commit_check)(const void *);
static _Thread_local const void *commit_check_arg;

void pk_safeout_set_check(pk_status (*check)(const void *arg), const void *arg)
{
    commit_check = check, commit_check_arg = arg;
}

/* target without trailing slashes; the temporary name beside it:
 * DIR/.BASE.tmp-<12 random hex digits>. */
static pk_status name_tmp(pk_safeout *s, const char *target)
{
    size_t len = strlen(target);
    while (len > 1 && target[len - 1] == '/')
        len--;
    if (len == 0) return pk_fail(PK_ERR_INVALID_ARG, "empty output path");
    if (len + 32 >= sizeof s->target)
        return pk_fail(PK_ERR_INVALID_ARG, "%s: path too long", target);
    memcpy(s->target, target, len);
    s->target[len] = '\0';
    const char *slash = strrchr(s->target, '/');
    int dir_len = slash ? (int)(slash - s->target) + 1 : 0;
    unsigned char r[6];
    if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        static _Atomic unsigned counter;
        uint64_t x = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL) ^ (uint64_t)counter++ << 16 ^
                     (uint64_t)(uintptr_t)s;
        memcpy(r, &x, sizeof r);
    }
    char hex[16];
    snprintf(hex, sizeof hex, "%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3], r[4], r[5]);
    /* fits: len + 32 < the buffer, checked above */
    memcpy(s->tmp, s->target, (size_t)dir_len);
    s->tmp[dir_len] = '.';
    memcpy(s->tmp + dir_len + 1, s->target + dir_len, len - (size_t)dir_len);
    memcpy(s->tmp + len + 1, ".tmp-", 5);
    memcpy(s->tmp + len + 6, hex, 13);
    return PK_OK;
}

/* A pprof profile profkit wrote (formats/pprof/write.c): plain, its
 * string table opens with "" and "written by profkit..."; gzip, its
 * header's comment says so. */
static int pprof_signature(const unsigned char *b, size_t n)
{
    static const char sig[] = "written by profkit";
    size_t len = sizeof sig - 1, at = 10;
    if (n > 4 + len && b[0] == 0x32 && b[1] == 0 && b[2] == 0x32 && b[3] >= len && b[3] < 0x80)
        return memcmp(b + 4, sig, len) == 0;
    if (n < 10 || b[0] != 0x1f || b[1] != 0x8b || b[2] != 8 || !(b[3] & 0x10)) return 0;
    if (b[3] & 4) at += 2 + (n > 11 ? b[10] | (size_t)b[11] << 8 : n); /* FEXTRA */
    if (b[3] & 8) {                                                    /* FNAME */
        while (at < n && b[at])
            at++;
        at++;
    }
    return at + len <= n && memcmp(b + at, sig, len) == 0;
}

/* The first bytes of an output profkit writes, for file systems where the
 * mark attribute cannot be set. */
static int has_signature(const char *path)
{
    char buf[4097];
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = '\0';
    if (pprof_signature((const unsigned char *)buf, (size_t)n)) return 1;
    if (strncmp(buf, "{\"schema\": \"profkit.model/", 26) == 0 &&
        strstr(buf, "\"generator\": \"profkit "))
        return 1;
    if (strncmp(buf, "{\"$schema\":\"https://www.speedscope.app/", 39) == 0 &&
        strstr(buf, "\"exporter\":\"profkit\""))
        return 1;
    if (strncmp(buf, "# callgrind format\n", 19) == 0 && strstr(buf, "\ncreator: profkit"))
        return 1;
    /* profkit's CSV, before and after it gained module,file,line */
    return strncmp(buf, "location,context,parent,name,metric,scope,value\n", 48) == 0 ||
           strncmp(buf, "location,context,parent,name,module,file,line,metric,scope,value\n", 65) ==
               0;
}

static int has_mark(const char *path)
{
    char v[16];
    ssize_t n = lgetxattr(path, MARK_NAME, v, sizeof v);
    return n == (ssize_t)strlen(MARK_VALUE) && memcmp(v, MARK_VALUE, (size_t)n) == 0;
}

/* The marker's list of what the directory holds, NUL-separated in *out;
 * NULL when there is no marker. */
static char *read_marker(const char *dir, size_t *len)
{
    char path[PK_CLEANUP_PATH + 16];
    snprintf(path, sizeof path, "%s/%s", dir, MARKER_FILE);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0) return NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 20)) {
        close(fd);
        return NULL;
    }
    char *buf = malloc((size_t)st.st_size + 1);
    ssize_t n = buf ? read(fd, buf, (size_t)st.st_size) : -1;
    close(fd);
    size_t first = strlen(MARKER_FIRST);
    if (n < (ssize_t)first || memcmp(buf, MARKER_FIRST, first) != 0) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    for (char *c = buf; *c; c++)
        if (*c == '\n') *c = '\0';
    *len = (size_t)n;
    return buf;
}

static int listed(const char *list, size_t len, const char *name)
{
    for (size_t at = strlen(MARKER_FIRST); at < len; at += strlen(list + at) + 1)
        if (strcmp(list + at, name) == 0) return 1;
    return 0;
}

/* 1 if every entry of dir (relative names under prefix, one level of
 * subdirectories) is listed. */
static int only_listed(const char *dir, const char *prefix, const char *list, size_t len, int depth)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int ok = 1;
    for (struct dirent *e; ok && (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char rel[PK_CLEANUP_PATH], full[PK_CLEANUP_PATH * 2];
        /* a name too long to hold (with the "/" added below) is none of
         * ours: the directory is not only what was listed */
        int nr = snprintf(rel, sizeof rel - 1, "%s%s", prefix, e->d_name);
        int nf = snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
        struct stat st;
        if (!*prefix && strcmp(e->d_name, MARKER_FILE) == 0) continue;
        if (nr < 0 || (size_t)nr >= sizeof rel - 1 || nf < 0 || (size_t)nf >= sizeof full ||
            lstat(full, &st) != 0) {
            ok = 0;
        } else if (S_ISDIR(st.st_mode)) {
            strcat(rel, "/");
            ok =
                depth > 0 && listed(list, len, rel) && only_listed(full, rel, list, len, depth - 1);
        } else {
            ok = S_ISREG(st.st_mode) && listed(list, len, rel);
        }
    }
    closedir(d);
    return ok;
}

/* PK_OK if the existing `path` is an output profkit wrote, of the kind
 * being written; *st gets what it is. */
static pk_status recognise(const char *path, int is_dir, struct stat *st)
{
    if (lstat(path, st) != 0) return pk_fail(PK_ERR_IO, "%s: %s", path, strerror(errno));
    const char *what = NULL;
    if (S_ISLNK(st->st_mode))
        what = "is a symbolic link";
    else if (is_dir && !S_ISDIR(st->st_mode))
        what = "is not a directory";
    else if (!is_dir && !S_ISREG(st->st_mode))
        what = "is not a regular file";
    if (what)
        return pk_fail(PK_ERR_IO, "%s: exists and %s; --force replaces only what profkit wrote",
                       path, what);
    if (!is_dir && (has_mark(path) || has_signature(path))) return PK_OK;
    if (is_dir) {
        size_t len = 0;
        char *list = read_marker(path, &len);
        int ok = list && only_listed(path, "", list, len, 1);
        free(list);
        if (ok) return PK_OK;
    }
    return pk_fail(PK_ERR_IO,
                   "%s: exists and profkit cannot tell that it wrote it (%s); --force replaces "
                   "only profkit's own outputs: remove it yourself if it should go",
                   path,
                   is_dir ? "its .profkit marker is missing or does not list all it holds"
                          : "no profkit mark or signature");
}

static pk_status cannot_create(const pk_safeout *s, int e);

/* Before the work: fail now if the commit would. */
static pk_status precheck(pk_safeout *s)
{
    struct stat st;
    if (lstat(s->target, &st) != 0)
        return errno == ENOENT    ? PK_OK
               : errno == ENOTDIR ? cannot_create(s, errno)
                                  : pk_fail(PK_ERR_IO, "%s: %s", s->target, strerror(errno));
    if (!s->force)
        return pk_fail(PK_ERR_IO, "%s: already exists (use --force to replace it)", s->target);
    return recognise(s->target, s->is_dir, &st);
}

int pk_safeout_is_stdout(const char *target)
{
    return target && strcmp(target, "-") == 0;
}

/* "-": a duplicate of standard output, which commit closes. */
static pk_status start_stdout(pk_safeout *s, int is_dir)
{
    if (is_dir)
        return pk_fail(PK_ERR_UNSUPPORTED,
                       "standard output ('-'): this output is a directory (an HPCToolkit "
                       "database), which cannot be written to a stream; name a directory");
    s->to_stdout = 1;
    snprintf(s->target, sizeof s->target, "standard output");
    snprintf(s->tmp, sizeof s->tmp, "standard output");
    s->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (s->fd < 0) return pk_fail(PK_ERR_IO, "standard output: %s", strerror(errno));
    return PK_OK;
}

/* Why the temporary beside `target` could not be made, naming the
 * directory it goes in (not the temporary's own name). */
static pk_status cannot_create(const pk_safeout *s, int e)
{
    char dir[PK_CLEANUP_PATH];
    const char *slash = strrchr(s->target, '/');
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash == s->target ? 1 : slash - s->target),
                 s->target);
    else
        snprintf(dir, sizeof dir, ".");
    struct stat st;
    if (e == ENOENT || e == ENOTDIR) {
        if (stat(dir, &st) != 0)
            return pk_fail(PK_ERR_IO, "%s: cannot create: the folder %s does not exist", s->target,
                           dir);
        if (!S_ISDIR(st.st_mode))
            return pk_fail(PK_ERR_IO, "%s: cannot create: %s is not a folder", s->target, dir);
    }
    return pk_fail(PK_ERR_IO, "%s: cannot create in the folder %s: %s", s->target, dir,
                   strerror(e));
}

static pk_status start(pk_safeout *s, const char *target, uint32_t flags, int is_dir)
{
    memset(s, 0, sizeof *s);
    s->fd = -1, s->is_dir = is_dir, s->force = (flags & PK_WRITE_FORCE) != 0;
    if (pk_safeout_is_stdout(target)) return start_stdout(s, is_dir);
    pk_status st = name_tmp(s, target);
    if (!st) st = precheck(s);
    for (int attempt = 0; !st && attempt < 100; attempt++) {
        if (attempt && (st = name_tmp(s, target)) != PK_OK) break;
        if (!(s->reg = pk_cleanup_add(s->tmp, is_dir))) return pk_fail_nomem("starting an output");
        int made =
            is_dir ? mkdir(s->tmp, 0777)
                   : (s->fd = open(s->tmp,
                                   O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
                                   0666));
        if (made >= 0) {
            if (is_dir)
                lsetxattr(s->tmp, MARK_NAME, MARK_VALUE, strlen(MARK_VALUE), 0);
            else
                fsetxattr(s->fd, MARK_NAME, MARK_VALUE, strlen(MARK_VALUE), 0);
            return PK_OK;
        }
        int e = errno;
        pk_cleanup_remove(s->reg);
        s->reg = NULL;
        if (e != EEXIST) return cannot_create(s, e);
    }
    return st ? st : pk_fail(PK_ERR_IO, "%s: cannot find a free temporary name", s->target);
}

pk_status pk_safeout_file(pk_safeout *s, const char *target, uint32_t flags)
{
    return start(s, target, flags, 0);
}

pk_status pk_safeout_dir(pk_safeout *s, const char *target, uint32_t flags)
{
    return start(s, target, flags, 1);
}

void pk_safeout_abort(pk_safeout *s)
{
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
    if (s->to_stdout) return;
    if (s->reg) {
        if (s->is_dir)
            pk_cleanup_remove_tree(s->tmp);
        else
            unlink(s->tmp);
    }
    pk_cleanup_remove(s->reg);
    s->reg = NULL;
}

/* Entries of dir (one level of subdirectories) into the marker, a
 * directory before what it holds. */
static int list_entries(FILE *m, const char *dir, const char *prefix, int depth)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (!*prefix && strcmp(e->d_name, MARKER_FILE) == 0) continue;
        char full[PK_CLEANUP_PATH * 2], rel[PK_CLEANUP_PATH];
        snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
        snprintf(rel, sizeof rel, "%s%s/", prefix, e->d_name);
        struct stat st;
        if (lstat(full, &st) != 0) {
            rc = -1;
        } else if (S_ISDIR(st.st_mode) && depth > 0) {
            fprintf(m, "%s\n", rel);
            rc = list_entries(m, full, rel, depth - 1);
        } else {
            fprintf(m, "%s%s\n", prefix, e->d_name);
        }
    }
    closedir(d);
    return rc;
}

/* .profkit in a finished directory: what it holds, so that --force can
 * later tell it is profkit's and remove exactly that. */
static pk_status write_marker(const char *dir)
{
    char path[PK_CLEANUP_PATH + 16];
    snprintf(path, sizeof path, "%s/%s", dir, MARKER_FILE);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    FILE *m = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!m) {
        int e = errno;
        if (fd >= 0) close(fd);
        return pk_fail(PK_ERR_IO, "%s: cannot create: %s", path, strerror(e));
    }
    fputs(MARKER_FIRST, m);
    int rc = list_entries(m, dir, "", 1);
    if (fclose(m) != 0 || rc != 0)
        return pk_fail(PK_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    return PK_OK;
}

/* Remove an output profkit wrote (recognised before): a file, or exactly
 * the entries its marker lists, deepest first. */
static void remove_output(const char *path, int is_dir)
{
    if (!is_dir) {
        unlink(path);
        return;
    }
    size_t len = 0;
    char *list = read_marker(path, &len);
    if (!list) return;
    size_t first = strlen(MARKER_FIRST), n = 0;
    for (size_t at = first; at < len; at += strlen(list + at) + 1)
        n++;
    size_t *entry = malloc((n + 1) * sizeof *entry), k = 0;
    for (size_t at = first; entry && at < len; at += strlen(list + at) + 1)
        entry[k++] = at;
    while (entry && k-- > 0) { /* a directory is listed before what it holds */
        const char *name = list + entry[k];
        size_t l = strlen(name);
        char full[PK_CLEANUP_PATH * 2];
        snprintf(full, sizeof full, "%s/%s", path, name);
        if (l && name[l - 1] == '/')
            rmdir(full);
        else
            unlink(full);
    }
    free(entry);
    free(list);
    char marker[PK_CLEANUP_PATH + 16];
    snprintf(marker, sizeof marker, "%s/%s", path, MARKER_FILE);
    unlink(marker);
    rmdir(path);
}

/* Systems whose renameat2 lacks the flags: link() keeps a file's
 * no-clobber; a directory and the replacing rename lose atomicity. */
static pk_status install_fallback(pk_safeout *s)
{
    struct stat st;
    int exists = lstat(s->target, &st) == 0;
    if (exists && !s->force)
        return pk_fail(PK_ERR_IO, "%s: already exists (use --force to replace it)", s->target);
    if (exists) {
        pk_status r = recognise(s->target, s->is_dir, &st);
        if (r) return r;
    }
    if (!s->is_dir) {
        if (!exists && link(s->tmp, s->target) == 0) return unlink(s->tmp), PK_OK;
        if (!exists && errno == EEXIST)
            return pk_fail(PK_ERR_IO, "%s: already exists (use --force to replace it)", s->target);
        if (rename(s->tmp, s->target) == 0) return PK_OK;
    } else {
        char aside[PK_CLEANUP_PATH + 8];
        snprintf(aside, sizeof aside, "%s.old", s->tmp);
        if (exists && rename(s->target, aside) != 0)
            return pk_fail(PK_ERR_IO, "%s: cannot move aside: %s", s->target, strerror(errno));
        if (rename(s->tmp, s->target) == 0) {
            if (exists) remove_output(aside, 1);
            return PK_OK;
        }
        if (exists) rename(aside, s->target);
    }
    return pk_fail(PK_ERR_IO, "%s: cannot rename into place: %s", s->target, strerror(errno));
}

/* --force: swap the finished output with the recognised old one, check
 * the swap took what was recognised, remove the old one. */
static pk_status replace(pk_safeout *s)
{
    struct stat seen, now;
    pk_status st = recognise(s->target, s->is_dir, &seen);
    if (st) return st;
    if (renameat2(AT_FDCWD, s->tmp, AT_FDCWD, s->target, RENAME_EXCHANGE) != 0) {
        if (errno == EINVAL || errno == ENOSYS) return install_fallback(s);
        return pk_fail(PK_ERR_IO, "%s: cannot replace: %s", s->target, strerror(errno));
    }
    if (lstat(s->tmp, &now) != 0 || now.st_dev != seen.st_dev || now.st_ino != seen.st_ino) {
        renameat2(AT_FDCWD, s->tmp, AT_FDCWD, s->target, RENAME_EXCHANGE);
        return pk_fail(PK_ERR_IO, "%s: changed while profkit replaced it; left as it was",
                       s->target);
    }
    remove_output(s->tmp, s->is_dir);
    return PK_OK;
}

static pk_status install(pk_safeout *s)
{
    if (renameat2(AT_FDCWD, s->tmp, AT_FDCWD, s->target, RENAME_NOREPLACE) == 0) return PK_OK;
    int e = errno;
    if (e == EINVAL || e == ENOSYS) return install_fallback(s);
    if (e != EEXIST && e != ENOTEMPTY)
        return pk_fail(PK_ERR_IO, "%s: cannot rename %s into place: %s", s->target, s->tmp,
                       strerror(e));
    if (!s->force)
        return pk_fail(PK_ERR_IO,
                       "%s: already exists (it appeared while profkit was writing; use --force "
                       "to replace it)",
                       s->target);
    return replace(s);
}

/* Standard output: what was written stays written; a failed close (a
 * full disk behind a redirection) or a source that shrank is reported. */
static pk_status commit_stdout(pk_safeout *s)
{
    pk_status st = PK_OK;
    if (s->fd >= 0 && close(s->fd) != 0)
        st = pk_fail(PK_ERR_IO, "standard output: write failed: %s", strerror(errno));
    s->fd = -1;
    if (!st && commit_check) st = commit_check(commit_check_arg);
    return st;
}

pk_status pk_safeout_commit(pk_safeout *s)
{
    if (s->to_stdout) return commit_stdout(s);
    pk_status st = PK_OK;
    if (!s->is_dir && s->fd >= 0) {
        if (close(s->fd) != 0)
            st = pk_fail(PK_ERR_IO, "%s: write failed: %s", s->tmp, strerror(errno));
        s->fd = -1;
    }
    if (!st && commit_check) st = commit_check(commit_check_arg);
    if (!st && s->is_dir) st = write_marker(s->tmp);
    if (!st) st = install(s);
    if (st) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", pk_error_last());
        pk_safeout_abort(s);
        return pk_fail(st, "%s", msg);
    }
    pk_cleanup_remove(s->reg);
    s->reg = NULL;
    return PK_OK;
}
