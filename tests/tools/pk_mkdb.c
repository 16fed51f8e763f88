/*
 * tests/tools/pk_mkdb.c — write the sample HPCToolkit database (or a
 * variant of it) with the test fixture writer. Used by `make demo` until
 * profkit has its own writer, and by the CLI tests.
 *
 *   pk-mkdb [--variant plain|future|nocct|notrace|overlap] DIR
 *
 * overlap (issue 32): the sample plus 20,000 functions whose names point
 * at suffixes of one 1 MiB string in meta.db, 50 bytes apart: names that
 * add up to 10 GB in a file of about 2 MB.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/bytes.h"

#include "fixtures/v4_builder.h"

#define N_OVERLAP 20000
#define LONG_NAME (1u << 20)

/* `what` in m from `from` on, wrapping around once (names and the
 * function table are in order: each search starts where the last ended). */
static size_t find(const fx_image *m, const void *what, size_t n, size_t from)
{
    for (size_t k = 0; k + n <= m->size; k++) {
        size_t i = (from + k) % (m->size - n + 1);
        if (memcmp(m->data + i, what, n) == 0) return i;
    }
    return SIZE_MAX;
}

/* Each short name's pointer moved onto a suffix of the long name. */
static int overlap(const fx_db *base, const char *dir)
{
    fx_db db = *base;
    fx_function *fns = calloc(base->n_functions + N_OVERLAP + 1, sizeof *fns);
    char *names = malloc((size_t)N_OVERLAP * 8), *longname = malloc(LONG_NAME + 1);
    if (!fns || !names || !longname) return 1;
    memcpy(fns, base->functions, base->n_functions * sizeof *fns);
    memset(longname, 'x', LONG_NAME);
    memcpy(longname, "LONGNAME", 8);
    longname[LONG_NAME] = 0;
    fns[base->n_functions] = (fx_function){longname, -1, 0, -1, 0};
    for (int k = 0; k < N_OVERLAP; k++) {
        snprintf(names + 8 * k, 8, "o%05u", (unsigned)k % 100000u); /* k < 20,000 */
        fns[base->n_functions + 1 + k] = (fx_function){names + 8 * k, -1, 0, -1, 0};
    }
    db.functions = fns, db.n_functions = base->n_functions + N_OVERLAP + 1;
    fx_image img[4];
    if (fx_build(&db, img)) return 1;
    size_t at = find(&img[0], "LONGNAME", 8, 0), s = 0, ptr = 0;
    for (int k = 0; k < N_OVERLAP && at != SIZE_MAX; k++) {
        unsigned char le[8];
        s = find(&img[0], names + 8 * k, 7, s);
        pk_put_le64(le, s);
        if (s != SIZE_MAX) ptr = find(&img[0], le, 8, ptr);
        if (ptr == SIZE_MAX) return fprintf(stderr, "pk-mkdb: name %d not found\n", k), 1;
        pk_put_le64(img[0].data + ptr, at + 50 * (uint64_t)k);
    }
    if (mkdir(dir, 0777) && errno != EEXIST) return 1;
    for (int i = 0; i < 4; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, img[i].name);
        FILE *f = img[i].data ? fopen(path, "wb") : NULL;
        if (img[i].data && (!f || fwrite(img[i].data, 1, img[i].size, f) != img[i].size)) return 1;
        if (f && fclose(f)) return 1;
    }
    fx_free(img);
    free(fns), free(names), free(longname);
    return 0;
}

int main(int argc, char **argv)
{
    const char *variant = "plain", *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--variant") == 0 && i + 1 < argc)
            variant = argv[++i];
        else if (argv[i][0] != '-' && !dir)
            dir = argv[i];
        else
            dir = NULL, i = argc;
    }
    if (!dir) {
        fprintf(stderr, "usage: pk-mkdb [--variant plain|future|nocct|notrace|overlap] DIR\n");
        return 2;
    }
    fx_db db = *fx_sample_db();
    if (strcmp(variant, "future") == 0) {
        db.minor = 1;
        db.extra = 8;
        db.extra_flex = 1;
        db.shuffle = 1;
        db.unknown_enums = 1;
    } else if (strcmp(variant, "nocct") == 0) {
        db.no_cct = 1;
    } else if (strcmp(variant, "notrace") == 0) {
        db.traces = NULL;
    } else if (strcmp(variant, "overlap") == 0) {
        return overlap(&db, dir);
    } else if (strcmp(variant, "plain") != 0) {
        fprintf(stderr, "pk-mkdb: unknown variant '%s'\n", variant);
        return 2;
    }
    if (fx_write_dir(&db, dir) != 0) {
        fprintf(stderr, "pk-mkdb: cannot write %s\n", dir);
        return 1;
    }
    return 0;
}
