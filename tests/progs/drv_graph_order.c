/* drv_graph_order.c — graph memory in the order a launch runs it (issue 25, item 4): each device
 * holds one case, so each device's peak is that case's.
 *   device 0: explicit graph, alloc A -> free A -> alloc B -> free B (1 MiB each): 1 MiB at most
 *   device 1: the same sequence captured on one stream
 *   device 2: alloc X captured on stream 1, freed by cuMemFreeAsync on stream 2, which joined
 *             the capture through cuStreamWaitEvent: the free is a node of the graph
 *   device 3: explicit graph, D (1 MiB) -> memset -> free D -> E (5 MiB); E freed after the
 *             launch by cuMemFree: 5 MiB at most
 *   device 4 (with FAKECUDA_DEVICES=5): two unordered branches, A 1 MiB -> free A and B 2 MiB ->
 *             free B, joined by an empty node: ready allocations are taken before ready frees, so
 *             both are counted live together, 3 MiB (they may run at once)
 *   device 5 (with FAKECUDA_DEVICES=6): cuStreamBeginCaptureToGraph into a graph holding alloc
 *             node P (1 MiB), depending on P: the captured free of P and allocation of Q (1 MiB)
 *             follow it: 1 MiB at most
 * Nothing leaks. Prints `graph-allocs N` (allocations the launches made). */
#include <cuda.h>

#include "fake_prog.h"

#define MB ((size_t)1 << 20)

static CUgraphNode add_alloc(CUgraph g, int dev, size_t size, CUgraphNode *dep, CUdeviceptr *p) {
    CUDA_MEM_ALLOC_NODE_PARAMS a;
    memset(&a, 0, sizeof a);
    a.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    a.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    a.poolProps.location.id = dev;
    a.bytesize = size;
    CUgraphNode n;
    FAKE_CU(cuGraphAddMemAllocNode(&n, g, dep, dep ? 1 : 0, &a));
    *p = a.dptr;
    return n;
}

static CUgraphNode add_free(CUgraph g, CUdeviceptr p, CUgraphNode *dep) {
    CUgraphNode n;
    FAKE_CU(cuGraphAddMemFreeNode(&n, g, dep, dep ? 1 : 0, p));
    return n;
}

static void launch_once(CUgraph g, CUstream s) {
    CUgraphExec e;
    FAKE_CU(cuGraphInstantiateWithFlags(&e, g, 0));
    FAKE_CU(cuGraphLaunch(e, s));
    FAKE_CU(cuStreamSynchronize(s));
    FAKE_CU(cuGraphExecDestroy(e));
    FAKE_CU(cuGraphDestroy(g));
}

static void use_device(int dev) {
    CUcontext c;
    CUdevice d;
    FAKE_CU(cuDeviceGet(&d, dev));
    FAKE_CU(cuDevicePrimaryCtxRetain(&c, d));
    FAKE_CU(cuCtxSetCurrent(c));
}

static void explicit_chain(void) {
    CUgraph g;
    CUdeviceptr a, b;
    FAKE_CU(cuGraphCreate(&g, 0));
    CUgraphNode n = add_alloc(g, 0, 1 * MB, NULL, &a);
    n = add_free(g, a, &n);
    n = add_alloc(g, 0, 1 * MB, &n, &b);
    add_free(g, b, &n);
    launch_once(g, NULL);
    fake_allocs += 2;
}

static void captured_chain(void) {
    CUstream s;
    CUgraph g;
    CUdeviceptr a, b;
    use_device(1);
    FAKE_CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    FAKE_CU(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    FAKE_CU(cuMemAllocAsync(&a, 1 * MB, s));
    FAKE_CU(cuMemFreeAsync(a, s));
    FAKE_CU(cuMemAllocAsync(&b, 1 * MB, s));
    FAKE_CU(cuMemFreeAsync(b, s));
    FAKE_CU(cuStreamEndCapture(s, &g));
    launch_once(g, s);
    FAKE_CU(cuStreamDestroy(s));
    fake_allocs += 2;
}

static void freed_on_joined_stream(void) {
    CUstream s1, s2;
    CUevent joined, back;
    CUgraph g;
    CUdeviceptr x;
    use_device(2);
    FAKE_CU(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    FAKE_CU(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    FAKE_CU(cuEventCreate(&joined, 0));
    FAKE_CU(cuEventCreate(&back, 0));
    FAKE_CU(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    FAKE_CU(cuMemAllocAsync(&x, 2 * MB, s1));
    FAKE_CU(cuEventRecord(joined, s1));
    FAKE_CU(cuStreamWaitEvent(s2, joined, 0)); /* s2 joins the capture */
    FAKE_CU(cuMemFreeAsync(x, s2));            /* a free node of the graph */
    FAKE_CU(cuEventRecord(back, s2));
    FAKE_CU(cuStreamWaitEvent(s1, back, 0));
    FAKE_CU(cuStreamEndCapture(s1, &g));
    launch_once(g, s1);
    FAKE_CU(cuEventDestroy(joined));
    FAKE_CU(cuEventDestroy(back));
    FAKE_CU(cuStreamDestroy(s2));
    FAKE_CU(cuStreamDestroy(s1));
    fake_allocs += 1;
}

static void memset_between(void) {
    CUgraph g;
    CUdeviceptr d, e;
    use_device(3);
    FAKE_CU(cuGraphCreate(&g, 0));
    CUgraphNode n = add_alloc(g, 3, 1 * MB, NULL, &d);
    CUDA_MEMSET_NODE_PARAMS ms;
    memset(&ms, 0, sizeof ms);
    ms.dst = d;
    ms.value = 0;
    ms.elementSize = 1;
    ms.width = 1 * MB;
    ms.height = 1;
    CUgraphNode m;
    CUcontext c;
    FAKE_CU(cuCtxGetCurrent(&c));
    FAKE_CU(cuGraphAddMemsetNode(&m, g, &n, 1, &ms, c));
    n = add_free(g, d, &m);
    add_alloc(g, 3, 5 * MB, &n, &e);
    launch_once(g, NULL);
    FAKE_CU(cuMemFree(e));
    fake_allocs += 2;
}

static void unordered_branches(void) {
    CUgraph g;
    CUdeviceptr a, b;
    int n = 0;
    FAKE_CU(cuDeviceGetCount(&n));
    if (n < 5) return;
    use_device(4);
    FAKE_CU(cuGraphCreate(&g, 0));
    CUgraphNode na = add_alloc(g, 4, 1 * MB, NULL, &a);
    CUgraphNode nb = add_alloc(g, 4, 2 * MB, NULL, &b);
    CUgraphNode ends[2] = {add_free(g, a, &na), add_free(g, b, &nb)};
    CUgraphNode join;
    FAKE_CU(cuGraphAddEmptyNode(&join, g, ends, 2));
    launch_once(g, NULL);
    fake_allocs += 2;
}

static void capture_to_graph(void) {
    CUgraph g;
    CUstream s;
    CUdeviceptr p, q;
    int n = 0;
    FAKE_CU(cuDeviceGetCount(&n));
    if (n < 6) return;
    use_device(5);
    FAKE_CU(cuGraphCreate(&g, 0));
    CUgraphNode np = add_alloc(g, 5, 1 * MB, NULL, &p);
    FAKE_CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    FAKE_CU(cuStreamBeginCaptureToGraph(s, g, &np, NULL, 1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    FAKE_CU(cuMemFreeAsync(p, s));
    FAKE_CU(cuMemAllocAsync(&q, 1 * MB, s));
    FAKE_CU(cuMemFreeAsync(q, s));
    CUgraph same;
    FAKE_CU(cuStreamEndCapture(s, &same));
    fake_check(same == g);
    launch_once(g, s);
    FAKE_CU(cuStreamDestroy(s));
    fake_allocs += 2;
}

int main(void) {
    fake_drv_start();
    explicit_chain();
    captured_chain();
    freed_on_joined_stream();
    memset_between();
    unordered_branches();
    capture_to_graph();
    printf("graph-allocs %d\n", fake_allocs);
    fake_expect_alloc();
    return 0;
}
