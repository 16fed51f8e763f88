/*
 * cli/convert_export.c — `profkit convert --to folded|speedscope|csv`
 * (and which export --to or the output's name asks for, chrome too):
 * one-way exports for other tools, written under a temporary name and
 * renamed into place like every profkit output.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char *const export_names[] = {"folded", "speedscope", "csv", "chrome", "chrome"};
static const char *const export_suffixes[] = {".folded", ".speedscope.json", ".csv", ".chrome.json",
                                              ".chrome.json.gz"};

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

int cli_export_kind(const char *to, const char *output)
{
    for (int i = 0; i < 5; i++)
        if (to ? strcmp(to, export_names[i]) == 0 : ends_with(output, export_suffixes[i]))
            return i < 3 ? i + 1 : CLI_EXPORT_CHROME;
    return 0;
}

static pk_status write_export(int kind, FILE *out, const pk_profile *p, pk_index m,
                              const char *name)
{
    if (kind == CLI_EXPORT_CSV) return pk_export_csv(out, p);
    if (kind == CLI_EXPORT_SPEEDSCOPE) return pk_export_speedscope(out, p, m, name);
    size_t nc = pk_context_count(p), n = 0;
    double *incl = malloc((nc ? nc : 1) * sizeof *incl);
    pk_frame *f = NULL;
    pk_status st =
        incl ? pk_context_scope_values(p, m, PK_SCOPE_INCLUSIVE, incl, nc, NULL) : PK_ERR_NOMEM;
    if (!st) st = pk_frames_build(p, incl, &f, &n);
    if (!st) st = pk_flame_write_folded(out, p, f, n);
    pk_frames_free(f);
    free(incl);
    return st;
}

int cli_export(int kind, const char *input, const char *output, const char *metric, int force,
               int quiet)
{
    pk_profile *p;
    int rc =
        cli_open("convert", input, PK_OPEN_NO_TRACES | PK_OPEN_NO_CCT | PK_OPEN_BY_FUNCTION, &p);
    if (rc) return rc;
    pk_index m = 0;
    if (kind != CLI_EXPORT_CSV && pk_metric_lookup(p, metric, &m) != PK_OK &&
        cli_library_error("convert", PK_ERR_NOT_FOUND))
        return cli_close("convert", p, CLI_BAD);
    pk_output *out;
    pk_status st = pk_output_open(output, force ? PK_WRITE_FORCE : 0, &out);
    if (st) return cli_close("convert", p, cli_library_error("convert", st));
    st = write_export(kind, pk_output_stream(out), p, m, input);
    if (st == PK_ERR_IO && pk_output_status(out)) st = PK_ERR_IO; /* its message says why */
    if (!st) st = pk_profile_intact(p); /* nothing made from a file that shrank */
    if (st)
        pk_output_abort(out);
    else
        st = pk_output_commit(out);
    if (st)
        rc = cli_library_error("convert", st);
    else if (!quiet)
        fprintf(cli_messages(output), "wrote %s (%s)\n",
                cli_is_stdout(output) ? "standard output" : cli_text(output),
                export_names[kind - 1]);
    return cli_close("convert", p, rc);
}
