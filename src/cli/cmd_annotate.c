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

/* What is being annotated, common to every listing of one run. */
typedef struct annotate_run {
    const pk_profile *p;
    const annotate_args *a;
    int from_callgraph;
    cli_view_values vals;
    cli_cg_view cg;
    pk_line_cost *lines;
    size_t n_lines;
    double total;
    const char *metric, *unit;
    pk_number_format format; /* the text's numbers, as the other views write them */
    pk_json *j;
    FILE *json_out; /* --json's stream: stdout, or the view server's */
    size_t shown;   /* listings written */
} annotate_run;

enum { OPT_SOURCE_DIR = 3000, OPT_ASM };

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
    return cli_view_check("annotate", &a->view);
}

/* The call graph answers unless the view needs contexts (as flat). */
static int callgraph_applies(const pk_profile *p, const cli_view *v)
{
    pk_cg_summary s;
    return v->stat == PK_ACROSS_SUM && !(v->focus && *v->focus) && !(v->hide && *v->hide) &&
           pk_callgraph_summary(p, &s) == PK_OK;
}

/* The flat profile grouped by `by` of the run's metric and locations. */
static pk_status flat_rows(annotate_run *r, pk_group_by by, pk_flat_row **rows, size_t *n)
{
    if (r->from_callgraph) return cli_cg_flat(r->p, &r->cg, by, rows, n);
    return pk_flat_profile(r->p, r->vals.incl, r->vals.excl, by, rows, n);
}

static int compute_values(annotate_run *r)
{
    int rc = r->from_callgraph ? cli_cg_view_init("annotate", r->p, &r->a->view, &r->cg)
                               : cli_view_compute("annotate", r->p, &r->a->view, &r->vals);
    if (rc) return rc;
    const pk_metric *m = r->from_callgraph ? &r->cg.met : &r->vals.met;
    r->total = r->from_callgraph ? r->cg.total : r->vals.total;
    r->metric = m->name, r->unit = m->unit;
    if (pk_number_format_for(m, fabs(r->total), &r->format) != PK_OK)
        r->format = (pk_number_format){.scale = 1};
    return CLI_OK;
}

/* Every function's costs per line (a FILE's listing), once. */
static int file_lines(annotate_run *r)
{
    if (r->lines) return CLI_OK;
    pk_flat_row *rows;
    size_t n;
    pk_status st = flat_rows(r, PK_BY_LINE, &rows, &n);
    if (!st) {
        st = pk_line_costs(rows, n, &r->lines, &r->n_lines);
        pk_flat_free(rows);
    }
    return st ? cli_library_error("annotate", st) : CLI_OK;
}

/* One listing: the lines of one file, with the costs of `lines` (that
 * file's, sorted): a function's span (costly lines with context) or the
 * whole file. */
typedef struct listing {
    const char *heading; /* "function NAME", NULL for a file */
    pk_index file;
    uint32_t first, last;
    int whole;
    const pk_line_cost *lines;
    size_t n_lines;
    const pk_function_lines *function; /* a function's listing, else NULL */
} listing;

static int list_file(annotate_run *r, const listing *l)
{
    pk_file pf;
    char found[4096] = "";
    pk_line_range *ranges = NULL;
    size_t n_ranges = 0;
    if (pk_file_get(r->p, l->file, &pf) != PK_OK) return CLI_BAD;
    pk_status st = pk_source_locate(r->p, l->file, r->a->dirs, r->a->n_dirs, found, sizeof found);
    if (st && st != PK_ERR_NOT_FOUND && st != PK_ERR_LIMIT) /* not found: costs alone */
        return cli_library_error("annotate", st);
    double min_cost = r->a->view.threshold / 100.0 * fabs(r->total);
    if (!l->whole && (st = pk_annotate_ranges(l->lines, l->n_lines, l->first, l->last, min_cost,
                                              r->a->context, 1, &ranges, &n_ranges)) != PK_OK)
        return cli_library_error("annotate", st);
    pk_annotation an = {l->heading, pf.path,           found[0] ? found : NULL,
                        l->lines,   l->n_lines,        ranges,
                        n_ranges,   r->total,          r->unit,
                        1,          r->from_callgraph, &r->format,
                        l->function};
    if (l->whole) an.ranges = NULL;
    if (!r->j && r->shown) putchar('\n');
    st = r->j ? pk_annotation_write_json(r->j, &an) : pk_annotation_write_text(stdout, &an);
    free(ranges);
    r->shown++;
    return st ? cli_library_error("annotate", st) : CLI_OK;
}

/* Functions' listings; those without a known line are named on stderr. */
static int list_assembly(annotate_run *r, const pk_index *fns, size_t n)
{
    cli_asm_source src = {r->from_callgraph, r->cg.event,  r->cg.locations,
                          r->cg.n_locations, r->vals.excl, r->total,
                          r->metric,         &r->format,   r->a->view.no_demangle};
    int rc = CLI_OK;
    for (size_t i = 0; i < n && !rc; i++, r->shown++) {
        if (r->shown) putchar('\n');
        rc = cli_annotate_asm(r->p, fns[i], &src);
    }
    return rc;
}

/* A function's listings: its span's file first, then each other file it
 * has costed lines in (code inlined from a header, Callgrind's fi=/fe=),
 * so its self column adds up to its self cost. */
static int list_function(annotate_run *r, const char *heading, const pk_source_span *span,
                         const pk_function_lines *fl)
{
    size_t at, n;
    pk_line_costs_of_file(fl->lines, fl->n_lines, span->file, &at, &n);
    listing l = {heading, span->file, span->first, span->last, 0, fl->lines + at, n, fl};
    if (n && fl->lines[at].line < l.first) l.first = fl->lines[at].line; /* all its lines */
    if (n && fl->lines[at + n - 1].line > l.last) l.last = fl->lines[at + n - 1].line;
    int rc = list_file(r, &l);
    for (size_t i = 0; i < fl->n_lines && !rc; i += n) {
        pk_line_costs_of_file(fl->lines, fl->n_lines, fl->lines[i].file, &at, &n);
        if (fl->lines[i].file == span->file) continue;
        l = (listing){heading,
                      fl->lines[i].file,
                      fl->lines[at].line,
                      fl->lines[at + n - 1].line,
                      0,
                      fl->lines + at,
                      n,
                      fl};
        rc = list_file(r, &l);
    }
    return rc;
}

/* Each function's own costs per line (pk_function_line_costs()). */
static pk_status function_lines(annotate_run *r, const pk_index *fns, size_t n,
                                pk_function_lines *out)
{
    if (r->from_callgraph)
        return pk_callgraph_function_lines(r->p, r->cg.event, r->cg.locations, r->cg.n_locations,
                                           fns, n, out);
    return pk_function_line_costs(r->p, r->vals.incl, r->vals.excl, fns, n, out);
}

static int list_functions(annotate_run *r, const pk_index *fns, size_t n)
{
    if (r->a->assembly) return list_assembly(r, fns, n);
    pk_source_span *spans = malloc((n ? n : 1) * sizeof *spans);
    pk_function_lines *fl = calloc(n ? n : 1, sizeof *fl);
    pk_status st = spans && fl ? pk_function_spans(r->p, fns, n, spans) : PK_ERR_NOMEM;
    if (!st) st = function_lines(r, fns, n, fl);
    int rc = st ? cli_library_error("annotate", st) : CLI_OK;
    size_t missing = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        pk_function fn;
        char heading[1200];
        pk_function_get(r->p, fns[i], &fn);
        if (fl[i].same_as != PK_NONE) continue; /* listed with the first of its name */
        if (spans[i].file == PK_NONE) {
            fprintf(stderr, "profkit annotate: %s: no source line known\n", cli_text(fn.name));
            missing++;
            continue;
        }
        snprintf(heading, sizeof heading, "function %s", fn.name ? fn.name : "?");
        rc = list_function(r, heading, &spans[i], &fl[i]);
    }
    if (fl) pk_function_lines_free(fl, n);
    free(spans), free(fl);
    return !rc && n && missing == n ? CLI_BAD : rc; /* nothing to show is no answer */
}

/* Source files whose recorded path is `name` or ends in "/name". */
static size_t match_files(const pk_profile *p, const char *name, pk_index *out, size_t max)
{
    size_t n = 0, len = strlen(name);
    for (size_t i = 0; i < pk_file_count(p) && n < max; i++) {
        pk_file f;
        if (pk_file_get(p, (pk_index)i, &f) != PK_OK || !f.path) continue;
        size_t fl = strlen(f.path);
        if (strcmp(f.path, name) == 0 ||
            (fl > len && f.path[fl - len - 1] == '/' && strcmp(f.path + fl - len, name) == 0))
            out[n++] = (pk_index)i;
    }
    return n;
}

static int exact_function(const pk_profile *p, const pk_index *fns, size_t n, const char *name)
{
    pk_function fn;
    return n > 0 && pk_function_get(p, fns[0], &fn) == PK_OK && fn.name && !strcmp(fn.name, name);
}

/* FUNCTION|FILE: an exact function name, else a file, else a regular
 * expression over function names. */
static int list_target(annotate_run *r, const char *target)
{
    pk_index files[64], *fns = NULL;
    size_t n_files = match_files(r->p, target, files, 64), n_fns = 0;
    pk_status st = pk_functions_matching(r->p, target, &fns, &n_fns);
    int rc = CLI_OK;
    if (st == PK_OK && (exact_function(r->p, fns, n_fns, target) || n_files == 0)) {
        rc = list_functions(r, fns, n_fns);
    } else if (n_files) {
        rc = file_lines(r);
        for (size_t i = 0; i < n_files && !rc; i++) {
            size_t at, n;
            pk_line_costs_of_file(r->lines, r->n_lines, files[i], &at, &n);
            listing l = {NULL, files[i], 1, UINT32_MAX, 1, r->lines + at, n, NULL};
            rc = list_file(r, &l);
        }
    } else {
        fprintf(stderr, "profkit annotate: no function or source file matches '%s'\n",
                cli_text(target));
        rc = CLI_BAD;
    }
    pk_functions_free(fns);
    return rc;
}

static int by_self_then_inclusive(const void *a, const void *b)
{
    const pk_flat_row *x = a, *y = b;
    if (x->exclusive != y->exclusive) return x->exclusive > y->exclusive ? -1 : 1;
    if (x->inclusive != y->inclusive) return x->inclusive > y->inclusive ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* No target: the top functions by self cost that have source lines. */
static int list_top(annotate_run *r)
{
    pk_flat_row *rows;
    size_t n, want = r->a->view.top;
    pk_status st = flat_rows(r, PK_BY_FUNCTION, &rows, &n);
    if (st) return cli_library_error("annotate", st);
    pk_index *fns = malloc((n ? n : 1) * sizeof *fns);
    pk_source_span *spans = malloc((n ? n : 1) * sizeof *spans);
    size_t k = 0;
    /* a tree's functions with source often cost only through their calls
     * (the time is in libraries without lines): inclusive breaks ties */
    qsort(rows, n, sizeof *rows, by_self_then_inclusive);
    for (size_t i = 0; fns && i < n; i++)
        if ((rows[i].exclusive != 0 || rows[i].inclusive != 0) &&
            rows[i].key < pk_function_count(r->p))
            fns[k++] = (pk_index)rows[i].key;
    pk_flat_free(rows);
    st = fns && spans ? pk_function_spans(r->p, fns, k, spans) : PK_ERR_NOMEM;
    size_t m = 0;
    for (size_t i = 0; !st && i < k && m < want; i++)
        if (spans[i].file != PK_NONE) fns[m++] = fns[i];
    int rc = st ? cli_library_error("annotate", st) : list_functions(r, fns, m);
    if (!rc && m == 0) { /* Cube regions, for one, rarely name a line */
        fputs("profkit annotate: no function with a cost has a known source line: nothing to "
              "annotate\n",
              stderr);
        rc = CLI_BAD;
    }
    free(fns), free(spans);
    return rc;
}

static int annotate(annotate_run *r)
{
    int rc = compute_values(r);
    if (rc) return rc;
    pk_json j;
    if (r->a->view.json) {
        r->j = &j;
        pk_json_init(&j, r->json_out ? r->json_out : stdout, 1);
        pk_json_object_begin(&j);
        pk_json_key(&j, "schema");
        pk_json_string(&j, "profkit.annotate/1");
        pk_json_key(&j, "metric");
        pk_json_string(&j, r->metric);
        pk_json_key(&j, "unit");
        pk_json_string(&j, r->unit);
        pk_json_key(&j, "source");
        pk_json_string(&j, r->from_callgraph            ? "callgraph"
                           : cli_is_reconstructed(r->p) ? "reconstructed tree"
                                                        : "tree");
        pk_json_completeness(&j, r->p);
        pk_json_key(&j, "total");
        pk_json_double(&j, r->total);
        pk_json_key(&j, "files");
        pk_json_array_begin(&j);
    } else {
        if (r->from_callgraph)
            cli_cg_describe(r->p, &r->a->view, &r->cg, stdout);
        else
            cli_view_describe(r->p, &r->a->view, &r->vals, stdout);
        putchar('\n');
    }
    rc = r->a->target ? list_target(r, r->a->target) : list_top(r);
    if (r->j) {
        pk_json_array_end(&j);
        pk_json_object_end(&j);
        int jrc = cli_json_done("annotate", &j);
        if (!rc) rc = jrc;
    }
    return rc ? rc : cli_output_done("annotate");
}

int cli_annotate_json(const pk_profile *p, const cli_view *v, const char *target, FILE *out)
{
    annotate_args a = {.view = *v, .context = 3, .target = target};
    a.view.json = 1;
    annotate_run r = {.p = p, .a = &a, .from_callgraph = callgraph_applies(p, v), .json_out = out};
    int rc = annotate(&r);
    pk_line_costs_free(r.lines);
    cli_view_values_free(&r.vals);
    cli_cg_view_free(&r.cg);
    return rc;
}

int cmd_annotate(int argc, char **argv)
{
    annotate_args a = {.view = {.top = 3}, .context = 3};
    int rc = parse_annotate_args(argc, argv, &a);
    if (rc) return rc < 0 ? CLI_OK : rc;
    /* a call graph answers without a tree: open it without one (as flat) */
    pk_profile *p;
    pk_cg_summary s;
    uint32_t flags = PK_OPEN_NO_TRACES | PK_OPEN_NO_CCT | (a.assembly ? 0 : PK_OPEN_BY_LINE);
    rc = cli_open_opts("annotate", argv[optind],
                       &(pk_open_options){.flags = flags | PK_OPEN_NO_TREE}, &p);
    if (rc) return rc;
    int cg = callgraph_applies(p, &a.view);
    if (!cg && pk_callgraph_summary(p, &s) == PK_OK) { /* --focus etc.: the tree it needs */
        pk_profile_free(p);
        if ((rc = cli_open("annotate", argv[optind], flags, &p)) != 0) return rc;
    }
    annotate_run r = {.p = p, .a = &a, .from_callgraph = cg};
    rc = annotate(&r);
    pk_line_costs_free(r.lines);
    cli_view_values_free(&r.vals);
    cli_cg_view_free(&r.cg);
    return cli_close("annotate", p, rc);
}
