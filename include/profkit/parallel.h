/*
 * profkit/parallel.h — building and merging HPCToolkit databases with
 * several threads, several processes (MPI ranks), or both: what
 * hpcprof-mpi does for measurements of 10^4 to 10^6 threads.
 *
 * The work is split between *members*: every thread of every process.
 * Member 0 lists the inputs; each member reads a contiguous share of them
 * (measurement files, or databases to merge); member 0 assigns every
 * context, metric and location its id once, from the tables the others
 * send it, and sends the result back; each member derives its own
 * profiles' values; the values are exchanged so that each member holds a
 * range of contexts (cct.db's transpose) and reduces the summary profile
 * over them; and every member writes its own parts of profile.db, cct.db
 * and trace.db with pwrite at offsets from an exclusive scan of the
 * sizes. Member 0 writes meta.db and the headers, and, only when every
 * member has written everything, the footers, then renames the database
 * into place (util/safeout.h): a member that dies or a disk that fills up
 * leaves no database that looks complete.
 *
 * The result is the database the serial path writes
 * (pk_profile_open + pk_profile_write), byte for byte, whatever the
 * number of members: ids are assigned in the serial order, and every sum
 * over profiles is taken in profile order.
 *
 * The processes are connected by a pk_team the caller provides (the
 * profkit-mpi executable makes one over MPI_COMM_WORLD; the library has
 * no MPI dependency). Without a team, the members are the threads of this
 * process. docs/mpi.md describes the design, the guarantees and the
 * measured scaling.
 */
#ifndef PROFKIT_PARALLEL_H
#define PROFKIT_PARALLEL_H

#include <stdint.h>

#include "status.h"
#include "write.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pk_reduce_op { PK_REDUCE_SUM = 0, PK_REDUCE_MIN = 1, PK_REDUCE_MAX = 2 } pk_reduce_op;

/* A group of `size` processes, this one being `rank`, and the collective
 * operations the builders need. Every process calls each operation in the
 * same order (as with MPI collectives); only one thread of a process
 * calls them (the one that called the builder). Each returns 0 on success,
 * non-zero when the transport failed. Received data is malloc'ed by the
 * operation and freed by the caller with free(). Lengths are in bytes
 * and may exceed 2^31. */
typedef struct pk_team {
    int rank, size;
    void *user; /* passed to every operation */
    /* Root's `len` bytes at buf to every process (all pass the same len). */
    int (*bcast)(void *user, void *buf, uint64_t len, int root);
    /* Every process's bytes to every process, in rank order: *recv holds
     * them concatenated, lens[size] their lengths. */
    int (*allgatherv)(void *user, const void *send, uint64_t len, void **recv, uint64_t *lens);
    /* The same, received by `root` only (*recv NULL elsewhere). */
    int (*gatherv)(void *user, const void *send, uint64_t len, void **recv, uint64_t *lens,
                   int root);
    /* send holds the bytes for process 0, then 1, ... (send_lens[size]);
     * *recv receives the bytes from process 0, then 1, ... (recv_lens). */
    int (*alltoallv)(void *user, const void *send, const uint64_t *send_lens, void **recv,
                     uint64_t *recv_lens);
    /* Element-wise reduction of n words across processes, in place. */
    int (*allreduce_u64)(void *user, uint64_t *buf, uint64_t n, pk_reduce_op op);
} pk_team;

typedef struct pk_parallel_options {
    const pk_team *team;  /* NULL: this process alone */
    unsigned threads;     /* members per process; 0 means 1 */
    uint32_t open_flags;  /* PK_OPEN_NO_SYMBOLS... for the inputs */
    uint32_t write_flags; /* PK_WRITE_FORCE, PK_WRITE_NO_TRACE, PK_WRITE_STRICT */
    pk_loss_fn loss;      /* what the database cannot hold (called on rank 0 only) */
    void *loss_user;
    int mean; /* merge: average locations with the same identity (--mean) */
    /* cct.db's blocks are built and written this many bytes at a time (at
     * least one context's block), so a member holds one such chunk rather
     * than its whole range of contexts; 0: 16 MiB, or 1 KiB per location
     * if more. Between processes (a team) each member's range is built
     * whole. */
    uint64_t chunk_bytes;
} pk_parallel_options;

/* What was read, sent and written (the same on every process); times
 * are this process's. */
typedef struct pk_parallel_stats {
    pk_write_stats write; /* the database */
    uint64_t input_bytes; /* of the inputs read (all members) */
    uint32_t n_inputs;    /* .hpcrun files or databases */
    uint32_t n_members;   /* processes x threads */
    uint64_t n_contexts, n_locations;
    uint64_t max_input_bytes; /* the largest share of input bytes one member read */
    uint64_t sent_bytes;      /* sent by all members to other members */
    uint64_t max_sent_bytes;  /* the most one member sent */
    double seconds_read;      /* reading the inputs (this process, wall) */
    double seconds_ids;       /* assigning ids (member 0's merge of the tables, wall) */
    double seconds_values;    /* deriving and exchanging values */
    double seconds_write;     /* writing the files */
    double cpu_read, cpu_ids, cpu_values, cpu_write; /* the same, CPU time of this
                                                        process's first member */
} pk_parallel_stats;

/* Build the HPCToolkit database `out` from the hpcrun measurement
 * directory `measurements` (the database pk_profile_open + pk_profile_write
 * make of it). Every process of the team calls it with the same
 * arguments. PK_ERR_FORMAT (naming the file, structure and offset) when an
 * input is damaged, PK_ERR_IO when the output cannot be written (nothing
 * is left at `out` then), as pk_profile_write. `stats` may be NULL. */
PK_API pk_status pk_build_database(const char *measurements, const char *out,
                                   const pk_parallel_options *opts, pk_parallel_stats *stats);

/* Merge the profiles at inputs[0..n) (any format profkit reads; n >= 2)
 * into the HPCToolkit database `out`: the database pk_profile_merge +
 * pk_profile_write make of them. Every process calls it with the same
 * arguments. */
PK_API pk_status pk_merge_database(const char *const *inputs, size_t n, const char *out,
                                   const pk_parallel_options *opts, pk_parallel_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* PROFKIT_PARALLEL_H */
