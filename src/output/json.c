/*
 * output/json.c — a small streaming JSON writer (RFC 8259): commas,
 * nesting and string escaping handled here so callers only say what to
 * write, never how.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "profkit/output.h"

void pk_json_init(pk_json *j, FILE *out, int pretty)
{
    memset(j, 0, sizeof *j);
    j->out = out;
    j->pretty = pretty;
}

static void newline_indent(pk_json *j)
{
    if (!j->pretty) return;
    fputc('\n', j->out);
    for (int i = 0; i < j->depth; i++)
        fputs("  ", j->out);
}

/* Separator and indentation before a value (or a key). */
static void before_value(pk_json *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (j->depth > 0) {
        if (j->need_comma[j->depth]) fputc(',', j->out);
        j->need_comma[j->depth] = 1;
        newline_indent(j);
    }
}

static void open_container(pk_json *j, char c)
{
    before_value(j);
    fputc(c, j->out);
    if (j->depth < PK_JSON_MAX_DEPTH - 1) j->depth++;
    j->need_comma[j->depth] = 0;
}

static void close_container(pk_json *j, char c)
{
    int had_members = j->need_comma[j->depth];
    if (j->depth > 0) j->depth--;
    if (had_members) newline_indent(j);
    fputc(c, j->out);
}

void pk_json_object_begin(pk_json *j)
{
    open_container(j, '{');
}

void pk_json_object_end(pk_json *j)
{
    close_container(j, '}');
}

void pk_json_array_begin(pk_json *j)
{
    open_container(j, '[');
}

void pk_json_array_end(pk_json *j)
{
    close_container(j, ']');
}

static void write_escaped(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", out);
            break;
        case '\\':
            fputs("\\\\", out);
            break;
        case '\n':
            fputs("\\n", out);
            break;
        case '\r':
            fputs("\\r", out);
            break;
        case '\t':
            fputs("\\t", out);
            break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

void pk_json_key(pk_json *j, const char *key)
{
    before_value(j);
    write_escaped(j->out, key);
    fputs(j->pretty ? ": " : ":", j->out);
    j->after_key = 1;
}

void pk_json_string(pk_json *j, const char *s)
{
    before_value(j);
    if (s)
        write_escaped(j->out, s);
    else
        fputs("null", j->out);
}

void pk_json_double(pk_json *j, double v)
{
    before_value(j);
    if (!isfinite(v)) {
        fputs("null", j->out);
        return;
    }
    char buf[40];
    pk_format_double(buf, sizeof buf, v);
    fputs(buf, j->out);
}

void pk_json_uint(pk_json *j, uint64_t v)
{
    before_value(j);
    fprintf(j->out, "%llu", (unsigned long long)v);
}

void pk_json_int(pk_json *j, int64_t v)
{
    before_value(j);
    fprintf(j->out, "%lld", (long long)v);
}

void pk_json_bool(pk_json *j, int v)
{
    before_value(j);
    fputs(v ? "true" : "false", j->out);
}

void pk_json_null(pk_json *j)
{
    before_value(j);
    fputs("null", j->out);
}

void pk_json_finish(pk_json *j)
{
    fputc('\n', j->out);
}
