/* drv_vmm.c — virtual memory management with real semantics: create->map->release, aliasing two
 * VAs to one handle, one cuMemUnmap spanning two mappings, cuMemRetainAllocationHandle, a leaked
 * handle, and a released-but-still-mapped allocation (physical memory lives until unmapped). */
#include <cuda.h>
#include <stdint.h>

#include "fake_prog.h"

#define MB2 ((size_t)2 << 20)

static CUmemGenericAllocationHandle create(int dev, size_t size)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    CUmemGenericAllocationHandle h;
    FAKE_CU_ALLOC(cuMemCreate(&h, size, &prop, 0));
    return h;
}

static void set_access(CUdeviceptr va, size_t size, int dev)
{
    CUmemAccessDesc a = {.location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = dev},
                         .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    FAKE_CU(cuMemSetAccess(va, size, &a, 1));
}

static void create_map_release(void)
{
    CUmemGenericAllocationHandle h = create(0, MB2);
    CUdeviceptr va;
    FAKE_CU(cuMemAddressReserve(&va, 2 * MB2, 0, 0, 0));
    FAKE_CU(cuMemMap(va, MB2, 0, h, 0));
    set_access(va, MB2, 0);
    FAKE_CU(cuMemRelease(h)); /* still mapped: still live */
    memset((void *)(uintptr_t)va, 1, MB2);
    FAKE_CU(cuMemUnmap(va, MB2)); /* now freed */
    FAKE_CU(cuMemAddressFree(va, 2 * MB2));
}

static void aliasing(void)
{
    CUmemGenericAllocationHandle h = create(1, MB2);
    CUdeviceptr a, b;
    FAKE_CU(cuMemAddressReserve(&a, MB2, 0, 0, 0));
    FAKE_CU(cuMemAddressReserve(&b, MB2, 0, 0, 0));
    FAKE_CU(cuMemMap(a, MB2, 0, h, 0));
    FAKE_CU(cuMemMap(b, MB2, 0, h, 0));
    set_access(a, MB2, 1);
    set_access(b, MB2, 1);
    ((volatile char *)(uintptr_t)a)[12345] = 42;
    fake_check(((volatile char *)(uintptr_t)b)[12345] == 42); /* one physical allocation */
    FAKE_CU(cuMemRelease(h));
    FAKE_CU(cuMemUnmap(a, MB2));
    FAKE_CU(cuMemUnmap(b, MB2));
    FAKE_CU(cuMemAddressFree(a, MB2));
    FAKE_CU(cuMemAddressFree(b, MB2));
}

static void unmap_spanning_two(void)
{
    CUmemGenericAllocationHandle h1 = create(2, MB2), h2 = create(2, MB2);
    CUdeviceptr va;
    FAKE_CU(cuMemAddressReserve(&va, 2 * MB2, 0, 0, 0));
    FAKE_CU(cuMemMap(va, MB2, 0, h1, 0));
    FAKE_CU(cuMemMap(va + MB2, MB2, 0, h2, 0));
    set_access(va, 2 * MB2, 2);
    FAKE_CU(cuMemRelease(h1));
    FAKE_CU(cuMemRelease(h2));
    FAKE_CU(cuMemUnmap(va, 2 * MB2)); /* ends both */
    FAKE_CU(cuMemAddressFree(va, 2 * MB2));
}

static void retain_handle(void)
{
    CUmemGenericAllocationHandle h = create(3, MB2), r;
    CUdeviceptr va;
    FAKE_CU(cuMemAddressReserve(&va, MB2, 0, 0, 0));
    FAKE_CU(cuMemMap(va, MB2, 0, h, 0));
    FAKE_CU(cuMemRetainAllocationHandle(&r, (void *)(uintptr_t)(va + 100)));
    fake_check(r == h);
    CUmemAllocationProp prop;
    FAKE_CU(cuMemGetAllocationPropertiesFromHandle(&prop, r));
    fake_check(prop.location.id == 3);
    FAKE_CU(cuMemRelease(r));
    FAKE_CU(cuMemRelease(h));
    FAKE_CU(cuMemUnmap(va, MB2));
    FAKE_CU(cuMemAddressFree(va, MB2));
}

static void leak_vmm_handle(void)
{
    create(0, 2 * MB2);
    fake_expect_leak("vmm", 0, 2 * MB2);
}

static void leak_vmm_mapped(void)
{
    CUmemGenericAllocationHandle h = create(1, MB2);
    CUdeviceptr va;
    FAKE_CU(cuMemAddressReserve(&va, MB2, 0, 0, 0));
    FAKE_CU(cuMemMap(va, MB2, 0, h, 0));
    FAKE_CU(cuMemRelease(h)); /* released but never unmapped: the memory stays */
    fake_expect_leak("vmm", 1, MB2);
}

int main(void)
{
    fake_drv_start();
    size_t g;
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    FAKE_CU(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    fake_check(g == MB2);
    create_map_release();
    aliasing();
    unmap_spanning_two();
    retain_handle();
    leak_vmm_handle();
    leak_vmm_mapped();
    fake_expect_alloc();
    return 0;
}
