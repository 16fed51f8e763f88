/*
 * mpi/team_mpi.h — a pk_team over an MPI communicator (profkit-mpi).
 */
#ifndef PK_MPI_TEAM_MPI_H
#define PK_MPI_TEAM_MPI_H

#include <mpi.h>

#include "profkit/parallel.h"

typedef struct pk_team_mpi {
    pk_team team; /* first: &t->team is what the builders take */
    MPI_Comm comm;
} pk_team_mpi;

/* A team of comm's ranks (a duplicate of comm carries its messages). */
int pk_team_mpi_init(pk_team_mpi *t, MPI_Comm comm);
void pk_team_mpi_free(pk_team_mpi *t);

#endif
