/* drv_fastbench.c — cuMemAlloc_v2 + cuMemFree_v2 in a loop on T threads (argv: iterations per
 * thread, default 1000000; threads, default 4); prints "ns-per-pair N" and leaks one allocation
 * per thread (leak_per_thread). For FAKECUDA_FAST=1 benchmarks and ground-truth checks.
 * argv[3] "main": the main thread then runs the same loop (no leak) and returns from main (its
 * writer's blocks are never handed back by a thread exit); "kill": the same, then SIGKILL. */
#include <cuda.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "fake_prog.h"

static long iters = 1000000;
static CUcontext prim;
static int thread_allocs[64];

static void leak_per_thread(int t)
{
    CUdeviceptr p;
    FAKE_CU(cuMemAlloc(&p, 512 + (size_t)t));
    thread_allocs[t]++;
    fake_expect_leak("device", 0, 512 + t);
}

static void loop(void)
{
    for (long i = 0; i < iters; i++) {
        CUdeviceptr p;
        if (cuMemAlloc(&p, 256 + (size_t)(i & 1023)) != CUDA_SUCCESS)
            fake_fail("cuMemAlloc failed at %ld", i);
        if (cuMemFree(p) != CUDA_SUCCESS)
            fake_fail("cuMemFree failed at %ld", i);
    }
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    FAKE_CU(cuCtxSetCurrent(prim));
    loop();
    thread_allocs[t] += (int)iters;
    leak_per_thread(t);
    return NULL;
}

int main(int argc, char **argv)
{
    fake_stdout_lines();
    int nt = 4;
    if (argc > 1)
        iters = atol(argv[1]);
    if (argc > 2)
        nt = atoi(argv[2]);
    if (nt < 1 || nt > 64)
        nt = 4;
    FAKE_CU(cuInit(0));
    FAKE_CU(cuDevicePrimaryCtxRetain(&prim, 0));
    pthread_t th[64];
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long t = 0; t < nt; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < nt; t++) {
        pthread_join(th[t], NULL);
        fake_allocs += thread_allocs[t];
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / ((double)iters * nt);
    printf("ns-per-pair %.1f\n", ns * nt); /* per thread: wall time of one pair on one thread */
    const char *then = argc > 3 ? argv[3] : "";
    if (!strcmp(then, "main") || !strcmp(then, "kill")) {
        FAKE_CU(cuCtxSetCurrent(prim));
        loop();
        fake_allocs += (int)iters;
    }
    fake_expect_alloc();
    if (!strcmp(then, "kill")) {
        fflush(stdout);
        raise(SIGKILL);
    }
    return 0;
}
