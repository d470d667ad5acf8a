/* drv_missing.c — calls cuMemAllocAsync, which a driver older than CUDA 11.2 does not export
 * (build/tests/fakecuda_old): prints `missing-result N` (what the call returned, when it could be
 * made at all), then allocates with cuMemAlloc (one leak). */
#include <cuda.h>

#include "fake_prog.h"

static void leak_after(void)
{
    CUdeviceptr p;
    FAKE_CU_ALLOC(cuMemAlloc(&p, 4321));
    fake_expect_leak("device", 0, 4321);
}

int main(void)
{
    fake_drv_start();
    CUdeviceptr p = 0;
    CUresult r = cuMemAllocAsync(&p, 1000, 0);
    printf("missing-result %d\n", (int)r);
    leak_after();
    fake_expect_alloc();
    return 0;
}
