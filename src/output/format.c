/*
 * output/format.c — numbers as text: exact (for JSON and dumps), and the
 * value-and-share cell of the text tables (output/numbers.c makes the
 * human-facing number).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cells.h"
#include "profkit/output.h"

size_t pk_format_double(char *buf, size_t size, double v)
{
    /* The shortest of %.15g..%.17g that reads back to the same bits. */
    for (int prec = 15; prec <= 17; prec++) {
        int n = snprintf(buf, size, "%.*g", prec, v);
        if (prec == 17 || strtod(buf, NULL) == v) return (size_t)n;
    }
    return 0;
}

void pk_write_value_share(FILE *out, double v, double total, const pk_number_format *f)
{
    char buf[48];
    pk_format_number(buf, sizeof buf, v, f);
    if (isnan(total)) /* values that are no shares of a total (min/max metrics) */
        fprintf(out, "%10s %6s", buf, "");
    else if (total != 0.0)
        fprintf(out, "%10s %5.1f%%", buf, 100.0 * v / total);
    else
        fprintf(out, "%10s %6s", buf, "-");
}

unsigned pk_tree_indent(unsigned depth, unsigned width, unsigned fixed, char *mark, size_t size)
{
    unsigned indent = 2 * (depth > 60 ? 60 : depth);
    unsigned most = width > fixed + 24 + 6 ? width - fixed - 24 - 6 : 0; /* 6: the mark */
    mark[0] = 0;
    if (width && indent > most) {
        indent = most;
        snprintf(mark, size, "[%u] ", depth);
    } else if (!width && depth > 60) { /* no width: indented up to 60 levels, then marked */
        snprintf(mark, size, "[%u] ", depth);
    }
    return indent;
}
