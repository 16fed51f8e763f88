/*
 * tests/tools/pk_mkhpcrun.c — write a 02.00/03.00 .hpcrun file from a
 * 04.00 one (tests/fixtures/hpcrun_dense.c), for the CLI tests and for
 * checking profkit's dense reader against release-2022 hpcproftt by hand.
 *
 *   pk-mkhpcrun [--version 02.00|03.00] [--epochs N] [--lush] [--old-flags] IN.hpcrun OUT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures/hpcrun_dense.h"
#include "profkit/profkit.h"
#include "support/testutil.h"

static int usage(void)
{
    fprintf(stderr, "usage: pk-mkhpcrun [--version 02.00|03.00] [--epochs N] [--lush] "
                    "[--old-flags] IN.hpcrun OUT\n");
    return 2;
}

int main(int argc, char **argv)
{
    fx_dense_options o = {"03.00", 1, 0, 0};
    const char *in = NULL, *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--version") == 0 && i + 1 < argc)
            o.version = argv[++i];
        else if (strcmp(argv[i], "--epochs") == 0 && i + 1 < argc)
            o.epochs = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "--lush") == 0)
            o.lush = 1;
        else if (strcmp(argv[i], "--old-flags") == 0)
            o.old_flags = 1;
        else if (argv[i][0] != '-' && !in)
            in = argv[i];
        else if (argv[i][0] != '-' && !out)
            out = argv[i];
        else
            return usage();
    }
    if (!in || !out || o.epochs < 1) return usage();
    size_t size;
    unsigned char *data = tu_read_file(in, &size);
    if (!data) return fprintf(stderr, "pk-mkhpcrun: cannot read %s\n", in), 1;
    pk_arena a;
    pk_arena_init(&a);
    hr_file f;
    pk_buf b = {0};
    int rc = 1;
    if (hr_parse(in, data, size, &a, &f) != PK_OK)
        fprintf(stderr, "pk-mkhpcrun: %s\n", pk_error_last());
    else if (fx_write_dense(&f, &o, &b) != 0)
        fprintf(stderr, "pk-mkhpcrun: %s is not a 04.00 file\n", in);
    else {
        FILE *fp = fopen(out, "wb");
        rc = !fp || fwrite(b.data, 1, b.len, fp) != b.len;
        if (fp && fclose(fp) != 0) rc = 1;
        if (rc) fprintf(stderr, "pk-mkhpcrun: cannot write %s\n", out);
    }
    pk_buf_free(&b);
    pk_arena_free(&a);
    free(data);
    return rc;
}
