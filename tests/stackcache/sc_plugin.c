/* sc_plugin.c — built twice (VERSION 1 and 2) into libraries of the same layout; the allocating
 * function has another name and line in each, at the same address. */
#include <cuda.h>
#if VERSION == 1
__attribute__((noinline)) static int lf(size_t n) {
    CUdeviceptr p;
    return cuMemAlloc(&p, n); /* v1: line 7 */
}
#define LEAF lf
#else
/* version 2 */
/* (its allocating function two lines further down) */
__attribute__((noinline)) static int xf(size_t n) {
    CUdeviceptr p;
    return cuMemAlloc(&p, n); /* v2: line 15 */
}
#define LEAF xf
#endif
__attribute__((visibility("default"))) int plugin_alloc(size_t n) {
    return LEAF(n);
}
