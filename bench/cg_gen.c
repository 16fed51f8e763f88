/*
 * bench/cg_gen.c — write a large synthetic Callgrind file shaped like what
 * valgrind 3.19 writes with --dump-instr=yes --compress-strings=yes
 * --compress-pos=yes and a cache simulation: name compression, positions
 * "instr line" with relative subpositions, 8 events, call arcs with
 * inclusive costs, a totals: line per part.
 *
 *   cg-gen OUT [--mb SIZE] [--functions N] [--threads T] [--seed X]
 *   cg-gen OUT --shape chain [--functions N]
 *   cg-gen OUT --shape wide [--functions N] [--events E]
 *
 * SIZE (default 512) is the approximate output size in MB, split over T
 * parts (default 1). Deterministic for a seed. Each part's totals: equals
 * the sum of its self costs, so `profkit check` reports nothing and
 * callgrind_annotate's totals can be compared; call costs are synthetic
 * (not the callee's real inclusive cost), which no reader checks.
 *
 * The other shapes are the hostile inputs of issue 19, with exact
 * inclusive costs: `chain` is one call chain N functions deep (main calls
 * f1 calls f2 ...); `wide` is such a chain of N functions (default 20,000)
 * under E events (default 4,096), each cost line writing all E columns,
 * zero but for the function's own event (number mod E): a file that
 * gzips ~1000:1 while a reader that stores what the events line could
 * hold needs N x E values.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_EVENTS 8

typedef struct gen {
    FILE *f;
    uint64_t rng;
    uint32_t n_fn, n_files, n_objs;
    uint8_t *fn_named, *file_named, *obj_named;
    uint64_t totals[N_EVENTS];
    uint64_t bytes;
} gen;

static uint64_t next(gen *g)
{
    g->rng ^= g->rng << 13, g->rng ^= g->rng >> 7, g->rng ^= g->rng << 17;
    return g->rng;
}

/* Skewed pick: a few hot functions get most of the calls. */
static uint32_t pick_function(gen *g)
{
    uint64_t r = next(g);
    return (uint32_t)((r % 8 ? r % 64 : r >> 8) % g->n_fn);
}

static void name(gen *g, const char *key, uint8_t *named, uint32_t id, const char *fmt)
{
    if (named[id]) {
        g->bytes += (uint64_t)fprintf(g->f, "%s=(%u)\n", key, id + 1);
        return;
    }
    named[id] = 1;
    g->bytes += (uint64_t)fprintf(g->f, "%s=(%u) ", key, id + 1);
    g->bytes += (uint64_t)fprintf(g->f, fmt, id);
    g->bytes += (uint64_t)fprintf(g->f, "\n");
}

static void costs(gen *g, uint64_t *c, int self)
{
    uint64_t ir = 1 + next(g) % 40;
    c[0] = ir, c[1] = next(g) % (ir + 1), c[2] = next(g) % (ir / 2 + 1);
    c[3] = next(g) % 4 == 0, c[4] = next(g) % 16 == 0, c[5] = next(g) % 32 == 0;
    c[6] = next(g) % 64 == 0, c[7] = next(g) % 128 == 0;
    for (int e = 0; self && e < N_EVENTS; e++)
        g->totals[e] += c[e];
}

static void put_costs(gen *g, const uint64_t *c)
{
    int last = N_EVENTS; /* trailing zero costs are left out, as callgrind does */
    while (last > 1 && c[last - 1] == 0)
        last--;
    for (int e = 0; e < last; e++)
        g->bytes += (uint64_t)fprintf(g->f, " %" PRIu64, c[e]);
    g->bytes += (uint64_t)fprintf(g->f, "\n");
}

/* One function body: cost lines, now and then a call with its cost line. */
static void function_block(gen *g, uint32_t fn)
{
    uint32_t obj = fn % g->n_objs, file = fn % g->n_files;
    name(g, "ob", g->obj_named, obj, "/usr/lib/libgen%u.so");
    name(g, "fl", g->file_named, file, "/src/gen/module%u.c");
    name(g, "fn", g->fn_named, fn, "gen_function_%u");
    uint64_t c[N_EVENTS];
    int lines = 4 + (int)(next(g) % 24);
    g->bytes +=
        (uint64_t)fprintf(g->f, "0x%" PRIx64 " %u", 0x400000 + (uint64_t)fn * 4096, 10 + fn % 5000);
    costs(g, c, 1), put_costs(g, c);
    for (int i = 0; i < lines; i++) {
        if (next(g) % 6 == 0) {
            uint32_t callee = pick_function(g);
            name(g, "cob", g->obj_named, callee % g->n_objs, "/usr/lib/libgen%u.so");
            name(g, "cfi", g->file_named, callee % g->n_files, "/src/gen/module%u.c");
            name(g, "cfn", g->fn_named, callee, "gen_function_%u");
            g->bytes +=
                (uint64_t)fprintf(g->f, "calls=%" PRIu64 " 0x%" PRIx64 " %u\n", 1 + next(g) % 1000,
                                  0x400000 + (uint64_t)callee * 4096, 10 + callee % 5000);
            g->bytes += (uint64_t)fprintf(g->f, "+%d *", (int)(next(g) % 7) + 1);
            costs(g, c, 0);
            for (int e = 0; e < N_EVENTS; e++)
                c[e] *= 50; /* inclusive costs of the call */
            put_costs(g, c);
        }
        g->bytes +=
            (uint64_t)fprintf(g->f, "+%d %s", (int)(next(g) % 7) + 1, next(g) % 3 ? "*" : "+1");
        costs(g, c, 1), put_costs(g, c);
    }
    g->bytes += (uint64_t)fprintf(g->f, "\n");
}

static void part(gen *g, uint32_t t, uint32_t threads, uint64_t limit)
{
    memset(g->totals, 0, sizeof g->totals);
    memset(g->fn_named, 0, g->n_fn), memset(g->file_named, 0, g->n_files);
    memset(g->obj_named, 0, g->n_objs);
    g->bytes += (uint64_t)fprintf(g->f,
                                  "%sversion: 1\ncreator: callgrind-3.19.0\npid: 4242\n"
                                  "cmd: ./generated --size big\npart: %u\n",
                                  t ? "\n" : "# callgrind format\n", t + 1);
    if (threads > 1) g->bytes += (uint64_t)fprintf(g->f, "thread: %u\n", t + 1);
    g->bytes += (uint64_t)fprintf(g->f, "desc: I1 cache: 32768 B, 64 B, 8-way associative\n"
                                        "desc: Timerange: Basic block 0 - 1000000\n"
                                        "desc: Trigger: Program termination\n\n"
                                        "positions: instr line\n"
                                        "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr\n\n");
    while (g->bytes < limit)
        function_block(g, pick_function(g));
    g->bytes += (uint64_t)fprintf(g->f, "totals:");
    for (int e = 0; e < N_EVENTS; e++)
        g->bytes += (uint64_t)fprintf(g->f, " %" PRIu64, g->totals[e]);
    g->bytes += (uint64_t)fprintf(g->f, "\n");
}

/* How many j in [0, m) have j % ne == e. */
static uint64_t below(uint64_t m, uint32_t ne, uint32_t e)
{
    return m / ne + (e < m % ne);
}

/* A chain of n functions, fn i calling fn i + 1, each with a self cost
 * of 1 in event i % ne (ne > 1: every event a column); the call's
 * inclusive cost is what functions i + 1 .. n - 1 cost. */
static void chain(FILE *f, uint32_t n, uint32_t ne)
{
    fprintf(f, "# callgrind format\nversion: 1\ncreator: cg-gen\npositions: line\nevents:");
    for (uint32_t e = 0; e < ne; e++)
        fprintf(f, ne > 1 ? " E%u" : " Ir", e);
    fprintf(f, "\n\nfl=(1) chain.c\n");
    for (uint32_t i = 0; i < n; i++) {
        fprintf(f, "fn=(%u) %s%u\n1", i + 1, i ? "f" : "main", i);
        for (uint32_t e = 0; e < ne; e++)
            fprintf(f, " %d", e == i % ne);
        if (i + 1 < n) {
            fprintf(f, "\ncfn=(%u) f%u\ncalls=1 1\n2", i + 2, i + 1);
            for (uint32_t e = 0; e < ne; e++)
                fprintf(f, " %llu", (unsigned long long)(below(n, ne, e) - below(i + 1, ne, e)));
        }
        fprintf(f, "\n\n");
    }
}

static int shaped(const char *out, const char *shape, uint32_t n, uint32_t ne)
{
    FILE *f = fopen(out, "w");
    if (!f) return perror(out), 1;
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    chain(f, n, strcmp(shape, "wide") ? 1 : ne);
    if (fclose(f) != 0) return perror(out), 1;
    fprintf(stderr, "cg-gen: wrote %s: a %s of %u functions\n", out, shape, n);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: cg-gen OUT [--mb SIZE] [--functions N] [--threads T] [--seed X]\n"
                        "       cg-gen OUT --shape chain|wide [--functions N] [--events E]\n");
        return 2;
    }
    uint64_t mb = 512, seed = 42;
    uint32_t n_fn = 20000, threads = 1, n_events = 4096;
    const char *shape = NULL;
    for (int i = 2; i + 1 < argc; i += 2) {
        unsigned long long v = strtoull(argv[i + 1], NULL, 10);
        if (strcmp(argv[i], "--shape") == 0 &&
            (!strcmp(argv[i + 1], "chain") || !strcmp(argv[i + 1], "wide")))
            shape = argv[i + 1];
        else if (strcmp(argv[i], "--events") == 0)
            n_events = (uint32_t)(v ? v : 1);
        else if (strcmp(argv[i], "--mb") == 0)
            mb = v;
        else if (strcmp(argv[i], "--functions") == 0)
            n_fn = (uint32_t)(v ? v : 1);
        else if (strcmp(argv[i], "--threads") == 0)
            threads = (uint32_t)(v ? v : 1);
        else if (strcmp(argv[i], "--seed") == 0)
            seed = v ? v : 1;
        else
            return fprintf(stderr, "cg-gen: unknown option %s\n", argv[i]), 2;
    }
    if (shape) return shaped(argv[1], shape, n_fn, n_events);
    gen g = {.rng = seed * 0x9E3779B97F4A7C15ull | 1, .n_fn = n_fn};
    g.n_files = n_fn / 20 + 1, g.n_objs = n_fn / 500 + 1;
    g.fn_named = calloc(g.n_fn, 1), g.file_named = calloc(g.n_files, 1);
    g.obj_named = calloc(g.n_objs, 1);
    g.f = fopen(argv[1], "w");
    if (!g.f || !g.fn_named || !g.file_named || !g.obj_named) return perror(argv[1]), 1;
    setvbuf(g.f, NULL, _IOFBF, 1 << 20);
    for (uint32_t t = 0; t < threads; t++)
        part(&g, t, threads, mb * 1000000 * (t + 1) / threads);
    int failed = fclose(g.f) != 0;
    free(g.fn_named), free(g.file_named), free(g.obj_named); /* leak-free under ASan */
    if (failed) return perror(argv[1]), 1;
    fprintf(stderr, "cg-gen: wrote %s: %.1f MB, %u parts, %u functions\n", argv[1], g.bytes / 1e6,
            threads, n_fn);
    return 0;
}
