/*
 * formats/cube/tar.c — indexing the members of a .cubex tar archive in
 * place. CubeW writes plain ustar headers; other tools may add pax
 * ('x') or GNU long-name ('L') headers, so both are understood. CubeW
 * 4.8 sometimes writes wrong header checksums (pycubexr ChangeLog 1.2.1):
 * those are reported as warnings and the member is read anyway, since
 * every other field of such headers is intact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tar.h"
#include "util/error.h"
#include "util/vec.h"

#define BLOCK 512u

static int is_zero_block(const unsigned char *h)
{
    for (unsigned i = 0; i < BLOCK; i++)
        if (h[i]) return 0;
    return 1;
}

/* Octal field (NUL/space terminated), or GNU base-256 when the high bit
 * of the first byte is set. -1 when malformed. */
static int64_t tar_number(const unsigned char *f, size_t len)
{
    uint64_t v = 0;
    if (f[0] & 0x80) {
        if (f[0] != 0x80) return -1; /* negative or too large */
        for (size_t i = 1; i < len; i++) {
            if (v >> 55) return -1;
            v = v << 8 | f[i];
        }
        return (int64_t)v;
    }
    size_t i = 0;
    while (i < len && f[i] == ' ')
        i++;
    int digits = 0;
    for (; i < len && f[i] >= '0' && f[i] <= '7'; i++, digits++) {
        if (v >> 60) return -1;
        v = v << 3 | (uint64_t)(f[i] - '0');
    }
    for (; i < len; i++)
        if (f[i] != ' ' && f[i] != 0) return -1;
    return digits ? (int64_t)v : (len && (f[0] == 0 || f[0] == ' ') ? 0 : -1);
}

/* 1 if the stored checksum matches (unsigned or historic signed sum). */
static int checksum_ok(const unsigned char *h)
{
    int64_t stored = tar_number(h + 148, 8);
    uint64_t us = 0;
    int64_t ss = 0;
    for (unsigned i = 0; i < BLOCK; i++) {
        unsigned char c = i >= 148 && i < 156 ? ' ' : h[i];
        us += c;
        ss += (signed char)c;
    }
    return stored >= 0 && ((uint64_t)stored == us || stored == ss);
}

static int has_magic(const unsigned char *h)
{
    return memcmp(h + 257, "ustar", 5) == 0;
}

int cube_tar_looks_like(const unsigned char *d, uint64_t n)
{
    return n >= BLOCK && (has_magic(d) || checksum_ok(d)) && tar_number(d + 124, 12) >= 0;
}

/* The value of `key` in a pax extended header's records, into out. */
static int pax_value(const unsigned char *d, uint64_t n, const char *key, char *out, size_t size)
{
    size_t klen = strlen(key);
    uint64_t i = 0;
    while (i < n) {
        uint64_t len = 0, j = i;
        while (j < n && d[j] >= '0' && d[j] <= '9' && len < n)
            len = len * 10 + (d[j++] - '0');
        if (j >= n || d[j] != ' ' || len == 0 || len > n - i) return 0;
        const unsigned char *rec = d + j + 1, *end = d + i + len;
        if ((uint64_t)(end - rec) > klen + 1 && memcmp(rec, key, klen) == 0 && rec[klen] == '=') {
            size_t vlen = (size_t)(end - rec - klen - 2); /* minus '=' and '\n' */
            if (vlen >= size) vlen = size - 1;
            memcpy(out, rec + klen + 1, vlen);
            out[vlen] = 0;
            return 1;
        }
        i += len;
    }
    return 0;
}

/* State carried from a pax/GNU header to the member it describes. */
typedef struct pending {
    char name[256];
    int64_t size; /* -1: none */
} pending;

static pk_status add_member(cube_tar *t, size_t *cap, const char *name, const unsigned char *d,
                            uint64_t off, uint64_t size)
{
    if (pk_vec_reserve((void **)&t->m, cap, t->n + 1, sizeof *t->m))
        return pk_fail_nomem("indexing a tar archive");
    cube_member *m = &t->m[t->n++];
    while (name[0] == '.' && name[1] == '/') /* "./anchor.xml" */
        name += 2;
    snprintf(m->name, sizeof m->name, "%s", name);
    m->data = d + off, m->size = size, m->offset = off;
    return PK_OK;
}

/* The member name of a ustar header: prefix "/" name. */
static void header_name(const unsigned char *h, char *out, size_t size)
{
    char name[101], prefix[156];
    memcpy(name, h, 100), name[100] = 0;
    memcpy(prefix, h + 345, 155), prefix[155] = 0;
    size_t n = 0;
    if (has_magic(h) && prefix[0] && memcmp(h + 257, "ustar ", 6) != 0) { /* not GNU */
        size_t l = strlen(prefix);
        memcpy(out, prefix, l), out[l] = '/', n = l + 1;
    }
    size_t l = strlen(name);
    if (n + l >= size) l = size - 1 - n;
    memcpy(out + n, name, l), out[n + l] = 0;
}

static pk_status bad_header(const char *file, uint64_t off, const char *what)
{
    return pk_fail(PK_ERR_FORMAT, "%s: tar header at byte %llu: %s", file, (unsigned long long)off,
                   what);
}

/* One header at `off`; advances *off past it and its data. */
static pk_status one_header(const char *file, const unsigned char *d, uint64_t n, uint64_t *off,
                            cube_tar *t, size_t *cap, pending *pend)
{
    const unsigned char *h = d + *off;
    int64_t size = tar_number(h + 124, 12);
    if (size < 0) return bad_header(file, *off, "the size field is not a number");
    if (!checksum_ok(h)) {
        if (!has_magic(h))
            return bad_header(file, *off, "neither a valid checksum nor ustar magic");
        if (!t->n_bad_checksums++) t->first_bad = *off;
    }
    uint64_t data = *off + BLOCK;
    if (pend->size >= 0) size = pend->size;
    if ((uint64_t)size > n - data)
        return pk_fail(PK_ERR_FORMAT,
                       "%s: tar member at byte %llu declares %lld bytes but only %llu remain "
                       "(truncated archive)",
                       file, (unsigned long long)*off, (long long)size,
                       (unsigned long long)(n - data));
    char type = (char)h[156];
    *off = data + (((uint64_t)size + BLOCK - 1) / BLOCK) * BLOCK;
    if (type == 'L') { /* GNU long name for the next member */
        size_t len = (size_t)size < sizeof pend->name ? (size_t)size : sizeof pend->name - 1;
        memcpy(pend->name, d + data, len), pend->name[len] = 0;
        return PK_OK;
    }
    if (type == 'x') { /* pax extended header for the next member */
        char sz[32];
        pax_value(d + data, (uint64_t)size, "path", pend->name, sizeof pend->name);
        if (pax_value(d + data, (uint64_t)size, "size", sz, sizeof sz)) {
            char *end;
            unsigned long long v = strtoull(sz, &end, 10);
            if (*end || end == sz) return bad_header(file, data, "pax size is not a number");
            pend->size = (int64_t)(v > INT64_MAX ? INT64_MAX : v);
        }
        return PK_OK;
    }
    char name[256];
    if (pend->name[0])
        snprintf(name, sizeof name, "%s", pend->name);
    else
        header_name(h, name, sizeof name);
    pend->name[0] = 0, pend->size = -1;
    if (type != '0' && type != 0 && type != '7') return PK_OK; /* dirs, links, global pax */
    return add_member(t, cap, name, d, data, (uint64_t)size);
}

pk_status cube_tar_index(pk_profile *p, const char *file, const unsigned char *d, uint64_t n,
                         cube_tar *out)
{
    cube_tar t = {0};
    size_t cap = 0;
    pending pend = {{0}, -1};
    uint64_t off = 0;
    pk_status st = PK_OK;
    if (!cube_tar_looks_like(d, n)) st = bad_header(file, 0, "not a tar archive");
    while (!st) {
        if (off >= n || n - off < BLOCK) {
            t.truncated = 1;
            break;
        }
        if (is_zero_block(d + off)) break;
        st = one_header(file, d, n, &off, &t, &cap, &pend);
    }
    if (!st && t.n_bad_checksums)
        pk_model_diag(p, PK_SEV_WARNING, "tar-checksum", file, "tar header", 1, t.first_bad,
                      "%u of %zu tar headers have a wrong checksum (a known CubeW 4.8 bug); "
                      "their members are read anyway",
                      t.n_bad_checksums, t.n);
    if (st) {
        cube_tar_free(&t);
        return st;
    }
    *out = t;
    return PK_OK;
}

void cube_tar_free(cube_tar *t)
{
    free(t->m);
    memset(t, 0, sizeof *t);
}

const cube_member *cube_tar_find(const cube_tar *t, const char *name)
{
    const cube_member *found = NULL;
    for (size_t i = 0; i < t->n; i++) /* the last copy wins, as tar extracts */
        if (strcmp(t->m[i].name, name) == 0) found = &t->m[i];
    return found;
}
