/* drv_noctxdev.c — devices first used without a current context: a thread that never makes a
 * context current creates VMM memory located on devices 2 (leaked) and 1 (released). The dump
 * must still carry both devices' identities. */
#include <cuda.h>
#include <pthread.h>

#include "fake_prog.h"

#define MB2 ((size_t)2 << 20)

static CUmemGenericAllocationHandle create_on(int dev)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    CUmemGenericAllocationHandle h;
    FAKE_CU_ALLOC(cuMemCreate(&h, MB2, &prop, 0));
    return h;
}

static void *worker(void *arg)
{
    (void)arg;
    CUcontext cur = (CUcontext)1;
    FAKE_CU(cuCtxGetCurrent(&cur));
    fake_check(cur == NULL);
    create_on(2);
    fake_expect_leak("vmm", 2, MB2);
    FAKE_CU(cuMemRelease(create_on(1)));
    return NULL;
}

int main(void)
{
    fake_stdout_lines();
    FAKE_CU(cuInit(0));
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    fake_expect_alloc();
    return 0;
}
