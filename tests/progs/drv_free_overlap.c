/* drv_free_overlap.c — a free still inside the driver while another thread allocates,
 * deterministically (run with FAKECUDA_GATE=free): thread A allocates 64 MiB and frees it; the
 * fake holds A's free inside the driver, the memory still allocated, until the main thread has
 * allocated its own 64 MiB and entered the driver again; then A's free goes on. The driver held
 * 128 MiB on device 0 at once. Argument: vmm (cuMemCreate / cuMemRelease, default) or mem
 * (cuMemAlloc / cuMemFree). Prints `driver-peak BYTES`. */
#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>

#include "fake_prog.h"

#define MB64 ((size_t)64 << 20)

static int vmm = 1;
static CUcontext ctx;

static uint64_t alloc64(void)
{
    if (!vmm) {
        CUdeviceptr p;
        FAKE_CU_ALLOC(cuMemAlloc(&p, MB64));
        return (uint64_t)p;
    }
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    CUmemGenericAllocationHandle h;
    FAKE_CU_ALLOC(cuMemCreate(&h, MB64, &prop, 0));
    return (uint64_t)h;
}

static void free64(uint64_t x)
{
    if (vmm)
        FAKE_CU(cuMemRelease((CUmemGenericAllocationHandle)x));
    else
        FAKE_CU(cuMemFree((CUdeviceptr)x));
}

static void *thread_a(void *arg)
{
    (void)arg;
    FAKE_CU(cuCtxSetCurrent(ctx));
    free64(alloc64()); /* held inside the driver until main allocated */
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "mem"))
        vmm = 0;
    ctx = fake_drv_start();
    int (*gate_wait)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "fakecuda_gate_wait");
    if (!gate_wait)
        fake_fail("not the fake driver (fakecuda_gate_wait)");
    pthread_t a;
    pthread_create(&a, NULL, thread_a, NULL);
    if (gate_wait() != 0)
        fake_fail("thread A's free never reached the gate (FAKECUDA_GATE=free?)");
    uint64_t x = alloc64(); /* A's 64 MiB are still held by the driver */
    printf("driver-peak %zu\n", 2 * MB64);
    CUcontext c;
    FAKE_CU(cuCtxGetCurrent(&c)); /* opens the gate: A's free goes on */
    pthread_join(a, NULL);
    free64(x);
    fake_expect_alloc();
    return 0;
}
