/* cmt_pyext.c — a C extension module for the Python-frames tests: alloc(n) calls cudaMalloc (the
 * fake runtime) with the GIL held, as a framework's C++ op would, and returns the pointer.
 * Built by tests/cases/py_frames.sh against each interpreter's headers with plain cc. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>

extern int cudaMalloc(void **p, size_t n);

static PyObject *alloc(PyObject *self, PyObject *arg) {
    (void)self;
    size_t n = PyLong_AsSize_t(arg);
    if (n == (size_t)-1 && PyErr_Occurred()) return NULL;
    void *p = NULL;
    int r = cudaMalloc(&p, n);
    if (r) return PyErr_Format(PyExc_MemoryError, "cudaMalloc: %d", r);
    return PyLong_FromVoidPtr(p);
}

static PyMethodDef methods[] = {{"alloc", alloc, METH_O, "cudaMalloc(n)"}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "cmt_pyext", NULL, -1, methods, NULL, NULL, NULL, NULL};
PyMODINIT_FUNC PyInit_cmt_pyext(void) { return PyModule_Create(&mod); }
