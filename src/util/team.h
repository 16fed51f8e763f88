/*
 * util/team.h — the members of a parallel build: every thread of every
 * process of a pk_team (profkit/parallel.h), numbered process-major
 * (member = rank * threads + thread), and the collective operations
 * between them.
 *
 * Threads of one process meet at a barrier and hand their data over in
 * memory; one thread per process (thread 0, the one that called the
 * builder) carries the process's combined data over the team. Every
 * member calls the collectives in the same order. A collective that fails
 * (out of memory, the transport) fails for every member of the process;
 * callers follow each step with pk_members_agree(), so that all members
 * take the same path afterwards.
 */
#ifndef PK_UTIL_TEAM_H
#define PK_UTIL_TEAM_H

#include <stdint.h>

#include "profkit/parallel.h"
#include "profkit/status.h"

#define PK_MAX_THREADS 256

typedef struct pk_team_node pk_team_node;

typedef struct pk_members {
    pk_team_node *node;
    const pk_team *team; /* NULL: one process */
    unsigned thread, threads;
    uint32_t me, n; /* this member, and how many there are */
    uint64_t sent;  /* bytes this member sent to others (alltoall, gathers) */
} pk_members;

/* What a collective delivered: member i's bytes at data + off[i], len[i]
 * of them. Free with pk_gathered_free (results shared by the threads of a
 * process are freed by the last one). */
typedef struct pk_gathered {
    unsigned char *data;
    uint64_t *len, *off;
    uint32_t n;
    void *shared; /* internal: the shared result this refers to, or NULL */
} pk_gathered;

void pk_gathered_free(pk_gathered *g);

/* Run fn on `threads` members of this process (the calling thread is
 * thread 0). The threads of every process of `team` must be as many. */
pk_status pk_members_run(const pk_team *team, unsigned threads,
                         void (*fn)(pk_members *m, void *user), void *user);

/* Every member's bytes to every member (member order). */
pk_status pk_members_allgather(pk_members *m, const void *send, uint64_t len, pk_gathered *out);
/* Every member's bytes to member 0 (others get n = 0). */
pk_status pk_members_gather0(pk_members *m, const void *send, uint64_t len, pk_gathered *out);
/* Member 0's bytes to every member (out->n = 1; others' send is ignored). */
pk_status pk_members_bcast0(pk_members *m, const void *send, uint64_t len, pk_gathered *out);
/* send holds lens[k] bytes for member k, members in order; out holds the
 * bytes every member sent this one, in member order. */
pk_status pk_members_alltoall(pk_members *m, const void *send, const uint64_t *lens,
                              pk_gathered *out);
/* Element-wise reduction of n words over all members, in place. */
pk_status pk_members_reduce(pk_members *m, uint64_t *buf, uint64_t n, pk_reduce_op op);
/* Exclusive prefix sum of one word over members, and the total. */
pk_status pk_members_scan(pk_members *m, uint64_t mine, uint64_t *before, uint64_t *total);
/* Did every member succeed? PK_OK if so; otherwise every member returns
 * the status and message of the lowest-numbered member that failed (its
 * own error message is kept), so rank 0 can report the real cause. */
pk_status pk_members_agree(pk_members *m, pk_status st);

#endif
