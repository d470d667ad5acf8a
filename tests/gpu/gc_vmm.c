/*
 * gc_vmm.c — the VMM driver API (linked with -lcuda; the runtime makes the primary context):
 * cuMemCreate of four granules, cuMemAddressReserve, cuMemMap, cuMemSetAccess, measured against
 * cudaMemGetInfo; a leaked handle (created, never released); then cuMemUnmap and cuMemRelease.
 * Output protocol: tests/gpu/gpu_prog.h.
 */
#include <cuda.h>
#include <stdint.h>

#include "gpu_prog.h"

#define GC_CU(expr)                                                                                \
    do {                                                                                           \
        CUresult gc_r_ = (expr);                                                                   \
        if (gc_r_ != CUDA_SUCCESS) {                                                               \
            const char *gc_n_ = NULL;                                                              \
            cuGetErrorName(gc_r_, &gc_n_);                                                         \
            fprintf(stderr, "%s:%d: %s -> %d %s\n", __FILE__, __LINE__, #expr, (int)gc_r_,         \
                    gc_n_ ? gc_n_ : "?");                                                          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static CUmemAllocationProp prop;
static size_t gran;

__attribute__((noinline)) static void leak_vmm_handle(void)
{
    CUmemGenericAllocationHandle h;
    GC_CU(cuMemCreate(&h, gran, &prop, 0));
    gc_expect_leak("vmm", 0, gran);
}

int main(void)
{
    gc_start();
    GC_RT(cudaSetDevice(0));
    GC_RT(cudaFree(0));
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    GC_CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    GC_CHECK(gran > 0);
    size_t size = 4 * gran;

    CUmemGenericAllocationHandle h;
    CUdeviceptr va;
    struct gc_window w = gc_window_begin("vmm-before", "vmm-after", 0);
    GC_CU(cuMemCreate(&h, size, &prop, 0));
    GC_CU(cuMemAddressReserve(&va, size, 0, 0, 0));
    GC_CU(cuMemMap(va, size, 0, h, 0));
    CUmemAccessDesc a = {.location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0},
                         .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    GC_CU(cuMemSetAccess(va, size, &a, 1));
    GC_CU(cuMemsetD8(va, 0x5a, size));
    gc_window_end(w);

    leak_vmm_handle();
    gc_mark("peak");
    printf("expect-peak 0 %zu\n", size + gran);
    printf("expect-leak-total 0 %zu\n", gran);

    GC_CU(cuMemRelease(h)); /* still mapped: still live */
    GC_CU(cuMemUnmap(va, size)); /* now gone */
    GC_CU(cuMemAddressFree(va, size));
    return 0;
}
