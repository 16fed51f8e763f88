/*
 * fuzz/fuzz_cube.c — libFuzzer target for the Cube reader: the tar layer,
 * anchor.xml (expat and the model built from it) and the index/data
 * layer, and `profkit dump`'s walk of them (pk_dump_memory). One input is one .cubex archive (plain
 * or gzip-wrapped), copied into a buffer of exactly its size so AddressSanitizer sees any read past
 * its end; it is opened normally and with PK_OPEN_KEEP_GOING, every model
 * accessor is exercised, and one input in 16 that opens is also written
 * back as .cubex. One input in 4 is also opened from a file, where the
 * values stay in the mapped archive (the row store, model/rows.c). fuzz/README.md says how to run
 * it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profkit/profkit.h"
#include "support/testutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a file, opened by path: answers come from its rows. */
static void open_as_file(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/pk-fuzz-cube-in-%ld.cubex", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return;
    int ok = fwrite(data, 1, size, f) == size;
    if (fclose(f) == 0 && ok) {
        pk_profile *p;
        if (pk_profile_open(path, NULL, &p) == PK_OK) {
            tu_exercise(p, 1);
            pk_profile_free(p);
        }
    }
    unlink(path);
}

/* `profkit dump`'s records of the archive: every record is read. */
static int count_record(void *user, const pk_record *r)
{
    size_t *n = user;
    for (size_t i = 0; i < r->n_fields; i++)
        if (r->fields[i].type == PK_FIELD_STR && r->fields[i].v.s) *n += strlen(r->fields[i].v.s);
    (*n)++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned counter, as_file;
    if ((as_file++ % 4) == 0) open_as_file(data, size);
    const char *name = "fuzz.cubex";
    unsigned char *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    const void *d = copy;
    uint64_t s = size;
    size_t n_records = 0;
    pk_dump_memory(PK_FORMAT_CUBE, 1, &name, &d, &s, NULL, count_record, &n_records);
    for (int pass = 0; pass < 2; pass++) {
        pk_open_options o = {0};
        o.flags = pass ? PK_OPEN_KEEP_GOING : 0;
        pk_profile *p;
        if (pk_profile_open_memory(PK_FORMAT_CUBE, 1, &name, &d, &s, &o, &p) != PK_OK) continue;
        tu_exercise(p, pass == 0);
        for (size_t i = 0; i < pk_attribute_count(p); i++) {
            pk_attribute a;
            pk_attribute_get(p, i, &a);
        }
        if (pass == 0 && (counter++ % 16) == 0) {
            char out[64];
            snprintf(out, sizeof out, "/tmp/pk-fuzz-cube-%ld.cubex", (long)getpid());
            pk_write_options w = {PK_WRITE_FORCE, NULL, NULL};
            if (pk_profile_write(p, PK_FORMAT_CUBE, out, &w, NULL) == PK_OK) unlink(out);
        }
        pk_profile_free(p);
    }
    free(copy);
    return 0;
}
