/* drv_ipc.c — imported memory between two processes. The parent allocates 4 MiB on device 0
 * (cuIpcGetMemHandle) and a 2 MiB VMM handle on device 1 exported as a POSIX descriptor, then
 * forks. The child (another process, its own dump) opens the IPC handle twice (one mapping, two
 * references), closes once (still mapped) and leaves it open at exit; imports the descriptor
 * (cuMemImportFromShareableHandle), maps, unmaps and releases it; and allocates 1000 bytes it
 * leaks. The parent then frees its memory. Prints `child-pid`/`parent-pid`. */
#include <cuda.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_prog.h"

#define MB ((size_t)1 << 20)

static void child_leak(void)
{
    CUdeviceptr p;
    FAKE_CU_ALLOC(cuMemAlloc(&p, 1000));
    fake_expect_leak("device", 0, 1000);
}

static void child(CUipcMemHandle ipc, int fd)
{
    CUcontext c;
    FAKE_CU(cuDevicePrimaryCtxRetain(&c, 0));
    FAKE_CU(cuCtxSetCurrent(c));
    CUdeviceptr a, b;
    FAKE_CU(cuIpcOpenMemHandle(&a, ipc, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    FAKE_CU(cuIpcOpenMemHandle(&b, ipc, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    fake_check(a == b);
    FAKE_CU(cuIpcCloseMemHandle(a)); /* one reference left: still mapped, open at exit */
    CUmemGenericAllocationHandle h;
    FAKE_CU(cuMemImportFromShareableHandle(&h, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    CUdeviceptr va;
    FAKE_CU(cuMemAddressReserve(&va, 2 * MB, 0, 0, 0));
    FAKE_CU(cuMemMap(va, 2 * MB, 0, h, 0));
    FAKE_CU(cuMemUnmap(va, 2 * MB));
    FAKE_CU(cuMemRelease(h));
    FAKE_CU(cuMemAddressFree(va, 2 * MB));
    child_leak();
}

int main(void)
{
    fake_drv_start();
    CUdeviceptr p;
    FAKE_CU_ALLOC(cuMemAlloc(&p, 4 * MB));
    CUipcMemHandle ipc;
    FAKE_CU(cuIpcGetMemHandle(&ipc, p));
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 1;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    CUmemGenericAllocationHandle h;
    FAKE_CU_ALLOC(cuMemCreate(&h, 2 * MB, &prop, 0));
    int fd = -1;
    FAKE_CU(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    CUdeviceptr self;
    fake_check(cuIpcOpenMemHandle(&self, ipc, 0) == CUDA_ERROR_INVALID_CONTEXT); /* its own handle */
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        fake_fail("fork");
    if (pid == 0) {
        fake_allocs = 0;
        printf("child-pid %d\n", (int)getpid());
        child(ipc, fd);
        fake_expect_alloc();
        exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fake_fail("child failed");
    printf("parent-pid %d\n", (int)getpid());
    FAKE_CU(cuMemFree(p));
    FAKE_CU(cuMemRelease(h));
    close(fd);
    fake_expect_alloc();
    return 0;
}
