/* drv_fastpath.c — every way a call of the tracker's inline path (cuMemAlloc_v2, cuMemAllocManaged
 * and the frees without a per-thread stream; preload/cmt_events.h) can end, with the events that
 * close its gate in between: tests/cases/preload_fast_path.sh compares the dump with the one the
 * general path writes (CUMEMTRACK_FAST=0). Run with FAKECUDA_MEM_MB=64 (the refused allocation). */
#include <cuda.h>
#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_prog.h"

static void pairs(int n, size_t size) {
    for (int i = 0; i < n; i++) {
        CUdeviceptr p, q;
        FAKE_CU_ALLOC(cuMemAlloc(&p, size + (size_t)i));
        FAKE_CU_ALLOC(cuMemAllocManaged(&q, 2 * size, CU_MEM_ATTACH_GLOBAL));
        FAKE_CU(cuMemFree(q));
        FAKE_CU(cuMemFree(p));
    }
}

static void refusals(int dev) {
    CUdeviceptr p = 0;
    fake_check(cuMemAlloc(&p, (size_t)1 << 40) == CUDA_ERROR_OUT_OF_MEMORY); /* OOM */
    fake_check(cuMemAlloc(NULL, 100) != CUDA_SUCCESS);                       /* no pointer: FAILED */
    fake_check(cuMemAllocManaged(&p, 100, 77) != CUDA_SUCCESS);              /* bad flags: FAILED */
    FAKE_CU(cuMemFree(0));                                                   /* nothing recorded */
    FAKE_CU_ALLOC(cuMemAlloc(&p, 300));
    FAKE_CU(cuMemFree(p));
    fake_check(cuMemFree(p) != CUDA_SUCCESS);     /* not live: FREE unknown, then FAILED */
    fake_check(cuMemFree(p + 8) != CUDA_SUCCESS); /* interior: the same */
    void *h;
    FAKE_CU_ALLOC(cuMemAllocHost(&h, 500));
    fake_check(cuMemFree((CUdeviceptr)(uintptr_t)h) != CUDA_SUCCESS); /* live, refused: RETRACK */
    FAKE_CU_ALLOC(cuMemAlloc(&p, 700));
    fake_check(cuMemFreeHost((void *)(uintptr_t)p) != CUDA_SUCCESS); /* the same, other family */
    FAKE_CU(cuMemFreeHost(h));
    FAKE_CU(cuMemFree(p));
    static char reg[8192];
    FAKE_CU_ALLOC(cuMemHostRegister(reg, sizeof reg, 0));
    FAKE_CU(cuMemHostUnregister(reg));
    CUdeviceptr leak;
    FAKE_CU_ALLOC(cuMemAlloc(&leak, 4444));
    fake_expect_leak("device", dev, 4444);
}

int main(void) {
    CUcontext c0 = fake_drv_start();
    pairs(3, 256);
    refusals(0);
    /* a context switch between calls: the context is asked each call */
    CUcontext c1;
    FAKE_CU(cuDevicePrimaryCtxRetain(&c1, 1));
    FAKE_CU(cuCtxSetCurrent(c1));
    pairs(2, 1000);
    FAKE_CU(cuCtxSetCurrent(c0));
    pairs(2, 2000);
    /* a dlopen dirties the module map (the gate closes until the general path rescans) */
    void *m = dlopen("libm.so.6", RTLD_NOW);
    fake_check(m != NULL);
    pairs(2, 3000);
    /* a marker from a signal (CUMEMTRACK_MARK_SIGNAL=USR1) */
    raise(SIGUSR1);
    pairs(2, 4000);
    /* a forked child records into its own dump (the gate reads closed there) */
    fflush(stdout);
    pid_t pid = fork();
    fake_check(pid >= 0);
    if (pid == 0) {
        pairs(2, 5000);
        _exit(0);
    }
    int st;
    fake_check(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    pairs(2, 6000);
    FAKE_CU(cuCtxSetCurrent(c1));
    refusals(1);
    fake_expect_alloc();
    return 0;
}
