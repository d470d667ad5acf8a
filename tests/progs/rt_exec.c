/* rt_exec.c — allocates (leak_before_exec), prints "exec-boundary", then execs itself with
 * --after-exec, which allocates again (leak_after_exec). The fake driver's ground truth covers
 * the image after the exec only (no destructor runs at exec). */
#include <cuda_runtime_api.h>
#include <unistd.h>

#include "fake_prog.h"

static void leak_before_exec(void)
{
    void *p;
    FAKE_RT_ALLOC(cudaMalloc(&p, 4444));
    fake_expect_leak("device", 0, 4444);
}

static void leak_after_exec(void)
{
    void *p;
    FAKE_RT(cudaSetDevice(1));
    FAKE_RT_ALLOC(cudaMalloc(&p, 5555));
    fake_expect_leak("device", 1, 5555);
}

int main(int argc, char **argv)
{
    fake_stdout_lines();
    if (argc > 1 && !strcmp(argv[1], "--after-exec")) {
        leak_after_exec();
        fake_expect_alloc();
        return 0;
    }
    FAKE_RT(cudaSetDevice(0));
    leak_before_exec();
    fake_expect_alloc();
    printf("exec-boundary\n");
    fflush(stdout);
    char *args[] = {argv[0], "--after-exec", NULL};
    execv("/proc/self/exe", args);
    fake_fail("execv failed");
}
