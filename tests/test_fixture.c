/*
 * tests/test_fixture.c — the v4 reader against databases written by the
 * independent test writer (tests/fixtures): every dimension and value
 * comes back as described, newer-version layouts read the same, and the
 * context-major view agrees with the location-major one.
 */

#include "support/pk_cmocka.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures/v4_builder.h"
#include "support/testutil.h"

/* A profile and the file images it points into (values are not copied). */
typedef struct fixture {
    fx_image img[4];
    pk_profile *p;
} fixture;

static pk_profile *open_fixture(fixture *fx, const fx_db *db, uint32_t flags)
{
    assert_int_equal(fx_build(db, fx->img), 0);
    tu_db t = {{0}};
    for (int i = 0; i < 4; i++) {
        t.names[i] = fx->img[i].name;
        t.data[i] = fx->img[i].data;
        t.size[i] = fx->img[i].size;
    }
    fx->p = NULL;
    if (tu_open_db(&t, flags, &fx->p) != PK_OK) fail_msg("open failed: %s", pk_error_last());
    return fx->p;
}

static void close_fixture(fixture *fx)
{
    pk_profile_free(fx->p);
    fx_free(fx->img);
}

static pk_index ctx_of(const pk_profile *p, uint64_t id)
{
    pk_index i;
    assert_int_equal(pk_context_find(p, id, &i), PK_OK);
    return i;
}

static pk_index column_of(const pk_profile *p, pk_index metric, pk_scope_kind kind)
{
    pk_index c;
    assert_int_equal(pk_column_find(p, metric, kind, &c), PK_OK);
    return c;
}

static double value_at(const pk_profile *p, pk_index loc, uint64_t ctx_id, pk_index col)
{
    double v;
    assert_int_equal(pk_value_lookup(p, loc, ctx_of(p, ctx_id), col, &v), PK_OK);
    return v;
}

static void every_listed_context_reads_back(void **state)
{
    (void)state;
    const fx_db *db = fx_sample_db();
    fixture fx;
    pk_profile *p = open_fixture(&fx, db, 0);
    size_t listed = 0, unlisted = 0;
    for (int i = 0; i < db->n_contexts; i++) {
        const fx_context *fc = &db->contexts[i];
        pk_context c;
        pk_index idx;
        assert_int_equal(pk_context_find(p, fc->id, &idx), PK_OK);
        assert_int_equal(pk_context_get(p, idx, &c), PK_OK);
        if (fc->elide) {
            assert_true(c.flags & PK_CTXF_UNLISTED);
            assert_int_equal(c.parent, PK_NONE);
            unlisted++;
            continue;
        }
        listed++;
        pk_context parent;
        pk_context_get(p, c.parent, &parent);
        assert_int_equal(parent.id, fc->parent < 0 ? 0 : db->contexts[fc->parent].id);
        if (fc->parent < 0) {
            assert_int_equal(c.kind, PK_CTX_ENTRY);
            assert_string_equal(c.entry_name, fc->entry_name);
            continue;
        }
        static const pk_context_kind kinds[] = {PK_CTX_FUNCTION, PK_CTX_LOOP, PK_CTX_LINE,
                                                PK_CTX_INSTRUCTION};
        static const pk_relation rels[] = {PK_REL_LEXICAL, PK_REL_CALL, PK_REL_INLINED_CALL};
        assert_int_equal(c.kind, kinds[fc->lexical]);
        assert_int_equal(c.relation, rels[fc->relation]);
        assert_int_equal(c.function, fc->function < 0 ? PK_NONE : (pk_index)fc->function);
        assert_int_equal(c.file, fc->file < 0 ? PK_NONE : (pk_index)fc->file);
        assert_int_equal(c.module, fc->module < 0 ? PK_NONE : (pk_index)fc->module);
        if (fc->file >= 0) assert_int_equal(c.line, fc->line);
        if (fc->module >= 0) assert_int_equal(c.offset, fc->offset);
        assert_int_equal(c.propagation, fc->relation == 0 ? 1 : 0);
    }
    assert_int_equal(pk_context_count(p), 1 + listed + unlisted);
    close_fixture(&fx);
}

static void names_read_as_a_user_expects(void **state)
{
    (void)state;
    fixture fx;
    pk_profile *p = open_fixture(&fx, fx_sample_db(), 0);
    char name[128];
    pk_context_name(p, ctx_of(p, 7), name, sizeof name);
    assert_string_equal(name, "loop at kernels.c:15");
    pk_context_name(p, ctx_of(p, 9), name, sizeof name);
    assert_string_equal(name, "dot");
    pk_context_name(p, ctx_of(p, 14), name, sizeof name);
    assert_string_equal(name, "libc.so.6+0x9a3d8");
    pk_context_name(p, ctx_of(p, 11), name, sizeof name);
    assert_string_equal(name, "[context 11]");
    pk_context_name(p, 0, name, sizeof name);
    assert_string_equal(name, "<program root>");
    pk_location_name(p, 2, name, sizeof name);
    assert_string_equal(name, "NODE 0 [0x11ac0300] / THREAD 1");
    pk_location_name(p, 0, name, sizeof name);
    assert_string_equal(name, "summary");
    pk_profile_info info;
    pk_profile_get_info(p, &info);
    assert_string_equal(info.title, "solver (profkit sample)");
    assert_string_equal(info.format_name, "hpctoolkit");
    assert_int_equal(info.version_major, 4);
    assert_true(info.complete);
    pk_metric m;
    pk_metric_get(p, 0, &m);
    assert_string_equal(m.name, "CPUTIME (sec)");
    assert_string_equal(m.unit, "sec");
    close_fixture(&fx);
}

static void point_values_and_propagated_scopes_read_back(void **state)
{
    (void)state;
    const fx_db *db = fx_sample_db();
    fixture fx;
    pk_profile *p = open_fixture(&fx, db, 0);
    pk_index point = column_of(p, 0, PK_SCOPE_POINT), incl = column_of(p, 0, PK_SCOPE_INCLUSIVE);
    pk_index excl = column_of(p, 0, PK_SCOPE_EXCLUSIVE);
    for (int i = 0; i < db->n_values; i++) {
        const fx_value *v = &db->values[i];
        pk_index col = column_of(p, (pk_index)v->metric, PK_SCOPE_POINT);
        assert_true(value_at(p, (pk_index)v->thread + 1, v->ctx_id, col) == v->value);
    }
    /* thread 0: solve = 2.5 (inlined dot) + 0.125 (line) + 0.4 (memcpy) */
    assert_true(fabs(value_at(p, 1, 6, incl) - 3.025) < 1e-12);
    assert_true(value_at(p, 1, 6, excl) == 0.125); /* calls and inlined calls stop it */
    assert_true(value_at(p, 1, 9, excl) == 2.5);
    assert_true(value_at(p, 1, 6, point) == 0.0);
    double total;
    assert_int_equal(pk_metric_program_total(p, 0, &total), PK_OK);
    assert_true(fabs(total - 7.025) < 1e-12);
    size_t n_cols = pk_column_count(p);
    double *totals = calloc(n_cols, sizeof *totals);
    assert_int_equal(pk_column_totals(p, totals, n_cols), PK_OK);
    assert_true(fabs(totals[point] - 7.025) < 1e-12);
    free(totals);
    close_fixture(&fx);
}

static void summary_profile_sums_the_threads(void **state)
{
    (void)state;
    fixture fx;
    pk_profile *p = open_fixture(&fx, fx_sample_db(), 0);
    pk_location summary;
    pk_location_get(p, 0, &summary);
    assert_true(summary.is_summary);
    assert_int_equal(summary.n_ids, 0);
    for (pk_index c = 0; c < pk_column_count(p); c++) {
        pk_column col;
        pk_column_get(p, c, &col);
        if (!col.is_summary) continue;
        assert_int_equal(col.stat, PK_STAT_SUM);
        assert_string_equal(col.formula, "$$");
        pk_index plain;
        pk_scope sc;
        pk_scope_get(p, col.scope, &sc);
        assert_int_equal(pk_column_find(p, col.metric, sc.kind, &plain), PK_OK);
        double *sum = calloc(pk_context_count(p), sizeof *sum);
        double *stored = calloc(pk_context_count(p), sizeof *stored);
        assert_int_equal(pk_context_totals(p, plain, sum, pk_context_count(p)), PK_OK);
        assert_int_equal(pk_context_totals(p, c, stored, pk_context_count(p)), PK_OK);
        for (size_t i = 0; i < pk_context_count(p); i++)
            assert_true(fabs(sum[i] - stored[i]) <= 1e-12 * fabs(sum[i]));
        free(sum);
        free(stored);
    }
    close_fixture(&fx);
}

/* The context-major view: cct.db's planes and the built transpose give
 * the same values in the same order, and verification finds nothing. */
static void cct_view_equals_the_transpose(void **state)
{
    (void)state;
    fixture f1, f2;
    pk_profile *with = open_fixture(&f1, fx_sample_db(), 0);
    pk_profile *without = open_fixture(&f2, fx_sample_db(), PK_OPEN_NO_CCT);
    size_t problems = 99, n = 0;
    assert_int_equal(pk_profile_verify(with, NULL, NULL, &problems), PK_OK);
    assert_int_equal(problems, 0);
    assert_int_equal(pk_context_count(with), pk_context_count(without));
    for (pk_index i = 0; i < pk_context_count(with); i++) {
        pk_cursor a, b;
        pk_value va, vb;
        assert_int_equal(pk_context_values_begin(with, i, &a), PK_OK);
        assert_int_equal(pk_context_values_begin(without, i, &b), PK_OK);
        for (;;) {
            int more = pk_cursor_next(&a, &va);
            assert_int_equal(more, pk_cursor_next(&b, &vb));
            if (!more) break;
            assert_int_equal(va.column, vb.column);
            assert_int_equal(va.location, vb.location);
            assert_true(va.value == vb.value);
            n++;
        }
    }
    assert_true(n > 50);
    close_fixture(&f1);
    close_fixture(&f2);
}

static void traces_map_samples_to_contexts(void **state)
{
    (void)state;
    const fx_db *db = fx_sample_db();
    fixture fx;
    pk_profile *p = open_fixture(&fx, db, 0);
    assert_int_equal(pk_trace_count(p), 4);
    for (pk_index t = 0; t < 4; t++) {
        pk_trace tr;
        pk_sample s[16];
        size_t got;
        assert_int_equal(pk_trace_get(p, t, &tr), PK_OK);
        assert_int_equal(tr.location, t + 1);
        assert_int_equal(tr.n_samples, (uint64_t)db->n_samples[t]);
        assert_int_equal(pk_trace_samples(p, t, 0, 16, s, &got), PK_OK);
        assert_int_equal(got, (size_t)db->n_samples[t]);
        for (size_t k = 0; k < got; k++) {
            assert_int_equal(s[k].time, db->traces[t][k].time);
            assert_int_equal(s[k].raw_id, db->traces[t][k].ctx_id);
            if (s[k].raw_id == 0)
                assert_int_equal(s[k].context, PK_NONE);
            else
                assert_int_equal(s[k].context, ctx_of(p, s[k].raw_id));
        }
        pk_location l;
        pk_location_get(p, t + 1, &l);
        assert_int_equal(l.trace, t);
    }
    close_fixture(&fx);
}

/* A database from a newer minor version: larger structures, more flex
 * words, sections in another order, enumeration values we do not know.
 * Everything we do know must read exactly as in the plain layout. */
static void newer_minor_version_reads_the_same(void **state)
{
    (void)state;
    fx_db future = *fx_sample_db();
    future.minor = 3;
    future.extra = 16;
    future.extra_flex = 2;
    future.shuffle = 1;
    future.unknown_enums = 1;
    fixture f1, f2;
    pk_profile *a = open_fixture(&f1, fx_sample_db(), 0), *b = open_fixture(&f2, &future, 0);
    assert_int_equal(tu_count_diagnostics(a, "unlisted-context", PK_SEV_NOTE), 1);
    assert_int_equal(pk_diagnostic_count(a), 1);
    assert_true(tu_count_diagnostics(b, "newer-minor-version", PK_SEV_NOTE) >= 1);
    assert_true(tu_count_diagnostics(b, "unknown-enum", PK_SEV_NOTE) >= 3);
    assert_int_equal(tu_count_diagnostics(b, "unknown-id-kind", PK_SEV_WARNING), 1);
    assert_int_equal(pk_context_count(a), pk_context_count(b));
    assert_int_equal(pk_scope_count(b), pk_scope_count(a) + 1);
    for (pk_index i = 0; i < pk_context_count(a); i++) {
        pk_context ca, cb;
        pk_context_get(a, i, &ca);
        pk_context_get(b, i, &cb);
        assert_int_equal(ca.id, cb.id);
        assert_int_equal(ca.parent, cb.parent);
        assert_int_equal(ca.function, cb.function);
        assert_int_equal(ca.line, cb.line);
        assert_int_equal(ca.offset, cb.offset);
    }
    for (pk_index l = 0; l < pk_location_count(a); l++) {
        pk_cursor x, y;
        pk_value vx, vy;
        pk_location_values_begin(a, l, &x);
        pk_location_values_begin(b, l, &y);
        while (pk_cursor_next(&x, &vx)) {
            assert_true(pk_cursor_next(&y, &vy));
            assert_int_equal(vx.context, vy.context);
            assert_true(vx.value == vy.value);
        }
        assert_false(pk_cursor_next(&y, &vy));
    }
    pk_context last;
    pk_context_get(b, ctx_of(b, 20), &last);
    assert_int_equal(last.kind, PK_CTX_UNKNOWN);
    assert_int_equal(last.raw_kind, 7);
    assert_int_equal(last.relation, PK_REL_UNKNOWN);
    close_fixture(&f1);
    close_fixture(&f2);
}

/* hpcprof --no-thread-local: only the summary profile. Questions about a
 * metric across locations are answered from its SUM statistic. */
static void summary_only_database_answers_from_statistics(void **state)
{
    (void)state;
    fx_db only = *fx_sample_db();
    only.summary_only = 1;
    only.traces = NULL;
    fixture f1, f2;
    pk_profile *full = open_fixture(&f1, fx_sample_db(), 0), *p = open_fixture(&f2, &only, 0);
    assert_int_equal(pk_location_count(p), 1);
    assert_int_equal(pk_diagnostic_count(p), 1);
    double total;
    assert_int_equal(pk_metric_program_total(p, 0, &total), PK_OK);
    assert_true(fabs(total - 7.025) < 1e-12);
    size_t n = pk_context_count(p);
    assert_int_equal(n, pk_context_count(full));
    double *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
    pk_index incl = column_of(p, 1, PK_SCOPE_INCLUSIVE);
    assert_int_equal(pk_context_totals(p, incl, a, n), PK_OK);
    assert_int_equal(pk_context_totals(full, column_of(full, 1, PK_SCOPE_INCLUSIVE), b, n), PK_OK);
    for (size_t i = 0; i < n; i++)
        assert_true(fabs(a[i] - b[i]) <= 1e-9 * fabs(b[i]));
    free(a);
    free(b);
    close_fixture(&f1);
    close_fixture(&f2);
}

typedef struct record_count {
    size_t contexts, entries, values, profiles, other;
} record_count;

static int count_record(void *user, const pk_record *r)
{
    record_count *n = user;
    if (strcmp(r->type, "context") == 0 && strcmp(r->section, "contexts") == 0)
        n->contexts++;
    else if (strcmp(r->type, "entry-point") == 0)
        n->entries++;
    else if (strcmp(r->type, "value") == 0 && strcmp(r->file, "profile.db") == 0)
        n->values++;
    else if (strcmp(r->type, "profile") == 0)
        n->profiles++;
    else
        n->other++;
    return 0;
}

static void dump_emits_every_structure(void **state)
{
    (void)state;
    fx_image img[4];
    assert_int_equal(fx_build(fx_sample_db(), img), 0);
    const char *names[4];
    const void *data[4];
    uint64_t sizes[4];
    for (int i = 0; i < 4; i++)
        names[i] = img[i].name, data[i] = img[i].data, sizes[i] = img[i].size;
    record_count all = {0}, some = {0};
    assert_int_equal(
        pk_dump_memory(PK_FORMAT_HPCTOOLKIT_V4, 4, names, data, sizes, NULL, count_record, &all),
        PK_OK);
    assert_int_equal(all.contexts, 16);
    assert_int_equal(all.entries, 2);
    assert_int_equal(all.profiles, 5);
    fixture fx;
    pk_profile *p = open_fixture(&fx, fx_sample_db(), 0);
    size_t n_values = 0;
    for (pk_index l = 0; l < pk_location_count(p); l++) {
        pk_location loc;
        pk_location_get(p, l, &loc);
        n_values += loc.n_values;
    }
    assert_int_equal(all.values, n_values);
    pk_dump_options only = {"contexts"};
    assert_int_equal(
        pk_dump_memory(PK_FORMAT_HPCTOOLKIT_V4, 4, names, data, sizes, &only, count_record, &some),
        PK_OK);
    assert_int_equal(some.contexts + some.entries, 18);
    assert_int_equal(some.values + some.profiles + some.other, 0);
    pk_dump_options bad = {"contexts,nonsense"};
    assert_int_equal(
        pk_dump_memory(PK_FORMAT_HPCTOOLKIT_V4, 4, names, data, sizes, &bad, count_record, &some),
        PK_ERR_INVALID_ARG);
    close_fixture(&fx);
    fx_free(img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_listed_context_reads_back),
        cmocka_unit_test(names_read_as_a_user_expects),
        cmocka_unit_test(point_values_and_propagated_scopes_read_back),
        cmocka_unit_test(summary_profile_sums_the_threads),
        cmocka_unit_test(cct_view_equals_the_transpose),
        cmocka_unit_test(traces_map_samples_to_contexts),
        cmocka_unit_test(newer_minor_version_reads_the_same),
        cmocka_unit_test(summary_only_database_answers_from_statistics),
        cmocka_unit_test(dump_emits_every_structure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
