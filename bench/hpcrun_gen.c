/*
 * bench/hpcrun_gen.c — synthetic hpcrun measurement directories at scale
 * (10^3 to 10^5 *.hpcrun files, optional *.hpctrace), for benchmarking
 * `profkit convert MEAS.m -o DB.d` serially, with threads and with MPI
 * ranks (bench/bench_mpi.sh), and for the MPI build's tests. No real
 * directory of that size exists here.
 *
 *   pk-hpcrun-gen OUT.m [--files N] [--threads T] [--ranks-per-node R]
 *                 [--nodes K] [--metrics M] [--trace S] [--seed X] [--force]
 *
 * The files are 04.00 profiles as hpcrun writes them (footer-indexed
 * sections, sparse values, identifier tuple NODE(GEN LOCAL host) RANK
 * THREAD) named as hpcrun names them (PROG-RANK-THREAD-HOST-PID-GEN), so
 * name order is rank, then thread. The calling-context trees have a
 * realistic shape: every thread samples call paths of one program — a
 * call tree of about 4K call sites in five load modules (the application,
 * libmpi, libgomp, libm, libc), chains 5-40 deep grown by extending recent
 * paths — with skewed (hot path) sampling that shifts with the rank, so
 * threads share most of their contexts and each has a tail of its own; K
 * nodes per file (default 1000), M metrics (CPUTIME as a real, the others
 * integer counts with a period), idleness under NoActvty, and with
 * --trace S records per trace. Deterministic for a seed: the same
 * arguments always give the same bytes.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct gen_opts {
    const char *out;
    uint32_t files, threads, per_node, nodes, metrics, trace;
    uint64_t seed;
    int force;
} gen_opts;

/* ---- deterministic randomness ---- */

static uint64_t rng_state;

static uint64_t rng(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t below(uint32_t n)
{
    return n ? (uint32_t)(rng() % n) : 0;
}

/* Skewed choice in [0, n): small indexes much more likely (hot code). */
static uint32_t skewed(uint32_t n)
{
    double u = (double)(rng() >> 11) / 9007199254740992.0;
    uint32_t i = (uint32_t)(u * u * u * n);
    return i < n ? i : n - 1;
}

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "pk-hpcrun-gen: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

/* ---- the program: one call tree every thread samples from ---- */

enum { N_MODULES = 5, TMPL_MAX_DEPTH = 40 };
static const char *const module_paths[N_MODULES] = {
    "/opt/app/bin/solver", "/opt/app/lib/libmpi.so.40", "/opt/app/lib/libgomp.so.1",
    "/opt/app/lib/libm.so.6", "/opt/app/lib/libc.so.6"};

typedef struct tnode {
    uint32_t parent, depth;
    uint16_t lm;
    uint64_t ip;
} tnode;

typedef struct program {
    tnode *n;
    uint32_t count;
    uint32_t *leaves, n_leaves; /* where samples land: every node, hottest first */
} program;

static uint16_t module_at(uint32_t depth)
{
    if (depth < 4) return 1;
    uint32_t r = below(100);
    return r < 70 ? 1 : r < 80 ? 2 : r < 88 ? 3 : r < 94 ? 4 : 5;
}

/* Chains grow from recent nodes (deep call paths), now and then from any
 * earlier node, preferring the first ones (the program's hot skeleton). */
static void make_program(program *pg, uint32_t size)
{
    pg->n = malloc((size_t)size * sizeof *pg->n);
    pg->leaves = malloc((size_t)size * sizeof *pg->leaves);
    if (!pg->n || !pg->leaves) die("out of memory", NULL);
    pg->n[0] = (tnode){UINT32_MAX, 0, 1, 0x4010}; /* main's first call site */
    pg->count = 1;
    uint32_t last = 0;
    while (pg->count < size) {
        uint32_t parent = below(4) ? last : skewed(pg->count);
        if (pg->n[parent].depth >= TMPL_MAX_DEPTH - 1 || below(16) == 0) parent = skewed(pg->count);
        if (pg->n[parent].depth >= TMPL_MAX_DEPTH - 1) parent = 0;
        uint32_t i = pg->count++;
        uint32_t depth = pg->n[parent].depth + 1;
        pg->n[i] =
            (tnode){parent, depth, module_at(depth), 0x1000 + (uint64_t)i * 0x24 + below(16)};
        last = i;
    }
    for (uint32_t i = 0; i < size; i++) /* deeper nodes first: samples land in leaves */
        pg->leaves[i] = size - 1 - i;
    pg->n_leaves = size;
}

/* ---- one file being built ---- */

typedef struct fnode {
    uint32_t id, parent_id;
    uint16_t lm;
    uint64_t ip;
    uint64_t count; /* samples landed here */
} fnode;

typedef struct file_state {
    fnode *nodes;
    uint32_t n, cap;
    uint32_t *slot_of; /* template node -> index in nodes + 1 (0: absent) */
    uint32_t *touched; /* template nodes set in slot_of, to reset */
    uint32_t n_touched;
    uint32_t *path;
} file_state;

static uint32_t add_node(file_state *f, uint32_t parent_id, uint16_t lm, uint64_t ip)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 1024;
        f->nodes = realloc(f->nodes, (size_t)f->cap * sizeof *f->nodes);
        if (!f->nodes) die("out of memory", NULL);
    }
    uint32_t id = 2 * f->n + 3; /* hpcrun's ids: unique, any order; 1 is ^Primary */
    f->nodes[f->n++] = (fnode){id, parent_id, lm, ip, 0};
    return f->n - 1;
}

/* The path of template node t under the fence, added as needed. */
static uint32_t sample_path(file_state *f, const program *pg, uint32_t t, uint32_t fence)
{
    uint32_t depth = 0;
    for (uint32_t x = t; x != UINT32_MAX && !f->slot_of[x]; x = pg->n[x].parent)
        f->path[depth++] = x;
    if (!depth) return f->slot_of[t] - 1;
    uint32_t top = pg->n[f->path[depth - 1]].parent;
    uint32_t parent = top == UINT32_MAX ? fence : f->slot_of[top] - 1;
    while (depth--) {
        uint32_t x = f->path[depth];
        parent = add_node(f, f->nodes[parent].id, pg->n[x].lm, pg->n[x].ip);
        f->slot_of[x] = parent + 1;
        f->touched[f->n_touched++] = x;
    }
    return parent;
}

/* ---- big-endian output ---- */

typedef struct obuf {
    unsigned char *d;
    size_t n, cap;
} obuf;

static void need(obuf *b, size_t k)
{
    if (b->n + k <= b->cap) return;
    while (b->cap < b->n + k)
        b->cap = b->cap ? 2 * b->cap : 1 << 16;
    b->d = realloc(b->d, b->cap);
    if (!b->d) die("out of memory", NULL);
}

static void put(obuf *b, uint64_t v, int bytes)
{
    need(b, (size_t)bytes);
    for (int i = bytes - 1; i >= 0; i--)
        b->d[b->n++] = (unsigned char)(v >> (8 * i));
}

static void put_str(obuf *b, const char *s)
{
    size_t len = strlen(s);
    put(b, len, 4);
    need(b, len);
    memcpy(b->d + b->n, s, len);
    b->n += len;
}

static uint64_t bits_of(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* ---- the .hpcrun 04.00 image ---- */

typedef struct who {
    uint32_t rank, thread, host, pid;
    uint64_t t0, t1;
} who;

static void put_header(obuf *b, const who *w)
{
    char v[11][48];
    snprintf(v[0], sizeof v[0], "%u", w->rank);
    snprintf(v[1], sizeof v[1], "%u", w->thread);
    snprintf(v[2], sizeof v[2], "%08x", w->host);
    snprintf(v[3], sizeof v[3], "%u", w->pid);
    snprintf(v[4], sizeof v[4], "%llu", (unsigned long long)w->t0);
    snprintf(v[5], sizeof v[5], "%llu", (unsigned long long)w->t1);
    const char *kv[][2] = {{"program-name", "solver"},
                           {"program-path", "/opt/app/bin/solver"},
                           {"env-path", "/usr/local/bin:/usr/bin:/bin"},
                           {"job-id", "4242"},
                           {"mpi-rank", v[0]},
                           {"thread-id", v[1]},
                           {"host-id", v[2]},
                           {"process-id", v[3]},
                           {"trace-min-time", v[4]},
                           {"trace-max-time", v[5]},
                           {"trace-disorder", "0"}};
    need(b, 24);
    memcpy(b->d + b->n, "HPCRUN-profile____04.00b", 24), b->n += 24;
    put(b, sizeof kv / sizeof *kv, 4);
    for (size_t i = 0; i < sizeof kv / sizeof *kv; i++)
        put_str(b, kv[i][0]), put_str(b, kv[i][1]);
}

static void put_metrics(obuf *b, uint32_t n_metrics)
{
    put(b, n_metrics, 4);
    for (uint32_t m = 0; m < n_metrics; m++) {
        char name[64];
        if (m == 0)
            snprintf(name, sizeof name, "CPUTIME (sec)");
        else
            snprintf(name, sizeof name, "PAPI_EVENT_%u", m);
        put_str(b, name), put_str(b, name);
        /* type raw, value type 0, format real/int, move2proc, partner, show, show % */
        unsigned char flags[16] = {1, 0, m == 0 ? 2 : 1, 0, 0, 0, 1, 1};
        need(b, 16);
        memcpy(b->d + b->n, flags, 16), b->n += 16;
        put(b, m == 0 ? 1 : 1000003ull * m, 8); /* period */
        put_str(b, ""), put_str(b, "");
        put(b, 0, 2), put(b, 0, 2), put(b, 0, 8), put(b, 0, 8);
    }
}

static void put_iddict(obuf *b)
{
    static const char *const kinds[] = {"SUMMARY",   "NODE",       "RANK",      "THREAD",
                                        "GPUDEVICE", "GPUCONTEXT", "GPUSTREAM", "CORE"};
    put(b, 8, 2);
    for (int k = 0; k < 8; k++)
        put(b, (uint64_t)k, 2), put_str(b, kinds[k]);
}

/* Sparse values: per node with samples, one word per metric. */
static void put_sparse(obuf *b, const file_state *f, const who *w, uint32_t n_metrics)
{
    put(b, 3, 2);
    put(b, 1u | 1u << 14, 2), put(b, w->host, 8), put(b, 0, 8); /* NODE, generated id */
    put(b, 2u | 3u << 14, 2), put(b, w->rank, 8), put(b, w->rank, 8);
    put(b, 3u | 3u << 14, 2), put(b, w->thread, 8), put(b, w->thread, 8);
    uint32_t nz = 0;
    for (uint32_t i = 0; i < f->n; i++)
        nz += f->nodes[i].count != 0;
    put(b, (uint64_t)nz * n_metrics, 8);
    put(b, nz, 4);
    for (uint32_t i = 0; i < f->n; i++) {
        uint64_t c = f->nodes[i].count;
        if (!c) continue;
        for (uint32_t m = 0; m < n_metrics; m++) {
            put(b, m == 0 ? bits_of((double)c * 0.005) : c * (m + 1), 8);
            put(b, m, 2);
        }
    }
    uint64_t start = 0;
    for (uint32_t i = 0; i < f->n; i++) {
        if (!f->nodes[i].count) continue;
        put(b, f->nodes[i].id, 4), put(b, start, 8);
        start += n_metrics;
    }
    put(b, 0x656E6421, 4), put(b, start, 8);
}

static void put_hpcrun(obuf *b, const file_state *f, const who *w, uint32_t n_metrics)
{
    uint64_t at[12];
    b->n = 0;
    at[0] = 0;
    put_header(b, w);
    at[1] = at[2] = b->n;
    put(b, N_MODULES, 4);
    for (int m = 0; m < N_MODULES; m++)
        put(b, (uint64_t)m + 1, 2), put_str(b, module_paths[m]), put(b, 1, 8);
    at[3] = at[4] = b->n;
    put(b, f->n, 8);
    for (uint32_t i = 0; i < f->n; i++) {
        const fnode *x = &f->nodes[i];
        put(b, x->id, 4), put(b, x->parent_id, 4), put(b, x->lm, 2), put(b, x->ip, 8);
        put(b, 1, 1);
    }
    at[5] = at[6] = b->n;
    put_metrics(b, n_metrics);
    at[7] = at[8] = b->n;
    put_iddict(b);
    at[9] = at[10] = b->n;
    put_sparse(b, f, w, n_metrics);
    at[11] = b->n;
    uint64_t footer = b->n;
    for (int k = 0; k < 12; k++)
        put(b, at[k], 8);
    put(b, footer, 8), put(b, 0x48504352554E736Dull, 8);
}

/* ---- one thread's measurement ---- */

#define PH_PRIMARY 0x5e5072696d617279ull /* ^Primary */
#define PH_MAIN    0x7c204d61696e2020ull /* | Main   */
#define PH_THREAD  0x7c20546872656164ull /* | Thread */
#define PH_IDLE    0x4e6f416374767479ull /* NoActvty */

static void build_file(file_state *f, const program *pg, const gen_opts *o, const who *w)
{
    for (uint32_t i = 0; i < f->n_touched; i++)
        f->slot_of[f->touched[i]] = 0;
    f->n = f->n_touched = 0;
    add_node(f, 0, 0, PH_PRIMARY);
    f->nodes[0].id = 1;
    uint32_t idle = add_node(f, 1, 0, PH_IDLE);
    uint32_t fence = add_node(f, 1, 0, w->thread ? PH_THREAD : PH_MAIN);
    f->nodes[idle].count = 1 + below(4);
    /* each rank's hot spots are shifted a little: load imbalance */
    uint32_t shift = (w->rank * 7919u) % (pg->n_leaves / 8 + 1);
    for (uint32_t s = 0; f->n < o->nodes && s < 64u * o->nodes; s++) {
        uint32_t k = (skewed(pg->n_leaves) + shift) % pg->n_leaves;
        uint32_t at = sample_path(f, pg, pg->leaves[k], fence);
        f->nodes[at].count += 1 + below(3);
    }
}

static void put_trace(obuf *b, const file_state *f, const who *w, uint32_t n)
{
    b->n = 0;
    need(b, 32);
    memcpy(b->d, "HPCRUN-trace______01.01b", 24), b->n = 24;
    put(b, 0, 8); /* flags */
    uint64_t t = w->t0, step = (w->t1 - w->t0) / (n ? n : 1);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = below(f->n - 1) + 1; /* any node but ^Primary; NoActvty is idle */
        put(b, t, 8), put(b, f->nodes[k].id, 4);
        t += step / 2 + below((uint32_t)(step ? step : 1));
    }
}

static void write_all(const char *path, const obuf *b)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) die(path, strerror(errno));
    size_t done = 0;
    while (done < b->n) {
        ssize_t k = write(fd, b->d + done, b->n - done);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) die(path, strerror(errno));
        done += (size_t)k;
    }
    if (close(fd) != 0) die(path, strerror(errno));
}

static uint64_t generate(const gen_opts *o)
{
    program pg;
    make_program(&pg, 4 * o->nodes + 64);
    file_state f = {0};
    f.slot_of = calloc(pg.count, sizeof *f.slot_of);
    f.touched = malloc((size_t)pg.count * sizeof *f.touched);
    f.path = malloc((size_t)(TMPL_MAX_DEPTH + 2) * sizeof *f.path);
    if (!f.slot_of || !f.touched || !f.path) die("out of memory", NULL);
    obuf b = {0};
    uint64_t bytes = 0;
    char path[4096];
    for (uint32_t i = 0; i < o->files; i++) {
        uint32_t rank = i / o->threads;
        who w = {rank,        i % o->threads,         0x0a000001u + rank / o->per_node,
                 4000 + rank, 1714000000000000000ull, 1714000000000000000ull + 5000000000ull};
        build_file(&f, &pg, o, &w);
        put_hpcrun(&b, &f, &w, o->metrics);
        snprintf(path, sizeof path, "%s/solver-%06u-%03u-%08x-%u-0.hpcrun", o->out, w.rank,
                 w.thread, w.host, w.pid);
        write_all(path, &b);
        bytes += b.n;
        if (!o->trace) continue;
        put_trace(&b, &f, &w, o->trace);
        snprintf(path, sizeof path, "%s/solver-%06u-%03u-%08x-%u-0.hpctrace", o->out, w.rank,
                 w.thread, w.host, w.pid);
        write_all(path, &b);
        bytes += b.n;
    }
    free(pg.n), free(pg.leaves), free(f.nodes), free(f.slot_of), free(f.touched), free(f.path);
    free(b.d);
    return bytes;
}

/* ---- arguments ---- */

static int usage(void)
{
    fprintf(stderr, "usage: pk-hpcrun-gen OUT.m [--files N] [--threads T] [--ranks-per-node R]\n"
                    "                     [--nodes K] [--metrics M] [--trace S] [--seed X] "
                    "[--force]\n");
    return 2;
}

static int number(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || v > max || s[0] == '-') return 0;
    *out = v;
    return 1;
}

static int parse(int argc, char **argv, gen_opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        uint64_t v = 0;
        uint32_t *to = !strcmp(a, "--files")            ? &o->files
                       : !strcmp(a, "--threads")        ? &o->threads
                       : !strcmp(a, "--ranks-per-node") ? &o->per_node
                       : !strcmp(a, "--nodes")          ? &o->nodes
                       : !strcmp(a, "--metrics")        ? &o->metrics
                       : !strcmp(a, "--trace")          ? &o->trace
                                                        : NULL;
        if (to || !strcmp(a, "--seed")) {
            if (i + 1 >= argc || !number(argv[++i], to ? 10000000 : UINT64_MAX, &v)) return 0;
            if (to)
                *to = (uint32_t)v;
            else
                o->seed = v;
        } else if (!strcmp(a, "--force"))
            o->force = 1;
        else if (a[0] != '-' && !o->out)
            o->out = a;
        else
            return 0;
    }
    return o->out && o->files && o->threads && o->per_node && o->nodes >= 8 && o->metrics &&
           o->metrics <= 64;
}

/* --force: remove what an earlier run wrote (solver-*.hpcrun/.hpctrace). */
static void clear_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) die(dir, strerror(errno));
    char path[4096];
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        int ours = !strncmp(e->d_name, "solver-", 7) &&
                   ((n > 7 && !strcmp(e->d_name + n - 7, ".hpcrun")) ||
                    (n > 9 && !strcmp(e->d_name + n - 9, ".hpctrace")));
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (ours && unlink(path) != 0) die(path, strerror(errno));
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    gen_opts o = {NULL, 1000, 4, 8, 1000, 2, 0, 1, 0};
    if (!parse(argc, argv, &o)) return usage();
    if (mkdir(o.out, 0755) != 0 && !(errno == EEXIST && o.force)) die(o.out, strerror(errno));
    if (o.force) clear_dir(o.out);
    rng_state = o.seed;
    uint64_t bytes = generate(&o);
    printf("%s: %u profiles%s, %.1f MB\n", o.out, o.files, o.trace ? " and traces" : "",
           (double)bytes / 1e6);
    return 0;
}
