/*
 * tests/support/testutil.c — see testutil.h.
 */
#define _XOPEN_SOURCE 700
#include "testutil.h"

#include "fixtures/v4_builder.h"
#include "model/model.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

unsigned char *tu_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *d = malloc(n > 0 ? (size_t)n : 1);
    if (d && n > 0 && fread(d, 1, (size_t)n, f) != (size_t)n) {
        free(d);
        d = NULL;
    }
    fclose(f);
    *size = n > 0 ? (size_t)n : 0;
    return d;
}

int tu_same_file(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    unsigned char *x = tu_read_file(a, &na), *y = tu_read_file(b, &nb);
    int same = x && y && na == nb && memcmp(x, y, na) == 0;
    free(x), free(y);
    return same;
}

int tu_write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    int ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}

const char *tu_corpus_dir(void)
{
    static char path[4096];
    const char *env = getenv("PROFKIT_CORPUS");
    snprintf(path, sizeof path, "%s", env && *env ? env : PK_SOURCE_DIR "/../shared/corpus");
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "SKIPPED: corpus not found at %s (set PROFKIT_CORPUS)\n", path);
        return NULL;
    }
    return path;
}

/* nftw has no user pointer; the walk is single-threaded test code. */
static char **found;
static size_t n_found, cap_found;
static const char *suffix; /* NULL: database directories (by meta.db) */

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t len = strlen(path), sl = suffix ? strlen(suffix) : 8;
    const char *want = suffix ? suffix : "/meta.db";
    if (type == FTW_F && len >= sl && strcmp(path + len - sl, want) == 0) {
        if (n_found == cap_found) {
            cap_found = cap_found ? cap_found * 2 : 32;
            found = realloc(found, cap_found * sizeof *found);
        }
        found[n_found] = strndup(path, suffix ? len : len - 8);
        n_found++;
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t tu_find_files(const char *root, const char *ending, char ***out)
{
    found = NULL;
    n_found = cap_found = 0;
    suffix = ending;
    nftw(root, visit, 16, FTW_PHYS);
    suffix = NULL;
    qsort(found, n_found, sizeof *found, cmp_str);
    *out = found;
    return n_found;
}

size_t tu_find_databases(const char *root, char ***out)
{
    found = NULL;
    n_found = cap_found = 0;
    nftw(root, visit, 16, FTW_PHYS);
    qsort(found, n_found, sizeof *found, cmp_str);
    *out = found;
    return n_found;
}

void tu_free_list(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

size_t tu_count_diagnostics(const pk_profile *p, const char *code, pk_severity sev)
{
    size_t n = 0;
    for (size_t i = 0; i < pk_diagnostic_count(p); i++) {
        pk_diagnostic d;
        pk_diagnostic_get(p, i, &d);
        n += strcmp(d.code, code) == 0 && d.severity == sev;
    }
    return n;
}

int tu_load_db(const char *dir, tu_db *db)
{
    static const char *const names[4] = {"meta.db", "profile.db", "cct.db", "trace.db"};
    int n = 0;
    for (int i = 0; i < 4; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        db->names[i] = names[i];
        db->data[i] = tu_read_file(path, &db->size[i]);
        n += db->data[i] != NULL;
    }
    return n;
}

void tu_free_db(tu_db *db)
{
    for (int i = 0; i < 4; i++)
        free(db->data[i]);
    memset(db, 0, sizeof *db);
}

pk_status tu_open_db(const tu_db *db, uint32_t flags, pk_profile **out)
{
    const char *names[4];
    const void *data[4];
    uint64_t sizes[4];
    size_t n = 0;
    for (int i = 0; i < 4; i++) {
        if (!db->data[i]) continue;
        names[n] = db->names[i];
        data[n] = db->data[i];
        sizes[n++] = db->size[i];
    }
    pk_open_options opts = {flags};
    return pk_profile_open_memory(PK_FORMAT_HPCTOOLKIT_V4, n, names, data, sizes, &opts, out);
}

static double exercise_dimensions(const pk_profile *p)
{
    double sum = 0;
    char name[256];
    for (pk_index i = 0; i < pk_module_count(p); i++) {
        pk_module m;
        sum += pk_module_get(p, i, &m) == PK_OK && m.path ? strlen(m.path) : 0;
    }
    for (pk_index i = 0; i < pk_file_count(p); i++) {
        pk_file f;
        sum += pk_file_get(p, i, &f) == PK_OK && f.path ? strlen(f.path) : 0;
    }
    for (pk_index i = 0; i < pk_function_count(p); i++) {
        pk_function f;
        sum += pk_function_get(p, i, &f) == PK_OK && f.name ? strlen(f.name) : 0;
    }
    for (pk_index i = 0; i < pk_context_count(p); i++) {
        pk_context c;
        pk_index back;
        pk_context_get(p, i, &c);
        sum += (double)pk_context_name(p, i, name, sizeof name) + c.depth;
        if (pk_context_find(p, c.id, &back) == PK_OK) sum += back;
    }
    for (pk_index i = 0; i < pk_location_count(p); i++) {
        pk_location l;
        pk_location_get(p, i, &l);
        sum += (double)pk_location_name(p, i, name, sizeof name);
        for (size_t k = 0; k < l.n_ids; k++)
            sum += l.ids[k].logical;
    }
    for (size_t i = 0; i < pk_diagnostic_count(p); i++) {
        pk_diagnostic d;
        pk_diagnostic_get(p, i, &d);
        sum += strlen(d.message);
    }
    return sum;
}

static double exercise_values(const pk_profile *p)
{
    double sum = 0;
    pk_cursor c;
    pk_value v;
    for (pk_index l = 0; l < pk_location_count(p); l++) {
        pk_location_values_begin(p, l, &c);
        while (pk_cursor_next(&c, &v)) {
            double again = 0;
            sum += v.value;
            if (v.context != PK_NONE && v.column != PK_NONE)
                pk_value_lookup(p, l, v.context, v.column, &again);
            sum += again;
        }
    }
    for (pk_index i = 0; i < pk_context_count(p); i++) {
        if (pk_context_values_begin(p, i, &c) != PK_OK) continue;
        while (pk_cursor_next(&c, &v))
            sum += v.value;
    }
    return sum;
}

static double exercise_traces(const pk_profile *p)
{
    double sum = 0;
    pk_sample buf[64];
    for (pk_index t = 0; t < pk_trace_count(p); t++) {
        pk_trace tr;
        size_t got;
        pk_trace_get(p, t, &tr);
        for (uint64_t first = 0; first < tr.n_samples; first += got) {
            if (pk_trace_samples(p, t, first, 64, buf, &got) != PK_OK || got == 0) break;
            for (size_t k = 0; k < got; k++)
                sum += (double)buf[k].raw_id;
        }
    }
    return sum;
}

double tu_exercise(const pk_profile *p, int deep)
{
    double sum = exercise_dimensions(p) + exercise_values(p) + exercise_traces(p);
    size_t n_cols = pk_column_count(p), n_ctx = pk_context_count(p);
    double *totals = calloc(n_cols + 1, sizeof *totals);
    double *per_ctx = calloc(n_ctx + 1, sizeof *per_ctx);
    if (totals && pk_column_totals(p, totals, n_cols) == PK_OK)
        for (size_t c = 0; c < n_cols; c++)
            sum += totals[c];
    if (per_ctx && n_cols && pk_context_totals(p, 0, per_ctx, n_ctx) == PK_OK) sum += per_ctx[0];
    for (pk_index m = 0; m < pk_metric_count(p); m++) {
        double t;
        if (pk_metric_program_total(p, m, &t) == PK_OK) sum += t;
    }
    if (deep) {
        size_t problems = 0;
        pk_profile_verify(p, NULL, NULL, &problems);
        sum += (double)problems;
    }
    free(totals);
    free(per_ctx);
    return sum;
}

void tu_remove_tree(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

static char scratch[64];

int tu_scratch_make(const char *prefix)
{
    snprintf(scratch, sizeof scratch, "/tmp/%.32s-XXXXXX", prefix);
    return mkdtemp(scratch) ? 0 : -1;
}

void tu_scratch_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", scratch, name);
}

const char *tu_scratch_dir(void)
{
    return scratch;
}

void tu_scratch_remove(void)
{
    if (scratch[0]) tu_remove_tree(scratch);
    scratch[0] = '\0';
}

pk_profile *tu_open_fixture(const struct fx_db *db, char *dir)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, 64, "%s/pk-test-XXXXXX", tmp && *tmp && strlen(tmp) < 40 ? tmp : "/tmp");
    pk_profile *p = NULL;
    if (!mkdtemp(dir) || fx_write_dir(db, dir) != 0 || pk_profile_open(dir, NULL, &p) != PK_OK) {
        fprintf(stderr, "fixture database in %s: %s\n", dir, pk_error_last());
        abort();
    }
    return p;
}

void tu_close_fixture(pk_profile *p, const char *dir)
{
    pk_profile_free(p);
    tu_remove_tree(dir);
}

size_t tu_corpus_databases(char ***out)
{
    const char *corpus = tu_corpus_dir();
    *out = NULL;
    if (!corpus) return 0;
    char root[4096];
    int len = snprintf(root, sizeof root, "%s/hpctoolkit", corpus);
    size_t n = len > 0 && (size_t)len < sizeof root ? tu_find_databases(root, out) : 0;
    if (!*out) *out = calloc(1, sizeof **out); /* a corpus without databases: none to test */
    return n;
}

int tu_rewrite_first_value(const pk_profile *p)
{
    for (uint32_t l = 0; l < p->n_locs; l++) {
        const pk_plane *pl = &p->locs[l].plane;
        if (p->locs[l].is_summary || !pl->nvals) continue;
        ((unsigned char *)pl->vals)[2] ^= 0x40; /* the value's low byte */
        return 1;
    }
    return 0;
}
