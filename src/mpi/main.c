/*
 * mpi/main.c — profkit-mpi: `convert` and `merge` over the ranks of an
 * MPI job (docs/mpi.md):
 *
 *   mpirun -np N profkit-mpi convert MEASUREMENTS/ -o DB.d [--threads T]
 *   mpirun -np N profkit-mpi merge A.d B.d ... -o M.d [--mean]
 *
 * The same commands, options and output as profkit's; the work is shared
 * by all ranks (and T threads in each) through the library's parallel
 * builders (profkit/parallel.h). Only rank 0 prints; every rank exits
 * with the same status. profkit itself links no MPI, so it runs where no
 * MPI is installed.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "team_mpi.h"

static void usage(FILE *out)
{
    fprintf(out, "Usage: mpirun -np N profkit-mpi <command> [options] ...\n\n"
                 "Commands (as in profkit, the work shared by the MPI ranks):\n"
                 "  convert  an hpcrun measurement directory to an HPCToolkit database:\n"
                 "           profkit-mpi convert MEASUREMENTS/ -o DB.d [--threads T]\n"
                 "  merge    databases (runs) into one: profkit-mpi merge A.d B.d ... -o M.d\n"
                 "           [--mean] [--threads T]\n\n"
                 "--threads T runs T threads in each rank. The database is the one the\n"
                 "serial profkit writes, byte for byte (docs/mpi.md).\n"
                 "Exit status: 0 ok, 1 bad data or the write failed, 2 usage error.\n");
}

static int run(int argc, char **argv, int rank)
{
    if (argc < 2) {
        if (rank == 0) usage(stderr);
        return CLI_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        if (rank == 0) usage(stdout);
        return CLI_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        if (rank == 0) printf("profkit-mpi %s\n", pk_version());
        return CLI_OK;
    }
    if (!strcmp(argv[1], "convert")) return cmd_convert(argc - 1, argv + 1);
    if (!strcmp(argv[1], "merge")) return cmd_merge(argc - 1, argv + 1);
    if (rank == 0)
        fprintf(stderr,
                "profkit-mpi: unknown command '%s' (convert, merge; the others are "
                "profkit's)\n",
                argv[1]);
    return CLI_USAGE;
}

int main(int argc, char **argv)
{
    cli_use_huge_pages(argv); /* before MPI_Init: the process is executed again */
    int provided = 0;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "profkit-mpi: MPI_Init failed\n");
        return 1;
    }
    pk_team_mpi team;
    int rc = CLI_BAD;
    if (pk_team_mpi_init(&team, MPI_COMM_WORLD) != 0) {
        fprintf(stderr, "profkit-mpi: cannot set up the MPI communicator\n");
    } else {
        cli_install_cleanup();
        cli_team = &team.team;
        /* rank 0 says it all: every failure of the builders reaches it
         * (pk_members_agree), and usage errors are the same everywhere */
        int quiet_ok = team.team.rank == 0 ||
                       (freopen("/dev/null", "w", stdout) && freopen("/dev/null", "w", stderr));
        rc = quiet_ok ? run(argc, argv, team.team.rank) : CLI_BAD;
        cli_team = NULL;
        pk_team_mpi_free(&team);
    }
    MPI_Finalize();
    return rc;
}
