/* drv_future.c — a driver newer than the tracker's headers (run with FAKECUDA_FUTURE_VARIANT=1):
 * ("cuMemAlloc", 14000) returns an ABI variant the tracker has never seen. It allocates 2048 bytes
 * through it and 1024 through cuMemAlloc_v2, both leaked. The tracker must pass the unknown
 * variant through untouched (the call works) and count it, and track the known one. */
#include <cuda.h>
#include <cudaTypedefs.h>

#include "fake_prog.h"

int main(void)
{
    fake_drv_start();
    void *fn = NULL;
    CUdriverProcAddressQueryResult st;
    FAKE_CU(cuGetProcAddress("cuMemAlloc", &fn, 14000, 0, &st));
    CUdeviceptr a, b;
    FAKE_CU_ALLOC(((PFN_cuMemAlloc_v3020)fn)(&a, 2048));
    fake_expect_leak("device", 0, 2048);
    FAKE_CU_ALLOC(cuMemAlloc(&b, 1024));
    fake_expect_leak("device", 0, 1024);
    fake_expect_alloc();
    return 0;
}
