/*
 * tests/test_robustness.c — damaged input never crashes the reader.
 *
 *   truncate: every file of every database cut at 64 evenly spaced sizes,
 *             once plainly and once keeping its footer;
 *   flip:     every byte of every file header and section header inverted
 *             (every corpus database), and every byte of every file of the
 *             fixture databases.
 *
 * Each damaged copy lives in a buffer of exactly its size, so under
 * AddressSanitizer any read past the end fails the test. The outcome must
 * be a clean error with a message, or a profile whose every accessor works
 * (tu_exercise touches them all). And since only meta.db is required,
 * damage to any other file must still open with PK_OPEN_KEEP_GOING.
 *
 * Usage: robustness truncate|flip [SHARD N]   (databases i with i % N == SHARD)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures/v4_builder.h"
#include "support/testutil.h"
#include "util/bytes.h"

typedef struct stats {
    size_t opened, refused, kept_going, rewritten;
    const char *work; /* scratch directory for rewrites */
    /* this process tries every shards-th damaged copy, from the shard-th:
     * the shards share the fixtures' and every database's copies alike */
    size_t seq, shard, shards;
} stats;

static int failures;

static void fail(const char *what, const char *db, const char *file, size_t at)
{
    fprintf(stderr, "FAIL: %s: %s, %s at %zu: %s\n", what, db, file, at, pk_error_last());
    failures++;
}

/* Contexts meta.db does not list that no location holds a value at
 * (their values, in a damaged cct.db, named no profile): HPCToolkit knows
 * such a context only by its values, so the writer leaves them out and
 * reports it (docs/hpctoolkit-writer.md). */
static size_t unlisted_without_values(const pk_profile *p)
{
    size_t n_ctx = pk_context_count(p), n = 0;
    unsigned char *held = calloc(n_ctx + 1, 1);
    if (!held) return 0;
    for (pk_index l = 0; l < pk_location_count(p); l++) {
        pk_cursor c;
        pk_value v;
        if (pk_location_values_begin(p, l, &c) != PK_OK) continue;
        while (pk_cursor_next(&c, &v))
            if (v.context < n_ctx) held[v.context] = 1;
    }
    for (pk_index i = 0; i < n_ctx; i++) {
        pk_context c;
        if (pk_context_get(p, i, &c) == PK_OK && (c.flags & PK_CTXF_UNLISTED) && !held[i]) n++;
    }
    free(held);
    return n;
}

static void count_loss(void *user, const char *item, const char *reason)
{
    (void)reason;
    if (!strcmp(item, "unlisted contexts")) ++*(int *)user;
}

/* Whatever the reader accepts, the writer writes and the reader reads
 * back with the files agreeing with each other (or the writer refuses
 * with a message, e.g. for ids the format cannot hold), with every
 * location and context, but those the writer reports it cannot hold. */
static void rewrite(const pk_profile *p, const char *db, const char *file, size_t at, stats *st)
{
    char out[4200];
    snprintf(out, sizeof out, "%s/rewrite.d", st->work);
    int reported = 0;
    pk_write_options o = {.flags = PK_WRITE_FORCE, .loss = count_loss, .loss_user = &reported};
    pk_status s = pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, out, &o, NULL);
    if (s != PK_OK) {
        if (s != PK_ERR_UNSUPPORTED || !pk_error_last()[0])
            fail("writing what was read", db, file, at);
        return;
    }
    pk_profile *q = NULL;
    size_t problems = 0;
    if (pk_profile_open(out, NULL, &q) != PK_OK) {
        fail("reading what was written", db, file, at);
        return;
    }
    size_t before = 0, summaries = 0;
    pk_profile_verify(p, NULL, NULL, &before);
    for (pk_index l = 0; l < pk_location_count(p); l++) {
        pk_location loc;
        pk_location_get(p, l, &loc);
        summaries += (size_t)loc.is_summary;
    }
    pk_profile_verify(q, NULL, NULL, &problems);
    size_t lost = unlisted_without_values(p);
    /* the writer adds an (empty) summary profile 0 when there is none */
    if (problems > before || pk_location_count(q) != pk_location_count(p) + !summaries ||
        pk_context_count(q) != pk_context_count(p) - lost || (lost > 0) != (reported > 0)) {
        fprintf(stderr,
                "  problems %zu (source %zu), locations %zu/%zu, contexts %zu/%zu (%zu "
                "without values, %sreported)\n",
                problems, before, pk_location_count(q), pk_location_count(p), pk_context_count(q),
                pk_context_count(p), lost, reported ? "" : "not ");
        fail("rewritten database differs", db, file, at);
    }
    pk_profile_free(q);
    st->rewritten++;
}

/* A profile that lost damaged parts is never written as if complete. */
static void refuse_incomplete(const pk_profile *p, const char *db, const char *file, size_t at,
                              const stats *st)
{
    pk_profile_info info;
    pk_profile_get_info(p, &info);
    if (info.complete || st->kept_going % 64 != 1) return;
    char out[4200];
    snprintf(out, sizeof out, "%s/incomplete.d", st->work);
    if (pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, out, NULL, NULL) != PK_ERR_INVALID_ARG ||
        !strstr(pk_error_last(), "incomplete"))
        fail("an incomplete profile was written", db, file, at);
}

/* Open the database with file `f` replaced by damaged[0..size). */
static void try_damaged(const tu_db *orig, int f, const unsigned char *bytes, size_t size,
                        const char *name, size_t at, stats *st)
{
    if (st->seq++ % st->shards != st->shard) return; /* another shard's */
    tu_db d = *orig;
    unsigned char *copy = malloc(size ? size : 1);
    memcpy(copy, bytes, size);
    d.data[f] = copy;
    d.size[f] = size;
    pk_profile *p = NULL;
    pk_status s = tu_open_db(&d, 0, &p);
    if (s == PK_OK) {
        st->opened++;
        tu_exercise(p, 0);
        if (st->opened % 8 == 1) rewrite(p, name, orig->names[f], at, st);
        pk_profile_free(p);
    } else {
        st->refused++;
        if (!pk_error_last()[0]) fail("error without a message", name, orig->names[f], at);
        if (s != PK_ERR_FORMAT && s != PK_ERR_UNSUPPORTED)
            fail("unexpected status", name, orig->names[f], at);
        if (f != 0) {
            s = tu_open_db(&d, PK_OPEN_KEEP_GOING, &p);
            if (s != PK_OK)
                fail("KEEP_GOING could not open", name, orig->names[f], at);
            else
                st->kept_going++, tu_exercise(p, 0),
                    refuse_incomplete(p, name, orig->names[f], at, st), pk_profile_free(p);
        }
    }
    free(copy);
}

/* Plain truncation is caught by the footer check alone; truncation that
 * keeps the 8-byte footer makes every pointer and size check do the work. */
static void truncate_all(const tu_db *db, const char *name, stats *st)
{
    for (int f = 0; f < 4; f++) {
        size_t size = db->size[f];
        if (!db->data[f]) continue;
        unsigned char *cut = malloc(size + 8);
        for (size_t k = 0; k < 64; k++) {
            size_t at = size * k / 64;
            try_damaged(db, f, db->data[f], at, name, at, st);
            if (size < 8) continue;
            memcpy(cut, db->data[f], at);
            memcpy(cut + at, db->data[f] + size - 8, 8);
            try_damaged(db, f, cut, at + 8, name, at, st);
        }
        free(cut);
    }
}

/* Bytes of a file's header and of the structure at the start of each of
 * its sections (as far as the header's pointers are within the file). */
static void flip_headers(const tu_db *db, const char *name, stats *st)
{
    static const unsigned n_sect[4] = {8, 2, 1, 1};
    for (int f = 0; f < 4; f++) {
        size_t size = db->size[f];
        unsigned char *buf = db->data[f];
        if (!buf) continue;
        size_t hdr = 16 + 16 * n_sect[f];
        for (size_t i = 0; i < hdr && i < size; i++) {
            buf[i] ^= 0xff;
            try_damaged(db, f, buf, size, name, i, st);
            buf[i] ^= 0xff;
        }
        for (unsigned s = 0; s < n_sect[f] && 0x20 + 16 * s <= size; s++) {
            uint64_t p = pk_le64(buf + 0x18 + 16 * s);
            for (uint64_t i = p; i < p + 0x40 && i < size; i++) {
                buf[i] ^= 0xff;
                try_damaged(db, f, buf, size, name, (size_t)i, st);
                buf[i] ^= 0xff;
            }
        }
    }
}

static void flip_everything(const tu_db *db, const char *name, stats *st)
{
    for (int f = 0; f < 4; f++)
        for (size_t i = 0; db->data[f] && i < db->size[f]; i++) {
            db->data[f][i] ^= 0xff;
            try_damaged(db, f, db->data[f], db->size[f], name, i, st);
            db->data[f][i] ^= 0xff;
        }
}

static void run_fixtures(int flip, stats *st)
{
    fx_db variants[3] = {*fx_sample_db(), *fx_sample_db(), *fx_sample_db()};
    variants[1].minor = 2, variants[1].extra = 8, variants[1].extra_flex = 1;
    variants[1].shuffle = variants[1].unknown_enums = 1;
    variants[2].no_cct = 1;
    for (int v = 0; v < 3; v++) {
        fx_image img[4];
        if (fx_build(&variants[v], img) != 0) {
            failures++;
            continue;
        }
        tu_db db = {{0}};
        for (int i = 0; i < 4; i++)
            db.names[i] = img[i].name, db.data[i] = img[i].data, db.size[i] = img[i].size;
        if (flip)
            flip_everything(&db, "fixture", st);
        else
            truncate_all(&db, "fixture", st);
        fx_free(img);
    }
}

int main(int argc, char **argv)
{
    int flip = argc > 1 && strcmp(argv[1], "flip") == 0;
    int shard = argc > 3 ? atoi(argv[2]) : 0, shards = argc > 3 ? atoi(argv[3]) : 1;
    if (shards < 1 || shard < 0 || shard >= shards) shard = 0, shards = 1;
    stats st = {.shard = (size_t)shard, .shards = (size_t)shards};
    char work[64];
    const char *tmp = getenv("TMPDIR");
    snprintf(work, sizeof work, "%s/pk-robust-XXXXXX",
             tmp && *tmp && strlen(tmp) < 40 ? tmp : "/tmp");
    if (!mkdtemp(work)) {
        perror("mkdtemp");
        return 1;
    }
    st.work = work;
    run_fixtures(flip, &st);
    const char *corpus = tu_corpus_dir();
    size_t n = 0, used = 0;
    char **dbs = NULL, root[4096];
    if (corpus) {
        snprintf(root, sizeof root, "%s/hpctoolkit", corpus);
        n = tu_find_databases(root, &dbs);
    }
    for (size_t i = 0; i < n; i++) {
        tu_db db;
        tu_load_db(dbs[i], &db);
        pk_profile *p;
        if (tu_open_db(&db, 0, &p) != PK_OK) { /* not a v4 database: nothing to damage */
            tu_free_db(&db);
            continue;
        }
        pk_profile_free(p);
        used++;
        if (flip)
            flip_headers(&db, dbs[i], &st);
        else
            truncate_all(&db, dbs[i], &st);
        tu_free_db(&db);
    }
    tu_free_list(dbs, n);
    tu_remove_tree(work);
    printf("%s: %zu corpus databases (+ fixtures%s): %zu damaged copies opened (%zu of them "
           "rewritten and read back), %zu refused cleanly, %zu of those opened with KEEP_GOING; "
           "%d failures\n",
           flip ? "flip" : "truncate", used, corpus ? "" : "; corpus absent, skipped", st.opened,
           st.rewritten, st.refused, st.kept_going, failures);
    return failures ? 1 : 0;
}
