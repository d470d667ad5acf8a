/* cmt_pyext.c — a C extension module for the Python-frames tests: alloc(n) calls cudaMalloc (the
 * fake runtime) with the GIL held, as a framework's C++ op would, and returns the pointer.
 * pairs(n) is the benchmark's loop (bench/py_frames.sh). Built by tests/cases/py_frames.sh against
 * each interpreter's headers with plain cc. */
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

extern int cudaFree(void *p);

/* pairs(n): n cudaMalloc(4096)/cudaFree pairs in a tight loop (the benchmark: no ctypes cost) */
static PyObject *pairs(PyObject *self, PyObject *arg) {
    (void)self;
    long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred()) return NULL;
    for (long i = 0; i < n; i++) {
        void *p = NULL;
        if (cudaMalloc(&p, 4096)) return PyErr_Format(PyExc_MemoryError, "cudaMalloc");
        cudaFree(p);
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {{"alloc", alloc, METH_O, "cudaMalloc(n)"},
                                {"pairs", pairs, METH_O, "n cudaMalloc/cudaFree pairs"},
                                {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {
    PyModuleDef_HEAD_INIT, "cmt_pyext", NULL, -1, methods, NULL, NULL, NULL, NULL};
PyMODINIT_FUNC PyInit_cmt_pyext(void) {
    return PyModule_Create(&mod);
}
