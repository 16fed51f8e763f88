/*
 * fuzz/fuzz_pattern.c — libFuzzer target for user regular expressions
 * (util/pattern.c): any text either compiles or fails with a message, and
 * a compiled pattern matches any name without reading past it, in the
 * bounds pattern.h states. Input: one flags byte, the expression up to
 * the first NUL, then the name.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profkit/pattern.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    unsigned flags = data[0] & 1 ? PK_PATTERN_ICASE : 0;
    const uint8_t *rest = data + 1, *nul = memchr(rest, 0, size - 1);
    size_t n_expr = nul ? (size_t)(nul - rest) : size - 1;
    char *expr = malloc(n_expr + 1);
    if (!expr) return 0;
    memcpy(expr, rest, n_expr), expr[n_expr] = 0;
    size_t n_name = nul ? size - 1 - n_expr - 1 : 0;
    char *name = malloc(n_name + 1); /* exactly its bytes: ASan sees any overread */
    if (!name) return free(expr), 0;
    if (n_name) memcpy(name, nul + 1, n_name);
    pk_pattern *re = NULL;
    if (pk_pattern_compile(expr, flags, &re) == PK_OK) {
        int hit = -1;
        pk_status st = pk_pattern_match(re, name, n_name, &hit);
        if (st == PK_OK && hit != 0 && hit != 1) abort();
        if (st != PK_OK && st != PK_ERR_LIMIT) abort();
        pk_pattern_free(re);
    } else if (!*pk_error_last() || re) {
        abort(); /* a failure says why, and gives nothing back */
    }
    free(expr), free(name);
    return 0;
}
