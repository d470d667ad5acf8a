/* drv_graph_sample.c — the memory sequence of NVIDIA's graphMemoryNodes sample (cuda-samples,
 * 3_CUDA_Features/graphMemoryNodes), rewritten with the driver API (kernels and copies become
 * empty / memset nodes and plain copies: their order is what matters): three 32 000 000-byte
 * arrays made and freed in a stream, in a graph captured from two streams (the second joins
 * through events and frees one array), in an explicit graph, and in an explicit graph whose last
 * array is freed outside it (cuMemFree, cuMemFreeAsync, a free node of another graph). With a
 * 32 000 000-byte reference array and a 1-byte managed flag live throughout, the driver holds
 * 96 000 001 bytes at most and nothing at exit. */
#include <cuda.h>

#include "fake_prog.h"

#define BYTES ((size_t)32000000)

static CUcontext ctx;

static void stream_ops(CUstream s1) {
    CUstream s2;
    CUevent square_done, negate_done, square_freed;
    CUdeviceptr in, square, neg;
    FAKE_CU(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    FAKE_CU(cuEventCreate(&square_done, 0));
    FAKE_CU(cuEventCreate(&negate_done, 0));
    FAKE_CU(cuEventCreate(&square_freed, 0));
    FAKE_CU(cuMemAllocAsync(&in, BYTES, s1));
    FAKE_CU(cuMemAllocAsync(&square, BYTES, s1));
    FAKE_CU(cuMemsetD8Async(in, 1, BYTES, s1)); /* the copy in and the square kernel */
    FAKE_CU(cuEventRecord(square_done, s1));
    FAKE_CU(cuStreamWaitEvent(s2, square_done, 0));
    FAKE_CU(cuMemFreeAsync(in, s1));
    FAKE_CU(cuMemAllocAsync(&neg, BYTES, s1));
    FAKE_CU(cuEventRecord(negate_done, s1)); /* after the negate kernel */
    FAKE_CU(cuMemFreeAsync(neg, s1));
    FAKE_CU(cuStreamWaitEvent(s2, negate_done, 0));
    FAKE_CU(cuMemFreeAsync(square, s2));
    FAKE_CU(cuEventRecord(square_freed, s2));
    FAKE_CU(cuStreamWaitEvent(s1, square_freed, 0));
    FAKE_CU(cuStreamDestroy(s2));
    FAKE_CU(cuEventDestroy(square_done));
    FAKE_CU(cuEventDestroy(negate_done));
    FAKE_CU(cuEventDestroy(square_freed));
}

static CUgraphNode node_alloc(CUgraph g, const CUgraphNode *deps, size_t n, CUdeviceptr *p) {
    CUDA_MEM_ALLOC_NODE_PARAMS a;
    memset(&a, 0, sizeof a);
    a.bytesize = BYTES;
    a.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    a.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    a.poolProps.location.id = 0;
    CUgraphNode node;
    FAKE_CU(cuGraphAddMemAllocNode(&node, g, deps, n, &a));
    *p = a.dptr;
    return node;
}

static CUgraphNode node_work(CUgraph g, const CUgraphNode *deps, size_t n, CUdeviceptr dst) {
    CUDA_MEMSET_NODE_PARAMS m;
    memset(&m, 0, sizeof m);
    m.dst = dst;
    m.elementSize = 1;
    m.width = 16;
    m.height = 1;
    CUgraphNode node;
    FAKE_CU(cuGraphAddMemsetNode(&node, g, deps, n, &m, ctx));
    return node;
}

static CUgraphNode node_free(CUgraph g, const CUgraphNode *deps, size_t n, CUdeviceptr p) {
    CUgraphNode node;
    FAKE_CU(cuGraphAddMemFreeNode(&node, g, deps, n, p));
    return node;
}

/* The explicit graph; with keep, its last array is not freed in it (returned in *keep). */
static CUgraphExec explicit_graph(CUdeviceptr *keep) {
    CUgraph g;
    CUdeviceptr in, square, neg;
    FAKE_CU(cuGraphCreate(&g, 0));
    CUgraphNode a_in = node_alloc(g, NULL, 0, &in);
    CUgraphNode a_sq = node_alloc(g, &a_in, 1, &square);
    CUgraphNode copy_in = node_work(g, &a_sq, 1, in);
    CUgraphNode sq_kernel = node_work(g, &copy_in, 1, square);
    CUgraphNode copy_sq = node_work(g, &sq_kernel, 1, square);
    CUgraphNode f_in = node_free(g, &sq_kernel, 1, in);
    CUgraphNode a_neg = node_alloc(g, &f_in, 1, &neg);
    CUgraphNode neg_kernel = node_work(g, &a_neg, 1, neg);
    CUgraphNode sq_users[2] = {copy_sq, neg_kernel};
    node_free(g, sq_users, 2, square);
    CUgraphNode copy_neg = node_work(g, &neg_kernel, 1, neg);
    if (keep)
        *keep = neg;
    else
        node_free(g, &copy_neg, 1, neg);
    CUgraphExec e;
    FAKE_CU(cuGraphInstantiateWithFlags(&e, g, 0));
    FAKE_CU(cuGraphDestroy(g));
    return e;
}

int main(void) {
    ctx = fake_drv_start();
    CUdeviceptr ref, flag, neg;
    CUstream s, cs;
    CUgraph g;
    CUgraphExec captured, e, free_exec;
    FAKE_CU_ALLOC(cuMemAlloc(&ref, BYTES));
    FAKE_CU_ALLOC(cuMemAllocManaged(&flag, 1, CU_MEM_ATTACH_GLOBAL));
    FAKE_CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));

    stream_ops(s); /* in a stream */
    fake_allocs += 3;
    FAKE_CU(cuStreamSynchronize(s));

    FAKE_CU(cuStreamCreate(&cs, CU_STREAM_NON_BLOCKING)); /* in a stream-captured graph */
    FAKE_CU(cuStreamBeginCapture(cs, CU_STREAM_CAPTURE_MODE_GLOBAL));
    stream_ops(cs);
    FAKE_CU(cuStreamEndCapture(cs, &g));
    FAKE_CU(cuGraphInstantiateWithFlags(&captured, g, 0));
    FAKE_CU(cuStreamDestroy(cs));
    FAKE_CU(cuGraphDestroy(g));
    FAKE_CU(cuGraphLaunch(captured, s));
    FAKE_CU(cuStreamSynchronize(s));
    fake_allocs += 3;

    e = explicit_graph(NULL); /* in an explicit graph */
    FAKE_CU(cuGraphLaunch(e, s));
    FAKE_CU(cuStreamSynchronize(s));
    fake_allocs += 3;

    e = explicit_graph(&neg); /* its last array freed outside the graph, three ways */
    FAKE_CU(cuGraphLaunch(e, s));
    FAKE_CU(cuStreamSynchronize(s));
    FAKE_CU(cuMemFree(neg));
    FAKE_CU(cuGraphLaunch(e, s));
    FAKE_CU(cuMemFreeAsync(neg, s));
    FAKE_CU(cuStreamSynchronize(s));
    FAKE_CU(cuGraphCreate(&g, 0));
    node_free(g, NULL, 0, neg);
    FAKE_CU(cuGraphInstantiateWithFlags(&free_exec, g, 0));
    FAKE_CU(cuGraphDestroy(g));
    FAKE_CU(cuGraphLaunch(e, s));
    FAKE_CU(cuGraphLaunch(free_exec, s));
    FAKE_CU(cuStreamSynchronize(s));
    fake_allocs += 9;

    FAKE_CU(cuGraphExecDestroy(e));
    FAKE_CU(cuGraphExecDestroy(free_exec));
    FAKE_CU(cuStreamDestroy(s));
    FAKE_CU(cuMemFree(flag));
    FAKE_CU(cuMemFree(ref));
    fake_expect_alloc();
    return 0;
}
