/*
 * oom.c — allocates until the GPU runs out of memory.
 *
 * Usage: oom [CHUNK_MIB]   (default 64)
 * cudaMalloc's CHUNK_MIB at a time on device 0 until one fails; a failure with
 * cudaErrorMemoryAllocation is the expected end (exit 0), anything else exits 1. Everything is
 * freed afterwards. On the fake GPU, FAKECUDA_MEM_MB sets the memory size. `cumemtrack report`
 * lists the OOM with the bytes requested, what was live and the stack.
 */
#include "cmt_example.h"

#define OOM_MAX_CHUNKS (1 << 20)

__attribute__((noinline)) static cudaError_t oom_grow(void **p, size_t bytes)
{
    return cudaMalloc(p, bytes);
}

int main(int argc, char **argv)
{
    size_t chunk = CMT_EX_MIB(cmt_ex_arg(argc, argv, 1, 64));
    static void *chunks[OOM_MAX_CHUNKS];
    size_t n = 0, total = 0, freeb = 0;
    cudaError_t e = cudaSuccess;
    CMT_EX_CHECK(cudaSetDevice(0));
    CMT_EX_CHECK(cudaMemGetInfo(&freeb, &total));
    printf("oom: device 0 has %zu MiB free of %zu MiB; allocating %zu MiB chunks\n", freeb >> 20,
           total >> 20, chunk >> 20);
    while (n < OOM_MAX_CHUNKS && (e = oom_grow(&chunks[n], chunk)) == cudaSuccess)
        n++;
    (void)cudaGetLastError(); /* clear the sticky-free error state of the runtime */
    for (size_t i = 0; i < n; i++)
        CMT_EX_CHECK(cudaFree(chunks[i]));
    if (e != cudaErrorMemoryAllocation) {
        fprintf(stderr, "oom: stopped after %zu chunks without running out of memory (%s)\n", n,
                cudaGetErrorName(e));
        return 1;
    }
    printf("oom: %zu chunks (%zu MiB) allocated, then cudaMalloc(%zu MiB) failed with %s: %s; "
           "all freed\n",
           n, (n * chunk) >> 20, chunk >> 20, cudaGetErrorName(e), cudaGetErrorString(e));
    return 0;
}
