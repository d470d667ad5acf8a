/*
 * librel_ctor.c — a library whose constructor uses CUDA before the tracker's constructor ran
 * (it is a dependency of the program, so its constructor runs first): dlsym(RTLD_DEFAULT) and
 * dlsym on a handle of libcuda.so.1, cuInit, a primary context, one cuMemAlloc_v2 of 7777 bytes
 * that is leaked (device 0).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int rel_ctor_status = -1;

__attribute__((constructor)) static void rel_ctor(void) {
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    CUresult (*init)(unsigned) = (CUresult(*)(unsigned))dlsym(h, "cuInit");
    CUresult (*retain)(CUcontext *, CUdevice) = (CUresult(*)(CUcontext *, CUdevice))dlsym(h, "cuDevicePrimaryCtxRetain");
    CUresult (*setcur)(CUcontext) = (CUresult(*)(CUcontext))dlsym(RTLD_DEFAULT, "cuCtxSetCurrent");
    CUresult (*alloc)(CUdeviceptr *, size_t) = (CUresult(*)(CUdeviceptr *, size_t))dlsym(h, "cuMemAlloc_v2");
    if (!setcur) setcur = (CUresult(*)(CUcontext))dlsym(h, "cuCtxSetCurrent");
    CUcontext c;
    CUdeviceptr p;
    if (!init || !retain || !setcur || !alloc || init(0) || retain(&c, 0) || setcur(c) || alloc(&p, 7777))
        return;
    rel_ctor_status = 0;
}
