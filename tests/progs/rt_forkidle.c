/* rt_forkidle.c — the parent uses CUDA (one leak), then forks children that never call CUDA:
 * one returns from its function into exit(), one _exit()s. Prints `child-pid PID` per child and
 * `parent-pid PID`. Only the parent may leave a dump (the runtime's exit-time release of its
 * primary contexts runs in the children too). */
#include <cuda_runtime_api.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_prog.h"

static void parent_leak(void)
{
    void *p;
    FAKE_RT_ALLOC(cudaMalloc(&p, 3333));
    fake_expect_leak("device", 0, 3333);
}

int main(void)
{
    fake_stdout_lines();
    FAKE_RT(cudaSetDevice(0));
    parent_leak();
    fflush(stdout);
    for (int i = 0; i < 2; i++) {
        pid_t pid = fork();
        if (pid < 0)
            fake_fail("fork");
        if (pid == 0) {
            printf("child-pid %d\n", (int)getpid());
            fflush(stdout);
            if (i == 0)
                exit(0);
            _exit(0);
        }
        int st;
        waitpid(pid, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            fake_fail("child failed");
    }
    printf("parent-pid %d\n", (int)getpid());
    fake_expect_alloc();
    return 0;
}
