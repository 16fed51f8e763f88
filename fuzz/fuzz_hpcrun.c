/*
 * fuzz/fuzz_hpcrun.c — libFuzzer target for the hpcrun measurement-file
 * reader (formats/hpcrun): one input is one .hpcrun (04.00, or dense
 * 02.00/03.00) or .hpctrace file, copied into a buffer of exactly its size
 * so AddressSanitizer sees any read past its end. It is parsed as both
 * kinds, printed as hpcproftt would (all three modes), dumped as records,
 * and opened as a one-file measurement. fuzz/README.md says how to run it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/hpcrun/hr_print.h"
#include "support/testutil.h"

static int ignore_record(void *user, const pk_record *r)
{
    (*(size_t *)user) += r->n_fields;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink) sink = fopen("/dev/null", "w");
    const char *name = "fuzz.hpcrun";
    unsigned char *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    pk_arena a;
    pk_arena_init(&a);
    hr_file f;
    hr_trace t;
    hr_parse(name, copy, size, &a, &f);
    hr_trace_parse(name, copy, size, &t);
    pk_arena_free(&a);
    static const pk_hpcrun_text_options modes[3] = {{0, 0}, {0, 1}, {1, 0}};
    for (int m = 0; m < 3; m++)
        hr_write_text(sink, name, copy, size, &modes[m]);
    const void *d = copy;
    uint64_t s = size;
    size_t fields = 0;
    pk_dump_memory(PK_FORMAT_HPCRUN, 1, &name, &d, &s, NULL, ignore_record, &fields);
    pk_profile *p;
    if (pk_profile_open_memory(PK_FORMAT_HPCRUN, 1, &name, &d, &s, NULL, &p) == PK_OK) {
        tu_exercise(p, 0);
        pk_profile_free(p);
    }
    free(copy);
    return 0;
}
