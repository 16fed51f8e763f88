/*
 * output/cells.h — table cells the text renderers (tree.c, frames.c)
 * share.
 */
#ifndef PK_OUTPUT_CELLS_H
#define PK_OUTPUT_CELLS_H

#include <stdio.h>

/* "     3.025  43.1%": a compact value and its share of `total` ("-" when
 * the total is 0), 17 columns. */
void pk_write_value_share(FILE *out, double v, double total);

#endif /* PK_OUTPUT_CELLS_H */
