/*
 * cli/cmd_check.c — `profkit check`: validate everything that can be
 * validated and print each problem with its location.
 *
 * Opening with PK_OPEN_KEEP_GOING makes the reader check every file even
 * when one is damaged; pk_profile_verify() then cross-checks the files
 * (profile.db against cct.db). Notes (known quirks of real files) are
 * printed but do not fail the check; warnings and errors do.
 */
#define _GNU_SOURCE
#include <getopt.h>

#include "cli.h"

static const char check_help[] =
    "Usage: profkit check [--json] [-q] PATH\n\n"
    "Validate every structure of every file of the profile and cross-check\n"
    "the files against each other (HPCToolkit: profile.db and cct.db must hold\n"
    "the same values). Each problem is printed with its file, structure and\n"
    "byte offset. Notes describe known quirks of real files and do not fail\n"
    "the check.\n\n"
    "Exit status: 0 clean (notes only), 1 warnings or errors, 2 usage error.\n\n"
    "Options:\n"
    "  --json        one JSON object per problem per line, then a summary object\n"
    "  -q, --quiet   print only the summary line\n"
    "  -h, --help    show this help\n";

typedef struct checker {
    int json, quiet, color;
    size_t count[3];
    pk_status st; /* the first JSON writer error */
} checker;

/* Every line of `check --json` is a document of this schema. */
static void json_line_begin(pk_json *j)
{
    pk_json_init(j, stdout, 0);
    pk_json_object_begin(j);
    pk_json_key(j, "schema");
    pk_json_string(j, "profkit.check/1");
}

static void json_line_end(checker *ck, pk_json *j)
{
    pk_json_object_end(j);
    pk_status st = pk_json_finish(j);
    if (!ck->st) ck->st = st;
}

static const char *severity_name(pk_severity s)
{
    return s == PK_SEV_ERROR ? "error" : s == PK_SEV_WARNING ? "warning" : "note";
}

static void report(void *user, const pk_diagnostic *d)
{
    checker *ck = user;
    ck->count[d->severity]++;
    if (ck->quiet) return;
    if (ck->json) {
        pk_json j;
        json_line_begin(&j);
        pk_json_key(&j, "severity");
        pk_json_string(&j, severity_name(d->severity));
        pk_json_key(&j, "code");
        pk_json_string(&j, d->code);
        pk_json_key(&j, "file");
        pk_json_string(&j, d->file);
        pk_json_key(&j, "structure");
        pk_json_string(&j, d->structure);
        pk_json_key(&j, "offset");
        if (d->has_offset)
            pk_json_uint(&j, d->offset);
        else
            pk_json_null(&j);
        pk_json_key(&j, "message");
        pk_json_string(&j, d->message);
        json_line_end(ck, &j);
        return;
    }
    static const char *const colors[] = {"\033[36m", "\033[33m", "\033[31m"};
    printf("%s%s%s: %s [%s]\n", ck->color ? colors[d->severity] : "", severity_name(d->severity),
           ck->color ? "\033[0m" : "", cli_text(d->message), cli_text(d->code));
}

static void summarize(checker *ck, const pk_profile *p, const char *path)
{
    if (ck->json) {
        pk_json j;
        json_line_begin(&j);
        pk_json_key(&j, "summary");
        pk_json_string(&j, path);
        pk_json_key(&j, "errors");
        pk_json_uint(&j, ck->count[PK_SEV_ERROR]);
        pk_json_key(&j, "warnings");
        pk_json_uint(&j, ck->count[PK_SEV_WARNING]);
        pk_json_key(&j, "notes");
        pk_json_uint(&j, ck->count[PK_SEV_NOTE]);
        json_line_end(ck, &j);
        return;
    }
    printf("%s: checked", cli_text(path));
    for (size_t i = 0; i < pk_source_count(p); i++) {
        pk_source s;
        pk_source_get(p, i, &s);
        if (s.present) printf(" %s%s", cli_text(s.name), s.loaded ? "" : " (unreadable)");
    }
    printf(": %zu errors, %zu warnings, %zu notes\n", ck->count[PK_SEV_ERROR],
           ck->count[PK_SEV_WARNING], ck->count[PK_SEV_NOTE]);
}

int cmd_check(int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, NULL, 'j'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"help", no_argument, NULL, 'h'},
                                         {0}};
    checker ck = {0};
    int c;
    while ((c = cli_getopt("check", argc, argv, "qh", opts)) != -1) {
        if (c == 'j')
            ck.json = 1;
        else if (c == 'q')
            ck.quiet = 1;
        else if (c == 'h')
            return fputs(check_help, stdout), CLI_OK;
        else
            return cli_bad_option("check");
    }
    ck.color = cli_use_color(stdout, ck.json);
    const char *path;
    pk_profile *p;
    int rc = cli_open_arg("check", argc, argv, PK_OPEN_KEEP_GOING, &path, &p);
    if (rc) return rc;
    for (size_t i = 0; i < pk_diagnostic_count(p); i++) {
        pk_diagnostic d;
        pk_diagnostic_get(p, i, &d);
        report(&ck, &d);
    }
    pk_profile_verify(p, report, &ck, NULL);
    summarize(&ck, p, path);
    rc = ck.count[PK_SEV_ERROR] || ck.count[PK_SEV_WARNING] ? CLI_BAD : CLI_OK;
    if (ck.st)
        rc = cli_library_error("check", ck.st);
    else if (ck.json && cli_output_done("check"))
        rc = CLI_BAD;
    return cli_close("check", p, rc);
}
