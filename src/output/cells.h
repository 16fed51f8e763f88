/*
 * output/cells.h — table cells the text renderers (tree.c, frames.c)
 * share.
 */
#ifndef PK_OUTPUT_CELLS_H
#define PK_OUTPUT_CELLS_H

#include <stdio.h>

#include "profkit/output.h"

/* "     3.025  43.1%": a value for people in format f (NULL: a count) and
 * its share of `total` ("-" when the total is 0), 17 columns. */
void pk_write_value_share(FILE *out, double v, double total, const pk_number_format *f);

/* Indentation of a tree row at `depth` (2 columns a level) that leaves a
 * name at least 24 of `width` columns after `fixed` columns of values (no
 * limit when width is 0). Deeper rows stay at the deepest indentation
 * and say their depth in `mark` ("[23] "), else mark is "". */
unsigned pk_tree_indent(unsigned depth, unsigned width, unsigned fixed, char *mark, size_t size);

#endif /* PK_OUTPUT_CELLS_H */
