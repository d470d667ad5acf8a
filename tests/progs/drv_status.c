/* drv_status.c — ends with the status given as argv[1] (default 3), the way argv[2] says:
 * "return" from main (the default), "exit" (exit()), "_exit" (_exit()). One leak. */
#include <cuda.h>
#include <unistd.h>

#include "fake_prog.h"

static void leak_one(void)
{
    CUcontext c;
    CUdeviceptr p;
    FAKE_CU(cuDevicePrimaryCtxRetain(&c, 0));
    FAKE_CU(cuCtxSetCurrent(c));
    FAKE_CU_ALLOC(cuMemAlloc(&p, 1234));
    fake_expect_leak("device", 0, 1234);
}

int main(int argc, char **argv)
{
    int status = argc > 1 ? atoi(argv[1]) : 3;
    const char *how = argc > 2 ? argv[2] : "return";
    fake_stdout_lines();
    FAKE_CU(cuInit(0));
    leak_one();
    fake_expect_alloc();
    if (!strcmp(how, "exit"))
        exit(status);
    if (!strcmp(how, "_exit"))
        _exit(status);
    return status;
}
