/*
 * analysis/expr.c — derived metrics: arithmetic over metric names
 * ("D1mr/Dr", "(Ir - Dr) * 2"), compiled once to a postfix program and
 * evaluated on values a view has already aggregated (a ratio of sums,
 * never a sum of ratios). Grammar (docs/derived.md):
 *   expr   := term (('+' | '-') term)*
 *   term   := factor (('*' | '/') factor)*
 *   factor := NUMBER | NAME | '"' text '"' | '(' expr ')' | '-' factor
 *   NAME   := [A-Za-z_][A-Za-z0-9_.]*
 * Expressions are short text from a command line: the parser's recursion
 * is bounded by PK_EXPR_MAX_DEPTH nesting levels.
 */
#define _POSIX_C_SOURCE 200809L /* strndup */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profkit/analysis.h"
#include "util/error.h"

#define PK_EXPR_MAX_OPS   256
#define PK_EXPR_MAX_VARS  32
#define PK_EXPR_MAX_DEPTH 32

enum { OP_NUM, OP_VAR, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_NEG };

typedef struct op {
    int kind;
    double num;   /* OP_NUM */
    unsigned var; /* OP_VAR */
} op;

struct pk_expr {
    op ops[PK_EXPR_MAX_OPS];
    size_t n_ops, n_vars;
    char *vars[PK_EXPR_MAX_VARS];
};

typedef struct parser {
    const char *text, *s;
    pk_expr *e;
    int depth;
} parser;

static pk_status bad(const parser *p, const char *what)
{
    return pk_fail(PK_ERR_INVALID_ARG, "expression '%s': %s at character %zu", p->text, what,
                   (size_t)(p->s - p->text) + 1);
}

static void skip(parser *p)
{
    while (isspace((unsigned char)*p->s))
        p->s++;
}

static pk_status emit(parser *p, op o)
{
    if (p->e->n_ops == PK_EXPR_MAX_OPS) return bad(p, "too long");
    p->e->ops[p->e->n_ops++] = o;
    return PK_OK;
}

static pk_status variable(parser *p, const char *name, size_t len)
{
    pk_expr *e = p->e;
    unsigned i = 0;
    while (i < e->n_vars && !(strlen(e->vars[i]) == len && memcmp(e->vars[i], name, len) == 0))
        i++;
    if (i == e->n_vars) {
        if (i == PK_EXPR_MAX_VARS) return bad(p, "too many metrics");
        if (!(e->vars[i] = strndup(name, len))) return pk_fail_nomem("parsing an expression");
        e->n_vars++;
    }
    return emit(p, (op){OP_VAR, 0, i});
}

static pk_status expr(parser *p);

static pk_status factor(parser *p)
{
    skip(p);
    const char *at = p->s;
    if (*at == '(') {
        p->s++;
        pk_status st = expr(p);
        if (st) return st; /* p->s may be at the end: go no further */
        skip(p);
        if (*p->s != ')') return bad(p, "')' expected");
        p->s++;
        return PK_OK;
    }
    if (*at == '-') { /* "- - -x" nests as parentheses do */
        p->s++;
        if (++p->depth > PK_EXPR_MAX_DEPTH) return bad(p, "nested too deep");
        pk_status st = factor(p);
        p->depth--;
        return st ? st : emit(p, (op){OP_NEG, 0, 0});
    }
    if (*at == '"') {
        const char *end = strchr(at + 1, '"');
        if (!end || end == at + 1) return bad(p, "a quoted metric name expected");
        p->s = end + 1;
        return variable(p, at + 1, (size_t)(end - at - 1));
    }
    if (isdigit((unsigned char)*at) || *at == '.') {
        char *end;
        double v = strtod(at, &end);
        if (end == at || !isfinite(v)) return bad(p, "a number expected");
        p->s = end;
        return emit(p, (op){OP_NUM, v, 0});
    }
    if (isalpha((unsigned char)*at) || *at == '_') {
        while (isalnum((unsigned char)*p->s) || *p->s == '_' || *p->s == '.')
            p->s++;
        return variable(p, at, (size_t)(p->s - at));
    }
    return bad(p, *at ? "a metric, a number or '(' expected" : "unexpected end");
}

static pk_status term(parser *p)
{
    pk_status st = factor(p);
    for (skip(p); !st && (*p->s == '*' || *p->s == '/'); skip(p)) {
        int kind = *p->s++ == '*' ? OP_MUL : OP_DIV;
        st = factor(p);
        if (!st) st = emit(p, (op){kind, 0, 0});
    }
    return st;
}

static pk_status expr(parser *p)
{
    if (++p->depth > PK_EXPR_MAX_DEPTH) return bad(p, "nested too deep");
    pk_status st = term(p);
    for (skip(p); !st && (*p->s == '+' || *p->s == '-'); skip(p)) {
        int kind = *p->s++ == '+' ? OP_ADD : OP_SUB;
        st = term(p);
        if (!st) st = emit(p, (op){kind, 0, 0});
    }
    p->depth--;
    return st;
}

pk_status pk_expr_parse(const char *text, pk_expr **out)
{
    if (!text || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_expr_parse: NULL");
    pk_expr *e = calloc(1, sizeof *e);
    if (!e) return pk_fail_nomem("parsing an expression");
    parser p = {text, text, e, 0};
    pk_status st = expr(&p);
    skip(&p);
    if (!st && *p.s) /* "perf::cycles": a name that needs quotes, most likely */
        st = bad(&p, *p.s == ':' || *p.s == '(' || *p.s == '@' || *p.s == '-'
                         ? "operator expected (a metric name holding other characters than "
                           "letters, digits, '_' and '.' goes in double quotes: \"perf::cycles\")"
                         : "operator expected");
    if (st) {
        pk_expr_free(e);
        return st;
    }
    *out = e;
    return PK_OK;
}

size_t pk_expr_var_count(const pk_expr *e)
{
    return e ? e->n_vars : 0;
}

const char *pk_expr_var_name(const pk_expr *e, size_t i)
{
    return e && i < e->n_vars ? e->vars[i] : NULL;
}

double pk_expr_eval(const pk_expr *e, const double *vars)
{
    double stack[PK_EXPR_MAX_OPS];
    size_t top = 0;
    for (size_t i = 0; i < e->n_ops; i++) {
        const op *o = &e->ops[i];
        if (o->kind == OP_NUM) {
            stack[top++] = o->num;
        } else if (o->kind == OP_VAR) {
            stack[top++] = vars[o->var];
        } else if (o->kind == OP_NEG) {
            stack[top - 1] = -stack[top - 1];
        } else {
            double b = stack[--top], a = stack[top - 1];
            stack[top - 1] = o->kind == OP_ADD   ? a + b
                             : o->kind == OP_SUB ? a - b
                             : o->kind == OP_MUL ? a * b
                             : b != 0            ? a / b
                                                 : NAN; /* x/0: no value, not infinity */
        }
    }
    return top == 1 ? stack[0] : NAN;
}

void pk_expr_free(pk_expr *e)
{
    if (!e) return;
    for (size_t i = 0; i < e->n_vars; i++)
        free(e->vars[i]);
    free(e);
}
