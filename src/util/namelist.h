/*
 * util/namelist.h — membership in a comma-separated list of names, as
 * `profkit dump --section cct,values` gives them. Every dumper asks it.
 */
#ifndef PK_UTIL_NAMELIST_H
#define PK_UTIL_NAMELIST_H

#include <string.h>

/* 1 if `name` is one of the comma-separated items of `list`, or if
 * `list` is NULL (no list: everything is wanted). */
static inline int pk_namelist_has(const char *list, const char *name)
{
    if (!list) return 1;
    size_t len = strlen(name);
    for (const char *s = list; *s;) {
        const char *c = strchr(s, ',');
        size_t l = c ? (size_t)(c - s) : strlen(s);
        if (l == len && memcmp(s, name, len) == 0) return 1;
        s += l + (c != NULL);
    }
    return 0;
}

#endif
