/* rt_basic.c — every runtime allocation family on devices 0..3; some freed, some leaked in
 * distinctly named functions. Prints expect-leak / expect-alloc lines (see fake_prog.h). */
#include <cuda_runtime_api.h>

#include "fake_prog.h"

static struct cudaChannelFormatDesc fmt(int bits, int channels, enum cudaChannelFormatKind k)
{
    struct cudaChannelFormatDesc d = {bits, channels > 1 ? bits : 0, channels > 2 ? bits : 0,
                                      channels > 3 ? bits : 0, k};
    return d;
}

static void free_everything_kind(int dev)
{
    void *p;
    size_t pitch;
    FAKE_RT(cudaSetDevice(dev));
    FAKE_RT_ALLOC(cudaMalloc(&p, 4096));
    FAKE_RT(cudaMemset(p, 0x5a, 4096));
    unsigned char buf[16];
    FAKE_RT(cudaMemcpy(buf, (char *)p + 100, sizeof buf, cudaMemcpyDeviceToHost));
    fake_check(buf[0] == 0x5a && buf[15] == 0x5a);
    FAKE_RT(cudaFree(p));
    FAKE_RT_ALLOC(cudaMallocManaged(&p, 1000, cudaMemAttachGlobal));
    FAKE_RT(cudaFree(p));
    FAKE_RT_ALLOC(cudaMallocPitch(&p, &pitch, 100, 10));
    FAKE_RT(cudaFree(p));
    cudaStream_t s;
    FAKE_RT(cudaStreamCreate(&s));
    FAKE_RT_ALLOC(cudaMallocAsync(&p, 5000, s));
    FAKE_RT(cudaFreeAsync(p, s));
    FAKE_RT(cudaStreamSynchronize(s));
    FAKE_RT(cudaStreamDestroy(s));
    FAKE_RT_ALLOC(cudaMallocHost(&p, 3000));
    FAKE_RT(cudaFreeHost(p));
    FAKE_RT_ALLOC(cudaHostAlloc(&p, 3000, cudaHostAllocPortable));
    FAKE_RT(cudaFreeHost(p));
    static char reg[8192];
    FAKE_RT_ALLOC(cudaHostRegister(reg, sizeof reg, cudaHostRegisterDefault));
    FAKE_RT(cudaHostUnregister(reg));
    cudaArray_t a;
    struct cudaChannelFormatDesc d = fmt(32, 1, cudaChannelFormatKindFloat);
    FAKE_RT_ALLOC(cudaMallocArray(&a, &d, 16, 16, 0));
    FAKE_RT(cudaFreeArray(a));
    cudaMemPool_t pool;
    FAKE_RT(cudaDeviceGetDefaultMemPool(&pool, dev));
    FAKE_RT_ALLOC(cudaMallocFromPoolAsync(&p, 777, pool, 0));
    FAKE_RT(cudaFreeAsync(p, 0));
}

static void leak_on_dev0(void)
{
    void *p;
    FAKE_RT(cudaSetDevice(0));
    FAKE_RT_ALLOC(cudaMalloc(&p, 1 << 20));
    fake_expect_leak("device", 0, 1 << 20);
}

static void leak_managed_dev1(void)
{
    void *p;
    FAKE_RT(cudaSetDevice(1));
    FAKE_RT_ALLOC(cudaMallocManaged(&p, 4096, cudaMemAttachGlobal));
    fake_expect_leak("managed", 1, 4096);
}

static void leak_async_dev2(void)
{
    void *p;
    cudaStream_t s;
    FAKE_RT(cudaSetDevice(2));
    FAKE_RT(cudaStreamCreate(&s));
    FAKE_RT_ALLOC(cudaMallocAsync(&p, 8192, s));
    fake_expect_leak("async", 2, 8192);
    FAKE_RT(cudaStreamSynchronize(s));
    FAKE_RT(cudaStreamDestroy(s));
}

static void leak_host_pinned(void)
{
    void *p, *q;
    FAKE_RT_ALLOC(cudaMallocHost(&p, 12345));
    fake_expect_leak("host-pinned", -1, 12345);
    FAKE_RT_ALLOC(cudaHostAlloc(&q, 777, cudaHostAllocMapped));
    fake_expect_leak("host-pinned", -1, 777);
}

static void leak_host_registered(void)
{
    void *m = malloc(65536);
    FAKE_RT_ALLOC(cudaHostRegister(m, 65536, cudaHostRegisterDefault));
    fake_expect_leak("host-registered", -1, 65536);
}

static void leak_pitch_dev3(void)
{
    void *p;
    size_t pitch;
    FAKE_RT(cudaSetDevice(3));
    FAKE_RT_ALLOC(cudaMallocPitch(&p, &pitch, 1000, 10));
    fake_check(pitch >= 1000);
    fake_expect_leak("pitch", 3, pitch * 10);
}

static void leak_arrays_dev3(void)
{
    cudaArray_t a, b;
    FAKE_RT(cudaSetDevice(3));
    struct cudaChannelFormatDesc d = fmt(32, 1, cudaChannelFormatKindFloat);
    FAKE_RT_ALLOC(cudaMallocArray(&a, &d, 64, 32, 0));
    fake_expect_leak("array", 3, 64 * 32 * 4);
    struct cudaChannelFormatDesc d4 = fmt(8, 4, cudaChannelFormatKindUnsigned);
    struct cudaExtent e = {16, 16, 4};
    FAKE_RT_ALLOC(cudaMalloc3DArray(&b, &d4, e, 0));
    fake_expect_leak("array", 3, 16 * 16 * 4 * 4);
}

static void leak_pool_dev1(void)
{
    cudaMemPool_t pool;
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 1;
    FAKE_RT(cudaSetDevice(0)); /* the pool's location decides the device, not the current one */
    FAKE_RT(cudaMemPoolCreate(&pool, &props));
    void *p;
    FAKE_RT_ALLOC(cudaMallocFromPoolAsync(&p, 3333, pool, 0));
    fake_expect_leak("async", 1, 3333);
    FAKE_RT(cudaMemPoolDestroy(pool));
}

int main(void)
{
    fake_stdout_lines();
    int n = 0;
    FAKE_RT(cudaGetDeviceCount(&n));
    fake_check(n >= 4);
    for (int d = 0; d < 4; d++)
        free_everything_kind(d);
    leak_on_dev0();
    leak_managed_dev1();
    leak_async_dev2();
    leak_host_pinned();
    leak_host_registered();
    leak_pitch_dev3();
    leak_arrays_dev3();
    leak_pool_dev1();
    size_t fr, tot;
    FAKE_RT(cudaMemGetInfo(&fr, &tot));
    fake_check(fr <= tot && tot > 0);
    int dev = -1;
    FAKE_RT(cudaGetDevice(&dev));
    fake_check(dev == 0);
    fake_check(cudaGetLastError() == cudaSuccess);
    void *bad = NULL;
    fake_check(cudaFree((void *)0x1234) != cudaSuccess);
    fake_check(cudaGetLastError() != cudaSuccess && cudaGetLastError() == cudaSuccess);
    (void)bad;
    FAKE_RT(cudaDeviceSynchronize());
    fake_expect_alloc();
    return 0;
}
