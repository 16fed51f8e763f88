/*
 * par/merge.c — pk_merge_database(): profiles (runs) merged into one
 * HPCToolkit database by every member of a parallel build
 * (profkit/parallel.h).
 *
 * Each member opens a contiguous share of the inputs (of about equal
 * bytes) and sends their structure (model/skeleton.h) to member 0, which
 * merges the structures with pk_profile_merge's own code (mg_merge) and
 * sends everyone the merged structure and where each input's contexts,
 * columns and locations went. A merged location belongs to the member
 * holding the first input that feeds it (with --mean, several inputs do);
 * values of other inputs travel to it, in input order, so it adds them up
 * exactly as the serial merge does. Then the database is written as
 * every parallel build writes it (formats/hpctoolkit/write_par.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/merge.h"
#include "model/skeleton.h"
#include "par.h"
#include "util/wire.h"

/* Bytes of an input: a file's, or a directory's files' (a database). */
static uint64_t input_bytes(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    if (!S_ISDIR(st.st_mode)) return (uint64_t)st.st_size;
    uint64_t n = 0;
    DIR *d = opendir(path);
    char buf[8300];
    for (struct dirent *e; d && (e = readdir(d));) {
        snprintf(buf, sizeof buf, "%s/%s", path, e->d_name);
        if (stat(buf, &st) == 0 && S_ISREG(st.st_mode)) n += (uint64_t)st.st_size;
    }
    if (d) closedir(d);
    return n;
}

typedef struct merge_job {
    const char *const *paths;
    size_t n;
    const char *out;
    const pk_parallel_options *o;
    pk_parallel_stats stats; /* thread 0's */
    pk_status status;
} merge_job;

typedef struct member_state {
    merge_job *job;
    pk_members *m;
    size_t lo, hi;       /* this member's inputs */
    size_t *first_input; /* per member: its first input (n_members + 1) */
    pk_profile **in;     /* this member's inputs, opened */
    pk_profile *s;       /* the merged structure; this member's values */
    mg_keep keep;        /* every input's maps (only this member's are used) */
    uint32_t *n_loc;     /* locations of each input */
    uint32_t first, end; /* the merged locations this member holds */
} member_state;

/* Member 0 measures the inputs; everyone takes a share of them. */
static pk_status share_inputs(member_state *ms, uint64_t *bytes)
{
    pk_members *m = ms->m;
    size_t n = ms->job->n;
    uint64_t *sizes = calloc(n + 1, sizeof *sizes);
    ms->first_input = calloc((size_t)m->n + 1, sizeof *ms->first_input);
    if (!sizes || !ms->first_input) return free(sizes), pk_fail_nomem("sharing inputs");
    if (m->me == 0)
        for (size_t i = 0; i < n; i++)
            sizes[i] = input_bytes(ms->job->paths[i]);
    pk_status st = pk_members_reduce(m, sizes, n, PK_REDUCE_MAX); /* member 0's */
    pk_members one = *m;
    for (uint32_t k = 0; !st && k < m->n; k++) { /* every member's share, for ownership */
        size_t lo, hi;
        one.me = k;
        par_share(&one, sizes, n, &lo, &hi);
        ms->first_input[k] = lo;
        if (k == m->me) ms->lo = lo, ms->hi = hi;
    }
    ms->first_input[m->n] = n;
    *bytes = 0;
    for (size_t i = ms->lo; i < ms->hi; i++)
        *bytes += sizes[i];
    free(sizes);
    return st;
}

static pk_status open_inputs(member_state *ms)
{
    size_t n = ms->hi - ms->lo;
    ms->in = calloc(n + 1, sizeof *ms->in);
    if (!ms->in) return pk_fail_nomem("opening inputs");
    pk_open_options o = {ms->job->o->open_flags, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        pk_status st = pk_profile_open(ms->job->paths[ms->lo + i], &o, &ms->in[i]);
        if (st) return st;
    }
    return PK_OK;
}

/* This member's inputs' structures, one message: count, then each with
 * its length. */
static pk_status encode_inputs(const member_state *ms, pk_buf *b)
{
    pk_wire_u64(b, ms->hi - ms->lo);
    pk_status st = PK_OK;
    for (size_t i = 0; i < ms->hi - ms->lo && !st; i++) {
        size_t at = b->len;
        pk_wire_u64(b, 0);
        st = pk_skeleton_encode(ms->in[i], b);
        pk_buf_set_u64(b, at, b->len - at - 8);
    }
    return st ? st : b->failed ? pk_fail_nomem("sending structures") : PK_OK;
}

/* ---- member 0: the merged structure and every input's maps ---- */

static void put_maps(pk_buf *b, const pk_profile *const *in, size_t n, const mg_keep *k,
                     const pk_profile *merged)
{
    pk_wire_u64(b, n);
    for (size_t i = 0; i < n; i++) {
        const uint32_t *maps[3] = {k->ctx[i], k->column[i], k->loc[i]};
        uint32_t counts[3] = {in[i]->n_ctx, in[i]->n_columns, in[i]->n_locs};
        for (int j = 0; j < 3; j++) {
            pk_wire_u32(b, counts[j]);
            for (uint32_t x = 0; x < counts[j]; x++)
                pk_wire_u32(b, maps[j][x]);
        }
    }
    pk_wire_u32(b, merged->n_locs);
    for (uint32_t l = 0; l < merged->n_locs; l++)
        pk_wire_u32(b, k->loc_members[l]);
}

/* The skeletons of every member's message, in order. */
static pk_status decode_inputs(const pk_gathered *g, size_t n, pk_profile **in)
{
    size_t at = 0;
    for (uint32_t k = 0; k < g->n; k++) {
        pk_wire w = pk_wire_reader(g->data + g->off[k], g->len[k]);
        uint64_t count = pk_wire_get64(&w);
        for (uint64_t j = 0; j < count && !w.bad; j++) {
            uint64_t len = pk_wire_get64(&w);
            const unsigned char *d = len <= w.n - w.at ? pk_wire_take(&w, len) : NULL;
            if (!d || at >= n)
                return pk_fail(PK_ERR_IO, "parallel build: structures arrived "
                                          "damaged");
            pk_status st = pk_skeleton_decode(d, len, &in[at++]);
            if (st) return st;
        }
        if (w.bad) return pk_fail(PK_ERR_IO, "parallel build: structures arrived damaged");
    }
    return at == n ? PK_OK : pk_fail(PK_ERR_IO, "parallel build: structures are missing");
}

static pk_status merge_structures(const merge_job *job, const pk_gathered *g, pk_buf *out)
{
    pk_profile **in = calloc(job->n + 1, sizeof *in), *merged = NULL;
    mg_keep keep = {0};
    pk_merge_options mo = {job->o->mean};
    pk_status st = in ? decode_inputs(g, job->n, in) : pk_fail_nomem("merging");
    if (!st) st = mg_merge((const pk_profile *const *)in, job->n, &mo, &merged, &keep);
    if (!st && !merged->complete) /* as pk_profile_write refuses it */
        st = pk_fail(PK_ERR_INVALID_ARG,
                     "%s: the profile is incomplete (damaged parts were dropped while opening "
                     "it); writing it would present partial data as complete",
                     job->out);
    size_t at = out->len;
    pk_wire_u64(out, 0); /* the skeleton's length, then the skeleton, then the maps */
    if (!st) st = pk_skeleton_encode(merged, out);
    pk_buf_set_u64(out, at, out->len - at - 8);
    if (!st) put_maps(out, (const pk_profile *const *)in, job->n, &keep, merged);
    if (!st && out->failed) st = pk_fail_nomem("sending the merged structure");
    for (size_t i = 0; in && i < job->n; i++)
        pk_profile_free(in[i]);
    free(in);
    pk_profile_free(merged);
    mg_keep_free(&keep);
    return st;
}

/* ---- every member: the merged structure, the maps ---- */

static pk_status take_map(pk_wire *w, uint32_t **map, uint32_t *n)
{
    *n = pk_wire_get32(w);
    const unsigned char *d = *n <= (w->n - w->at) / 4 ? pk_wire_take(w, 4ull * *n) : NULL;
    if (!d) return pk_fail(PK_ERR_IO, "parallel build: maps arrived damaged");
    *map = malloc(((size_t)*n + 1) * sizeof **map);
    if (!*map) return pk_fail_nomem("receiving maps");
    for (uint32_t x = 0; x < *n; x++)
        (*map)[x] = pk_le32(d + 4ull * x);
    return PK_OK;
}

static pk_status take_merged(member_state *ms, const unsigned char *d, uint64_t len)
{
    pk_wire w = pk_wire_reader(d, len);
    size_t n = ms->job->n;
    mg_keep *k = &ms->keep;
    ms->n_loc = calloc(n + 1, sizeof *ms->n_loc);
    k->n_in = n;
    k->ctx = calloc(n + 1, sizeof *k->ctx), k->column = calloc(n + 1, sizeof *k->column);
    k->loc = calloc(n + 1, sizeof *k->loc);
    if (!ms->n_loc || !k->ctx || !k->column || !k->loc) return pk_fail_nomem("receiving maps");
    uint64_t skel = pk_wire_get64(&w);
    const unsigned char *sk = skel <= w.n - w.at ? pk_wire_take(&w, skel) : NULL;
    if (!sk) return pk_fail(PK_ERR_IO, "parallel build: the merged structure arrived damaged");
    pk_status st = pk_skeleton_decode(sk, skel, &ms->s);
    if (st) return st;
    if (pk_wire_get64(&w) != n) return pk_fail(PK_ERR_IO, "parallel build: maps arrived damaged");
    for (size_t i = 0; i < n && !st; i++) {
        uint32_t nc, ncol;
        st = take_map(&w, &k->ctx[i], &nc);
        if (!st) st = take_map(&w, &k->column[i], &ncol);
        if (!st) st = take_map(&w, &k->loc[i], &ms->n_loc[i]);
    }
    uint32_t nl;
    if (!st) st = take_map(&w, &k->loc_members, &nl);
    if (!st && (nl != ms->s->n_locs || w.at != w.n))
        st = pk_fail(PK_ERR_IO, "parallel build: maps arrived damaged");
    return st;
}

/* ---- values ---- */

/* The member holding input i. */
static uint32_t member_of(const member_state *ms, size_t i)
{
    uint32_t k = 0;
    while (k + 1 < ms->m->n && ms->first_input[k + 1] <= i)
        k++;
    return k;
}

/* Each merged location belongs to the member of the first input feeding
 * it; this member's are [first, end) (merged locations are numbered in
 * input order, so they are one run). */
static pk_status owners(member_state *ms, uint32_t **owner)
{
    uint32_t n = ms->s->n_locs;
    *owner = malloc(((size_t)n + 1) * sizeof **owner);
    if (!*owner) return pk_fail_nomem("sharing locations");
    memset(*owner, 0xff, ((size_t)n + 1) * sizeof **owner);
    for (size_t i = 0; i < ms->job->n; i++)
        for (uint32_t k = 0; k < ms->n_loc[i]; k++) {
            uint32_t t = ms->keep.loc[i][k];
            if (t < n && (*owner)[t] == PK_NONE) (*owner)[t] = member_of(ms, i);
        }
    ms->first = ms->end = 0;
    for (uint32_t l = 0; l < n; l++) {
        if ((*owner)[l] != ms->m->me) continue;
        if (ms->first == ms->end)
            ms->first = l;
        else if (l != ms->end)
            return pk_fail(PK_ERR_UNSUPPORTED, "parallel build: a member's locations are not "
                                               "one run");
        ms->end = l + 1;
    }
    return PK_OK;
}

/* Values of location k of own input i for another member's location t. */
static pk_status put_values(pk_buf *b, uint32_t t, mg_sorter *so)
{
    pk_wire_u32(b, t), pk_wire_u64(b, so->n);
    for (size_t v = 0; v < so->n; v++)
        pk_wire_u64(b, so->buf[v].key), pk_wire_f64(b, so->buf[v].v);
    return b->failed ? pk_fail_nomem("sending values") : PK_OK;
}

static pk_status gather_own(member_state *ms, const uint32_t *owner, mg_sorter *mine, pk_buf *out)
{
    mg_sorter tmp = {0};
    pk_status st = PK_OK;
    for (size_t i = ms->lo; i < ms->hi && !st; i++) {
        const pk_profile *p = ms->in[i - ms->lo];
        for (uint32_t k = 0; k < ms->n_loc[i] && k < p->n_locs && !st; k++) {
            uint32_t t = ms->keep.loc[i][k];
            if (t == PK_NONE) continue;
            if (owner[t] == ms->m->me) {
                st = mg_gather(p, k, ms->keep.ctx[i], ms->keep.column[i], &mine[t - ms->first]);
                continue;
            }
            tmp.n = 0;
            st = mg_gather(p, k, ms->keep.ctx[i], ms->keep.column[i], &tmp);
            if (!st) st = put_values(&out[owner[t]], t, &tmp);
        }
    }
    mg_sorter_free(&tmp);
    return st;
}

/* What other members sent, appended in member (so input) order. */
static pk_status take_values(member_state *ms, const pk_gathered *g, mg_sorter *mine)
{
    for (uint32_t k = 0; k < g->n; k++) {
        pk_wire w = pk_wire_reader(g->data + g->off[k], g->len[k]);
        while (w.at < w.n && !w.bad) {
            uint32_t t = pk_wire_get32(&w);
            uint64_t n = pk_wire_count(&w, 16);
            if (w.bad || t < ms->first || t >= ms->end) break;
            mg_sorter *so = &mine[t - ms->first];
            for (uint64_t v = 0; v < n; v++) {
                if (so->n == so->cap) {
                    size_t cap = so->cap ? 2 * so->cap : 1024;
                    mg_val *a = realloc(so->buf, cap * sizeof *a);
                    if (!a) return pk_fail_nomem("receiving values");
                    so->buf = a, so->cap = cap;
                }
                so->buf[so->n].key = pk_wire_get64(&w);
                so->buf[so->n++].v = pk_wire_getf64(&w);
            }
        }
        if (w.bad || w.at != w.n)
            return pk_fail(PK_ERR_IO, "parallel build: values arrived damaged");
    }
    return PK_OK;
}

static pk_status exchange_values(member_state *ms)
{
    pk_members *m = ms->m;
    uint32_t *owner = NULL, n_own;
    pk_status st = owners(ms, &owner);
    n_own = ms->end - ms->first;
    mg_sorter *mine = st ? NULL : calloc((size_t)n_own + 1, sizeof *mine);
    pk_buf *out = st ? NULL : calloc((size_t)m->n + 1, sizeof *out);
    uint64_t *lens = st ? NULL : calloc((size_t)m->n + 1, sizeof *lens);
    if (!st && (!mine || !out || !lens)) st = pk_fail_nomem("merging values");
    if (!st) st = gather_own(ms, owner, mine, out);
    pk_buf all = {0};
    for (uint32_t k = 0; !st && k < m->n; k++) {
        lens[k] = out[k].len;
        if (out[k].len) pk_buf_bytes(&all, out[k].data, out[k].len);
    }
    if (!st && all.failed) st = pk_fail_nomem("merging values");
    for (uint32_t k = 0; out && k < m->n; k++)
        pk_buf_free(&out[k]);
    free(out), free(owner);
    st = pk_members_agree(m, st);
    pk_gathered g = {0};
    if (!st) st = pk_members_alltoall(m, all.data, lens, &g);
    pk_buf_free(&all);
    free(lens);
    st = pk_members_agree(m, st);
    if (!st) st = take_values(ms, &g, mine);
    pk_gathered_free(&g);
    double mean = ms->job->o->mean;
    for (uint32_t l = 0; !st && l < n_own; l++)
        st = mg_plane(ms->s, ms->first + l, mean ? 1.0 / ms->keep.loc_members[ms->first + l] : 1.0,
                      &mine[l]);
    for (uint32_t l = 0; mine && l < n_own; l++)
        mg_sorter_free(&mine[l]);
    free(mine);
    return pk_members_agree(m, st);
}

/* Own inputs' traces (without --mean): each is its merged location's. */
static pk_status copy_traces(member_state *ms)
{
    pk_profile *s = ms->s;
    if (ms->job->o->mean) return PK_OK;
    for (size_t i = ms->lo; i < ms->hi; i++) {
        const pk_profile *p = ms->in[i - ms->lo];
        for (uint32_t t = 0; t < p->n_traces; t++) {
            const pk_trace_rec *tr = &p->traces[t];
            uint32_t to = tr->location < p->n_locs && tr->location < ms->n_loc[i]
                              ? ms->keep.loc[i][tr->location]
                              : PK_NONE;
            uint32_t mt = to < s->n_locs ? s->locs[to].trace : PK_NONE;
            if (to == PK_NONE) continue;
            if (mt >= s->n_traces)
                return pk_fail(PK_ERR_IO, "parallel build: a trace has no place in the merge");
            unsigned char *mem;
            pk_status st = mg_trace_samples(s, p, ms->keep.ctx[i], tr, &mem);
            if (st) return st;
            s->traces[mt].samples = mem, s->traces[mt].n = tr->n;
        }
    }
    return PK_OK;
}

/* Nothing is put in place that was made from a file that changed meanwhile. */
static pk_status inputs_intact(const void *arg)
{
    const member_state *ms = arg;
    for (size_t i = 0; i < ms->hi - ms->lo; i++) {
        pk_status st = pk_profile_intact(ms->in[i]);
        if (st) return st;
    }
    return PK_OK;
}

static pk_status merge(member_state *ms, pk_parallel_stats *ps)
{
    pk_members *m = ms->m;
    uint64_t bytes = 0;
    par_clock clk;
    par_clock_start(&clk);
    pk_status st = pk_members_agree(m, share_inputs(ms, &bytes));
    if (!st) st = pk_members_agree(m, open_inputs(ms));
    par_lap(&clk, &ps->seconds_read, &ps->cpu_read);
    pk_buf mine = {0}, merged = {0};
    if (!st) st = pk_members_agree(m, encode_inputs(ms, &mine));
    pk_gathered g = {0};
    if (!st) st = pk_members_gather0(m, mine.data, mine.len, &g);
    pk_buf_free(&mine);
    if (!st) st = pk_members_agree(m, m->me == 0 ? merge_structures(ms->job, &g, &merged) : PK_OK);
    pk_gathered_free(&g);
    if (!st) st = pk_members_bcast0(m, merged.data, merged.len, &g);
    pk_buf_free(&merged);
    if (!st) st = pk_members_agree(m, take_merged(ms, g.data, g.len[0]));
    pk_gathered_free(&g);
    par_lap(&clk, &ps->seconds_ids, &ps->cpu_ids);
    if (!st) st = par_input_stats(m, ps, bytes, (uint32_t)ms->job->n);
    if (!st) st = exchange_values(ms);
    if (!st) st = pk_members_agree(m, copy_traces(ms));
    par_lap(&clk, &ps->seconds_values, &ps->cpu_values);
    if (!st)
        st = par_write(m, ms->s, ms->first, ms->end, ms->job->out, ms->job->o, inputs_intact, ms,
                       ps);
    par_lap(&clk, &ps->seconds_write, &ps->cpu_write);
    return st;
}

static void member(pk_members *m, void *user)
{
    merge_job *job = user;
    member_state ms = {.job = job, .m = m};
    pk_parallel_stats ps = {0};
    pk_status st = merge(&ms, &ps);
    par_collect_sent(m, &ps);
    for (size_t i = 0; ms.in && i < ms.hi - ms.lo; i++)
        pk_profile_free(ms.in[i]);
    free(ms.in), free(ms.first_input), free(ms.n_loc);
    pk_profile_free(ms.s);
    mg_keep_free(&ms.keep);
    if (m->thread == 0) job->status = st, job->stats = ps;
}

pk_status pk_merge_database(const char *const *inputs, size_t n, const char *out,
                            const pk_parallel_options *opts, pk_parallel_stats *stats)
{
    pk_parallel_options none = {0};
    if (!opts) opts = &none;
    if (!inputs || n < 1 || !out || !*out)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_merge_database: no inputs or output");
    for (size_t i = 0; i < n; i++)
        if (!inputs[i]) return pk_fail(PK_ERR_INVALID_ARG, "pk_merge_database: NULL input");
    merge_job job = {.paths = inputs, .n = n, .out = out, .o = opts};
    pk_status st = pk_members_run(opts->team, opts->threads, member, &job);
    if (!st) st = job.status;
    if (stats) *stats = job.stats;
    return st;
}
