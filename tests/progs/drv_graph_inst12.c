/* drv_graph_inst12.c — cuGraphInstantiate as CUDA 12 code reaches it: cuGetProcAddress
 * ("cuGraphInstantiate") at version 12000 is the 3-argument function (phGraphExec, hGraph, flags)
 * that cuda.h names cuGraphInstantiateWithFlags; at 11000 the 5-argument cuGraphInstantiate_v2.
 *   the look-ups: 12000 and 13000 give what ("cuGraphInstantiateWithFlags", 11040) gives, not what
 *             11000 gives
 *   device 0: an alloc node (A 4 MiB, no free node) instantiated through the 12000 pointer with
 *             AUTO_FREE_ON_LAUNCH and launched three times: each relaunch frees the last launch's
 *             A first (the flag must reach the driver, or the relaunch is refused); A freed by
 *             cuMemFree at the end: peak 4 MiB, no leak
 *   device 1: the same graph shape (B 2 MiB) through the 12000 pointer with flags 0: the relaunch
 *             is refused while B is allocated; after cuMemFree(B) it runs again; B is leaked
 *   device 2: the 5-argument form through the 11000 pointer (C 1 MiB, one launch, freed)
 * Prints `graph-allocs N`. */
#include <cuda.h>
#include <cudaTypedefs.h>

#include "fake_prog.h"

#define MB ((size_t)1 << 20)

static void use_device(int dev) {
    CUdevice d;
    CUcontext c;
    FAKE_CU(cuDeviceGet(&d, dev));
    FAKE_CU(cuDevicePrimaryCtxRetain(&c, d));
    FAKE_CU(cuCtxSetCurrent(c));
}

/* A graph of one alloc node of size bytes on device dev; *p: its address. */
static CUgraph alloc_graph(int dev, size_t size, CUdeviceptr *p) {
    CUgraph g;
    FAKE_CU(cuGraphCreate(&g, 0));
    CUDA_MEM_ALLOC_NODE_PARAMS np;
    memset(&np, 0, sizeof np);
    np.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    np.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    np.poolProps.location.id = dev;
    np.bytesize = size;
    CUgraphNode n;
    FAKE_CU(cuGraphAddMemAllocNode(&n, g, NULL, 0, &np));
    *p = np.dptr;
    return g;
}

int main(void) {
    fake_drv_start();
    void *at12 = NULL, *at13 = NULL, *at11 = NULL, *with_flags = NULL;
    CUdriverProcAddressQueryResult st;
    FAKE_CU(cuGetProcAddress("cuGraphInstantiate", &at12, 12000, 0, &st));
    FAKE_CU(cuGetProcAddress("cuGraphInstantiate", &at13, 13000, 0, &st));
    FAKE_CU(cuGetProcAddress("cuGraphInstantiate", &at11, 11000, 0, &st));
    FAKE_CU(cuGetProcAddress("cuGraphInstantiateWithFlags", &with_flags, 11040, 0, &st));
    fake_check(at12 && at12 == at13 && at12 == with_flags && at11 && at11 != at12);
    PFN_cuGraphInstantiateWithFlags_v11040 inst3 = (PFN_cuGraphInstantiateWithFlags_v11040)at12;
    CUresult (*inst5)(CUgraphExec *, CUgraph, CUgraphNode *, char *, size_t) =
        (CUresult(*)(CUgraphExec *, CUgraph, CUgraphNode *, char *, size_t))at11;

    /* device 0: AUTO_FREE_ON_LAUNCH through the 12000 look-up */
    use_device(0);
    CUdeviceptr a, b, c;
    CUgraph g = alloc_graph(0, 4 * MB, &a);
    CUgraphExec e;
    FAKE_CU(inst3(&e, g, CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH));
    for (int i = 0; i < 3; i++)
        FAKE_CU(cuGraphLaunch(e, NULL)); /* the 2nd and 3rd free the last launch's A first */
    fake_allocs += 3;
    FAKE_CU(cuMemFree(a));
    FAKE_CU(cuGraphExecDestroy(e));
    FAKE_CU(cuGraphDestroy(g));

    /* device 1: flags 0 through the 12000 look-up */
    use_device(1);
    g = alloc_graph(1, 2 * MB, &b);
    FAKE_CU(inst3(&e, g, 0));
    FAKE_CU(cuGraphLaunch(e, NULL));
    fake_check(cuGraphLaunch(e, NULL) == CUDA_ERROR_INVALID_VALUE); /* B is still allocated */
    FAKE_CU(cuMemFree(b));
    FAKE_CU(cuGraphLaunch(e, NULL));
    fake_allocs += 2;
    fake_expect_leak("graph", 1, 2 * MB);
    FAKE_CU(cuGraphExecDestroy(e));
    FAKE_CU(cuGraphDestroy(g));

    /* device 2: the 5-argument form through the 11000 look-up */
    use_device(2);
    g = alloc_graph(2, 1 * MB, &c);
    char log[64];
    CUgraphNode err;
    FAKE_CU(inst5(&e, g, &err, log, sizeof log));
    FAKE_CU(cuGraphLaunch(e, NULL));
    fake_allocs += 1;
    FAKE_CU(cuMemFree(c));
    FAKE_CU(cuGraphExecDestroy(e));
    FAKE_CU(cuGraphDestroy(g));

    printf("graph-allocs %d\n", fake_allocs);
    fake_expect_alloc();
    return 0;
}
