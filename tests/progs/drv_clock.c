/* drv_clock.c — event times against CLOCK_MONOTONIC: two threads allocate and free, each call
 * between two readings of CLOCK_MONOTONIC, pausing now and then so the run spans the tracker's
 * clock calibration (~10 ms) and many of its per-thread TSC base pairs (~20 ms each). Prints, per
 * allocation, "call SIZE T0 T1" (every size is distinct), and the usual expect-alloc line. */
#include <cuda.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "fake_prog.h"

#define ITER 1500
static CUcontext ctx;

static int64_t mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static struct { size_t size; int64_t t0, t1; } calls[2][ITER];

static void *run(void *arg)
{
    int id = (int)(intptr_t)arg;
    FAKE_CU(cuCtxSetCurrent(ctx));
    for (int i = 0; i < ITER; i++) {
        CUdeviceptr p;
        size_t size = 4096 + (size_t)id * 100000 + (size_t)i;
        int64_t t0 = mono();
        FAKE_CU(cuMemAlloc(&p, size));
        int64_t t1 = mono();
        FAKE_CU(cuMemFree(p));
        calls[id][i].size = size, calls[id][i].t0 = t0, calls[id][i].t1 = t1;
        if (i % 50 == 49) {
            struct timespec d = {0, 1000000};
            nanosleep(&d, NULL);
        }
    }
    return NULL;
}

int main(void)
{
    fake_stdout_lines();
    FAKE_CU(cuInit(0));
    CUdevice dev;
    FAKE_CU(cuDeviceGet(&dev, 0));
    FAKE_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    pthread_t th[2];
    for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, run, (void *)(intptr_t)i);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    for (int id = 0; id < 2; id++)
        for (int i = 0; i < ITER; i++)
            printf("call %zu %lld %lld\n", calls[id][i].size, (long long)calls[id][i].t0, (long long)calls[id][i].t1);
    fake_allocs = 2 * ITER;
    fake_expect_alloc();
    return 0;
}
