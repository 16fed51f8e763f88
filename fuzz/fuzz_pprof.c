/*
 * fuzz/fuzz_pprof.c — libFuzzer target for the pprof reader
 * (formats/pprof): the protobuf wire decoder, every index and id check
 * of pass 1, samples, labels and the context tree of pass 2, and the
 * gzip layer. One input is one profile.proto, plain or gzip, copied into
 * a buffer of exactly its size so AddressSanitizer sees any read past
 * its end; it is opened with every label as the location (the default)
 * and with one location. What opens is exercised through every model
 * accessor, and one input in 16 that opens is written back as pprof and
 * read again, which must succeed: the writer only writes what the reader
 * takes. `profkit dump`'s walk of the messages (pk_dump_memory) reads
 * every input too. fuzz/README.md says how to run it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profkit/profkit.h"
#include "support/testutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void write_back(const pk_profile *p)
{
    char out[64];
    snprintf(out, sizeof out, "/tmp/pk-fuzz-pprof-%ld.pb.gz", (long)getpid());
    pk_write_options w = {.flags = PK_WRITE_FORCE};
    if (pk_profile_write(p, PK_FORMAT_PPROF, out, &w, NULL) != PK_OK) return;
    pk_profile *q;
    if (pk_profile_open(out, NULL, &q) != PK_OK) {
        fprintf(stderr, "profkit's own pprof does not read back: %s\n", pk_error_last());
        abort();
    }
    pk_profile_free(q);
    unlink(out);
}

/* `profkit dump`'s records: every field of every record is read. */
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
    static unsigned counter;
    const char *name = "fuzz.pb";
    unsigned char *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    const void *d = copy;
    uint64_t s = size;
    for (int pass = 0; pass < 2; pass++) {
        pk_open_options o = {.max_memory = 256u << 20, .locations_from = pass ? "none" : NULL};
        pk_profile *p;
        if (pk_profile_open_memory(PK_FORMAT_PPROF, 1, &name, &d, &s, &o, &p) != PK_OK) break;
        tu_exercise(p, 1);
        for (size_t i = 0; i < pk_attribute_count(p); i++) {
            pk_attribute a;
            pk_attribute_get(p, i, &a);
        }
        for (pk_index l = 0; l < pk_location_count(p); l++) {
            char buf[256];
            pk_location_name(p, l, buf, sizeof buf);
        }
        if (!pass && (counter++ % 16) == 0) write_back(p);
        pk_profile_free(p);
    }
    size_t n_records = 0;
    pk_dump_options dopt = {.max_memory = 256u << 20};
    pk_dump_memory(PK_FORMAT_PPROF, 1, &name, &d, &s, &dopt, count_record, &n_records);
    free(copy);
    return 0;
}
