/*
 * cli/json_names.c — the end of a --json document, with the writer's
 * verdict and the stream's as an exit status; a count as a member.
 */
#include <errno.h>
#include <string.h>

#include "cli.h"

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

void cli_json_count(pk_json *j, const char *key, uint64_t v)
{
    pk_json_key(j, key);
    pk_json_uint(j, v);
}
