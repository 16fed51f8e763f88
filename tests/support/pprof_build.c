/*
 * tests/support/pprof_build.c — see pprof_build.h.
 */
#include "pprof_build.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

void ppb_str(pb_out *o, const char *s)
{
    pb_put_bytes(o, 6, s, strlen(s));
}

void ppb_vtype(pb_out *o, uint32_t field, uint64_t type, uint64_t unit)
{
    pb_out m = {0};
    pb_put_uint(&m, 1, type);
    pb_put_uint(&m, 2, unit);
    pb_put_bytes(o, field, m.buf, m.len);
    pb_out_free(&m);
}

void ppb_function(pb_out *o, uint64_t id, uint64_t name, uint64_t sys, uint64_t file, int64_t start)
{
    pb_out m = {0};
    pb_put_uint(&m, 1, id);
    pb_put_uint(&m, 2, name);
    pb_put_uint(&m, 3, sys);
    pb_put_uint(&m, 4, file);
    pb_put_uint(&m, 5, (uint64_t)start);
    pb_put_bytes(o, 5, m.buf, m.len);
    pb_out_free(&m);
}

void ppb_mapping(pb_out *o, uint64_t id, uint64_t start, uint64_t limit, uint64_t offset,
                 uint64_t file, uint64_t build)
{
    pb_out m = {0};
    pb_put_uint(&m, 1, id);
    pb_put_uint(&m, 2, start);
    pb_put_uint(&m, 3, limit);
    pb_put_uint(&m, 4, offset);
    pb_put_uint(&m, 5, file);
    pb_put_uint(&m, 6, build);
    pb_put_uint(&m, 7, 1);
    pb_put_bytes(o, 3, m.buf, m.len);
    pb_out_free(&m);
}

void ppb_location(pb_out *o, uint64_t id, uint64_t mapping, uint64_t addr, size_t n,
                  const uint64_t *fn, const int64_t *line)
{
    pb_out m = {0}, l = {0};
    pb_put_uint(&m, 1, id);
    if (mapping) pb_put_uint(&m, 2, mapping);
    if (addr) pb_put_uint(&m, 3, addr);
    for (size_t i = 0; i < n; i++) {
        l.len = 0;
        pb_put_uint(&l, 1, fn[i]);
        pb_put_uint(&l, 2, (uint64_t)line[i]);
        pb_put_bytes(&m, 4, l.buf, l.len);
    }
    pb_put_bytes(o, 4, m.buf, m.len);
    pb_out_free(&m), pb_out_free(&l);
}

void ppb_sample(pb_out *o, const uint64_t *locs, size_t n_locs, const int64_t *vals, size_t n_vals,
                const ppb_label *labels, size_t n_labels, int packed)
{
    pb_out m = {0}, l = {0};
    if (packed) {
        pb_put_packed(&m, 1, locs, n_locs);
        pb_put_packed(&m, 2, (const uint64_t *)vals, n_vals);
    } else {
        for (size_t i = 0; i < n_locs; i++)
            pb_put_uint(&m, 1, locs[i]);
        for (size_t i = 0; i < n_vals; i++)
            pb_put_uint(&m, 2, (uint64_t)vals[i]);
    }
    for (size_t i = 0; i < n_labels; i++) {
        l.len = 0;
        pb_put_uint(&l, 1, labels[i].key);
        if (labels[i].str) pb_put_uint(&l, 2, labels[i].str);
        if (labels[i].num) pb_put_uint(&l, 3, (uint64_t)labels[i].num);
        if (labels[i].unit) pb_put_uint(&l, 4, labels[i].unit);
        pb_put_bytes(&m, 3, l.buf, l.len);
    }
    pb_put_bytes(o, 2, m.buf, m.len);
    pb_out_free(&m), pb_out_free(&l);
}

void ppb_scalar(pb_out *o, uint32_t field, uint64_t v)
{
    pb_put_uint(o, field, v);
}

/*
 * Strings: 0 "", 1 samples, 2 count, 3 cpu, 4 nanoseconds, 5 main,
 * 6 main.go, 7 work, 8 helper, 9 thread, 10 t1, 11 /bin/app, 12 bytes,
 * 13 size, 14 build1, 15 main.main.
 * Sample types samples/count, cpu/nanoseconds; period cpu/nanoseconds 10.
 * Mapping 1 /bin/app [0x1000, 0x9000). Functions 1 main (system name
 * main.main, main.go:3), 2 work (main.go:10), 3 helper (main.go:20).
 * Locations: 1 main:5 at 0x1100; 2 helper:22 inlined into work:12 at
 * 0x1200; 3 unsymbolized 0x1300 in /bin/app; 4 nothing known.
 * Samples (leaf first):  [2 1] 1 10 thread=t1;  [1] 2 20 thread=t1;
 * [3 2 1] 3 30 (unpacked);  [4] 4 40 size=48 bytes.
 * So: samples 10, cpu 100; main self 20 incl 60, work self 0 incl 40,
 * helper self 10 incl 40, [app] 30, <unknown> 40; 3 label sets.
 */
void ppb_standard(pb_out *o)
{
    ppb_vtype(o, 1, 1, 2);
    ppb_vtype(o, 1, 3, 4);
    ppb_vtype(o, 11, 3, 4);
    ppb_scalar(o, 12, 10);
    ppb_mapping(o, 1, 0x1000, 0x9000, 0, 11, 14);
    ppb_function(o, 1, 5, 15, 6, 3);
    ppb_function(o, 2, 7, 7, 6, 10);
    ppb_function(o, 3, 8, 8, 6, 20);
    uint64_t f1[] = {1}, f2[] = {3, 2};
    int64_t l1[] = {5}, l2[] = {22, 12};
    ppb_location(o, 1, 1, 0x1100, 1, f1, l1);
    ppb_location(o, 2, 1, 0x1200, 2, f2, l2);
    ppb_location(o, 3, 1, 0x1300, 0, NULL, NULL);
    ppb_location(o, 4, 0, 0, 0, NULL, NULL);
    ppb_label t1 = {9, 10, 0, 0}, size = {13, 0, 48, 12};
    uint64_t s1[] = {2, 1}, s2[] = {1}, s3[] = {3, 2, 1}, s4[] = {4};
    int64_t v1[] = {1, 10}, v2[] = {2, 20}, v3[] = {3, 30}, v4[] = {4, 40};
    ppb_sample(o, s1, 2, v1, 2, &t1, 1, 1);
    ppb_sample(o, s2, 1, v2, 2, &t1, 1, 1);
    ppb_sample(o, s3, 3, v3, 2, NULL, 0, 0);
    ppb_sample(o, s4, 1, v4, 2, &size, 1, 1);
    ppb_scalar(o, 9, 1600000000000000000ull);
    ppb_scalar(o, 10, 2000000000);
    static const char *const strs[] = {
        "",       "samples", "count", "cpu",      "nanoseconds", "main", "main.go", "work",
        "helper", "thread",  "t1",    "/bin/app", "bytes",       "size", "build1",  "main.main"};
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        ppb_str(o, strs[i]);
}

unsigned char *ppb_gzip(const void *d, size_t n, size_t *out_n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK) return NULL;
    size_t cap = deflateBound(&z, n) + 64;
    unsigned char *out = malloc(cap);
    z.next_in = (unsigned char *)d, z.avail_in = (uInt)n;
    z.next_out = out, z.avail_out = (uInt)cap;
    int rc = out ? deflate(&z, Z_FINISH) : Z_STREAM_ERROR;
    *out_n = cap - z.avail_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) free(out), out = NULL;
    return out;
}
