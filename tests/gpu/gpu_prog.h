/*
 * gpu_prog.h — helpers of the `make gpu-check` programs (tests/gpu/gc_*.c). Each program prints
 * what it knows about its own allocations, one line each, on stdout (tests/gpu/gpu_compare.py
 * reads them back and compares with `cumemtrack report --json`):
 *   expect-leak KIND ORDINAL BYTES FUNCTION     a leak of exactly BYTES from FUNCTION
 *   expect-leak-module KIND ORDINAL MINBYTES RE a leak (KIND may be '*') >= MINBYTES with a frame
 *                                               whose module matches the regex RE
 *   expect-leak-total ORDINAL BYTES             the device's leaked bytes, all leaks together
 *   expect-peak ORDINAL BYTES / expect-peak-min ORDINAL BYTES / expect-host-peak BYTES
 *   expect-oom ORDINAL BYTES                    an OOM record of exactly that request
 *   expect-python-frame SECTION ORDINAL QUALNAME  an entry of leaks, cached or peak (top stacks) on
 *                                               the device whose stack has that Python frame
 *   expect-cached ORDINAL ALLOCATOR MINBYTES    >= MINBYTES held at exit by that caching allocator
 *   meminfo BEFORE AFTER ORDINAL DRIVER_DELTA   cudaMemGetInfo's free-bytes drop between the
 *                                               markers BEFORE and AFTER (compared with the
 *                                               tracker's live-bytes growth, at 2 MiB granularity)
 *   ns-per-pair N                               (gc_loop) cudaMalloc+cudaFree time
 * Markers go through cmt_mark when the tracker is preloaded (looked up with dlsym, so the same
 * binary runs untracked). Compiles with nvcc -x c (real cudart) and with gcc (the runtime double).
 */
#ifndef GPU_PROG_H
#define GPU_PROG_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GC_MIB(n) ((size_t)(n) << 20)

#define GC_RT(expr)                                                                                \
    do {                                                                                           \
        cudaError_t gc_e_ = (expr);                                                                \
        if (gc_e_ != cudaSuccess) {                                                                \
            fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #expr,                        \
                    cudaGetErrorName(gc_e_));                                                      \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define GC_CHECK(cond)                                                                             \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define gc_expect_leak(kind, ord, bytes)                                                           \
    printf("expect-leak %s %d %zu %s\n", (kind), (int)(ord), (size_t)(bytes), __func__)

static inline void gc_start(void) { setvbuf(stdout, NULL, _IOLBF, 0); }

/* cmt_mark of the preloaded tracker, or nothing. */
static inline void gc_mark(const char *label)
{
    static void (*fn)(const char *);
    static int looked;
    if (!looked) {
        *(void **)&fn = dlsym(RTLD_DEFAULT, "cmt_mark");
        looked = 1;
    }
    if (fn)
        fn(label);
}

static inline size_t gc_free_bytes(void)
{
    size_t f = 0, t = 0;
    GC_RT(cudaDeviceSynchronize());
    GC_RT(cudaMemGetInfo(&f, &t));
    return f;
}

/* A measured window: gc_window_begin marks BEFORE and reads free memory; gc_window_end reads it
 * again, marks AFTER and prints the meminfo line. Device ORD must be current. */
struct gc_window {
    const char *before, *after;
    int ord;
    size_t free0;
};

static inline struct gc_window gc_window_begin(const char *before, const char *after, int ord)
{
    struct gc_window w = {before, after, ord, 0};
    w.free0 = gc_free_bytes();
    gc_mark(before);
    return w;
}

static inline void gc_window_end(struct gc_window w)
{
    size_t f1 = gc_free_bytes();
    gc_mark(w.after);
    printf("meminfo %s %s %d %lld\n", w.before, w.after, w.ord,
           (long long)w.free0 - (long long)f1);
}

#endif
