/*
 * python/src/answers.c — the library's answers (profkit/query.h) for the
 * Python package: a question's options from keyword arguments (the CLI's
 * long option names), the answer computed by the library on the
 * profile's session, handed over as the answer's own JSON document
 * (profkit/__init__.py makes DataFrames with its field names) or, for
 * trees of any depth, as flat arrays of nodes. Nothing here computes a
 * value: Python and the CLI's --json give the same answer.
 */
#define _GNU_SOURCE /* open_memstream */
#include "pyprofkit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROFILE(o) ((ProfileObject *)(o))

/* One option's text: str as it is, numbers and booleans spelled out. */
static int option_text(PyObject *v, char *buf, size_t size, const char **out)
{
    if (v == Py_None) return *out = NULL, 0;
    if (PyBool_Check(v)) return *out = v == Py_True ? "1" : "0", 0;
    if (PyUnicode_Check(v)) return (*out = PyUnicode_AsUTF8(v)) ? 0 : -1;
    if (PyLong_Check(v) || PyFloat_Check(v)) {
        PyObject *s = PyObject_Str(v);
        const char *t = s ? PyUnicode_AsUTF8(s) : NULL;
        if (t) snprintf(buf, size, "%s", t);
        Py_XDECREF(s);
        return t ? (*out = buf, 0) : -1;
    }
    PyErr_Format(PyExc_TypeError, "option values are str, int, float, bool or None, not %s",
                 Py_TYPE(v)->tp_name);
    return -1;
}

/* The question of a dict of options; NULL (with an exception) on error. */
pk_query *pyprofkit_query(PyObject *options)
{
    pk_query *q;
    if (pk_query_new(&q)) return pyprofkit_raise(PK_ERR_NOMEM), NULL;
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (options && PyDict_Next(options, &pos, &key, &value)) {
        char buf[64];
        const char *name = PyUnicode_AsUTF8(key), *text;
        if (!name || option_text(value, buf, sizeof buf, &text)) return pk_query_free(q), NULL;
        pk_status st = pk_query_set(q, name, text);
        if (st == PK_ERR_INVALID_ARG) {
            PyErr_SetString(PyExc_ValueError, pk_error_last());
            return pk_query_free(q), NULL;
        }
        if (st) return pk_query_free(q), pyprofkit_raise(st), NULL;
    }
    return q;
}

typedef pk_status (*json_writer)(pk_json *j, const void *answer);

/* A JSON document written by `w` as a str. */
static PyObject *json_text(json_writer w, const void *answer)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return PyErr_NoMemory();
    pk_json j;
    pk_json_init(&j, f, 0);
    pk_status st = w(&j, answer);
    pk_status done = pk_json_finish(&j);
    fclose(f);
    PyObject *s = st || done ? pyprofkit_raise(st ? st : done)
                             : PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "strict");
    free(text);
    return s;
}

static pk_status flat_json(pk_json *j, const void *a)
{
    return pk_flat_answer_write_json(j, a);
}
static pk_status callers_json(pk_json *j, const void *a)
{
    return pk_callers_answer_write_json(j, a);
}
static pk_status threads_json(pk_json *j, const void *a)
{
    return pk_threads_answer_write_json(j, a);
}
static pk_status annotate_json(pk_json *j, const void *a)
{
    return pk_annotate_answer_write_json(j, a);
}
static pk_status diff_json(pk_json *j, const void *a)
{
    return pk_diff_answer_write_json(j, a);
}

/* The answer of `kind` on the profile's session, as JSON text. */
static PyObject *answer_of(ProfileObject *po, const char *kind, const pk_query *q)
{
    void *a = NULL;
    pk_status st;
    int k = !strcmp(kind, "flat")       ? 0
            : !strcmp(kind, "callers")  ? 1
            : !strcmp(kind, "callees")  ? 2
            : !strcmp(kind, "threads")  ? 3
            : !strcmp(kind, "annotate") ? 4
                                        : -1;
    if (k < 0) return PyErr_Format(PyExc_ValueError, "no answer '%s'", kind);
    Py_BEGIN_ALLOW_THREADS;
    pthread_mutex_lock(&po->lock); /* a session answers one question at a time */
    st = k == 0   ? pk_answer_flat(po->s, q, (pk_flat_answer **)&a)
         : k <= 2 ? pk_answer_callers(po->s, q, k == 2, (pk_callers_answer **)&a)
         : k == 3 ? pk_answer_threads(po->s, q, (pk_threads_answer **)&a)
                  : pk_answer_annotate(po->s, q, (pk_annotate_answer **)&a);
    pthread_mutex_unlock(&po->lock);
    Py_END_ALLOW_THREADS;
    if (st) return pyprofkit_raise(st);
    static const json_writer writers[] = {flat_json, callers_json, callers_json, threads_json,
                                          annotate_json};
    PyObject *s = json_text(writers[k], a);
    if (k == 0) pk_flat_answer_free(a);
    if (k == 1 || k == 2) pk_callers_answer_free(a);
    if (k == 3) pk_threads_answer_free(a);
    if (k == 4) pk_annotate_answer_free(a);
    return s;
}

PyObject *pyprofkit_answer(PyObject *self, PyObject *args)
{
    const char *kind;
    PyObject *options = NULL;
    if (!PyArg_ParseTuple(args, "s|O!", &kind, &PyDict_Type, &options)) return NULL;
    pk_query *q = pyprofkit_query(options);
    if (!q) return NULL;
    PyObject *r = answer_of(PROFILE(self), kind, q);
    pk_query_free(q);
    return r;
}

PyObject *pyprofkit_diff_answer(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *pa, *pb, *options = NULL;
    if (!PyArg_ParseTuple(args, "O!O!|O!", &Profile_Type, &pa, &Profile_Type, &pb, &PyDict_Type,
                          &options))
        return NULL;
    pk_query *q = pyprofkit_query(options);
    if (!q) return NULL;
    pk_diff_answer *d = NULL;
    pk_status st;
    ProfileObject *a = PROFILE(pa), *b = PROFILE(pb);
    /* both sessions, locked in one order (by address): no deadlock with a
     * diff(b, a) on another thread */
    ProfileObject *first = a < b ? a : b, *second = a < b ? b : a;
    Py_BEGIN_ALLOW_THREADS;
    pthread_mutex_lock(&first->lock);
    if (second != first) pthread_mutex_lock(&second->lock);
    st = pk_answer_diff(a->s, b->s, q, &d);
    if (second != first) pthread_mutex_unlock(&second->lock);
    pthread_mutex_unlock(&first->lock);
    Py_END_ALLOW_THREADS;
    pk_query_free(q);
    if (st) return pyprofkit_raise(st);
    PyObject *s = json_text(diff_json, d);
    pk_diff_answer_free(d);
    return s;
}
