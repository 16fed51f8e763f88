/*
 * formats/callgrind/write.c — writing a profile as Callgrind files that
 * callgrind_annotate and KCachegrind read with the profile's numbers:
 * by default one file with one part holding the sum over the locations
 * (what callgrind_annotate reads correctly), with PK_WRITE_SPLIT one file
 * per location. What goes in is decided first (write_plan.c: locations,
 * call graph, events, units, what is left out), then written
 * (write_body.c). Written under temporary names and put in place when
 * complete (util/safeout.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "callgrind.h"
#include "cgw.h"
#include "util/error.h"
#include "util/safeout.h"

/* Name tables sized for the profile (and the call graph's extra functions). */
static pk_status prepare_names(cgw *w)
{
    const pk_profile *p = w->p;
    w->nfile = (uint32_t)p->n_files + 1, w->nobj = (uint32_t)p->n_modules + 1;
    w->nfn = w->cg->n_functions > p->n_functions ? w->cg->n_functions : (uint32_t)p->n_functions;
    w->def[0] = calloc(w->nfile, 1), w->def[1] = calloc(w->nfn + 1u, 1),
    w->def[2] = calloc(w->nobj, 1), w->has_line = calloc(w->nfile, 1);
    if (!w->def[0] || !w->def[1] || !w->def[2] || !w->has_line)
        return pk_fail_nomem("writing Callgrind");
    return PK_OK;
}

static void writer_free(cgw *w)
{
    for (int d = 0; d < 3; d++)
        free(w->def[d]);
    free(w->has_line);
    cgw_plan_free(w);
}

/* The stream of a started output file (it takes over the descriptor). */
static FILE *create(pk_safeout *s, pk_status *st)
{
    FILE *f = fdopen(s->fd, "w");
    if (!f) *st = pk_fail(PK_ERR_IO, "%s: cannot write: %s", s->tmp, strerror(errno));
    if (f) setvbuf(f, NULL, _IOFBF, 1 << 20), s->fd = -1;
    return f;
}

static pk_status finish(FILE *f, const char *tmp, pk_status st)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        st = st ? st : pk_fail(PK_ERR_IO, "%s: write failed: %s", tmp, strerror(errno));
    return st;
}

/* The files written: `path`, or with PK_WRITE_SPLIT and several parts
 * "path-01", "path-02"... as callgrind names per-thread files, so the
 * set opens as one run by its base name (here and in KCachegrind). */
typedef struct targets {
    uint32_t n, started;
    char (*path)[4096];
    pk_safeout *safe; /* [started]: each file's temporary, until committed */
} targets;

static pk_status name_targets(targets *t, const char *path, uint32_t n, int force)
{
    if (n > 1 && pk_safeout_is_stdout(path))
        return pk_fail(PK_ERR_UNSUPPORTED,
                       "standard output ('-'): split, the profile is %u Callgrind files, one "
                       "per location; give a file name for them",
                       n);
    t->n = n;
    t->path = malloc(n * sizeof *t->path), t->safe = malloc(n * sizeof *t->safe);
    if (!t->path || !t->safe) return pk_fail_nomem("writing Callgrind");
    int digits = n > 99 ? snprintf(NULL, 0, "%u", n) : 2;
    for (uint32_t k = 0; k < n; k++) {
        if (n == 1)
            snprintf(t->path[k], sizeof t->path[k], "%s", path);
        else
            snprintf(t->path[k], sizeof t->path[k], "%s-%0*u", path, digits, k + 1);
        pk_status st = pk_safeout_file(&t->safe[k], t->path[k], force ? PK_WRITE_FORCE : 0);
        if (st) return st;
        t->started = k + 1;
    }
    return PK_OK;
}

/* Each file in place; should one fail, the ones already placed (new
 * files profkit just wrote) are taken back, so the set is whole or
 * absent. */
static pk_status commit_targets(targets *t)
{
    pk_status st = PK_OK;
    uint32_t k = 0;
    for (; k < t->started && !st; k++)
        st = pk_safeout_commit(&t->safe[k]);
    if (!st) return t->started = 0, PK_OK;
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", pk_error_last());
    for (uint32_t i = 0; i + 1 < k; i++)
        unlink(t->path[i]);
    for (; k < t->started; k++)
        pk_safeout_abort(&t->safe[k]);
    t->started = 0;
    return pk_fail(st, "%s", msg);
}

static pk_status write_files(cgw *w, targets *t)
{
    pk_status st = PK_OK;
    w->out = calloc(t->n, sizeof *w->out);
    if (!w->out) return pk_fail_nomem("writing Callgrind");
    for (uint32_t k = 0; k < t->n && !st; k++)
        w->out[k] = create(&t->safe[k], &st);
    if (!st) st = cgw_write_parts(w);
    for (uint32_t k = 0; k < t->n; k++)
        if (w->out[k]) st = finish(w->out[k], t->path[k], st);
    if (!st) st = commit_targets(t);
    return st;
}

static void count_bytes(const targets *t, pk_write_stats *stats)
{
    stats->bytes = 0, stats->n_files = t->n;
    for (uint32_t k = 0; k < t->n; k++) {
        FILE *f = pk_safeout_is_stdout(t->path[k]) ? NULL : fopen(t->path[k], "r");
        if (!f) continue;
        fseek(f, 0, SEEK_END);
        stats->bytes += (uint64_t)ftell(f);
        fclose(f);
    }
}

pk_status cg_write(const pk_profile *p, const char *path, const pk_write_options *opts,
                   pk_write_stats *stats)
{
    uint32_t flags = opts ? opts->flags : 0;
    cgw w = {.p = p, .opts = opts, .stats = stats, .path = path};
    targets t = {0};
    pk_status st = cgw_plan(&w);
    if (!st) st = name_targets(&t, path, w.n_out > 1 ? w.n_out : 1, (flags & PK_WRITE_FORCE) != 0);
    if (!st) st = prepare_names(&w);
    if (!st) st = write_files(&w, &t);
    for (uint32_t k = 0; k < t.started; k++) /* not committed: failed */
        pk_safeout_abort(&t.safe[k]);
    if (!st) count_bytes(&t, stats);
    stats->n_values = w.n_values;
    free(t.path), free(t.safe), free(w.out);
    writer_free(&w);
    return st;
}
