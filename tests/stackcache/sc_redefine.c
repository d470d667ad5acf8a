/* sc_redefine.c LIBRARY CYCLES [THREADS] — THREADS threads (default 3) allocate and free from one
 * call stack of this program in a loop while the main thread loads and unloads LIBRARY CYCLES
 * times: each unload makes the tracker define that stack again (same key, a new id, its entry
 * rewritten in place), while the other threads read the entry through their per-thread cache
 * without the stripe's lock (tests/cases/preload_stack_reuse.sh: no ALLOC may be numbered before
 * its stack's STACK record). */
#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static CUcontext ctx;
static atomic_int done;

static __attribute__((noinline)) int one_site(void) {
    CUdeviceptr p;
    if (cuMemAlloc(&p, 4096) != CUDA_SUCCESS) return 1;
    return cuMemFree(p) != CUDA_SUCCESS;
}

static void *run(void *arg) {
    (void)arg;
    if (cuCtxSetCurrent(ctx) != CUDA_SUCCESS) return (void *)1;
    while (!atomic_load(&done))
        if (one_site()) return (void *)1;
    return NULL;
}

int main(int argc, char **argv) {
    CUdevice dev;
    if (argc < 3 || argc > 4 || cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
        cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS)
        return 2;
    int cycles = atoi(argv[2]), threads = argc == 4 ? atoi(argv[3]) : 3;
    if (threads < 1 || threads > 64) return 2;
    pthread_t t[64];
    for (int i = 0; i < threads; i++)
        if (pthread_create(&t[i], NULL, run, NULL) != 0) return 1;
    int rc = 0;
    for (int i = 0; i < cycles; i++) {
        void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            fprintf(stderr, "sc_redefine: %s\n", dlerror());
            rc = 1;
            break;
        }
        dlclose(h);
        struct timespec ts = {0, 3000000}; /* the threads allocate between two unloads */
        nanosleep(&ts, NULL);
    }
    atomic_store(&done, 1);
    for (int i = 0; i < threads; i++) {
        void *r;
        pthread_join(t[i], &r);
        rc |= r != NULL;
    }
    return rc;
}
