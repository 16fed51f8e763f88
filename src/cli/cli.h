/*
 * cli/cli.h — what the subcommands of the profkit executable share.
 *
 * Each subcommand lives in its own cmd_<name>.c and is a thin layer over
 * the public library API: parse options, call the library, render.
 * Exit status: 0 ok, 1 bad data or no answer, 2 usage error.
 */
#ifndef PK_CLI_H
#define PK_CLI_H

#include <stdio.h>

#include "profkit/profkit.h"

enum { CLI_OK = 0, CLI_BAD = 1, CLI_USAGE = 2 };

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
} cli_command;

int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_flat(int argc, char **argv);
int cmd_convert(int argc, char **argv);

/* Print "profkit CMD: <message>" and a hint to stderr; returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print the library's last error; returns the exit status it deserves. */
int cli_library_error(const char *cmd, pk_status st);
/* Open a profile, reporting failure; returns CLI_OK or an exit status. */
int cli_open(const char *cmd, const char *path, uint32_t flags, pk_profile **out);
/* `info`'s call graph section (info_callgraph.c); nothing without one. */
void cli_info_callgraph(const pk_profile *p);
/* 1 if colour should be used on `f`: a terminal, NO_COLOR unset, TERM not dumb. */
int cli_use_color(FILE *f, int disabled);
/* Human-readable byte count ("1.6 KiB"). */
const char *cli_bytes(char *buf, size_t size, unsigned long long n);
/* Exactly one positional argument expected after options; returns it or NULL (after
 * printing a usage error). */
const char *cli_one_path(const char *cmd, int argc, char **argv, int optind_);

/* The metric `spec` names: "NAME" or "NAME:inclusive|exclusive" (exact, or
 * a case-insensitive prefix; *scope, if not NULL, gets the suffix's kind or
 * PK_SCOPE_OTHER), or with no spec the first time-like metric, else the
 * first. Returns 0 when nothing matches. */
int cli_pick_metric(const pk_profile *p, const char *spec, pk_index *out, pk_scope_kind *scope);
/* Inclusive and exclusive values of metric m at every context, stored or
 * derived (pk_context_scope_values()); *excl becomes NULL when exclusive
 * values cannot be had (a min/max metric stored inclusive). *derived is
 * the scope kind that was derived (PK_SCOPE_INCLUSIVE/EXCLUSIVE), or 0. */
pk_status cli_scope_values(const pk_profile *p, pk_index m, double *incl, double **excl,
                           int *derived);
/* One line saying the tree is reconstructed from a call graph, if it is. */
void cli_say_reconstructed(const pk_profile *p, FILE *out);

#endif
