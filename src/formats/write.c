/*
 * formats/write.c — pk_profile_write(): choosing the writer for a format.
 */
#include <stdio.h>
#include <string.h>

#include "formats/callgrind/callgrind.h"
#include "formats/cube/cube.h"
#include "formats/hpctoolkit/hpctk_write.h"
#include "formats/json/json.h"
#include "formats/pprof/pprof.h"
#include "formats/write_loss.h"
#include "profkit/callgraph.h"
#include "util/error.h"
#include "util/safeout.h"

static pk_status source_intact(const void *p)
{
    return pk_profile_intact(p);
}

/* A call graph file states its totals (Callgrind's summary: lines), and
 * they may differ from what its cost lines add up to (cost the tool
 * charged to no line). Callgrind and profkit's JSON keep the statement; a
 * calling-context tree's total (HPCToolkit, Cube, pprof) is what its values add up to: said once
 * per metric that differs. */
static pk_status lose_stated_totals(const pk_profile *p, const char *path,
                                    const pk_write_options *opts, pk_write_stats *stats)
{
    pk_status st = PK_OK;
    for (uint32_t m = 0; m < p->n_metrics && !st; m++) {
        double stated, lines;
        if (pk_metric_stated_total(p, m, &stated, &lines) != PK_OK || stated == lines) continue;
        char item[600];
        snprintf(item, sizeof item, "the stated total of metric %.500s", p->metrics[m].name);
        st = pk_write_lose(opts, stats, path, item,
                           "the source states %.17g (its summary:/totals: lines, the program "
                           "total callgrind_annotate and profkit report) where its cost lines "
                           "add up to %.17g; the written totals are what the values add up to",
                           stated, lines);
    }
    return st;
}

static pk_status write_format(const pk_profile *p, pk_format format, const char *path,
                              const pk_write_options *opts, pk_write_stats *stats)
{
    if (format == PK_FORMAT_HPCTOOLKIT_V4 || format == PK_FORMAT_CUBE ||
        format == PK_FORMAT_PPROF) {
        pk_status st = lose_stated_totals(p, path, opts, stats);
        if (st) return st;
    }
    switch (format) {
    case PK_FORMAT_HPCTOOLKIT_V4:
        return hk_write_db(p, path, opts, stats);
    case PK_FORMAT_CALLGRIND:
        return cg_write(p, path, opts, stats);
    case PK_FORMAT_CUBE:
        return cube_write(p, path, opts, stats);
    case PK_FORMAT_JSON:
        return json_write(p, path, opts, stats);
    case PK_FORMAT_PPROF:
        return pprof_write(p, path, opts, stats);
    default:
        return pk_fail(PK_ERR_UNSUPPORTED, "profkit cannot write format %d yet", (int)format);
    }
}

uint32_t pk_write_open_flags(pk_format format)
{
    int from_tree =
        format == PK_FORMAT_HPCTOOLKIT_V4 || format == PK_FORMAT_CUBE || format == PK_FORMAT_PPROF;
    return from_tree ? PK_OPEN_BY_FUNCTION : 0;
}

pk_status pk_profile_write(const pk_profile *p, pk_format format, const char *path,
                           const pk_write_options *opts, pk_write_stats *stats)
{
    pk_write_stats ignored;
    if (!p || !path || !*path)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_profile_write: no profile or path");
    if (!stats) stats = &ignored;
    pk_profile_info info;
    pk_profile_get_info(p, &info);
    if (!info.complete)
        return pk_fail(PK_ERR_INVALID_ARG,
                       "%s: the profile is incomplete (damaged parts were dropped while opening "
                       "it); writing it would present partial data as complete",
                       path);
    memset(stats, 0, sizeof *stats);
    /* Writers walk locations, but Cube's writes metric-major rows as a
     * row store holds them (cube/write_rows.c). */
    pk_status planes = format == PK_FORMAT_CUBE ? PK_OK : pk_model_ensure_planes(p);
    if (planes) return planes;
    /* Nothing made from a file that shrank meanwhile is put in place. */
    pk_safeout_set_check(source_intact, p);
    pk_status st = write_format(p, format, path, opts, stats);
    pk_safeout_set_check(NULL, NULL);
    return st;
}
