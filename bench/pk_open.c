/*
 * bench/pk_open.c — time pk_profile_open() alone on one profile: wall
 * time, MB/s of the input and peak RSS, best of N runs. Used by
 * bench_cube.sh (the other benchmarks time whole CLI commands).
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "profkit/profkit.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Bytes of the input: a file's, or a directory's files' (a database or an
 * hpcrun measurement directory). */
static double input_bytes(const char *path, const struct stat *st)
{
    if (!S_ISDIR(st->st_mode)) return (double)st->st_size;
    double n = 0;
    DIR *d = opendir(path);
    char buf[8192];
    struct stat f;
    for (struct dirent *e; d && (e = readdir(d));) {
        snprintf(buf, sizeof buf, "%s/%s", path, e->d_name);
        if (stat(buf, &f) == 0 && S_ISREG(f.st_mode)) n += (double)f.st_size;
    }
    if (d) closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: pk-open PROFILE [RUNS]\n");
        return 2;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 3;
    struct stat st;
    if (stat(argv[1], &st) != 0) return perror(argv[1]), 1;
    double best = 1e30;
    for (int i = 0; i < runs; i++) {
        pk_profile *p;
        double t0 = now();
        if (pk_profile_open(argv[1], NULL, &p) != PK_OK) {
            fprintf(stderr, "%s\n", pk_error_last());
            return 1;
        }
        double t = now() - t0;
        if (t < best) best = t;
        pk_profile_free(p);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double bytes = input_bytes(argv[1], &st);
    printf("%s: %.1f MB in %.3f s = %.0f MB/s, peak RSS %.0f MB\n", argv[1], bytes / 1e6, best,
           bytes / 1e6 / best, ru.ru_maxrss / 1024.0);
    return 0;
}
