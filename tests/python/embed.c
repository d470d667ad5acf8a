/* embed.c — a C program that allocates device memory (the fake runtime) before any Python is in
 * the process, then loads libpython with dlopen, runs tests/python/alloc_sites.py in it and
 * finalizes: the tracer must find CPython after the dlopen (native-only stacks before it).
 * Usage: embed LIBPYTHON SCRIPT ARGS... (PYTHONHOME set by the caller). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

extern int cudaMalloc(void **p, size_t n);
extern int cudaFree(void *p);

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    void *before = NULL;
    if (cudaMalloc(&before, 9 << 20)) return 3; /* native only: Python is not loaded yet */
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return 4;
    }
    void (*init)(int) = (void (*)(int))dlsym(h, "Py_InitializeEx");
    int (*run)(const char *) = (int (*)(const char *))dlsym(h, "PyRun_SimpleString");
    int (*fini)(void) = (int (*)(void))dlsym(h, "Py_FinalizeEx");
    if (!init || !run || !fini) return 5;
    init(0);
    char code[8192];
    int n = snprintf(code, sizeof code, "import sys\nsys.argv = [%s", "'alloc_sites.py'");
    for (int i = 3; i < argc; i++)
        n += snprintf(code + n, sizeof code - (size_t)n, ", '%s'", argv[i]);
    snprintf(
        code + n, sizeof code - (size_t)n,
        "]\npath = '%s'\nexec(compile(open(path).read(), path, 'exec'), {'__name__': '__main__', "
        "'__file__': path})\n",
        argv[2]);
    int r = run(code);
    if (fini() < 0 || r) return 6;
    cudaFree(before);
    return 0;
}
