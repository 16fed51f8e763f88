/*
 * output/json.c — the streaming JSON writer (RFC 8259) behind every
 * `--json` output. It keeps the grammar itself: which container is open
 * at every depth, whether a member name awaits its value, whether a
 * separator is due. Callers only say what to write; a call that would
 * break the grammar (a value without a member name, a name without a
 * value, closing the wrong container, a document left open) writes
 * nothing, and from then on nothing more is written and
 * pk_json_finish() reports it: the output is either a valid document or
 * visibly cut short, never a wrong one that parses.
 *
 * The nesting stack has a few levels inline and grows on the heap, so a
 * 100 000-deep calling-context tree nests as deep as it is. Pretty
 * indentation stops growing at PK_JSON_INDENT_LEVELS so the output stays
 * linear in the input however deep it nests.
 *
 * Strings follow one rule (docs/json.md): valid UTF-8 is copied; each
 * maximal ill-formed subsequence becomes U+FFFD (as the Unicode standard
 * recommends and Python's errors="replace" does); control characters
 * (U+0000-U+001F, U+007F-U+009F) and U+2028/U+2029 are \u escapes.
 * NaN and infinities are written as null.
 */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profkit/output.h"
#include "util/error.h"
#include "util/json_string.h"

/* One byte per open container. */
enum { LV_OBJECT = 1, LV_MEMBERS = 2, LV_NAMED = 4 };

pk_status pk_json_init(pk_json *j, FILE *out, int pretty)
{
    if (!j) return pk_fail(PK_ERR_INVALID_ARG, "JSON output: NULL writer");
    memset(j, 0, sizeof *j);
    j->out = out;
    j->pretty = pretty;
    if (!out) j->status = PK_ERR_INVALID_ARG, j->why = "no output stream";
    return j->status;
}

static unsigned char *level(pk_json *j, size_t d)
{
    return d < PK_JSON_INLINE_DEPTH ? &j->inline_levels[d] : &j->heap[d - PK_JSON_INLINE_DEPTH];
}

/* Record the first error; everything after it writes nothing. */
static pk_status fail(pk_json *j, pk_status st, const char *why)
{
    if (!j->status) j->status = st, j->why = why, j->error_depth = j->depth;
    return j->status;
}

static void put(pk_json *j, const char *s, size_t n)
{
    fwrite(s, 1, n, j->out);
}

static void emit_file(void *out, const char *bytes, size_t n)
{
    fwrite(bytes, 1, n, out);
}

static void write_string(pk_json *j, const char *s)
{
    fputc('"', j->out);
    pk_json_escape(s, strlen(s), emit_file, j->out);
    fputc('"', j->out);
}

static void newline_indent(pk_json *j)
{
    static const char spaces[] = "                                ";
    if (!j->pretty) return;
    size_t n = 2 * (j->depth < PK_JSON_INDENT_LEVELS ? j->depth : PK_JSON_INDENT_LEVELS);
    fputc('\n', j->out);
    for (; n > sizeof spaces - 1; n -= sizeof spaces - 1)
        put(j, spaces, sizeof spaces - 1);
    put(j, spaces, n);
}

/* The separator before an item of the innermost array, or the member
 * name's value in an object; refuses a value the grammar has no place
 * for. */
static pk_status before_value(pk_json *j)
{
    if (j->status) return j->status;
    if (j->depth == 0) {
        if (j->complete) return fail(j, PK_ERR_INVALID_ARG, "a second value after the document");
        return PK_OK;
    }
    unsigned char *lv = level(j, j->depth - 1);
    if (*lv & LV_OBJECT) {
        if (!(*lv & LV_NAMED)) return fail(j, PK_ERR_INVALID_ARG, "a value without a member name");
        *lv &= (unsigned char)~LV_NAMED;
        return PK_OK;
    }
    if (*lv & LV_MEMBERS) fputc(',', j->out);
    *lv |= LV_MEMBERS;
    newline_indent(j);
    return PK_OK;
}

/* A scalar or a closed container completed the value it was written as. */
static void after_value(pk_json *j)
{
    if (j->depth == 0) j->complete = 1;
}

static pk_status open_container(pk_json *j, int object)
{
    if (j->status) return j->status;
    if (j->depth >= PK_JSON_INLINE_DEPTH + j->heap_cap) {
        size_t cap = j->heap_cap ? 2 * j->heap_cap : 256;
        unsigned char *h = realloc(j->heap, cap);
        if (!h) return fail(j, PK_ERR_NOMEM, "out of memory for the nesting stack");
        j->heap = h, j->heap_cap = cap;
    }
    if (before_value(j)) return j->status;
    *level(j, j->depth++) = object ? LV_OBJECT : 0;
    fputc(object ? '{' : '[', j->out);
    return PK_OK;
}

static pk_status close_container(pk_json *j, int object)
{
    if (j->status) return j->status;
    if (j->depth == 0) return fail(j, PK_ERR_INVALID_ARG, "closing a container that is not open");
    unsigned char lv = *level(j, j->depth - 1);
    if (!(lv & LV_OBJECT) != !object)
        return fail(j, PK_ERR_INVALID_ARG,
                    object ? "closing an object where an array is open"
                           : "closing an array where an object is open");
    if (lv & LV_NAMED) return fail(j, PK_ERR_INVALID_ARG, "a member name without a value");
    j->depth--;
    if (lv & LV_MEMBERS) newline_indent(j);
    fputc(object ? '}' : ']', j->out);
    after_value(j);
    return PK_OK;
}

pk_status pk_json_object_begin(pk_json *j)
{
    return open_container(j, 1);
}

pk_status pk_json_object_end(pk_json *j)
{
    return close_container(j, 1);
}

pk_status pk_json_array_begin(pk_json *j)
{
    return open_container(j, 0);
}

pk_status pk_json_array_end(pk_json *j)
{
    return close_container(j, 0);
}

pk_status pk_json_key(pk_json *j, const char *key)
{
    if (j->status) return j->status;
    if (!key) return fail(j, PK_ERR_INVALID_ARG, "a NULL member name");
    unsigned char *lv = j->depth ? level(j, j->depth - 1) : NULL;
    if (!lv || !(*lv & LV_OBJECT))
        return fail(j, PK_ERR_INVALID_ARG, "a member name outside an object");
    if (*lv & LV_NAMED) return fail(j, PK_ERR_INVALID_ARG, "a member name without a value");
    if (*lv & LV_MEMBERS) fputc(',', j->out);
    *lv |= LV_MEMBERS | LV_NAMED;
    newline_indent(j);
    write_string(j, key);
    put(j, j->pretty ? ": " : ":", j->pretty ? 2 : 1);
    return PK_OK;
}

pk_status pk_json_string(pk_json *j, const char *s)
{
    if (!s) return pk_json_null(j);
    if (before_value(j)) return j->status;
    write_string(j, s);
    after_value(j);
    return PK_OK;
}

pk_status pk_json_string_fn(pk_json *j, pk_json_text_fn fn, void *user)
{
    char small[512], *buf = small;
    if (j->status) return j->status;
    size_t need = fn(user, small, sizeof small);
    if (need >= sizeof small) {
        if (need >= j->scratch_cap) {
            char *grown = realloc(j->scratch, need + 1);
            if (!grown) return fail(j, PK_ERR_NOMEM, "out of memory for a long string");
            j->scratch = grown, j->scratch_cap = need + 1;
        }
        buf = j->scratch;
        need = fn(user, buf, j->scratch_cap);
        if (need >= j->scratch_cap)
            return fail(j, PK_ERR_INVALID_ARG, "a string that kept growing");
    }
    if (before_value(j)) return j->status;
    fputc('"', j->out);
    pk_json_escape(buf, strnlen(buf, need), emit_file, j->out);
    fputc('"', j->out);
    after_value(j);
    return PK_OK;
}

static pk_status scalar(pk_json *j, const char *text, size_t n)
{
    if (before_value(j)) return j->status;
    put(j, text, n);
    after_value(j);
    return PK_OK;
}

pk_status pk_json_double(pk_json *j, double v)
{
    char buf[40];
    if (!isfinite(v)) return scalar(j, "null", 4);
    return scalar(j, buf, pk_format_double(buf, sizeof buf, v));
}

pk_status pk_json_uint(pk_json *j, uint64_t v)
{
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    return scalar(j, buf, (size_t)n);
}

pk_status pk_json_int(pk_json *j, int64_t v)
{
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%lld", (long long)v);
    return scalar(j, buf, (size_t)n);
}

pk_status pk_json_bool(pk_json *j, int v)
{
    return v ? scalar(j, "true", 4) : scalar(j, "false", 5);
}

pk_status pk_json_null(pk_json *j)
{
    return scalar(j, "null", 4);
}

pk_status pk_json_finish(pk_json *j)
{
    if (!j->status && !j->complete)
        fail(j, PK_ERR_INVALID_ARG,
             j->depth ? "the document ends inside a container" : "an empty document");
    if (!j->status) fputc('\n', j->out);
    if (!j->status && ferror(j->out)) fail(j, PK_ERR_IO, "the output stream failed");
    pk_status st = j->status;
    if (st)
        pk_fail(st, "JSON output: %s (at nesting depth %zu); the document is incomplete", j->why,
                j->error_depth);
    free(j->heap);
    free(j->scratch);
    FILE *out = j->out;
    int pretty = j->pretty;
    memset(j, 0, sizeof *j); /* ready for the next document (JSON lines) */
    j->out = out, j->pretty = pretty;
    return st;
}
