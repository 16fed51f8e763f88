/*
 * fuzz/fuzz_expr.c — libFuzzer target for derived-metric expressions
 * (analysis/expr.c): any text either parses or fails with a message; a
 * parsed expression evaluates on any values without reading past its
 * names, and its names are as many as it says.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profkit/analysis.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size), text[size] = 0; /* a command line's text ends at a NUL */
    pk_expr *e;
    if (pk_expr_parse(text, &e) == PK_OK) {
        size_t n = pk_expr_var_count(e);
        double *vars = malloc((n ? n : 1) * sizeof *vars);
        for (size_t i = 0; vars && i < n; i++) {
            if (!pk_expr_var_name(e, i)) abort();
            vars[i] = (double)i - 1; /* 0 among them: x/0 */
        }
        if (vars) (void)pk_expr_eval(e, vars);
        if (pk_expr_var_name(e, n)) abort();
        free(vars);
        pk_expr_free(e);
    } else if (!*pk_error_last()) {
        abort(); /* a failure says why */
    }
    free(text);
    return 0;
}
