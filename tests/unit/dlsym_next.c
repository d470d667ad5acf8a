/* dlsym_next.c — checks that dlsym(RTLD_NEXT) and dlopen() from a library keep working under the
 * tracker (caller identity preserved), and that dlsym of a hooked CUDA name on a handle returns
 * the tracker's wrapper while other names pass through. Prints "ok" and exits 0 on success. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int cmt_call_next(void);
int cmt_open_private(void);

int main(int argc, char **argv) {
    int next = cmt_call_next(), priv = cmt_open_private();
    if (next != 1) { printf("dlsym(RTLD_NEXT) from a library resolved to %d, want 1\n", next); return 1; }
    if (priv != 42) { printf("dlopen through the caller's RUNPATH failed (%d)\n", priv); return 1; }
    void *self = dlopen(NULL, RTLD_NOW);
    if (!dlsym(self, "printf")) { printf("dlsym(printf) failed\n"); return 1; }
    if (dlsym(self, "no_such_symbol_xyz") || !dlerror()) { printf("dlerror lost\n"); return 1; }
    if (argc > 1) {
        /* with a driver path: a hooked name on a specific handle must come back wrapped */
        void *drv = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
        if (!drv) { printf("cannot open %s: %s\n", argv[1], dlerror()); return 1; }
        void *w = dlsym(drv, "cuGetProcAddress_v2");
        Dl_info info;
        if (!w || !dladdr(w, &info) || !strstr(info.dli_fname, argc > 2 ? argv[2] : "libcuda")) {
            printf("cuGetProcAddress_v2 came from %s\n", w && dladdr(w, &info) ? info.dli_fname : "nowhere");
            return 1;
        }
        printf("cuGetProcAddress_v2 -> %s\n", info.dli_fname);
    }
    printf("ok\n");
    return 0;
}
