/*
 * cmt_example.h — shared helpers of the cumemtrack examples (the examples/ programs): a checked-call macro
 * that names the failing CUDA runtime call, and a size formatter. The examples compile against
 * the real cuda_runtime_api.h and run on a real GPU or on the fake one (tests/fakecuda).
 */
#ifndef CMT_EXAMPLE_H
#define CMT_EXAMPLE_H

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#define CMT_EX_CHECK(call)                                                                         \
    do {                                                                                           \
        cudaError_t cmt_ex_e = (call);                                                             \
        if (cmt_ex_e != cudaSuccess) {                                                             \
            fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,              \
                    cudaGetErrorName(cmt_ex_e), cudaGetErrorString(cmt_ex_e));                     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define CMT_EX_MIB(n) ((size_t)(n) << 20)

/* Positive integer argument argv[i], or def when absent. */
static inline long cmt_ex_arg(int argc, char **argv, int i, long def)
{
    if (argc <= i)
        return def;
    char *end;
    long v = strtol(argv[i], &end, 10);
    if (*end || v <= 0) {
        fprintf(stderr, "%s: '%s' is not a positive number\n", argv[0], argv[i]);
        exit(2);
    }
    return v;
}

#endif
