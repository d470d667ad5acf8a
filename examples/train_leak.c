/*
 * train_leak.c — a training-like loop that leaks 4 KiB of device memory per iteration.
 *
 * Usage: train_leak [ITERATIONS]   (default 10)
 * Every iteration allocates activations with cudaMalloc and gradients with cudaMallocAsync on a
 * stream, frees both, and calls cache_attention_mask(), which allocates a 4 KiB mask it means to
 * cache but never frees (the pointer is overwritten every iteration): the leak
 * `cumemtrack report` finds, with cache_attention_mask on its stack, and — since every iteration is
 * an NVTX range — as a stack that grows by 4 KiB per "iteration" marker.
 */
#include "cmt_example.h"

#include <unistd.h>

#include <nvtx3/nvToolsExt.h> /* header-only: each iteration is an NVTX range (a marker for the report) */

#define TL_ACT_BYTES CMT_EX_MIB(32)
#define TL_GRAD_BYTES CMT_EX_MIB(16)
#define TL_MASK_BYTES 4096u

static void *tl_mask_cache; /* overwritten every iteration: the previous mask leaks */

/* The bug: a "cache" that is refilled, never freed. */
__attribute__((noinline)) void cache_attention_mask(int iteration)
{
    void *mask;
    CMT_EX_CHECK(cudaMalloc(&mask, TL_MASK_BYTES));
    CMT_EX_CHECK(cudaMemset(mask, iteration & 0xff, TL_MASK_BYTES));
    tl_mask_cache = mask;
}

__attribute__((noinline)) static void train_step(int iteration, cudaStream_t stream)
{
    void *activations, *gradients;
    CMT_EX_CHECK(cudaMalloc(&activations, TL_ACT_BYTES));
    usleep(2000); /* "forward": gives the timeline of the demo a visible shape */
    CMT_EX_CHECK(cudaMallocAsync(&gradients, TL_GRAD_BYTES, stream));
    usleep(1000); /* "backward" */
    cache_attention_mask(iteration);
    CMT_EX_CHECK(cudaFreeAsync(gradients, stream));
    CMT_EX_CHECK(cudaStreamSynchronize(stream));
    CMT_EX_CHECK(cudaFree(activations));
}

int main(int argc, char **argv)
{
    int iterations = (int)cmt_ex_arg(argc, argv, 1, 10);
    cudaStream_t stream;
    CMT_EX_CHECK(cudaSetDevice(0));
    CMT_EX_CHECK(cudaStreamCreate(&stream));
    for (int i = 0; i < iterations; i++) {
        nvtxRangePushA("iteration"); /* the tracker turns these into markers: "growth per marker" */
        train_step(i, stream);
        nvtxRangePop();
    }
    CMT_EX_CHECK(cudaStreamDestroy(stream));
    printf("train_leak: %d iterations; each allocated %zu MiB of activations (cudaMalloc) and %zu MiB "
           "of gradients (cudaMallocAsync), freed them, and leaked %u bytes in cache_attention_mask "
           "(%zu bytes in all; last mask at %p)\n",
           iterations, TL_ACT_BYTES >> 20, TL_GRAD_BYTES >> 20, TL_MASK_BYTES,
           (size_t)iterations * TL_MASK_BYTES, tl_mask_cache);
    return 0;
}
