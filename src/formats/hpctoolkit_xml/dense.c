/*
 * formats/hpctoolkit_xml/dense.c — the per-thread files of a legacy
 * database: dense *.metric-db values and *.hpctrace traces, alone or
 * merged by hpcviewer into experiment-1.mdb / experiment.mt.
 *
 * metric-db (big-endian, hpcprof-mpi 2.x; read the same way by hpcviewer's
 * ThreadLevelDataFile and Hatchet's read_metricdb_file):
 *   0   "HPCPROF-metricdb__" "00.10" 'b'       24 bytes
 *   24  u32 nodes, u32 metrics
 *   32  f64 value[nodes][metrics]              row k = CCT node id k + 1
 * Row 0 is hpcprof's root (node 1), which is context 0 here; column j is
 * the MetricDB with db-id j. Only non-zero values go into the model.
 *
 * hpctrace 01.01: "HPCRUN-trace______" "01.01" 'b' u64 flags (32 bytes),
 * then (u64 time, u32 trace id [, u32 metric id if flags bit 0]) records;
 * a trace id is the it attribute of a tree node (0: no context).
 *
 * .mdb / .mt (hpcviewer MergeDataFiles): u32 type, u32 n, n × (u32 rank,
 * u32 thread, u64 offset), the n files back to back, u64 0xFFFFFFFFDEADF00D.
 */
#include <stdlib.h>
#include <string.h>

#include "hx.h"
#include "util/bytes.h"
#include "util/vec.h"

#define MDB_MARKER 0xFFFFFFFFDEADF00Dull

/* The location of (rank, thread), added if new. */
static pk_status location(hx_reader *r, uint32_t rank, uint32_t thread, const char *source,
                          struct hx_loc **out)
{
    for (size_t i = 0; i < r->n_locs; i++)
        if (r->locs[i].rank == rank && r->locs[i].thread == thread) {
            *out = &r->locs[i];
            return PK_OK;
        }
    if (pk_vec_reserve((void **)&r->locs, &r->cap_locs, r->n_locs + 1, sizeof *r->locs))
        return pk_fail_nomem("adding a location");
    *out = &r->locs[r->n_locs++];
    memset(*out, 0, sizeof **out);
    (*out)->rank = rank, (*out)->thread = thread, (*out)->source = source;
    return PK_OK;
}

/* Rank and thread from a file name "<prog>-<rank>-<thread>-<host>-<pid>-<gen>.<ext>"
 * (hpcviewer MergeDataFiles: tokens 5 and 4 from the end, or one later
 * for the older names without the generation number). */
static int rank_thread_of(const char *name, uint32_t *rank, uint32_t *thread)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    const char *dot = strrchr(base, '.');
    size_t len = dot ? (size_t)(dot - base) : strlen(base);
    const char *tok[64];
    size_t lens[64], n = 0;
    for (size_t i = 0, start = 0; i <= len && n < 64; i++)
        if (i == len || base[i] == '-') tok[n] = base + start, lens[n++] = i - start, start = i + 1;
    for (int shift = 0; shift < 2; shift++) {
        if (n < 5u - (unsigned)shift) continue;
        size_t pi = n - 5 + (size_t)shift, ti = pi + 1;
        char buf[2][16];
        if (lens[pi] == 0 || lens[pi] > 9 || lens[ti] == 0 || lens[ti] > 9) continue;
        memcpy(buf[0], tok[pi], lens[pi]), buf[0][lens[pi]] = 0;
        memcpy(buf[1], tok[ti], lens[ti]), buf[1][lens[ti]] = 0;
        if (strspn(buf[0], "0123456789") != lens[pi] || strspn(buf[1], "0123456789") != lens[ti])
            continue;
        *rank = (uint32_t)strtoul(buf[0], NULL, 10), *thread = (uint32_t)strtoul(buf[1], NULL, 10);
        return 1;
    }
    return 0;
}

typedef struct dense_rows {
    const unsigned char *d; /* first value */
    uint64_t nodes, nm;
} dense_rows;

/* +0 and -0 are both "no value". */
static int nonzero(const unsigned char *e)
{
    return pk_be64(e) << 1 != 0;
}

static uint64_t row_id(uint64_t k)
{
    return k ? k + 1 : 0;
}

/* The entry points' inclusive values (Σ of their top-level nodes' rows)
 * into ent[slot × nm + j]; rows numbered like an entry point must be empty. */
static pk_status sum_entries(hx_reader *r, const hx_file *f, uint64_t at, const dense_rows *dr,
                             double *ent)
{
    for (uint64_t k = 0; k < dr->nodes; k++) {
        uint64_t id = row_id(k);
        const unsigned char *row = dr->d + k * dr->nm * 8;
        int slot = id >= 2 && id <= r->max_id ? hx_top_slot(r, id) : -1;
        for (uint64_t j = 0; j < dr->nm; j++) {
            if (!nonzero(row + j * 8)) continue;
            if (id > r->max_id && id <= r->max_id + r->n_entries)
                return hx_fail(f, "metric-db values", at + 32 + (k * dr->nm + j) * 8,
                               "node id %llu has values, but experiment.xml's tree ends at id "
                               "%llu and profkit numbers its entry points from there",
                               (unsigned long long)id, (unsigned long long)r->max_id);
            if (slot >= 0 && r->plain_incl[j])
                ent[(uint64_t)slot * dr->nm + j] += pk_be_f64(row + j * 8);
        }
    }
    return PK_OK;
}

/* Append one context's non-zero values (from a big-endian row or from
 * doubles) to the plane being filled; counts only when vals is NULL. */
typedef struct plane_out {
    unsigned char *vals, *idx;
    uint64_t nv;
    uint32_t ni;
} plane_out;

static void put_run(plane_out *o, uint64_t id, const unsigned char *row, const double *dv,
                    uint64_t nm)
{
    uint64_t start = o->nv;
    for (uint64_t j = 0; j < nm; j++) {
        double v = row ? pk_be_f64(row + j * 8) : dv[j];
        if (row ? !nonzero(row + j * 8) : v == 0) continue;
        if (o->vals) {
            pk_put_le16(o->vals + o->nv * PK_LM_VAL_SIZE, (uint16_t)j);
            pk_put_le64(o->vals + o->nv * PK_LM_VAL_SIZE + 2, pk_f64_bits(v));
        }
        o->nv++;
    }
    if (o->nv == start) return;
    if (o->idx) {
        pk_put_le32(o->idx + o->ni * PK_LM_IDX_SIZE, (uint32_t)id);
        pk_put_le64(o->idx + o->ni * PK_LM_IDX_SIZE + 4, start);
    }
    o->ni++;
}

/* Rows in id order with the entry points (ids max_id + 1 + slot) in their
 * place: counted first, then written (no allocation per value). */
static void walk_plane(hx_reader *r, const dense_rows *dr, const double *ent, plane_out *o)
{
    uint64_t k = 0;
    for (; k < dr->nodes && row_id(k) <= r->max_id; k++)
        put_run(o, row_id(k), dr->d + k * dr->nm * 8, NULL, dr->nm);
    for (unsigned s = 0; s < r->n_entries; s++)
        put_run(o, r->max_id + 1 + s, NULL, ent + s * dr->nm, dr->nm);
    for (; k < dr->nodes; k++)
        put_run(o, row_id(k), dr->d + k * dr->nm * 8, NULL, dr->nm);
}

static pk_status fill_plane(hx_reader *r, const dense_rows *dr, const double *ent,
                            struct hx_loc *loc)
{
    plane_out count = {0};
    walk_plane(r, dr, ent, &count);
    plane_out o = {pk_model_alloc_owned(r->p, count.nv * PK_LM_VAL_SIZE + 1),
                   pk_model_alloc_owned(r->p, (uint64_t)count.ni * PK_LM_IDX_SIZE + 1), 0, 0};
    if (!o.vals || !o.idx) return PK_ERR_NOMEM;
    walk_plane(r, dr, ent, &o);
    for (uint32_t i = 0; i < o.ni; i++) {
        uint64_t id = pk_le32(o.idx + i * PK_LM_IDX_SIZE);
        if (pk_model_ctx_find(r->p, id) == PK_NONE && pk_idset_add(&r->unlisted, id) < 0)
            return pk_fail_nomem("collecting context ids");
    }
    loc->plane = (pk_plane){o.vals, o.idx, o.nv, o.ni};
    return PK_OK;
}

/* Values of one metric-db image [at, at + len) of f into loc's plane. */
static pk_status read_values(hx_reader *r, const hx_file *f, uint64_t at, uint64_t len,
                             struct hx_loc *loc)
{
    const unsigned char *d = f->data + at;
    if (len < 32)
        return hx_fail(f, "metric-db header", at, "%llu bytes, the header alone is 32",
                       (unsigned long long)len);
    if (memcmp(d, "HPCPROF-metricdb__", 18) != 0)
        return hx_fail(f, "metric-db header", at, "magic is not HPCPROF-metricdb__");
    if (memcmp(d + 18, "00.10", 5) != 0 || d[23] != 'b')
        return hx_fail(f, "metric-db header", at + 18,
                       "version/endianness '%.6s' (profkit reads 00.10, big-endian 'b')",
                       (const char *)d + 18);
    uint64_t nodes = pk_be32(d + 24), nm = pk_be32(d + 28);
    if (nm != r->n_db_ids)
        return hx_fail(f, "metric-db header", at + 28,
                       "%llu metrics per node, but experiment.xml's MetricDBTable has %u",
                       (unsigned long long)nm, r->n_db_ids);
    if (nm && nodes > (len - 32) / 8 / nm)
        return hx_fail(f, "metric-db values", at + 32,
                       "%llu nodes × %llu metrics need %llu bytes, %llu are there",
                       (unsigned long long)nodes, (unsigned long long)nm,
                       (unsigned long long)(nodes * nm * 8), (unsigned long long)(len - 32));
    if (nodes >= HX_ENTRY_ID_BASE)
        return hx_fail(f, "metric-db header", at + 24, "%llu nodes: too many",
                       (unsigned long long)nodes);
    if (32 + nodes * nm * 8 != len)
        return hx_fail(f, "metric-db values", at + 32 + nodes * nm * 8,
                       "%llu bytes follow the last value",
                       (unsigned long long)(len - 32 - nodes * nm * 8));
    if (loc->plane.idx)
        return hx_fail(f, "metric-db", at, "a second metric-db file for this thread");
    dense_rows dr = {d + 32, nodes, nm};
    double *ent = calloc(3 * nm + 1, sizeof *ent);
    if (!ent) return pk_fail_nomem("reading metric-db values");
    pk_status st = sum_entries(r, f, at, &dr, ent);
    if (!st) st = fill_plane(r, &dr, ent, loc);
    free(ent);
    return st;
}

pk_status hx_read_metric_db(hx_reader *r, const hx_file *f)
{
    uint32_t rank = 0, thread = 0;
    if (!rank_thread_of(f->name, &rank, &thread))
        return hx_fail(f, "file name", 0,
                       "no -RANK-THREAD- in the name (hpcprof writes "
                       "PROG-RANK-THREAD-HOST-PID-GEN.metric-db)");
    struct hx_loc *loc;
    pk_status st = location(r, rank, thread, f->name, &loc);
    return st ? st : read_values(r, f, 0, f->size, loc);
}

/* hpctrace image [at, at + len) into loc's samples (little-endian, ns). */
static pk_status read_trace(hx_reader *r, const hx_file *f, uint64_t at, uint64_t len,
                            struct hx_loc *loc)
{
    const unsigned char *d = f->data + at;
    if (len < 24 || memcmp(d, "HPCRUN-trace______", 18) != 0)
        return hx_fail(f, "hpctrace header", at, "magic is not HPCRUN-trace______");
    if (d[23] != 'b')
        return hx_fail(f, "hpctrace header", at + 23, "endianness '%c' (profkit reads 'b')", d[23]);
    int has_flags = memcmp(d + 18, "01.00", 5) != 0;
    uint64_t hdr = has_flags ? 32 : 24, flags = 0;
    if (has_flags && memcmp(d + 18, "01.01", 5) != 0)
        return hx_fail(f, "hpctrace header", at + 18, "version '%.5s' (profkit reads 01.00, 01.01)",
                       (const char *)d + 18);
    if (len < hdr)
        return hx_fail(f, "hpctrace header", at, "truncated (%llu of %llu bytes)",
                       (unsigned long long)len, (unsigned long long)hdr);
    if (has_flags) flags = pk_be64(d + 24);
    uint64_t rec = flags & 1 ? 16 : 12, n = (len - hdr) / rec;
    if ((len - hdr) % rec)
        return hx_fail(f, "hpctrace record", at + hdr + n * rec,
                       "truncated record (%llu of %llu bytes)",
                       (unsigned long long)((len - hdr) % rec), (unsigned long long)rec);
    if (loc->trace) return hx_fail(f, "hpctrace", at, "a second trace for this thread");
    unsigned char *out = pk_model_alloc_owned(r->p, n * PK_SAMPLE_SIZE + 1);
    if (!out) return PK_ERR_NOMEM;
    double units = r->x.trace_units;
    uint64_t prev = 0;
    for (uint64_t i = 0; i < n; i++) {
        const unsigned char *e = d + hdr + i * rec;
        uint64_t t = pk_be64(e), key[PK_KMAP_WORDS] = {pk_be32(e + 8)};
        uint32_t ctx = 0;
        if (key[0] && !pk_kmap_get(&r->trace_ids, key, &ctx)) r->trace_unknown++;
        /* hpcrun 03.00+ writes ns (TraceDB u="1000000000"); other units scale */
        if (units > 0 && units != 1e9) t = (uint64_t)((double)t * (1e9 / units));
        if (t < prev) r->trace_unordered++;
        prev = t;
        pk_put_le64(out + i * PK_SAMPLE_SIZE, t);
        pk_put_le32(out + i * PK_SAMPLE_SIZE + 8, ctx);
    }
    loc->trace = out, loc->n_samples = n;
    return PK_OK;
}

pk_status hx_read_hpctrace(hx_reader *r, const hx_file *f)
{
    uint32_t rank = 0, thread = 0;
    if (!rank_thread_of(f->name, &rank, &thread))
        return hx_fail(f, "file name", 0,
                       "no -RANK-THREAD- in the name (hpcrun writes "
                       "PROG-RANK-THREAD-HOST-PID-GEN.hpctrace)");
    struct hx_loc *loc;
    pk_status st = location(r, rank, thread, f->name, &loc);
    return st ? st : read_trace(r, f, 0, f->size, loc);
}

/* The merged container: its index checked, each image handed to `read`. */
static pk_status read_merged(hx_reader *r, const hx_file *f,
                             pk_status (*read)(hx_reader *, const hx_file *, uint64_t, uint64_t,
                                               struct hx_loc *))
{
    const unsigned char *d = f->data;
    if (f->size < 16)
        return hx_fail(f, "merged file header", 0, "truncated (%llu bytes)",
                       (unsigned long long)f->size);
    if (pk_be64(d + f->size - 8) != MDB_MARKER)
        return hx_fail(f, "end marker", f->size - 8,
                       "missing (0xFFFFFFFFDEADF00D): the file is truncated or not a merged file");
    uint64_t n = pk_be32(d + 4), end = f->size - 8;
    if (n > (end - 8) / 16)
        return hx_fail(f, "merged file index", 8, "%llu entries of 16 bytes do not fit",
                       (unsigned long long)n);
    uint64_t lo = 8 + 16 * n;
    for (uint64_t i = 0; i < n; i++) {
        const unsigned char *e = d + 8 + 16 * i;
        uint64_t off = pk_be64(e + 8), next = i + 1 < n ? pk_be64(e + 24) : end;
        if (off < lo || next < off || next > end)
            return hx_fail(f, "merged file index", 8 + 16 * i + 8,
                           "entry %llu: offset 0x%llx..0x%llx is outside 0x%llx..0x%llx",
                           (unsigned long long)i, (unsigned long long)off, (unsigned long long)next,
                           (unsigned long long)lo, (unsigned long long)end);
        struct hx_loc *loc = NULL; /* set by location() when it succeeds */
        pk_status st = location(r, pk_be32(e), pk_be32(e + 4), f->name, &loc);
        if (!st) st = read(r, f, off, next - off, loc);
        if (st) return st;
        lo = next;
    }
    return PK_OK;
}

pk_status hx_read_mdb(hx_reader *r, const hx_file *f)
{
    return read_merged(r, f, read_values);
}

pk_status hx_read_mt(hx_reader *r, const hx_file *f)
{
    return read_merged(r, f, read_trace);
}
