/*
 * fuzz/fuzz_hpctoolkit.c — libFuzzer target for the HPCToolkit v4 reader.
 *
 * One input is a whole database: a 16-byte frame of four little-endian u32
 * lengths (meta.db, profile.db, cct.db, trace.db; 0 = absent) followed by
 * the files' bytes. Each file is copied into a buffer of exactly its size
 * so that AddressSanitizer sees any read past its end. The database is
 * opened normally and with PK_OPEN_KEEP_GOING, dumped, and every accessor
 * of the resulting model is exercised. fuzz/README.md says how to run it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "support/testutil.h"
#include "util/bytes.h"

static int ignore_record(void *user, const pk_record *r)
{
    (*(size_t *)user) += r->n_fields;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[4] = {"meta.db", "profile.db", "cct.db", "trace.db"};
    if (size < 16) return 0;
    tu_db db = {{0}};
    size_t at = 16;
    for (int i = 0; i < 4; i++) {
        size_t len = pk_le32(data + 4 * i);
        db.names[i] = names[i];
        if (len == 0 || len > size - at) continue;
        db.data[i] = malloc(len);
        memcpy(db.data[i], data + at, len);
        db.size[i] = len;
        at += len;
    }
    pk_profile *p;
    for (int pass = 0; pass < 2; pass++) {
        if (tu_open_db(&db, pass ? PK_OPEN_KEEP_GOING : 0, &p) == PK_OK) {
            tu_exercise(p, 1);
            pk_profile_free(p);
        }
    }
    const char *n[4];
    const void *d[4];
    uint64_t s[4];
    size_t k = 0, fields = 0;
    for (int i = 0; i < 4; i++)
        if (db.data[i]) n[k] = db.names[i], d[k] = db.data[i], s[k++] = db.size[i];
    pk_dump_memory(PK_FORMAT_HPCTOOLKIT_V4, k, n, d, s, NULL, ignore_record, &fields);
    tu_free_db(&db);
    return 0;
}
