/*
 * view/assets.c — the page's three files: embedded in the binary at build
 * time (embed_assets.cmake), or read from PROFKIT_VIEW_ASSETS=DIR for
 * development. Only these three names exist: nothing from a URL ever
 * becomes a path.
 */
#include <stdlib.h>
#include <string.h>

#include "view/view.h"

struct pkv_embedded {
    const char *name;
    const unsigned char *data;
    size_t len;
};
extern const struct pkv_embedded pkv_embedded[];

static const char *const names[] = {"index.html", "app.js", "app.css"};

#define MAX_ASSET (64u << 20)

static int read_file(const char *dir, const char *name, const char **data, size_t *len)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) return 0;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap && cap < MAX_ASSET) {
            char *more = realloc(buf, cap * 2);
            if (!more) free(buf);
            buf = more, cap *= 2;
        } else if (n == cap) {
            free(buf), buf = NULL; /* not a page asset: refuse */
        }
    }
    int ok = buf && !ferror(f);
    fclose(f);
    if (!ok) return free(buf), 0;
    *data = buf, *len = n;
    return 1;
}

int pkv_asset(const char *dir, const char *name, const char **data, size_t *len, int *owned)
{
    size_t k = 0;
    while (k < 3 && strcmp(names[k], name) != 0)
        k++;
    if (k == 3) return 0;
    *owned = dir != NULL;
    if (dir) return read_file(dir, names[k], data, len);
    for (const struct pkv_embedded *e = pkv_embedded; e->name; e++)
        if (strcmp(e->name, names[k]) == 0) {
            *data = (const char *)e->data, *len = e->len;
            return 1;
        }
    return 0;
}

const char *pkv_asset_type(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (dot && strcmp(dot, ".js") == 0) return "text/javascript; charset=utf-8";
    if (dot && strcmp(dot, ".css") == 0) return "text/css; charset=utf-8";
    return "text/html; charset=utf-8";
}
