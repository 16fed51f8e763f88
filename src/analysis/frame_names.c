/*
 * analysis/frame_names.c — names as calling paths compare them across
 * formats. A format with no entry points or no function-less call sites
 * (Cube, Callgrind) gets functions a writer names after them, the way
 * pk_context_name() shows them: "main thread" for an entry point,
 * "libgomp.so.1+0x1a86d" for a call site known only by its address. Such
 * a function is no code of the program, so calling paths skip it, as they
 * skip the entry points and instruction contexts it stands for; and an
 * unknown function is named after its module's file, whether a writer
 * spelled out the module's whole path ("<unknown function>
 * /usr/lib/libm.so+0x10") or not. pprof names the frames it knows only by
 * their mapping "[libc.so.6]", or "<unknown>" without one, and profkit's
 * pprof reader keeps those names: they are stand-ins too.
 */
#include <ctype.h>
#include <string.h>

#include "frames.h"

/* The names the model gives entry points (pk_context_name()) and the
 * reconstructed tree of a call graph gives its costs with no caller. */
static const char *const entry_names[] = {"main thread", "application thread", "unknown entry",
                                          "entry point", "<no caller>"};

#define UNKNOWN_FN "<unknown function> "

/* "MODULE+0xHEX" with no blank in MODULE: an instruction's name. */
static int address_name(const char *s)
{
    const char *plus = strrchr(s, '+');
    if (!plus || plus == s || plus[1] != '0' || plus[2] != 'x' || !plus[3]) return 0;
    for (const char *c = plus + 3; *c; c++)
        if (!isxdigit((unsigned char)*c)) return 0;
    for (const char *c = s; c < plus; c++)
        if (isspace((unsigned char)*c)) return 0;
    return 1;
}

/* "[libc.so.6]": pprof's name of a frame known by its mapping alone. */
static int mapping_name(const char *s)
{
    size_t n = strlen(s);
    if (n < 3 || s[0] != '[' || s[n - 1] != ']') return 0;
    for (size_t i = 1; i + 1 < n; i++)
        if (isspace((unsigned char)s[i]) || s[i] == '[' || s[i] == ']') return 0;
    return 1;
}

int pk_frames_stand_in(const char *name)
{
    for (size_t i = 0; i < sizeof entry_names / sizeof *entry_names; i++)
        if (strcmp(name, entry_names[i]) == 0) return 1;
    return address_name(name) || mapping_name(name) || strcmp(name, "<unknown>") == 0;
}

size_t pk_frames_key_name(const pk_profile *p, pk_index i, char *buf, size_t size)
{
    size_t n = pk_context_name(p, i, buf, size), pre = strlen(UNKNOWN_FN);
    if (n >= size || strncmp(buf, UNKNOWN_FN, pre) != 0 || !address_name(buf + pre)) return n;
    char *plus = strrchr(buf, '+'), *slash = NULL;
    for (char *c = buf + pre; c < plus; c++)
        if (*c == '/') slash = c;
    if (!slash) return n;
    memmove(buf + pre, slash + 1, strlen(slash + 1) + 1);
    return strlen(buf);
}
