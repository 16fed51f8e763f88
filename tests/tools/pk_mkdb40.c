/*
 * tests/tools/pk_mkdb40.c — rewrite an HPCToolkit v4 database in the
 * intermediate v4.0 layout (docs/hpctoolkit-v4.0-intermediate.md).
 *
 * The output is GENERATED: no real database in this layout is known, so
 * the tests and fuzz seeds for its reader are made from real databases
 * this way (tests/fixtures/v40_writer.h says what is converted how).
 *
 *   pk-mkdb40 SOURCE_DB OUT_DIR
 */
#include <stdio.h>

#include "fixtures/v40_writer.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: pk-mkdb40 SOURCE_DB OUT_DIR\n");
        return 2;
    }
    pk_profile *p;
    if (pk_profile_open(argv[1], NULL, &p) != PK_OK) {
        fprintf(stderr, "pk-mkdb40: %s\n", pk_error_last());
        return 1;
    }
    const char *why = NULL;
    int rc = fx_write_v40_dir(p, argv[2], &why);
    pk_profile_free(p);
    if (rc) fprintf(stderr, "pk-mkdb40: %s: %s\n", argv[2], why ? why : "failed");
    return rc ? 1 : 0;
}
