/*
 * par/build.c — pk_build_database(): an hpcrun measurement directory to
 * an HPCToolkit database by every member of a parallel build
 * (profkit/parallel.h): member 0 lists the files; each member reads a
 * contiguous share of them, of about equal bytes (formats/hpcrun/
 * measure_par.h); member 0 merges the pieces' tables, assigning every id
 * once, and sends the result to all; each member derives its own
 * locations' scopes (analysis/derive.c) and writes its parts of the
 * database (formats/hpctoolkit/write_par.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "analysis/derive_plan.h"
#include "formats/hpcrun/measure.h"
#include "formats/hpcrun/measure_par.h"
#include "formats/hpctoolkit/write_par.h"
#include "par.h"
#include "util/wire.h"

typedef struct listing {
    char dir[4096];
    char **names;
    uint64_t *bytes; /* .hpcrun and .hpctrace bytes of each */
    size_t n;
} listing;

static void listing_free(listing *ls)
{
    hm_free_names(ls->names, ls->n);
    free(ls->bytes);
    memset(ls, 0, sizeof *ls);
}

static uint64_t file_size(const char *dir, const char *name, const char *suffix)
{
    char path[8300];
    struct stat st;
    snprintf(path, sizeof path, "%s/%.*s%s", dir, (int)(strlen(name) - (suffix ? 7 : 0)), name,
             suffix ? suffix : "");
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

/* Member 0: the directory and its *.hpcrun files (or the one file given),
 * in name order, with their sizes. */
static pk_status list_inputs(const char *path, listing *ls)
{
    struct stat st;
    if (stat(path, &st) != 0) return pk_fail(PK_ERR_IO, "%s: no such file or directory", path);
    pk_status s;
    if (S_ISDIR(st.st_mode)) {
        snprintf(ls->dir, sizeof ls->dir, "%s", path);
        s = hm_list_dir(path, &ls->names, &ls->n);
    } else {
        const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
        size_t n = strlen(base);
        if (n <= 7 || strcmp(base + n - 7, ".hpcrun") != 0)
            return pk_fail(PK_ERR_UNSUPPORTED, "%s: a measurement profile must be named *.hpcrun",
                           path);
        snprintf(ls->dir, sizeof ls->dir, "%.*s", slash ? (int)(slash - path) : 1,
                 slash ? path : ".");
        if (!ls->dir[0]) snprintf(ls->dir, sizeof ls->dir, "/");
        ls->names = malloc(sizeof *ls->names);
        if (ls->names && (ls->names[0] = strdup(base))) ls->n = 1;
        s = ls->n ? PK_OK : pk_fail_nomem("listing");
    }
    if (!s && !ls->n)
        s = pk_fail(PK_ERR_FORMAT,
                    "%s: no .hpcrun profile in the directory (the parallel build reads hpcrun "
                    "measurement directories; other profiles convert without --threads)",
                    path);
    if (!s && !(ls->bytes = malloc(ls->n * sizeof *ls->bytes))) s = pk_fail_nomem("listing");
    for (size_t i = 0; !s && i < ls->n; i++)
        ls->bytes[i] =
            file_size(ls->dir, ls->names[i], NULL) + file_size(ls->dir, ls->names[i], ".hpctrace");
    return s;
}

static void put_listing(pk_buf *b, const listing *ls)
{
    pk_wire_str(b, ls->dir);
    pk_wire_u64(b, ls->n);
    for (size_t i = 0; i < ls->n; i++)
        pk_wire_str(b, ls->names[i]), pk_wire_u64(b, ls->bytes[i]);
}

static pk_status take_listing(const unsigned char *data, uint64_t len, listing *ls)
{
    pk_wire w = pk_wire_reader(data, len);
    uint32_t n = pk_wire_get32(&w);
    const unsigned char *dir = n < sizeof ls->dir ? pk_wire_take(&w, n) : NULL;
    uint64_t count = pk_wire_count(&w, 12);
    if (!dir) return pk_fail(PK_ERR_IO, "parallel build: the file list arrived damaged");
    memcpy(ls->dir, dir, n), ls->dir[n] = 0;
    ls->names = calloc(count + 1, sizeof *ls->names);
    ls->bytes = calloc(count + 1, sizeof *ls->bytes);
    if (!ls->names || !ls->bytes) return pk_fail_nomem("listing");
    for (uint64_t i = 0; i < count && !w.bad; i++, ls->n++) {
        uint32_t k = pk_wire_get32(&w);
        const unsigned char *s = pk_wire_take(&w, k);
        ls->bytes[i] = pk_wire_get64(&w);
        if (!s || !(ls->names[i] = strndup((const char *)s, k))) break;
    }
    if (w.bad || ls->n != count)
        return pk_fail(PK_ERR_IO, "parallel build: the file list arrived damaged");
    return PK_OK;
}

/* Every member: the listing member 0 made. */
static pk_status share_listing(pk_members *m, const char *path, listing *ls)
{
    pk_buf b = {0};
    pk_status st = PK_OK;
    if (m->me == 0) {
        listing mine = {0};
        st = list_inputs(path, &mine);
        if (!st) put_listing(&b, &mine);
        if (!st && b.failed) st = pk_fail_nomem("listing");
        listing_free(&mine);
    }
    st = pk_members_agree(m, st);
    pk_gathered g = {0};
    if (!st) st = pk_members_bcast0(m, b.data, b.len, &g);
    pk_buf_free(&b);
    if (!st) st = take_listing(g.data, g.len[0], ls);
    pk_gathered_free(&g);
    return pk_members_agree(m, st);
}

/* Member 0 merges the pieces' tables; everyone gets the result. */
static pk_status merge_tables(pk_members *m, const hm_piece *pc, pk_gathered *merged)
{
    pk_buf mine = {0}, all = {0};
    pk_status st = hm_piece_encode(pc, &mine);
    st = pk_members_agree(m, st);
    pk_gathered g = {0};
    if (!st) st = pk_members_gather0(m, mine.data, mine.len, &g);
    pk_buf_free(&mine);
    if (!st && m->me == 0) {
        const unsigned char **data = malloc(((size_t)g.n + 1) * sizeof *data);
        for (uint32_t k = 0; data && k < g.n; k++)
            data[k] = g.data + g.off[k];
        st = data ? hm_pieces_merge(data, g.len, g.n, &all) : pk_fail_nomem("merging tables");
        free(data);
    }
    pk_gathered_free(&g);
    st = pk_members_agree(m, st);
    if (!st) st = pk_members_bcast0(m, all.data, all.len, merged);
    pk_buf_free(&all);
    return pk_members_agree(m, st);
}

typedef struct build_job {
    const char *measurements, *out;
    const pk_parallel_options *o;
    pk_parallel_stats stats; /* thread 0's */
    pk_status status;        /* thread 0's */
} build_job;

static pk_status build(pk_members *m, build_job *job, pk_parallel_stats *ps)
{
    listing ls = {0};
    hm_piece *pc = NULL;
    pk_profile *p = NULL;
    pk_gathered merged = {0};
    par_clock clk;
    par_clock_start(&clk);
    pk_status st = share_listing(m, job->measurements, &ls);
    size_t lo = 0, hi = 0;
    if (!st) par_share(m, ls.bytes, ls.n, &lo, &hi);
    if (!st)
        st = pk_members_agree(
            m, hm_piece_read(ls.dir, ls.names + lo, hi - lo, job->o->open_flags, &pc));
    par_lap(&clk, &ps->seconds_read, &ps->cpu_read);
    if (!st) st = merge_tables(m, pc, &merged);
    par_lap(&clk, &ps->seconds_ids, &ps->cpu_ids);
    uint64_t before = 0, total = 0;
    if (!st) st = pk_members_scan(m, hm_piece_locations(pc), &before, &total);
    uint32_t first = 1 + (uint32_t)before, end = first + (pc ? hm_piece_locations(pc) : 0);
    if (!st) st = par_input_stats(m, ps, hm_piece_bytes(pc), (uint32_t)ls.n);
    if (!st)
        st = pk_members_agree(m, hm_piece_finish(pc, merged.data, merged.len[0], job->measurements,
                                                 ls.dir, first, &p));
    pk_gathered_free(&merged);
    hm_piece_free(pc);
    listing_free(&ls);
    if (!st) st = pk_members_agree(m, pk_derive_locations(p, first, end));
    par_lap(&clk, &ps->seconds_values, &ps->cpu_values);
    if (!st) st = par_write(m, p, first, end, job->out, job->o, NULL, NULL, ps);
    par_lap(&clk, &ps->seconds_write, &ps->cpu_write);
    pk_profile_free(p);
    return st;
}

static void member(pk_members *m, void *user)
{
    build_job *job = user;
    pk_parallel_stats ps = {0};
    pk_status st = build(m, job, &ps);
    par_collect_sent(m, &ps);
    if (m->thread == 0) job->status = st, job->stats = ps;
}

pk_status pk_build_database(const char *measurements, const char *out,
                            const pk_parallel_options *opts, pk_parallel_stats *stats)
{
    pk_parallel_options none = {0};
    if (!opts) opts = &none;
    if (!measurements || !out || !*out)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_build_database: no measurements or output");
    build_job job = {.measurements = measurements, .out = out, .o = opts};
    pk_status st = pk_members_run(opts->team, opts->threads, member, &job);
    if (!st) st = job.status;
    if (stats) *stats = job.stats;
    return st;
}
