/*
 * python/src/analyses.c — the analyses a Profile answers as whole tables:
 * the flat profile, callers of a function, per-location totals, diffs of
 * two profiles, and writing a profile in another format. Each returns
 * plain lists and NumPy arrays that profkit/__init__.py turns into
 * DataFrames.
 */
#include "pyprofkit.h"

#include <stdlib.h>
#include <string.h>

#define PROFILE(o) (((ProfileObject *)(o))->p)

typedef struct named_row {
    const pk_profile *p;
    pk_group_by by;
    const pk_flat_row *row;
    const pk_frame *frame;
} named_row;

static size_t row_namer(const void *arg, char *buf, size_t size)
{
    const named_row *a = arg;
    return pk_flat_row_name(a->p, a->by, a->row, buf, size);
}

static size_t frame_namer(const void *arg, char *buf, size_t size)
{
    const named_row *a = arg;
    return pk_frame_name(a->p, a->frame, buf, size);
}

/* Set d[key] to a new reference `v` (consumed); 0 on failure. */
static int put(PyObject *d, const char *key, PyObject *v)
{
    int rc = v ? PyDict_SetItemString(d, key, v) : -1;
    Py_XDECREF(v);
    return rc == 0;
}

static const char *const by_names[] = {"function", "file", "module", "line"};

static int parse_by(const char *s, pk_group_by *out)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(s, by_names[i]) == 0) return *out = (pk_group_by)i, 0;
    PyErr_Format(PyExc_ValueError, "by must be function, file, module or line, not '%s'", s);
    return -1;
}

/* Inclusive and exclusive values of `m` per context, summed over the
 * locations (excl NULL when the metric has no exclusive values). */
static pk_status tree_values(const pk_profile *p, pk_index m, double **incl, double **excl)
{
    size_t n = pk_context_count(p);
    *incl = calloc(n + 1, sizeof **incl);
    *excl = calloc(n + 1, sizeof **excl);
    if (!*incl || !*excl) return PK_ERR_NOMEM;
    pk_status st =
        pk_context_stat_values(p, m, PK_SCOPE_INCLUSIVE, NULL, PK_ACROSS_SUM, *incl, n, NULL);
    if (!st && pk_context_stat_values(p, m, PK_SCOPE_EXCLUSIVE, NULL, PK_ACROSS_SUM, *excl, n,
                                      NULL) != PK_OK) {
        free(*excl); /* a min/max metric stored inclusive */
        *excl = NULL;
    }
    return st;
}

static PyObject *flat_dict(const pk_profile *p, pk_group_by by, const pk_flat_row *r, size_t n,
                           int from_cg)
{
    PyObject *d = PyDict_New(), *names = PyList_New((Py_ssize_t)n);
    double *ex, *in, *cnt;
    PyObject *aex = pyprofkit_doubles(n, &ex), *ain = pyprofkit_doubles(n, &in);
    PyObject *acnt = pyprofkit_doubles(n, &cnt);
    int ok = d && names && aex && ain && acnt;
    for (size_t i = 0; ok && i < n; i++) {
        named_row at = {.p = p, .by = by, .row = &r[i]};
        PyObject *s = pyprofkit_name(row_namer, &at);
        if (!s)
            ok = 0;
        else
            PyList_SET_ITEM(names, (Py_ssize_t)i, s);
        ex[i] = r[i].exclusive, in[i] = r[i].inclusive;
        cnt[i] = from_cg ? r[i].calls : (double)r[i].n_contexts;
    }
    ok = ok && put(d, "name", Py_NewRef(names)) && put(d, "exclusive", Py_NewRef(aex)) &&
         put(d, "inclusive", Py_NewRef(ain)) &&
         put(d, from_cg ? "calls" : "contexts", Py_NewRef(acnt));
    Py_XDECREF(names), Py_XDECREF(aex), Py_XDECREF(ain), Py_XDECREF(acnt);
    if (!ok) Py_CLEAR(d);
    return d;
}

/* Rows from the call graph when the profile has one (as `profkit flat`
 * answers), else from the calling-context tree. */
static pk_status flat_rows(const pk_profile *p, pk_index m, pk_group_by by, int use_cg,
                           pk_flat_row **rows, size_t *n, int *from_cg, int *has_excl)
{
    size_t event;
    *from_cg = use_cg && pk_callgraph_metric_event(p, m, &event) == PK_OK;
    *has_excl = 1;
    if (*from_cg) return pk_callgraph_flat(p, PK_NONE, event, by, rows, n);
    double *incl = NULL, *excl = NULL;
    pk_status st = tree_values(p, m, &incl, &excl);
    if (!st) st = pk_flat_profile(p, incl, excl, by, rows, n);
    *has_excl = excl != NULL;
    free(incl), free(excl);
    return st;
}

PyObject *pyprofkit_flat(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"metric", "by", "callgraph", NULL};
    const pk_profile *p = PROFILE(self);
    PyObject *spec = NULL;
    const char *by_name = "function";
    int use_cg = 1, from_cg = 0, has_excl = 1;
    pk_index m;
    pk_group_by by;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|Osp", kwlist, &spec, &by_name, &use_cg) ||
        pyprofkit_metric(p, spec, &m) || parse_by(by_name, &by))
        return NULL;
    pk_flat_row *rows = NULL;
    size_t n = 0;
    pk_status st;
    Py_BEGIN_ALLOW_THREADS;
    st = flat_rows(p, m, by, use_cg, &rows, &n, &from_cg, &has_excl);
    Py_END_ALLOW_THREADS;
    if (st) return pyprofkit_raise(st);
    PyObject *d = flat_dict(p, by, rows, n, from_cg);
    pk_flat_free(rows);
    if (d && !(put(d, "source", PyUnicode_FromString(from_cg ? "callgraph" : "tree")) &&
               put(d, "has_exclusive", PyBool_FromLong(has_excl))))
        Py_CLEAR(d);
    return d;
}

static PyObject *frames_dict(const pk_profile *p, const pk_frame *f, size_t n)
{
    PyObject *d = PyDict_New(), *names = PyList_New((Py_ssize_t)n);
    double *par, *dep, *in, *self;
    PyObject *apar = pyprofkit_doubles(n, &par), *adep = pyprofkit_doubles(n, &dep);
    PyObject *ain = pyprofkit_doubles(n, &in), *aself = pyprofkit_doubles(n, &self);
    int ok = d && names && apar && adep && ain && aself;
    for (size_t i = 0; ok && i < n; i++) {
        named_row at = {.p = p, .frame = &f[i]};
        PyObject *s = pyprofkit_name(frame_namer, &at);
        if (!s)
            ok = 0;
        else
            PyList_SET_ITEM(names, (Py_ssize_t)i, s);
        par[i] = f[i].parent == PK_NONE ? -1.0 : (double)f[i].parent;
        dep[i] = f[i].depth, in[i] = f[i].inclusive, self[i] = f[i].self;
    }
    ok = ok && put(d, "name", Py_NewRef(names)) && put(d, "parent", Py_NewRef(apar)) &&
         put(d, "depth", Py_NewRef(adep)) && put(d, "inclusive", Py_NewRef(ain)) &&
         put(d, "self", Py_NewRef(aself));
    Py_XDECREF(names), Py_XDECREF(apar), Py_XDECREF(adep), Py_XDECREF(ain), Py_XDECREF(aself);
    if (!ok) Py_CLEAR(d);
    return d;
}

static pk_status around(const pk_profile *p, pk_index m, const char *name, int callers,
                        pk_frame **out, size_t *n_out)
{
    size_t n = pk_context_count(p), nf = 0;
    double *incl = calloc(n + 1, sizeof *incl);
    pk_frame *frames = NULL;
    if (!incl) return PK_ERR_NOMEM;
    pk_status st =
        pk_context_stat_values(p, m, PK_SCOPE_INCLUSIVE, NULL, PK_ACROSS_SUM, incl, n, NULL);
    if (!st) st = pk_frames_build(p, incl, &frames, &nf);
    if (!st) st = pk_frames_around(p, frames, nf, name, callers, out, n_out);
    pk_frames_free(frames);
    free(incl);
    return st;
}

PyObject *pyprofkit_callers(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"name", "metric", "callees", NULL};
    const pk_profile *p = PROFILE(self);
    PyObject *spec = NULL;
    const char *name;
    int callees = 0;
    pk_index m;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s|Op", kwlist, &name, &spec, &callees) ||
        pyprofkit_metric(p, spec, &m))
        return NULL;
    pk_frame *f = NULL;
    size_t n = 0;
    pk_status st;
    Py_BEGIN_ALLOW_THREADS;
    st = around(p, m, name, !callees, &f, &n);
    Py_END_ALLOW_THREADS;
    if (st) return pyprofkit_raise(st);
    PyObject *d = frames_dict(p, f, n);
    pk_frames_free(f);
    return d;
}

PyObject *pyprofkit_threads(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"metric", NULL};
    const pk_profile *p = PROFILE(self);
    PyObject *spec = NULL;
    pk_index m;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O", kwlist, &spec) ||
        pyprofkit_metric(p, spec, &m))
        return NULL;
    double *out;
    size_t n = pk_location_count(p);
    PyObject *a = pyprofkit_doubles(n, &out);
    if (!a) return NULL;
    pk_status st;
    Py_BEGIN_ALLOW_THREADS;
    st = pk_location_totals(p, m, out, n);
    Py_END_ALLOW_THREADS;
    if (st) {
        Py_DECREF(a);
        return pyprofkit_raise(st);
    }
    return a;
}

/* ---------------------------------------------------------------- */
/* Writing                                                          */
/* ---------------------------------------------------------------- */

static int parse_format(const char *s, pk_format *out)
{
    static const struct {
        const char *name;
        pk_format f;
    } names[] = {{"hpctoolkit", PK_FORMAT_HPCTOOLKIT_V4},
                 {"callgrind", PK_FORMAT_CALLGRIND},
                 {"cube", PK_FORMAT_CUBE},
                 {"json", PK_FORMAT_JSON}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].name) == 0) return *out = names[i].f, 0;
    PyErr_Format(PyExc_ValueError, "format must be hpctoolkit, callgrind, cube or json, not '%s'",
                 s);
    return -1;
}

/* The writer calls back on this thread (the GIL is held): items it leaves
 * out go to a Python list. */
static void on_loss(void *user, const char *item, const char *reason)
{
    PyObject *t = Py_BuildValue("(ss)", item ? item : "", reason ? reason : "");
    if (t) PyList_Append((PyObject *)user, t);
    Py_XDECREF(t);
}

PyObject *pyprofkit_write(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"path", "format", "force", "strict", NULL};
    PyObject *path_obj;
    const char *fmt_name;
    int force = 0, strict = 0;
    pk_format fmt;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&s|pp", kwlist, PyUnicode_FSConverter, &path_obj,
                                     &fmt_name, &force, &strict))
        return NULL;
    PyObject *lost = parse_format(fmt_name, &fmt) ? NULL : PyList_New(0);
    if (!lost) {
        Py_DECREF(path_obj);
        return NULL;
    }
    pk_write_options o = {.loss = on_loss, .loss_user = lost};
    o.flags = (force ? PK_WRITE_FORCE : 0) | (strict ? PK_WRITE_STRICT : 0);
    pk_status st = pk_profile_write(PROFILE(self), fmt, PyBytes_AS_STRING(path_obj), &o, NULL);
    Py_DECREF(path_obj);
    if (st) {
        Py_DECREF(lost);
        return pyprofkit_raise(st);
    }
    return lost;
}

/* ---------------------------------------------------------------- */
/* Comparing two profiles                                           */
/* ---------------------------------------------------------------- */

typedef struct diff_side {
    const pk_profile *p;
    pk_index metric;
    pk_frame *frames;
    size_t n;
} diff_side;

static pk_status side_frames(diff_side *s)
{
    size_t n = pk_context_count(s->p);
    double *incl = calloc(n + 1, sizeof *incl);
    if (!incl) return PK_ERR_NOMEM;
    pk_status st = pk_context_stat_values(s->p, s->metric, PK_SCOPE_INCLUSIVE, NULL, PK_ACROSS_SUM,
                                          incl, n, NULL);
    if (!st) st = pk_frames_build_paths(s->p, incl, &s->frames, &s->n);
    free(incl);
    return st;
}

/* A side's call graph's exact per-function costs (what `profkit diff` and
 * `flat` compare; "<cycle N>" pseudo-functions hidden, cycles' members
 * flagged), or 0 when it has none. */
static int side_exact(const diff_side *s, pk_diff_exact *x)
{
    size_t event, nf = pk_function_count(s->p);
    if (pk_callgraph_metric_event(s->p, s->metric, &event) != PK_OK) return 0;
    pk_cg_function_cost *c = calloc(nf + 1, sizeof *c);
    double *v = calloc(2 * nf + 1, sizeof *v);
    unsigned char *flag = calloc(2 * nf + 1, 1);
    int ok =
        c && v && flag && pk_callgraph_function_costs(s->p, PK_NONE, event, c, NULL, NULL) == PK_OK;
    for (size_t f = 0; ok && f < nf; f++) {
        pk_function fn;
        v[f] = c[f].self, v[nf + f] = c[f].inclusive;
        flag[f] = !pk_function_get(s->p, (pk_index)f, &fn) && fn.name &&
                  strncmp(fn.name, "<cycle ", 7) == 0;
        flag[nf + f] = c[f].cycle != 0;
    }
    free(c);
    if (!ok) return free(v), free(flag), 0;
    *x = (pk_diff_exact){v, v + nf, flag, flag + nf};
    return 1;
}

static pk_status diff_rows(diff_side *a, diff_side *b, pk_diff_row **rows, size_t *n)
{
    double total = 0;
    pk_diff_exact ea = {0}, eb = {0};
    pk_status st = side_frames(a);
    if (!st) st = side_frames(b);
    if (!st) st = pk_metric_program_total(a->p, a->metric, &total);
    /* like with like, as the CLI: exact costs only when both sides have a
     * call graph; a lone one still flags its cycles and hides "<cycle N>" */
    int xa = !st && side_exact(a, &ea), xb = !st && side_exact(b, &eb);
    pk_diff_exact use_a = ea, use_b = eb;
    if (!(xa && xb)) use_a.self = use_a.inclusive = use_b.self = use_b.inclusive = NULL;
    if (!st)
        st = pk_diff_functions_exact(a->p, a->frames, a->n, xa ? &use_a : NULL, b->p, b->frames,
                                     b->n, xb ? &use_b : NULL, rows, n);
    free((void *)ea.self), free((void *)ea.hidden), free((void *)eb.self), free((void *)eb.hidden);
    if (!st) pk_diff_settle(*rows, *n, total);
    return st;
}

static PyObject *diff_dict(const diff_side *a, const diff_side *b, const pk_diff_row *r, size_t n)
{
    PyObject *d = PyDict_New(), *names = PyList_New((Py_ssize_t)n);
    double *v[5];
    PyObject *arr[5];
    static const char *const keys[] = {"a_inclusive", "b_inclusive", "a_self", "b_self", "same"};
    int ok = d && names;
    for (int k = 0; k < 5; k++)
        ok = (arr[k] = pyprofkit_doubles(n, &v[k])) != NULL && ok;
    for (size_t i = 0; ok && i < n; i++) {
        const diff_side *s = r[i].a != PK_NONE ? a : b;
        pk_index f = r[i].a != PK_NONE ? r[i].a : r[i].b;
        named_row at = {.p = s->p, .frame = &s->frames[f]};
        PyObject *o = pyprofkit_name(frame_namer, &at);
        if (!o)
            ok = 0;
        else
            PyList_SET_ITEM(names, (Py_ssize_t)i, o);
        v[0][i] = r[i].a_incl, v[1][i] = r[i].b_incl, v[2][i] = r[i].a_self;
        v[3][i] = r[i].b_self, v[4][i] = r[i].same;
    }
    ok = ok && put(d, "name", Py_NewRef(names));
    for (int k = 0; k < 5; k++) {
        ok = ok && put(d, keys[k], Py_NewRef(arr[k]));
        Py_XDECREF(arr[k]);
    }
    Py_XDECREF(names);
    if (!ok) Py_CLEAR(d);
    return d;
}

PyObject *pyprofkit_diff(PyObject *mod, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"a", "b", "metric_a", "metric_b", NULL};
    (void)mod;
    PyObject *pa, *pb, *ma = NULL, *mb = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!|OO", kwlist, &Profile_Type, &pa, &Profile_Type,
                                     &pb, &ma, &mb))
        return NULL;
    diff_side a = {.p = PROFILE(pa)}, b = {.p = PROFILE(pb)};
    if (pyprofkit_metric(a.p, ma, &a.metric) || pyprofkit_metric(b.p, mb, &b.metric)) return NULL;
    pk_diff_row *rows = NULL;
    size_t n = 0;
    pk_status st;
    Py_BEGIN_ALLOW_THREADS;
    st = diff_rows(&a, &b, &rows, &n);
    Py_END_ALLOW_THREADS;
    PyObject *d = st ? pyprofkit_raise(st) : diff_dict(&a, &b, rows, n);
    pk_diff_free(rows);
    pk_frames_free(a.frames);
    pk_frames_free(b.frames);
    return d;
}
