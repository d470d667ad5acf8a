/*
 * sig_train.c — a training-like loop for the live-signal tests: N iterations, each inside an NVTX
 * range "iteration" (and an "NCCL" domain range per iteration, filtered out by default), with a
 * cmt_mark("iteration") per iteration; each iteration allocates and frees balanced buffers and
 * leaks 4 KiB in grow_cache(). Usage: sig_train [ITERATIONS] [--sleep-ms N]
 */
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cumemtrack.h"

static void *keep[100000];
static int nkeep;

__attribute__((noinline)) static void grow_cache(void) {
    void *p;
    if (cudaMalloc(&p, 4096) != cudaSuccess) exit(3);
    keep[nkeep++] = p;
}

__attribute__((noinline)) static void balanced_work(int i) {
    void *a, *b;
    if (cudaMalloc(&a, (size_t)(1 << 20) + (size_t)i * 512) != cudaSuccess) exit(3);
    if (cudaMalloc(&b, 65536) != cudaSuccess) exit(3);
    cudaFree(b);
    cudaFree(a);
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 10, sleep_ms = 0;
    for (int i = 2; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--sleep-ms")) sleep_ms = atoi(argv[i + 1]);
    nvtxDomainHandle_t nccl = nvtxDomainCreateA("NCCL");
    nvtxRangeId_t run = nvtxRangeStartA("training"); /* a start/end range around the loop */
    for (int i = 0; i < n; i++) {
        nvtxRangePushA("iteration");
        nvtxEventAttributes_t a;
        memset(&a, 0, sizeof a);
        a.version = NVTX_VERSION;
        a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
        a.messageType = NVTX_MESSAGE_TYPE_ASCII;
        a.message.ascii = "allreduce";
        nvtxDomainRangePushEx(nccl, &a);
        balanced_work(i);
        nvtxDomainRangePop(nccl);
        grow_cache();
        nvtxRangePop();
        cmt_mark("iteration");
        if (sleep_ms) usleep((useconds_t)sleep_ms * 1000);
    }
    nvtxRangeEnd(run);
    nvtxMarkA("done");
    printf("iterations %d leaked %d\n", n, nkeep);
    return 0;
}
