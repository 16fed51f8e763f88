/*
 * python/src/analyses.c — writing a profile in another format (the
 * answers, flat, tree, callers, threads, diff, annotate, come from the
 * library's query layer: answers.c).
 */
#include "pyprofkit.h"

#include <stdlib.h>
#include <string.h>

#define PROFILE(o) (((ProfileObject *)(o))->p)

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
