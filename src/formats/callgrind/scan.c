/*
 * formats/callgrind/scan.c — the fused line scanner: the common cost line
 * ("+3 * 120 4" — subpositions, then costs) read in one pass over its
 * bytes, finding the line's end as it goes instead of a memchr() for the
 * newline and a second pass to parse. Nine lines in ten of a Callgrind
 * file are cost lines. Anything unusual (a relative cost, more costs than
 * events, a stray byte, a number that overflows) is left to the general
 * parser (parse.c), which reads it again and says what is wrong.
 */
#include "cgrd.h"

#define HEX_DIGITS(c, v) [c] = (v) + 1
const unsigned char cgs_hex_digit[256] = {
    HEX_DIGITS('0', 0),  HEX_DIGITS('1', 1),  HEX_DIGITS('2', 2),  HEX_DIGITS('3', 3),
    HEX_DIGITS('4', 4),  HEX_DIGITS('5', 5),  HEX_DIGITS('6', 6),  HEX_DIGITS('7', 7),
    HEX_DIGITS('8', 8),  HEX_DIGITS('9', 9),  HEX_DIGITS('a', 10), HEX_DIGITS('b', 11),
    HEX_DIGITS('c', 12), HEX_DIGITS('d', 13), HEX_DIGITS('e', 14), HEX_DIGITS('f', 15),
    HEX_DIGITS('A', 10), HEX_DIGITS('B', 11), HEX_DIGITS('C', 12), HEX_DIGITS('D', 13),
    HEX_DIGITS('E', 14), HEX_DIGITS('F', 15)};

static inline int blank(char c)
{
    return c == ' ' || c == '\t';
}

/* One subposition (absolute, +N, -N, '*') relative to `base`; `loose`:
 * out of range is no error (parse.c, parse_subpos()). */
static inline int subposition(const char **pp, const char *end, uint64_t base, int loose,
                              uint64_t *out)
{
    const char *p = *pp;
    uint64_t v;
    char sign = *p;
    if (sign == '*') {
        *out = base;
        *pp = p + 1;
        return 1;
    }
    if (sign == '+' || sign == '-') p++;
    if (!cgs_number(&p, end, &v)) return 0;
    if (sign == '+') {
        if (!loose && v > UINT64_MAX - base) return 0;
        v = base + v;
    } else if (sign == '-') {
        if (!loose && v > base) return 0;
        v = base - v;
    }
    *pp = p;
    *out = v;
    return 1;
}

/* End of a token: a blank or the line's end. */
static inline int token_end(const char *p, const char *end)
{
    return p >= end || blank(*p) || *p == '\n' || *p == '\r';
}

int cgs_cost_line(cg_parser *ps, const char *s, const char *end, const char **next, uint64_t *pos,
                  uint32_t *n_costs)
{
    const char *p = s;
    for (uint32_t i = 0; i < ps->n_pos; i++) {
        if (i) {
            if (p >= end) return -1;
            if (!blank(*p)) return 0;
            while (p < end && blank(*p))
                p++;
        }
        if (p >= end) return -1;
        if (!subposition(&p, end, ps->last[i], cgp_loose(ps, i), &pos[i])) return p >= end ? -1 : 0;
        if (p >= end) return -1;
        if (!token_end(p, end)) return 0;
    }
    uint32_t k = 0, n = ps->bp->n_cols;
    double *cols = ps->cols;
    for (;;) {
        while (p < end && blank(*p))
            p++;
        if (p >= end) return -1;
        if (*p == '\n') break;
        if (*p == '\r') {
            if (p + 1 >= end) return -1;
            if (p[1] == '\n') break;
            return 0;
        }
        int neg = *p == '-';
        uint64_t v;
        if (neg && ++p >= end) return -1;
        if (k >= n || !cgs_number(&p, end, &v) || v > (1ull << 63)) return 0;
        if (p >= end) return -1;
        if (!token_end(p, end)) return 0;
        cols[k++] = neg ? -(double)v : (double)v;
    }
    *next = p + (*p == '\r' ? 2 : 1);
    *n_costs = k;
    return 1;
}
