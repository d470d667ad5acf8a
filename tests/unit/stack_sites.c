/* stack_sites.c — many call sites and depths, one allocating call: alloc_here() is reached through
 * 4 levels of four-way call sites (site_a and site_a2 have the same small frame, site_b a bigger
 * one with uninitialised memory: paths that differ only in which small function they pass through
 * share every slot position, paths with the same number of big frames in other places reach
 * alloc_here at the same stack pointer with other slot positions; site_v's frame size changes
 * from call to call, alloca) below 0-3 extra recursion levels: 1024 stacks, all from the same
 * call instruction. Each (path, depth) allocates with its own size ((index + 1) * 256), first
 * round robin three times, then three times in a row each, then round robin again in the reverse
 * order; every allocation is freed. Prints "ok". */
#include <alloca.h>
#include <cuda.h>
#include <stdio.h>

#define LEVELS 4
#define PATHS 256 /* 4^LEVELS */
#define DEPTHS 4

static volatile int sink;

__attribute__((noinline)) static void alloc_here(size_t size) {
    CUdeviceptr p;
    if (cuMemAlloc(&p, size) != CUDA_SUCCESS || cuMemFree(p) != CUDA_SUCCESS) sink = 1;
}

static void site(int lvl, unsigned k, size_t size);
__attribute__((noinline)) static void site_a(int lvl, unsigned k, size_t size) {
    site(lvl, k, size);
    sink++;
}
__attribute__((noinline)) static void site_a2(int lvl, unsigned k, size_t size) {
    site(lvl, k, size);
    sink += 2;
}
__attribute__((noinline)) static void site_b(int lvl, unsigned k, size_t size) {
    volatile char pad[96];
    pad[0] = (char)k;
    site(lvl, k, size);
    sink += pad[0];
}
static unsigned calls;
__attribute__((noinline)) static void site_v(int lvl, unsigned k, size_t size) {
    volatile char *pad = alloca(16 + 32 * (++calls % 3)); /* another size on each call */
    pad[0] = (char)k;
    site(lvl, k, size);
    sink += pad[0];
}
/* level lvl: digit lvl of k (base 4) picks the function that makes the next call */
__attribute__((noinline)) static void site(int lvl, unsigned k, size_t size) {
    if (lvl == LEVELS) {
        alloc_here(size);
    } else if (k % 4 == 0) {
        site_a(lvl + 1, k / 4, size);
    } else if (k % 4 == 1) {
        site_a2(lvl + 1, k / 4, size);
    } else if (k % 4 == 2) {
        site_b(lvl + 1, k / 4, size);
    } else {
        site_v(lvl + 1, k / 4, size);
    }
    sink++;
}
__attribute__((noinline)) static void outer(int d, unsigned k, size_t size) {
    if (d)
        outer(d - 1, k, size);
    else
        site(0, k, size);
    sink++;
}

static void one(unsigned i) { outer((int)(i / PATHS), i % PATHS, (i + 1) * 256); }

int main(void) {
    CUcontext c;
    cuInit(0);
    cuDevicePrimaryCtxRetain(&c, 0);
    cuCtxSetCurrent(c);
    const unsigned n = PATHS * DEPTHS;
    for (int r = 0; r < 3; r++)
        for (unsigned i = 0; i < n; i++) one(i);
    for (unsigned i = 0; i < n; i++)
        for (int r = 0; r < 3; r++) one(i);
    for (unsigned i = n; i-- > 0;) one(i);
    printf("ok\n");
    return 0;
}
