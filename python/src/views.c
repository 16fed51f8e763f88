/*
 * python/src/views.c — the value views of a Profile: per-context values,
 * the per-location sparse matrix handed over without copying, the flat
 * profile, callers, per-location totals, diffs and writing. Each answers
 * through the public C API as the CLI's commands of the same name do, so
 * Python and `profkit ... --json` give the same numbers.
 */
#include "pyprofkit.h" /* first: Python.h defines _GNU_SOURCE (strcasestr) */

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PROFILE(o) (((ProfileObject *)(o))->p)

int pyprofkit_metric(const pk_profile *p, PyObject *spec, pk_index *out)
{
    size_t n = pk_metric_count(p);
    if (spec == NULL || spec == Py_None) {
        if (n == 0 || pk_metric_default(p, out)) goto none;
        return 0;
    }
    if (PyLong_Check(spec)) {
        long m = PyLong_AsLong(spec);
        if (m < 0 || (size_t)m >= n) goto none;
        return *out = (pk_index)m, 0;
    }
    const char *name = PyUnicode_AsUTF8(spec);
    if (!name) return -1;
    for (int pass = 0; pass < 2; pass++)
        for (pk_index m = 0; m < n; m++) {
            pk_metric met;
            if (pk_metric_get(p, m, &met) || !met.name) continue;
            if (pass == 0 ? strcmp(met.name, name) == 0 : strcasecmp(met.name, name) == 0)
                return *out = m, 0;
        }
none:
    PyErr_Format(PyExc_KeyError, "no metric %R (the profile has %zu)", spec ? spec : Py_None, n);
    return -1;
}

int pyprofkit_scope(const char *name, pk_scope_kind *out)
{
    if (!name || strcmp(name, "inclusive") == 0) return *out = PK_SCOPE_INCLUSIVE, 0;
    if (strcmp(name, "exclusive") == 0) return *out = PK_SCOPE_EXCLUSIVE, 0;
    PyErr_Format(PyExc_ValueError, "scope must be 'inclusive' or 'exclusive', not '%s'", name);
    return -1;
}

static int parse_stat(const char *s, pk_across *out)
{
    static const char *const names[] = {"sum", "mean", "min", "max", "stddev"};
    for (int i = 0; i < 5; i++)
        if (strcmp(s, names[i]) == 0) return *out = (pk_across)i, 0;
    PyErr_Format(PyExc_ValueError, "stat must be sum, mean, min, max or stddev, not '%s'", s);
    return -1;
}

/* Flags of the locations `selector` names, or NULL for every location. */
static int select_locations(const pk_profile *p, const char *selector, unsigned char **out)
{
    *out = NULL;
    if (!selector) return 0;
    size_t n = pk_location_count(p);
    unsigned char *sel = calloc(n + 1, 1);
    if (!sel) return PyErr_NoMemory(), -1;
    pk_status st = pk_location_select(p, selector, sel, n, NULL);
    if (st) {
        free(sel);
        return pyprofkit_raise(st), -1;
    }
    *out = sel;
    return 0;
}

PyObject *pyprofkit_context_values(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"metric", "scope", "locations", "stat", NULL};
    const pk_profile *p = PROFILE(self);
    PyObject *spec = NULL;
    const char *scope = NULL, *selector = NULL, *stat_name = "sum";
    pk_index m;
    pk_scope_kind kind;
    pk_across stat;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|Ozzs", kwlist, &spec, &scope, &selector,
                                     &stat_name) ||
        pyprofkit_metric(p, spec, &m) || pyprofkit_scope(scope, &kind) ||
        parse_stat(stat_name, &stat))
        return NULL;
    unsigned char *sel;
    if (select_locations(p, selector, &sel)) return NULL;
    double *out;
    size_t n = pk_context_count(p);
    PyObject *a = pyprofkit_doubles(n, &out);
    pk_status st = PK_OK;
    if (a) {
        Py_BEGIN_ALLOW_THREADS;
        st = pk_context_stat_values(p, m, kind, sel, stat, out, n, NULL);
        Py_END_ALLOW_THREADS;
    }
    free(sel);
    if (st) {
        Py_XDECREF(a);
        return pyprofkit_raise(st);
    }
    return a;
}

/* ---------------------------------------------------------------- */
/* The sparse (context, location) matrix, without copying           */
/* ---------------------------------------------------------------- */

/* What the three arrays share as their base: the library's table and a
 * reference to the profile, released with the last array. */
typedef struct coo_owner {
    pk_value_table t;
    PyObject *profile;
} coo_owner;

static void coo_owner_free(PyObject *capsule)
{
    coo_owner *o = PyCapsule_GetPointer(capsule, "profkit.values");
    if (!o) return;
    pk_value_table_free(&o->t);
    Py_XDECREF(o->profile);
    PyMem_Free(o);
}

static PyObject *coo_arrays(PyObject *capsule, coo_owner *o)
{
    PyObject *res = PyTuple_New(3);
    void *data[3] = {o->t.context, o->t.location, o->t.value};
    int types[3] = {NPY_UINT32, NPY_UINT32, NPY_DOUBLE};
    for (int i = 0; res && i < 3; i++) {
        Py_INCREF(capsule); /* stolen by the array */
        PyObject *a = pyprofkit_wrap(data[i], o->t.n, types[i], capsule);
        if (!a) {
            Py_CLEAR(res);
            break;
        }
        PyArray_CLEARFLAGS((PyArrayObject *)a, NPY_ARRAY_WRITEABLE);
        PyTuple_SET_ITEM(res, i, a);
    }
    Py_DECREF(capsule);
    return res;
}

PyObject *pyprofkit_coo(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"metric", "scope", "threads", NULL};
    const pk_profile *p = PROFILE(self);
    PyObject *spec = NULL;
    const char *scope = NULL;
    unsigned threads = 0;
    pk_index m, col;
    pk_scope_kind kind;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OzI", kwlist, &spec, &scope, &threads) ||
        pyprofkit_metric(p, spec, &m) || pyprofkit_scope(scope, &kind))
        return NULL;
    if (pk_column_find(p, m, kind, &col) != PK_OK) {
        pk_metric met = {0};
        pk_metric_get(p, m, &met);
        PyErr_Format(pyprofkit_error,
                     "metric '%s' stores no %s values per location (derive them with "
                     "values(..., locations=None) summed, or ask for the stored scope)",
                     met.name ? met.name : "?", scope ? scope : "inclusive");
        return NULL;
    }
    coo_owner *o = PyMem_Calloc(1, sizeof *o);
    if (!o) return PyErr_NoMemory();
    pk_status st;
    Py_BEGIN_ALLOW_THREADS;
    st = pk_column_values_export(p, col, threads, &o->t);
    Py_END_ALLOW_THREADS;
    if (st) {
        PyMem_Free(o);
        return pyprofkit_raise(st);
    }
    PyObject *capsule = PyCapsule_New(o, "profkit.values", coo_owner_free);
    if (!capsule) {
        pk_value_table_free(&o->t);
        PyMem_Free(o);
        return NULL;
    }
    o->profile = Py_NewRef(self);
    return coo_arrays(capsule, o);
}
