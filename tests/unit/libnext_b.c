/* libnext_b.c — calls dlsym(RTLD_NEXT) and dlopen() relying on its own identity ($ORIGIN RUNPATH):
 * both work only if the tracker's dlsym/dlopen keep the caller's return address. */
#include <dlfcn.h>
#include <stddef.h>
int cmt_test_fn(void) { return 2; }
int cmt_call_next(void) {
    int (*f)(void) = (int (*)(void))dlsym(RTLD_NEXT, "cmt_test_fn");
    return f ? f() : -1;
}
int cmt_open_private(void) {
    /* libnext_private.so lives in sub/ next to this library, found only through our RUNPATH */
    void *h = dlopen("libnext_private.so", RTLD_NOW);
    if (!h) return -1;
    int (*f)(void) = (int (*)(void))dlsym(h, "cmt_private_fn");
    return f ? f() : -2;
}
