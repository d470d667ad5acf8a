/* drv_graph.c — graph memory (CUDA Programming Guide, "Graph Memory Nodes"): memory of a graph's
 * alloc node is allocated when a launch reaches the node and lives until freed, by a free node,
 * by cuMemFreeAsync/cuMemFree outside the graph, or by the next launch of an executable
 * instantiated with AUTO_FREE_ON_LAUNCH; destroying the graph or its executable frees nothing.
 * Prints `graph-allocs N` (allocations the launches made). */
#include <cuda.h>

#include "fake_prog.h"

#define MB ((size_t)1 << 20)

static CUdeviceptr add_alloc(CUgraph g, int dev, size_t size)
{
    CUDA_MEM_ALLOC_NODE_PARAMS p;
    memset(&p, 0, sizeof p);
    p.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.poolProps.location.id = dev;
    p.bytesize = size;
    CUgraphNode n;
    FAKE_CU(cuGraphAddMemAllocNode(&n, g, NULL, 0, &p));
    return p.dptr;
}

/* an alloc node never freed, relaunched with AUTO_FREE_ON_LAUNCH; graph and executable destroyed:
 * the memory of the last launch is live at exit */
static void leak_graph_node(void)
{
    CUgraph g;
    CUgraphExec e;
    FAKE_CU(cuGraphCreate(&g, 0));
    CUdeviceptr p = add_alloc(g, 0, 1 * MB);
    fake_expect_leak("graph", 0, 1 * MB);
    FAKE_CU(cuGraphInstantiateWithFlags(&e, g, CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH));
    FAKE_CU(cuGraphLaunch(e, NULL));
    FAKE_CU(cuGraphLaunch(e, NULL)); /* frees the first launch's memory, allocates again */
    fake_allocs += 2;
    cuuint64_t used = 0;
    FAKE_CU(cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &used));
    fake_check(used == 1 * MB);
    FAKE_CU(cuGraphExecDestroy(e));
    FAKE_CU(cuGraphDestroy(g));
    FAKE_CU(cuDeviceGraphMemTrim(0));
    (void)p;
}

/* alloc and free node in one graph: nothing stays */
static void alloc_and_free_nodes(void)
{
    CUgraph g;
    CUgraphExec e;
    FAKE_CU(cuGraphCreate(&g, 0));
    CUdeviceptr p = add_alloc(g, 0, 2 * MB);
    CUgraphNode n;
    FAKE_CU(cuGraphAddMemFreeNode(&n, g, NULL, 0, p));
    FAKE_CU(cuGraphInstantiateWithFlags(&e, g, 0));
    FAKE_CU(cuGraphLaunch(e, NULL));
    FAKE_CU(cuGraphLaunch(e, NULL));
    fake_allocs += 2;
    FAKE_CU(cuGraphExecDestroy(e));
    FAKE_CU(cuGraphDestroy(g));
}

/* stream capture: the captured cuMemAllocAsync is an alloc node; each launch's memory is freed
 * outside the graph (cuMemFreeAsync, then cuMemFree) */
static void captured(void)
{
    CUstream s;
    CUgraph g;
    CUgraphExec e;
    CUdeviceptr p;
    FAKE_CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    FAKE_CU(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    FAKE_CU(cuMemAllocAsync(&p, 3 * MB, s));
    FAKE_CU(cuStreamEndCapture(s, &g));
    FAKE_CU(cuGraphInstantiateWithFlags(&e, g, 0));
    FAKE_CU(cuGraphLaunch(e, s));
    fake_check(cuGraphLaunch(e, s) == CUDA_ERROR_INVALID_VALUE); /* not freed, no auto free */
    FAKE_CU(cuMemFreeAsync(p, s));
    FAKE_CU(cuGraphLaunch(e, s));
    FAKE_CU(cuMemFree(p));
    fake_allocs += 2;
    FAKE_CU(cuGraphExecDestroy(e));
    FAKE_CU(cuGraphDestroy(g));
    FAKE_CU(cuStreamDestroy(s));
}

int main(void)
{
    fake_drv_start();
    leak_graph_node();
    alloc_and_free_nodes();
    captured();
    printf("graph-allocs %d\n", fake_allocs);
    fake_expect_alloc();
    return 0;
}
