/*
 * tests/support/testutil.h — helpers shared by the test programs (and the
 * fuzzer): reading files, finding the shared corpus, and exercising every
 * accessor of an opened profile so that sanitizers see every read.
 */
#ifndef PK_TESTS_TESTUTIL_H
#define PK_TESTS_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "profkit/profkit.h"

/* Exit status that makes ctest report a test as skipped. */
#define TEST_SKIP 77

/* Whole file into a malloc'ed buffer of exactly its size (so reads past
 * the end are caught by ASan); NULL if absent. */
unsigned char *tu_read_file(const char *path, size_t *size);
/* 1 if both files exist and hold the same bytes, else 0. */
int tu_same_file(const char *a, const char *b);
/* Write `text` to path (created or truncated): 0, or -1. */
int tu_write_text(const char *path, const char *text);

/* $PROFKIT_CORPUS, or <source>/../shared/corpus; NULL (and a message
 * saying so on stderr) if that directory does not exist. */
const char *tu_corpus_dir(void);

/* Directories under `root` that contain a meta.db, sorted; returns count,
 * *out is malloc'ed (free each and the array with tu_free_list). */
size_t tu_find_databases(const char *root, char ***out);
/* Files under root whose path ends in `ending` (e.g. ".cubex"), sorted. */
size_t tu_find_files(const char *root, const char *ending, char ***out);
void tu_free_list(char **list, size_t n);
/* The database directories of the corpus' HPCToolkit part; *out is NULL
 * (and 0 returned) when there is no corpus: callers skip the test. */
size_t tu_corpus_databases(char ***out);

/* Touch everything a consumer could touch: every dimension, every value
 * through both cursors, lookups, traces, names, totals, verification.
 * Returns a checksum so the work cannot be optimised away. `deep` also
 * runs the O(n log n) cross-file verification. */
double tu_exercise(const pk_profile *p, int deep);

/* How many diagnostics of `p` have this code and severity. */
size_t tu_count_diagnostics(const pk_profile *p, const char *code, pk_severity sev);

/* The four files of a database directory as memory images; absent files
 * have data == NULL. Returns how many were present. */
typedef struct tu_db {
    const char *names[4];
    unsigned char *data[4];
    size_t size[4];
} tu_db;
int tu_load_db(const char *dir, tu_db *db);
void tu_free_db(tu_db *db);
/* Open from the images, including only the present files. */
pk_status tu_open_db(const tu_db *db, uint32_t flags, pk_profile **out);

/* A fixture database (tests/fixtures/v4_builder.h) written to a fresh
 * temporary directory (its path in dir, at least 64 bytes) and opened;
 * fails the test on any error. tu_close_fixture() frees and removes it. */
struct fx_db;
pk_profile *tu_open_fixture(const struct fx_db *db, char *dir);
void tu_close_fixture(pk_profile *p, const char *dir);
/* rm -rf of a directory the test made. */
void tu_remove_tree(const char *dir);

/* As if another program rewrote a value of a mapped input while it was
 * read: flips a bit of the first plain location's first value (the
 * test's planes must be malloc'd). 1 if it did, 0 if no value exists. */
int tu_rewrite_first_value(const pk_profile *p);

/* A scratch directory for a group of tests: made by tu_scratch_make()
 * (in /tmp, named after `prefix`; 0 or -1, as cmocka's group setup
 * returns), paths in it by tu_scratch_path(), removed with all it holds by
 * tu_scratch_remove(). One at a time per test program. */
int tu_scratch_make(const char *prefix);
void tu_scratch_path(char *buf, size_t size, const char *name);
const char *tu_scratch_dir(void);
void tu_scratch_remove(void);

#endif
