/*
 * cli/hugepages.c — run the executables with glibc's malloc on transparent
 * huge pages.
 *
 * Why: every answer builds arrays of tens to hundreds of megabytes that
 * are touched once. Each 4 KiB page of them costs a page fault when it is
 * first written, and on a virtual machine a fault is dear: on the 2-core
 * VMs profkit is benchmarked on, 1 to 12 us each (0.3-3 GB/s of fresh
 * memory), against about 30 times less per byte for a 2 MiB page. A
 * conversion of 10,000 hpcrun files took 144,000 faults and spent a
 * third of its time in them; with the heap on huge pages it takes 7,000
 * (bench/README.md, "huge pages").
 *
 * Most kernels leave transparent huge pages to those who ask for them
 * (`madvise` mode), and glibc's malloc asks only when the tunable
 * glibc.malloc.hugetlb=1 is set (glibc >= 2.35), which it reads from the
 * environment at start-up only. So the executable, once, adds it to
 * GLIBC_TUNABLES and executes itself again, and the new
 * process puts GLIBC_TUNABLES back as the user had it, so that nothing
 * it starts inherits the change.
 *
 * Executing again takes 5-6 ms (the shared libraries are loaded twice),
 * more than a small input's faults cost: it is done only when the paths
 * on the command line hold WORTH_BYTES or more. An input takes about one
 * to two times its size in fresh memory, 250-500 faults per MB, 2.5-5 ms
 * per MB at 10 us each.
 *
 * Not done when pk_huge_pages_wanted() says no: PROFKIT_HUGEPAGES=0, or
 * (unless PROFKIT_HUGEPAGES=1) a virtual machine whose host takes back free
 * memory, where a huge page is dear on first touch (util/hugepolicy.c);
 * nor when the user set glibc.malloc.hugetlb
 * themselves; LD_PRELOAD is set (another allocator or valgrind is in
 * charge); the kernel's mode is not `madvise` (`always` gives huge pages
 * anyway, `never` none); a sanitizer owns malloc; not glibc >= 2.35. Any
 * failure just runs on without it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "util/sanitized.h"

#define TUNABLE     "glibc.malloc.hugetlb=1"
#define MARK_ENV    "PROFKIT_HUGEPAGES_EXEC" /* its pid, in the process executed again */
#define SAVED_ENV   "PROFKIT_SAVED_GLIBC_TUNABLES"
#define THP_ENABLE  "/sys/kernel/mm/transparent_hugepage/enabled"
#define WORTH_BYTES ((uint64_t)8 << 20)

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35)) &&          \
    !defined(PK_SANITIZED)
#define PK_HUGETLB_TUNABLE 1
#endif

/* 1 if glibc knows the tunable and owns malloc, and the kernel gives huge
 * pages to the memory that asks for them only. */
static int thp_on_request(void)
{
#ifdef PK_HUGETLB_TUNABLE
    char mode[128] = "";
    FILE *f = fopen(THP_ENABLE, "r");
    if (!f) return 0;
    size_t n = fread(mode, 1, sizeof mode - 1, f);
    fclose(f);
    mode[n] = '\0';
    return strstr(mode, "[madvise]") != NULL;
#else
    return 0;
#endif
}

/* Adds the bytes of the regular files in directory `path` (not below it)
 * to *sum, stopping once it reaches WORTH_BYTES. */
static void add_directory(const char *path, uint64_t *sum)
{
    DIR *d = opendir(path);
    if (!d) return;
    int dfd = dirfd(d);
    struct dirent *e;
    struct stat st;
    while (*sum < WORTH_BYTES && (e = readdir(d)))
        if (e->d_name[0] != '.' && !fstatat(dfd, e->d_name, &st, 0) && S_ISREG(st.st_mode))
            *sum += (uint64_t)st.st_size;
    closedir(d);
}

/* 1 if the paths among the arguments hold WORTH_BYTES or more: files,
 * and the files of directories (a database, a measurement directory). */
static int input_is_big(char **argv)
{
    uint64_t sum = 0;
    struct stat st;
    for (int i = 1; argv[i] && sum < WORTH_BYTES; i++) {
        if (argv[i][0] == '-' || stat(argv[i], &st)) continue;
        if (S_ISREG(st.st_mode))
            sum += (uint64_t)st.st_size;
        else if (S_ISDIR(st.st_mode))
            add_directory(argv[i], &sum);
    }
    return sum >= WORTH_BYTES;
}

/* 1 in the process executed again: the mark holds its own pid (exec
 * keeps it), so a mark inherited from elsewhere is no mark. */
static int executed_again(void)
{
    const char *mark = getenv(MARK_ENV);
    return mark && strtol(mark, NULL, 10) == (long)getpid();
}

static int wanted(char **argv)
{
    const char *tun = getenv("GLIBC_TUNABLES"), *preload = getenv("LD_PRELOAD");
    if (tun && strstr(tun, "glibc.malloc.hugetlb")) return 0;
    if (preload && *preload) return 0;
    /* the library's policy last: it reads sysfs, which a small input's
     * start need not pay (PROFKIT_HUGEPAGES, or a host taking free pages) */
    return thp_on_request() && input_is_big(argv) && pk_huge_pages_wanted();
}

/* GLIBC_TUNABLES back as the user had it, and the marks gone. */
static void restore_environment(void)
{
    const char *saved = getenv(SAVED_ENV);
    if (saved)
        setenv("GLIBC_TUNABLES", saved, 1);
    else
        unsetenv("GLIBC_TUNABLES");
    unsetenv(SAVED_ENV);
    unsetenv(MARK_ENV);
}

void cli_use_huge_pages(char **argv)
{
    if (executed_again()) {
        restore_environment();
        return;
    }
    unsetenv(MARK_ENV), unsetenv(SAVED_ENV); /* not ours: never handed on */
    if (!wanted(argv)) return;
    const char *old = getenv("GLIBC_TUNABLES");
    size_t n = (old ? strlen(old) + 1 : 0) + sizeof TUNABLE;
    char *tunables = malloc(n);
    if (!tunables) return;
    snprintf(tunables, n, "%s%s%s", old ? old : "", old && *old ? ":" : "", TUNABLE);
    char pid[32];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    int ok = (!old || !setenv(SAVED_ENV, old, 1)) && !setenv(MARK_ENV, pid, 1) &&
             !setenv("GLIBC_TUNABLES", tunables, 1);
    free(tunables);
    if (ok) execv("/proc/self/exe", argv); /* returns only when it failed */
    restore_environment();
}
