/* drv_hold.c — a running job for `top` and `timeline --follow`: on device 0 it allocates N blocks of
 * SIZE bytes (argv: N SIZE DIR), in phases, each ended by a file DIR/phaseK naming what it holds and
 * a wait for DIR/goK (so the tests read the dump of a process that is still running, at a known
 * state):
 *   phase1  N blocks live                                    then waits for go1
 *   phase2  N more blocks (2N live) from another function     then waits for go2
 *   phase3  the first N freed (N live)                        then waits for go3, frees all, exits
 * Prints the usual expect-leak / expect-alloc lines (no leaks). */
#include <cuda.h>
#include <stdint.h>
#include <unistd.h>

#include "fake_prog.h"

static const char *dir;

static void phase(int k, size_t live) {
    char path[4096], tmp[4096];
    snprintf(tmp, sizeof tmp, "%s/.phase%d", dir, k);
    snprintf(path, sizeof path, "%s/phase%d", dir, k);
    FILE *f = fopen(tmp, "w");
    fake_check(f != NULL);
    fprintf(f, "%d %zu\n", (int)getpid(), live);
    fake_check(fclose(f) == 0);
    fake_check(rename(tmp, path) == 0); /* appears complete */
    snprintf(path, sizeof path, "%s/go%d", dir, k);
    for (int i = 0; i < 600000 && access(path, F_OK) != 0; i++) /* at most 10 min */
        usleep(1000);
}

static __attribute__((noinline)) void first_blocks(CUdeviceptr *p, int n, size_t size) {
    for (int i = 0; i < n; i++)
        FAKE_CU_ALLOC(cuMemAlloc(&p[i], size));
}

static __attribute__((noinline)) void growing_blocks(CUdeviceptr *p, int n, size_t size) {
    for (int i = 0; i < n; i++)
        FAKE_CU_ALLOC(cuMemAlloc(&p[i], size));
}

int main(int argc, char **argv) {
    fake_stdout_lines();
    if (argc != 4) fake_fail("usage: drv_hold N SIZE DIR");
    int n = atoi(argv[1]);
    size_t size = (size_t)strtoull(argv[2], NULL, 10);
    dir = argv[3];
    fake_check(n > 0 && n <= 4096 && size > 0);
    CUdeviceptr *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b);
    fake_check(a && b);
    CUdevice dev;
    CUcontext ctx;
    FAKE_CU(cuInit(0));
    FAKE_CU(cuDeviceGet(&dev, 0));
    FAKE_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    FAKE_CU(cuCtxSetCurrent(ctx));
    first_blocks(a, n, size);
    phase(1, (size_t)n * size);
    growing_blocks(b, n, size);
    phase(2, 2 * (size_t)n * size);
    for (int i = 0; i < n; i++)
        FAKE_CU(cuMemFree(a[i]));
    phase(3, (size_t)n * size);
    for (int i = 0; i < n; i++)
        FAKE_CU(cuMemFree(b[i]));
    FAKE_CU(cuDevicePrimaryCtxRelease(dev));
    fake_expect_alloc();
    return 0;
}
