/*
 * formats/hpctoolkit/write_par.c — the steps of a parallel build's write
 * (write_par.h): global facts, shaping, the exchange, the layout every
 * member computes from the gathered sizes, the writes, the footers last.
 *
 * Every step ends with pk_members_agree(): a member that fails (a full
 * disk, a damaged input) makes all fail at the same step, and member 0
 * removes the temporary directory. Nothing is renamed into place before
 * every member has written all its bytes; a member that dies before then
 * leaves a temporary directory whose files have no footers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/write_loss.h"
#include "util/error.h"
#include "util/outfile.h"
#include "util/wire.h"
#include "write_par.h"

#define PATH_SIZE 4096

/* Where a location of the profile is in what is written: the shaped copy
 * puts the (one) summary first and the plain locations after it in order. */
static uint32_t w_index(const pk_profile *p, int shaped, uint32_t l)
{
    if (!shaped) return l;
    uint32_t summary = PK_NONE;
    for (uint32_t i = 0; i < p->n_locs && summary == PK_NONE; i++)
        if (p->locs[i].is_summary) summary = i;
    return summary != PK_NONE && l > summary ? l : l + 1;
}

static pk_status one_summary(const pk_profile *p)
{
    uint32_t n = 0;
    for (uint32_t l = 0; l < p->n_locs; l++)
        n += (uint32_t)p->locs[l].is_summary;
    return n <= 1 ? PK_OK
                  : pk_fail(PK_ERR_UNSUPPORTED,
                            "parallel build: the profile has %u summary locations; only the serial "
                            "writer writes more than one",
                            n);
}

/* Shape as the serial writer would with every member's values: which
 * metrics have plain values, and whether some value has an unknown id,
 * are reduced over all members first. */
static pk_status shape_part(hp_state *s, const pk_profile *p, const char *target,
                            const pk_write_options *o, pk_write_stats *stats, pk_profile **q)
{
    uint64_t *any = calloc((size_t)p->n_metrics + 2, sizeof *any);
    unsigned char *has = calloc((size_t)p->n_metrics + 1, 1);
    int unknown = 0;
    pk_status st = any && has ? one_summary(p) : pk_fail_nomem("shaping");
    /* a profile written as it is needs no scan of its values (the same
     * answer on every member: every member has the whole structure) */
    if (!st && !hk_shape_native(p)) {
        hk_shape_scan_plain(p, has, &unknown);
        for (uint32_t m = 0; m < p->n_metrics; m++)
            any[m] = has[m];
        any[p->n_metrics] = (uint64_t)unknown;
    }
    st = pk_members_agree(s->m, st);
    if (!st) st = pk_members_reduce(s->m, any, p->n_metrics + 1u, PK_REDUCE_MAX);
    if (!st) {
        for (uint32_t m = 0; m < p->n_metrics; m++)
            has[m] = any[m] != 0;
        st = hk_shape_make_part(p, target, o, stats, has, any[p->n_metrics] != 0, q, &s->plan);
    }
    free(any), free(has);
    return pk_members_agree(s->m, st);
}

/* This member's locations in what is written, and its profiles' order. */
static pk_status place(hp_state *s, const pk_profile *p, int shaped, uint32_t first, uint32_t end)
{
    s->wfirst = first < end ? w_index(p, shaped, first) : 0;
    s->wend = first < end ? w_index(p, shaped, end - 1) + 1 : 0;
    pk_status st = hk_order_init(s->w, &s->order);
    for (uint32_t l = s->wfirst; l < s->wend && !st; l++)
        if (s->w->locs[l].is_summary ||
            s->order.prof_of_loc[l] != s->order.prof_of_loc[s->wfirst] + (l - s->wfirst))
            st = pk_fail(PK_ERR_UNSUPPORTED, "parallel build: a member's locations are not one "
                                             "run of plain profiles");
    return st;
}

/* ---- sizes, gathered, and the layout every member computes ---- */

typedef struct hp_layout {
    hk_prof_layout L;
    uint64_t sum_vals_before; /* summary values of the ranges before this member's */
    uint64_t sum_idx_before;
    uint64_t cct_first, cct_mine, cct_end;
    uint32_t n_traces, trace_first; /* writable traces; this member's first */
    uint32_t trace_next;            /* gathering: where the next member's traces start */
    uint64_t trace_data, trace_mine, trace_end;
    int traces, has_range;
    uint64_t lo, hi;
    uint64_t n_values, n_empty, empty_ids[8];
} hp_layout;

static int writable_trace(const pk_profile *w, const pk_trace_rec *tr)
{
    return tr->location < w->n_locs;
}

/* This member's traces: a run [*t0, *t1) of the writable ones. */
static pk_status own_traces(const hp_state *s, uint32_t *t0, uint32_t *t1, uint64_t *bytes,
                            uint64_t range[3])
{
    const pk_profile *w = s->w;
    uint32_t k = 0;
    *t0 = *t1 = UINT32_MAX, *bytes = 0;
    range[0] = w->has_trace_range, range[1] = w->trace_begin, range[2] = w->trace_end;
    for (uint32_t t = 0; t < w->n_traces; t++) {
        const pk_trace_rec *tr = &w->traces[t];
        if (!writable_trace(w, tr)) continue;
        int mine = tr->location >= s->wfirst && tr->location < s->wend;
        if (mine && *t0 == UINT32_MAX) *t0 = k;
        if (mine && *t1 != UINT32_MAX)
            return pk_fail(PK_ERR_UNSUPPORTED, "parallel build: a "
                                               "member's traces are not one run");
        if (!mine && *t0 != UINT32_MAX && *t1 == UINT32_MAX) *t1 = k;
        if (mine) *bytes += tr->n * PK_SAMPLE_SIZE;
        if (mine && tr->n && !w->has_trace_range) { /* the range from the samples */
            uint64_t a = pk_le64(tr->samples), b = pk_le64(tr->samples + (tr->n - 1) * 12);
            if (!range[0] || a < range[1]) range[1] = a;
            if (!range[0] || b > range[2]) range[2] = b;
            range[0] = 2;
        }
        k++;
    }
    if (*t0 == UINT32_MAX) *t0 = *t1 = 0;
    if (*t1 == UINT32_MAX) *t1 = k;
    return PK_OK;
}

static void put_sizes(const hp_state *s, pk_buf *b, uint32_t t0, uint32_t t1, uint64_t tbytes,
                      const uint64_t range[3])
{
    const pk_profile *w = s->w;
    uint32_t n = s->wend - s->wfirst;
    pk_wire_u32(b, n), pk_wire_u32(b, n ? s->order.prof_of_loc[s->wfirst] : 0);
    for (uint32_t l = s->wfirst; l < s->wend; l++)
        pk_wire_u64(b, w->locs[l].plane.nvals), pk_wire_u32(b, w->locs[l].plane.nidx);
    pk_wire_u64(b, s->r.sum_nvals), pk_wire_u32(b, s->r.sum_nidx);
    pk_wire_u64(b, s->r.blocks_len);
    pk_wire_u32(b, t0), pk_wire_u32(b, t1), pk_wire_u64(b, tbytes);
    for (int i = 0; i < 3; i++)
        pk_wire_u64(b, range[i]);
    pk_wire_u64(b, s->r.n_empty);
    for (int i = 0; i < 8; i++)
        pk_wire_u64(b, s->r.empty_ids[i]);
}

/* One member's record into the layout; `me`: it is this member's. */
static pk_status take_sizes(hp_layout *y, const hp_state *s, pk_wire *w, int mine)
{
    uint32_t n = pk_wire_get32(w), prof = pk_wire_get32(w);
    if (w->bad || (n && ((uint64_t)prof + n > s->order.n_profiles || prof == 0)))
        return pk_fail(PK_ERR_IO, "parallel build: sizes arrived damaged");
    for (uint32_t i = 0; i < n; i++) {
        y->L.nvals[prof + i] = pk_wire_get64(w), y->L.nidx[prof + i] = pk_wire_get32(w);
        y->n_values += y->L.nvals[prof + i];
    }
    uint64_t sv = pk_wire_get64(w), si = pk_wire_get32(w), cb = pk_wire_get64(w);
    if (mine) y->sum_vals_before = y->L.nvals[0], y->sum_idx_before = y->L.nidx[0];
    if (mine) y->cct_mine = y->cct_end;
    y->L.nvals[0] += sv, y->L.nidx[0] += (uint32_t)si, y->n_values += sv, y->cct_end += cb;
    uint32_t t0 = pk_wire_get32(w), t1 = pk_wire_get32(w);
    uint64_t tb = pk_wire_get64(w), r[3] = {pk_wire_get64(w), pk_wire_get64(w), pk_wire_get64(w)};
    if (t0 != t1 && t0 != y->trace_next)
        return pk_fail(PK_ERR_UNSUPPORTED, "parallel build: the members' traces are not in order");
    if (mine) y->trace_mine = y->trace_end, y->trace_first = t0 != t1 ? t0 : y->trace_next;
    if (t0 != t1) y->trace_next = t1;
    y->trace_end += tb;
    if (r[0] && (!y->has_range || r[1] < y->lo)) y->lo = r[1];
    if (r[0] && (!y->has_range || r[2] > y->hi)) y->hi = r[2];
    y->has_range |= r[0] != 0;
    uint64_t ne = pk_wire_get64(w);
    for (int i = 0; i < 8; i++) {
        uint64_t id = pk_wire_get64(w);
        if ((uint64_t)i < ne && y->n_empty + (uint64_t)i < 8) y->empty_ids[y->n_empty + i] = id;
    }
    y->n_empty += ne;
    return w->bad ? pk_fail(PK_ERR_IO, "parallel build: sizes arrived damaged") : PK_OK;
}

static pk_status layout(hp_state *s, hp_layout *y, const pk_write_options *o)
{
    uint32_t t0, t1, n_writable = 0;
    uint64_t tbytes, range[3];
    memset(y, 0, sizeof *y);
    pk_status st = own_traces(s, &t0, &t1, &tbytes, range);
    pk_buf b = {0};
    if (!st) put_sizes(s, &b, t0, t1, tbytes, range);
    if (!st && b.failed) st = pk_fail_nomem("gathering sizes");
    st = pk_members_agree(s->m, st);
    pk_gathered g = {0};
    if (!st) st = pk_members_allgather(s->m, b.data, b.len, &g);
    pk_buf_free(&b);
    if (!st) st = hk_prof_layout_init(&y->L, s->order.n_profiles);
    for (uint32_t k = 0; k < g.n && !st; k++) {
        pk_wire w = pk_wire_reader(g.data + g.off[k], g.len[k]);
        st = take_sizes(y, s, &w, k == s->m->me);
    }
    pk_gathered_free(&g);
    for (uint32_t t = 0; t < s->w->n_traces; t++)
        n_writable += (uint32_t)writable_trace(s->w, &s->w->traces[t]);
    if (!st && y->trace_next != n_writable && y->trace_end)
        st = pk_fail(PK_ERR_UNSUPPORTED, "parallel build: some traces belong to no member");
    if (st) return st;
    hk_prof_layout_plan(s->w, &s->order, &y->L);
    y->cct_first = hk_cct_first_block(s->n_ids);
    y->cct_mine += y->cct_first, y->cct_end += y->cct_first;
    y->n_traces = n_writable;
    y->trace_data = HK_SZ_TRACE_HEADER + 0x20 + (uint64_t)n_writable * HK_SZ_TRACE_HDR;
    y->trace_mine += y->trace_data, y->trace_end += y->trace_data;
    y->traces = (s->w->n_traces || y->has_range) && !(o && (o->flags & PK_WRITE_NO_TRACE));
    return PK_OK;
}

/* ---- writing ---- */

static const char *join(char *buf, const char *dir, const char *name)
{
    if (snprintf(buf, PATH_SIZE, "%s%s", dir, name) >= PATH_SIZE) buf[0] = '\0';
    return buf;
}

/* Continue at `offset`: zeros across a gap shorter than 8 bytes (an
 * alignment pad), a seek otherwise. */
static void go_to(pk_out *out, uint64_t offset)
{
    if (offset >= out->offset && offset - out->offset < 8)
        pk_out_zeros(out, offset - out->offset);
    else if (offset != out->offset)
        pk_out_seek(out, offset);
}

static pk_status write_profiles(const hp_state *s, const hp_layout *y, const char *dir)
{
    char path[PATH_SIZE];
    pk_out out;
    pk_status st = pk_out_at(&out, join(path, dir, "/profile.db"), 0);
    for (uint32_t l = s->wfirst; l < s->wend && !st; l++) {
        const pk_plane *pl = &s->w->locs[l].plane;
        go_to(&out, y->L.vals_at[s->order.prof_of_loc[l]]);
        pk_out_bytes(&out, pl->vals, pl->nvals * PK_LM_VAL_SIZE);
        pk_out_bytes(&out, pl->idx, (size_t)pl->nidx * PK_LM_IDX_SIZE);
    }
    if (!st && s->r.sum_nvals) { /* this range's part of the summary profile */
        go_to(&out, y->L.vals_at[0] + y->sum_vals_before * PK_LM_VAL_SIZE);
        pk_out_bytes(&out, s->r.sum_vals.data, s->r.sum_vals.len);
        go_to(&out, y->L.vals_at[0] + y->L.nvals[0] * PK_LM_VAL_SIZE +
                        y->sum_idx_before * PK_LM_IDX_SIZE);
        unsigned char *idx = s->r.sum_idx.data;
        for (uint32_t k = 0; k < s->r.sum_nidx; k++) /* starts count from the summary's first */
            pk_put_le64(idx + (size_t)k * PK_LM_IDX_SIZE + 4,
                        pk_le64(idx + (size_t)k * PK_LM_IDX_SIZE + 4) + y->sum_vals_before);
        pk_out_bytes(&out, idx, s->r.sum_idx.len);
    }
    return st ? st : pk_out_close(&out);
}

/* The {CI} entries of this member's range, as planes of its counts. */
typedef struct range_planes {
    const hp_range *r;
    pk_plane one;
} range_planes;

static const pk_plane *range_plane(const void *user, uint64_t id)
{
    range_planes *rp = (range_planes *)user;
    rp->one = (pk_plane){NULL, NULL, rp->r->nvals[id - rp->r->lo], rp->r->nidx[id - rp->r->lo]};
    return &rp->one;
}

static pk_status write_cct(const hp_state *s, const hp_layout *y, const char *dir)
{
    char path[PATH_SIZE];
    pk_out out;
    if (s->r.lo >= s->r.hi) return PK_OK;
    range_planes rp = {&s->r, {0}};
    pk_status st = pk_out_at(&out, join(path, dir, "/cct.db"),
                             HK_SZ_CCT_HEADER + 0x10 + s->r.lo * HK_SZ_CCT_CTX);
    if (st) return st;
    hk_cct_put_infos(&out, range_plane, &rp, s->r.lo, s->r.hi, y->cct_mine);
    if (!s->r.flushed) { /* else the blocks were written as they were built */
        go_to(&out, y->cct_mine);
        pk_out_bytes(&out, s->r.blocks.data, s->r.blocks.len);
    }
    return pk_out_close(&out);
}

static pk_status write_traces(const hp_state *s, const hp_layout *y, const char *dir)
{
    const pk_profile *w = s->w;
    char path[PATH_SIZE];
    pk_out out;
    if (!y->traces || y->trace_first >= y->n_traces) return PK_OK;
    pk_status st =
        pk_out_at(&out, join(path, dir, "/trace.db"),
                  HK_SZ_TRACE_HEADER + 0x20 + (uint64_t)y->trace_first * HK_SZ_TRACE_HDR);
    if (st) return st;
    uint64_t at = y->trace_mine;
    for (uint32_t t = 0; t < w->n_traces; t++) {
        const pk_trace_rec *tr = &w->traces[t];
        if (!writable_trace(w, tr) || tr->location < s->wfirst || tr->location >= s->wend) continue;
        pk_out_u32(&out, s->order.prof_of_loc[tr->location]);
        pk_out_u32(&out, 0);
        pk_out_u64(&out, at);
        pk_out_u64(&out, at + tr->n * PK_SAMPLE_SIZE);
        at += tr->n * PK_SAMPLE_SIZE;
    }
    go_to(&out, y->trace_mine);
    for (uint32_t t = 0; t < w->n_traces; t++) {
        const pk_trace_rec *tr = &w->traces[t];
        if (writable_trace(w, tr) && tr->location >= s->wfirst && tr->location < s->wend)
            pk_out_bytes(&out, tr->samples, tr->n * PK_SAMPLE_SIZE);
    }
    return pk_out_close(&out);
}

/* Buffered writes to one file take its inode's lock (ext4, XFS): members
 * on one machine writing the same file take turns. Every other member
 * writes cct.db before profile.db, so two at a time write different files. */
static pk_status write_mine(const hp_state *s, const hp_layout *y, const char *dir)
{
    int cct_first = s->m->me % 2;
    pk_status st = cct_first ? write_cct(s, y, dir) : write_profiles(s, y, dir);
    if (!st) st = cct_first ? write_profiles(s, y, dir) : write_cct(s, y, dir);
    if (!st) st = write_traces(s, y, dir);
    return st;
}

/* ---- member 0: meta.db, the yaml, the headers; the footers ---- */

static pk_status report_unlisted(const hp_layout *y, const char *target, const pk_write_options *o,
                                 pk_write_stats *stats)
{
    char ids[128] = "";
    size_t len = 0;
    if (!y->n_empty) return PK_OK;
    for (uint64_t i = 0; i < y->n_empty && i < 8 && len < sizeof ids; i++)
        len += (size_t)snprintf(ids + len, sizeof ids - len, "%s%llu", i ? ", " : "",
                                (unsigned long long)y->empty_ids[i]);
    return pk_write_lose(o, stats, target, "unlisted contexts",
                         "%u contexts meta.db does not list hold no value (ids %s%s); HPCToolkit "
                         "knows such a context only by its values in profile.db and cct.db, so "
                         "they are left out",
                         (uint32_t)y->n_empty, ids, y->n_empty > 8 ? ", ..." : "");
}

static pk_status write_head(const char *path, uint64_t at, const void *data, size_t n)
{
    pk_out out;
    pk_status st = pk_out_at(&out, path, at);
    if (!st) pk_out_bytes(&out, data, n);
    return st ? st : pk_out_close(&out);
}

/* meta.db but its footer; *len: its size with the footer. */
static pk_status write_meta(const pk_profile *p, const char *path, uint64_t *len)
{
    pk_out out;
    pk_status st = pk_out_at(&out, path, 0);
    if (st) return st;
    st = hk_write_meta(p, &out, 0);
    *len = out.offset + 8;
    pk_status closed = pk_out_close(&out);
    return st ? st : closed;
}

static pk_status write_yaml(const char *dir, const char *text, size_t len)
{
    char path[PATH_SIZE];
    join(path, dir, "/metrics");
    if (mkdir(path, 0755) != 0)
        return pk_fail(PK_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    return pk_write_file(join(path, dir, "/metrics/default.yaml"), text, len);
}

static pk_status trace_header(const hp_layout *y, const char *path)
{
    unsigned char h[HK_SZ_TRACE_HEADER + 0x20] = {0};
    hk_put_file_header(h, "trce");
    pk_put_le64(h + 0x10, 0x20 + (uint64_t)y->n_traces * HK_SZ_TRACE_HDR);
    pk_put_le64(h + 0x18, HK_SZ_TRACE_HEADER);
    pk_put_le64(h + 0x20, HK_SZ_TRACE_HEADER + 0x20); /* pTraces */
    pk_put_le32(h + 0x28, y->n_traces);
    h[0x2c] = HK_SZ_TRACE_HDR;
    pk_put_le64(h + 0x30, y->has_range ? y->lo : 0);
    pk_put_le64(h + 0x38, y->has_range ? y->hi : 0);
    return write_head(path, 0, h, sizeof h);
}

static pk_status write_heads(const hp_state *s, const hp_layout *y, const char *dir,
                             const char *target, const pk_write_options *o, pk_write_stats *stats,
                             uint64_t *meta_len)
{
    char path[PATH_SIZE], *yaml = NULL;
    size_t yaml_len = 0;
    pk_out out;
    pk_status st = report_unlisted(y, target, o, stats);
    if (!st) st = hk_yaml_text(s->w, target, o, stats, &yaml, &yaml_len);
    if (!st) st = hk_prof_check_tuples(s->w);
    if (!st) st = write_meta(s->w, join(path, dir, "/meta.db"), meta_len);
    if (!st) st = write_yaml(dir, yaml, yaml_len);
    if (!st) st = pk_out_at(&out, join(path, dir, "/profile.db"), 0);
    if (!st) hk_prof_put_head(&out, s->w, &s->order, &y->L), st = pk_out_close(&out);
    if (!st) st = pk_out_at(&out, join(path, dir, "/cct.db"), 0);
    if (!st) hk_cct_put_header(&out, s->n_ids), st = pk_out_close(&out);
    if (!st && y->traces) st = trace_header(y, join(path, dir, "/trace.db"));
    stats->bytes = *meta_len + yaml_len + y->L.end + 8 + y->cct_end + 8;
    stats->bytes += y->traces ? y->trace_end + 8 : 0;
    free(yaml);
    return st;
}

/* Last: the footers, once every member has written all of its bytes. */
static pk_status write_footers(const hp_layout *y, const char *dir, uint64_t meta_len)
{
    char path[PATH_SIZE];
    pk_status st = write_head(join(path, dir, "/meta.db"), meta_len - 8, "_meta.db", 8);
    if (!st) st = write_head(join(path, dir, "/profile.db"), y->L.end, "_prof.db", 8);
    if (!st) st = write_head(join(path, dir, "/cct.db"), y->cct_end, "__ctx.db", 8);
    if (!st && y->traces)
        st = write_head(join(path, dir, "/trace.db"), y->trace_end, "trace.db", 8);
    return st;
}

/* Member 0: the temporary directory and the (empty) files in it, whose
 * name every member gets. */
static pk_status begin(pk_members *m, const char *target, const pk_write_options *o,
                       pk_safeout *out, char *dir)
{
    static const char *const files[] = {"/meta.db", "/profile.db", "/cct.db", "/trace.db"};
    pk_status st = PK_OK;
    char path[PATH_SIZE];
    if (m->me == 0) {
        st = strlen(target) < PATH_SIZE - 64 ? pk_safeout_dir(out, target, o ? o->flags : 0)
                                             : pk_fail(PK_ERR_INVALID_ARG, "output path too long");
        int made = !st;
        for (size_t i = 0; i < sizeof files / sizeof *files && !st; i++)
            st = pk_write_file(join(path, out->tmp, files[i]), "", 0);
        if (st && made) pk_safeout_abort(out);
    }
    st = pk_members_agree(m, st);
    pk_gathered g = {0};
    if (!st)
        st = pk_members_bcast0(m, m->me == 0 ? out->tmp : NULL,
                               m->me == 0 ? strlen(out->tmp) + 1 : 0, &g);
    if (!st && (g.len[0] == 0 || g.len[0] > PATH_SIZE || g.data[g.len[0] - 1]))
        st = pk_fail(PK_ERR_IO, "parallel build: the output directory's name arrived damaged");
    if (!st) memcpy(dir, g.data, g.len[0]);
    pk_gathered_free(&g);
    return pk_members_agree(m, st);
}

/* The steps after the directory exists; every member returns the same. */
static pk_status steps(hp_state *s, const pk_profile *p, uint32_t first, uint32_t end,
                       const char *target, const char *dir, const pk_write_options *o,
                       pk_write_stats *stats, hp_layout *y, uint64_t *meta_len)
{
    pk_members *m = s->m;
    pk_profile *q = NULL;
    pk_status st = shape_part(s, p, target, o, stats, &q);
    s->w = q ? q : p;
    s->dir = dir;
    if (!st) st = pk_members_agree(m, place(s, p, q != NULL, first, end));
    if (!st) st = pk_members_agree(m, hp_ranges(s));
    if (!st) st = hp_transpose(s);
    if (!st) st = pk_members_agree(m, layout(s, y, o));
    if (!st)
        st = pk_members_agree(m, m->me == 0 ? write_heads(s, y, dir, target, o, stats, meta_len)
                                            : PK_OK);
    if (!st) st = pk_members_agree(m, write_mine(s, y, dir));
    stats->n_files = 4u + (y->traces ? 1u : 0u);
    stats->n_values = y->n_values;
    stats->n_skipped_traces = s->w->n_traces - y->n_traces;
    hk_order_free(&s->order);
    hk_sum_plan_free(&s->plan);
    hp_range_free(&s->r);
    free(s->range_lo);
    hk_shape_free(p, q);
    s->w = NULL;
    return st;
}

/* Member 0, once every member has written everything: the footers, and
 * the database into place. */
static pk_status finish(const hp_layout *y, const char *dir, uint64_t meta_len, pk_safeout *out)
{
    char path[PATH_SIZE];
    pk_status st = write_footers(y, dir, meta_len);
    if (!st && !y->traces && unlink(join(path, dir, "/trace.db")) != 0)
        st = pk_fail(PK_ERR_IO, "%s: cannot remove: %s", path, strerror(errno));
    return st ? st : pk_safeout_commit(out);
}

pk_status hk_par_write(pk_members *m, const pk_profile *p, uint32_t first, uint32_t end,
                       const char *target, const pk_write_options *o, hk_par_check check,
                       const void *check_arg, uint64_t chunk_bytes, pk_write_stats *stats)
{
    uint64_t per_loc = (uint64_t)p->n_locs * HP_CHUNK_PER_LOCATION; /* see write_par.h */
    hp_state s = {.m = m,
                  .chunk_bytes = chunk_bytes                ? chunk_bytes
                                 : per_loc > HP_CHUNK_BYTES ? per_loc
                                                            : HP_CHUNK_BYTES};
    pk_safeout out;
    char dir[PATH_SIZE] = "";
    hp_layout y;
    uint64_t meta_len = 0;
    memset(stats, 0, sizeof *stats);
    memset(&y, 0, sizeof y);
    pk_status st = begin(m, target, o, &out, dir);
    if (st) return st;
    st = steps(&s, p, first, end, target, dir, o, stats, &y, &meta_len);
    if (!st) /* nothing made from a file that changed meanwhile */
        st = pk_members_agree(m, check ? check(check_arg) : PK_OK);
    int committed = 0;
    if (!st) {
        pk_status fin = m->me == 0 ? finish(&y, dir, meta_len, &out) : PK_OK;
        committed = m->me == 0 && !fin;
        st = pk_members_agree(m, fin);
    }
    if (m->me == 0 && !committed) pk_safeout_abort(&out);
    hk_prof_layout_free(&y.L);
    uint64_t losses = stats->n_losses;
    if (!st && pk_members_reduce(m, &losses, 1, PK_REDUCE_MAX) == PK_OK)
        stats->n_losses = (uint32_t)losses;
    return st;
}
