/* vfork_exit.c — a vfork child shares the parent's memory and runs no fork handlers: its execve
 * and its _exit must not end the parent's dump. The parent allocates, vforks a child that execs
 * /bin/true, vforks a child that calls _exit(3) without exec, allocates again (leaked) and exits
 * normally. The dump must end with a clean exit and hold the allocations after the vforks. */

#include <cuda.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int main(void) {
    CUcontext c;
    CUdeviceptr a, b;
    cuInit(0);
    cuDevicePrimaryCtxRetain(&c, 0);
    cuCtxSetCurrent(c);
    cuMemAlloc(&a, 1111);
    char *argv[] = {"true", NULL};
    pid_t p = vfork();
    if (p == 0) {
        execve("/bin/true", argv, environ);
        _exit(127);
    }
    int st;
    waitpid(p, &st, 0);
    p = vfork();
    if (p == 0) _exit(3);
    waitpid(p, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 3) return 1;
    cuMemAlloc(&b, 2222);
    printf("ok\n");
    return 0;
}
