/*
 * python/src/tree_answer.c — the library's tree answer (pk_answer_tree())
 * for Python as flat arrays, one item per node in the answer's order
 * (parents first): a tree of any depth without nesting, which
 * profkit/__init__.py makes a DataFrame of, with the JSON document's
 * field names (node, parent, depth, name, kind, id, inclusive, self,
 * hot, shown, folded, calls).
 */
#include "pyprofkit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct node_ref {
    const pk_tree_answer *a;
    pk_index i;
} node_ref;

static size_t node_namer(const void *arg, char *buf, size_t size)
{
    const node_ref *r = arg;
    return pk_tree_answer_node_name(r->a, r->i, buf, size);
}

/* d[key] = v (a new reference, consumed); 0 on failure. */
static int put(PyObject *d, const char *key, PyObject *v)
{
    int rc = v ? PyDict_SetItemString(d, key, v) : -1;
    Py_XDECREF(v);
    return rc == 0;
}

static const char *kind_name(pk_context_kind k)
{
    static const char *const names[] = {"root", "entry",       "function", "loop",
                                        "line", "instruction", "unknown"};
    return k <= PK_CTX_UNKNOWN ? names[k] : "unknown";
}

/* The per-node arrays of the first column and the shape. */
static PyObject *node_arrays(const pk_tree_answer *a)
{
    size_t n = a->n_nodes;
    double *par, *dep, *ids, *hot, *shown, *folded, *calls;
    PyObject *d = PyDict_New(), *names = PyList_New((Py_ssize_t)n),
             *kinds = PyList_New((Py_ssize_t)n);
    int ok = d && names && kinds && put(d, "parent", pyprofkit_doubles(n, &par)) &&
             put(d, "depth", pyprofkit_doubles(n, &dep)) &&
             put(d, "id", pyprofkit_doubles(n, &ids)) &&
             put(d, "hot", pyprofkit_doubles(n, &hot)) &&
             put(d, "shown", pyprofkit_doubles(n, &shown)) &&
             put(d, "folded", pyprofkit_doubles(n, &folded)) &&
             put(d, "calls", pyprofkit_doubles(n, &calls));
    for (size_t i = 0; ok && i < n; i++) {
        node_ref r = {a, (pk_index)i};
        pk_context c;
        PyObject *s = pyprofkit_name(node_namer, &r);
        if (!s) ok = 0;
        if (ok) PyList_SET_ITEM(names, (Py_ssize_t)i, s);
        pk_context_get(a->head.profile, a->nodes[i].context, &c);
        PyObject *k = PyUnicode_FromString(kind_name(c.kind));
        if (!k) ok = 0;
        if (ok) PyList_SET_ITEM(kinds, (Py_ssize_t)i, k);
        par[i] = a->nodes[i].parent == PK_NONE ? -1.0 : (double)a->nodes[i].parent;
        dep[i] = a->nodes[i].depth, ids[i] = (double)c.id;
        folded[i] = a->folded && a->folded[i];
        hot[i] = a->hot[i], shown[i] = a->shown[i], calls[i] = a->calls ? a->calls[i] : NAN;
    }
    ok = ok && put(d, "name", Py_NewRef(names)) && put(d, "kind", Py_NewRef(kinds));
    Py_XDECREF(names), Py_XDECREF(kinds);
    if (!ok) Py_CLEAR(d);
    return d;
}

/* Each column's inclusive and self values: lists of arrays. */
static int column_arrays(PyObject *d, const pk_tree_answer *a)
{
    size_t nc = a->head.n_columns, n = a->n_nodes;
    PyObject *in = PyList_New((Py_ssize_t)nc), *self = PyList_New((Py_ssize_t)nc);
    PyObject *names = PyList_New((Py_ssize_t)nc);
    int ok = in && self && names;
    for (size_t c = 0; ok && c < nc; c++) {
        double *vi, *vs;
        PyObject *ai = pyprofkit_doubles(n, &vi), *as = pyprofkit_doubles(n, &vs);
        PyObject *nm = PyUnicode_DecodeUTF8(a->head.columns[c].name,
                                            (Py_ssize_t)strlen(a->head.columns[c].name), "replace");
        if (!ai || !as || !nm) {
            Py_XDECREF(ai), Py_XDECREF(as), Py_XDECREF(nm);
            ok = 0;
            break;
        }
        int known = a->head.columns[c].has_self || a->level != PK_LEVEL_LINES;
        for (size_t i = 0; i < n; i++)
            vi[i] = a->inclusive[c][i], vs[i] = known ? a->self[c][i] : NAN;
        PyList_SET_ITEM(in, (Py_ssize_t)c, ai);
        PyList_SET_ITEM(self, (Py_ssize_t)c, as);
        PyList_SET_ITEM(names, (Py_ssize_t)c, nm);
    }
    ok = ok && put(d, "inclusive", Py_NewRef(in)) && put(d, "self", Py_NewRef(self)) &&
         put(d, "columns", Py_NewRef(names));
    Py_XDECREF(in), Py_XDECREF(self), Py_XDECREF(names);
    return ok;
}

PyObject *pyprofkit_tree_answer(PyObject *self, PyObject *args)
{
    PyObject *options = NULL;
    if (!PyArg_ParseTuple(args, "|O!", &PyDict_Type, &options)) return NULL;
    pk_query *q = pyprofkit_query(options);
    if (!q) return NULL;
    ProfileObject *po = (ProfileObject *)self;
    pk_tree_answer *a = NULL;
    pk_status st;
    Py_BEGIN_ALLOW_THREADS;
    pthread_mutex_lock(&po->lock);
    st = pk_answer_tree(po->s, q, &a);
    pthread_mutex_unlock(&po->lock);
    Py_END_ALLOW_THREADS;
    pk_query_free(q);
    if (st) return pyprofkit_raise(st);
    PyObject *d = node_arrays(a);
    if (d && !column_arrays(d, a)) Py_CLEAR(d);
    const pk_answer_column *c0 = &a->head.columns[0];
    if (d && !(put(d, "total", PyFloat_FromDouble(c0->total)) &&
               put(d, "level", PyUnicode_FromString(a->level_name)) &&
               put(d, "source", PyUnicode_FromString(a->head.source)) &&
               put(d, "hidden", PyLong_FromSize_t(a->hidden)) &&
               put(d, "n_folded", PyLong_FromSize_t(a->n_folded))))
        Py_CLEAR(d);
    pk_tree_answer_free(a);
    return d;
}
