/*
 * tests/test_damage.c — one specific corruption at a time, each with the
 * error (file, structure, offset) or diagnostic it must produce.
 *
 * Structures are located through pk_dump_memory()'s records, so these
 * tests also pin down that dump offsets point at the right bytes.
 */
#define _POSIX_C_SOURCE 200809L

#include "support/pk_cmocka.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures/v4_builder.h"
#include "support/testutil.h"
#include "util/bytes.h"

enum { META, PROF, CCT, TRACE };

typedef struct rec {
    char file[16], type[24];
    uint64_t offset;
    size_t n;
    char keys[20][24];
    uint64_t u[20];
} rec;

typedef struct db {
    fx_image img[4];
    rec *recs;
    size_t n_recs;
} db;

static int keep_record(void *user, const pk_record *r)
{
    db *d = user;
    d->recs = realloc(d->recs, (d->n_recs + 1) * sizeof *d->recs);
    rec *x = &d->recs[d->n_recs++];
    memset(x, 0, sizeof *x);
    snprintf(x->file, sizeof x->file, "%s", r->file);
    snprintf(x->type, sizeof x->type, "%s", r->type);
    x->offset = r->offset;
    for (size_t i = 0; i < r->n_fields && i < 20; i++, x->n++) {
        snprintf(x->keys[i], sizeof x->keys[i], "%s", r->fields[i].key);
        x->u[i] =
            r->fields[i].type == PK_FIELD_REAL ? pk_f64_bits(r->fields[i].v.d) : r->fields[i].v.u;
    }
    return 0;
}

static void split(db *d, const char **names, const void **data, uint64_t *sizes, size_t *n)
{
    *n = 0;
    for (int i = 0; i < 4; i++) {
        if (!d->img[i].data) continue;
        names[*n] = d->img[i].name;
        data[*n] = d->img[i].data;
        sizes[(*n)++] = d->img[i].size;
    }
}

static void build(db *d)
{
    memset(d, 0, sizeof *d);
    assert_int_equal(fx_build(fx_sample_db(), d->img), 0);
    const char *names[4];
    const void *data[4];
    uint64_t sizes[4];
    size_t n;
    split(d, names, data, sizes, &n);
    assert_int_equal(
        pk_dump_memory(PK_FORMAT_HPCTOOLKIT_V4, n, names, data, sizes, NULL, keep_record, d),
        PK_OK);
}

static void destroy(db *d)
{
    fx_free(d->img);
    free(d->recs);
}

/* The k-th record of `type` in `file` whose field `key` equals `value`
 * (key NULL: any). */
static const rec *find(const db *d, const char *file, const char *type, const char *key,
                       uint64_t value)
{
    for (size_t i = 0; i < d->n_recs; i++) {
        const rec *r = &d->recs[i];
        if (strcmp(r->file, file) || strcmp(r->type, type)) continue;
        if (!key) return r;
        for (size_t k = 0; k < r->n; k++)
            if (strcmp(r->keys[k], key) == 0 && r->u[k] == value) return r;
    }
    fail_msg("no %s record %s=%llu in %s", type, key ? key : "-", (unsigned long long)value, file);
    return NULL;
}

static uint64_t field(const rec *r, const char *key)
{
    for (size_t k = 0; k < r->n; k++)
        if (strcmp(r->keys[k], key) == 0) return r->u[k];
    fail_msg("record %s has no field %s", r->type, key);
    return 0;
}

static void put(db *d, int f, uint64_t off, uint64_t v, int bytes)
{
    assert_true(off + (uint64_t)bytes <= d->img[f].size);
    for (int i = 0; i < bytes; i++)
        d->img[f].data[off + i] = (unsigned char)(v >> (8 * i));
}

static pk_status open_db_threads(db *d, uint32_t flags, unsigned threads, pk_profile **p)
{
    const char *names[4];
    const void *data[4];
    uint64_t sizes[4];
    size_t n;
    split(d, names, data, sizes, &n);
    pk_open_options o = {flags, threads};
    *p = NULL;
    return pk_profile_open_memory(PK_FORMAT_HPCTOOLKIT_V4, n, names, data, sizes, &o, p);
}

static pk_status open_db(db *d, uint32_t flags, pk_profile **p)
{
    return open_db_threads(d, flags, 0, p);
}

/* Opening fails with `status` and a message containing every fragment,
 * whether the value blocks are scanned by one worker or by several (the
 * first failure in file order must win either way). */
static void expect_error(db *d, pk_status status, const char *const *fragments, size_t n)
{
    static const unsigned threads[] = {1, 3};
    for (size_t t = 0; t < 2; t++) {
        pk_profile *p;
        pk_status st = open_db_threads(d, 0, threads[t], &p);
        if (st != status)
            fail_msg("%u workers: status %d, expected %d: %s", threads[t], st, status,
                     pk_error_last());
        assert_null(p);
        for (size_t i = 0; i < n; i++)
            if (!strstr(pk_error_last(), fragments[i]))
                fail_msg("%u workers: message '%s' lacks '%s'", threads[t], pk_error_last(),
                         fragments[i]);
    }
}

#define EXPECT(d, status, ...)                                                                     \
    do {                                                                                           \
        const char *frags_[] = {__VA_ARGS__};                                                      \
        expect_error((d), (status), frags_, sizeof frags_ / sizeof frags_[0]);                     \
    } while (0)

static void value_block_past_end_names_profile_and_offsets(void **s)
{
    (void)s;
    db d;
    build(&d);
    const rec *pi = find(&d, "profile.db", "profile", "index", 2);
    put(&d, PROF, pi->offset + 8, d.img[PROF].size - 20, 8); /* pValues */
    char where[64];
    snprintf(where, sizeof where, "pValues 0x%llx + 10*nValues",
             (unsigned long long)(d.img[PROF].size - 20));
    char size[64];
    snprintf(size, sizeof size, "past end of file (size 0x%llx)",
             (unsigned long long)d.img[PROF].size);
    EXPECT(&d, PK_ERR_FORMAT, "profile.db: profile 2 value block", where, size);
    destroy(&d);
}

static void header_damage_is_named(void **s)
{
    (void)s;
    db d;
    build(&d);
    d.img[META].data[0x0e] = 5;
    EXPECT(&d, PK_ERR_UNSUPPORTED, "meta.db", "version 5.0 is not supported");
    d.img[META].data[0x0e] = 4;
    d.img[META].data[1] = 'Q';
    EXPECT(&d, PK_ERR_FORMAT, "meta.db", "no 'HPCTOOLKIT' magic");
    d.img[META].data[1] = 'P';
    memcpy(d.img[PROF].data + 10, "ctxt", 4);
    EXPECT(&d, PK_ERR_FORMAT, "profile.db", "format identifier 'ctxt', expected 'prof'");
    memcpy(d.img[PROF].data + 10, "prof", 4);
    d.img[META].size -= 1;
    EXPECT(&d, PK_ERR_FORMAT, "meta.db: footer", "expected '_meta.db'", "truncated");
    d.img[META].size += 1;
    put(&d, META, 0x58, d.img[META].size, 8); /* Strings section pointer */
    EXPECT(&d, PK_ERR_FORMAT, "meta.db: file header at 0x50", "Common String Table");
    destroy(&d);
}

static void context_cycle_is_caught(void **s)
{
    (void)s;
    db d;
    build(&d);
    const rec *entry = find(&d, "meta.db", "entry-point", "ctx_id", 1);
    const rec *leaf = find(&d, "meta.db", "context", "ctx_id", 17);
    put(&d, META, leaf->offset, field(entry, "szChildren"), 8);
    put(&d, META, leaf->offset + 8, field(entry, "pChildren"), 8);
    EXPECT(&d, PK_ERR_FORMAT, "meta.db: Context Tree", "cycle");
    destroy(&d);
}

static void duplicate_context_id_is_caught(void **s)
{
    (void)s;
    db d;
    build(&d);
    put(&d, META, find(&d, "meta.db", "context", "ctx_id", 17)->offset + 0x10, 16, 4);
    EXPECT(&d, PK_ERR_FORMAT, "meta.db: Context Tree", "context id 16 is used twice");
    destroy(&d);
}

static void bad_pointers_inside_meta_are_caught(void **s)
{
    (void)s;
    db d;
    build(&d);
    const rec *c = find(&d, "meta.db", "context", "ctx_id", 6); /* solve: has a function */
    uint64_t p_function = pk_le64(d.img[META].data + c->offset + 0x20);
    put(&d, META, c->offset + 0x20, p_function + 4, 8);
    EXPECT(&d, PK_ERR_FORMAT, "meta.db: Context 6: pFunction", "does not point at one of the 6");
    put(&d, META, c->offset + 0x20, p_function, 8);
    put(&d, META, c->offset + 0x17, 0, 1); /* nFlexWords 0 but hasFunction */
    EXPECT(&d, PK_ERR_FORMAT, "meta.db: Context 6", "need 1 flex words");
    destroy(&d);
}

static void unterminated_string_is_caught(void **s)
{
    (void)s;
    db d;
    build(&d);
    uint64_t lo = pk_le64(d.img[META].data + 0x18), sz = pk_le64(d.img[META].data + 0x10);
    memset(d.img[META].data + lo + 0x10, 'x', sz - 0x10); /* title + description */
    EXPECT(&d, PK_ERR_FORMAT, "General Properties: pTitle", "not terminated",
           "General Properties section");
    destroy(&d);
}

static void shrunken_structure_sizes_are_refused(void **s)
{
    (void)s;
    db d;
    build(&d);
    uint64_t pi = pk_le64(d.img[PROF].data + 0x18);
    put(&d, PROF, pi + 0x0c, 40, 1); /* szProfile of the intermediate layout */
    EXPECT(&d, PK_ERR_FORMAT, "Profile Info: pProfiles", "element size 40", "not the v4.0 layout");
    destroy(&d);
}

static void unsorted_value_blocks_are_refused(void **s)
{
    (void)s;
    db d;
    build(&d);
    const rec *idx = find(&d, "profile.db", "ctx-index", "profile", 1);
    const rec *second = idx + 1;
    while (strcmp(second->type, "ctx-index"))
        second++;
    put(&d, PROF, second->offset, 0, 4); /* ctx id 0 after 0 */
    EXPECT(&d, PK_ERR_FORMAT, "profile.db: profile 1 value block: context index 1",
           "must increase strictly");
    destroy(&d);
    build(&d);
    const rec *v = find(&d, "profile.db", "value", "profile", 1);
    put(&d, PROF, (v + 1)->offset, field(v, "metric_id"), 2); /* same id twice */
    EXPECT(&d, PK_ERR_FORMAT, "profile.db: profile 1 value block: value 1", "metric id");
    destroy(&d);
}

static void damaged_optional_file_is_dropped_with_keep_going(void **s)
{
    (void)s;
    db d;
    build(&d);
    const rec *t = find(&d, "trace.db", "trace", "index", 0);
    put(&d, TRACE, t->offset + 0x10, field(t, "pEnd") - 1, 8);
    EXPECT(&d, PK_ERR_FORMAT, "trace.db: trace 0 header", "not a whole number");
    pk_profile *p;
    assert_int_equal(open_db(&d, PK_OPEN_KEEP_GOING, &p), PK_OK);
    pk_profile_info info;
    pk_profile_get_info(p, &info);
    assert_false(info.complete);
    assert_int_equal(pk_trace_count(p), 0);
    assert_int_equal(tu_count_diagnostics(p, "unreadable-file", PK_SEV_ERROR), 1);
    assert_int_equal(pk_location_count(p), 5); /* the rest is there */
    pk_source src;
    pk_source_get(p, 3, &src);
    assert_true(src.present && !src.loaded);
    pk_profile_free(p);
    destroy(&d);
}

static void verify_finds_cct_disagreements(void **s)
{
    (void)s;
    db d;
    build(&d);
    const rec *v = find(&d, "cct.db", "value", "ctx_id", 17);
    put(&d, CCT, v->offset + 4, pk_f64_bits(0.3125), 8);
    pk_profile *p;
    assert_int_equal(open_db(&d, 0, &p), PK_OK);
    size_t n = 0;
    assert_int_equal(pk_profile_verify(p, NULL, NULL, &n), PK_OK);
    assert_int_equal(n, 1);
    pk_profile_free(p);
    const rec *c = find(&d, "cct.db", "ctx-info", "ctx_id", 10);
    put(&d, CCT, c->offset, 0, 8);        /* nValues */
    put(&d, CCT, c->offset + 0x10, 0, 2); /* nMetrics */
    assert_int_equal(open_db(&d, 0, &p), PK_OK);
    assert_int_equal(pk_profile_verify(p, NULL, NULL, &n), PK_OK);
    assert_int_equal(n, 1 + field(c, "nValues"));
    pk_profile_free(p);
    destroy(&d);
}

static void odd_values_and_samples_are_reported(void **s)
{
    (void)s;
    db d;
    build(&d);
    /* the last value of a context run with at least 3 values, in profile 2 */
    const rec *v = find(&d, "profile.db", "value", "profile", 2);
    while (!(strcmp((v - 2)->type, "value") == 0 && strcmp((v + 1)->type, "value") != 0))
        v++;
    put(&d, PROF, v->offset, 999, 2);
    put(&d, PROF, (v - 1)->offset + 2, pk_f64_bits(0.0), 8);
    put(&d, PROF, (v - 2)->offset + 2, pk_f64_bits(NAN), 8);
    const rec *sample = find(&d, "trace.db", "sample", "index", 3);
    put(&d, TRACE, sample->offset + 8, 4242, 4);
    put(&d, TRACE, sample->offset, 5, 8);
    pk_profile *p;
    assert_int_equal(open_db(&d, 0, &p), PK_OK);
    assert_int_equal(tu_count_diagnostics(p, "unknown-metric-id", PK_SEV_WARNING), 1);
    assert_int_equal(tu_count_diagnostics(p, "zero-value", PK_SEV_WARNING), 1);
    assert_int_equal(tu_count_diagnostics(p, "nonfinite-value", PK_SEV_WARNING), 1);
    assert_int_equal(tu_count_diagnostics(p, "trace-unknown-context", PK_SEV_WARNING), 1);
    assert_int_equal(tu_count_diagnostics(p, "trace-order", PK_SEV_WARNING), 1);
    assert_int_equal(tu_count_diagnostics(p, "trace-time-range", PK_SEV_WARNING), 1);
    pk_diagnostic x;
    for (size_t i = 0; i < pk_diagnostic_count(p); i++) {
        pk_diagnostic_get(p, i, &x);
        if (strcmp(x.code, "unknown-metric-id") == 0) break;
    }
    assert_true(x.has_offset);
    assert_int_equal(x.offset, v->offset);
    pk_profile_free(p);
    destroy(&d);
}

static int count_only(void *user, const pk_record *r)
{
    (void)r;
    (*(size_t *)user)++;
    return 0;
}

static void dump_of_damaged_file_delivers_records_then_fails(void **s)
{
    (void)s;
    db d;
    build(&d);
    const rec *pi = find(&d, "profile.db", "profile", "index", 3);
    put(&d, PROF, pi->offset + 0x18, d.img[PROF].size, 8); /* pCtxIndices */
    const char *names[4];
    const void *data[4];
    uint64_t sizes[4];
    size_t n, records = 0;
    split(&d, names, data, sizes, &n);
    assert_int_equal(
        pk_dump_memory(PK_FORMAT_HPCTOOLKIT_V4, n, names, data, sizes, NULL, count_only, &records),
        PK_ERR_FORMAT);
    assert_non_null(strstr(pk_error_last(), "profile 3 value block: pCtxIndices"));
    assert_true(records > 100 && records < d.n_recs);
    destroy(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(value_block_past_end_names_profile_and_offsets),
        cmocka_unit_test(header_damage_is_named),
        cmocka_unit_test(context_cycle_is_caught),
        cmocka_unit_test(duplicate_context_id_is_caught),
        cmocka_unit_test(bad_pointers_inside_meta_are_caught),
        cmocka_unit_test(unterminated_string_is_caught),
        cmocka_unit_test(shrunken_structure_sizes_are_refused),
        cmocka_unit_test(unsorted_value_blocks_are_refused),
        cmocka_unit_test(damaged_optional_file_is_dropped_with_keep_going),
        cmocka_unit_test(verify_finds_cct_disagreements),
        cmocka_unit_test(odd_values_and_samples_are_reported),
        cmocka_unit_test(dump_of_damaged_file_delivers_records_then_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
