/* rt_killme.c — makes N (argv[1], default 5) allocations, printing each, then prints "ready" and
 * sleeps until killed (kill -9 by a test). */
#include <cuda_runtime_api.h>
#include <unistd.h>

#include "fake_prog.h"

static void leak_numbered(int i, int ndev)
{
    void *p;
    FAKE_RT(cudaSetDevice(i % ndev));
    FAKE_RT_ALLOC(cudaMalloc(&p, (size_t)(i + 1) * 4096));
    fake_expect_leak("device", i % ndev, (size_t)(i + 1) * 4096);
}

int main(int argc, char **argv)
{
    fake_stdout_lines();
    int n = argc > 1 ? atoi(argv[1]) : 5, ndev = 0;
    FAKE_RT(cudaGetDeviceCount(&ndev));
    for (int i = 0; i < n; i++)
        leak_numbered(i, ndev);
    fake_expect_alloc();
    printf("ready\n");
    fflush(stdout);
    for (;;)
        pause();
}
