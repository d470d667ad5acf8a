/* sc_cycle_plugin.c — a plugin that allocates from many call stacks: plugin_spread(k) allocates and
 * frees device memory from k stacks (recursion depths 1..k), plugin_leak() leaks 1000 bytes. */
#include <cuda.h>

__attribute__((noinline)) static int alloc_free(void) {
    CUdeviceptr p;
    CUresult r = cuMemAlloc(&p, 4096);
    return r == CUDA_SUCCESS ? cuMemFree(p) : r;
}

__attribute__((noinline)) static int down(int d) {
    if (d == 0) return alloc_free();
    int r = down(d - 1);
    __asm__ volatile("" ::: "memory"); /* not a tail call: one frame per level */
    return r;
}

__attribute__((visibility("default"))) int plugin_spread(int k) {
    int r = 0;
    for (int d = 1; d <= k && r == 0; d++)
        r = down(d);
    return r;
}

__attribute__((noinline, visibility("default"))) int plugin_leak(void) {
    CUdeviceptr p;
    return cuMemAlloc(&p, 1000);
}
