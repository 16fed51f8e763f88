/*
 * formats/cube/dtype.c — Cube data types: value sizes (CubeLib's
 * Cube*Value::getSize), and how composite values (COMPLEX, RATE,
 * TAU_ATOMIC, NDOUBLES(n), HISTOGRAM(n)) unfold into one model metric per
 * component, each combining across locations its own way; decoding
 * stored values of every type into doubles.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cube.h"
#include "values.h"

static const struct {
    const char *name;
    cube_dt dt;
    uint32_t size;
    pk_combine combine;
} scalar_types[] = {
    {"DOUBLE", DT_F64, 8, PK_COMBINE_SUM},
    {"FLOAT", DT_F64, 8, PK_COMBINE_SUM}, /* stored as a double */
    {"MINDOUBLE", DT_F64, 8, PK_COMBINE_MIN},
    {"MAXDOUBLE", DT_F64, 8, PK_COMBINE_MAX},
    {"INTEGER", DT_I64, 8, PK_COMBINE_SUM},
    {"INT64", DT_I64, 8, PK_COMBINE_SUM},
    {"SIGNED INTEGER", DT_I64, 8, PK_COMBINE_SUM},
    {"UINT64", DT_U64, 8, PK_COMBINE_SUM},
    {"UNSIGNED INTEGER", DT_U64, 8, PK_COMBINE_SUM},
    {"INT32", DT_I32, 4, PK_COMBINE_SUM},
    {"INT", DT_I32, 4, PK_COMBINE_SUM},
    {"SIGNED INT", DT_I32, 4, PK_COMBINE_SUM},
    {"UINT32", DT_U32, 4, PK_COMBINE_SUM},
    {"UNSIGNED INT", DT_U32, 4, PK_COMBINE_SUM},
    {"INT16", DT_I16, 2, PK_COMBINE_SUM},
    {"SHORT INT", DT_I16, 2, PK_COMBINE_SUM},
    {"SIGNED SHORT INT", DT_I16, 2, PK_COMBINE_SUM},
    {"UINT16", DT_U16, 2, PK_COMBINE_SUM},
    {"UNSIGNED SHORT INT", DT_U16, 2, PK_COMBINE_SUM},
    {"INT8", DT_I8, 1, PK_COMBINE_SUM},
    {"CHAR", DT_I8, 1, PK_COMBINE_SUM},
    {"UINT8", DT_U8, 1, PK_COMBINE_SUM},
    {"COMPLEX", DT_COMPLEX, 16, PK_COMBINE_SUM},
    {"RATE", DT_RATE, 16, PK_COMBINE_SUM},
    {"TAU_ATOMIC", DT_TAU, 36, PK_COMBINE_SUM},
};

/* n of "NAME(n)", or 0 when malformed; caps n so sizes cannot overflow. */
static uint32_t paren_count(const char *s, const char *name)
{
    size_t l = strlen(name);
    if (strncmp(s, name, l) != 0 || s[l] != '(') return 0;
    char *end;
    unsigned long n = strtoul(s + l + 1, &end, 10);
    if (end == s + l + 1 || strcmp(end, ")") != 0 || n == 0 || n > 4096) return 0;
    return (uint32_t)n;
}

cube_dtype cube_parse_dtype(const char *s)
{
    cube_dtype t = {DT_UNKNOWN, 0, 0, PK_COMBINE_SUM};
    if (!s) return t;
    for (size_t i = 0; i < sizeof scalar_types / sizeof *scalar_types; i++)
        if (strcmp(s, scalar_types[i].name) == 0) {
            t.dt = scalar_types[i].dt, t.size = scalar_types[i].size;
            t.combine = scalar_types[i].combine;
            t.n_comp = t.dt == DT_COMPLEX || t.dt == DT_RATE ? 2 : t.dt == DT_TAU ? 5 : 1;
            return t;
        }
    uint32_t n = paren_count(s, "NDOUBLES");
    if (n) return (cube_dtype){DT_NDOUBLES, 8 * n, n, PK_COMBINE_SUM};
    n = paren_count(s, "HISTOGRAM");
    if (n) return (cube_dtype){DT_HISTOGRAM, 8 * (n + 2), n + 2, PK_COMBINE_SUM};
    return t;
}

const char *cube_component_name(const cube_dtype *t, uint32_t k, char *buf, size_t size)
{
    static const char *const complex[] = {"re", "im"}, *const rate[] = {"main", "duration"};
    static const char *const tau[] = {"n", "min", "max", "sum", "sum2"};
    switch (t->dt) {
    case DT_COMPLEX:
        return complex[k % 2];
    case DT_RATE:
        return rate[k % 2];
    case DT_TAU:
        return tau[k % 5];
    case DT_HISTOGRAM:
        if (k < 2) return k ? "max" : "min";
        snprintf(buf, size, "bin%u", k - 2);
        return buf;
    case DT_NDOUBLES:
        snprintf(buf, size, "%u", k);
        return buf;
    default:
        return "";
    }
}

pk_combine cube_component_combine(const cube_dtype *t, uint32_t k)
{
    if (t->dt == DT_TAU) return k == 1 ? PK_COMBINE_MIN : k == 2 ? PK_COMBINE_MAX : PK_COMBINE_SUM;
    if (t->dt == DT_HISTOGRAM)
        return k == 0 ? PK_COMBINE_MIN : k == 1 ? PK_COMBINE_MAX : PK_COMBINE_SUM;
    return t->combine;
}

/* Values of n stored entries as doubles, n_comp per entry. */
void cube_decode(const cube_dtype *t, int swap, const unsigned char *s, size_t n, double *out)
{
    size_t i;
    switch (t->dt) {
    case DT_I8:
        for (i = 0; i < n; i++)
            out[i] = (int8_t)s[i];
        return;
    case DT_U8:
        for (i = 0; i < n; i++)
            out[i] = s[i];
        return;
    case DT_I16:
    case DT_U16:
        for (i = 0; i < n; i++) {
            uint16_t v = pk_le16(s + 2 * i);
            if (swap) v = __builtin_bswap16(v);
            out[i] = t->dt == DT_I16 ? (double)(int16_t)v : (double)v;
        }
        return;
    case DT_I32:
    case DT_U32:
        for (i = 0; i < n; i++) {
            uint32_t v = get32(s + 4 * i, swap);
            out[i] = t->dt == DT_I32 ? (double)(int32_t)v : (double)v;
        }
        return;
    case DT_I64:
        for (i = 0; i < n; i++)
            out[i] = (double)(int64_t)get64(s + 8 * i, swap);
        return;
    case DT_U64: /* beyond a double's reach: a counter that went backwards, read as 0 */
        for (i = 0; i < n; i++) {
            uint64_t v = get64(s + 8 * i, swap);
            out[i] = v > CUBE_MAX_U64_AS_DOUBLE ? 0.0 : (double)v;
        }
        return;
    case DT_TAU: /* u32 count, then min, max, sum, sum of squares (packed) */
        for (i = 0; i < n; i++) {
            const unsigned char *e = s + 36 * i;
            out[5 * i] = get32(e, swap);
            for (int k = 0; k < 4; k++) {
                uint64_t b = get64(e + 4 + 8 * k, swap);
                memcpy(&out[5 * i + 1 + k], &b, 8);
            }
        }
        return;
    default: /* DOUBLE and the all-double composites */
        n *= t->n_comp;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if (!swap) {
            memcpy(out, s, n * 8);
            return;
        }
#endif
        for (i = 0; i < n; i++) {
            uint64_t b = get64(s + 8 * i, swap);
            memcpy(&out[i], &b, 8);
        }
        return;
    }
}
