/* drv_overlap.c — two threads whose allocations overlap in the driver, deterministically (run
 * with FAKECUDA_GATE=1): A's cuMemCreate(64 MiB) returns first; the fake then holds A at its next
 * driver entry, and only then does B cuMemCreate(64 MiB) + cuMemRelease; A goes on and releases.
 * The driver held 128 MiB on device 0 at once (both creates returned before the first release),
 * whatever the tracker does after A's real call returned. Prints `driver-peak BYTES`. */
#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>

#include "fake_prog.h"

#define MB64 ((size_t)64 << 20)

static CUmemGenericAllocationHandle create(void)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    CUmemGenericAllocationHandle h;
    FAKE_CU_ALLOC(cuMemCreate(&h, MB64, &prop, 0));
    return h;
}

static void *thread_a(void *arg)
{
    (void)arg;
    CUmemGenericAllocationHandle h = create();
    CUcontext c;
    FAKE_CU(cuCtxGetCurrent(&c)); /* held here (or earlier, inside the tracker) until B released */
    FAKE_CU(cuMemRelease(h));
    return NULL;
}

int main(void)
{
    fake_stdout_lines();
    FAKE_CU(cuInit(0));
    int (*gate_wait)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "fakecuda_gate_wait");
    if (!gate_wait)
        fake_fail("not the fake driver (fakecuda_gate_wait)");
    pthread_t a;
    pthread_create(&a, NULL, thread_a, NULL);
    if (gate_wait() != 0)
        fake_fail("thread A never reached the gate (FAKECUDA_GATE=1?)");
    CUmemGenericAllocationHandle h = create(); /* A's 64 MiB are held by the driver now */
    printf("driver-peak %zu\n", 2 * MB64);
    FAKE_CU(cuMemRelease(h));
    pthread_join(a, NULL);
    fake_expect_alloc();
    return 0;
}
