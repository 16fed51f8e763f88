/*
 * python/src/pyprofkit.h — what the files of the _profkit extension share:
 * the Profile object, raising profkit.Error from the library's last error,
 * and the metric/scope argument helpers. The extension uses only the
 * public C API (include/profkit/).
 */
#ifndef PYPROFKIT_H
#define PYPROFKIT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* One NumPy C-API table for the whole extension: _profkit.c imports it,
 * the other files only use it. */
#define PY_ARRAY_UNIQUE_SYMBOL pyprofkit_ARRAY_API
#define NPY_NO_DEPRECATED_API  NPY_1_7_API_VERSION
#ifndef PYPROFKIT_MAIN
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include <pthread.h>

#include "profkit/profkit.h"

/* One open profile; the arrays handed out hold a reference to it. */
typedef struct {
    PyObject_HEAD pk_profile *p;
    pk_session *s;        /* the library's answers and their caches */
    pthread_mutex_t lock; /* a session answers one question at a time */
    PyObject *weakrefs;   /* so tests can watch the profile's lifetime */
} ProfileObject;

extern PyTypeObject Profile_Type;
extern PyObject *pyprofkit_error; /* profkit.Error */

/* Raise profkit.Error for status `st` with pk_error_last() (read on this
 * thread, before any other library call). Returns NULL. */
PyObject *pyprofkit_raise(pk_status st);

/* A name the library writes into a buffer (pk_context_name() and the
 * like: returns the length it needed) as a str, whatever its length. */
typedef size_t (*pyprofkit_namer)(const void *arg, char *buf, size_t size);
PyObject *pyprofkit_name(pyprofkit_namer f, const void *arg);

/* Metric given by index or name (exact, then case-insensitive). -1 with
 * an exception set when there is no such metric. */
int pyprofkit_metric(const pk_profile *p, PyObject *spec, pk_index *out);
/* "inclusive" / "exclusive" -> scope kind; -1 with an exception. */
int pyprofkit_scope(const char *name, pk_scope_kind *out);
/* A new 1-D numpy array of n doubles (owned by numpy). */
PyObject *pyprofkit_doubles(size_t n, double **data);
/* A 1-D numpy array over `data` (n items of numpy type `type`), owned by
 * `base` (its reference is stolen by the array). */
PyObject *pyprofkit_wrap(void *data, size_t n, int type, PyObject *base);

/* Methods of Profile defined in views.c. */
PyObject *pyprofkit_context_values(PyObject *self, PyObject *args, PyObject *kw);
PyObject *pyprofkit_coo(PyObject *self, PyObject *args, PyObject *kw);
PyObject *pyprofkit_write(PyObject *self, PyObject *args, PyObject *kw);

/* answers.c, tree_answer.c: the library's answers. */
/* A question from a dict of options (NULL: defaults); NULL with an
 * exception set on a bad one. */
pk_query *pyprofkit_query(PyObject *options);
PyObject *pyprofkit_answer(PyObject *self, PyObject *args);
PyObject *pyprofkit_tree_answer(PyObject *self, PyObject *args);
PyObject *pyprofkit_diff_answer(PyObject *mod, PyObject *args);
/* Profile.trace() (trace.c). */
PyObject *pyprofkit_trace(PyObject *self, PyObject *args, PyObject *kw);

#endif
