/* sc_cycle.c PLUGIN CYCLES STACKS [THREADS] — loads PLUGIN, allocates from STACKS call stacks through
 * its plugin_spread (each allocation freed), unloads it; CYCLES times, in THREADS threads at once
 * (default: the main thread alone). A thread's first and last cycle also leak 1000 bytes through
 * plugin_leak. Prints the bytes malloc holds (mallinfo2: the tracker's tables are in this process)
 * after the main thread's 10th cycle and at the end: "heap AFTER10 END" (one thread only). */
#include <cuda.h>
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static const char *plugin;
static int cycles, stacks;
static CUcontext ctx;
static size_t after10;

static void *run(void *arg) {
    if (cuCtxSetCurrent(ctx) != CUDA_SUCCESS) return (void *)1;
    for (int i = 0; i < cycles; i++) {
        void *h = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
        int (*spread)(int) = h ? (int (*)(int))dlsym(h, "plugin_spread") : NULL;
        int (*leak)(void) = h ? (int (*)(void))dlsym(h, "plugin_leak") : NULL;
        if (!spread || !leak) {
            fprintf(stderr, "sc_cycle: %s: %s\n", plugin, dlerror());
            return (void *)1;
        }
        if (spread(stacks) != CUDA_SUCCESS || ((i == 0 || i == cycles - 1) && leak() != CUDA_SUCCESS)) return (void *)1;
        dlclose(h);
        if (i == 9 && !arg) after10 = mallinfo2().uordblks;
    }
    return NULL;
}

int main(int argc, char **argv) {
    CUdevice dev;
    if (argc < 4 || argc > 5 || cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
        cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS)
        return 2;
    plugin = argv[1];
    cycles = atoi(argv[2]);
    stacks = atoi(argv[3]);
    int threads = argc == 5 ? atoi(argv[4]) : 0;
    if (!threads) {
        if (run(NULL)) return 1;
        printf("heap %zu %zu\n", after10, mallinfo2().uordblks);
        return 0;
    }
    pthread_t t[64];
    if (threads > 64) return 2;
    for (int i = 0; i < threads; i++)
        if (pthread_create(&t[i], NULL, run, (void *)(intptr_t)(i + 1)) != 0) return 1;
    int bad = 0;
    for (int i = 0; i < threads; i++) {
        void *r;
        pthread_join(t[i], &r);
        bad |= r != NULL;
    }
    return bad;
}
