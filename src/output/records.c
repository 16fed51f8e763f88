/*
 * output/records.c — dump records as text lines or JSON lines.
 *
 * Text:  <file> 0x<offset> <type> key=value key=value ...
 *        strings in double quotes with C escapes, absent strings as -,
 *        reals in their shortest exact form.
 * JSON:  {"schema":"profkit.dump/1","file":..,"offset":..,"section":..,"type":..,
 *         "fields":{..}} per line.
 * docs/dump.md lists every record type and its fields.
 */
#include <stdio.h>

#include "profkit/output.h"
#include "util/text_escape.h"

static void write_quoted(FILE *out, const char *s)
{
    fputc('"', out);
    while (*s) {
        if (*s == '"' || *s == '\\')
            fprintf(out, "\\%c", *s++);
        else /* controls, invalid UTF-8, direction overrides: visible */
            s = pk_text_put_one(out, s);
    }
    fputc('"', out);
}

static void write_text_field(FILE *out, const pk_field *f)
{
    char buf[40];
    fprintf(out, " %s=", f->key);
    switch (f->type) {
    case PK_FIELD_UINT:
    case PK_FIELD_BOOL:
        fprintf(out, "%llu", (unsigned long long)f->v.u);
        break;
    case PK_FIELD_HEX:
        fprintf(out, "0x%llx", (unsigned long long)f->v.u);
        break;
    case PK_FIELD_REAL:
        pk_format_double(buf, sizeof buf, f->v.d);
        fputs(buf, out);
        break;
    case PK_FIELD_STR:
        if (f->v.s)
            write_quoted(out, f->v.s);
        else
            fputc('-', out);
        break;
    }
}

void pk_record_write_text(FILE *out, const pk_record *r)
{
    if (r->offset == PK_RECORD_NO_OFFSET)
        fprintf(out, "%s - %s", r->file ? r->file : "-", r->type);
    else
        fprintf(out, "%s 0x%08llx %s", r->file ? r->file : "-", (unsigned long long)r->offset,
                r->type);
    for (size_t i = 0; i < r->n_fields; i++)
        write_text_field(out, &r->fields[i]);
    fputc('\n', out);
}

pk_status pk_record_write_json(FILE *out, const pk_record *r)
{
    pk_json j;
    pk_json_init(&j, out, 0);
    pk_json_object_begin(&j);
    pk_json_key(&j, "schema");
    pk_json_string(&j, "profkit.dump/1");
    pk_json_key(&j, "file");
    pk_json_string(&j, r->file);
    pk_json_key(&j, "offset");
    if (r->offset == PK_RECORD_NO_OFFSET)
        pk_json_null(&j);
    else
        pk_json_uint(&j, r->offset);
    pk_json_key(&j, "section");
    pk_json_string(&j, r->section);
    pk_json_key(&j, "type");
    pk_json_string(&j, r->type);
    pk_json_key(&j, "fields"); /* nested: field names may be "offset", "file"... */
    pk_json_object_begin(&j);
    for (size_t i = 0; i < r->n_fields; i++) {
        const pk_field *f = &r->fields[i];
        pk_json_key(&j, f->key);
        switch (f->type) {
        case PK_FIELD_UINT:
        case PK_FIELD_HEX:
            pk_json_uint(&j, f->v.u);
            break;
        case PK_FIELD_BOOL:
            pk_json_bool(&j, (int)f->v.u);
            break;
        case PK_FIELD_REAL:
            pk_json_double(&j, f->v.d);
            break;
        case PK_FIELD_STR:
            pk_json_string(&j, f->v.s);
            break;
        }
    }
    pk_json_object_end(&j); /* fields */
    pk_json_object_end(&j);
    return pk_json_finish(&j);
}
