/*
 * tests/test_pprof.c — the pprof reader (formats/pprof) on profiles made
 * field by field (tests/support/pprof_build.c), needing no corpus: the
 * wire decoder's edge cases; what a profile becomes in the model (sample
 * types as metrics with units and the default, stacks as contexts with
 * inlined frames, lines and addresses, labels as locations, the
 * profile's own fields as attributes); --locations-from; and for each
 * kind of damage the error it must give, naming the field and the byte
 * offset. Damage at every byte is test_pprof_write.c's.
 */
#define _GNU_SOURCE
#include "support/pk_cmocka.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/pprof_build.h"
#include "support/testutil.h"

static const char *const NAME = "t.pb";

static pk_status open_opts(const void *data, size_t n, const pk_open_options *o, pk_profile **p)
{
    void *copy = malloc(n ? n : 1); /* exactly n bytes: ASan sees reads past the end */
    memcpy(copy, data, n);
    const void *d = copy;
    uint64_t size = n;
    pk_status st = pk_profile_open_memory(PK_FORMAT_PPROF, 1, &NAME, &d, &size, o, p);
    free(copy); /* the profile keeps nothing of the input */
    return st;
}

static pk_profile *open_ok(const pb_out *o, const char *from)
{
    pk_profile *p = NULL;
    pk_open_options opts = {.locations_from = from};
    if (open_opts(o->buf, o->len, &opts, &p)) fail_msg("%s", pk_error_last());
    tu_exercise(p, 1);
    return p;
}

/* ---- the wire format ---- */

static void test_varints(void **state)
{
    (void)state;
    static const unsigned char max[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1};
    static const unsigned char over[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2};
    static const unsigned char eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                           0x80, 0x80, 0x80, 0x80, 0};
    uint64_t v;
    pb_in in = pb_whole(max, sizeof max);
    assert_int_equal(pb_varint(&in, &v), 1);
    assert_true(v == UINT64_MAX && in.p == in.end);
    in = pb_whole(over, sizeof over);
    assert_int_equal(pb_varint(&in, &v), 0);
    assert_non_null(strstr(in.err, "more than 64 bits"));
    in = pb_whole(eleven, sizeof eleven);
    assert_int_equal(pb_varint(&in, &v), 0);
    in = pb_whole(max, 5); /* cut off */
    assert_int_equal(pb_varint(&in, &v), 0);
    assert_true(in.past_end);
    /* a round trip of values of every length */
    pb_out o = {0};
    for (int k = 0; k < 64; k++)
        pb_put_varint(&o, (uint64_t)1 << k);
    in = pb_whole(o.buf, o.len);
    for (int k = 0; k < 64; k++) {
        assert_int_equal(pb_varint(&in, &v), 1);
        assert_true(v == (uint64_t)1 << k);
    }
    pb_out_free(&o);
}

static void test_fields(void **state)
{
    (void)state;
    static const unsigned char group[] = {0x0b, 0x0c};       /* field 1, start/end group */
    static const unsigned char zero[] = {0x00, 0x01};        /* field 0 */
    static const unsigned char long_len[] = {0x0a, 5, 1, 2}; /* 5 bytes promised, 2 there */
    static const unsigned char fixed[] = {0x79, 1, 2, 3, 4, 5, 6, 7, 8, 0x7d, 9, 9, 9, 9};
    pb_field f;
    pb_in in = pb_whole(group, sizeof group);
    assert_int_equal(pb_next(&in, &f), -1);
    assert_non_null(strstr(in.err, "group"));
    in = pb_whole(zero, sizeof zero);
    assert_int_equal(pb_next(&in, &f), -1);
    in = pb_whole(long_len, sizeof long_len);
    assert_int_equal(pb_next(&in, &f), -1);
    assert_true(in.past_end && in.err_at == 0);
    in = pb_whole(fixed, sizeof fixed); /* fixed64 field 15, fixed32 field 15: skipped */
    assert_int_equal(pb_next(&in, &f), 1);
    assert_true(f.wire == PB_I64 && f.v == 0x0807060504030201ull);
    assert_int_equal(pb_next(&in, &f), 1);
    assert_true(f.wire == PB_I32 && f.v == 0x09090909u);
    assert_int_equal(pb_next(&in, &f), 0);
}

/* ---- the model ---- */

static pk_index function_named(const pk_profile *p, const char *name)
{
    for (pk_index i = 0; i < pk_function_count(p); i++) {
        pk_function f;
        pk_function_get(p, i, &f);
        if (f.name && strcmp(f.name, name) == 0) return i;
    }
    fail_msg("no function %s", name);
    return PK_NONE;
}

static void expect_flat(const pk_profile *p, pk_index metric, const char *name, double self,
                        double incl)
{
    size_t n = pk_context_count(p), rows_n;
    double *in = calloc(n, sizeof *in), *ex = calloc(n, sizeof *ex);
    pk_flat_row *rows;
    assert_int_equal(pk_context_scope_values(p, metric, PK_SCOPE_INCLUSIVE, in, n, NULL), PK_OK);
    assert_int_equal(pk_context_scope_values(p, metric, PK_SCOPE_EXCLUSIVE, ex, n, NULL), PK_OK);
    assert_int_equal(pk_flat_profile(p, in, ex, PK_BY_FUNCTION, &rows, &rows_n), PK_OK);
    int found = 0;
    for (size_t i = 0; i < rows_n; i++) {
        char buf[128];
        pk_flat_row_name(p, PK_BY_FUNCTION, &rows[i], buf, sizeof buf);
        if (strcmp(buf, name)) continue;
        found = 1;
        if (rows[i].exclusive != self || rows[i].inclusive != incl)
            fail_msg("%s: self %g incl %g, want %g %g", name, rows[i].exclusive, rows[i].inclusive,
                     self, incl);
    }
    if (!found) fail_msg("no flat row %s", name);
    pk_flat_free(rows), free(in), free(ex);
}

static void check_metrics(const pk_profile *p)
{
    pk_metric m;
    pk_index def;
    double total;
    assert_int_equal(pk_metric_count(p), 2);
    pk_metric_get(p, 0, &m);
    assert_string_equal(m.name, "samples");
    assert_string_equal(m.unit, "count");
    pk_metric_get(p, 1, &m);
    assert_string_equal(m.name, "cpu");
    assert_string_equal(m.unit, "nanoseconds");
    assert_int_equal(pk_metric_default(p, &def), PK_OK);
    assert_int_equal(def, 1); /* no default_sample_type: the last, as go tool pprof */
    assert_int_equal(pk_metric_program_total(p, 0, &total), PK_OK);
    assert_true(total == 10);
    assert_int_equal(pk_metric_program_total(p, 1, &total), PK_OK);
    assert_true(total == 100);
}

/* helper is inlined into work at main.go:12, at line 22, address 0x1200. */
static void check_inlined(const pk_profile *p)
{
    pk_index helper = function_named(p, "helper");
    for (pk_index i = 0; i < pk_context_count(p); i++) {
        pk_context c, line, instr;
        pk_module mod;
        pk_context_get(p, i, &c);
        if (c.function != helper || c.kind != PK_CTX_FUNCTION) continue;
        assert_int_equal(c.relation, PK_REL_INLINED_CALL);
        assert_true((c.flags & PK_CTXF_HAS_SRCLOC) && c.line == 12);
        assert_int_equal(c.n_children, 1);
        pk_context_get(p, c.first_child, &line);
        assert_true(line.kind == PK_CTX_LINE && line.line == 22);
        pk_context_get(p, line.first_child, &instr);
        assert_true(instr.kind == PK_CTX_INSTRUCTION && instr.offset == 0x1200);
        pk_module_get(p, instr.module, &mod);
        assert_string_equal(mod.path, "/bin/app");
        return;
    }
    fail_msg("no context of helper");
}

static void check_attributes(const pk_profile *p)
{
    assert_string_equal(pk_attribute_find(p, PK_ENTITY_PROFILE, 0, "pprof:period"), "10");
    assert_string_equal(pk_attribute_find(p, PK_ENTITY_PROFILE, 0, "pprof:period_type"), "cpu");
    assert_string_equal(pk_attribute_find(p, PK_ENTITY_PROFILE, 0, "pprof:duration_nanos"),
                        "2000000000");
    assert_string_equal(pk_attribute_find(p, PK_ENTITY_PROFILE, 0, "pprof:mapping"),
                        "0x1000 0x9000 0x0 build1 /bin/app");
    assert_string_equal(
        pk_attribute_find(p, PK_ENTITY_FUNCTION, function_named(p, "main"), "pprof:system_name"),
        "main.main");
}

static void test_standard(void **state)
{
    (void)state;
    pb_out o = {0};
    ppb_standard(&o);
    for (int gz = 0; gz < 2; gz++) {
        size_t n = o.len;
        unsigned char *z = gz ? ppb_gzip(o.buf, o.len, &n) : NULL;
        pk_profile *p;
        if (open_opts(gz ? z : o.buf, n, NULL, &p)) fail_msg("%s", pk_error_last());
        pk_profile_info info;
        pk_profile_get_info(p, &info);
        assert_int_equal(info.format, PK_FORMAT_PPROF);
        assert_string_equal(info.title, "/bin/app");
        check_metrics(p);
        expect_flat(p, 1, "main", 20, 60);
        expect_flat(p, 1, "work", 0, 40);
        expect_flat(p, 1, "helper", 10, 40);
        expect_flat(p, 1, "[app]", 30, 30);
        expect_flat(p, 1, "<unknown>", 40, 40);
        check_inlined(p);
        check_attributes(p);
        tu_exercise(p, 1);
        pk_profile_free(p), free(z);
    }
    pb_out_free(&o);
}

static void location_names(const pk_profile *p, const char *const *want, size_t n)
{
    assert_int_equal(pk_location_count(p), n);
    for (size_t i = 0; i < n; i++) {
        char buf[128];
        pk_location_name(p, (pk_index)i, buf, sizeof buf);
        assert_string_equal(buf, want[i]);
    }
}

static void test_labels(void **state)
{
    (void)state;
    pb_out o = {0};
    ppb_standard(&o);
    pk_profile *p = open_ok(&o, NULL);
    const char *const all[] = {"thread t1", "<no id>", "size 48"};
    location_names(p, all, 3);
    assert_string_equal(pk_attribute_find(p, PK_ENTITY_LOCATION, 2, "pprof:num_unit:size"),
                        "bytes");
    unsigned char sel[3];
    assert_int_equal(pk_location_select(p, "thread=t1", sel, 3, NULL), PK_OK);
    assert_true(sel[0] && !sel[1] && !sel[2]);
    pk_profile_free(p);
    p = open_ok(&o, "thread");
    const char *const threads[] = {"thread t1", "<no id>"};
    location_names(p, threads, 2);
    assert_int_equal(tu_count_diagnostics(p, "pprof-labels-summed", PK_SEV_NOTE), 1);
    pk_profile_free(p);
    p = open_ok(&o, "none");
    const char *const one[] = {"<no id>"};
    location_names(p, one, 1);
    pk_profile_free(p);
    pk_open_options bad = {.locations_from = "tid"};
    assert_int_equal(open_opts(o.buf, o.len, &bad, &p), PK_ERR_INVALID_ARG);
    assert_non_null(strstr(pk_error_last(), "no sample has a label named 'tid'"));
    assert_non_null(strstr(pk_error_last(), "thread, size"));
    pb_out_free(&o);
}

static void test_default_type(void **state)
{
    (void)state;
    pb_out o = {0};
    ppb_standard(&o);
    ppb_scalar(&o, 14, 1); /* default_sample_type "samples" */
    pk_profile *p = open_ok(&o, NULL);
    pk_index def;
    assert_int_equal(pk_metric_default(p, &def), PK_OK);
    assert_int_equal(def, 0);
    pk_profile_free(p);
    pb_out_free(&o);
}

/* ---- damage ---- */

static void expect_error(const pb_out *o, pk_status want, const char *const *parts)
{
    pk_profile *p = NULL;
    pk_status st = open_opts(o->buf, o->len, NULL, &p);
    if (st == PK_OK) {
        pk_profile_free(p);
        fail_msg("damaged profile opened (wanted: %s)", parts[0]);
    }
    const char *msg = pk_error_last();
    if (st != want) fail_msg("status %d, want %d: %s", st, want, msg);
    if (strncmp(msg, "t.pb: byte ", 11) != 0) fail_msg("no file and offset: %s", msg);
    for (size_t i = 0; parts[i]; i++)
        if (!strstr(msg, parts[i])) fail_msg("'%s' not in: %s", parts[i], msg);
}

#define EXPECT(o, ...)                                                                             \
    do {                                                                                           \
        const char *const parts_[] = {__VA_ARGS__, NULL};                                          \
        expect_error(o, PK_ERR_FORMAT, parts_);                                                    \
    } while (0)

static void test_damage(void **state)
{
    (void)state;
    pb_out o = {0};
    uint64_t one[] = {1}, ghost[] = {77};
    int64_t v2[] = {1, 2}, v3[] = {1, 2, 3};
    ppb_standard(&o), ppb_function(&o, 9, 99, 0, 0, 0);
    EXPECT(&o, "Profile.function[3]", "string index 99, but the string table has 16 strings");
    o.len = 0, ppb_standard(&o), ppb_function(&o, 2, 5, 0, 0, 0);
    EXPECT(&o, "Profile.function[", "id 2 is used twice");
    o.len = 0, ppb_standard(&o), ppb_mapping(&o, 0, 0, 0, 0, 0, 0);
    EXPECT(&o, "Profile.mapping[1].id", "id 0 is reserved");
    o.len = 0, ppb_standard(&o), ppb_sample(&o, ghost, 1, v2, 2, NULL, 0, 1);
    EXPECT(&o, "Profile.sample[4].location_id", "location id 77, which no location has");
    o.len = 0, ppb_standard(&o), ppb_sample(&o, one, 1, v3, 1, NULL, 0, 1);
    EXPECT(&o, "Profile.sample[4].value", "1 values for 2 sample types");
    o.len = 0, ppb_standard(&o), ppb_sample(&o, one, 1, v3, 3, NULL, 0, 1);
    EXPECT(&o, "Profile.sample[4].value", "more values than the profile's 2 sample types");
    uint64_t f[] = {42};
    int64_t l[] = {1};
    o.len = 0, ppb_standard(&o), ppb_location(&o, 5, 0, 0, 1, f, l);
    EXPECT(&o, "Profile.location[4].line", "names function id 42, which no function has");
    o.len = 0, ppb_str(&o, "x"), ppb_standard(&o);
    EXPECT(&o, "Profile.string_table[0]", "the first string must be empty");
    o.len = 0, ppb_standard(&o), pb_put_uint(&o, 5, 1); /* Function as a varint */
    EXPECT(&o, "Profile.field[5].field 5", "wire type 0 where profile.proto has a length");
    o.len = 0, ppb_standard(&o), pb_put_tag(&o, 4, PB_LEN), pb_put_varint(&o, 1000);
    EXPECT(&o, "Profile:", "longer than what is left");
    /* a label as a varint (found by fuzz_pprof: read as a message before
     * its wire type was checked) */
    pb_out m = {0};
    pb_put_uint(&m, 3, 7);
    o.len = 0, ppb_standard(&o), pb_put_bytes(&o, 2, m.buf, m.len);
    EXPECT(&o, "Profile.sample[4].label", "wire type 0");
    pb_out_free(&m);
    ppb_label bad = {9, 400, 0, 0};
    o.len = 0, ppb_standard(&o), ppb_sample(&o, one, 1, v2, 2, &bad, 1, 1);
    EXPECT(&o, "Profile.sample[4].label.str", "string index 400");
    pb_out_free(&o);
}

/* A mapping id no mapping has: read without a mapping, as go tool pprof
 * does, with a warning. */
static void test_lost_mapping(void **state)
{
    (void)state;
    pb_out o = {0};
    ppb_standard(&o), ppb_location(&o, 5, 3, 0x10, 0, NULL, NULL);
    pk_profile *p = open_ok(&o, NULL);
    assert_int_equal(tu_count_diagnostics(p, "pprof-mapping", PK_SEV_WARNING), 1);
    pk_profile_free(p);
    pb_out_free(&o);
}

/* The inflated stream counts against the memory budget: a small gzip
 * of many megabytes is refused before it is held. */
static void test_budget(void **state)
{
    (void)state;
    size_t n = 64u << 20, zn;
    unsigned char *zeros = calloc(n, 1);
    unsigned char *z = ppb_gzip(zeros, n, &zn);
    free(zeros);
    assert_non_null(z);
    pk_profile *p;
    pk_open_options o = {.max_memory = 8u << 20};
    assert_int_equal(open_opts(z, zn, &o, &p), PK_ERR_LIMIT);
    assert_non_null(strstr(pk_error_last(), "t.pb"));
    free(z);
}

/* Detection takes pprof and nothing else. */
static void test_detect(void **state)
{
    (void)state;
    char path[256];
    pb_out o = {0};
    ppb_standard(&o);
    tu_scratch_path(path, sizeof path, "std.pb");
    FILE *f = fopen(path, "wb");
    fwrite(o.buf, 1, o.len, f), fclose(f);
    pk_profile *p;
    if (pk_profile_open(path, NULL, &p)) fail_msg("%s", pk_error_last());
    pk_profile_free(p);
    static const char *const others[] = {"/tests/data/callgrind/sample.callgrind",
                                         "/tests/data/cube/sample.cubex"};
    for (size_t i = 0; i < 2; i++) {
        if (pk_profile_open(i ? PK_SOURCE_DIR "/tests/data/cube/sample.cubex"
                              : PK_SOURCE_DIR "/tests/data/callgrind/sample.callgrind",
                            NULL, &p))
            fail_msg("%s: %s", others[i], pk_error_last());
        pk_profile_info info;
        pk_profile_get_info(p, &info);
        assert_int_not_equal(info.format, PK_FORMAT_PPROF);
        pk_profile_free(p);
    }
    f = fopen(path, "wb");
    fwrite("\x0a\x04\x08\x01", 1, 4, f), fclose(f); /* one field, cut off */
    assert_int_equal(pk_profile_open(path, NULL, &p), PK_ERR_UNKNOWN_FORMAT);
    pb_out_free(&o);
}

static int setup(void **state)
{
    (void)state;
    return tu_scratch_make("pk-pprof");
}

static int teardown(void **state)
{
    (void)state;
    tu_scratch_remove();
    return 0;
}

/* ---- profkit dump ---- */

typedef struct dumped {
    const unsigned char *stream;
    size_t n, types[16];
    int bad; /* a top-level record whose offset is not its field's tag */
    char last[64];
} dumped;

static int record(void *user, const pk_record *r)
{
    static const char *const kinds[] = {"value_type",  "sample",     "mapping", "location",
                                        "function",    "string",     "label",   "line",
                                        "period_type", "time_nanos", "period"};
    static const unsigned tags[] = {1, 2, 3, 4, 5, 6, 0, 0, 11, 9, 12};
    dumped *d = user;
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        if (strcmp(r->type, kinds[k]) != 0) continue;
        d->types[k]++;
        if (tags[k] && (r->offset >= d->n || d->stream[r->offset] >> 3 != tags[k])) d->bad++;
    }
    for (size_t i = 0; i < r->n_fields; i++)
        if (r->fields[i].type == PK_FIELD_STR && r->fields[i].v.s && strcmp(r->type, "string") == 0)
            snprintf(d->last, sizeof d->last, "%s", r->fields[i].v.s);
    return 0;
}

static pk_status dump(const void *data, size_t n, const char *sections, dumped *d)
{
    void *copy = malloc(n ? n : 1); /* exactly n bytes: ASan sees reads past the end */
    memcpy(copy, data, n);
    const void *p = copy;
    uint64_t size = n;
    pk_dump_options o = {.sections = sections};
    pk_status st = pk_dump_memory(PK_FORMAT_PPROF, 1, &NAME, &p, &size, &o, record, d);
    free(copy);
    return st;
}

/* Every message once, at the offset of its tag; a section alone; every
 * prefix either dumps or fails naming the byte; gzip is dumped inflated. */
static void test_dump(void **state)
{
    (void)state;
    pb_out o = {0};
    ppb_standard(&o);
    dumped d = {.stream = o.buf, .n = o.len};
    if (dump(o.buf, o.len, NULL, &d)) fail_msg("%s", pk_error_last());
    static const size_t want[] = {2, 4, 1, 4, 3, 16, 3, 3, 1, 1, 1};
    for (size_t k = 0; k < sizeof want / sizeof *want; k++)
        if (d.types[k] != want[k])
            fail_msg("record kind %zu: %zu, want %zu", k, d.types[k], want[k]);
    assert_int_equal(d.bad, 0);
    assert_string_equal(d.last, "main.main");
    dumped only = {.stream = o.buf, .n = o.len};
    assert_int_equal(dump(o.buf, o.len, "functions", &only), PK_OK);
    assert_true(only.types[4] == 3 && only.types[1] == 0 && only.types[5] == 0);
    for (size_t cut = 0; cut < o.len; cut++) {
        dumped c = {.stream = o.buf, .n = cut};
        if (dump(o.buf, cut, NULL, &c) == PK_OK) continue;
        assert_non_null(strstr(pk_error_last(), "t.pb: byte "));
    }
    size_t zn;
    unsigned char *z = ppb_gzip(o.buf, o.len, &zn);
    assert_non_null(z);
    dumped g = {.stream = o.buf, .n = o.len};
    assert_int_equal(dump(z, zn, NULL, &g), PK_OK);
    assert_true(g.types[1] == 4 && g.bad == 0);
    free(z);
    pb_out_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_varints),      cmocka_unit_test(test_fields),
        cmocka_unit_test(test_standard),     cmocka_unit_test(test_labels),
        cmocka_unit_test(test_default_type), cmocka_unit_test(test_damage),
        cmocka_unit_test(test_lost_mapping), cmocka_unit_test(test_budget),
        cmocka_unit_test(test_detect),       cmocka_unit_test(test_dump),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
