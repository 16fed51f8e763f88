/*
 * output/columns.c — the columns a tree (tree.c, frames.c) shows beside
 * its own metric: call counts (Cube visits) and further metrics, derived
 * ones included. The tree stays drawn, sorted and pruned by its first
 * metric; these only add cells, so every tree view shares one layout.
 */
#include <math.h>
#include <string.h>

#include "cells.h"

#define CALLS_WIDTH 12

/* The header of further column c: "D1mr incl (ms)". */
static void header_of(const pk_tree_options *o, size_t c, char *buf, size_t size)
{
    char label[96], plain[96];
    pk_metric_label(o->columns[c].name ? o->columns[c].name : "?", plain, sizeof plain);
    /* a name closing in a unit keeps it when no unit follows ("GKER (sec) incl") */
    snprintf(label, sizeof label, "%.80s incl",
             o->columns[c].numbers && o->columns[c].numbers->unit[0] ? plain
             : o->columns[c].name                                    ? o->columns[c].name
                                                                     : "?");
    pk_format_header(buf, size, label, o->columns[c].numbers);
}

static unsigned width_of(const pk_tree_options *o, size_t c)
{
    char head[160];
    header_of(o, c, head, sizeof head);
    return strlen(head) > 10 ? (unsigned)strlen(head) : 10;
}

unsigned pk_columns_width(const pk_tree_options *o)
{
    unsigned w = o->calls ? CALLS_WIDTH + 2 : 0;
    for (size_t c = 1; c < o->n_columns; c++)
        w += width_of(o, c) + 2;
    return w;
}

void pk_columns_header(FILE *out, const pk_tree_options *o)
{
    char head[160];
    if (o->calls) fprintf(out, "  %*s", CALLS_WIDTH, "calls");
    for (size_t c = 1; c < o->n_columns; c++) {
        header_of(o, c, head, sizeof head);
        fprintf(out, "  %*s", (int)width_of(o, c), head);
    }
}

void pk_columns_cells(FILE *out, const pk_tree_options *o, pk_index node)
{
    char cell[48];
    if (o->calls) {
        pk_format_number(cell, sizeof cell, o->calls[node], NULL);
        fprintf(out, "  %*s", CALLS_WIDTH, cell);
    }
    for (size_t c = 1; c < o->n_columns; c++) {
        double v = o->columns[c].inclusive[node];
        if (isnan(v)) /* x/0 of a derived metric */
            snprintf(cell, sizeof cell, "-");
        else
            pk_format_number(cell, sizeof cell, v, o->columns[c].numbers);
        fprintf(out, "  %*s", (int)width_of(o, c), cell);
    }
}
