/*
 * fakert_graph.c — the runtime double's events, graphs and kernel launches: enough of the CUDA
 * 13.0 runtime for programs built by nvcc (the registration and launch entry points its host code
 * calls) and for NVIDIA's graphMemoryNodes sample. Each call reaches the driver through the same
 * look-ups the real runtime makes (fakert_internal.h). No device code runs: a fat binary is
 * accepted and ignored, and a kernel launch is a cuLaunchKernel of the host stub's address, which
 * the fake driver accepts and does nothing with (a node of the graph when captured).
 */
#include <string.h>

#include "fakert_internal.h"

/* ---- streams and events ---- */

FR_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags)
{
    FR_ENTER_NEED(cuStreamCreate, 2000, 0);
    return fakert_ret(FR_DRV(cuStreamCreate, 2000, 0)((CUstream *)s, flags));
}

FR_EXPORT cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    FR_ENTER_NEED(cuEventCreate, 2000, 0);
    return fakert_ret(FR_DRV(cuEventCreate, 2000, 0)((CUevent *)e, 0));
}

FR_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    FR_ENTER_NEED(cuEventDestroy, 4000, 0);
    return fakert_ret(FR_DRV(cuEventDestroy, 4000, 0)((CUevent)e));
}

FR_EXPORT cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    FR_ENTER_NEED(cuEventRecord, 2000, 0);
    return fakert_ret(FR_DRV(cuEventRecord, 2000, 0)((CUevent)e, (CUstream)s));
}

FR_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int flags)
{
    FR_ENTER_NEED(cuStreamWaitEvent, 3020, 0);
    return fakert_ret(FR_DRV(cuStreamWaitEvent, 3020, 0)((CUstream)s, (CUevent)e, flags));
}

FR_EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                                      cudaStream_t s)
{
    (void)kind; /* unified addressing: the driver tells the kinds apart */
    FR_ENTER_NEED(cuMemcpyAsync, 4000, 0);
    return fakert_ret(FR_DRV(cuMemcpyAsync, 4000, 0)((CUdeviceptr)dst, (CUdeviceptr)src, n, (CUstream)s));
}

FR_EXPORT cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr attr, int device)
{
    FR_ENTER_NEED(cuDeviceGetAttribute, 2000, 0);
    CUdevice d;
    CUresult r = FR_DRV(cuDeviceGet, 2000, 0)(&d, device);
    if (r != CUDA_SUCCESS)
        return fakert_ret(r);
    return fakert_ret(FR_DRV(cuDeviceGetAttribute, 2000, 0)(v, (CUdevice_attribute)attr, d));
}

/* ---- graphs ---- */

FR_EXPORT cudaError_t cudaGraphCreate(cudaGraph_t *g, unsigned int flags)
{
    FR_ENTER_NEED(cuGraphCreate, 10000, 0);
    return fakert_ret(FR_DRV(cuGraphCreate, 10000, 0)((CUgraph *)g, flags));
}

FR_EXPORT cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *n, cudaGraph_t g, const cudaGraphNode_t *deps,
                                               size_t ndeps, struct cudaMemAllocNodeParams *p)
{
    FR_ENTER_NEED(cuGraphAddMemAllocNode, 11040, 0);
    /* the runtime's and the driver's parameters have one layout */
    return fakert_ret(FR_DRV(cuGraphAddMemAllocNode, 11040, 0)((CUgraphNode *)n, (CUgraph)g,
                                                               (const CUgraphNode *)deps, ndeps,
                                                               (CUDA_MEM_ALLOC_NODE_PARAMS *)p));
}

FR_EXPORT cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *n, cudaGraph_t g, const cudaGraphNode_t *deps,
                                              size_t ndeps, void *dptr)
{
    FR_ENTER_NEED(cuGraphAddMemFreeNode, 11040, 0);
    return fakert_ret(FR_DRV(cuGraphAddMemFreeNode, 11040, 0)((CUgraphNode *)n, (CUgraph)g,
                                                              (const CUgraphNode *)deps, ndeps, (CUdeviceptr)dptr));
}

FR_EXPORT cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *n, cudaGraph_t g, const cudaGraphNode_t *deps,
                                               size_t ndeps, void *dst, const void *src, size_t count,
                                               enum cudaMemcpyKind kind)
{
    (void)kind;
    FR_ENTER_NEED(cuGraphAddMemcpyNode, 10000, 0);
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = c.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
    c.srcDevice = (CUdeviceptr)src;
    c.dstDevice = (CUdeviceptr)dst;
    c.WidthInBytes = count;
    c.Height = c.Depth = 1;
    CUcontext ctx = NULL;
    FR_DRV(cuCtxGetCurrent, 4000, 0)(&ctx);
    return fakert_ret(FR_DRV(cuGraphAddMemcpyNode, 10000, 0)((CUgraphNode *)n, (CUgraph)g,
                                                             (const CUgraphNode *)deps, ndeps, &c, ctx));
}

FR_EXPORT cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *n, cudaGraph_t g, const cudaGraphNode_t *deps,
                                             size_t ndeps, const struct cudaKernelNodeParams *p)
{
    FR_ENTER_NEED(cuGraphAddKernelNode, 12000, 0);
    if (!p)
        return fakert_fail(cudaErrorInvalidValue);
    CUDA_KERNEL_NODE_PARAMS k;
    memset(&k, 0, sizeof k);
    k.func = (CUfunction)p->func; /* the host stub stands for the kernel */
    k.gridDimX = p->gridDim.x, k.gridDimY = p->gridDim.y, k.gridDimZ = p->gridDim.z;
    k.blockDimX = p->blockDim.x, k.blockDimY = p->blockDim.y, k.blockDimZ = p->blockDim.z;
    k.sharedMemBytes = p->sharedMemBytes;
    k.kernelParams = p->kernelParams;
    k.extra = p->extra;
    return fakert_ret(FR_DRV(cuGraphAddKernelNode, 12000, 0)((CUgraphNode *)n, (CUgraph)g,
                                                             (const CUgraphNode *)deps, ndeps, &k));
}

FR_EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t *e, cudaGraph_t g, unsigned long long flags)
{
    FR_ENTER_NEED(cuGraphInstantiateWithFlags, 11040, 0);
    return fakert_ret(FR_DRV(cuGraphInstantiateWithFlags, 11040, 0)((CUgraphExec *)e, (CUgraph)g, flags));
}

FR_EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t e, cudaStream_t s)
{
    FR_ENTER_NEED(cuGraphLaunch, 10000, 0);
    return fakert_ret(FR_DRV(cuGraphLaunch, 10000, 0)((CUgraphExec)e, (CUstream)s));
}

FR_EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t e)
{
    FR_ENTER_NEED(cuGraphExecDestroy, 10000, 0);
    return fakert_ret(FR_DRV(cuGraphExecDestroy, 10000, 0)((CUgraphExec)e));
}

/* ---- what nvcc's host code calls: module registration and kernel launches ---- */

static char fr_fatbin_handle; /* one handle for every fat binary: nothing is loaded */

FR_EXPORT void **__cudaRegisterFatBinary(void *fatCubin)
{
    (void)fatCubin;
    return (void **)&fr_fatbin_handle;
}

FR_EXPORT void __cudaRegisterFatBinaryEnd(void **h) { (void)h; }
FR_EXPORT void __cudaUnregisterFatBinary(void **h) { (void)h; }
FR_EXPORT char __cudaInitModule(void **h)
{
    (void)h;
    return 1;
}

FR_EXPORT void __cudaRegisterFunction(void **h, const char *hostFun, char *deviceFun, const char *deviceName,
                                      int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize)
{
    (void)h, (void)hostFun, (void)deviceFun, (void)deviceName, (void)thread_limit;
    (void)tid, (void)bid, (void)bDim, (void)gDim, (void)wSize;
}

static __thread struct {
    dim3 grid, block;
    size_t shmem;
    void *stream;
} fr_launch_cfg;

FR_EXPORT unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem, void *stream)
{
    fr_launch_cfg.grid = grid;
    fr_launch_cfg.block = block;
    fr_launch_cfg.shmem = shmem;
    fr_launch_cfg.stream = stream;
    return 0;
}

FR_EXPORT cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shmem, void *stream)
{
    *grid = fr_launch_cfg.grid;
    *block = fr_launch_cfg.block;
    *shmem = fr_launch_cfg.shmem;
    *(void **)stream = fr_launch_cfg.stream;
    return cudaSuccess;
}

FR_EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *k, const void *fn)
{
    *k = (cudaKernel_t)fn;
    return cudaSuccess;
}

FR_EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3 grid, dim3 block, void **args, size_t shmem,
                                         cudaStream_t s)
{
    FR_ENTER_NEED(cuLaunchKernel, 4000, 0);
    return fakert_ret(FR_DRV(cuLaunchKernel, 4000, 0)((CUfunction)k, grid.x, grid.y, grid.z, block.x, block.y,
                                                      block.z, (unsigned)shmem, (CUstream)s, args, NULL));
}

/* ---- what simpleCudaGraphs also uses: host functions, memset/copy nodes, clones ---- */

FR_EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *data)
{
    FR_ENTER_NEED(cuLaunchHostFunc, 10000, 0);
    return fakert_ret(FR_DRV(cuLaunchHostFunc, 10000, 0)((CUstream)s, (CUhostFn)fn, data));
}

FR_EXPORT cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s)
{
    FR_ENTER_NEED(cuMemsetD8Async, 3020, 0);
    return fakert_ret(FR_DRV(cuMemsetD8Async, 3020, 0)((CUdeviceptr)p, (unsigned char)v, n, (CUstream)s));
}

FR_EXPORT cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *n, cudaGraph_t g, const cudaGraphNode_t *deps,
                                           size_t ndeps, const struct cudaHostNodeParams *p)
{
    FR_ENTER_NEED(cuGraphAddHostNode, 10000, 0);
    if (!p)
        return fakert_fail(cudaErrorInvalidValue);
    CUDA_HOST_NODE_PARAMS h = {.fn = (CUhostFn)p->fn, .userData = p->userData};
    return fakert_ret(
        FR_DRV(cuGraphAddHostNode, 10000, 0)((CUgraphNode *)n, (CUgraph)g, (const CUgraphNode *)deps, ndeps, &h));
}

FR_EXPORT cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *n, cudaGraph_t g, const cudaGraphNode_t *deps,
                                             size_t ndeps, const struct cudaMemsetParams *p)
{
    FR_ENTER_NEED(cuGraphAddMemsetNode, 10000, 0);
    if (!p)
        return fakert_fail(cudaErrorInvalidValue);
    CUDA_MEMSET_NODE_PARAMS m = {.dst = (CUdeviceptr)p->dst, .pitch = p->pitch, .value = p->value,
                                 .elementSize = p->elementSize, .width = p->width, .height = p->height};
    CUcontext ctx = NULL;
    FR_DRV(cuCtxGetCurrent, 4000, 0)(&ctx);
    return fakert_ret(FR_DRV(cuGraphAddMemsetNode, 10000, 0)((CUgraphNode *)n, (CUgraph)g,
                                                             (const CUgraphNode *)deps, ndeps, &m, ctx));
}

FR_EXPORT cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *n, cudaGraph_t g, const cudaGraphNode_t *deps,
                                             size_t ndeps, const struct cudaMemcpy3DParms *p)
{
    FR_ENTER_NEED(cuGraphAddMemcpyNode, 10000, 0);
    if (!p)
        return fakert_fail(cudaErrorInvalidValue);
    CUDA_MEMCPY3D c; /* the copy's operands: this double's copy nodes do not run */
    memset(&c, 0, sizeof c);
    c.srcMemoryType = c.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
    c.srcDevice = (CUdeviceptr)p->srcPtr.ptr;
    c.dstDevice = (CUdeviceptr)p->dstPtr.ptr;
    c.WidthInBytes = p->extent.width;
    c.Height = p->extent.height;
    c.Depth = p->extent.depth;
    CUcontext ctx = NULL;
    FR_DRV(cuCtxGetCurrent, 4000, 0)(&ctx);
    return fakert_ret(FR_DRV(cuGraphAddMemcpyNode, 10000, 0)((CUgraphNode *)n, (CUgraph)g,
                                                             (const CUgraphNode *)deps, ndeps, &c, ctx));
}

FR_EXPORT cudaError_t cudaGraphClone(cudaGraph_t *clone, cudaGraph_t g)
{
    FR_ENTER_NEED(cuGraphClone, 10000, 0);
    return fakert_ret(FR_DRV(cuGraphClone, 10000, 0)((CUgraph *)clone, (CUgraph)g));
}

FR_EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *num)
{
    FR_ENTER_NEED(cuGraphGetNodes, 10000, 0);
    return fakert_ret(FR_DRV(cuGraphGetNodes, 10000, 0)((CUgraph)g, (CUgraphNode *)nodes, num));
}
