/*
 * fuzz/fuzz_callgrind.c — libFuzzer target for the Callgrind reader.
 *
 * One input is one Callgrind/Cachegrind/Xdebug file (plain text or gzip),
 * copied into a buffer of exactly its size so AddressSanitizer sees any
 * read past its end. It is opened normally, with PK_OPEN_KEEP_GOING and
 * with PK_OPEN_BY_FUNCTION and with PK_OPEN_BY_LINE; every model and
 * call-graph accessor is exercised (recursion-safe function costs
 * included) and the file is dumped. By function and by line it is also
 * read on one thread and tokenized on a second
 * (formats/callgrind/pipeline.c), which must read it alike: the same call
 * graph, the same diagnostics, or the same error; any difference aborts.
 * fuzz/README.md says how to run it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/cg_compare.h"
#include "support/testutil.h"

static int ignore_record(void *user, const pk_record *r)
{
    (*(size_t *)user) += r->n_fields;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint32_t flags[4] = {0, PK_OPEN_KEEP_GOING, PK_OPEN_BY_FUNCTION, PK_OPEN_BY_LINE};
    const char *name = "fuzz.callgrind";
    unsigned char *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    const void *d = copy;
    uint64_t s = size;
    for (int pass = 0; pass < 4; pass++) {
        pk_open_options o = {0};
        o.flags = flags[pass];
        pk_profile *p;
        if (pk_profile_open_memory(PK_FORMAT_CALLGRIND, 1, &name, &d, &s, &o, &p) == PK_OK) {
            tu_exercise(p, pass == 0);
            tu_cg_exercise(p);
            pk_profile_free(p);
        }
    }
    for (int by_line = 0; by_line < 2; by_line++) {
        uint32_t by = by_line ? PK_OPEN_BY_LINE : PK_OPEN_BY_FUNCTION;
        char *one = tu_cg_reading(name, d, s, 1, by), *two = tu_cg_reading(name, d, s, 2, by);
        if (strcmp(one, two) != 0) {
            fprintf(stderr, "by %s, read on one thread:\n%.2000s\ntokenized on two:\n%.2000s\n",
                    by_line ? "line" : "function", one, two);
            abort();
        }
        free(one), free(two);
    }
    size_t fields = 0;
    pk_dump_memory(PK_FORMAT_CALLGRIND, 1, &name, &d, &s, NULL, ignore_record, &fields);
    free(copy);
    return 0;
}
