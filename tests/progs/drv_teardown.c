/* drv_teardown.c — allocations ended by context teardown: the last cuDevicePrimaryCtxRelease,
 * cuCtxDestroy and cuDevicePrimaryCtxReset free everything of that context (functions named
 * teardown_* make allocations a teardown ends; leak_at_exit one that is live at exit). */
#include <cuda.h>

#include "fake_prog.h"

static void teardown_by_release(void)
{
    CUcontext c;
    CUdeviceptr p;
    void *h;
    FAKE_CU(cuDevicePrimaryCtxRetain(&c, 0));
    FAKE_CU(cuDevicePrimaryCtxRetain(&c, 0)); /* two references */
    FAKE_CU(cuCtxSetCurrent(c));
    FAKE_CU_ALLOC(cuMemAlloc(&p, 1000));
    fake_expect_leak("device", 0, 1000);
    FAKE_CU_ALLOC(cuMemAllocHost(&h, 2000));
    fake_expect_leak("host-pinned", -1, 2000);
    FAKE_CU(cuDevicePrimaryCtxRelease(0)); /* not the last: nothing ends */
    FAKE_CU(cuMemsetD8(p, 1, 1000));
    FAKE_CU(cuDevicePrimaryCtxRelease(0)); /* the last: both end */
    FAKE_CU(cuCtxSetCurrent(NULL));
}

static void teardown_by_destroy(void)
{
    CUcontext c;
    CUdeviceptr p;
    CUarray a;
    FAKE_CU(cuCtxCreate(&c, NULL, 0, 1));
    FAKE_CU_ALLOC(cuMemAlloc(&p, 3000));
    fake_expect_leak("device", 1, 3000);
    CUDA_ARRAY_DESCRIPTOR d = {.Width = 10, .Height = 10, .Format = CU_AD_FORMAT_UNSIGNED_INT8, .NumChannels = 1};
    FAKE_CU_ALLOC(cuArrayCreate(&a, &d));
    fake_expect_leak("array", 1, 100);
    FAKE_CU(cuCtxDestroy(c));
}

static void teardown_by_reset(void)
{
    CUcontext c;
    CUdeviceptr p, q;
    FAKE_CU(cuDevicePrimaryCtxRetain(&c, 2));
    FAKE_CU(cuCtxSetCurrent(c));
    FAKE_CU_ALLOC(cuMemAlloc(&p, 4000));
    fake_expect_leak("device", 2, 4000);
    FAKE_CU_ALLOC(cuMemAllocAsync(&q, 4500, 0));
    fake_expect_leak("async", 2, 4500);
    FAKE_CU(cuDevicePrimaryCtxReset(2));
    FAKE_CU_ALLOC(cuMemAlloc(&p, 5000)); /* the context lives on after a reset */
    FAKE_CU(cuMemFree(p));
}

static void leak_at_exit(void)
{
    CUcontext c;
    CUdeviceptr p;
    FAKE_CU(cuDevicePrimaryCtxRetain(&c, 3));
    FAKE_CU(cuCtxSetCurrent(c));
    FAKE_CU_ALLOC(cuMemAlloc(&p, 6000));
    fake_expect_leak("device", 3, 6000);
}

int main(void)
{
    fake_stdout_lines();
    FAKE_CU(cuInit(0));
    teardown_by_release();
    teardown_by_destroy();
    teardown_by_reset();
    leak_at_exit();
    fake_expect_alloc();
    return 0;
}
