/*
 * librel_next.c — an interposer (as profilers are): defines cuMemAlloc_v2 and cuMemFree_v2 itself
 * and forwards them with dlsym(RTLD_NEXT, ...), counting the calls; also a helper that looks the
 * driver up with dlsym(RTLD_NEXT) without defining the name (rel_next_lookup).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <cuda.h>
#include <dlfcn.h>
#include <stdatomic.h>

_Atomic int rel_next_allocs, rel_next_frees;

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
    static CUresult (*next)(CUdeviceptr *, size_t);
    if (!next) next = (CUresult(*)(CUdeviceptr *, size_t))dlsym(RTLD_NEXT, "cuMemAlloc_v2");
    if (!next) return CUDA_ERROR_NOT_FOUND;
    atomic_fetch_add(&rel_next_allocs, 1);
    return next(p, n);
}

CUresult cuMemFree_v2(CUdeviceptr p) {
    CUresult (*next)(CUdeviceptr) = (CUresult(*)(CUdeviceptr))dlsym(RTLD_NEXT, "cuMemFree_v2");
    if (!next) return CUDA_ERROR_NOT_FOUND;
    atomic_fetch_add(&rel_next_frees, 1);
    return next(p);
}

/* cuMemAllocManaged through a RTLD_NEXT look-up by a library that does not define it */
CUresult rel_next_managed(CUdeviceptr *p, size_t n) {
    CUresult (*f)(CUdeviceptr *, size_t, unsigned) =
        (CUresult(*)(CUdeviceptr *, size_t, unsigned))dlsym(RTLD_NEXT, "cuMemAllocManaged");
    return f ? f(p, n, CU_MEM_ATTACH_GLOBAL) : CUDA_ERROR_NOT_FOUND;
}
