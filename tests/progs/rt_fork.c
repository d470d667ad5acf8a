/* rt_fork.c — the parent allocates (and leaks) before fork; after fork, parent and child each
 * allocate and leak one more. Each process prints its own expect lines (the child's after the
 * parent's pre-fork ones). The fake lets the child use CUDA with an empty allocation table (the
 * real driver would refuse a forked child's use of the parent's contexts). */
#include <cuda_runtime_api.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_prog.h"

static void pre_fork_leak(void)
{
    void *p;
    FAKE_RT_ALLOC(cudaMalloc(&p, 3333));
    fake_expect_leak("device", 0, 3333);
}

static void parent_leak(void)
{
    void *p;
    FAKE_RT_ALLOC(cudaMalloc(&p, 1111));
    fake_expect_leak("device", 0, 1111);
}

static void child_leak(void)
{
    void *p;
    FAKE_RT(cudaSetDevice(1));
    FAKE_RT_ALLOC(cudaMalloc(&p, 2222));
    fake_expect_leak("device", 1, 2222);
}

int main(void)
{
    fake_stdout_lines();
    FAKE_RT(cudaSetDevice(0));
    pre_fork_leak();
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        fake_fail("fork");
    if (pid == 0) {
        fake_allocs = 0;
        printf("child-pid %d\n", (int)getpid());
        child_leak();
        void *p;
        FAKE_RT_ALLOC(cudaMalloc(&p, 10));
        FAKE_RT(cudaFree(p));
        fake_expect_alloc();
        exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    fake_check(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    printf("parent-pid %d\n", (int)getpid());
    parent_leak();
    fake_expect_alloc();
    return 0;
}
