/* drv_oomdev.c — failed allocations belong to the device that would have served them, not to the
 * current context's device (device 0 here): a cuMemAllocAsync on a stream of device 1, a
 * cuMemAllocFromPoolAsync from device 2's default pool (cuDeviceGetDefaultMemPool, on the NULL
 * stream), a cuMemCreate located on device 3. Run with FAKECUDA_MEM_MB=64: each asks for
 * 128 MiB. Before, each device holds (D+1) MiB, freed at the end. Prints `oom-dev D` per OOM. */
#include <cuda.h>

#include "fake_prog.h"

#define MB ((size_t)1 << 20)

static CUdeviceptr hold(CUcontext *prim, int dev)
{
    CUdeviceptr p;
    FAKE_CU(cuDevicePrimaryCtxRetain(&prim[dev], dev));
    FAKE_CU(cuCtxSetCurrent(prim[dev]));
    FAKE_CU_ALLOC(cuMemAlloc(&p, (size_t)(dev + 1) * MB));
    return p;
}

int main(void)
{
    fake_stdout_lines();
    FAKE_CU(cuInit(0));
    CUcontext prim[4];
    CUdeviceptr held[4];
    for (int d = 3; d >= 0; d--)
        held[d] = hold(prim, d); /* ends with device 0 current */

    CUstream s1;
    FAKE_CU(cuCtxPushCurrent(prim[1]));
    FAKE_CU(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    FAKE_CU(cuCtxPopCurrent(NULL));
    CUdeviceptr p;
    fake_check(cuMemAllocAsync(&p, 128 * MB, s1) == CUDA_ERROR_OUT_OF_MEMORY);
    printf("oom-dev 1\n");

    CUmemoryPool pool2;
    FAKE_CU(cuDeviceGetDefaultMemPool(&pool2, 2));
    fake_check(cuMemAllocFromPoolAsync(&p, 128 * MB, pool2, NULL) == CUDA_ERROR_OUT_OF_MEMORY);
    printf("oom-dev 2\n");

    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 3;
    CUmemGenericAllocationHandle h;
    fake_check(cuMemCreate(&h, 128 * MB, &prop, 0) == CUDA_ERROR_OUT_OF_MEMORY);
    printf("oom-dev 3\n");

    FAKE_CU(cuStreamDestroy(s1));
    for (int d = 0; d < 4; d++) {
        FAKE_CU(cuCtxSetCurrent(prim[d]));
        FAKE_CU(cuMemFree(held[d]));
    }
    fake_expect_alloc();
    return 0;
}
