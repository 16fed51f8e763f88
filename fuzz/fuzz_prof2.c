/*
 * fuzz/fuzz_prof2.c — libFuzzer target for the draft "Prof2" HPCToolkit
 * database (experiment.xml 4.0 + big-endian profile.db, cct.db, trace.db).
 *
 * One input: a 16-byte frame (u32 LE length of experiment.xml, profile.db,
 * cct.db and trace.db), then the four files' bytes. Each is copied into a
 * buffer of exactly its size so that AddressSanitizer sees any read past
 * its end. The database is opened from memory (with and without traces)
 * and every accessor of the model is exercised. Seed: the corpus sample
 * (fuzz/run.sh frames it).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "support/testutil.h"
#include "util/bytes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[4] = {"experiment.xml", "profile.db", "cct.db", "trace.db"};
    if (size < 16) return 0;
    size_t at = 16;
    unsigned char *buf[4];
    const void *d[4];
    uint64_t s[4];
    for (int i = 0; i < 4; i++) {
        size_t len = pk_le32(data + 4 * i);
        if (len > size - at) len = size - at;
        buf[i] = malloc(len + 1);
        memcpy(buf[i], data + at, len);
        d[i] = buf[i], s[i] = len, at += len;
    }
    for (int pass = 0; pass < 2; pass++) {
        pk_open_options o = {pass ? PK_OPEN_NO_TRACES : 0, 1};
        pk_profile *p;
        if (pk_profile_open_memory(PK_FORMAT_HPCTOOLKIT_DRAFT, 4, names, d, s, &o, &p) == PK_OK) {
            tu_exercise(p, 1);
            pk_profile_free(p);
        }
    }
    for (int i = 0; i < 4; i++)
        free(buf[i]);
    return 0;
}
