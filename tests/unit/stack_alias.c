/* stack_alias.c — the call-site stack cache must never hand out a stale stack: alloc_here() is
 * reached from via_a() and via_b(), whose frames have the same size, so the call site (return
 * address, stack pointer) is identical while the outer frames differ. Each path leaks a different
 * number of 4 KiB buffers (via_a 300, via_b 200, both through alloc_here), interleaved, at two
 * recursion depths. Prints "ok". */
#include <cuda.h>
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) static void alloc_here(void) {
    CUdeviceptr p;
    if (cuMemAlloc(&p, 4096) != CUDA_SUCCESS) sink = 1;
}
__attribute__((noinline)) static void via_a(int d) {
    if (d) via_a(d - 1); else alloc_here();
    sink++;
}
__attribute__((noinline)) static void via_b(int d) {
    if (d) via_b(d - 1); else alloc_here();
    sink++;
}

int main(void) {
    CUcontext c;
    cuInit(0);
    cuDevicePrimaryCtxRetain(&c, 0);
    cuCtxSetCurrent(c);
    for (int i = 0; i < 300; i++) {
        via_a(i & 1);
        if (i < 200) via_b(i & 1);
    }
    printf("ok\n");
    return 0;
}
