/*
 * output/format.c — numbers as text: exact (for JSON and dumps) and
 * compact (for human-facing tables).
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

size_t pk_format_value(char *buf, size_t size, double v)
{
    double a = fabs(v);
    if (v == 0.0) return (size_t)snprintf(buf, size, "0");
    if (a >= 1e6 || a < 1e-3) return (size_t)snprintf(buf, size, "%.3e", v);
    if (a >= 1000) return (size_t)snprintf(buf, size, "%.0f", v);
    return (size_t)snprintf(buf, size, "%.4g", v);
}

void pk_write_value_share(FILE *out, double v, double total)
{
    char buf[32];
    pk_format_value(buf, sizeof buf, v);
    if (total != 0.0)
        fprintf(out, "%10s %5.1f%%", buf, 100.0 * v / total);
    else
        fprintf(out, "%10s %6s", buf, "-");
}
