/*
 * formats/hpctoolkit/yaml_read.c — reading metrics/default.yaml's inputs,
 * presented metrics and insertion points (hk_yaml.h).
 *
 * One pass over libyaml's events with an explicit stack of open mappings
 * and sequences: a mapping directly inside the top-level `inputs`
 * sequence is an input, any mapping inside `roots` with a `name` is a
 * presented metric. Top-level keys must sit at column 0 for items to be
 * insertable: the writer adds text at the line where the next top-level
 * key (or the end of the mapping) starts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "hk_yaml.h"
#include "util/intern.h"
#include "util/vec.h"

enum { F_INPUTS = 1, F_ROOTS = 2 };

typedef struct frame {
    int is_map, expect_key, under; /* under: F_INPUTS or F_ROOTS (top-level key above) */
    size_t serial, up, near;       /* this mapping's number; the enclosing mapping's; the nearest */
    size_t maps;                   /* mappings enclosing it, itself included */
    const char *key;
    const char *name, *description, *unit;          /* roots */
    const char *metric, *scope, *formula, *combine; /* inputs */
} frame;

typedef struct walk {
    hk_yaml *y;
    frame *st;
    size_t n, cap, cap_in, cap_roots, cap_serial, serials;
    size_t *root_serial; /* per root: its mapping's serial (then: which root has it) */
    int top_key;         /* F_* of the top-level key whose value is open */
    size_t *pending_at;  /* where the open top-level value's insertion point goes */
    int block_top, failed;
    pk_interner anchors; /* defined so far, in document order */
    int undefined;       /* the last alias named no earlier anchor */
    /* libyaml's marks count characters, the insertion points are bytes:
     * a cursor over the text turns one into the other (marks only grow) */
    const char *text;
    size_t len, at_char, at_byte;
} walk;

/* The byte offset of character `index` (as libyaml counts them: code
 * points after a byte order mark; CRLF is two). */
static size_t byte_offset(walk *w, size_t index)
{
    const unsigned char *t = (const unsigned char *)w->text;
    if (index < w->at_char) w->at_char = 0, w->at_byte = 0;
    if (w->at_byte == 0 && w->len >= 3 && t[0] == 0xef && t[1] == 0xbb && t[2] == 0xbf)
        w->at_byte = 3;
    while (w->at_char < index && w->at_byte < w->len) {
        w->at_byte++;
        while (w->at_byte < w->len && (t[w->at_byte] & 0xc0) == 0x80)
            w->at_byte++;
        w->at_char++;
    }
    return w->at_byte;
}

static const char *copy(walk *w, const yaml_event_t *e)
{
    char *s =
        pk_arena_strndup(&w->y->arena, (const char *)e->data.scalar.value, e->data.scalar.length);
    if (!s) w->failed = 1;
    return s;
}

static void push(walk *w, int is_map, int under)
{
    if (pk_vec_reserve((void **)&w->st, &w->cap, w->n + 1, sizeof *w->st)) {
        w->failed = 1;
        return;
    }
    size_t up = w->n ? w->st[w->n - 1].near : 0; /* sequences in between do not count */
    size_t serial = is_map ? ++w->serials : 0, maps = (w->n ? w->st[w->n - 1].maps : 0) + !!is_map;
    w->st[w->n++] = (frame){.is_map = is_map,
                            .expect_key = 1,
                            .under = under,
                            .serial = serial,
                            .up = up,
                            .near = is_map ? serial : up,
                            .maps = maps};
}

/* A mapping closes: an input or a presented metric? */
static void close_map(walk *w, const frame *f)
{
    hk_yaml *y = w->y;
    if (f->under == F_INPUTS && w->n == 2 && f->metric) { /* top map, inputs seq, item */
        if (pk_vec_reserve((void **)&y->inputs, &w->cap_in, y->n_inputs + 1, sizeof *y->inputs)) {
            w->failed = 1;
            return;
        }
        y->inputs[y->n_inputs++] =
            (hk_yaml_input){f->metric, f->scope ? f->scope : "", f->formula ? f->formula : "$$",
                            f->combine ? f->combine : "sum"};
    } else if (f->under == F_ROOTS && f->name) {
        if (pk_vec_reserve((void **)&y->roots, &w->cap_roots, y->n_roots + 1, sizeof *y->roots) ||
            pk_vec_reserve((void **)&w->root_serial, &w->cap_serial, y->n_roots + 1,
                           sizeof *w->root_serial)) {
            w->failed = 1;
            return;
        }
        w->root_serial[y->n_roots] = f->serial;
        /* nesting deeper than any taxonomy profkit writes is not followed */
        size_t up = f->maps <= 4 * HK_YAML_MAX_NEST ? f->up : 0;
        y->roots[y->n_roots++] = (hk_yaml_root){f->name, f->description, f->unit, up};
    }
}

/* A scalar value for key `k` of mapping f. */
static void take_value(walk *w, frame *f, const yaml_event_t *e)
{
    static const struct {
        const char *key;
        size_t off;
    } fields[] = {
        {"name", offsetof(frame, name)},      {"description", offsetof(frame, description)},
        {"unit", offsetof(frame, unit)},      {"metric", offsetof(frame, metric)},
        {"scope", offsetof(frame, scope)},    {"formula", offsetof(frame, formula)},
        {"combine", offsetof(frame, combine)}};
    for (size_t i = 0; f->key && i < sizeof fields / sizeof fields[0]; i++)
        if (!strcmp(f->key, fields[i].key))
            *(const char **)((char *)f + fields[i].off) = copy(w, e);
}

/* A top-level key: which section starts, and where the one before ends.
 * `key` is NULL for a key that is no scalar (an alias, `? [a, b]`): items
 * cannot be placed around such text by lines, so insertion is off. */
static void top_key(walk *w, const yaml_event_t *e, const char *key)
{
    if (w->pending_at)
        *w->pending_at = w->block_top ? byte_offset(w, e->start_mark.index) : (size_t)-1;
    w->pending_at = NULL;
    w->top_key = !key ? 0 : !strcmp(key, "inputs") ? F_INPUTS : !strcmp(key, "roots") ? F_ROOTS : 0;
    if (!key || e->start_mark.column != 0) w->block_top = 0;
}

/* The value of a top-level key opens: is it a block sequence we can add to? */
static void top_value(walk *w, const yaml_event_t *e)
{
    if (!w->top_key) return;
    hk_yaml *y = w->y;
    int block = e->type == YAML_SEQUENCE_START_EVENT &&
                e->data.sequence_start.style == YAML_BLOCK_SEQUENCE_STYLE;
    size_t *at = w->top_key == F_INPUTS ? &y->inputs_at : &y->roots_at;
    size_t *indent = w->top_key == F_INPUTS ? &y->inputs_indent : &y->roots_indent;
    *at = (size_t)-1;
    if (!block) return;
    *indent = e->start_mark.column;
    w->pending_at = at;
}

/* A node of any kind (scalar, alias, collection) began in mapping f as
 * its key: remember a scalar key's text, NULL for any other. */
static void begin_key(walk *w, frame *f, const yaml_event_t *e)
{
    f->key = e->type == YAML_SCALAR_EVENT ? copy(w, e) : NULL;
    if (w->n == 1 && (f->key || e->type != YAML_SCALAR_EVENT)) top_key(w, e, f->key);
}

/* A node of mapping f is complete: keys and values alternate. */
static void node_done(frame *f)
{
    if (f && f->is_map) f->expect_key = !f->expect_key;
}

/* An anchor defined or an alias used: aliases may only name anchors
 * defined before them. */
static void track_anchor(walk *w, const yaml_event_t *e)
{
    const yaml_char_t *a = e->type == YAML_SCALAR_EVENT           ? e->data.scalar.anchor
                           : e->type == YAML_MAPPING_START_EVENT  ? e->data.mapping_start.anchor
                           : e->type == YAML_SEQUENCE_START_EVENT ? e->data.sequence_start.anchor
                           : e->type == YAML_ALIAS_EVENT          ? e->data.alias.anchor
                                                                  : NULL;
    if (!a) return;
    size_t before = w->anchors.count;
    if (!pk_intern_cstr(&w->anchors, (const char *)a)) {
        w->failed = 1;
        return;
    }
    int seen = w->anchors.count == before;
    if (e->type == YAML_ALIAS_EVENT && !seen) w->undefined = 1;
    if (e->type != YAML_ALIAS_EVENT && seen) w->y->anchors_redefined++;
}

static void on_event(walk *w, const yaml_event_t *e)
{
    track_anchor(w, e);
    frame *f = w->n ? &w->st[w->n - 1] : NULL;
    int is_key = f && f->is_map && f->expect_key, is_value = f && f->is_map && !f->expect_key;
    switch (e->type) {
    case YAML_MAPPING_START_EVENT:
    case YAML_SEQUENCE_START_EVENT: {
        if (is_key) begin_key(w, f, e); /* a collection as key: no section of ours */
        if (w->n == 1 && is_value) top_value(w, e);
        int under = f ? (w->n == 1 ? w->top_key : f->under) : 0;
        if (w->n == 0 && e->type == YAML_MAPPING_START_EVENT)
            w->block_top = e->data.mapping_start.style == YAML_BLOCK_MAPPING_STYLE;
        push(w, e->type == YAML_MAPPING_START_EVENT, under);
        return;
    }
    case YAML_MAPPING_END_EVENT:
    case YAML_SEQUENCE_END_EVENT: {
        frame done = w->st[--w->n];
        if (done.is_map) close_map(w, &done);
        if (w->n == 0 && w->pending_at)
            *w->pending_at = w->block_top ? byte_offset(w, e->start_mark.index) : (size_t)-1;
        node_done(w->n ? &w->st[w->n - 1] : NULL);
        return;
    }
    case YAML_SCALAR_EVENT:
    case YAML_ALIAS_EVENT:
        if (is_key)
            begin_key(w, f, e);
        else if (is_value && e->type == YAML_SCALAR_EVENT)
            take_value(w, f, e);
        node_done(f);
        return;
    default: /* stream and document events */
        return;
    }
}

static int cmp_pair(const void *a, const void *b)
{
    const size_t *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Roots recorded their enclosing mapping's serial: which root is that?
 * (A mapping between them, such as a variant, is no root: nesting in the
 * taxonomy goes through `children` sequences only.) */
static pk_status link_parents(walk *w)
{
    hk_yaml *y = w->y;
    size_t *pairs = malloc((y->n_roots + 1) * 2 * sizeof *pairs);
    if (!pairs) return PK_ERR_NOMEM;
    for (size_t i = 0; i < y->n_roots; i++)
        pairs[2 * i] = w->root_serial[i], pairs[2 * i + 1] = i;
    qsort(pairs, y->n_roots, 2 * sizeof *pairs, cmp_pair);
    for (size_t i = 0; i < y->n_roots; i++) {
        size_t key[2] = {y->roots[i].parent, 0};
        size_t *hit = key[0] ? bsearch(key, pairs, y->n_roots, 2 * sizeof *pairs, cmp_pair) : NULL;
        y->roots[i].parent = hit ? hit[1] : (size_t)-1;
    }
    free(pairs);
    return PK_OK;
}

pk_status hk_yaml_parse(const char *text, size_t len, hk_yaml *y)
{
    memset(y, 0, sizeof *y);
    pk_arena_init(&y->arena);
    y->inputs_at = y->roots_at = (size_t)-1;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) return pk_fail_nomem("reading metrics/default.yaml");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    walk w = {.y = y, .text = text, .len = len};
    pk_intern_init(&w.anchors, &y->arena);
    pk_status st = PK_OK;
    int top_is_map = 0, done = 0;
    while (!done && !st && !w.failed) {
        yaml_event_t e;
        if (!yaml_parser_parse(&parser, &e)) {
            st = pk_fail(PK_ERR_FORMAT, "metrics/default.yaml: line %zu column %zu: %s",
                         parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                         parser.problem ? parser.problem : "not YAML");
            break;
        }
        if (e.type == YAML_MAPPING_START_EVENT && w.n == 0) top_is_map = 1;
        done = e.type == YAML_STREAM_END_EVENT || e.type == YAML_DOCUMENT_END_EVENT;
        on_event(&w, &e);
        if (w.undefined)
            st = pk_fail(PK_ERR_FORMAT,
                         "metrics/default.yaml: line %zu column %zu: alias *%s names no anchor "
                         "defined before it",
                         e.start_mark.line + 1, e.start_mark.column + 1,
                         (const char *)e.data.alias.anchor);
        yaml_event_delete(&e);
    }
    yaml_parser_delete(&parser);
    free(w.st);
    pk_intern_free(&w.anchors);
    if (!st && !w.failed && link_parents(&w) != PK_OK) w.failed = 1;
    free(w.root_serial);
    if (!st && w.failed) st = pk_fail_nomem("reading metrics/default.yaml");
    if (!st && !top_is_map)
        st = pk_fail(PK_ERR_FORMAT, "metrics/default.yaml: the document is not a mapping");
    return st;
}

void hk_yaml_free(hk_yaml *y)
{
    free(y->inputs);
    free(y->roots);
    pk_arena_free(&y->arena);
    memset(y, 0, sizeof *y);
}

static const char *combine_name(pk_combine c)
{
    return c == PK_COMBINE_MIN ? "min" : c == PK_COMBINE_MAX ? "max" : "sum";
}

int hk_yaml_input_known(const pk_profile *p, const hk_yaml_input *in)
{
    for (uint32_t i = 0; i < p->n_columns; i++) {
        const pk_column *c = &p->columns[i];
        const char *m = p->metrics[c->metric].name, *s = p->scopes[c->scope].name;
        if (c->is_summary && m && s && !strcmp(m, in->metric) && !strcmp(s, in->scope) &&
            !strcmp(c->formula ? c->formula : "$$", in->formula) &&
            !strcmp(combine_name(c->combine), in->combine))
            return 1;
    }
    return 0;
}
