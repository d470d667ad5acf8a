/*
 * gc_cublas.c — a cuBLAS call: cublasCreate and one cublasSgemm on 1024x1024 matrices of its own
 * (12 MiB, freed before exit). The handle is deliberately never destroyed, so the allocations cuBLAS
 * made for itself (its workspace) are still live at exit and must show up as leaks whose stacks
 * hold a libcublas frame. Output protocol: tests/gpu/gpu_prog.h.
 */
#include <cublas_v2.h>

#include "gpu_prog.h"

#define N 1024

int main(void)
{
    gc_start();
    GC_RT(cudaSetDevice(0));
    GC_RT(cudaFree(0));
    float *a, *b, *c;
    size_t bytes = (size_t)N * N * sizeof(float);
    GC_RT(cudaMalloc((void **)&a, bytes));
    GC_RT(cudaMalloc((void **)&b, bytes));
    GC_RT(cudaMalloc((void **)&c, bytes));
    GC_RT(cudaMemset(a, 0, bytes));
    GC_RT(cudaMemset(b, 0, bytes));
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "gc_cublas: cublasCreate failed\n");
        return 1;
    }
    const float one = 1.0f, zero = 0.0f;
    if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, a, N, b, N, &zero, c, N) !=
        CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "gc_cublas: cublasSgemm failed\n");
        return 1;
    }
    GC_RT(cudaDeviceSynchronize());
    gc_mark("cublas-live");
    printf("expect-leak-module * 0 1 libcublas\n");
    printf("expect-peak-min 0 %zu\n", 3 * bytes + 1);
    GC_RT(cudaFree(a));
    GC_RT(cudaFree(b));
    GC_RT(cudaFree(c));
    return 0; /* h deliberately not destroyed */
}
