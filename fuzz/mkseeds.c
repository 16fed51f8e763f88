/*
 * fuzz/mkseeds.c — write seed inputs for fuzz_hpctoolkit: the fixture
 * databases in several layouts and the small databases of the corpus, in
 * the fuzzer's framing (four u32 lengths, then the files). Each database
 * is also seeded rewritten in the intermediate v4.0 layout (generated:
 * no real file in that layout is known; tests/fixtures/v40_writer.h).
 *
 *   mkseeds OUTDIR [CORPUS_HPCTOOLKIT_DIR]
 *   mkseeds --json OUTDIR PROFILE...   (seeds for fuzz_json: each profile as profkit.model/1 JSON)
 *   mkseeds --hpcrun OUTDIR CORPUS_MEASUREMENTS_DIR   (seeds for fuzz_hpcrun: plain files)
 *   mkseeds --pprof OUTDIR PROFILE...  (seeds for fuzz_pprof: the profile tests/support/
 *                                       pprof_build.c makes, and each profile written as
 *                                       pprof, plain and gzip)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures/hpcrun_dense.h"
#include "fixtures/v40_writer.h"
#include "fixtures/v4_builder.h"
#include "support/pprof_build.h"
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

/* The database in `img` (or the directory `path`), read by profkit and
 * written in the intermediate v4.0 layout, as seed "<name>-v40". */
static int v40_seed(const char *dir, const char *name, fx_image *img, const char *path)
{
    pk_profile *p = NULL;
    pk_status st;
    if (path) {
        st = pk_profile_open(path, NULL, &p);
    } else {
        const char *names[4];
        const void *data[4];
        uint64_t sizes[4];
        size_t n = 0;
        for (int k = 0; k < 4; k++)
            if (img[k].data)
                names[n] = img[k].name, data[n] = img[k].data, sizes[n++] = img[k].size;
        st = pk_profile_open_memory(PK_FORMAT_HPCTOOLKIT_V4, n, names, data, sizes, NULL, &p);
    }
    if (st != PK_OK) return 0; /* not every corpus directory is a v4 database */
    fx_image out[4];
    int rc = fx_build_v40(p, out, NULL);
    pk_profile_free(p);
    if (rc) return 0;
    unsigned char *data[4];
    size_t size[4];
    char seed[48];
    for (int k = 0; k < 4; k++)
        data[k] = out[k].data, size[k] = out[k].size;
    snprintf(seed, sizeof seed, "%s-v40", name);
    rc = write_seed(dir, seed, data, size);
    fx_free(out);
    return rc;
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
        if (!rc) rc = v40_seed(dir, name, img, NULL);
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

static int pprof_seeds(const char *dir, int n, char **paths)
{
    pb_out o = {0};
    ppb_standard(&o);
    write_blob(dir, "made", 0, o.buf, o.len);
    pb_out_free(&o);
    for (int i = 0; i < n; i++) {
        pk_profile *p;
        if (pk_profile_open(paths[i], NULL, &p) != PK_OK) continue;
        for (int gz = 0; gz < 2; gz++) {
            char out[4096];
            snprintf(out, sizeof out, "%s/written-%d%s", dir, i, gz ? ".pb.gz" : ".pb");
            pk_write_options w = {.flags = PK_WRITE_FORCE};
            pk_write_stats st;
            if (pk_profile_write(p, PK_FORMAT_PPROF, out, &w, &st) == PK_OK && st.bytes > MAX_SEED)
                remove(out);
        }
        pk_profile_free(p);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--pprof") == 0)
        return pprof_seeds(argv[2], argc - 3, argv + 3);
    if (argc == 4 && strcmp(argv[1], "--hpcrun") == 0) return hpcrun_seeds(argv[2], argv[3]);
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
        v40_seed(argv[1], name, NULL, dbs[i]);
        tu_free_db(&db);
    }
    if (n) tu_free_list(dbs, n);
    return 0;
}
