/*
 * fuzz/fuzz_hpctoolkit_xml.c — libFuzzer target for the legacy HPCToolkit
 * reader (experiment.xml 2.x + one dense file).
 *
 * One input: a 9-byte frame (u32 LE length of experiment.xml, u32 LE
 * length of the binary file, one byte choosing what the binary file is:
 * metric-db, experiment-1.mdb, hpctrace or experiment.mt), then the two
 * files' bytes. Each is copied into a buffer of exactly its size so that
 * AddressSanitizer sees any read past its end. The database is opened from
 * memory (with and without traces) and every accessor of the model is
 * exercised. Seeds: a corpus experiment.xml with one of its files.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "support/testutil.h"
#include "util/bytes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const kinds[4] = {"a-000000-000-h-1-0.metric-db", "experiment-1.mdb",
                                         "a-000000-000-h-1-0.hpctrace", "experiment.mt"};
    if (size < 9) return 0;
    size_t xl = pk_le32(data), bl = pk_le32(data + 4), at = 9;
    if (xl > size - at) xl = size - at;
    if (bl > size - at - xl) bl = size - at - xl;
    unsigned char *x = malloc(xl + 1), *b = malloc(bl + 1);
    memcpy(x, data + at, xl);
    memcpy(b, data + at + xl, bl);
    const char *names[2] = {"experiment.xml", kinds[data[8] & 3]};
    const void *d[2] = {x, b};
    uint64_t s[2] = {xl, bl};
    for (int pass = 0; pass < 2; pass++) {
        pk_open_options o = {pass ? PK_OPEN_NO_TRACES : 0, 1};
        pk_profile *p;
        if (pk_profile_open_memory(PK_FORMAT_HPCTOOLKIT_XML, bl ? 2 : 1, names, d, s, &o, &p) ==
            PK_OK) {
            tu_exercise(p, 1);
            pk_profile_free(p);
        }
    }
    free(x);
    free(b);
    return 0;
}
