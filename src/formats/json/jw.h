/*
 * formats/json/jw.h — the JSON writer's state and its small emitters,
 * shared by write.c (the model) and write_cg.c (the call graph).
 */
#ifndef PK_FORMATS_JSON_JW_H
#define PK_FORMATS_JSON_JW_H

#include "json.h"
#include "model/model.h"
#include "profkit/output.h"
#include "util/outfile.h"

typedef struct jw {
    const pk_profile *p;
    const pk_write_options *opts;
    pk_write_stats *stats;
    pk_out o;
    uint64_t total; /* estimated bytes, for progress */
    uint64_t next_progress;
    int no_trace;
} jw;

void jw_raw(jw *w, const char *s);
void jw_str(jw *w, const char *s); /* NULL as null */
void jw_u64(jw *w, uint64_t v);
void jw_idx(jw *w, uint32_t v); /* PK_NONE as null */
void jw_bool(jw *w, int v);
void jw_double(jw *w, double v);
void jw_key(jw *w, const char *key);
void jw_item(jw *w, uint64_t i);
void jw_list_begin(jw *w, const char *key);
void jw_list_end(jw *w, uint64_t n);
void jw_progress(jw *w);
/* A double as the schema writes it (number, or a string for non-finite
 * values), NUL-terminated; returns its length. */
size_t jw_format_double(char *buf, size_t size, double v);

/* write_cg.c: the "callgraph" member. */
void json_put_callgraph(jw *w);

#endif
