/* rt_exit_immediate.c — _exit() with live allocations (no atexit handlers, no destructors). */
#include <cuda_runtime_api.h>
#include <unistd.h>

#include "fake_prog.h"

static void leak_then_exit(void)
{
    void *p, *h;
    FAKE_RT(cudaSetDevice(2));
    FAKE_RT_ALLOC(cudaMalloc(&p, 7777));
    fake_expect_leak("device", 2, 7777);
    FAKE_RT_ALLOC(cudaMallocHost(&h, 999));
    fake_expect_leak("host-pinned", -1, 999);
}

int main(void)
{
    fake_stdout_lines();
    leak_then_exit();
    fake_expect_alloc();
    fflush(stdout);
    _exit(0);
}
