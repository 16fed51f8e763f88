/*
 * cli/formats.c — which format a command writes: by name (--to) or by
 * the output path's name. convert and merge choose the same way.
 */
#include <string.h>

#include "cli.h"

int cli_format_from_name(const char *name, pk_format *out)
{
    if (strcmp(name, "hpctoolkit") == 0 || strcmp(name, "hpctoolkit4") == 0) {
        *out = PK_FORMAT_HPCTOOLKIT_V4;
        return 1;
    }
    if (strcmp(name, "callgrind") == 0) {
        *out = PK_FORMAT_CALLGRIND;
        return 1;
    }
    if (strcmp(name, "cube") == 0 || strcmp(name, "cubex") == 0) {
        *out = PK_FORMAT_CUBE;
        return 1;
    }
    if (strcmp(name, "json") == 0) {
        *out = PK_FORMAT_JSON;
        return 1;
    }
    if (strcmp(name, "pprof") == 0) {
        *out = PK_FORMAT_PPROF;
        return 1;
    }
    return 0;
}

/* The format OUTPUT's name implies, if any. */
int cli_format_from_path(const char *path, pk_format *out)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    if (n >= 2 && path[n - 2] == '.' && path[n - 1] == 'd') {
        *out = PK_FORMAT_HPCTOOLKIT_V4;
        return 1;
    }
    if (n >= 6 && strncmp(path + n - 6, ".cubex", 6) == 0) {
        *out = PK_FORMAT_CUBE;
        return 1;
    }
    if (n >= 5 && strncmp(path + n - 5, ".json", 5) == 0) { /* .speedscope.json: an export */
        *out = PK_FORMAT_JSON;
        return 1;
    }
    static const char *const pprof_ext[] = {".pb.gz", ".pb", ".pprof"};
    for (size_t i = 0; i < sizeof pprof_ext / sizeof *pprof_ext; i++) {
        size_t e = strlen(pprof_ext[i]);
        if (n > e && strncmp(path + n - e, pprof_ext[i], e) == 0) {
            *out = PK_FORMAT_PPROF;
            return 1;
        }
    }
    const char *base = strrchr(path, '/');
    if (strstr(base ? base : path, "callgrind")) {
        *out = PK_FORMAT_CALLGRIND;
        return 1;
    }
    return 0;
}
