/*
 * cli/flat_extra.c — what flat adds to its rows beyond one metric's
 * values: call counts from a call-count metric (Cube visits), and the
 * CSV columns saying where a row is (module, file, line; for a function
 * its definition). Both flat with one metric and with several use them.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const pk_flat_row *)a)->key, y = ((const pk_flat_row *)b)->key;
    return x < y ? -1 : x > y;
}

int cli_flat_call_counts(const pk_profile *p, const cli_view *v, pk_group_by by,
                         const char *shown_metric, pk_flat_row *rows, size_t n, int *has)
{
    pk_index m;
    pk_metric met;
    *has = 0;
    if (pk_metric_call_count(p, &m) || pk_metric_get(p, m, &met)) return CLI_OK;
    if (shown_metric && strcmp(shown_metric, met.name) == 0) return CLI_OK;
    cli_view one = *v;
    one.metric = met.name;
    pk_flat_row *visits = NULL;
    size_t n_visits = 0;
    pk_number_format nf;
    double total;
    int rc = cli_flat_rows(p, &one, by, &visits, &n_visits, &nf, &total);
    if (rc) return rc;
    qsort(visits, n_visits, sizeof *visits, by_key);
    for (size_t i = 0; i < n; i++) { /* a group's calls: its contexts' own visits */
        const pk_flat_row *r = bsearch(&rows[i], visits, n_visits, sizeof *visits, by_key);
        rows[i].calls = r ? r->exclusive : 0;
    }
    pk_flat_free(visits);
    *has = 1;
    return CLI_OK;
}

void cli_flat_csv_place(const pk_profile *p, pk_group_by by, const pk_flat_row *r)
{
    pk_index index = (pk_index)(by == PK_BY_LINE ? r->key >> 32 : r->key);
    pk_module m;
    pk_file f;
    if (by == PK_BY_FUNCTION) {
        pk_csv_function_place(stdout, p, index);
    } else if (by == PK_BY_MODULE) {
        pk_csv_field(stdout, pk_module_get(p, index, &m) == PK_OK ? m.path : NULL);
        fputs(",,", stdout);
    } else {
        putchar(',');
        pk_csv_field(stdout, pk_file_get(p, index, &f) == PK_OK ? f.path : NULL);
        putchar(',');
        if (by == PK_BY_LINE) printf("%u", (unsigned)(r->key & 0xffffffffu));
    }
}

void cli_flat_csv_name(const pk_profile *p, pk_group_by by, const pk_flat_row *r)
{
    char name[4096];
    pk_flat_row_name(p, by, r, name, sizeof name);
    pk_csv_field(stdout, name);
    putchar(',');
    cli_flat_csv_place(p, by, r);
}
