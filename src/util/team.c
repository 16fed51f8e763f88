/*
 * util/team.c — collectives between the members of a parallel build
 * (util/team.h): threads meet at a barrier and leave their data in their
 * slot; thread 0 combines the process's data, carries it over the team
 * when there is one, and leaves the result for the others; a second
 * barrier hands it out. Slots are only read between the two barriers of
 * a collective, so a thread's buffers need to live only until its call
 * returns.
 */
#define _POSIX_C_SOURCE 200809L
#include "team.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "error.h"

typedef struct slot {
    const void *send;
    uint64_t len;
    const uint64_t *lens;
    uint64_t *buf;
    pk_gathered own; /* alltoall: this thread's result */
} slot;

typedef struct shared_res {
    pk_gathered g;
    int refs;
} shared_res;

struct pk_team_node {
    const pk_team *team;
    unsigned threads;
    pthread_barrier_t bar;
    slot slots[PK_MAX_THREADS];
    shared_res *res;
    int fail;        /* thread 0's part failed: every thread fails */
    pk_status code;  /* with this status */
    char msg[1024];  /* and this message */
    void *rank_data; /* alltoall: what came from the other processes */
    uint64_t *rank_lens;
    uint64_t *acc; /* reduce: the combined words */
};

static void wait_all(pk_team_node *n)
{
    pthread_barrier_wait(&n->bar);
}

/* Thread 0 failed (the error is set on its thread): note it for all. */
static int node_failed(pk_team_node *n, pk_status st)
{
    n->fail = 1;
    n->code = st;
    snprintf(n->msg, sizeof n->msg, "%s", pk_error_last());
    return 1;
}

static pk_status transport_failed(pk_team_node *n, const char *what)
{
    pk_status st =
        pk_fail(PK_ERR_IO, "parallel build: the transport between processes failed (%s)", what);
    node_failed(n, st);
    return st;
}

/* After the second barrier: the collective's outcome on this thread. */
static pk_status outcome(const pk_members *m)
{
    pk_team_node *n = m->node;
    if (!n->fail) return PK_OK;
    if (m->thread == 0) return n->code;
    return pk_fail(n->code, "%s", n->msg);
}

void pk_gathered_free(pk_gathered *g)
{
    shared_res *r = g->shared;
    if (r) {
        if (__atomic_sub_fetch(&r->refs, 1, __ATOMIC_ACQ_REL) == 0) {
            free(r->g.data), free(r->g.len), free(r->g.off);
            free(r);
        }
    } else {
        free(g->data), free(g->len), free(g->off);
    }
    memset(g, 0, sizeof *g);
}

/* Offsets from lengths; 0 when out of memory. */
static int fill_offsets(pk_gathered *g)
{
    g->off = malloc(((size_t)g->n + 1) * sizeof *g->off);
    if (!g->off) return 0;
    uint64_t at = 0;
    for (uint32_t i = 0; i < g->n; i++)
        g->off[i] = at, at += g->len[i];
    return 1;
}

/* The process's threads' bytes, concatenated; lens[t] each. */
static unsigned char *concat_slots(pk_team_node *n, uint64_t *lens, uint64_t *total)
{
    *total = 0;
    for (unsigned t = 0; t < n->threads; t++)
        lens[t] = n->slots[t].len, *total += lens[t];
    unsigned char *blob = malloc(*total + 1);
    if (!blob) return NULL;
    uint64_t at = 0;
    for (unsigned t = 0; t < n->threads; t++) {
        if (lens[t]) memcpy(blob + at, n->slots[t].send, lens[t]);
        at += lens[t];
    }
    return blob;
}

/* Thread 0: every member's bytes, everywhere (to_all) or at rank 0. */
static pk_status gather_node(pk_members *m, int to_all, pk_gathered *g)
{
    pk_team_node *n = m->node;
    const pk_team *tm = n->team;
    uint64_t *lens = malloc(((size_t)n->threads + 1) * sizeof *lens), total;
    unsigned char *blob = lens ? concat_slots(n, lens, &total) : NULL;
    if (!blob) return free(lens), pk_fail_nomem("exchanging tables");
    if (!tm) {
        *g = (pk_gathered){blob, lens, NULL, n->threads, NULL};
        return fill_offsets(g) ? PK_OK : pk_fail_nomem("exchanging tables");
    }
    uint64_t *rl = malloc(((size_t)tm->size + 1) * sizeof *rl);
    void *all_lens = NULL, *data = NULL;
    int bad = !rl;
    if (!bad && to_all)
        bad = tm->allgatherv(tm->user, lens, n->threads * 8ull, &all_lens, rl) ||
              tm->allgatherv(tm->user, blob, total, &data, rl);
    else if (!bad)
        bad = tm->gatherv(tm->user, lens, n->threads * 8ull, &all_lens, rl, 0) ||
              tm->gatherv(tm->user, blob, total, &data, rl, 0);
    free(lens), free(blob), free(rl);
    if (bad) return free(all_lens), free(data), transport_failed(n, "gathering");
    *g = (pk_gathered){data, all_lens, NULL, (uint32_t)m->n, NULL};
    if (!to_all && tm->rank != 0) *g = (pk_gathered){0};
    return !g->len || fill_offsets(g) ? PK_OK : pk_fail_nomem("exchanging tables");
}

/* Share thread 0's result with the threads of the process. */
static pk_status publish(pk_team_node *n, pk_gathered *g)
{
    shared_res *r = malloc(sizeof *r);
    if (!r) {
        pk_gathered_free(g);
        return pk_fail_nomem("exchanging tables");
    }
    r->g = *g;
    r->refs = (int)n->threads;
    n->res = r;
    return PK_OK;
}

static void take_shared(pk_team_node *n, pk_gathered *out)
{
    *out = n->res->g;
    out->shared = n->res;
}

/* Thread 0: rank 0's thread 0 bytes to every process. */
static pk_status bcast_node(pk_members *m, pk_gathered *g)
{
    pk_team_node *n = m->node;
    const pk_team *tm = n->team;
    uint64_t len = n->slots[0].len;
    if (tm && tm->bcast(tm->user, &len, 8, 0)) return transport_failed(n, "broadcasting");
    unsigned char *data = malloc(len + 1);
    uint64_t *lens = malloc(sizeof *lens);
    if (!data || !lens) return free(data), free(lens), pk_fail_nomem("exchanging tables");
    if ((!tm || tm->rank == 0) && len) memcpy(data, n->slots[0].send, len);
    if (tm && tm->bcast(tm->user, data, len, 0)) {
        free(data), free(lens);
        return transport_failed(n, "broadcasting");
    }
    lens[0] = len;
    *g = (pk_gathered){data, lens, NULL, 1, NULL};
    return fill_offsets(g) ? PK_OK : pk_fail_nomem("exchanging tables");
}

/* A collective whose result every member reads from one shared copy:
 * thread 0 makes it (gathered from every member, or broadcast from member
 * 0) and publishes it; each member takes a reference. */
static pk_status shared_collective(pk_members *m, const void *send, uint64_t len, pk_gathered *out,
                                   int bcast)
{
    pk_team_node *n = m->node;
    memset(out, 0, sizeof *out);
    n->slots[m->thread] = (slot){.send = send, .len = len};
    wait_all(n);
    if (m->thread == 0) {
        n->fail = 0;
        pk_gathered g;
        pk_status st = bcast ? bcast_node(m, &g) : gather_node(m, 1, &g);
        if (!st) st = publish(n, &g);
        if (st && !n->fail) node_failed(n, st);
    }
    wait_all(n);
    pk_status st = outcome(m);
    if (!st) take_shared(n, out);
    return st;
}

pk_status pk_members_allgather(pk_members *m, const void *send, uint64_t len, pk_gathered *out)
{
    pk_status st = shared_collective(m, send, len, out, 0);
    m->sent += len * (m->n - 1);
    return st;
}

pk_status pk_members_gather0(pk_members *m, const void *send, uint64_t len, pk_gathered *out)
{
    pk_team_node *n = m->node;
    memset(out, 0, sizeof *out);
    n->slots[m->thread] = (slot){.send = send, .len = len};
    wait_all(n);
    if (m->thread == 0) {
        n->fail = 0;
        pk_status st = gather_node(m, 0, out);
        if (st && !n->fail) node_failed(n, st);
    }
    wait_all(n);
    if (m->me) m->sent += len;
    return outcome(m);
}

pk_status pk_members_bcast0(pk_members *m, const void *send, uint64_t len, pk_gathered *out)
{
    pk_status st = shared_collective(m, send, len, out, 1);
    if (m->me == 0) m->sent += len * (m->n - 1);
    return st;
}

/* ---- alltoall ---- */

/* Thread 0: one message per process, each a T x T table of lengths
 * (sending thread, receiving thread), then the bytes in that order. */
static pk_status exchange_node(pk_members *m)
{
    pk_team_node *n = m->node;
    const pk_team *tm = n->team;
    unsigned T = n->threads;
    uint32_t R = (uint32_t)tm->size;
    uint64_t *send_lens = calloc((size_t)R + 1, sizeof *send_lens), total = 0;
    if (!send_lens) return pk_fail_nomem("exchanging values");
    for (uint32_t r = 0; r < R; r++) {
        send_lens[r] = 8ull * T * T;
        for (unsigned t = 0; t < T; t++)
            for (unsigned u = 0; u < T; u++)
                send_lens[r] += n->slots[t].lens[r * T + u];
        total += send_lens[r];
    }
    unsigned char *blob = malloc(total + 1), *at = blob;
    if (!blob) return free(send_lens), pk_fail_nomem("exchanging values");
    for (uint32_t r = 0; r < R; r++) {
        for (unsigned t = 0; t < T; t++)
            for (unsigned u = 0; u < T; u++, at += 8)
                pk_put_le64(at, n->slots[t].lens[r * T + u]);
        for (unsigned t = 0; t < T; t++) {
            uint64_t off = 0;
            for (uint32_t k = 0; k < r * T; k++)
                off += n->slots[t].lens[k];
            for (unsigned u = 0; u < T; u++) {
                uint64_t l = n->slots[t].lens[r * T + u];
                if (l) memcpy(at, (const unsigned char *)n->slots[t].send + off, l);
                at += l, off += l;
            }
        }
    }
    n->rank_lens = calloc((size_t)R + 1, sizeof *n->rank_lens);
    int bad =
        !n->rank_lens || tm->alltoallv(tm->user, blob, send_lens, &n->rank_data, n->rank_lens) != 0;
    free(blob), free(send_lens);
    return bad ? transport_failed(n, "exchanging values") : PK_OK;
}

/* Where each member's bytes for this thread are: in the other threads'
 * slots (one process), or in the messages from every process. */
static void locate(pk_members *m, pk_gathered *g, const unsigned char **src)
{
    pk_team_node *n = m->node;
    unsigned T = n->threads, u = m->thread;
    if (!n->team) {
        for (unsigned t = 0; t < T; t++) {
            uint64_t off = 0;
            for (unsigned x = 0; x < u; x++)
                off += n->slots[t].lens[x];
            g->len[t] = n->slots[t].lens[u];
            /* a thread that sends nothing may have no buffer at all */
            src[t] = g->len[t] ? (const unsigned char *)n->slots[t].send + off : NULL;
        }
        return;
    }
    const unsigned char *msg = n->rank_data;
    for (uint32_t r = 0; r < (uint32_t)n->team->size; r++) {
        const unsigned char *body = msg + 8ull * T * T;
        uint64_t skip = 0;
        for (unsigned x = 0; x < T * T; x++) {
            uint64_t l = pk_le64(msg + 8ull * x);
            if (x % T == u) g->len[r * T + x / T] = l, src[r * T + x / T] = body + skip;
            skip += l;
        }
        msg = body + skip;
    }
}

static pk_status assemble(pk_members *m, pk_gathered *g)
{
    g->n = m->n;
    g->len = calloc((size_t)g->n + 1, sizeof *g->len);
    const unsigned char **src = malloc(((size_t)g->n + 1) * sizeof *src);
    if (!g->len || !src) return free(src), pk_fail_nomem("exchanging values");
    locate(m, g, src);
    uint64_t total = 0;
    for (uint32_t k = 0; k < g->n; k++)
        total += g->len[k];
    g->data = malloc(total + 1);
    if (!g->data || !fill_offsets(g)) return free(src), pk_fail_nomem("exchanging values");
    for (uint32_t k = 0; k < g->n; k++)
        if (g->len[k]) memcpy(g->data + g->off[k], src[k], g->len[k]);
    free(src);
    return PK_OK;
}

/* One thread per process: the member's bytes go to the team as they are,
 * and what arrives is the result (no copies on either side). */
static pk_status alltoall_ranks(pk_members *m, const void *send, const uint64_t *lens,
                                pk_gathered *out)
{
    const pk_team *tm = m->team;
    out->n = m->n;
    out->len = calloc((size_t)m->n + 1, sizeof *out->len);
    if (!out->len) return pk_fail_nomem("exchanging values");
    void *recv = NULL;
    if (tm->alltoallv(tm->user, send, lens, &recv, out->len)) {
        free(out->len), out->len = NULL;
        return pk_fail(PK_ERR_IO, "parallel build: the transport between processes failed "
                                  "(exchanging values)");
    }
    out->data = recv;
    for (uint32_t k = 0; k < m->n; k++)
        if (k != m->me) m->sent += lens[k];
    if (fill_offsets(out)) return PK_OK;
    pk_gathered_free(out);
    return pk_fail_nomem("exchanging values");
}

pk_status pk_members_alltoall(pk_members *m, const void *send, const uint64_t *lens,
                              pk_gathered *out)
{
    pk_team_node *n = m->node;
    memset(out, 0, sizeof *out);
    if (n->team && n->threads == 1) return alltoall_ranks(m, send, lens, out);
    n->slots[m->thread] = (slot){.send = send, .lens = lens};
    wait_all(n);
    if (m->thread == 0) {
        n->fail = 0;
        pk_status st = n->team ? exchange_node(m) : PK_OK;
        if (st && !n->fail) node_failed(n, st);
    }
    wait_all(n);
    pk_status st = outcome(m);
    for (uint32_t k = 0; k < m->n; k++)
        if (k != m->me) m->sent += lens[k];
    int mine = st ? 1 : (assemble(m, out) != PK_OK);
    n->slots[m->thread].len = (uint64_t)mine; /* this thread's assembly failed */
    wait_all(n);                              /* everyone has read the slots */
    int any = 0;
    for (unsigned t = 0; t < n->threads; t++)
        any |= n->slots[t].len && !st;
    wait_all(n);
    if (m->thread == 0) {
        free(n->rank_data), free(n->rank_lens);
        n->rank_data = NULL, n->rank_lens = NULL;
    }
    if (st) return st;
    if (any) {
        pk_gathered_free(out);
        return pk_fail_nomem("exchanging values");
    }
    return PK_OK;
}

/* ---- reductions ---- */

static void combine(uint64_t *acc, const uint64_t *x, uint64_t n, pk_reduce_op op)
{
    for (uint64_t i = 0; i < n; i++)
        acc[i] = op == PK_REDUCE_SUM   ? acc[i] + x[i]
                 : op == PK_REDUCE_MIN ? (x[i] < acc[i] ? x[i] : acc[i])
                                       : (x[i] > acc[i] ? x[i] : acc[i]);
}

pk_status pk_members_reduce(pk_members *m, uint64_t *buf, uint64_t n, pk_reduce_op op)
{
    pk_team_node *nd = m->node;
    nd->slots[m->thread] = (slot){.buf = buf, .len = n};
    wait_all(nd);
    if (m->thread == 0) {
        nd->fail = 0;
        nd->acc = malloc((n + 1) * sizeof *nd->acc);
        if (!nd->acc) {
            node_failed(nd, pk_fail_nomem("reducing counts"));
        } else {
            memcpy(nd->acc, buf, n * sizeof *buf);
            for (unsigned t = 1; t < nd->threads; t++)
                combine(nd->acc, nd->slots[t].buf, n, op);
            if (nd->team && nd->team->allreduce_u64(nd->team->user, nd->acc, n, op))
                transport_failed(nd, "reducing");
        }
    }
    wait_all(nd);
    pk_status st = outcome(m);
    if (!st) memcpy(buf, nd->acc, n * sizeof *buf);
    wait_all(nd);
    if (m->thread == 0) free(nd->acc), nd->acc = NULL;
    return st;
}

pk_status pk_members_scan(pk_members *m, uint64_t mine, uint64_t *before, uint64_t *total)
{
    unsigned char x[8];
    pk_put_le64(x, mine);
    pk_gathered g;
    pk_status st = pk_members_allgather(m, x, 8, &g);
    if (st) return st;
    *before = *total = 0;
    for (uint32_t k = 0; k < g.n; k++) {
        uint64_t v = g.len[k] == 8 ? pk_le64(g.data + g.off[k]) : 0;
        if (k < m->me) *before += v;
        *total += v;
    }
    pk_gathered_free(&g);
    return PK_OK;
}

pk_status pk_members_agree(pk_members *m, pk_status st)
{
    char rec[1028];
    uint64_t len = 0;
    if (st) {
        pk_put_le32(rec, (uint32_t)st);
        int k = snprintf(rec + 4, sizeof rec - 4, "%s", pk_error_last());
        len = 4 + (k < 0 ? 0 : (uint64_t)k < sizeof rec - 4 ? (uint64_t)k : sizeof rec - 5);
    }
    pk_gathered g;
    pk_status cst = pk_members_allgather(m, rec, len, &g);
    if (cst) return cst;
    pk_status out = PK_OK;
    for (uint32_t k = 0; k < g.n && !out; k++) {
        if (g.len[k] < 4) continue;
        out = (pk_status)pk_le32(g.data + g.off[k]);
        if (!out) out = PK_ERR_IO;
        if (k != m->me)
            pk_fail(out, "%.*s", (int)(g.len[k] - 4), (const char *)g.data + g.off[k] + 4);
    }
    pk_gathered_free(&g);
    if (st && out) return st; /* keep its own message */
    return out;
}

/* ---- running the members ---- */

typedef struct start {
    pk_members m;
    void (*fn)(pk_members *m, void *user);
    void *user;
    pthread_mutex_t *lock; /* threads wait for every thread to have started */
    pthread_cond_t *cond;
    int *go; /* 1: run; -1: some thread could not start, return */
} start;

static void *run_member(void *arg)
{
    start *s = arg;
    pthread_mutex_lock(s->lock);
    while (!*s->go)
        pthread_cond_wait(s->cond, s->lock);
    int go = *s->go;
    pthread_mutex_unlock(s->lock);
    if (go > 0) s->fn(&s->m, s->user);
    return NULL;
}

static pk_status same_threads(const pk_team *team, unsigned threads)
{
    if (!team) return PK_OK;
    uint64_t t[2] = {threads, UINT64_MAX - threads};
    if (team->allreduce_u64(team->user, t, 2, PK_REDUCE_MAX))
        return pk_fail(PK_ERR_IO, "parallel build: the transport between processes failed");
    if (t[0] != UINT64_MAX - t[1])
        return pk_fail(PK_ERR_INVALID_ARG,
                       "parallel build: the processes run different numbers of threads");
    return PK_OK;
}

pk_status pk_members_run(const pk_team *team, unsigned threads,
                         void (*fn)(pk_members *m, void *user), void *user)
{
    if (threads < 1) threads = 1;
    if (threads > PK_MAX_THREADS)
        return pk_fail(PK_ERR_INVALID_ARG, "parallel build: at most %d threads per process",
                       PK_MAX_THREADS);
    pk_status st = same_threads(team, threads);
    if (st) return st;
    pk_team_node *node = calloc(1, sizeof *node);
    start *s = calloc(threads, sizeof *s);
    pthread_t *tid = calloc(threads, sizeof *tid);
    if (!node || !s || !tid || pthread_barrier_init(&node->bar, NULL, threads) != 0) {
        free(node), free(s), free(tid);
        return pk_fail_nomem("starting threads");
    }
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
    int go = 0;
    node->team = team, node->threads = threads;
    uint32_t R = team ? (uint32_t)team->size : 1, rank = team ? (uint32_t)team->rank : 0;
    for (unsigned t = 0; t < threads; t++)
        s[t] = (start){{node, team, t, threads, rank * threads + t, R * threads, 0},
                       fn,
                       user,
                       &lock,
                       &cond,
                       &go};
    unsigned started = 1;
    for (; started < threads; started++)
        if (pthread_create(&tid[started], NULL, run_member, &s[started]) != 0) break;
    pthread_mutex_lock(&lock);
    go = started == threads ? 1 : -1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    if (go > 0)
        run_member(&s[0]);
    else
        st = pk_fail(PK_ERR_NOMEM, "parallel build: cannot start %u threads", threads);
    for (unsigned t = 1; t < started; t++)
        pthread_join(tid[t], NULL);
    pthread_barrier_destroy(&node->bar);
    free(node), free(s), free(tid);
    return st;
}
