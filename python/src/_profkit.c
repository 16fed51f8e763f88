/*
 * python/src/_profkit.c — the _profkit extension module: profkit.Error, the
 * Profile type (opening, and the profile's dimensions as plain Python and
 * NumPy objects) and the module's functions. The pandas-facing API is
 * python/profkit/__init__.py; the value views are in views.c.
 */
#define PYPROFKIT_MAIN
#include "pyprofkit.h"

#include <string.h>

PyObject *pyprofkit_error;

PyObject *pyprofkit_raise(pk_status st)
{
    if (st == PK_ERR_NOMEM) return PyErr_NoMemory();
    const char *msg = pk_error_last();
    PyObject *exc = PyObject_CallFunction(pyprofkit_error, "s", *msg ? msg : pk_status_str(st));
    if (!exc) return NULL;
    PyObject_SetAttrString(exc, "status", PyUnicode_FromString(pk_status_str(st)));
    PyObject_SetAttrString(exc, "code", PyLong_FromLong((long)st));
    PyErr_SetObject(pyprofkit_error, exc);
    Py_DECREF(exc);
    return NULL;
}

static PyObject *str_or_none(const char *s)
{
    if (!s) Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

PyObject *pyprofkit_name(pyprofkit_namer f, const void *arg)
{
    char buf[512];
    size_t len = f(arg, buf, sizeof buf);
    if (len < sizeof buf) return PyUnicode_DecodeUTF8(buf, (Py_ssize_t)len, "replace");
    char *big = PyMem_Malloc(len + 1); /* a long C++ name: ask again in full */
    if (!big) return PyErr_NoMemory();
    len = f(arg, big, len + 1);
    PyObject *s = PyUnicode_DecodeUTF8(big, (Py_ssize_t)len, "replace");
    PyMem_Free(big);
    return s;
}

PyObject *pyprofkit_doubles(size_t n, double **data)
{
    npy_intp dim = (npy_intp)n;
    PyObject *a = PyArray_SimpleNew(1, &dim, NPY_DOUBLE);
    if (a) *data = (double *)PyArray_DATA((PyArrayObject *)a);
    return a;
}

PyObject *pyprofkit_wrap(void *data, size_t n, int type, PyObject *base)
{
    npy_intp dim = (npy_intp)n;
    PyObject *a = PyArray_SimpleNewFromData(1, &dim, type, data);
    if (!a) {
        Py_DECREF(base);
        return NULL;
    }
    if (PyArray_SetBaseObject((PyArrayObject *)a, base) < 0) {
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

/* ---------------------------------------------------------------- */
/* Opening                                                          */
/* ---------------------------------------------------------------- */

/* Opening happens in tp_new, so a Profile object always holds an open
 * profile (no method meets a half-made one) and cannot be re-opened under
 * a thread still reading it. */
static PyObject *profile_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"path",   "threads",     "max_memory", "tree_threshold",
                             "traces", "by_function", "symbols",    NULL};
    PyObject *path_obj;
    unsigned threads = 0;
    unsigned long long max_memory = 0;
    double threshold = 0;
    int traces = 1, by_function = 0, symbols = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|$IKdppp", kwlist, PyUnicode_FSConverter,
                                     &path_obj, &threads, &max_memory, &threshold, &traces,
                                     &by_function, &symbols))
        return NULL;
    pk_open_options o = {.threads = threads, .max_memory = max_memory, .tree_threshold = threshold};
    o.flags = (traces ? 0 : PK_OPEN_NO_TRACES) | (by_function ? PK_OPEN_BY_FUNCTION : 0) |
              (symbols ? 0 : PK_OPEN_NO_SYMBOLS);
    pk_profile *p = NULL;
    pk_status st;
    const char *path = PyBytes_AS_STRING(path_obj);
    Py_BEGIN_ALLOW_THREADS;
    st = pk_profile_open(path, &o, &p);
    Py_END_ALLOW_THREADS;
    Py_DECREF(path_obj);
    if (st) return pyprofkit_raise(st);
    ProfileObject *po = (ProfileObject *)type->tp_alloc(type, 0);
    if (!po) {
        pk_profile_free(p);
        return NULL;
    }
    po->p = p;
    pthread_mutex_init(&po->lock, NULL);
    if ((st = pk_session_new(p, &po->s)) != PK_OK) {
        Py_DECREF(po); /* frees the profile */
        return pyprofkit_raise(st);
    }
    return (PyObject *)po;
}

static void profile_dealloc(PyObject *self)
{
    ProfileObject *po = (ProfileObject *)self;
    if (po->weakrefs) PyObject_ClearWeakRefs(self);
    pk_session_free(po->s);
    pthread_mutex_destroy(&po->lock);
    pk_profile_free(po->p);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *profile_info(PyObject *self, PyObject *unused)
{
    (void)unused;
    pk_profile_info in;
    pk_status st = pk_profile_get_info(((ProfileObject *)self)->p, &in);
    if (st) return pyprofkit_raise(st);
    return Py_BuildValue("{s:N,s:(II),s:N,s:N,s:N,s:O,s:O,s:N}", "format",
                         str_or_none(in.format_name), "version", in.version_major, in.version_minor,
                         "title", str_or_none(in.title), "description", str_or_none(in.description),
                         "path", str_or_none(in.path), "complete", in.complete ? Py_True : Py_False,
                         "reconstructed", in.reconstructed ? Py_True : Py_False, "layout",
                         str_or_none(in.layout));
}

static PyObject *profile_counts(PyObject *self, PyObject *unused)
{
    (void)unused;
    const pk_profile *p = ((ProfileObject *)self)->p;
    return Py_BuildValue("{s:n,s:n,s:n,s:n}", "contexts", (Py_ssize_t)pk_context_count(p),
                         "locations", (Py_ssize_t)pk_location_count(p), "metrics",
                         (Py_ssize_t)pk_metric_count(p), "columns", (Py_ssize_t)pk_column_count(p));
}

/* ---------------------------------------------------------------- */
/* Metrics and locations                                            */
/* ---------------------------------------------------------------- */

static const char *const combine_names[] = {"sum", "min", "max", "other"};
static const char *const scope_names[] = {"point", "exclusive", "inclusive", "lex_aware", "other"};

/* The scope kinds the metric has a plain (per-location) column in. */
static PyObject *stored_scopes(const pk_profile *p, pk_index m)
{
    PyObject *list = PyList_New(0);
    for (int k = PK_SCOPE_POINT; list && k <= PK_SCOPE_LEX_AWARE; k++) {
        pk_index c;
        if (pk_column_find(p, m, (pk_scope_kind)k, &c) != PK_OK) continue;
        PyObject *s = PyUnicode_FromString(scope_names[k]);
        if (!s || PyList_Append(list, s) < 0) Py_CLEAR(list);
        Py_XDECREF(s);
    }
    return list;
}

static PyObject *metric_dict(const pk_profile *p, pk_index m, double total)
{
    pk_metric met;
    if (pk_metric_get(p, m, &met)) return pyprofkit_raise(PK_ERR_NOT_FOUND);
    PyObject *parent = met.parent == PK_NONE ? Py_NewRef(Py_None) : PyLong_FromLong(met.parent);
    return Py_BuildValue("{s:I,s:N,s:N,s:N,s:N,s:s,s:O,s:N,s:d}", "index", (unsigned)m, "name",
                         str_or_none(met.name), "unit", str_or_none(met.unit), "description",
                         str_or_none(met.description), "parent", parent, "combine",
                         combine_names[met.combine > 3 ? 3 : met.combine], "unsigned",
                         (met.flags & PK_METRIC_UNSIGNED) ? Py_True : Py_False, "scopes",
                         stored_scopes(p, m), "total", total);
}

/* metrics(totals=True): with totals=False the program totals (a pass over
 * every value) are left NaN, for callers that only need names and scopes. */
static PyObject *profile_metrics(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"totals", NULL};
    int want_totals = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|p", kwlist, &want_totals)) return NULL;
    const pk_profile *p = ((ProfileObject *)self)->p;
    size_t n = pk_metric_count(p), nc = pk_column_count(p);
    double *cols = PyMem_Calloc(nc + 1, sizeof *cols), *tot = PyMem_Calloc(n + 1, sizeof *tot);
    PyObject *list = NULL;
    pk_status st = cols && tot ? PK_OK : PK_ERR_NOMEM;
    for (size_t m = 0; !st && !want_totals && m < n; m++)
        tot[m] = Py_NAN;
    if (!st && want_totals) {
        Py_BEGIN_ALLOW_THREADS;
        st = pk_profile_totals(p, cols, nc, tot, n);
        Py_END_ALLOW_THREADS;
    }
    if (st) {
        pyprofkit_raise(st);
    } else if ((list = PyList_New((Py_ssize_t)n)) != NULL) {
        for (size_t m = 0; m < n; m++) {
            PyObject *d = metric_dict(p, (pk_index)m, tot[m]);
            if (!d) {
                Py_CLEAR(list);
                break;
            }
            PyList_SET_ITEM(list, (Py_ssize_t)m, d);
        }
    }
    PyMem_Free(cols);
    PyMem_Free(tot);
    return list;
}

static PyObject *ident_tuple(const pk_ident *id)
{
    return Py_BuildValue("(NIK)", str_or_none(id->kind_name), (unsigned)id->logical,
                         (unsigned long long)id->physical);
}

typedef struct named_index {
    const pk_profile *p;
    pk_index i;
} named_index;

static size_t location_namer(const void *arg, char *buf, size_t size)
{
    const named_index *a = arg;
    return pk_location_name(a->p, a->i, buf, size);
}

static size_t context_namer(const void *arg, char *buf, size_t size)
{
    const named_index *a = arg;
    return pk_context_name(a->p, a->i, buf, size);
}

static PyObject *location_dict(const pk_profile *p, pk_index l)
{
    pk_location loc;
    if (pk_location_get(p, l, &loc)) return pyprofkit_raise(PK_ERR_NOT_FOUND);
    named_index at = {p, l};
    PyObject *ids = PyTuple_New((Py_ssize_t)loc.n_ids);
    for (size_t i = 0; ids && i < loc.n_ids; i++) {
        PyObject *t = ident_tuple(&loc.ids[i]);
        if (!t) {
            Py_CLEAR(ids);
            break;
        }
        PyTuple_SET_ITEM(ids, (Py_ssize_t)i, t);
    }
    if (!ids) return NULL;
    return Py_BuildValue("{s:I,s:N,s:O,s:N,s:K,s:I}", "index", (unsigned)l, "name",
                         pyprofkit_name(location_namer, &at), "summary",
                         loc.is_summary ? Py_True : Py_False, "ids", ids, "values",
                         (unsigned long long)loc.n_values, "contexts", (unsigned)loc.n_contexts);
}

static PyObject *profile_locations(PyObject *self, PyObject *unused)
{
    (void)unused;
    const pk_profile *p = ((ProfileObject *)self)->p;
    size_t n = pk_location_count(p);
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t l = 0; list && l < n; l++) {
        PyObject *d = location_dict(p, (pk_index)l);
        if (!d) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)l, d);
    }
    return list;
}

/* ---------------------------------------------------------------- */
/* The calling-context tree                                         */
/* ---------------------------------------------------------------- */

typedef struct ctx_arrays {
    uint64_t *id;
    int64_t *parent, *function;
    uint32_t *depth, *line;
    uint8_t *kind, *relation;
    int32_t *module, *file;
} ctx_arrays;

static void fill_context(const pk_profile *p, const pk_context *c, ctx_arrays *a, size_t i)
{
    pk_function f = {.module = PK_NONE, .file = PK_NONE};
    if (c->function != PK_NONE) pk_function_get(p, c->function, &f);
    pk_index mod = (c->flags & PK_CTXF_HAS_POINT) ? c->module : f.module;
    pk_index file = (c->flags & PK_CTXF_HAS_SRCLOC) ? c->file : f.file;
    a->id[i] = c->id;
    a->parent[i] = c->parent == PK_NONE ? -1 : (int64_t)c->parent;
    a->function[i] = c->function == PK_NONE ? -1 : (int64_t)c->function;
    a->depth[i] = c->depth;
    a->line[i] = (c->flags & PK_CTXF_HAS_SRCLOC) ? c->line : 0;
    a->kind[i] = (uint8_t)c->kind;
    a->relation[i] = (uint8_t)c->relation;
    a->module[i] = mod == PK_NONE ? -1 : (int32_t)mod;
    a->file[i] = file == PK_NONE ? -1 : (int32_t)file;
}

static PyObject *new_array(PyObject *dict, const char *key, size_t n, int type, void **data)
{
    npy_intp dim = (npy_intp)n;
    PyObject *a = PyArray_SimpleNew(1, &dim, type);
    if (!a) return NULL;
    *data = PyArray_DATA((PyArrayObject *)a);
    int rc = PyDict_SetItemString(dict, key, a);
    Py_DECREF(a);
    return rc < 0 ? NULL : a;
}

static int context_arrays(PyObject *d, size_t n, ctx_arrays *a)
{
    return new_array(d, "id", n, NPY_UINT64, (void **)&a->id) &&
           new_array(d, "parent", n, NPY_INT64, (void **)&a->parent) &&
           new_array(d, "function", n, NPY_INT64, (void **)&a->function) &&
           new_array(d, "depth", n, NPY_UINT32, (void **)&a->depth) &&
           new_array(d, "line", n, NPY_UINT32, (void **)&a->line) &&
           new_array(d, "kind", n, NPY_UINT8, (void **)&a->kind) &&
           new_array(d, "relation", n, NPY_UINT8, (void **)&a->relation) &&
           new_array(d, "module", n, NPY_INT32, (void **)&a->module) &&
           new_array(d, "file", n, NPY_INT32, (void **)&a->file);
}

/* Paths of the modules (files: which = 1), names of the functions (2). */
static PyObject *dimension_names(const pk_profile *p, int which)
{
    size_t n = which == 0   ? pk_module_count(p)
               : which == 1 ? pk_file_count(p)
                            : pk_function_count(p);
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        const char *s = NULL;
        pk_module m;
        pk_file f;
        pk_function fn;
        if (which == 0 && !pk_module_get(p, (pk_index)i, &m)) s = m.path;
        if (which == 1 && !pk_file_get(p, (pk_index)i, &f)) s = f.path;
        if (which == 2 && !pk_function_get(p, (pk_index)i, &fn)) s = fn.name;
        PyObject *o = str_or_none(s);
        if (!o)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, o);
    }
    return list;
}

static int context_names(const pk_profile *p, PyObject *d, size_t n)
{
    PyObject *names = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; names && i < n; i++) {
        named_index at = {p, (pk_index)i};
        PyObject *o = pyprofkit_name(context_namer, &at);
        if (!o)
            Py_CLEAR(names);
        else
            PyList_SET_ITEM(names, (Py_ssize_t)i, o);
    }
    if (!names) return 0;
    int rc = PyDict_SetItemString(d, "name", names);
    Py_DECREF(names);
    return rc == 0;
}

static int add_names(const pk_profile *p, PyObject *d)
{
    static const char *const keys[] = {"modules", "files", "functions"};
    for (int w = 0; w < 3; w++) {
        PyObject *list = dimension_names(p, w);
        int rc = list ? PyDict_SetItemString(d, keys[w], list) : -1;
        Py_XDECREF(list);
        if (rc < 0) return 0;
    }
    return 1;
}

static PyObject *profile_contexts(PyObject *self, PyObject *unused)
{
    (void)unused;
    const pk_profile *p = ((ProfileObject *)self)->p;
    size_t n = pk_context_count(p);
    ctx_arrays a;
    PyObject *d = PyDict_New();
    if (!d || !context_arrays(d, n, &a)) goto fail;
    for (size_t i = 0; i < n; i++) {
        pk_context c;
        pk_status st = pk_context_get(p, (pk_index)i, &c);
        if (st) {
            pyprofkit_raise(st);
            goto fail;
        }
        fill_context(p, &c, &a, i);
    }
    if (context_names(p, d, n) && add_names(p, d)) return d;
fail:
    Py_XDECREF(d);
    return NULL;
}

/* (names, codes): the library's categorical column of the contexts'
 * display names (pk_context_name_codes()): the distinct names sorted,
 * and each context's index among them as a uint32 array. */
static PyObject *profile_context_name_codes(PyObject *self, PyObject *unused)
{
    (void)unused;
    pk_name_codes c;
    pk_status st = pk_context_name_codes(((ProfileObject *)self)->p, &c);
    if (st) return pyprofkit_raise(st);
    size_t n = pk_context_count(((ProfileObject *)self)->p);
    PyObject *names = PyList_New((Py_ssize_t)c.n_names), *codes = NULL;
    for (size_t k = 0; names && k < c.n_names; k++) {
        PyObject *o = PyUnicode_DecodeUTF8(c.names[k], (Py_ssize_t)c.lengths[k], "replace");
        if (!o)
            Py_CLEAR(names);
        else
            PyList_SET_ITEM(names, (Py_ssize_t)k, o);
    }
    npy_intp dim = (npy_intp)n;
    if (names) codes = PyArray_SimpleNew(1, &dim, NPY_UINT32);
    if (codes) memcpy(PyArray_DATA((PyArrayObject *)codes), c.codes, n * sizeof *c.codes);
    pk_name_codes_free(&c);
    if (!codes) {
        Py_XDECREF(names);
        return NULL;
    }
    return Py_BuildValue("(NN)", names, codes);
}

/* ---------------------------------------------------------------- */
/* The type and the module                                          */
/* ---------------------------------------------------------------- */

#define KW (PyCFunction)(void (*)(void))

static PyMethodDef profile_methods[] = {
    {"info", profile_info, METH_NOARGS, "What was opened: format, version, completeness."},
    {"counts", profile_counts, METH_NOARGS, "How many contexts, locations, metrics, columns."},
    {"metrics", KW profile_metrics, METH_VARARGS | METH_KEYWORDS,
     "metrics(totals=True): the metrics as a list of dicts."},
    {"locations", profile_locations, METH_NOARGS, "The locations as a list of dicts."},
    {"contexts", profile_contexts, METH_NOARGS, "The calling-context tree as arrays."},
    {"context_name_codes", profile_context_name_codes, METH_NOARGS,
     "(names, codes): the contexts' distinct display names, sorted, and each context's index "
     "among them."},
    {"context_values", KW pyprofkit_context_values, METH_VARARGS | METH_KEYWORDS,
     "context_values(metric, scope='inclusive', locations=None, stat='sum')"},
    {"coo", KW pyprofkit_coo, METH_VARARGS | METH_KEYWORDS,
     "coo(metric, scope='inclusive', threads=0) -> (context, location, value)"},
    {"answer", pyprofkit_answer, METH_VARARGS,
     "answer(kind, options): the library's answer (flat, callers, callees, threads, annotate) "
     "as its JSON document"},
    {"tree_answer", pyprofkit_tree_answer, METH_VARARGS,
     "tree_answer(options): the tree answer as arrays per node"},
    {"trace", KW pyprofkit_trace, METH_VARARGS | METH_KEYWORDS,
     "trace(location, start, end, focus, hide, width=0, first=0, count=0) -> columns"},
    {"write", KW pyprofkit_write, METH_VARARGS | METH_KEYWORDS,
     "write(path, format, force=False, strict=False) -> [(item, reason)]"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject Profile_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "profkit._profkit.Profile",
    .tp_basicsize = sizeof(ProfileObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Profile(path, *, threads=0, max_memory=0, tree_threshold=0.0, traces=True, "
              "by_function=False, symbols=True): an open profile (C level).",
    .tp_new = profile_new,
    .tp_dealloc = profile_dealloc,
    .tp_weaklistoffset = offsetof(ProfileObject, weakrefs),
    .tp_methods = profile_methods,
};

static PyObject *mod_version(PyObject *mod, PyObject *unused)
{
    (void)mod, (void)unused;
    return PyUnicode_FromString(pk_version());
}

static PyMethodDef module_methods[] = {
    {"version", mod_version, METH_NOARGS, "The C library's version."},
    {"diff_answer", pyprofkit_diff_answer, METH_VARARGS,
     "diff_answer(a, b, options): the diff answer as its JSON document"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_profkit", "profkit's C library (use the profkit package).", -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__profkit(void); /* what Python looks the module up by */

PyMODINIT_FUNC PyInit__profkit(void)
{
    import_array();
    if (PyType_Ready(&Profile_Type) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    pyprofkit_error =
        PyErr_NewExceptionWithDoc("profkit.Error",
                                  "A profkit library error; str() is the library's message (file, "
                                  "structure, byte offset), .status its status name.",
                                  NULL, NULL);
    if (!pyprofkit_error || PyModule_AddObjectRef(m, "Error", pyprofkit_error) < 0 ||
        PyModule_AddObjectRef(m, "Profile", (PyObject *)&Profile_Type) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
