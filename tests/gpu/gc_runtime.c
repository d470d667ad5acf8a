/*
 * gc_runtime.c — the runtime allocation families on device 0, measured against cudaMemGetInfo:
 * cudaMalloc, cudaMallocAsync on the default pool, cudaMallocFromPoolAsync on a pool made with
 * cudaMemPoolCreate, cudaMallocManaged, cudaMallocHost; five deliberate leaks in named functions;
 * the known peak; then a deliberate out-of-memory cudaMalloc (twice the device's total memory).
 * Output protocol: tests/gpu/gpu_prog.h.
 */
#include "gpu_prog.h"

static cudaStream_t stream;
static cudaMemPool_t own_pool;
static size_t leaked_dev0;

__attribute__((noinline)) static void leak_device(void)
{
    void *p;
    GC_RT(cudaMalloc(&p, GC_MIB(6) + 4096));
    gc_expect_leak("device", 0, GC_MIB(6) + 4096);
    leaked_dev0 += GC_MIB(6) + 4096;
}

__attribute__((noinline)) static void leak_async_default(void)
{
    void *p;
    GC_RT(cudaMallocAsync(&p, GC_MIB(1), stream));
    GC_RT(cudaStreamSynchronize(stream));
    gc_expect_leak("async", 0, GC_MIB(1));
    leaked_dev0 += GC_MIB(1);
}

__attribute__((noinline)) static void leak_async_own_pool(void)
{
    void *p;
    GC_RT(cudaMallocFromPoolAsync(&p, GC_MIB(2), own_pool, stream));
    GC_RT(cudaStreamSynchronize(stream));
    gc_expect_leak("async", 0, GC_MIB(2));
    leaked_dev0 += GC_MIB(2);
}

__attribute__((noinline)) static void leak_managed(void)
{
    void *p;
    GC_RT(cudaMallocManaged(&p, GC_MIB(1) + 512, cudaMemAttachGlobal));
    gc_expect_leak("managed", 0, GC_MIB(1) + 512);
    leaked_dev0 += GC_MIB(1) + 512;
}

__attribute__((noinline)) static void leak_host(void)
{
    void *p;
    GC_RT(cudaMallocHost(&p, 12345));
    gc_expect_leak("host-pinned", -1, 12345);
}

__attribute__((noinline)) static void warm_up(void)
{
    void *p;
    GC_RT(cudaMalloc(&p, GC_MIB(2)));
    GC_RT(cudaFree(p));
    GC_RT(cudaMallocAsync(&p, GC_MIB(2), stream));
    GC_RT(cudaFreeAsync(p, stream));
    GC_RT(cudaMallocFromPoolAsync(&p, GC_MIB(2), own_pool, stream));
    GC_RT(cudaFreeAsync(p, stream));
    GC_RT(cudaStreamSynchronize(stream));
}

__attribute__((noinline)) static void try_oom(void)
{
    size_t f = 0, total = 0;
    GC_RT(cudaMemGetInfo(&f, &total));
    size_t req = 2 * total;
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, req);
    if (e != cudaErrorMemoryAllocation) {
        fprintf(stderr, "gc_runtime: cudaMalloc(%zu) of a %zu-byte device returned %s\n", req, total,
                cudaGetErrorName(e));
        exit(1);
    }
    (void)cudaGetLastError();
    printf("expect-oom 0 %zu\n", req);
}

int main(void)
{
    gc_start();
    GC_RT(cudaSetDevice(0));
    GC_RT(cudaFree(0));
    GC_RT(cudaStreamCreate(&stream));
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    GC_RT(cudaMemPoolCreate(&own_pool, &props));
    warm_up();

    void *dev, *asy, *pooled, *managed, *host;
    struct gc_window w = gc_window_begin("malloc-before", "malloc-after", 0);
    GC_RT(cudaMalloc(&dev, GC_MIB(64)));
    gc_window_end(w);

    w = gc_window_begin("async-default-before", "async-default-after", 0);
    GC_RT(cudaMallocAsync(&asy, GC_MIB(32), stream));
    GC_RT(cudaStreamSynchronize(stream));
    gc_window_end(w);

    w = gc_window_begin("async-pool-before", "async-pool-after", 0);
    GC_RT(cudaMallocFromPoolAsync(&pooled, GC_MIB(16), own_pool, stream));
    GC_RT(cudaStreamSynchronize(stream));
    gc_window_end(w);

    /* Managed memory takes device memory only when touched, pinned host memory none: no window. */
    GC_RT(cudaMallocManaged(&managed, GC_MIB(8), cudaMemAttachGlobal));
    GC_RT(cudaMallocHost(&host, GC_MIB(4)));
    memset(host, 1, GC_MIB(4));

    leak_device();
    leak_async_default();
    leak_async_own_pool();
    leak_managed();
    leak_host();
    gc_mark("peak");
    printf("expect-peak 0 %zu\n", GC_MIB(64 + 32 + 16 + 8) + leaked_dev0);
    printf("expect-host-peak %zu\n", GC_MIB(4) + (size_t)12345);
    printf("expect-leak-total 0 %zu\n", leaked_dev0);

    GC_RT(cudaFree(dev));
    GC_RT(cudaFreeAsync(asy, stream));
    GC_RT(cudaFreeAsync(pooled, stream));
    GC_RT(cudaStreamSynchronize(stream));
    GC_RT(cudaFree(managed));
    GC_RT(cudaFreeHost(host));
    try_oom();
    GC_RT(cudaStreamDestroy(stream));
    return 0;
}
