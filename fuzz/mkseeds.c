/*
 * fuzz/mkseeds.c — write seed inputs for fuzz_hpctoolkit: the fixture
 * databases in several layouts and the small databases of the corpus, in
 * the fuzzer's framing (four u32 lengths, then the files). With --json,
 * seeds for fuzz_json: each profile given (any format) written as
 * profkit.model/1 JSON, when that is at most MAX_SEED bytes.
 *
 *   mkseeds OUTDIR [CORPUS_HPCTOOLKIT_DIR]
 *   mkseeds --json OUTDIR PROFILE...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures/v4_builder.h"
#include "support/testutil.h"

#define MAX_SEED (256 * 1024)

static int write_seed(const char *dir, const char *name, unsigned char *const data[4],
                      const size_t size[4])
{
    size_t total = 16;
    for (int i = 0; i < 4; i++)
        total += data[i] ? size[i] : 0;
    if (total > MAX_SEED) return 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    for (int i = 0; i < 4; i++) {
        uint32_t len = data[i] ? (uint32_t)size[i] : 0;
        unsigned char le[4] = {len & 0xff, len >> 8 & 0xff, len >> 16 & 0xff, len >> 24};
        fwrite(le, 1, 4, f);
    }
    for (int i = 0; i < 4; i++)
        if (data[i]) fwrite(data[i], 1, size[i], f);
    return fclose(f);
}

static int fixture_seeds(const char *dir)
{
    fx_db v[4] = {*fx_sample_db(), *fx_sample_db(), *fx_sample_db(), *fx_sample_db()};
    v[1].minor = 1, v[1].extra = 8, v[1].extra_flex = 1, v[1].shuffle = v[1].unknown_enums = 1;
    v[2].no_cct = 1;
    v[3].traces = NULL;
    for (int i = 0; i < 4; i++) {
        fx_image img[4];
        unsigned char *data[4];
        size_t size[4];
        char name[32];
        if (fx_build(&v[i], img) != 0) return -1;
        for (int k = 0; k < 4; k++)
            data[k] = img[k].data, size[k] = img[k].size;
        snprintf(name, sizeof name, "fixture-%d", i);
        int rc = write_seed(dir, name, data, size);
        fx_free(img);
        if (rc) return rc;
    }
    return 0;
}

static int json_seeds(const char *dir, int n, char **paths)
{
    for (int i = 0; i < n; i++) {
        pk_profile *p;
        char out[4096];
        snprintf(out, sizeof out, "%s/seed-%d.json", dir, i);
        if (pk_profile_open(paths[i], NULL, &p) != PK_OK) continue;
        pk_write_options w = {PK_WRITE_FORCE, NULL, NULL};
        pk_write_stats st;
        if (pk_profile_write(p, PK_FORMAT_JSON, out, &w, &st) == PK_OK && st.bytes > MAX_SEED)
            remove(out);
        pk_profile_free(p);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--json") == 0) return json_seeds(argv[2], argc - 3, argv + 3);
    if (argc < 2) {
        fprintf(stderr, "usage: mkseeds OUTDIR [CORPUS_HPCTOOLKIT_DIR]\n");
        return 2;
    }
    if (fixture_seeds(argv[1]) != 0) return 1;
    char **dbs;
    size_t n = argc > 2 ? tu_find_databases(argv[2], &dbs) : 0;
    for (size_t i = 0; i < n; i++) {
        tu_db db;
        char name[32];
        tu_load_db(dbs[i], &db);
        snprintf(name, sizeof name, "corpus-%zu", i);
        write_seed(argv[1], name, db.data, db.size);
        tu_free_db(&db);
    }
    if (n) tu_free_list(dbs, n);
    return 0;
}
