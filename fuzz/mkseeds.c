/*
 * fuzz/mkseeds.c — write seed inputs for fuzz_hpctoolkit: the fixture
 * databases in several layouts and the small databases of the corpus, in
 * the fuzzer's framing (four u32 lengths, then the files).
 *
 *   mkseeds OUTDIR [CORPUS_HPCTOOLKIT_DIR]
 *   mkseeds --hpcrun OUTDIR CORPUS_MEASUREMENTS_DIR   (seeds for fuzz_hpcrun: plain files)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures/hpcrun_dense.h"
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

/* One unframed seed file DIR/KIND-N. */
static void write_blob(const char *dir, const char *kind, size_t n, const void *data, size_t size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-%zu", dir, kind, n);
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(data, 1, size, f);
    fclose(f);
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

/* hpcrun seeds: the measurement files under `meas` (<= 64 KiB) and a
 * 02.00 and a 03.00 image (two epochs, logical unwind) of each profile. */
static int hpcrun_seeds(const char *dir, const char *meas)
{
    char **files;
    size_t n = tu_find_files(meas, ".hpcrun", &files), k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t size;
        unsigned char *d = tu_read_file(files[i], &size);
        if (!d || size > 65536) {
            free(d);
            continue;
        }
        static const fx_dense_options opts[2] = {{"02.00", 1, 0, 0}, {"03.00", 2, 1, 1}};
        pk_arena a;
        pk_arena_init(&a);
        hr_file f;
        write_blob(dir, "hpcrun", k++, d, size);
        for (int j = 0; j < 2 && hr_parse(files[i], d, size, &a, &f) == PK_OK; j++) {
            pk_buf b = {0};
            if (fx_write_dense(&f, &opts[j], &b) == 0) write_blob(dir, "dense", k++, b.data, b.len);
            pk_buf_free(&b);
        }
        pk_arena_free(&a);
        free(d);
    }
    tu_free_list(files, n);
    n = tu_find_files(meas, ".hpctrace", &files);
    for (size_t i = 0; i < n && i < 8; i++) {
        size_t size;
        unsigned char *d = tu_read_file(files[i], &size);
        if (d && size <= 65536) write_blob(dir, "hpctrace", k++, d, size);
        free(d);
    }
    tu_free_list(files, n);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--hpcrun") == 0) return hpcrun_seeds(argv[2], argv[3]);
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
