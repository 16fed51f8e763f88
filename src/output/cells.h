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
/* (A NaN total: the value alone, its share left blank.) */

/* Indentation of a tree row at `depth` (2 columns a level) that leaves a
 * name at least 24 of `width` columns after `fixed` columns of values (no
 * limit when width is 0). Deeper rows stay at the deepest indentation
 * and say their depth in `mark` ("[23] "), else mark is "". */
unsigned pk_tree_indent(unsigned depth, unsigned width, unsigned fixed, char *mark, size_t size);

/* Columns a tree adds after its metric's inclusive and self values
 * (columns.c): the call counts, then the further metrics' inclusive
 * values. Their width, their headers, one node's cells. */
unsigned pk_columns_width(const pk_tree_options *o);
void pk_columns_header(FILE *out, const pk_tree_options *o);
void pk_columns_cells(FILE *out, const pk_tree_options *o, pk_index node);

/* A context's kind and relation as the tree documents spell them
 * ("function", "inlined-call"), for JSON and CSV (tree.c). */
const char *pk_kind_name(pk_context_kind kind);
const char *pk_relation_name(pk_relation relation);

#endif /* PK_OUTPUT_CELLS_H */
