/*
 * rel_hostile.c — driver-API program linked with librel_ctor.so (CUDA from a constructor that runs
 * before the tracker's), librel_next.so (an RTLD_NEXT interposer of cuMemAlloc_v2/cuMemFree_v2,
 * and a RTLD_NEXT look-up of cuMemAllocManaged) and the driver. Allocates N times through the
 * interposer, frees half, 3 managed allocations leaked. Prints `expect-alloc N`.
 */
#include <cuda.h>
#include <stdatomic.h>

#include "../progs/fake_prog.h"

extern int rel_ctor_status;
extern _Atomic int rel_next_allocs, rel_next_frees;
CUresult rel_next_managed(CUdeviceptr *p, size_t n);

int main(int argc, char **argv) {
    fake_stdout_lines();
    int n = argc > 1 ? atoi(argv[1]) : 100;
    if (rel_ctor_status != 0) fake_fail("the constructor's CUDA calls failed");
    fake_allocs = 1; /* the constructor's */
    FAKE_CU(cuInit(0));
    CUcontext c;
    FAKE_CU(cuDevicePrimaryCtxRetain(&c, 1));
    FAKE_CU(cuCtxSetCurrent(c));
    CUdeviceptr p[1000];
    if (n > 1000) n = 1000;
    for (int i = 0; i < n; i++) FAKE_CU_ALLOC(cuMemAlloc(&p[i], 100 + (size_t)i));
    for (int i = 0; i < n; i += 2) FAKE_CU(cuMemFree(p[i]));
    for (int i = 0; i < 3; i++) FAKE_CU_ALLOC(rel_next_managed(&p[i], 300 + (size_t)i));
    /* not checked: under the tracker, the wrapper's one real function may be the driver's (the
     * constructor looked cuMemAlloc_v2 up on the driver's handle first), bypassing the interposer */
    fprintf(stderr, "interposer saw %d allocs %d frees\n", rel_next_allocs, rel_next_frees);
    fake_expect_alloc();
    return 0;
}
