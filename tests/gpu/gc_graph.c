/*
 * gc_graph.c — CUDA graphs' memory nodes on the real driver (issue 25, item 4): the memory sequence
 * of NVIDIA's graphMemoryNodes sample (as tests/progs/drv_graph_sample.c has it for the fake
 * driver), written with the runtime API. Three 32 000 000-byte arrays made and freed in a stream,
 * in a graph captured from two streams (the second joins through events and frees one array), in
 * an explicit graph, and in an explicit graph whose last array is freed outside it (cudaFree,
 * cudaFreeAsync, a free node of another graph). With a 32 000 000-byte reference array and a
 * 1-byte managed flag live throughout, the program holds 96 000 001 bytes at most and nothing at
 * exit: `expect-peak 0 96000001`, `expect-leak-total 0 0`. The driver's own figure cannot be
 * compared (graph memory stays reserved in the graph pool until cudaDeviceGraphMemTrim), so there
 * is no meminfo window.
 */
#include "gpu_prog.h"

#define BYTES ((size_t)32000000)

static void stream_ops(cudaStream_t s1)
{
    cudaStream_t s2;
    cudaEvent_t square_done, negate_done, square_freed;
    void *in, *square, *neg;
    GC_RT(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    GC_RT(cudaEventCreate(&square_done));
    GC_RT(cudaEventCreate(&negate_done));
    GC_RT(cudaEventCreate(&square_freed));
    GC_RT(cudaMallocAsync(&in, BYTES, s1));
    GC_RT(cudaMallocAsync(&square, BYTES, s1));
    GC_RT(cudaMemsetAsync(in, 1, BYTES, s1)); /* the copy in and the square kernel */
    GC_RT(cudaEventRecord(square_done, s1));
    GC_RT(cudaStreamWaitEvent(s2, square_done, 0));
    GC_RT(cudaFreeAsync(in, s1));
    GC_RT(cudaMallocAsync(&neg, BYTES, s1));
    GC_RT(cudaMemsetAsync(neg, 2, BYTES, s1)); /* the negate kernel */
    GC_RT(cudaEventRecord(negate_done, s1));
    GC_RT(cudaFreeAsync(neg, s1));
    GC_RT(cudaStreamWaitEvent(s2, negate_done, 0));
    GC_RT(cudaFreeAsync(square, s2));
    GC_RT(cudaEventRecord(square_freed, s2));
    GC_RT(cudaStreamWaitEvent(s1, square_freed, 0));
    GC_RT(cudaStreamDestroy(s2));
    GC_RT(cudaEventDestroy(square_done));
    GC_RT(cudaEventDestroy(negate_done));
    GC_RT(cudaEventDestroy(square_freed));
}

static cudaGraphNode_t node_alloc(cudaGraph_t g, const cudaGraphNode_t *deps, size_t n, void **p)
{
    struct cudaMemAllocNodeParams a;
    memset(&a, 0, sizeof a);
    a.bytesize = BYTES;
    a.poolProps.allocType = cudaMemAllocationTypePinned;
    a.poolProps.location.type = cudaMemLocationTypeDevice;
    a.poolProps.location.id = 0;
    cudaGraphNode_t node;
    GC_RT(cudaGraphAddMemAllocNode(&node, g, deps, n, &a));
    *p = a.dptr;
    return node;
}

static cudaGraphNode_t node_work(cudaGraph_t g, const cudaGraphNode_t *deps, size_t n, void *dst)
{
    struct cudaMemsetParams m;
    memset(&m, 0, sizeof m);
    m.dst = dst;
    m.elementSize = 1;
    m.width = 4096;
    m.height = 1;
    m.value = 3;
    cudaGraphNode_t node;
    GC_RT(cudaGraphAddMemsetNode(&node, g, deps, n, &m));
    return node;
}

static cudaGraphNode_t node_free(cudaGraph_t g, const cudaGraphNode_t *deps, size_t n, void *p)
{
    cudaGraphNode_t node;
    GC_RT(cudaGraphAddMemFreeNode(&node, g, deps, n, p));
    return node;
}

/* The explicit graph; with keep, its last array is not freed in it (returned in *keep). */
static cudaGraphExec_t explicit_graph(void **keep)
{
    cudaGraph_t g;
    void *in, *square, *neg;
    GC_RT(cudaGraphCreate(&g, 0));
    cudaGraphNode_t a_in = node_alloc(g, NULL, 0, &in);
    cudaGraphNode_t a_sq = node_alloc(g, &a_in, 1, &square);
    cudaGraphNode_t copy_in = node_work(g, &a_sq, 1, in);
    cudaGraphNode_t sq_kernel = node_work(g, &copy_in, 1, square);
    cudaGraphNode_t copy_sq = node_work(g, &sq_kernel, 1, square);
    cudaGraphNode_t f_in = node_free(g, &sq_kernel, 1, in);
    cudaGraphNode_t a_neg = node_alloc(g, &f_in, 1, &neg);
    cudaGraphNode_t neg_kernel = node_work(g, &a_neg, 1, neg);
    cudaGraphNode_t sq_users[2] = {copy_sq, neg_kernel};
    node_free(g, sq_users, 2, square);
    cudaGraphNode_t copy_neg = node_work(g, &neg_kernel, 1, neg);
    if (keep)
        *keep = neg;
    else
        node_free(g, &copy_neg, 1, neg);
    cudaGraphExec_t e;
    GC_RT(cudaGraphInstantiate(&e, g, 0));
    GC_RT(cudaGraphDestroy(g));
    return e;
}

int main(void)
{
    gc_start();
    GC_RT(cudaSetDevice(0));
    GC_RT(cudaFree(0));
    void *ref, *flag, *neg;
    cudaStream_t s, cs;
    cudaGraph_t g;
    cudaGraphExec_t captured, e, free_exec;
    GC_RT(cudaMalloc(&ref, BYTES));
    GC_RT(cudaMallocManaged(&flag, 1, cudaMemAttachGlobal));
    GC_RT(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    stream_ops(s); /* in a stream */
    GC_RT(cudaStreamSynchronize(s));

    GC_RT(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking)); /* in a captured graph */
    GC_RT(cudaStreamBeginCapture(cs, cudaStreamCaptureModeGlobal));
    stream_ops(cs);
    GC_RT(cudaStreamEndCapture(cs, &g));
    GC_RT(cudaGraphInstantiate(&captured, g, 0));
    GC_RT(cudaStreamDestroy(cs));
    GC_RT(cudaGraphDestroy(g));
    GC_RT(cudaGraphLaunch(captured, s));
    GC_RT(cudaStreamSynchronize(s));

    e = explicit_graph(NULL); /* in an explicit graph */
    GC_RT(cudaGraphLaunch(e, s));
    GC_RT(cudaStreamSynchronize(s));
    GC_RT(cudaGraphExecDestroy(e));

    e = explicit_graph(&neg); /* its last array freed outside the graph, three ways */
    GC_RT(cudaGraphLaunch(e, s));
    GC_RT(cudaStreamSynchronize(s));
    GC_RT(cudaFree(neg));
    GC_RT(cudaGraphLaunch(e, s));
    GC_RT(cudaFreeAsync(neg, s));
    GC_RT(cudaStreamSynchronize(s));
    GC_RT(cudaGraphCreate(&g, 0));
    node_free(g, NULL, 0, neg);
    GC_RT(cudaGraphInstantiate(&free_exec, g, 0));
    GC_RT(cudaGraphDestroy(g));
    GC_RT(cudaGraphLaunch(e, s));
    GC_RT(cudaGraphLaunch(free_exec, s));
    GC_RT(cudaStreamSynchronize(s));

    GC_RT(cudaGraphExecDestroy(e));
    GC_RT(cudaGraphExecDestroy(free_exec));
    GC_RT(cudaGraphExecDestroy(captured));
    GC_RT(cudaStreamDestroy(s));
    GC_RT(cudaFree(flag));
    GC_RT(cudaFree(ref));
    GC_RT(cudaDeviceSynchronize());
    printf("expect-peak 0 %zu\n", 3 * BYTES + 1);
    printf("expect-leak-total 0 0\n");
    return 0;
}
