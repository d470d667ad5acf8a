/* drv_ctxscope.c — what a context teardown ends, and what it does not:
 *  - a cuDevicePrimaryCtxReset / last cuDevicePrimaryCtxRelease ends the PRIMARY context's
 *    allocations only; a context made with cuCtxCreate on the same device keeps its memory;
 *  - a cuCtxDestroy the driver refuses (a primary context's handle) frees nothing;
 *  - VMM memory (cuMemCreate) belongs to no context: a primary reset leaves it alone.
 * Functions named teardown_* make allocations a teardown ends. */
#include <cuda.h>
#include <stdint.h>

#include "fake_prog.h"

static CUdeviceptr created_alloc(CUcontext *made, int dev, size_t size)
{
    CUdeviceptr p;
    FAKE_CU(cuCtxCreate(made, NULL, 0, dev));
    FAKE_CU_ALLOC(cuMemAlloc(&p, size));
    FAKE_CU(cuCtxPopCurrent(NULL));
    return p;
}

static void teardown_primary_reset(CUcontext *prim)
{
    CUdeviceptr p;
    FAKE_CU(cuDevicePrimaryCtxRetain(prim, 0));
    FAKE_CU(cuCtxSetCurrent(*prim));
    FAKE_CU_ALLOC(cuMemAlloc(&p, 1100));
    fake_expect_leak("device", 0, 1100);
    FAKE_CU(cuDevicePrimaryCtxReset(0));
}

static void teardown_primary_release(void)
{
    CUcontext prim;
    CUdeviceptr p;
    FAKE_CU(cuDevicePrimaryCtxRetain(&prim, 1));
    FAKE_CU(cuCtxSetCurrent(prim));
    FAKE_CU_ALLOC(cuMemAlloc(&p, 1200));
    fake_expect_leak("device", 1, 1200);
    FAKE_CU(cuCtxSetCurrent(NULL));
    FAKE_CU(cuDevicePrimaryCtxRelease(1)); /* the last reference */
}

static void refused_destroy(void)
{
    CUcontext prim;
    CUdeviceptr p;
    FAKE_CU(cuDevicePrimaryCtxRetain(&prim, 3));
    FAKE_CU(cuCtxSetCurrent(prim));
    FAKE_CU_ALLOC(cuMemAlloc(&p, 1300));
    /* a primary context is not destroyed with cuCtxDestroy: refused, nothing is freed */
    fake_check(cuCtxDestroy(prim) == CUDA_ERROR_INVALID_CONTEXT);
    FAKE_CU(cuMemsetD8(p, 1, 1300));
    FAKE_CU(cuMemFree(p));
    FAKE_CU(cuCtxSetCurrent(NULL));
}

static void vmm_survives_reset(void)
{
    CUcontext prim;
    FAKE_CU(cuDevicePrimaryCtxRetain(&prim, 2));
    FAKE_CU(cuCtxSetCurrent(prim));
    CUdeviceptr q;
    FAKE_CU_ALLOC(cuMemAlloc(&q, 1400)); /* the primary context is in use on device 2 */
    fake_expect_leak("device", 2, 1400);
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 2;
    CUmemGenericAllocationHandle h;
    size_t sz = (size_t)2 << 20;
    FAKE_CU_ALLOC(cuMemCreate(&h, sz, &prop, 0));
    CUdeviceptr va;
    FAKE_CU(cuMemAddressReserve(&va, sz, 0, 0, 0));
    FAKE_CU(cuMemMap(va, sz, 0, h, 0));
    FAKE_CU(cuDevicePrimaryCtxReset(2)); /* ends q, not the VMM allocation */
    FAKE_CU(cuMemUnmap(va, sz));
    FAKE_CU(cuMemRelease(h));
    FAKE_CU(cuMemAddressFree(va, sz));
}

int main(void)
{
    fake_stdout_lines();
    FAKE_CU(cuInit(0));
    CUcontext a, b, prim0;
    CUdeviceptr pa = created_alloc(&a, 0, 2100);
    CUdeviceptr pb = created_alloc(&b, 1, 2200);
    teardown_primary_reset(&prim0);
    teardown_primary_release();
    refused_destroy();
    vmm_survives_reset();
    /* the created contexts' memory is still theirs: freed here, by the application */
    FAKE_CU(cuCtxSetCurrent(a));
    FAKE_CU(cuMemFree(pa));
    FAKE_CU(cuCtxSetCurrent(b));
    FAKE_CU(cuMemFree(pb));
    FAKE_CU(cuCtxSetCurrent(NULL));
    FAKE_CU(cuCtxDestroy(a));
    FAKE_CU(cuCtxDestroy(b));
    fake_expect_alloc();
    return 0;
}
