/*
 * fake_prog.h — shared helpers of the test programs in tests/progs/. Every program prints, on
 * stdout, one line per allocation it made and does not free:
 *     expect-leak KIND ORDINAL BYTES FUNCTION
 * (KIND as in include/cmt_format.h; ORDINAL -1 for host memory; FUNCTION the C function that made
 * the call) and, once, `expect-alloc N` (its successful allocation calls, graph nodes excluded).
 */
#ifndef FAKE_PROG_H
#define FAKE_PROG_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fake_allocs;

static inline void fake_stdout_lines(void) { setvbuf(stdout, NULL, _IOLBF, 0); }

#define fake_expect_leak(kind, ord, bytes)                                                         \
    printf("expect-leak %s %d %zu %s\n", (kind), (int)(ord), (size_t)(bytes), __func__)

static inline void fake_expect_alloc(void)
{
    printf("expect-alloc %d\n", fake_allocs);
    fflush(stdout);
}

#define fake_fail(...)                                                                             \
    do {                                                                                           \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                            \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        exit(1);                                                                                   \
    } while (0)

#define fake_check(cond)                                                                           \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fake_fail("check failed: %s", #cond);                                                  \
    } while (0)

#ifdef __CUDA_RUNTIME_API_H__
#define FAKE_RT(expr)                                                                              \
    do {                                                                                           \
        cudaError_t fake_e_ = (expr);                                                              \
        if (fake_e_ != cudaSuccess)                                                                \
            fake_fail("%s -> %s", #expr, cudaGetErrorName(fake_e_));                               \
    } while (0)
#define FAKE_RT_ALLOC(expr)                                                                        \
    do {                                                                                           \
        FAKE_RT(expr);                                                                             \
        fake_allocs++;                                                                             \
    } while (0)
#endif

#ifdef __cuda_cuda_h__
#define FAKE_CU(expr)                                                                              \
    do {                                                                                           \
        CUresult fake_r_ = (expr);                                                                 \
        if (fake_r_ != CUDA_SUCCESS) {                                                             \
            const char *fake_n_ = NULL;                                                            \
            cuGetErrorName(fake_r_, &fake_n_);                                                     \
            fake_fail("%s -> %d %s", #expr, (int)fake_r_, fake_n_ ? fake_n_ : "?");                \
        }                                                                                          \
    } while (0)
/* The start of a driver-API program: line-buffered stdout, cuInit, device 0's primary context
 * retained and made current (returned). */
static inline CUcontext fake_drv_start(void)
{
    fake_stdout_lines();
    FAKE_CU(cuInit(0));
    CUcontext c;
    FAKE_CU(cuDevicePrimaryCtxRetain(&c, 0));
    FAKE_CU(cuCtxSetCurrent(c));
    return c;
}
#define FAKE_CU_ALLOC(expr)                                                                        \
    do {                                                                                           \
        FAKE_CU(expr);                                                                             \
        fake_allocs++;                                                                             \
    } while (0)
#endif

#endif
