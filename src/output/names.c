/*
 * output/names.c — function names as text views show them: C++ names
 * demangled with the toolchain's own demangler (libstdc++'s
 * __cxa_demangle, so profkit carries no demangler of its own; loaded on
 * the first mangled name, util/dynlib.h, as a C program has no need of
 * libstdc++ at start-up otherwise), and long
 * names shortened by rule to fit a column: template arguments first,
 * then parameter lists, then the module after the name, then leading
 * namespaces, and only then a cut in the middle.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdlib.h>
#include <string.h>

#include "profkit/output.h"
#include "util/dynlib.h"

#ifndef PK_LIBSTDCXX_SONAME
#define PK_LIBSTDCXX_SONAME "libstdc++.so.6"
#endif

/* The C++ ABI's demangler (libstdc++, <cxxabi.h>). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

static struct {
    PK_DYNLIB_FIELD(__cxa_demangle)
} cxx;
static const pk_dynlib_sym cxx_syms[] = {PK_DYNLIB_ENTRY(cxx, __cxa_demangle)};
static pk_dynlib libstdcxx = PK_DYNLIB_INIT(PK_LIBSTDCXX_SONAME, "the C++ demangler", cxx_syms);

size_t pk_name_demangle(const char *name, char *buf, size_t size)
{
    if (!name) name = "";
    /* "_Z..." alone or before " [module]" / " (...)" decorations */
    size_t len = strncmp(name, "_Z", 2) == 0 ? strcspn(name, " ") : 0;
    char *plain = NULL;
    /* without the library, names stay as the profile has them */
    if (len > 2 && len < 4096 && pk_dynlib_load(&libstdcxx, NULL, 0)) {
        char mangled[4096];
        memcpy(mangled, name, len), mangled[len] = 0;
        int status = -1;
        plain = cxx.__cxa_demangle(mangled, NULL, NULL, &status);
        if (status != 0) free(plain), plain = NULL;
    }
    size_t n = plain ? (size_t)snprintf(buf, size, "%s%s", plain, name + len)
                     : (size_t)snprintf(buf, size, "%s", name);
    free(plain);
    return n;
}

/* Columns the UTF-8 text takes (continuation bytes take none). */
static size_t columns(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* Replace what lies between each outermost `open` and its `close` with
 * `inner` ("std::map<...>::at"), from the end of the name backwards so a
 * template argument list of the class goes last. */
static void collapse(char *s, char open, char close, const char *inner)
{
    size_t len = strlen(s), ilen = strlen(inner);
    for (size_t i = len; i-- > 0;) {
        if (s[i] != close) continue;
        size_t depth = 0, j = i + 1;
        while (j-- > 0) { /* find the matching opener */
            depth += s[j] == close;
            depth -= s[j] == open;
            if (depth == 0) break;
        }
        if (depth != 0 || j == (size_t)-1) return; /* unbalanced: leave it */
        if (i - j - 1 > ilen) {
            memmove(s + j + 1 + ilen, s + i, strlen(s + i) + 1);
            memcpy(s + j + 1, inner, ilen);
        }
        i = j;
        if (i == 0) break;
    }
}

/* "a::b::C::f()" -> "C::f()": leave the last two components of the
 * qualified name before its parameter list. */
static void drop_namespaces(char *s)
{
    size_t end = strcspn(s, "(");
    size_t seps = 0, keep = 0;
    for (size_t i = end; i-- > 1;)
        if (s[i] == ':' && s[i - 1] == ':' && ++seps == 2) {
            keep = i + 1;
            break;
        }
    if (keep) memmove(s, s + keep, strlen(s + keep) + 1);
}

/* Cut the middle out ("std::vec...>::at"), between whole characters. */
static void cut_middle(char *s, size_t room)
{
    size_t len = strlen(s);
    if (room < 9 || columns(s) <= room) return;
    size_t head = (room - 3) / 2, tail = room - 3 - head;
    /* bytes of `head` leading and `tail` trailing characters */
    size_t hb = 0, tb = len;
    for (size_t c = 0; c < head && s[hb]; c++)
        for (hb++; ((unsigned char)s[hb] & 0xc0) == 0x80; hb++) {
        }
    for (size_t c = 0; c < tail && tb > hb; c++)
        while (tb > hb && ((unsigned char)s[--tb] & 0xc0) == 0x80) {
        }
    memmove(s + hb + 3, s + tb, len - tb + 1);
    memcpy(s + hb, "...", 3);
}

/* "f [libfoo.so.1]" -> "f": the module a name shows after it. */
static void drop_module(char *s)
{
    size_t len = strlen(s);
    char *open = strstr(s, " [");
    if (len && s[len - 1] == ']' && open && open > s) *open = 0;
}

size_t pk_name_shorten(char *name, size_t room)
{
    if (!name) return 0;
    if (room && columns(name) > room) collapse(name, '<', '>', "...");
    if (room && columns(name) > room) collapse(name, '(', ')', "...");
    if (room && columns(name) > room) drop_module(name);
    if (room && columns(name) > room) drop_namespaces(name);
    if (room && columns(name) > room) cut_middle(name, room);
    return strlen(name);
}

/* Gentler rules for names the full one would make alike, tried in turn:
 * parameter lists collapsed and a cut in the middle, so both ends stay
 * (a clone suffix, "[clone ._omp_fn.4]", tells them apart); then template
 * arguments collapsed and a cut in the middle in twice the room each time
 * (the name grows only as far as it must to differ). */
static void shorten_keeping_ends(char *name, size_t room, int pass)
{
    /* pass 0: template arguments collapse (overloads differ in their
     * parameters), pass 1: parameter lists (clones differ after them) */
    if (pass != 1 && room && columns(name) > room) collapse(name, '<', '>', "...");
    if (pass == 1 && room && columns(name) > room) collapse(name, '(', ')', "...");
    size_t r = pass < 2 ? room : room << (pass - 2);
    if (room && columns(name) > r) cut_middle(name, r);
}

typedef struct label {
    size_t i;
    const char *text;
} label;

static int by_text(const void *a, const void *b)
{
    return strcmp(((const label *)a)->text, ((const label *)b)->text);
}

/* Mark (in `clash`) the names whose shortened text another name with
 * different original text also has. */
static void find_clashes(char *const *names, char *const *orig, size_t n, unsigned char *clash,
                         label *l)
{
    for (size_t i = 0; i < n; i++)
        l[i] = (label){i, names[i]};
    qsort(l, n, sizeof *l, by_text);
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        while (b < n && strcmp(l[a].text, l[b].text) == 0)
            b++;
        int differ = 0;
        for (size_t k = a + 1; k < b && !differ; k++)
            differ = strcmp(orig[l[k].i], orig[l[a].i]) != 0;
        for (size_t k = a; differ && k < b; k++)
            clash[l[k].i] = 1;
        a = b;
    }
}

void pk_names_shorten(char **names, size_t n, size_t room)
{
    char **orig = calloc(n ? n : 1, sizeof *orig);
    unsigned char *clash = calloc(n ? n : 1, 1);
    label *l = malloc((n ? n : 1) * sizeof *l);
    int ok = orig && clash && l;
    for (size_t i = 0; ok && i < n; i++)
        ok = (orig[i] = strdup(names[i])) != NULL;
    for (size_t i = 0; i < n; i++) /* without memory: each name alone, as before */
        pk_name_shorten(names[i], room);
    for (int pass = 0, any = 1; ok && any && pass < 12; pass++) {
        memset(clash, 0, n);
        find_clashes(names, orig, n, clash, l);
        any = 0;
        for (size_t i = 0; i < n; i++) {
            if (!clash[i]) continue;
            any = 1;
            strcpy(names[i], orig[i]); /* never longer than the buffer it came from */
            if (pass < 11) shorten_keeping_ends(names[i], room, pass); /* at last: whole */
        }
    }
    for (size_t i = 0; orig && i < n; i++)
        free(orig[i]);
    free(orig), free(clash), free(l);
}
