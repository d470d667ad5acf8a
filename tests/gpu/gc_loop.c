/*
 * gc_loop.c — the tracker's hot path: ITERS (default 20000) cudaMalloc(4096)+cudaFree pairs after a
 * warm-up, timed with CLOCK_MONOTONIC; prints `ns-per-pair N`. Run with and without the tracker
 * (same binary) for the overhead. Usage: gc_loop [ITERS]
 */
#include <time.h>

#include "gpu_prog.h"

int main(int argc, char **argv)
{
    gc_start();
    long iters = argc > 1 ? atol(argv[1]) : 20000;
    GC_CHECK(iters > 0);
    GC_RT(cudaSetDevice(0));
    GC_RT(cudaFree(0));
    void *p;
    for (int i = 0; i < 200; i++) {
        GC_RT(cudaMalloc(&p, 4096));
        GC_RT(cudaFree(p));
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < iters; i++) {
        GC_RT(cudaMalloc(&p, 4096));
        GC_RT(cudaFree(p));
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
    printf("ns-per-pair %.0f\n", ns / iters);
    printf("expect-leak-total 0 0\n");
    return 0;
}
