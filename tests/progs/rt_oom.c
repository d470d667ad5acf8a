/* rt_oom.c — with a small device (FAKECUDA_MEM_MB, 64 unless set) an allocation fails with
 * cudaErrorMemoryAllocation; the one before it is leaked in leak_before_oom(). */
#include <cuda_runtime_api.h>

#include "fake_prog.h"

static size_t total;

static void leak_before_oom(void)
{
    void *p;
    FAKE_RT_ALLOC(cudaMalloc(&p, total / 4 * 3));
    fake_expect_leak("device", 0, total / 4 * 3);
}

static void fail_with_oom(void)
{
    void *p = (void *)1;
    cudaError_t e = cudaMalloc(&p, total / 2);
    if (e != cudaErrorMemoryAllocation)
        fake_fail("expected cudaErrorMemoryAllocation, got %s", cudaGetErrorName(e));
    fake_check(p == NULL);
    fake_check(cudaGetLastError() == cudaErrorMemoryAllocation);
    printf("oom-ok %zu\n", total / 2);
}

int main(void)
{
    fake_stdout_lines();
    setenv("FAKECUDA_MEM_MB", "64", 0);
    size_t fr;
    FAKE_RT(cudaSetDevice(0));
    FAKE_RT(cudaMemGetInfo(&fr, &total));
    leak_before_oom();
    fail_with_oom();
    fake_expect_alloc();
    return 0;
}
