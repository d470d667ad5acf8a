/* rt_ptsz.c — built with -DCUDA_API_PER_THREAD_DEFAULT_STREAM: cudaMallocAsync and friends are the
 * _ptsz/_ptds entry points and must reach the driver's per-thread variants. */
#include <cuda_runtime_api.h>
#include <cuda.h>

#include "fake_prog.h"

#ifndef CUDA_API_PER_THREAD_DEFAULT_STREAM
#error "rt_ptsz must be built with -DCUDA_API_PER_THREAD_DEFAULT_STREAM"
#endif

static void leak_ptsz_async(void)
{
    void *p;
    FAKE_RT_ALLOC(cudaMallocAsync(&p, 6000, 0));
    fake_expect_leak("async", 0, 6000);
}

static void via_entry_point(void)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult st;
    FAKE_RT(cudaGetDriverEntryPointByVersion("cuMemAllocAsync", &fn, 12000, cudaEnableDefault, &st));
    fake_check(fn && st == cudaDriverEntryPointSuccess);
    CUdeviceptr d;
    CUresult r = ((CUresult(*)(CUdeviceptr *, size_t, CUstream))fn)(&d, 100, 0);
    fake_check(r == CUDA_SUCCESS);
    fake_allocs++;
    FAKE_RT(cudaFreeAsync((void *)(uintptr_t)d, 0));
}

int main(void)
{
    fake_stdout_lines();
    void *p;
    char buf[64];
    FAKE_RT(cudaSetDevice(0));
    FAKE_RT_ALLOC(cudaMallocAsync(&p, 64, 0));
    FAKE_RT(cudaMemset(p, 7, 64));
    FAKE_RT(cudaMemcpy(buf, p, 64, cudaMemcpyDeviceToHost));
    fake_check(buf[63] == 7);
    FAKE_RT(cudaFreeAsync(p, 0));
    FAKE_RT(cudaStreamSynchronize(0));
    leak_ptsz_async();
    via_entry_point();
    fake_expect_alloc();
    return 0;
}
