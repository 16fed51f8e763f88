/*
 * python/src/trace.c — Profile.trace(): the library's trace answer
 * (pk_trace_answer_compute, profkit/trace.h) for a selection, handed over
 * as columns named as profkit.trace/1 names its members (docs/json.md),
 * which python/profkit turns into DataFrames. Numbers are NumPy arrays
 * (absolute nanoseconds as uint64: a double would round them); names are
 * lists of str. The same selection means the same answer as `profkit
 * trace --json` and the view's /api/trace.
 */
#include "pyprofkit.h" /* first: Python.h */

#include <stdlib.h>

#define PROFILE(o) (((ProfileObject *)(o))->p)

/* A new 1-D array of n items of numpy type `type`, its data in *data. */
static PyObject *column(size_t n, int type, void **data)
{
    npy_intp dim = (npy_intp)n;
    PyObject *a = PyArray_SimpleNew(1, &dim, type);
    if (a) *data = PyArray_DATA((PyArrayObject *)a);
    return a;
}

/* d[key] = value, consuming value; -1 on failure. */
static int put(PyObject *d, const char *key, PyObject *value)
{
    if (!value) return -1;
    int rc = PyDict_SetItemString(d, key, value);
    Py_DECREF(value);
    return rc;
}

typedef struct named {
    const pk_profile *p;
    pk_index i;
} named;

static size_t location_namer(const void *arg, char *buf, size_t size)
{
    const named *n = arg;
    return pk_location_name(n->p, n->i, buf, size);
}

static size_t context_namer(const void *arg, char *buf, size_t size)
{
    const named *n = arg;
    return pk_context_name(n->p, n->i, buf, size);
}

static PyObject *str_or_none(const char *s)
{
    if (!s) Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

/* "location" (names) and "index" (int, None for a trace of no location). */
static int location_names(PyObject *d, const pk_profile *p, const pk_index *loc, size_t n,
                          size_t stride)
{
    PyObject *names = PyList_New((Py_ssize_t)n), *index = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; names && index && i < n; i++) {
        pk_index l = *(const pk_index *)((const char *)loc + i * stride);
        named at = {p, l};
        PyObject *name = pyprofkit_name(location_namer, &at);
        PyObject *ix = l == PK_NONE ? (Py_INCREF(Py_None), Py_None) : PyLong_FromUnsignedLong(l);
        if (!name || !ix) {
            Py_XDECREF(name), Py_XDECREF(ix);
            Py_CLEAR(names);
            break;
        }
        PyList_SET_ITEM(names, (Py_ssize_t)i, name);
        PyList_SET_ITEM(index, (Py_ssize_t)i, ix);
    }
    return put(d, "location", names) || put(d, "index", index) ? -1 : 0;
}

#define U64_COL(name, expr)                                                                        \
    do {                                                                                           \
        uint64_t *v_;                                                                              \
        if (put(d, name, column(n, NPY_UINT64, (void **)&v_))) return NULL;                        \
        for (size_t i = 0; i < n; i++)                                                             \
            v_[i] = (expr);                                                                        \
    } while (0)
#define F64_COL(name, expr)                                                                        \
    do {                                                                                           \
        double *v_;                                                                                \
        if (put(d, name, column(n, NPY_DOUBLE, (void **)&v_))) return NULL;                        \
        for (size_t i = 0; i < n; i++)                                                             \
            v_[i] = (expr);                                                                        \
    } while (0)
#define I64_COL(name, expr)                                                                        \
    do {                                                                                           \
        int64_t *v_;                                                                               \
        if (put(d, name, column(n, NPY_INT64, (void **)&v_))) return NULL;                         \
        for (size_t i = 0; i < n; i++)                                                             \
            v_[i] = (expr);                                                                        \
    } while (0)

static PyObject *locations(PyObject *d, const pk_profile *p, const pk_trace_answer *a)
{
    size_t n = a->n_locations;
    const pk_trace_location *l = a->locations;
    if (location_names(d, p, n ? &l[0].location : NULL, n, sizeof *l)) return NULL;
    U64_COL("samples", l[i].n_samples);
    U64_COL("begin_ns", l[i].begin_ns);
    U64_COL("end_ns", l[i].end_ns);
    U64_COL("period_ns", l[i].period_ns);
    npy_bool *eb;
    if (put(d, "event_based", column(n, NPY_BOOL, (void **)&eb))) return NULL;
    for (size_t i = 0; i < n; i++)
        eb[i] = (npy_bool)(l[i].event_based != 0);
    F64_COL("running_ns", l[i].running_ns);
    F64_COL("idle_ns", l[i].idle_ns);
    U64_COL("gaps", l[i].n_gaps);
    F64_COL("gap_ns", l[i].gap_ns);
    F64_COL("largest_gap_ns", l[i].largest_gap_ns);
    U64_COL("window_samples", l[i].window_samples);
    F64_COL("covered_ns", l[i].covered_ns);
    F64_COL("filtered_ns", l[i].filtered_ns);
    return d;
}

static PyObject *functions(PyObject *d, const pk_profile *p, const pk_trace_answer *a)
{
    size_t n = a->n_functions;
    const pk_trace_function *f = a->functions;
    PyObject *names = PyList_New((Py_ssize_t)n), *mods = PyList_New((Py_ssize_t)n);
    PyObject *files = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; names && mods && files && i < n; i++) {
        named at = {p, f[i].context};
        PyObject *s = pyprofkit_name(context_namer, &at), *m = str_or_none(f[i].module);
        PyObject *fi = str_or_none(f[i].file);
        if (!s || !m || !fi) {
            Py_XDECREF(s), Py_XDECREF(m), Py_XDECREF(fi);
            Py_CLEAR(names);
            break;
        }
        PyList_SET_ITEM(names, (Py_ssize_t)i, s);
        PyList_SET_ITEM(mods, (Py_ssize_t)i, m);
        PyList_SET_ITEM(files, (Py_ssize_t)i, fi);
    }
    if (put(d, "name", names) || put(d, "module", mods) || put(d, "file", files)) return NULL;
    F64_COL("time_ns", f[i].self_ns);
    I64_COL("id", (int64_t)i);
    F64_COL("inclusive_ns", f[i].inclusive_ns);
    U64_COL("line", f[i].line);
    return d;
}

/* The timeline: its width, rows (index, location) and every span with
 * its row. */
static PyObject *timeline(PyObject *t, const pk_profile *p, const pk_trace_answer *a)
{
    PyObject *rows = PyDict_New(), *d = PyDict_New();
    if (put(t, "width", PyLong_FromUnsignedLong(a->width)) ||
        put(t, "first", PyLong_FromSize_t(a->first_row)) || put(t, "rows", rows) ||
        put(t, "spans", d) ||
        location_names(rows, p, a->n_rows ? &a->rows[0].location : NULL, a->n_rows,
                       sizeof *a->rows))
        return NULL;
    size_t n = a->n_spans, r = 0;
    int64_t *row;
    if (put(d, "row", column(n, NPY_INT64, (void **)&row))) return NULL;
    for (size_t i = 0; i < n; i++) {
        while (r + 1 < a->n_rows && i >= a->rows[r].first_span + a->rows[r].n_spans)
            r++;
        row[i] = (int64_t)r;
    }
    U64_COL("begin_ns", a->spans[i].begin_ns);
    U64_COL("end_ns", a->spans[i].end_ns);
    I64_COL("function", a->spans[i].function);
    return t;
}

static PyObject *answer_dict(const pk_profile *p, const pk_trace_answer *a)
{
    PyObject *d = Py_BuildValue(
        "{s:s,s:K,s:K,s:K,s:K,s:L,s:L,s:d,s:n,s:{s:N,s:N,s:N,s:N,s:N}}", "schema",
        "profkit.trace/1", "begin_ns", (unsigned long long)a->begin_ns, "end_ns",
        (unsigned long long)a->end_ns, "from_ns", (unsigned long long)a->from_ns, "to_ns",
        (unsigned long long)a->to_ns, "from_offset_ns", (long long)(a->from_ns - a->begin_ns),
        "to_offset_ns", (long long)(a->to_ns - a->begin_ns), "running_ns", a->running_ns,
        "locations_total", (Py_ssize_t)a->n_locations, "selection", "location",
        str_or_none(a->location), "from", str_or_none(a->from), "to", str_or_none(a->to), "focus",
        str_or_none(a->focus), "hide", str_or_none(a->hide));
    pk_profile_info info;
    int complete = pk_profile_get_info(p, &info) || info.complete;
    PyObject *l = PyDict_New(), *f = PyDict_New(), *t = a->width ? PyDict_New() : Py_None;
    if (!a->width) Py_INCREF(Py_None);
    if (!d || put(d, "complete", PyBool_FromLong(complete)) || put(d, "locations", l) ||
        put(d, "functions", f) || put(d, "timeline", t) || !locations(l, p, a) ||
        !functions(f, p, a) || (a->width && !timeline(t, p, a))) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}

PyObject *pyprofkit_trace(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"location", "start", "end",   "focus", "hide",
                             "width",    "first", "count", NULL};
    const pk_profile *p = PROFILE(self);
    pk_trace_selection sel = {0};
    unsigned width = 0;
    Py_ssize_t first = 0, count = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|zzzzzInn", kwlist, &sel.location, &sel.from,
                                     &sel.to, &sel.focus, &sel.hide, &width, &first, &count))
        return NULL;
    if (first < 0 || count < 0) {
        PyErr_SetString(PyExc_ValueError, "first and count must not be negative");
        return NULL;
    }
    pk_trace_timeline_options tl = {width, (size_t)first, (size_t)count};
    pk_trace_answer *a = NULL;
    PyThreadState *ts = PyEval_SaveThread(); /* the profile is read-only: others may run */
    pk_status st = pk_trace_answer_compute(p, &sel, width ? &tl : NULL, NULL, &a);
    PyEval_RestoreThread(ts);
    if (st) return pyprofkit_raise(st);
    PyObject *d = answer_dict(p, a);
    pk_trace_answer_free(a);
    return d;
}
