/*
 * cli/cmd_annotate.c — `profkit annotate PATH [FUNCTION|FILE]`: source
 * lines with their costs beside them (callgrind_annotate's annotated
 * source, `pprof list`). A function: the costly lines of its span with a
 * few lines around them; a file: the whole file; nothing: the top
 * functions'. Costs per line come from the flat profile by line: on a
 * call graph (Callgrind) exactly, with the calls made on each line; else
 * from the calling-context tree, inclusive values counting recursion once.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char annotate_help[] =
    "Usage: profkit annotate [options] PATH [FUNCTION|FILE]\n\n"
    "Show source lines with their costs beside them: the self cost of each\n"
    "line, its inclusive cost (with the calls made on it) and, from a call\n"
    "graph (Callgrind), the number of calls made on it; '.' where there is\n"
    "none. FUNCTION (an exact name, else a regular expression): the lines of\n"
    "each matching function that cost something, with --context lines around\n"
    "them, with only that function's own costs (as pprof list): its code's\n"
    "self cost and the calls it makes, never another function's (or an\n"
    "inlined callee's) cost on the same line; its self column adds up to its\n"
    "flat self cost, and a part on no source line is said. FILE (a source\n"
    "file's recorded path, or its tail after a '/'): the whole file with the\n"
    "costs of every function on each line (as callgrind_annotate). Neither:\n"
    "the --top functions with the largest self cost that have source lines\n"
    "(then by inclusive cost). Sources are found in an HPCToolkit database's\n"
    "src/ copy, at the recorded path, or under each --source-dir; when one\n"
    "is not found the per-line costs are still shown, without the text.\n"
    "--asm shows each matching function's machine code instead, every\n"
    "instruction with its cost, read from the binary its module names (the\n"
    "profile needs instruction addresses: Callgrind --dump-instr=yes,\n"
    "HPCToolkit databases).\n\n"
    "Options:\n" CLI_VIEW_HELP
    "  -n, --top N           functions shown without FUNCTION|FILE (default 3)\n"
    "  -t, --threshold PCT   only lines costing at least PCT % of the total get\n"
    "                        context around them (default: any cost)\n"
    "  -C, --context N       lines shown either side of a costly line (default 3)\n"
    "  -I, --source-dir DIR  also look for sources under DIR (repeatable)\n"
    "      --asm             per instruction: disassembly with costs (text only)\n"
    "      --json            the listings as JSON (docs/json.md, profkit.annotate/1)\n"
    "  -h, --help            show this help\n";

#define MAX_DIRS 64

typedef struct annotate_args {
    cli_view view;
    unsigned context;
    const char *dirs[MAX_DIRS];
    size_t n_dirs;
    const char *target; /* FUNCTION or FILE, or NULL */
    int assembly;       /* --asm */
} annotate_args;

enum { OPT_ASM = 3000 };

/* The directories of -I joined as the query's dirs option wants them. */
static int set_dirs(annotate_args *a)
{
    size_t len = 1;
    for (size_t i = 0; i < a->n_dirs; i++)
        len += strlen(a->dirs[i]) + 1;
    char *all = calloc(len, 1);
    if (!all) return cli_library_error("annotate", PK_ERR_NOMEM);
    for (size_t i = 0; i < a->n_dirs; i++) {
        if (i) strcat(all, ":");
        strcat(all, a->dirs[i]);
    }
    int rc = cli_query_set("annotate", &a->view, "dirs", all);
    free(all);
    return rc;
}

static int parse_annotate_args(int argc, char **argv, annotate_args *a)
{
    static const struct option opts[] = {CLI_VIEW_LONG_OPTIONS,
                                         {"context", required_argument, NULL, 'C'},
                                         {"source-dir", required_argument, NULL, 'I'},
                                         {"asm", no_argument, NULL, OPT_ASM},
                                         {"help", no_argument, NULL, 'h'},
                                         {0}};
    int c, rc;
    char *end;
    while ((c = getopt_long(argc, argv, "m:n:t:C:I:h", opts, NULL)) != -1) {
        if (c == 'C') {
            unsigned long n = strtoul(optarg, &end, 10);
            if (*end || !*optarg || n > 1000)
                return cli_usage_error("annotate", "--context wants 0 to 1000 lines");
            a->context = (unsigned)n;
        } else if (c == 'I') {
            if (a->n_dirs == MAX_DIRS)
                return cli_usage_error("annotate", "at most %d --source-dir", MAX_DIRS);
            a->dirs[a->n_dirs++] = optarg;
        } else if (c == OPT_ASM) {
            a->assembly = 1;
        } else if (c == 'h') {
            fputs(annotate_help, stdout);
            return -1;
        } else if (c == CLI_OPT_CSV) {
            return cli_usage_error("annotate", "an annotated source is text or --json");
        } else if ((rc = cli_view_option("annotate", &a->view, c, optarg)) != 0) {
            return rc;
        }
    }
    if (optind >= argc) return cli_usage_error("annotate", "which profile?");
    if (argc - optind > 2) return cli_usage_error("annotate", "one FUNCTION or FILE at most");
    a->target = argc - optind == 2 ? argv[optind + 1] : NULL;
    if (a->assembly && a->view.json) return cli_usage_error("annotate", "--asm prints text only");
    char ctx[16];
    snprintf(ctx, sizeof ctx, "%u", a->context);
    rc = cli_view_check("annotate", &a->view);
    if (!rc) rc = cli_query_set("annotate", &a->view, "context", ctx);
    if (!rc) rc = cli_query_set("annotate", &a->view, "function", a->target);
    if (!rc && a->assembly) rc = cli_query_set("annotate", &a->view, "asm", "1");
    return rc ? rc : set_dirs(a);
}

/* One function's machine code, each instruction with its cost. */
static void put_assembly(const pk_annotate_answer *a, const pk_asm_answer *x, int keep_mangled)
{
    const pk_answer_column *c = &a->head.columns[0];
    const pk_asm_listing *l = &x->listing;
    printf("assembly of %s in %s (0x%llx, %llu bytes", cli_name(x->name, keep_mangled, 0),
           cli_text(x->binary), (unsigned long long)l->start, (unsigned long long)l->size);
    if (l->build_id[0]) printf("; build-id %s", l->build_id);
    if (l->bias) printf("; the profile's addresses are %+lld from it", (long long)l->bias);
    printf(")\nits instructions' self %s: ", cli_text(c->name));
    cli_put_number(stdout, x->self, &c->numbers);
    printf(" (%.1f%% of the total)\n", c->total ? 100.0 * x->self / c->total : 0.0);
    char head[64], cell[48];
    pk_format_header(head, sizeof head, "self", &c->numbers);
    printf("%10s %6s  %10s  %s\n", head, "%", "address", "instruction");
    for (size_t i = 0; i < l->n; i++) {
        const pk_asm_insn *in = &l->insns[i];
        if (in->costed)
            pk_format_number(cell, sizeof cell, in->self, &c->numbers);
        else
            snprintf(cell, sizeof cell, ".");
        if (in->costed && c->total)
            printf("%10s %5.1f%%  %10llx  %s\n", cell, 100.0 * in->self / c->total,
                   (unsigned long long)in->address, in->text);
        else
            printf("%10s %6s  %10llx  %s\n", cell, "", (unsigned long long)in->address, in->text);
    }
}

static int write_text(const pk_annotate_answer *a, const cli_view *v)
{
    pk_status st = PK_OK;
    cli_describe(&a->head, stdout);
    putchar('\n');
    for (size_t i = 0; i < a->n_missing; i++)
        fprintf(stderr, "profkit annotate: %s: no source line known\n", cli_text(a->missing[i]));
    for (size_t i = 0; i < a->n_listings && !st; i++) {
        if (i) putchar('\n');
        st = pk_annotation_write_text(stdout, &a->listings[i]);
    }
    for (size_t i = 0; i < a->n_assembly; i++) {
        if (i) putchar('\n');
        put_assembly(a, &a->assembly[i], v->no_demangle);
    }
    if (st) return cli_library_error("annotate", st);
    return a->n_listings || a->n_assembly ? CLI_OK : CLI_BAD; /* nothing to show is no answer */
}

static int show(const pk_profile *p, const annotate_args *args)
{
    pk_session *s = NULL;
    pk_annotate_answer *a = NULL;
    pk_status st = pk_session_new(p, &s);
    if (!st) st = pk_answer_annotate(s, args->view.q, &a);
    int rc = st ? cli_library_error("annotate", st) : CLI_OK;
    if (!rc && args->view.json) {
        pk_json j;
        pk_json_init(&j, stdout, 1);
        pk_annotate_answer_write_json(&j, a);
        rc = cli_json_done("annotate", &j);
    } else if (!rc) {
        rc = write_text(a, &args->view);
        if (!rc) rc = cli_output_done("annotate");
    }
    pk_annotate_answer_free(a);
    pk_session_free(s);
    return rc;
}

int cmd_annotate(int argc, char **argv)
{
    annotate_args a = {.view = {.top = 3}, .context = 3};
    int rc = parse_annotate_args(argc, argv, &a);
    if (rc) return cli_view_free(&a.view), rc < 0 ? CLI_OK : rc;
    pk_open_options o = {0};
    pk_query_open_options(a.view.q, PK_ANSWER_ANNOTATE, 0, &o);
    pk_profile *p;
    rc = cli_open_opts("annotate", argv[optind], &o, &p);
    if (!rc) rc = cli_close("annotate", p, show(p, &a));
    cli_view_free(&a.view);
    return rc;
}
