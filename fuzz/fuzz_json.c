/*
 * fuzz/fuzz_json.c — libFuzzer target for the profkit.model/1 JSON reader
 * (formats/json): yajl's events, the record handlers and every check of
 * indexes, orders and types. One input is one JSON document, copied into a
 * buffer of exactly its size so AddressSanitizer sees any read past its
 * end. What opens is exercised through every model and call-graph
 * accessor, and one input in 16 that opens is written back as JSON and
 * read again, which must succeed: the writer only writes what the reader
 * takes. One in 64 is also written as an HPCToolkit database (the
 * writer's shaping of a model it did not read: derived scopes, packed
 * planes) and, when that succeeds, read again, which must succeed too.
 * fuzz/README.md says how to run it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profkit/profkit.h"
#include "support/cg_compare.h"
#include "support/testutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* p written as `format` (to a scratch path ending in `suffix`) must read
 * back whenever the writer takes it: it only writes what the reader takes. */
static void write_and_read_back(const pk_profile *p, pk_format format, const char *suffix)
{
    char out[64];
    snprintf(out, sizeof out, "/tmp/pk-fuzz-json-%ld%s", (long)getpid(), suffix);
    pk_write_options w = {PK_WRITE_FORCE, NULL, NULL};
    pk_profile *q;
    if (pk_profile_write(p, format, out, &w, NULL) == PK_OK) {
        if (pk_profile_open(out, NULL, &q) != PK_OK) {
            fprintf(stderr, "profkit's own %s does not read back: %s\n", out, pk_error_last());
            abort();
        }
        pk_profile_free(q);
    }
    if (format == PK_FORMAT_JSON)
        unlink(out);
    else
        tu_remove_tree(out); /* a database directory */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned counter;
    const char *name = "fuzz.json";
    unsigned char *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    const void *d = copy;
    uint64_t s = size;
    pk_profile *p;
    if (pk_profile_open_memory(PK_FORMAT_JSON, 1, &name, &d, &s, NULL, &p) == PK_OK) {
        free(copy); /* the profile keeps nothing of the input */
        copy = NULL;
        tu_exercise(p, 1);
        tu_cg_exercise(p);
        for (size_t i = 0; i < pk_attribute_count(p); i++) {
            pk_attribute a;
            pk_attribute_get(p, i, &a);
        }
        if ((counter % 16) == 0) write_and_read_back(p, PK_FORMAT_JSON, ".json");
        if ((counter++ % 64) == 0) write_and_read_back(p, PK_FORMAT_HPCTOOLKIT_V4, ".d");
        pk_profile_free(p);
    }
    free(copy);
    return 0;
}
