/* drv_basic.c — the driver API directly (linked with the toolkit's libcuda stub, run with the fake
 * driver): every allocation family, pools (device and host located), arrays 2D/3D/mipmapped,
 * pointer queries. */
#include <cuda.h>
#include <stdint.h>

#include "fake_prog.h"

static CUcontext prim[4];

static void use_primary(int d)
{
    FAKE_CU(cuCtxSetCurrent(prim[d]));
}

static void leak_linear_dev0(void)
{
    CUdeviceptr p, q;
    size_t pitch;
    use_primary(0);
    FAKE_CU_ALLOC(cuMemAlloc(&p, 100000));
    fake_expect_leak("device", 0, 100000);
    FAKE_CU_ALLOC(cuMemAllocPitch(&q, &pitch, 300, 7, 4));
    fake_expect_leak("pitch", 0, pitch * 7);
    int ord = -1;
    FAKE_CU(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p + 10));
    fake_check(ord == 0);
    CUdeviceptr base;
    size_t sz;
    FAKE_CU(cuMemGetAddressRange(&base, &sz, p + 50));
    fake_check(base == p && sz == 100000);
    CUmemorytype mt;
    FAKE_CU(cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p));
    fake_check(mt == CU_MEMORYTYPE_DEVICE);
    CUcontext c;
    FAKE_CU(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, p));
    fake_check(c == prim[0]);
}

static void leak_host(void)
{
    void *h;
    FAKE_CU_ALLOC(cuMemAllocHost(&h, 5000));
    fake_expect_leak("host-pinned", -1, 5000);
    void *m = malloc(8192);
    FAKE_CU_ALLOC(cuMemHostRegister(m, 8192, 0));
    fake_expect_leak("host-registered", -1, 8192);
}

static void leak_arrays_dev1(void)
{
    use_primary(1);
    CUarray a, b;
    CUmipmappedArray m;
    CUDA_ARRAY_DESCRIPTOR d2 = {.Width = 100, .Height = 20, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 2};
    FAKE_CU_ALLOC(cuArrayCreate(&a, &d2));
    fake_expect_leak("array", 1, 100 * 20 * 2 * 4);
    CUDA_ARRAY3D_DESCRIPTOR d3 = {.Width = 8, .Height = 8, .Depth = 8, .Format = CU_AD_FORMAT_UNSIGNED_INT16, .NumChannels = 1};
    FAKE_CU_ALLOC(cuArray3DCreate(&b, &d3));
    FAKE_CU(cuArrayDestroy(b));
    FAKE_CU_ALLOC(cuMipmappedArrayCreate(&m, &d3, 4));
    /* four levels: 8x8x8, 4x4x4, 2x2x2, 1x1x1 halfwords */
    fake_expect_leak("array", 1, (512 + 64 + 8 + 1) * 2);
    fake_check((uintptr_t)a != (uintptr_t)m);
}

static void leak_pools(CUstream s2)
{
    use_primary(2);
    CUmemoryPool dflt, dp, hp;
    CUdeviceptr p;
    FAKE_CU(cuDeviceGetDefaultMemPool(&dflt, 2));
    FAKE_CU_ALLOC(cuMemAllocFromPoolAsync(&p, 1000, dflt, s2));
    FAKE_CU(cuMemFreeAsync(p, s2));
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = 3;
    FAKE_CU(cuMemPoolCreate(&dp, &props));
    FAKE_CU_ALLOC(cuMemAllocFromPoolAsync(&p, 2000, dp, s2)); /* stream on dev 2, pool on dev 3 */
    fake_expect_leak("async", 3, 2000);
    props.location.type = CU_MEM_LOCATION_TYPE_HOST;
    props.location.id = 0;
    FAKE_CU(cuMemPoolCreate(&hp, &props));
    FAKE_CU_ALLOC(cuMemAllocFromPoolAsync(&p, 3000, hp, s2));
    fake_expect_leak("async", -1, 3000);
    FAKE_CU_ALLOC(cuMemAllocAsync(&p, 4000, s2));
    fake_expect_leak("async", 2, 4000);
}

static void free_all_families(void)
{
    use_primary(3);
    CUdeviceptr p;
    size_t pitch;
    void *h;
    FAKE_CU_ALLOC(cuMemAlloc(&p, 10));
    char buf[10] = "123456789";
    FAKE_CU(cuMemcpyHtoD(p, buf, 10));
    char back[10] = {0};
    FAKE_CU(cuMemcpyDtoH(back, p, 10));
    fake_check(!memcmp(buf, back, 10));
    FAKE_CU(cuMemFree(p));
    FAKE_CU_ALLOC(cuMemAllocPitch(&p, &pitch, 10, 10, 16));
    FAKE_CU(cuMemFree(p));
    FAKE_CU_ALLOC(cuMemAllocManaged(&p, 10, CU_MEM_ATTACH_GLOBAL));
    FAKE_CU(cuMemFree(p));
    FAKE_CU_ALLOC(cuMemHostAlloc(&h, 10, 0));
    FAKE_CU(cuMemFreeHost(h));
    static char reg[4096];
    FAKE_CU_ALLOC(cuMemHostRegister(reg, sizeof reg, 0));
    FAKE_CU(cuMemHostUnregister(reg));
    FAKE_CU_ALLOC(cuMemAllocAsync(&p, 10, 0));
    FAKE_CU(cuMemFreeAsync(p, 0));
    fake_check(cuMemFree(p) != CUDA_SUCCESS); /* double free is refused */
}

static void leak_in_created_ctx(void)
{
    CUcontext c;
    CUdeviceptr p;
    FAKE_CU(cuCtxCreate(&c, NULL, 0, 1));
    FAKE_CU_ALLOC(cuMemAlloc(&p, 6000));
    fake_expect_leak("device", 1, 6000);
    CUcontext popped;
    FAKE_CU(cuCtxPopCurrent(&popped));
    fake_check(popped == c);
}

int main(void)
{
    fake_stdout_lines();
    FAKE_CU(cuInit(0));
    int n = 0, v = 0;
    FAKE_CU(cuDriverGetVersion(&v));
    fake_check(v == 13000);
    FAKE_CU(cuDeviceGetCount(&n));
    fake_check(n >= 4);
    for (int d = 0; d < 4; d++) {
        CUdevice dev;
        char name[64], bus[32];
        FAKE_CU(cuDeviceGet(&dev, d));
        FAKE_CU(cuDeviceGetName(name, sizeof name, dev));
        FAKE_CU(cuDeviceGetPCIBusId(bus, sizeof bus, dev));
        CUdevice back;
        FAKE_CU(cuDeviceGetByPCIBusId(&back, bus));
        fake_check(back == dev);
        FAKE_CU(cuDevicePrimaryCtxRetain(&prim[d], dev));
    }
    CUstream s2;
    use_primary(2);
    FAKE_CU(cuStreamCreate(&s2, 0));
    leak_linear_dev0();
    leak_host();
    leak_arrays_dev1();
    leak_pools(s2);
    free_all_families();
    leak_in_created_ctx();
    fake_expect_alloc();
    return 0;
}
