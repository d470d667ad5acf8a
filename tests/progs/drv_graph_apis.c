/* drv_graph_apis.c — graph APIs beyond memory nodes made one by one (issue 25, item 5), one case
 * per device (so each device's peak is that case's):
 *   device 0: cuGraphAddNode alloc/free nodes (A 1 MiB -> free A -> B 2 MiB, B never freed: a
 *             leak), instantiated with cuGraphInstantiateWithParams (UPLOAD), cuGraphUpload
 *   device 1: a child graph holding alloc and free nodes, moved into its parent (cuGraphAddNode,
 *             CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE): Y 1 MiB -> child (X 3 MiB -> free X) ->
 *             free Y; instantiated with the 5-argument cuGraphInstantiate (version 11000)
 *   device 2: cuGraphClone: refused for a graph with memory nodes; a clone made before its alloc
 *             node was added has alloc nodes of its own (C 2 MiB, freed outside after launch);
 *             cuGraphExecUpdate refuses a graph whose alloc node differs and accepts the
 *             executable's own graph
 *   device 3: instantiation for device launch: refused for a graph with memory nodes (and with
 *             AUTO_FREE_ON_LAUNCH), accepted for one with a memset node (no memory); the memory
 *             graph instantiated with AUTO_FREE_ON_LAUNCH and launched twice (D 4 MiB, freed by
 *             cuMemFree)
 * Prints `graph-allocs N`. */
#include <cuda.h>

#include "fake_prog.h"

#define MB ((size_t)1 << 20)

static CUcontext ctxs[4];

static void use_device(int dev) {
    CUdevice d;
    FAKE_CU(cuDeviceGet(&d, dev));
    FAKE_CU(cuDevicePrimaryCtxRetain(&ctxs[dev], d));
    FAKE_CU(cuCtxSetCurrent(ctxs[dev]));
}

static CUgraphNode add_alloc_node(CUgraph g, const CUgraphNode *dep, int dev, size_t size, CUdeviceptr *p) {
    CUgraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
    np.alloc.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    np.alloc.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    np.alloc.poolProps.location.id = dev;
    np.alloc.bytesize = size;
    CUgraphNode n;
    FAKE_CU(cuGraphAddNode(&n, g, dep, NULL, dep ? 1 : 0, &np));
    *p = np.alloc.dptr;
    return n;
}

static CUgraphNode add_free_node(CUgraph g, const CUgraphNode *dep, CUdeviceptr p) {
    CUgraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
    np.free.dptr = p;
    CUgraphNode n;
    FAKE_CU(cuGraphAddNode(&n, g, dep, NULL, dep ? 1 : 0, &np));
    return n;
}

static CUgraphNode add_memset_node(CUgraph g, const CUgraphNode *dep, CUdeviceptr p, CUcontext c) {
    CUDA_MEMSET_NODE_PARAMS m;
    memset(&m, 0, sizeof m);
    m.dst = p;
    m.elementSize = 1;
    m.width = 64;
    m.height = 1;
    CUgraphNode n;
    FAKE_CU(cuGraphAddMemsetNode(&n, g, dep, dep ? 1 : 0, &m, c));
    return n;
}

static void add_node_with_params(void) {
    CUgraph g;
    CUgraphExec e;
    CUstream s;
    CUdeviceptr a, b;
    FAKE_CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    FAKE_CU(cuGraphCreate(&g, 0));
    CUgraphNode n = add_alloc_node(g, NULL, 0, 1 * MB, &a);
    n = add_free_node(g, &n, a);
    add_alloc_node(g, &n, 0, 2 * MB, &b);
    fake_expect_leak("graph", 0, 2 * MB);
    CUDA_GRAPH_INSTANTIATE_PARAMS ip;
    memset(&ip, 0, sizeof ip);
    ip.flags = CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD;
    ip.hUploadStream = s;
    FAKE_CU(cuGraphInstantiateWithParams(&e, g, &ip));
    fake_check(ip.result_out == CUDA_GRAPH_INSTANTIATE_SUCCESS);
    FAKE_CU(cuGraphUpload(e, s)); /* allocates nothing: a launch does */
    cuuint64_t used = 1;
    FAKE_CU(cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &used));
    fake_check(used == 0);
    FAKE_CU(cuGraphLaunch(e, s));
    FAKE_CU(cuStreamSynchronize(s));
    FAKE_CU(cuGraphExecDestroy(e));
    FAKE_CU(cuGraphDestroy(g));
    FAKE_CU(cuStreamDestroy(s));
    fake_allocs += 2;
}

static void moved_child_graph(void) {
    CUgraph parent, child;
    CUgraphExec e;
    CUdeviceptr x, y;
    use_device(1);
    FAKE_CU(cuGraphCreate(&child, 0));
    CUgraphNode n = add_alloc_node(child, NULL, 1, 3 * MB, &x);
    add_free_node(child, &n, x);
    FAKE_CU(cuGraphCreate(&parent, 0));
    n = add_alloc_node(parent, NULL, 1, 1 * MB, &y);
    CUgraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = CU_GRAPH_NODE_TYPE_GRAPH;
    np.graph.graph = child;
    np.graph.ownership = CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE;
    CUgraphNode c;
    fake_check(cuGraphAddNode(&c, parent, &n, NULL, 1, &np) != CUDA_SUCCESS); /* memory nodes: move only */
    fake_check(cuGraphAddChildGraphNode(&c, parent, &n, 1, child) != CUDA_SUCCESS);
    np.graph.ownership = CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE;
    FAKE_CU(cuGraphAddNode(&c, parent, &n, NULL, 1, &np));
    add_free_node(parent, &c, y);
    /* the 5-argument instantiation (CUDA 11.0) as a runtime would ask for it */
    CUresult (*inst)(CUgraphExec *, CUgraph, CUgraphNode *, char *, size_t) = NULL;
    FAKE_CU(cuGetProcAddress("cuGraphInstantiate", (void **)&inst, 11000, 0, NULL));
    char log[64];
    CUgraphNode err;
    FAKE_CU(inst(&e, parent, &err, log, sizeof log));
    FAKE_CU(cuGraphLaunch(e, NULL));
    FAKE_CU(cuGraphExecDestroy(e));
    FAKE_CU(cuGraphDestroy(parent)); /* and the child it owns */
    fake_allocs += 2;
}

static void clone_and_update(void) {
    CUgraph g, g2, clone;
    CUgraphExec e;
    CUdeviceptr buf, p, p2;
    use_device(2);
    FAKE_CU_ALLOC(cuMemAlloc(&buf, 4096));
    FAKE_CU(cuGraphCreate(&g, 0));
    CUgraphNode m = add_memset_node(g, NULL, buf, ctxs[2]);
    FAKE_CU(cuGraphClone(&clone, g)); /* no memory nodes yet: cloned */
    add_alloc_node(g, &m, 2, 2 * MB, &p);
    CUgraph refused;
    fake_check(cuGraphClone(&refused, g) == CUDA_ERROR_NOT_SUPPORTED);
    CUgraphNode cm;
    size_t one = 1;
    FAKE_CU(cuGraphGetNodes(clone, &cm, &one));
    CUdeviceptr c;
    add_alloc_node(clone, &cm, 2, 2 * MB, &c); /* the clone's own alloc node */
    fake_check(c != p);
    FAKE_CU(cuGraphInstantiateWithFlags(&e, clone, 0));
    FAKE_CU(cuGraphCreate(&g2, 0)); /* the same shape, another alloc node */
    CUgraphNode m2 = add_memset_node(g2, NULL, buf, ctxs[2]);
    add_alloc_node(g2, &m2, 2, 2 * MB, &p2);
    CUgraphExecUpdateResultInfo info;
    fake_check(cuGraphExecUpdate(e, g2, &info) == CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
    fake_check(info.result == CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED);
    FAKE_CU(cuGraphExecUpdate(e, clone, &info));
    FAKE_CU(cuGraphLaunch(e, NULL));
    FAKE_CU(cuMemFree(c));
    FAKE_CU(cuGraphExecDestroy(e));
    FAKE_CU(cuGraphDestroy(clone));
    FAKE_CU(cuGraphDestroy(g2));
    FAKE_CU(cuGraphDestroy(g));
    FAKE_CU(cuMemFree(buf));
    fake_allocs += 1;
}

static void device_launch(void) {
    CUgraph g, work;
    CUgraphExec e;
    CUdeviceptr d, buf;
    use_device(3);
    FAKE_CU(cuGraphCreate(&g, 0));
    CUgraphNode n = add_alloc_node(g, NULL, 3, 4 * MB, &d);
    add_memset_node(g, &n, d, ctxs[3]);
    CUDA_GRAPH_INSTANTIATE_PARAMS ip;
    memset(&ip, 0, sizeof ip);
    ip.flags = CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH;
    fake_check(cuGraphInstantiateWithParams(&e, g, &ip) == CUDA_ERROR_INVALID_VALUE);
    fake_check(ip.result_out == CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED);
    fake_check(cuGraphInstantiateWithFlags(&e, g,
                                           CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH |
                                               CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH) ==
               CUDA_ERROR_INVALID_VALUE);
    FAKE_CU_ALLOC(cuMemAlloc(&buf, 4096));
    FAKE_CU(cuGraphCreate(&work, 0));
    add_memset_node(work, NULL, buf, ctxs[3]);
    CUgraphExec de;
    FAKE_CU(cuGraphInstantiateWithFlags(&de, work, CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH));
    FAKE_CU(cuGraphUpload(de, NULL));
    FAKE_CU(cuGraphLaunch(de, NULL));
    FAKE_CU(cuGraphExecDestroy(de));
    FAKE_CU(cuGraphDestroy(work));
    FAKE_CU(cuGraphInstantiateWithFlags(&e, g, CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH));
    FAKE_CU(cuGraphLaunch(e, NULL));
    FAKE_CU(cuGraphLaunch(e, NULL)); /* frees the first launch's D first */
    FAKE_CU(cuMemFree(d));
    FAKE_CU(cuGraphExecDestroy(e));
    FAKE_CU(cuGraphDestroy(g));
    FAKE_CU(cuMemFree(buf));
    fake_allocs += 2;
}

int main(void) {
    ctxs[0] = fake_drv_start();
    add_node_with_params();
    moved_child_graph();
    clone_and_update();
    device_launch();
    printf("graph-allocs %d\n", fake_allocs);
    fake_expect_alloc();
    return 0;
}
