/*
 * tests/test_cube_robustness.c — damaged .cubex archives never crash the
 * reader and never open as if whole. On the project's samples (plain and
 * ZCUBEX, written by profkit from tests/data/callgrind/sample.callgrind):
 * every truncation, every byte replaced by 5 values chosen to break the
 * tar, XML and binary layers, and garbage. On corpus files up to 300 KiB:
 * 48 truncations and 16 random byte flips each. Every profile that opens
 * is exercised in full, and every damaged archive is also dumped (profkit
 * dump's records); errors must name the file. Also exact messages
 * for a few damages: a cut data member, a row out of range, a bad
 * endianness marker, anchor.xml missing, broken XML, a cut archive, a
 * region id defined twice.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profkit/profkit.h"
#include "support/testutil.h"

static unsigned long g_opened, g_failed, g_bad, g_dumped;

/* Every field of every record is looked at (ASan sees a bad pointer). */
static int look_at(void *user, const pk_record *r)
{
    size_t *n = user;
    for (size_t i = 0; i < r->n_fields; i++)
        if (r->fields[i].type == PK_FIELD_STR && r->fields[i].v.s) *n += strlen(r->fields[i].v.s);
    return 0;
}

/* `profkit dump` of the damaged archive: records up to the damage, then
 * an error that names the file, or the whole dump. */
static void try_dump(const char *label, const void *data, uint64_t size)
{
    const char *name = "damaged.cubex";
    size_t n = 0;
    if (pk_dump_memory(PK_FORMAT_CUBE, 1, &name, &data, &size, NULL, look_at, &n) == PK_OK) {
        g_dumped++;
    } else if (!strstr(pk_error_last(), "damaged.cubex")) {
        fprintf(stderr, "%s: dump's message without the file name: %s\n", label, pk_error_last());
        g_bad++;
    }
}

static void try_open(const char *label, const unsigned char *d, size_t n)
{
    unsigned char *copy = malloc(n ? n : 1);
    memcpy(copy, d, n);
    const char *name = "damaged.cubex";
    const void *data = copy;
    uint64_t size = n;
    for (int pass = 0; pass < 2; pass++) {
        pk_open_options o = {pass ? PK_OPEN_KEEP_GOING : 0, 0};
        pk_profile *p;
        if (pk_profile_open_memory(PK_FORMAT_CUBE, 1, &name, &data, &size, &o, &p) == PK_OK) {
            tu_exercise(p, 0);
            pk_profile_free(p);
            g_opened++;
        } else {
            g_failed++;
            if (!strstr(pk_error_last(), "damaged.cubex")) {
                fprintf(stderr, "%s: message without the file name: %s\n", label, pk_error_last());
                g_bad++;
            }
        }
    }
    try_dump(label, data, size);
    free(copy);
}

static void damage_all(const char *label, const unsigned char *d, size_t n, int every_byte)
{
    static const unsigned char subst[] = {0x00, 0xff, '<', '7', 0x80};
    size_t step = every_byte ? 1 : (n / 48 ? n / 48 : 1);
    for (size_t cut = 0; cut < n; cut += step)
        try_open(label, d, cut);
    unsigned char *m = malloc(n);
    srand(42);
    size_t flips = every_byte ? n : 16;
    for (size_t k = 0; k < flips; k++) {
        size_t at = every_byte ? k : (size_t)rand() % n;
        for (size_t s = 0; s < (every_byte ? sizeof subst : 1); s++) {
            memcpy(m, d, n);
            m[at] = every_byte ? subst[s] : (unsigned char)rand();
            try_open(label, m, n);
        }
    }
    for (size_t i = 0; i < n; i++)
        m[i] = (unsigned char)rand();
    try_open(label, m, n);
    free(m);
}

/* An exact diagnosis for a chosen damage. */
static int expect_error(const unsigned char *d, size_t n, const char *want)
{
    pk_profile *p;
    const char *name = "damaged.cubex";
    const void *data = d;
    uint64_t size = n;
    if (pk_profile_open_memory(PK_FORMAT_CUBE, 1, &name, &data, &size, NULL, &p) == PK_OK) {
        pk_profile_free(p);
        fprintf(stderr, "expected an error containing '%s', the file opened\n", want);
        return 1;
    }
    if (strstr(pk_error_last(), want)) return 0;
    fprintf(stderr, "expected '%s' in: %s\n", want, pk_error_last());
    return 1;
}

/* Offset of a member's data in a plain archive (first match). */
static size_t member_data(const unsigned char *d, size_t n, const char *name)
{
    for (size_t off = 0; off + 512 <= n; off += 512)
        if (strcmp((const char *)d + off, name) == 0 && memcmp(d + off + 257, "ustar", 5) == 0)
            return off + 512;
    return 0;
}

static int targeted(const unsigned char *d, size_t n)
{
    int bad = 0;
    unsigned char *m = malloc(n);
    size_t idx = member_data(d, n, "0.index"), data = member_data(d, n, "0.data");
    memcpy(m, d, n), m[idx + 11] = 7; /* endianness marker */
    bad += expect_error(m, n, "endianness marker");
    memcpy(m, d, n), memset(m + idx + 22, 0xee, 4); /* first row id */
    bad += expect_error(m, n, "out of range");
    memcpy(m, d, n), memcpy(m + data, "CUBEX.DATX", 10);
    bad += expect_error(m, n, "member 0.data");
    size_t anchor = member_data(d, n, "anchor.xml");
    memcpy(m, d, n), memcpy(m + anchor - 512, "anchor.xmX", 10);
    bad += expect_error(m, n, "no anchor.xml");
    memcpy(m, d, n), memcpy(m + anchor + 40, "<<", 2);
    bad += expect_error(m, n, "anchor.xml line");
    bad += expect_error(d, data + 20, "truncated");
    memcpy(m, d, n);
    char *dup = memmem(m + anchor, n - anchor, "region id=\"1\"", 13);
    if (dup) dup[11] = '0'; /* two regions with id 0 (found by fuzz_cube: a crash) */
    bad += dup ? expect_error(m, n, "region id defined twice") : 1;
    free(m);
    return bad;
}

int main(void)
{
    static const char *const samples[] = {PK_SOURCE_DIR "/tests/data/cube/sample.cubex",
                                          PK_SOURCE_DIR "/tests/data/cube/sample-zcubex.cubex"};
    int bad = 0;
    for (size_t i = 0; i < 2; i++) {
        size_t n;
        unsigned char *d = tu_read_file(samples[i], &n);
        if (!d) return fprintf(stderr, "cannot read %s\n", samples[i]), 1;
        damage_all(samples[i], d, n, 1);
        if (i == 0) bad += targeted(d, n);
        free(d);
    }
    const char *corpus = tu_corpus_dir();
    char root[1024], **files = NULL;
    snprintf(root, sizeof root, "%.900s/cube", corpus ? corpus : "");
    size_t nf = corpus ? tu_find_files(root, ".cubex", &files) : 0;
    if (!nf) printf("no Cube corpus at %s: corpus files skipped\n", root);
    for (size_t i = 0; i < nf; i++) {
        size_t n;
        unsigned char *d = tu_read_file(files[i], &n);
        if (d && n <= 300 * 1024) damage_all(files[i], d, n, 0);
        free(d);
    }
    tu_free_list(files, nf);
    printf("cube robustness: %lu opened, %lu refused, %lu dumped whole, %lu bad messages, %d "
           "targeted failures\n",
           g_opened, g_failed, g_dumped, g_bad, bad);
    return g_bad || bad ? 1 : 0;
}
