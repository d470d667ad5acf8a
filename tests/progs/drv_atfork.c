/* drv_atfork.c — linked with libatforkcuda.so (a library whose pthread_atfork child handler
 * allocates 4242 bytes, running before the tracker's handler): the parent allocates (1111, a leak)
 * and forks a child that allocates 2222 and exits. Prints `child-pid`/`parent-pid`. The child's
 * allocations belong to the child's dump only. */
#include <cuda.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_prog.h"

static void parent_leak(void)
{
    CUdeviceptr p;
    FAKE_CU_ALLOC(cuMemAlloc(&p, 1111));
    fake_expect_leak("device", 0, 1111);
}

int main(void)
{
    fake_drv_start();
    parent_leak();
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        fake_fail("fork");
    if (pid == 0) {
        CUdeviceptr p;
        printf("child-pid %d\n", (int)getpid());
        FAKE_CU(cuMemAlloc(&p, 2222));
        fflush(stdout);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fake_fail("child failed");
    printf("parent-pid %d\n", (int)getpid());
    fake_expect_alloc();
    return 0;
}
