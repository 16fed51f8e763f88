/*
 * formats/callgrind/read.c — opening Callgrind, Cachegrind and Xdebug
 * profile data files: detection, the files of one run (a base name whose
 * siblings are name.N / name-TT / name.N-TT), plain files streamed from a
 * mapping in windows whose pages are released behind the parser, and
 * gzip-compressed files inflated in chunks. Memory stays bounded by the
 * call graph, never by the file size.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "callgrind.h"
#include "cgrd.h"
#include "util/error.h"
#include "util/gzip.h"
#include "util/mapfile.h"
#include "util/parallel.h"

#define WINDOW   (16u << 20)
#define GZ_CHUNK (4u << 20)
#define MAX_LINE (256u << 20)

static int starts_with(const unsigned char *d, size_t n, const char *s)
{
    size_t l = strlen(s);
    return n >= l && memcmp(d, s, l) == 0;
}

int cg_detect(const unsigned char *d, size_t n)
{
    if (n > 2047) n = 2047;
    if (starts_with(d, n, "# callgrind format")) return 1;
    for (size_t i = 0; i < n; i++) {
        if (i && d[i - 1] != '\n') continue;
        if (starts_with(d + i, n - i, "events:") || starts_with(d + i, n - i, "creator:") ||
            starts_with(d + i, n - i, "positions:"))
            return 1;
    }
    return 0;
}

/* Detect a gzip file by inflating its beginning. */
static int detect_gzip(const unsigned char *d, uint64_t n)
{
    unsigned char out[2048];
    return cg_detect(out, pk_gunzip_head(d, n, out, sizeof out));
}

int cg_detect_file(const char *path)
{
    pk_mapfile m;
    if (pk_path_is_dir(path) || pk_map_file(path, &m)) {
        pk_error_clear();
        return 0;
    }
    int ok = pk_is_gzip(m.data, m.size) ? detect_gzip(m.data, m.size) : cg_detect(m.data, m.size);
    pk_unmap_file(&m);
    return ok;
}

/* Where the header of a plain file ends: the start of its first line
 * that is neither blank, a comment nor "key: value" (a name line, a cost
 * line); the file's size if none. */
static uint64_t header_end(const char *data, uint64_t size)
{
    for (const char *s = data, *end = data + size; s < end;) {
        const char *k = cgp_skip_space(s, end);
        while (k < end && ((unsigned)((*k | 32) - 'a') < 26 || *k == '_'))
            k++;
        int header = k == end || *k == '\n' || *k == '\r' || *k == '#' || (k > s && *k == ':');
        if (!header) return (uint64_t)(s - data);
        const char *nl = memchr(k, '\n', (size_t)(end - k));
        s = nl ? nl + 1 : end;
    }
    return size;
}

/* Big files whose costs are kept per function or per line: tokenized on
 * the other cores (pipeline.c). The parser reads the header first, which
 * says how many subpositions a cost line starts with (by function, the
 * tokenizer only checks their syntax) and, by line, which column holds
 * the line (the tokenizer cuts runs where it changes). */
static pk_status feed_parallel(cg_parser *ps, const pk_mapfile *m, unsigned threads)
{
    uint64_t start = header_end((const char *)m->data, m->size);
    size_t used = 0;
    pk_status st = cgp_feed(ps, (const char *)m->data, (size_t)start, 0, start == m->size, &used);
    if (st || used == m->size) return st;
    uint32_t split = ps->b->by_function ? CG_NO_COLUMN : cgp_line_column(ps);
    return cg_feed_parallel(ps, m, used, split, threads);
}

static pk_status feed_plain(cg_parser *ps, const pk_mapfile *m)
{
    /* a check (keep going) reads line by line */
    unsigned workers = ps->b->threads ? ps->b->threads : pk_workers_for(m->size);
    if ((ps->b->by_function || ps->b->by_line) && !(ps->flags & PK_OPEN_KEEP_GOING) && workers > 1)
        return feed_parallel(ps, m, workers - 1);
    pk_release rel;
    pk_release_start(&rel, m);
    uint64_t off = 0;
    uint64_t window = WINDOW;
    pk_status st = PK_OK;
    while (!st && off < m->size) {
        uint64_t len = m->size - off < window ? m->size - off : window;
        int final = off + len == m->size;
        size_t used;
        st = cgp_feed(ps, (const char *)m->data + off, (size_t)len, off, final, &used);
        if (!st && used == 0) window *= 2; /* a line longer than the window */
        off += used;
        pk_release_advance(&rel, m->data + off);
    }
    pk_release_finish(&rel, m->data + off);
    return st;
}

typedef struct gz_in {
    z_stream z;
    unsigned char *buf;
    size_t len, cap;
    uint64_t offset; /* uncompressed offset of buf[0] */
} gz_in;

/* Inflate more into the buffer; *end set at the end of the data. */
static pk_status gz_fill(gz_in *g, const char *path, const pk_mapfile *m, int *end)
{
    if (g->len == g->cap) {
        if (g->cap >= MAX_LINE)
            return pk_fail(PK_ERR_FORMAT, "%s: a line longer than %u MB (byte offset %llu)", path,
                           MAX_LINE >> 20, (unsigned long long)g->offset);
        unsigned char *b = realloc(g->buf, g->cap * 2);
        if (!b) return pk_fail_nomem("inflating");
        g->buf = b, g->cap *= 2;
    }
    g->z.next_out = g->buf + g->len;
    g->z.avail_out = (uInt)(g->cap - g->len);
    int r = inflate(&g->z, Z_NO_FLUSH);
    g->len = g->cap - g->z.avail_out;
    if (r == Z_STREAM_END) {
        const unsigned char *next = g->z.next_in;
        if (g->z.avail_in && pk_is_gzip(next, g->z.avail_in)) { /* another member */
            inflateReset(&g->z);
            return PK_OK;
        }
        *end = 1;
        return PK_OK;
    }
    if (r == Z_OK || (r == Z_BUF_ERROR && g->z.avail_in)) return PK_OK;
    return pk_fail(PK_ERR_FORMAT, "%s: damaged gzip data near compressed byte %llu (%s)", path,
                   (unsigned long long)(g->z.next_in - (const unsigned char *)m->data),
                   r == Z_BUF_ERROR ? "truncated"
                   : g->z.msg       ? g->z.msg
                                    : "inflate error");
}

static pk_status feed_gzip(cg_parser *ps, const pk_mapfile *m, const char *path)
{
    gz_in g;
    memset(&g, 0, sizeof g);
    g.cap = GZ_CHUNK;
    g.buf = malloc(g.cap);
    if (!g.buf || inflateInit2(&g.z, 15 + 32) != Z_OK) {
        free(g.buf);
        return pk_fail_nomem("inflating");
    }
    g.z.next_in = (unsigned char *)m->data;
    g.z.avail_in = (uInt)(m->size > UINT32_MAX ? UINT32_MAX : m->size);
    uint64_t left = m->size - g.z.avail_in;
    pk_status st = PK_OK;
    int end = 0;
    while (!st && !end) {
        st = gz_fill(&g, path, m, &end);
        if (!g.z.avail_in && left) { /* inputs beyond 4 GB: next slice */
            uInt n = (uInt)(left > UINT32_MAX ? UINT32_MAX : left);
            g.z.next_in = (unsigned char *)m->data + (m->size - left), g.z.avail_in = n, left -= n;
        }
        size_t used = 0;
        if (!st) st = cgp_feed(ps, (const char *)g.buf, g.len, g.offset, end, &used);
        memmove(g.buf, g.buf + used, g.len - used);
        g.len -= used, g.offset += used;
    }
    inflateEnd(&g.z);
    free(g.buf);
    return st;
}

static pk_status read_one(cg_build *b, const char *path, const pk_mapfile *mem, uint32_t flags)
{
    pk_profile *p = b->p;
    const char *file = pk_intern_cstr(&p->strings, path), *base = file ? strrchr(file, '/') : NULL;
    if (!file) return pk_fail_nomem("opening");
    /* the profile's own copy: `path` may be a run file name freed after the open */
    pk_source_rec *src = pk_model_add_source(p, base ? base + 1 : file);
    pk_mapfile m;
    pk_status st = mem ? PK_OK : pk_map_file(path, &m);
    if (st) return st;
    if (mem) m = *mem;
    if (src) src->present = src->loaded = 1, src->size = m.size, src->major = 1;
    cg_parser ps;
    cgp_init(&ps, b, file, flags);
    st = pk_is_gzip(m.data, m.size) ? feed_gzip(&ps, &m, path) : feed_plain(&ps, &m);
    if (!st) st = cgp_end(&ps);
    cgp_free(&ps);
    if (!mem) pk_unmap_file(&m);
    return st;
}

/* name.N, name-TT, name.N-TT...: what callgrind writes for dumps and threads. */
static int run_suffix(const char *s)
{
    if (!*s) return 0;
    while (*s) {
        if (*s != '.' && *s != '-') return 0;
        s++;
        if ((unsigned)(*s - '0') >= 10) return 0;
        while ((unsigned)(*s - '0') < 10)
            s++;
    }
    return 1;
}

static int cmp_names(const void *a, const void *b)
{
    return strverscmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* The files of the run whose base name is `path` (sorted), or none. */
static pk_status run_files(const char *path, char ***out, size_t *n_out)
{
    *out = NULL, *n_out = 0;
    char dir[4096];
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
             slash ? path : ".");
    DIR *d = opendir(dir);
    if (!d) return PK_OK;
    size_t n = 0, cap = 0, blen = strlen(base);
    char **names = NULL;
    pk_status st = PK_OK;
    for (struct dirent *e; !st && (e = readdir(d));) {
        if (strncmp(e->d_name, base, blen) || !run_suffix(e->d_name + blen)) continue;
        if (n == cap) {
            char **nn = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *nn);
            if (!nn)
                st = pk_fail_nomem("listing a run's files");
            else
                names = nn;
        }
        if (!st && asprintf(&names[n], "%s/%s", dir, e->d_name) < 0) st = pk_fail_nomem("listing");
        if (!st) n++;
    }
    closedir(d);
    if (st) {
        free_names(names, n);
        return st;
    }
    if (n) qsort(names, n, sizeof *names, cmp_names);
    *out = names, *n_out = n;
    return PK_OK;
}

int cg_detect_path(const char *path)
{
    if (cg_detect_file(path)) return 1;
    if (pk_path_is_dir(path)) return 0;
    char **names;
    size_t n;
    if (run_files(path, &names, &n)) {
        pk_error_clear();
        return 0;
    }
    int ok = n > 0 && cg_detect_file(names[0]);
    free_names(names, n);
    return ok;
}

static pk_status finish_profile(cg_build *b, const char *path, pk_status st)
{
    pk_profile *p = b->p;
    /* the model's growing tables belong to the profile from now on */
    void *blocks[] = {p->files, p->modules, p->functions};
    for (size_t i = 0; i < 3; i++)
        if (blocks[i] && pk_model_adopt_owned(p, blocks[i]) && !st) st = PK_ERR_NOMEM;
    if (st == PK_ERR_NOMEM && !*pk_error_last()) st = pk_fail_nomem("opening");
    if (st) return st;
    p->format = PK_FORMAT_CALLGRIND;
    p->format_name = "callgrind";
    p->major = 1, p->minor = 0;
    p->path = pk_intern_cstr(&p->strings, path);
    if (b->cg->n_parts) {
        p->title = b->cg->parts[0].cmd;
        p->description = b->cg->parts[0].creator;
    }
    return cgb_finish(b); /* diagnostics are finished with the model */
}

static pk_status open_files(const char *path, char **files, size_t n, const pk_mapfile *mem,
                            const pk_open_options *opts, pk_profile **out)
{
    pk_profile *p;
    pk_status st = pk_model_new(&p);
    if (st) return st;
    cg_build b;
    uint32_t flags = opts ? opts->flags : 0;
    st = cgb_init(&b, p, opts);
    p->path = path;
    for (size_t i = 0; i < n && !st; i++)
        st = read_one(&b, files[i], mem, flags);
    st = finish_profile(&b, path, st);
    cgb_free(&b);
    if (st) {
        pk_profile_free(p);
        return st;
    }
    *out = p;
    return PK_OK;
}

pk_status cg_open(const char *path, const pk_open_options *opts, pk_profile **out)
{
    if (cg_detect_file(path)) {
        char *one[] = {(char *)path};
        return open_files(path, one, 1, NULL, opts, out);
    }
    char **names;
    size_t n;
    pk_status st = run_files(path, &names, &n);
    if (st) return st;
    if (!n) return pk_fail(PK_ERR_UNKNOWN_FORMAT, "%s: not a Callgrind file", path);
    st = open_files(path, names, n, NULL, opts, out);
    free_names(names, n);
    return st;
}

pk_status cg_open_memory(const char *name, const void *data, uint64_t size,
                         const pk_open_options *opts, pk_profile **out)
{
    pk_mapfile m = {data ? data : (const void *)"", size, 0};
    char *one[] = {(char *)(name ? name : "memory")};
    return open_files(one[0], one, 1, &m, opts, out);
}
