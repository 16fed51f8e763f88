/*
 * cli/output.c — `-o -`: standard output for every writer, as git,
 * coreutils and pprof take it. The library writes to standard output for
 * the target "-" (util/safeout.h); here are what the commands add: their
 * own lines move to stderr, and binary data is refused for a terminal.
 */
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cli_is_stdout(const char *output)
{
    return output && strcmp(output, "-") == 0;
}

FILE *cli_messages(const char *output)
{
    return cli_is_stdout(output) ? stderr : stdout;
}

int cli_binary_ok(const char *cmd, const char *output, const char *what)
{
    if (!cli_is_stdout(output) || !isatty(STDOUT_FILENO)) return CLI_OK;
    fprintf(stderr,
            "profkit %s: %s is binary: not written to a terminal; redirect standard output "
            "(> FILE, | CMD) or give -o FILE\n",
            cmd, what);
    return CLI_USAGE;
}
