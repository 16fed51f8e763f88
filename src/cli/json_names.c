/*
 * cli/json_names.c — what the commands' --json outputs share beyond the
 * library's writer: flat rows' names whole (pk_json_string_fn() with
 * pk_flat_row_name()), and the end of a document with the writer's
 * verdict as an exit status.
 */
#include <errno.h>
#include <string.h>

#include "cli.h"

typedef struct row_of {
    const pk_profile *p;
    pk_group_by by;
    const pk_flat_row *row;
} row_of;

static size_t flat_row_name(void *user, char *buf, size_t size)
{
    const row_of *r = user;
    return pk_flat_row_name(r->p, r->by, r->row, buf, size);
}

pk_status cli_json_flat_row_name(pk_json *j, const pk_profile *p, pk_group_by by,
                                 const pk_flat_row *row)
{
    row_of r = {p, by, row};
    return pk_json_string_fn(j, flat_row_name, &r);
}

int cli_json_done(const char *cmd, pk_json *j)
{
    pk_status st = pk_json_finish(j);
    if (st && ferror(stdout)) return cli_output_done(cmd); /* the reason: stdout failed */
    if (st) return cli_library_error(cmd, st);
    return cli_output_done(cmd);
}

int cli_output_reported;

int cli_output_done(const char *cmd)
{
    /* A full disk or a closed pipe shows only when the buffer is written:
     * a document that did not arrive whole must not exit 0. */
    if (fflush(stdout) == 0 && !ferror(stdout)) return CLI_OK;
    fprintf(stderr, "profkit %s: writing the output failed: %s\n", cmd, strerror(errno));
    cli_output_reported = 1;
    return CLI_BAD;
}
