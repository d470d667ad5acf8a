/* drv_devices.c — prints what the process sees of its devices, one line each:
 *     device ORDINAL UUID NAME... | PCI-BUS-ID
 * and leaks 4096 bytes on ordinal 0 (leak_on_ordinal0), so a test can check CUDA_VISIBLE_DEVICES
 * handling against the ground truth's physical index. */
#include <cuda.h>

#include "fake_prog.h"

static void leak_on_ordinal0(void)
{
    CUcontext c;
    CUdeviceptr p;
    FAKE_CU(cuDevicePrimaryCtxRetain(&c, 0));
    FAKE_CU(cuCtxSetCurrent(c));
    FAKE_CU_ALLOC(cuMemAlloc(&p, 4096));
    fake_expect_leak("device", 0, 4096);
}

int main(void)
{
    fake_stdout_lines();
    CUresult r = cuInit(0);
    int n = 0;
    if (r == CUDA_ERROR_NO_DEVICE) {
        printf("devices 0\n");
        fake_expect_alloc();
        return 0;
    }
    FAKE_CU(r);
    FAKE_CU(cuDeviceGetCount(&n));
    printf("devices %d\n", n);
    for (int d = 0; d < n; d++) {
        CUdevice dev;
        CUuuid u;
        char name[128], bus[32];
        FAKE_CU(cuDeviceGet(&dev, d));
        FAKE_CU(cuDeviceGetUuid(&u, dev));
        FAKE_CU(cuDeviceGetName(name, sizeof name, dev));
        FAKE_CU(cuDeviceGetPCIBusId(bus, sizeof bus, dev));
        printf("device %d GPU-", d);
        for (int i = 0; i < 16; i++)
            printf("%s%02x", (i == 4 || i == 6 || i == 8 || i == 10) ? "-" : "", (unsigned char)u.bytes[i]);
        printf(" %s | %s\n", name, bus);
    }
    if (n > 0)
        leak_on_ordinal0();
    fake_expect_alloc();
    return 0;
}
