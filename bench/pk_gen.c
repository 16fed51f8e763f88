/*
 * bench/pk_gen.c — builds large, realistic HPCToolkit v4 databases for the
 * benchmarks: N profiles (threads/ranks) over a calling-context tree of M
 * contexts shaped like hpcprof's (entry point, call chains 20-60 deep of
 * function -> loop -> line contexts, inlined calls, a few hot paths and a
 * long tail), sparse point values propagated as hpcprof does, a summary
 * profile, and traces. Deterministic for a given seed.
 *
 *   pk-gen OUT.d [--profiles N] [--contexts M] [--samples S] [--traces T]
 *               [--trace-period NS] [--trace-runs R] [--seed X] [--force]
 *
 * Traces: T samples per profile, about NS apart (default 5 ms, +-20 %),
 * on the profile's sampled contexts; with R > 1 a call path lasts R
 * samples on average (a program stays in a phase), as real traces do.
 *
 * The model is built with the library's internal model helpers (the same
 * ones the readers use) and written with pk_profile_write(), so the write
 * itself is what the benchmarks time when they convert the result again.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/model.h"
#include "profkit/profkit.h"
#include "util/bytes.h"

enum { N_METRICS = 2, N_SCOPES = 4, N_COLS = N_METRICS * N_SCOPES };

typedef struct gen_opts {
    const char *out;
    uint32_t profiles, contexts, samples, traces, trace_runs;
    uint64_t trace_period;
    uint64_t seed;
    int force;
} gen_opts;

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
    return (uint32_t)(rng() % n);
}

/* Skewed choice in [0, n): small indexes much more likely (hot code). */
static uint32_t skewed(uint32_t n)
{
    double u = (double)(rng() >> 11) / 9007199254740992.0;
    uint32_t i = (uint32_t)(u * u * u * n);
    return i < n ? i : n - 1;
}

static void die(const char *what)
{
    fprintf(stderr, "pk-gen: %s: %s\n", what, pk_error_last());
    exit(1);
}

/* ---- dimensions ---- */

static void add_names(pk_profile *p)
{
    char buf[128];
    p->n_modules = 24, p->n_files = 240, p->n_functions = 600;
    p->modules = pk_arena_array(&p->arena, p->n_modules, sizeof *p->modules);
    p->files = pk_arena_array(&p->arena, p->n_files, sizeof *p->files);
    p->functions = pk_arena_array(&p->arena, p->n_functions, sizeof *p->functions);
    if (!p->modules || !p->files || !p->functions) die("allocating names");
    for (uint32_t i = 0; i < p->n_modules; i++) {
        snprintf(buf, sizeof buf,
                 i ? "/usr/lib/x86_64-linux-gnu/libsolver%u.so.%u" : "/opt/app/bin/solver", i,
                 i % 3);
        p->modules[i].path = pk_intern(&p->strings, buf, strlen(buf));
    }
    for (uint32_t i = 0; i < p->n_files; i++) {
        snprintf(buf, sizeof buf, "/src/solver/%s/part%03u.%s", i % 4 ? "kernels" : "driver", i,
                 i % 5 ? "c" : "cpp");
        p->files[i].path = pk_intern(&p->strings, buf, strlen(buf));
    }
    static const char *const stem[] = {"compute", "exchange", "reduce", "update",
                                       "solve",   "pack",     "unpack", "advance"};
    for (uint32_t i = 0; i < p->n_functions; i++) {
        snprintf(buf, sizeof buf, i ? "%s_%s_%u" : "main", stem[i % 8], i % 3 ? "block" : "level",
                 i);
        p->functions[i] = (pk_function){pk_intern(&p->strings, buf, strlen(buf)), i % p->n_modules,
                                        0x1000 + 0x40ull * i, i % p->n_files, 10 + i % 900};
    }
}

static void add_metrics(pk_profile *p)
{
    static const char *const names[N_METRICS] = {"CPUTIME (sec)", "PAPI_TOT_CYC"};
    static const struct {
        const char *name;
        pk_scope_kind kind;
        uint8_t type, prop;
    } sc[N_SCOPES] = {{"point", PK_SCOPE_POINT, 1, 255},
                      {"function", PK_SCOPE_EXCLUSIVE, 3, 0},
                      {"lex_aware", PK_SCOPE_LEX_AWARE, 0, 255},
                      {"execution", PK_SCOPE_INCLUSIVE, 2, 255}};
    p->n_metrics = N_METRICS, p->n_scopes = N_SCOPES, p->n_columns = 2 * N_COLS;
    p->metrics = pk_arena_array(&p->arena, N_METRICS, sizeof *p->metrics);
    p->scopes = pk_arena_array(&p->arena, N_SCOPES, sizeof *p->scopes);
    p->columns = pk_arena_array(&p->arena, 2 * N_COLS, sizeof *p->columns);
    if (!p->metrics || !p->scopes || !p->columns) die("allocating metrics");
    for (uint32_t m = 0; m < N_METRICS; m++)
        p->metrics[m] = (pk_metric){.name = names[m], .parent = PK_NONE};
    for (uint32_t s = 0; s < N_SCOPES; s++)
        p->scopes[s] = (pk_scope){sc[s].name, sc[s].kind, sc[s].type, sc[s].prop};
    /* plain columns: raw id = m * 4 + s; Sum statistics: the same ids, summary space */
    for (uint32_t c = 0; c < 2 * N_COLS; c++) {
        uint32_t raw = c % N_COLS, sum = c >= N_COLS;
        p->columns[c] = (pk_column){.metric = raw / N_SCOPES,
                                    .scope = raw % N_SCOPES,
                                    .is_summary = (int)sum,
                                    .stat = sum ? PK_STAT_SUM : PK_STAT_NONE,
                                    .formula = sum ? "$$" : NULL,
                                    .raw_id = raw};
        if (pk_model_map_column(p, (int)sum, raw, c)) die("mapping columns");
    }
}

/* ---- the context tree ---- */

typedef struct gnode {
    uint32_t parent, depth, function, file, line;
    uint8_t kind, relation;
} gnode;

typedef struct tree {
    gnode *n;
    uint32_t count, cap;
    uint32_t *lines; /* indexes of line nodes: where samples land */
    uint32_t n_lines;
} tree;

static uint32_t add_node(tree *t, uint32_t parent, uint8_t kind, uint8_t rel, uint32_t fn)
{
    gnode *g = &t->n[t->count];
    *g = (gnode){parent, parent == PK_NONE ? 0 : t->n[parent].depth + 1, fn, PK_NONE, 0, kind, rel};
    if (kind == PK_CTX_LOOP || kind == PK_CTX_LINE) {
        g->file = (fn * 7 + 3) % 240;
        g->line = 20 + below(2000);
    }
    if (kind == PK_CTX_LINE) t->lines[t->n_lines++] = t->count;
    return t->count++;
}

/* One call chain from `from`, about `levels` calls deep; nodes: function,
 * sometimes a loop, a line (the call site or a hot statement). */
static void add_chain(tree *t, uint32_t from, uint32_t levels)
{
    uint32_t at = from;
    for (uint32_t l = 0; l < levels && t->count + 3 <= t->cap; l++) {
        uint8_t rel = below(10) == 0 ? PK_REL_INLINED_CALL : PK_REL_CALL;
        at = add_node(t, at, PK_CTX_FUNCTION, rel, 1 + skewed(599));
        uint32_t fn = t->n[at].function;
        if (below(3) == 0) at = add_node(t, at, PK_CTX_LOOP, PK_REL_LEXICAL, fn);
        at = add_node(t, at, PK_CTX_LINE, PK_REL_LEXICAL, fn);
    }
}

static void grow_tree(tree *t, uint32_t m)
{
    t->cap = m < 16 ? 16 : m;
    t->n = malloc(t->cap * sizeof *t->n);
    t->lines = malloc(t->cap * sizeof *t->lines);
    if (!t->n || !t->lines) die("allocating the tree");
    add_node(t, PK_NONE, PK_CTX_ROOT, PK_REL_NONE, PK_NONE);
    uint32_t entry = add_node(t, 0, PK_CTX_ENTRY, PK_REL_NONE, PK_NONE);
    uint32_t main_fn = add_node(t, entry, PK_CTX_FUNCTION, PK_REL_CALL, 0);
    add_node(t, main_fn, PK_CTX_LINE, PK_REL_LEXICAL, 0);
    while (t->count + 3 <= t->cap) {
        /* start at a hot line: deep chains hang below few places */
        uint32_t from = t->lines[skewed(t->n_lines)];
        uint32_t depth = t->n[from].depth, want = 20 + below(41);
        add_chain(t, from, depth >= want ? 1 + below(3) : (want - depth) / 2 + 1);
    }
}

/* Breadth-first order (the model's) of the generated tree: order[k] is the
 * generated node at BFS position k; bfs[g] its inverse. */
static void bfs_order(const tree *t, uint32_t *order, uint32_t *bfs, uint32_t *first,
                      uint32_t *nkids)
{
    uint32_t *start = calloc(t->count + 1, sizeof *start), *kids = malloc(t->count * sizeof *kids);
    if (!start || !kids) die("ordering the tree");
    for (uint32_t i = 1; i < t->count; i++)
        start[t->n[i].parent + 1]++;
    for (uint32_t i = 0; i < t->count; i++)
        start[i + 1] += start[i];
    uint32_t *fill = malloc(t->count * sizeof *fill);
    if (!fill) die("ordering the tree");
    memcpy(fill, start, t->count * sizeof *fill);
    for (uint32_t i = 1; i < t->count; i++)
        kids[fill[t->n[i].parent]++] = i;
    uint32_t head = 0, tail = 0;
    order[tail++] = 0;
    while (head < tail) {
        uint32_t g = order[head];
        bfs[g] = head++;
        first[g] = tail;
        nkids[g] = start[g + 1] - start[g];
        for (uint32_t k = start[g]; k < start[g + 1]; k++)
            order[tail++] = kids[k];
    }
    free(start);
    free(kids);
    free(fill);
}

static void add_contexts(pk_profile *p, const tree *t, const uint32_t *order, const uint32_t *bfs,
                         const uint32_t *first, const uint32_t *nkids)
{
    for (uint32_t k = 0; k < t->count; k++) {
        const gnode *g = &t->n[order[k]];
        pk_ctx_rec *c;
        uint32_t idx;
        if (pk_model_add_context(p, &c, &idx)) die("adding contexts");
        c->id = k;
        c->parent = g->parent == PK_NONE ? PK_NONE : bfs[g->parent];
        c->depth = g->depth;
        c->first_child = nkids[order[k]] ? first[order[k]] : PK_NONE;
        c->n_children = nkids[order[k]];
        c->kind = g->kind;
        c->relation = g->relation;
        c->raw_kind = g->kind == PK_CTX_LOOP ? 1 : g->kind == PK_CTX_LINE ? 2 : 0;
        c->raw_relation = g->relation == PK_REL_CALL           ? 1
                          : g->relation == PK_REL_INLINED_CALL ? 2
                                                               : 0;
        c->propagation = g->relation == PK_REL_LEXICAL ? 1 : 0;
        if (g->kind == PK_CTX_ENTRY) {
            c->entry = PK_ENTRY_MAIN, c->raw_entry = 1;
            c->entry_name = "main thread";
        }
        if (g->kind == PK_CTX_FUNCTION) c->flags |= PK_CTXF_HAS_FUNCTION, c->function = g->function;
        if (g->file != PK_NONE)
            c->flags |= PK_CTXF_HAS_SRCLOC, c->file = g->file, c->line = g->line;
    }
    if (pk_model_index_contexts(p)) die("indexing contexts");
}

/* ---- values ---- */

typedef struct valgen {
    pk_profile *p;
    const uint32_t *hot; /* BFS indexes of line contexts, hottest first */
    uint32_t n_hot;
    double *acc, *sum; /* per context, N_COLS each: this profile / all profiles */
    uint32_t *touched, n_touched;
    unsigned char *mark;
} valgen;

static void add(valgen *g, uint32_t ctx, uint32_t col, double v)
{
    if (!g->mark[ctx]) g->mark[ctx] = 1, g->touched[g->n_touched++] = ctx;
    g->acc[(size_t)ctx * N_COLS + col] += v;
}

/* One sample at ctx, propagated as hpcprof does per thread: execution to
 * every ancestor, function (and lex_aware, equal per thread) up to the
 * nearest call. */
static void attribute(valgen *g, uint32_t ctx, uint32_t m, double v)
{
    const pk_ctx_rec *c = g->p->ctx;
    add(g, ctx, m * N_SCOPES + 0, v);
    for (uint32_t x = ctx; x != PK_NONE; x = c[x].parent)
        add(g, x, m * N_SCOPES + 3, v);
    for (uint32_t x = ctx;; x = c[x].parent) {
        add(g, x, m * N_SCOPES + 1, v);
        add(g, x, m * N_SCOPES + 2, v);
        if (c[x].relation != PK_REL_LEXICAL || c[x].parent == PK_NONE) break;
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Pack the accumulated values into a plane (ids are BFS indexes) and
 * clear the accumulators. */
static pk_plane pack_plane(valgen *g, double *into)
{
    qsort(g->touched, g->n_touched, sizeof *g->touched, cmp_u32);
    unsigned char *b = pk_model_alloc_owned(g->p, (size_t)g->n_touched *
                                                      (N_COLS * PK_LM_VAL_SIZE + PK_LM_IDX_SIZE));
    if (!b) die("allocating values");
    unsigned char *idx = b + (size_t)g->n_touched * N_COLS * PK_LM_VAL_SIZE, *v = b;
    uint64_t n = 0;
    for (uint32_t k = 0; k < g->n_touched; k++) {
        uint32_t ctx = g->touched[k];
        pk_put_le32(idx + (size_t)k * PK_LM_IDX_SIZE, ctx);
        pk_put_le64(idx + (size_t)k * PK_LM_IDX_SIZE + 4, n);
        for (uint32_t col = 0; col < N_COLS; col++) {
            double x = g->acc[(size_t)ctx * N_COLS + col];
            g->acc[(size_t)ctx * N_COLS + col] = 0;
            if (x == 0.0) continue;
            if (into) into[(size_t)ctx * N_COLS + col] += x;
            pk_put_le16(v, (uint16_t)col);
            pk_put_le64(v + 2, pk_f64_bits(x));
            v += PK_LM_VAL_SIZE, n++;
        }
        g->mark[ctx] = 0;
    }
    memmove(b + n * PK_LM_VAL_SIZE, idx, (size_t)g->n_touched * PK_LM_IDX_SIZE);
    pk_plane pl = {b, b + n * PK_LM_VAL_SIZE, n, g->n_touched};
    g->n_touched = 0;
    return pl;
}

static void add_trace(pk_profile *p, uint32_t loc, const uint32_t *ctxs, uint32_t n_ctxs,
                      uint32_t n, uint64_t t0, const gen_opts *o)
{
    unsigned char *s = pk_model_alloc_owned(p, (size_t)n * PK_SAMPLE_SIZE + 1);
    if (!s) die("allocating traces");
    uint64_t t = t0 + below(1000000), step = o->trace_period - o->trace_period / 5;
    uint32_t spread = (uint32_t)(o->trace_period / 5 * 2), ctx = 0;
    for (uint32_t k = 0; k < n; k++) {
        t += step + (spread ? below(spread) : 0); /* the sampling period, +-20 % */
        /* a new call path at every sample, or on average every trace_runs */
        if (k == 0 || o->trace_runs <= 1 || below(o->trace_runs) == 0) ctx = ctxs[below(n_ctxs)];
        pk_put_le64(s + (size_t)k * PK_SAMPLE_SIZE, t);
        pk_put_le32(s + (size_t)k * PK_SAMPLE_SIZE + 8, ctx);
    }
    p->traces[p->n_traces] = (pk_trace_rec){loc, s, n};
    p->locs[loc].trace = p->n_traces++;
    if (n && t > p->trace_end) p->trace_end = t;
}

static const char *const kind_names[] = {"SUMMARY",   "NODE",       "RANK",      "THREAD",
                                         "GPUDEVICE", "GPUCONTEXT", "GPUSTREAM", "CORE"};

static void add_locations(pk_profile *p, valgen *g, const gen_opts *o)
{
    p->n_locs = o->profiles + 1;
    p->locs = pk_arena_array(&p->arena, p->n_locs, sizeof *p->locs);
    p->traces = pk_arena_array(&p->arena, p->n_locs, sizeof *p->traces);
    pk_ident *ids = pk_arena_array(&p->arena, 2 * (size_t)o->profiles + 1, sizeof *ids);
    uint32_t *picked = malloc((o->samples + 1) * sizeof *picked);
    if (!p->locs || !p->traces || !ids || !picked) die("allocating locations");
    p->id_kind_names = (const char **)kind_names;
    p->n_id_kinds = 8;
    uint64_t t0 = 1714000000ull * 1000000000ull;
    p->trace_begin = t0, p->trace_end = t0, p->has_trace_range = o->traces > 0;
    for (uint32_t i = 1; i <= o->profiles; i++) {
        pk_ident *id = &ids[2 * (i - 1)];
        id[0] = (pk_ident){2, "RANK", 0, (i - 1) / 4, 0};
        id[1] = (pk_ident){3, "THREAD", 0, (i - 1) % 4, 0};
        for (uint32_t s = 0; s < o->samples; s++) {
            uint32_t ctx = picked[s] = g->hot[skewed(g->n_hot)];
            double cpu = 0.001 * (1 + below(500)) * (1.0 + (i % 7) / 10.0);
            attribute(g, ctx, 0, cpu);
            attribute(g, ctx, 1, cpu * 2.6e9);
        }
        p->locs[i] = (pk_loc_rec){i, 0, 2, id, pack_plane(g, g->sum), PK_NONE};
        if (o->traces) add_trace(p, i, picked, o->samples, o->traces, t0, o);
        if (i % 10000 == 0) fprintf(stderr, "\rpk-gen: %u profiles", i);
    }
    /* the summary: Sum of each column over the threads, in summary ids */
    for (uint32_t ctx = 0; ctx < p->n_ctx; ctx++) {
        int any = 0;
        for (uint32_t c = 0; c < N_COLS; c++)
            any |= g->sum[(size_t)ctx * N_COLS + c] != 0.0;
        if (!any) continue;
        g->touched[g->n_touched++] = ctx;
        g->mark[ctx] = 1;
        memcpy(&g->acc[(size_t)ctx * N_COLS], &g->sum[(size_t)ctx * N_COLS],
               N_COLS * sizeof(double));
    }
    p->locs[0] = (pk_loc_rec){0, 1, 0, NULL, pack_plane(g, NULL), PK_NONE};
    free(picked);
}

static void parse(int argc, char **argv, gen_opts *o)
{
    *o = (gen_opts){NULL, 1000, 100000, 8, 50, 1, 5000000, 1, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        unsigned long long v = i + 1 < argc ? strtoull(argv[i + 1], NULL, 0) : 0;
        if (!strcmp(a, "--profiles"))
            o->profiles = (uint32_t)v, i++;
        else if (!strcmp(a, "--contexts"))
            o->contexts = (uint32_t)v, i++;
        else if (!strcmp(a, "--samples"))
            o->samples = (uint32_t)v, i++;
        else if (!strcmp(a, "--traces"))
            o->traces = (uint32_t)v, i++;
        else if (!strcmp(a, "--trace-runs"))
            o->trace_runs = (uint32_t)v, i++;
        else if (!strcmp(a, "--trace-period"))
            o->trace_period = v, i++;
        else if (!strcmp(a, "--seed"))
            o->seed = v, i++;
        else if (!strcmp(a, "--force"))
            o->force = 1;
        else if (a[0] != '-' && !o->out)
            o->out = a;
        else {
            fprintf(stderr, "usage: pk-gen OUT.d [--profiles N] [--contexts M] [--samples S] "
                            "[--traces T] [--trace-period NS] [--trace-runs R] [--seed X] "
                            "[--force]\n");
            exit(2);
        }
    }
    if (!o->out || !o->profiles || o->contexts < 16 || !o->samples) {
        fprintf(stderr, "pk-gen: need OUT.d, --profiles >= 1, --contexts >= 16, --samples >= 1\n");
        exit(2);
    }
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    gen_opts o;
    parse(argc, argv, &o);
    rng_state = o.seed;
    double t0 = seconds();
    pk_profile *p;
    if (pk_model_new(&p)) die("creating the model");
    p->format_name = "synthetic";
    p->title = "pk-gen synthetic database";
    add_names(p);
    add_metrics(p);
    tree t = {0};
    grow_tree(&t, o.contexts);
    uint32_t *order = malloc(4 * (size_t)t.count * sizeof *order);
    if (!order) die("allocating");
    bfs_order(&t, order, order + t.count, order + 2 * (size_t)t.count, order + 3 * (size_t)t.count);
    add_contexts(p, &t, order, order + t.count, order + 2 * (size_t)t.count,
                 order + 3 * (size_t)t.count);
    valgen g = {.p = p, .n_hot = t.n_lines};
    g.hot = malloc(t.n_lines * sizeof *g.hot);
    g.acc = calloc((size_t)p->n_ctx * N_COLS, sizeof *g.acc);
    g.sum = calloc((size_t)p->n_ctx * N_COLS, sizeof *g.sum);
    g.touched = malloc(p->n_ctx * sizeof *g.touched);
    g.mark = calloc(p->n_ctx, 1);
    if (!g.hot || !g.acc || !g.sum || !g.touched || !g.mark) die("allocating");
    for (uint32_t i = 0; i < t.n_lines; i++)
        ((uint32_t *)g.hot)[i] = order[t.count + t.lines[i]]; /* generated -> BFS index */
    add_locations(p, &g, &o);
    double t1 = seconds();
    pk_write_options wo = {.flags = o.force ? PK_WRITE_FORCE : 0};
    pk_write_stats st;
    if (pk_profile_write(p, PK_FORMAT_HPCTOOLKIT_V4, o.out, &wo, &st)) die(o.out);
    double t2 = seconds();
    fprintf(stderr,
            "\rpk-gen: %s: %u profiles, %u contexts, %llu values, %.1f MB in %u files; "
            "built in %.1f s, written in %.1f s\n",
            o.out, o.profiles, p->n_ctx, (unsigned long long)st.n_values, st.bytes / 1e6,
            st.n_files, t1 - t0, t2 - t1);
    free(t.n), free(t.lines), free(order), free((void *)g.hot), free(g.acc), free(g.sum);
    free(g.touched), free(g.mark);
    pk_profile_free(p);
    return 0;
}
