/* rt_capture.c — cudaMallocAsync during stream capture makes graph nodes, not allocations; one
 * ordinary cudaMallocAsync is leaked in leak_uncaptured(). */
#include <cuda_runtime_api.h>

#include "fake_prog.h"

static void leak_uncaptured(cudaStream_t s)
{
    void *p;
    FAKE_RT_ALLOC(cudaMallocAsync(&p, 2048, s));
    fake_expect_leak("async", 0, 2048);
}

static void capture(cudaStream_t s)
{
    void *a, *b;
    cudaGraph_t g;
    enum cudaStreamCaptureStatus st;
    FAKE_RT(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    FAKE_RT(cudaStreamIsCapturing(s, &st));
    fake_check(st == cudaStreamCaptureStatusActive);
    FAKE_RT(cudaMallocAsync(&a, 4096, s)); /* graph node: not counted */
    FAKE_RT(cudaMallocAsync(&b, 8192, s)); /* graph node, never freed in the graph: no leak */
    FAKE_RT(cudaFreeAsync(a, s));
    FAKE_RT(cudaStreamEndCapture(s, &g));
    FAKE_RT(cudaGraphDestroy(g));
}

int main(void)
{
    fake_stdout_lines();
    cudaStream_t s;
    FAKE_RT(cudaSetDevice(0));
    FAKE_RT(cudaStreamCreate(&s));
    capture(s);
    leak_uncaptured(s);
    void *p;
    FAKE_RT_ALLOC(cudaMallocAsync(&p, 100, s));
    FAKE_RT(cudaFreeAsync(p, s));
    FAKE_RT(cudaStreamSynchronize(s));
    FAKE_RT(cudaStreamDestroy(s));
    fake_expect_alloc();
    return 0;
}
