/*
 * sig_pool.c — a pool allocator that reports its sub-allocations through the NVTX memory-heap API:
 * one 1 MiB cudaMalloc'd heap, 10 regions of 4 KiB carved from it, 7 given back, 3 kept by
 * leaky_user() (still registered at exit: the pool's own leak, invisible at the device level,
 * where only the heap is one allocation). Prints "regions-leaked 3".
 */
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtMem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static nvtxDomainHandle_t domain;
static nvtxMemHeapHandle_t heap;
static char *base;
static size_t used;

__attribute__((noinline)) static void pool_create(void) {
    if (cudaMalloc((void **)&base, 1 << 20) != cudaSuccess) exit(3);
    domain = nvtxDomainCreateA("toy-pool");
    nvtxMemVirtualRangeDesc_t range = {.size = 1 << 20, .ptr = base};
    nvtxMemHeapDesc_t desc;
    memset(&desc, 0, sizeof desc);
    desc.extCompatID = NVTX_EXT_COMPATID_MEM;
    desc.structSize = sizeof desc;
    desc.usage = NVTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR;
    desc.type = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
    desc.typeSpecificDescSize = sizeof range;
    desc.typeSpecificDesc = &range;
    desc.messageType = NVTX_MESSAGE_TYPE_ASCII;
    desc.message.ascii = "toy pool";
    heap = nvtxMemHeapRegister(domain, &desc);
}

__attribute__((noinline)) static void *pool_alloc(size_t n) {
    void *p = base + used;
    used += n;
    nvtxMemVirtualRangeDesc_t r = {.size = n, .ptr = p};
    nvtxMemRegionsRegisterBatch_t b;
    memset(&b, 0, sizeof b);
    b.extCompatID = NVTX_EXT_COMPATID_MEM;
    b.structSize = sizeof b;
    b.regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
    b.heap = heap;
    b.regionCount = 1;
    b.regionDescElementSize = sizeof r;
    b.regionDescElements = &r;
    nvtxMemRegionsRegister(domain, &b);
    return p;
}

__attribute__((noinline)) static void pool_free(void *p) {
    nvtxMemRegionRef_t ref = {.pointer = p};
    nvtxMemRegionsUnregisterBatch_t b;
    memset(&b, 0, sizeof b);
    b.extCompatID = NVTX_EXT_COMPATID_MEM;
    b.structSize = sizeof b;
    b.refType = NVTX_MEM_REGION_REF_TYPE_POINTER;
    b.refCount = 1;
    b.refElementSize = sizeof ref;
    b.refElements = &ref;
    nvtxMemRegionsUnregister(domain, &b);
}

__attribute__((noinline)) static void *leaky_user(void) { return pool_alloc(4096); }
__attribute__((noinline)) static void *tidy_user(void) { return pool_alloc(4096); }

int main(void) {
    pool_create();
    void *keep[3];
    for (int i = 0; i < 7; i++) pool_free(tidy_user());
    for (int i = 0; i < 3; i++) keep[i] = leaky_user();
    printf("regions-leaked %d (%p)\n", 3, keep[2]);
    return 0;
}
