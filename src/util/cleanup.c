/*
 * util/cleanup.c — see cleanup.h.
 */
#define _GNU_SOURCE
#include "cleanup.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "profkit/write.h"

enum { FREE = 0, CLAIMED = 1, LIVE = 2 };
#define SLOTS_PER_CHUNK 16
#define TREE_DEPTH      4 /* temporary directories hold files and one level of directories */

struct pk_cleanup {
    _Atomic int state;
    int is_dir;
    char path[PK_CLEANUP_PATH];
};

typedef struct chunk {
    struct pk_cleanup slot[SLOTS_PER_CHUNK];
    struct chunk *_Atomic next;
} chunk;

static chunk first_chunk;

pk_cleanup *pk_cleanup_add(const char *path, int is_dir)
{
    if (strlen(path) >= PK_CLEANUP_PATH) return NULL;
    for (chunk *c = &first_chunk;; c = atomic_load(&c->next)) {
        for (int i = 0; i < SLOTS_PER_CHUNK; i++) {
            int expected = FREE;
            pk_cleanup *s = &c->slot[i];
            if (!atomic_compare_exchange_strong(&s->state, &expected, CLAIMED)) continue;
            strcpy(s->path, path);
            s->is_dir = is_dir;
            atomic_store(&s->state, LIVE);
            return s;
        }
        if (!atomic_load(&c->next)) {
            chunk *fresh = calloc(1, sizeof *fresh), *none = NULL;
            if (!fresh) return NULL;
            if (!atomic_compare_exchange_strong(&c->next, &none, fresh)) free(fresh);
        }
    }
}

void pk_cleanup_remove(pk_cleanup *c)
{
    if (c) atomic_store(&c->state, FREE);
}

/* Everything inside the directory open as `fd`, `depth` levels down:
 * the listing is read to its end, then once more from the start for
 * entries removing others may have made it skip. */
static void empty_dir(int fd, int depth)
{
    char buf[4096];
    for (int pass = 0; pass < 2; pass++) {
        lseek(fd, 0, SEEK_SET);
        long n;
        while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
            for (long at = 0; at < n;) {
                struct dirent64 *e = (struct dirent64 *)(buf + at);
                at += e->d_reclen;
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
                if (unlinkat(fd, e->d_name, 0) == 0 || depth <= 0) continue;
                int sub = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub < 0) continue;
                empty_dir(sub, depth - 1);
                close(sub);
                unlinkat(fd, e->d_name, AT_REMOVEDIR);
            }
        }
    }
}

void pk_cleanup_remove_tree(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        empty_dir(fd, TREE_DEPTH);
        close(fd);
    }
    rmdir(path);
}

void pk_output_cleanup(void)
{
    for (chunk *c = &first_chunk; c; c = atomic_load(&c->next))
        for (int i = 0; i < SLOTS_PER_CHUNK; i++) {
            pk_cleanup *s = &c->slot[i];
            if (atomic_load(&s->state) != LIVE) continue;
            if (s->is_dir)
                pk_cleanup_remove_tree(s->path);
            else
                unlink(s->path);
        }
}
