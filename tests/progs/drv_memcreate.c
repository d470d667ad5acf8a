/* drv_memcreate.c — several threads allocate and free at once, as HAMi-core's test_mem_create
 * does: THREADS threads each run ITERS times: allocate SIZE MiB on device 0, free it. Argument 1:
 * vmm (cuMemCreate / cuMemRelease) or mem (cuMemAlloc / cuMemFree). Run with FAKECUDA_FREE_US
 * (a free spends that long inside the driver before the memory is released, as a real driver's
 * does while it synchronises) and FAKECUDA_GROUND_TRUTH: its peak_bytes.0 line is the most the
 * driver held at once. Usage: drv_memcreate vmm|mem [THREADS [ITERS [SIZE_MIB]]] */
#include <cuda.h>
#include <pthread.h>
#include <stdlib.h>

#include "fake_prog.h"

static int vmm = 1, iters = 20;
static size_t size = (size_t)32 << 20;
static CUcontext ctx;

static void *worker(void *arg)
{
    (void)arg;
    FAKE_CU(cuCtxSetCurrent(ctx));
    for (int i = 0; i < iters; i++) {
        if (vmm) {
            CUmemAllocationProp prop;
            memset(&prop, 0, sizeof prop);
            prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
            prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
            prop.location.id = 0;
            CUmemGenericAllocationHandle h;
            FAKE_CU(cuMemCreate(&h, size, &prop, 0));
            FAKE_CU(cuMemRelease(h));
        } else {
            CUdeviceptr p;
            FAKE_CU(cuMemAlloc(&p, size));
            FAKE_CU(cuMemFree(p));
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = 4;
    if (argc > 1 && !strcmp(argv[1], "mem"))
        vmm = 0;
    if (argc > 2)
        threads = atoi(argv[2]);
    if (argc > 3)
        iters = atoi(argv[3]);
    if (argc > 4)
        size = (size_t)atoi(argv[4]) << 20;
    if (threads < 1 || threads > 64 || iters < 1 || !size)
        fake_fail("usage: drv_memcreate vmm|mem [THREADS [ITERS [SIZE_MIB]]]");
    ctx = fake_drv_start();
    pthread_t t[64];
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    fake_allocs = threads * iters; /* each freed */
    fake_expect_alloc();
    return 0;
}
