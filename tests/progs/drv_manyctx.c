/* drv_manyctx.c — a service making one context per job: more contexts over the process's life
 * (5000) than exist at once; each job's memory ends with its context. One context and its
 * allocation are left at exit. */
#include <cuda.h>

#include "fake_prog.h"

static void leak_last(void)
{
    CUcontext c;
    CUdeviceptr p;
    FAKE_CU(cuCtxCreate(&c, NULL, 0, 1));
    FAKE_CU_ALLOC(cuMemAlloc(&p, 7777));
    fake_expect_leak("device", 1, 7777);
}

int main(void)
{
    fake_stdout_lines();
    FAKE_CU(cuInit(0));
    for (int job = 0; job < 5000; job++) {
        CUcontext c;
        CUdeviceptr p;
        FAKE_CU(cuCtxCreate(&c, NULL, 0, job % 4));
        FAKE_CU_ALLOC(cuMemAlloc(&p, 4096 + (size_t)job));
        FAKE_CU(cuCtxDestroy(c)); /* ends the job's memory */
    }
    leak_last();
    fake_expect_alloc();
    return 0;
}
