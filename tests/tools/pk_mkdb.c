/*
 * tests/tools/pk_mkdb.c — write the sample HPCToolkit database (or a
 * variant of it) with the test fixture writer. Used by `make demo` until
 * profkit has its own writer, and by the CLI tests.
 *
 *   pk-mkdb [--variant plain|future|nocct|notrace] DIR
 */
#include <stdio.h>
#include <string.h>

#include "fixtures/v4_builder.h"

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
        fprintf(stderr, "usage: pk-mkdb [--variant plain|future|nocct|notrace] DIR\n");
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
