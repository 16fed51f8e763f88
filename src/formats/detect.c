/*
 * formats/detect.c — choosing the reader for a path: from directory
 * contents and magic bytes. pk_dump() starts here, and so does
 * pk_profile_open(), which then derives what the file does not hold
 * (formats/open.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "formats/callgrind/callgrind.h"
#include "formats/cube/cube.h"
#include "formats/hpcrun/hr_dump.h"
#include "formats/hpcrun/measure.h"
#include "formats/hpctoolkit/hpctk.h"
#include "formats/hpctoolkit_xml/hx.h"
#include "formats/json/json.h"
#include "formats/open.h"
#include "formats/pprof/pprof.h"
#include "profkit/dump.h"
#include "util/error.h"
#include "util/infile.h"
#include "util/mapfile.h"

/* Copy the directory part of `path` into buf ("." if none). */
static void parent_dir(const char *path, char *buf, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(buf, size, ".");
        return;
    }
    size_t len = (size_t)(slash - path);
    snprintf(buf, size, "%.*s", (int)(len ? len : 1), path);
}

/* Explain what the path looks like when no reader takes it. */
static pk_status not_recognised(const char *path)
{
    return pk_fail(PK_ERR_UNKNOWN_FORMAT,
                   "%s: not a profile profkit can read (it reads HPCToolkit database "
                   "directories, i.e. directories with a meta.db or a legacy experiment.xml, "
                   "Callgrind, Cachegrind and Xdebug profile files, plain or gzip-compressed, "
                   "Cube4 .cubex archives, hpcrun measurement directories or .hpcrun "
                   "files, pprof profiles (profile.proto, plain or gzip), and profkit's own "
                   "JSON)",
                   path);
}

/* The database directory behind `path`: the path itself, or the directory
 * of one of its files (so `profkit info db/meta.db` works too). */
static int hpctoolkit_dir(const char *path, char *dir, size_t size)
{
    if (pk_path_is_dir(path)) {
        snprintf(dir, size, "%s", path);
        return hk_detect_dir(path);
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    static const char *const names[] = {"meta.db", "profile.db", "cct.db", "trace.db"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(base, names[i]) == 0) {
            parent_dir(path, dir, size);
            return hk_detect_dir(dir);
        }
    }
    return 0;
}

/* A legacy (experiment.xml) database directory behind `path`: the
 * directory itself or its experiment.xml. */
static int legacy_dir(const char *path, char *dir, size_t size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (pk_path_is_dir(path))
        snprintf(dir, size, "%s", path);
    else if (strcmp(base, "experiment.xml") == 0)
        parent_dir(path, dir, size);
    else
        return 0;
    return hx_detect_dir(dir) != 0;
}

static const char *format_title(pk_format f)
{
    switch (f) {
    case PK_FORMAT_HPCTOOLKIT_V4:
        return "an HPCToolkit database";
    case PK_FORMAT_CALLGRIND:
        return "a Callgrind file";
    case PK_FORMAT_CUBE:
        return "a Cube archive";
    case PK_FORMAT_HPCRUN:
        return "an hpcrun file";
    default:
        return "this format";
    }
}

/* Every name of the comma-separated `sections` is one of format f's dump
 * sections; else PK_ERR_INVALID_ARG naming the unknown one and the list. */
static pk_status check_sections(pk_format f, const char *sections)
{
    const char *const *names = pk_dump_sections(f);
    for (const char *s = sections; s && names && *s;) {
        const char *c = strchr(s, ',');
        size_t len = c ? (size_t)(c - s) : strlen(s);
        int known = 0;
        for (size_t i = 0; names[i] && !known; i++)
            known = strlen(names[i]) == len && strncmp(names[i], s, len) == 0;
        if (!known) {
            char list[512] = "";
            for (size_t i = 0, at = 0; names[i] && at < sizeof list; i++)
                at +=
                    (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "", names[i]);
            return pk_fail(PK_ERR_INVALID_ARG,
                           "unknown dump section '%.*s' for %s (its sections: %s)", (int)len, s,
                           format_title(f), list);
        }
        s += len + (c != NULL);
    }
    return PK_OK;
}

/* What dump says of a profile it does not take apart. */
static pk_status no_dump(const char *path, const char *what, const char *instead)
{
    return pk_fail(PK_ERR_UNSUPPORTED,
                   "%s: %s: dump lists the records of HPCToolkit v4 databases, hpcrun files, "
                   "Cube archives and Callgrind files; %s",
                   path, what, instead);
}

static pk_status open_path(const char *path, const pk_open_options *opts, pk_record_fn emit,
                           void *user, const char *sections, pk_profile **out)
{
    if (!path) return pk_fail(PK_ERR_INVALID_ARG, "NULL path");
    if (!pk_path_exists(path) && !cg_detect_path(path))
        return pk_fail(PK_ERR_IO, "%s: no such file or directory", path);
    /* What cannot be read (permission denied, a FIFO, a device) is said
     * so, not reported as "not a profile" after every detector failed. */
    if (pk_path_exists(path)) {
        pk_status st = pk_input_check(path);
        if (st) return st;
    }
    char dir[4096];
    if (strlen(path) >= sizeof dir - 16) return pk_fail(PK_ERR_IO, "%s: path too long", path);
    pk_status st;
    if (hpctoolkit_dir(path, dir, sizeof dir)) {
        if (emit && (st = check_sections(PK_FORMAT_HPCTOOLKIT_V4, sections)) != PK_OK) return st;
        return hk_open_dir(dir, opts, emit, user, sections, out);
    }
    if (hm_detect_path(path) && (!emit || pk_path_is_dir(path))) { /* a file: hpcrun's dump */
        if (emit)
            return pk_fail(PK_ERR_UNSUPPORTED,
                           "%s: an hpcrun measurement directory: dump takes its files one at a "
                           "time (profkit dump %s/*.hpcrun)",
                           path, path);
        return hm_open(path, opts, out);
    }
    if (legacy_dir(path, dir, sizeof dir)) {
        if (emit)
            return no_dump(path, "an experiment.xml database (legacy or draft layout)",
                           "'profkit info' and 'profkit check' show what it holds");
        return hx_open_dir(dir, opts, out);
    }
    if (cube_detect_file(path)) {
        if (emit && (st = check_sections(PK_FORMAT_CUBE, sections)) != PK_OK) return st;
        if (emit) return cube_dump(path, opts ? opts->max_memory : 0, emit, user, sections);
        return cube_open(path, opts, out);
    }
    if (hr_detect_path(path)) {
        if (emit && (st = check_sections(PK_FORMAT_HPCRUN, sections)) != PK_OK) return st;
        if (emit) return hr_dump(path, emit, user, sections);
        return pk_fail(PK_ERR_UNSUPPORTED,
                       "%s: an hpcrun measurement file; profkit dump prints it (as hpcproftt "
                       "does), analysis reads it as part of its measurement directory",
                       path);
    }
    if (json_detect_file(path)) {
        if (emit)
            return no_dump(path, "profkit JSON",
                           "the file is already one readable document of the whole model");
        return json_open(path, opts, out);
    }
    if (pprof_detect_file(path)) {
        if (emit && (st = check_sections(PK_FORMAT_PPROF, sections)) != PK_OK) return st;
        if (emit) return pprof_dump(path, opts ? opts->max_memory : 0, emit, user, sections);
        return pprof_open(path, opts, out);
    }
    if (cg_detect_path(path)) {
        if (emit && (st = check_sections(PK_FORMAT_CALLGRIND, sections)) != PK_OK) return st;
        if (emit) return cg_dump(path, emit, user, sections);
        return cg_open(path, opts, out);
    }
    return not_recognised(path);
}

/* A file that shrank while it was read (busguard.h) makes the open fail
 * as damaged, whatever the reader made of the zeros it read instead. */
static pk_status open_checked(const char *path, const pk_open_options *opts, pk_record_fn emit,
                              void *user, const char *sections, pk_profile **out)
{
    pk_map_damage_report(); /* forget what an earlier call left */
    pk_error_clear();
    pk_profile *p = NULL;
    pk_status st = open_path(path, opts, emit, user, sections, out ? &p : NULL);
    if (!st && p) st = pk_profile_intact(p);
    pk_status damage = pk_map_damage_report();
    if (damage) st = damage;
    if (st) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", pk_error_last());
        pk_profile_free(p);
        pk_map_damage_report(); /* the damage freeing p notes again */
        return pk_fail(st, "%s", msg);
    }
    if (out) *out = p;
    return PK_OK;
}

pk_status pk_formats_open(const char *path, const pk_open_options *opts, pk_profile **out)
{
    return open_checked(path, opts, NULL, NULL, NULL, out);
}

pk_status pk_dump(const char *path, const pk_dump_options *opts, pk_record_fn fn, void *user)
{
    if (!fn) return pk_fail(PK_ERR_INVALID_ARG, "pk_dump: NULL callback");
    pk_open_options o = {.max_memory = opts ? opts->max_memory : 0};
    return open_checked(path, &o, fn, user, opts ? opts->sections : NULL, NULL);
}

pk_status pk_formats_open_memory(pk_format format, size_t n, const char *const *names,
                                 const void *const *data, const uint64_t *sizes,
                                 const pk_open_options *opts, pk_profile **out)
{
    pk_error_clear();
    if (format == PK_FORMAT_CALLGRIND && n == 1)
        return cg_open_memory(names[0], data[0], sizes[0], opts, out);
    if (format == PK_FORMAT_CUBE && n == 1)
        return cube_open_memory(names[0], data[0], sizes[0], opts, out);
    if (format == PK_FORMAT_HPCRUN) return hm_open_memory(n, names, data, sizes, opts, out);
    if (format == PK_FORMAT_HPCTOOLKIT_XML) return hx_open_memory(n, names, data, sizes, opts, out);
    if (format == PK_FORMAT_HPCTOOLKIT_DRAFT)
        return hx_open_memory(n, names, data, sizes, opts, out);
    if (format == PK_FORMAT_JSON && n == 1)
        return json_open_memory(names[0], data[0], sizes[0], opts, out);
    if (format == PK_FORMAT_PPROF && n == 1)
        return pprof_open_memory(names[0], data[0], sizes[0], opts, out);
    if (format != PK_FORMAT_HPCTOOLKIT_V4)
        return pk_fail(PK_ERR_UNSUPPORTED, "pk_profile_open_memory: format %d not supported",
                       (int)format);
    return hk_open_memory(n, names, data, sizes, opts, NULL, NULL, NULL, out);
}

pk_status pk_dump_memory(pk_format format, size_t n, const char *const *names,
                         const void *const *data, const uint64_t *sizes,
                         const pk_dump_options *opts, pk_record_fn fn, void *user)
{
    if (!fn || (n && (!names || !data || !sizes)))
        return pk_fail(PK_ERR_INVALID_ARG, "pk_dump_memory: NULL argument");
    pk_error_clear();
    if (format == PK_FORMAT_HPCRUN && n == 1)
        return hr_dump_memory(names[0], data[0], sizes[0], fn, user, opts ? opts->sections : NULL);
    if (format == PK_FORMAT_CALLGRIND && n == 1)
        return cg_dump_memory(names[0], data[0], sizes[0], fn, user, opts ? opts->sections : NULL);
    if (format == PK_FORMAT_CUBE && n == 1)
        return cube_dump_memory(names[0], data[0], sizes[0], fn, user,
                                opts ? opts->sections : NULL);
    if (format == PK_FORMAT_PPROF && n == 1)
        return pprof_dump_memory(names[0], data[0], sizes[0], opts ? opts->max_memory : 0, fn, user,
                                 opts ? opts->sections : NULL);
    if (format != PK_FORMAT_HPCTOOLKIT_V4)
        return pk_fail(PK_ERR_UNSUPPORTED, "pk_dump_memory: format %d not supported", (int)format);
    return hk_open_memory(n, names, data, sizes, NULL, fn, user, opts ? opts->sections : NULL,
                          NULL);
}

const char *const *pk_dump_sections(pk_format format)
{
    if (format == PK_FORMAT_CALLGRIND) return cg_section_names;
    if (format == PK_FORMAT_HPCRUN) return hr_section_names;
    if (format == PK_FORMAT_CUBE) return cube_section_names;
    if (format == PK_FORMAT_PPROF) return pprof_section_names;
    return format == PK_FORMAT_HPCTOOLKIT_V4 ? hk_section_names : NULL;
}

pk_status pk_dump_format(const char *path, pk_format *out)
{
    if (!path || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_dump_format: NULL argument");
    pk_error_clear();
    if (!pk_path_exists(path)) return pk_fail(PK_ERR_IO, "%s: no such file or directory", path);
    pk_status st = pk_input_check(path);
    if (st) return st;
    char dir[4096];
    if (strlen(path) >= sizeof dir - 16) return pk_fail(PK_ERR_IO, "%s: path too long", path);
    if (hpctoolkit_dir(path, dir, sizeof dir)) return *out = PK_FORMAT_HPCTOOLKIT_V4, PK_OK;
    if ((pk_path_is_dir(path) && hm_detect_path(path)) || legacy_dir(path, dir, sizeof dir) ||
        json_detect_file(path))
        return no_dump(path, "an experiment.xml database, profkit JSON or a measurement directory",
                       "it has no dump sections");
    if (cube_detect_file(path)) return *out = PK_FORMAT_CUBE, PK_OK;
    if (hr_detect_path(path)) return *out = PK_FORMAT_HPCRUN, PK_OK;
    if (pprof_detect_file(path)) return *out = PK_FORMAT_PPROF, PK_OK;
    if (cg_detect_path(path)) return *out = PK_FORMAT_CALLGRIND, PK_OK;
    return not_recognised(path);
}
