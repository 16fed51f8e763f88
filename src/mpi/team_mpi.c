/*
 * mpi/team_mpi.c — a pk_team (profkit/parallel.h) over an MPI
 * communicator, for profkit-mpi: the parallel builders' collectives as
 * MPI collectives on bytes. MPI counts are ints, so anything that does
 * not fit in 2^31 - 1 bytes goes in pieces of 1 GiB (broadcasts from
 * each rank in turn, or point-to-point messages).
 */
#include "team_mpi.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define PIECE (1ull << 30)

static MPI_Comm comm_of(void *user)
{
    return ((pk_team_mpi *)user)->comm;
}

static int t_bcast(void *user, void *buf, uint64_t len, int root)
{
    for (uint64_t at = 0; at < len; at += PIECE) {
        uint64_t n = len - at < PIECE ? len - at : PIECE;
        if (MPI_Bcast((char *)buf + at, (int)n, MPI_BYTE, root, comm_of(user)) != MPI_SUCCESS)
            return -1;
    }
    return 0;
}

/* int counts and displacements, when every one fits. */
static int fits(const uint64_t *lens, int n, int *counts, int *displs)
{
    uint64_t at = 0;
    for (int i = 0; i < n; i++) {
        if (lens[i] > INT_MAX || at > INT_MAX) return 0;
        counts[i] = (int)lens[i], displs[i] = (int)at;
        at += lens[i];
    }
    return at <= INT_MAX;
}

static int t_allgatherv(void *user, const void *send, uint64_t len, void **recv, uint64_t *lens)
{
    MPI_Comm c = comm_of(user);
    int size;
    MPI_Comm_size(c, &size);
    if (MPI_Allgather(&len, 1, MPI_UINT64_T, lens, 1, MPI_UINT64_T, c) != MPI_SUCCESS) return -1;
    uint64_t total = 0;
    for (int i = 0; i < size; i++)
        total += lens[i];
    int *counts = malloc((size_t)size * sizeof *counts),
        *displs = malloc((size_t)size * sizeof *displs);
    char *out = malloc(total + 1);
    int rc = !counts || !displs || !out ? -1 : 0;
    if (!rc && fits(lens, size, counts, displs))
        rc = MPI_Allgatherv(send, (int)len, MPI_BYTE, out, counts, displs, MPI_BYTE, c) !=
             MPI_SUCCESS;
    else if (!rc) { /* too big for int counts: every rank broadcasts its part */
        int rank;
        MPI_Comm_rank(c, &rank);
        uint64_t at = 0;
        for (int r = 0; r < size && !rc; r++) {
            if (r == rank && len) memcpy(out + at, send, len);
            rc = t_bcast(user, out + at, lens[r], r);
            at += lens[r];
        }
    }
    free(counts), free(displs);
    if (rc) free(out), out = NULL;
    *recv = out;
    return rc;
}

static int t_gatherv(void *user, const void *send, uint64_t len, void **recv, uint64_t *lens,
                     int root)
{
    MPI_Comm c = comm_of(user);
    int size, rank;
    MPI_Comm_size(c, &size), MPI_Comm_rank(c, &rank);
    *recv = NULL;
    if (MPI_Gather(&len, 1, MPI_UINT64_T, lens, 1, MPI_UINT64_T, root, c) != MPI_SUCCESS) return -1;
    if (rank != root) { /* its part, in pieces */
        for (uint64_t at = 0; at < len; at += PIECE)
            if (MPI_Send((const char *)send + at, (int)(len - at < PIECE ? len - at : PIECE),
                         MPI_BYTE, root, 0, c) != MPI_SUCCESS)
                return -1;
        return 0;
    }
    uint64_t total = 0;
    for (int i = 0; i < size; i++)
        total += lens[i];
    char *out = malloc(total + 1);
    if (!out) return -1;
    uint64_t at = 0;
    for (int r = 0; r < size; r++) {
        if (r == rank && len) memcpy(out + at, send, len);
        for (uint64_t got = 0; r != rank && got < lens[r]; got += PIECE) {
            uint64_t n = lens[r] - got < PIECE ? lens[r] - got : PIECE;
            if (MPI_Recv(out + at + got, (int)n, MPI_BYTE, r, 0, c, MPI_STATUS_IGNORE) !=
                MPI_SUCCESS) {
                free(out);
                return -1;
            }
        }
        at += lens[r];
    }
    *recv = out;
    return 0;
}

/* Too big for int counts: one exchange per pair of ranks, each direction
 * in 1 GiB messages, all posted at once. */
static int pairwise(MPI_Comm c, int size, const char *send, const uint64_t *slens,
                    const uint64_t *soff, char *recv, const uint64_t *rlens, const uint64_t *roff)
{
    int rank, rc = 0;
    MPI_Comm_rank(c, &rank);
    for (int step = 0; step < size && !rc; step++) {
        int to = (rank + step) % size, from = (rank - step + size) % size;
        uint64_t ns = (slens[to] + PIECE - 1) / PIECE, nr = (rlens[from] + PIECE - 1) / PIECE;
        MPI_Request *req = malloc((size_t)(ns + nr + 1) * sizeof *req);
        if (!req) return -1;
        int k = 0;
        for (uint64_t i = 0; i < nr; i++) {
            uint64_t n = rlens[from] - i * PIECE < PIECE ? rlens[from] - i * PIECE : PIECE;
            rc |= MPI_Irecv(recv + roff[from] + i * PIECE, (int)n, MPI_BYTE, from, 1, c, &req[k++]);
        }
        for (uint64_t i = 0; i < ns; i++) {
            uint64_t n = slens[to] - i * PIECE < PIECE ? slens[to] - i * PIECE : PIECE;
            rc |= MPI_Isend(send + soff[to] + i * PIECE, (int)n, MPI_BYTE, to, 1, c, &req[k++]);
        }
        rc |= MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
        free(req);
    }
    return rc ? -1 : 0;
}

static int t_alltoallv(void *user, const void *send, const uint64_t *send_lens, void **recv,
                       uint64_t *recv_lens)
{
    MPI_Comm c = comm_of(user);
    int size;
    MPI_Comm_size(c, &size);
    *recv = NULL;
    if (MPI_Alltoall(send_lens, 1, MPI_UINT64_T, recv_lens, 1, MPI_UINT64_T, c) != MPI_SUCCESS)
        return -1;
    uint64_t *soff = malloc(((size_t)size + 1) * 8), *roff = malloc(((size_t)size + 1) * 8);
    int *sc = malloc((size_t)size * sizeof *sc), *sd = malloc((size_t)size * sizeof *sd);
    int *rcn = malloc((size_t)size * sizeof *rcn), *rd = malloc((size_t)size * sizeof *rd);
    int rc = !soff || !roff || !sc || !sd || !rcn || !rd ? -1 : 0;
    uint64_t stotal = 0, rtotal = 0;
    for (int i = 0; !rc && i < size; i++)
        soff[i] = stotal, stotal += send_lens[i], roff[i] = rtotal, rtotal += recv_lens[i];
    char *out = rc ? NULL : malloc(rtotal + 1);
    if (!rc && !out) rc = -1;
    int small = !rc && fits(send_lens, size, sc, sd) && fits(recv_lens, size, rcn, rd);
    if (small)
        rc = MPI_Alltoallv(send, sc, sd, MPI_BYTE, out, rcn, rd, MPI_BYTE, c) != MPI_SUCCESS;
    else if (!rc)
        rc = pairwise(c, size, send, send_lens, soff, out, recv_lens, roff);
    free(soff), free(roff), free(sc), free(sd), free(rcn), free(rd);
    if (rc) free(out), out = NULL;
    *recv = out;
    return rc;
}

static int t_allreduce(void *user, uint64_t *buf, uint64_t n, pk_reduce_op op)
{
    MPI_Op mop = op == PK_REDUCE_SUM ? MPI_SUM : op == PK_REDUCE_MIN ? MPI_MIN : MPI_MAX;
    for (uint64_t at = 0; at < n; at += PIECE / 8) {
        uint64_t k = n - at < PIECE / 8 ? n - at : PIECE / 8;
        if (MPI_Allreduce(MPI_IN_PLACE, buf + at, (int)k, MPI_UINT64_T, mop, comm_of(user)) !=
            MPI_SUCCESS)
            return -1;
    }
    return 0;
}

int pk_team_mpi_init(pk_team_mpi *t, MPI_Comm comm)
{
    memset(t, 0, sizeof *t);
    if (MPI_Comm_dup(comm, &t->comm) != MPI_SUCCESS) return -1;
    MPI_Comm_rank(t->comm, &t->team.rank);
    MPI_Comm_size(t->comm, &t->team.size);
    t->team.user = t;
    t->team.bcast = t_bcast;
    t->team.allgatherv = t_allgatherv;
    t->team.gatherv = t_gatherv;
    t->team.alltoallv = t_alltoallv;
    t->team.allreduce_u64 = t_allreduce;
    return 0;
}

void pk_team_mpi_free(pk_team_mpi *t)
{
    MPI_Comm_free(&t->comm);
}
