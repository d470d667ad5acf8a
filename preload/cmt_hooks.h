/*
 * cmt_hooks.h — THE table of intercepted CUDA driver entry points (one X-macro list).
 *
 * Everything else is generated from it: the exported wrappers (cmt_wrappers.c), the API ids and
 * names written into the dump, the real-pointer slots, the cuGetProcAddress variant map and the
 * linker version script (preload/exports.map.in). Add a line here and nothing else to hook a
 * variant.
 *
 * CMT_HOOK(sym, base, version, per_thread, family, kind, params, args, fill)
 *   sym         exported ABI name (exactly as libcuda exports it)
 *   base        the name cuGetProcAddress is asked for
 *   version     the CUDA version that introduced this ABI variant
 *   per_thread  1 for the _ptsz/_ptds variant (cuGetProcAddress flags & 2)
 *   family      what the call does (enum cmt_family: the handler in cmt_events.c)
 *   kind        allocation kind (enum cmt_kind without prefix) or NONE
 *   params      the C parameter list; args: the same names as a call argument list
 *   fill        statements filling `struct cmt_call c` from the parameters
 *
 * The file must stay includable without cuda.h (the version script is generated from it by cpp).
 */
#ifndef CMT_HOOKS_H
#define CMT_HOOKS_H

#define CMT_HOOKS(X)                                                                               \
    /* allocation and release of device memory */                                                  \
    X(cuMemAlloc_v2, "cuMemAlloc", 3020, 0, ALLOC, DEVICE, (CUdeviceptr * dptr, size_t bytesize),   \
      (dptr, bytesize), c.out = dptr; c.size = bytesize)                                           \
    X(cuMemAllocPitch_v2, "cuMemAllocPitch", 3020, 0, ALLOC, PITCH,                                 \
      (CUdeviceptr * dptr, size_t * pPitch, size_t WidthInBytes, size_t Height,                     \
       unsigned int ElementSizeBytes),                                                             \
      (dptr, pPitch, WidthInBytes, Height, ElementSizeBytes), c.out = dptr;                        \
      c.size = WidthInBytes * Height; c.pitch = pPitch; c.height = Height)                         \
    X(cuMemAllocManaged, "cuMemAllocManaged", 6000, 0, ALLOC, MANAGED,                             \
      (CUdeviceptr * dptr, size_t bytesize, unsigned int flags), (dptr, bytesize, flags),          \
      c.out = dptr; c.size = bytesize)                                                             \
    X(cuMemAllocAsync, "cuMemAllocAsync", 11020, 0, ALLOC, ASYNC,                                   \
      (CUdeviceptr * dptr, size_t bytesize, CUstream hStream), (dptr, bytesize, hStream),          \
      c.out = dptr; c.size = bytesize; c.stream = hStream)                                         \
    X(cuMemAllocAsync_ptsz, "cuMemAllocAsync", 11020, 1, ALLOC, ASYNC,                              \
      (CUdeviceptr * dptr, size_t bytesize, CUstream hStream), (dptr, bytesize, hStream),          \
      c.out = dptr; c.size = bytesize; c.stream = hStream)                                         \
    X(cuMemAllocFromPoolAsync, "cuMemAllocFromPoolAsync", 11020, 0, ALLOC, ASYNC,                   \
      (CUdeviceptr * dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream),                  \
      (dptr, bytesize, pool, hStream), c.out = dptr; c.size = bytesize; c.stream = hStream;        \
      c.pool = pool)                                                                               \
    X(cuMemAllocFromPoolAsync_ptsz, "cuMemAllocFromPoolAsync", 11020, 1, ALLOC, ASYNC,              \
      (CUdeviceptr * dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream),                  \
      (dptr, bytesize, pool, hStream), c.out = dptr; c.size = bytesize; c.stream = hStream;        \
      c.pool = pool)                                                                               \
    X(cuMemFree_v2, "cuMemFree", 3020, 0, FREE, NONE, (CUdeviceptr dptr), (dptr), c.ptr = dptr)    \
    X(cuMemFreeAsync, "cuMemFreeAsync", 11020, 0, FREE, NONE, (CUdeviceptr dptr, CUstream hStream), \
      (dptr, hStream), c.ptr = dptr; c.stream = hStream)                                           \
    X(cuMemFreeAsync_ptsz, "cuMemFreeAsync", 11020, 1, FREE, NONE,                                  \
      (CUdeviceptr dptr, CUstream hStream), (dptr, hStream), c.ptr = dptr; c.stream = hStream)     \
    /* host memory */                                                                              \
    X(cuMemHostAlloc, "cuMemHostAlloc", 2020, 0, ALLOC, HOST_PINNED,                                \
      (void **pp, size_t bytesize, unsigned int Flags), (pp, bytesize, Flags), c.out = pp;         \
      c.size = bytesize)                                                                           \
    X(cuMemAllocHost_v2, "cuMemAllocHost", 3020, 0, ALLOC, HOST_PINNED,                             \
      (void **pp, size_t bytesize), (pp, bytesize), c.out = pp; c.size = bytesize)                 \
    X(cuMemFreeHost, "cuMemFreeHost", 2000, 0, FREE, NONE, (void *p), (p),                          \
      c.ptr = (CUdeviceptr)(uintptr_t)p)                                                           \
    X(cuMemHostRegister, "cuMemHostRegister", 4000, 0, REGISTER, HOST_REGISTERED,                   \
      (void *p, size_t bytesize, unsigned int Flags), (p, bytesize, Flags),                        \
      c.ptr = (CUdeviceptr)(uintptr_t)p; c.size = bytesize)                                        \
    X(cuMemHostRegister_v2, "cuMemHostRegister", 6050, 0, REGISTER, HOST_REGISTERED,                \
      (void *p, size_t bytesize, unsigned int Flags), (p, bytesize, Flags),                        \
      c.ptr = (CUdeviceptr)(uintptr_t)p; c.size = bytesize)                                        \
    X(cuMemHostUnregister, "cuMemHostUnregister", 4000, 0, FREE, NONE, (void *p), (p),              \
      c.ptr = (CUdeviceptr)(uintptr_t)p)                                                           \
    /* arrays */                                                                                   \
    X(cuArrayCreate_v2, "cuArrayCreate", 3020, 0, ARRAY_CREATE, ARRAY,                              \
      (CUarray * pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray), (pHandle, pAllocateArray), \
      c.out = pHandle; c.size = cmt_array2d_bytes(pAllocateArray))                                 \
    X(cuArray3DCreate_v2, "cuArray3DCreate", 3020, 0, ARRAY_CREATE, ARRAY,                          \
      (CUarray * pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray),                          \
      (pHandle, pAllocateArray), c.out = pHandle; c.size = cmt_array3d_bytes(pAllocateArray, 1))   \
    X(cuMipmappedArrayCreate, "cuMipmappedArrayCreate", 5000, 0, ARRAY_CREATE, ARRAY,               \
      (CUmipmappedArray * pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,             \
       unsigned int numMipmapLevels),                                                              \
      (pHandle, pMipmappedArrayDesc, numMipmapLevels), c.out = pHandle;                            \
      c.size = cmt_array3d_bytes(pMipmappedArrayDesc, numMipmapLevels))                            \
    X(cuArrayDestroy, "cuArrayDestroy", 2000, 0, ARRAY_DESTROY, NONE, (CUarray hArray), (hArray),   \
      c.ptr = (CUdeviceptr)(uintptr_t)hArray)                                                      \
    X(cuMipmappedArrayDestroy, "cuMipmappedArrayDestroy", 5000, 0, ARRAY_DESTROY, NONE,             \
      (CUmipmappedArray hMipmappedArray), (hMipmappedArray),                                       \
      c.ptr = (CUdeviceptr)(uintptr_t)hMipmappedArray)                                             \
    /* virtual memory management */                                                                \
    X(cuMemCreate, "cuMemCreate", 10020, 0, VMM_CREATE, VMM,                                        \
      (CUmemGenericAllocationHandle * handle, size_t size, const CUmemAllocationProp *prop,        \
       unsigned long long flags),                                                                  \
      (handle, size, prop, flags), c.out = handle; c.size = size; c.vmm_prop = prop)               \
    X(cuMemRelease, "cuMemRelease", 10020, 0, VMM_RELEASE, NONE,                                    \
      (CUmemGenericAllocationHandle handle), (handle), c.ptr = handle)                             \
    X(cuMemMap, "cuMemMap", 10020, 0, VMM_MAP, NONE,                                                \
      (CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,           \
       unsigned long long flags),                                                                  \
      (ptr, size, offset, handle, flags), c.ptr = ptr; c.size = size; c.handle = handle)           \
    X(cuMemUnmap, "cuMemUnmap", 10020, 0, VMM_UNMAP, NONE, (CUdeviceptr ptr, size_t size),          \
      (ptr, size), c.ptr = ptr; c.size = size)                                                     \
    X(cuMemRetainAllocationHandle, "cuMemRetainAllocationHandle", 11000, 0, VMM_RETAIN, NONE,       \
      (CUmemGenericAllocationHandle * handle, void *addr), (handle, addr), c.out = handle;          \
      c.ptr = (CUdeviceptr)(uintptr_t)addr)                                                        \
    /* imported memory: another process's allocations mapped here */                              \
    X(cuIpcOpenMemHandle, "cuIpcOpenMemHandle", 4010, 0, IPC_OPEN, IMPORTED,                        \
      (CUdeviceptr * pdptr, CUipcMemHandle handle, unsigned int Flags), (pdptr, handle, Flags),     \
      c.out = pdptr)                                                                               \
    X(cuIpcOpenMemHandle_v2, "cuIpcOpenMemHandle", 11000, 0, IPC_OPEN, IMPORTED,                    \
      (CUdeviceptr * pdptr, CUipcMemHandle handle, unsigned int Flags), (pdptr, handle, Flags),     \
      c.out = pdptr)                                                                               \
    X(cuIpcCloseMemHandle, "cuIpcCloseMemHandle", 4010, 0, IPC_CLOSE, NONE, (CUdeviceptr dptr),     \
      (dptr), c.ptr = dptr)                                                                        \
    X(cuMemImportFromShareableHandle, "cuMemImportFromShareableHandle", 10020, 0, VMM_IMPORT,        \
      IMPORTED,                                                                                    \
      (CUmemGenericAllocationHandle * handle, void *osHandle, CUmemAllocationHandleType shHandleType), \
      (handle, osHandle, shHandleType), c.out = handle)                                            \
    /* CUDA graphs: memory nodes, capture, instantiation, launches */                              \
    X(cuGraphAddMemAllocNode, "cuGraphAddMemAllocNode", 11040, 0, GRAPH_ALLOC_NODE, GRAPH,           \
      (CUgraphNode * phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,                 \
       size_t numDependencies, CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams),                            \
      (phGraphNode, hGraph, dependencies, numDependencies, nodeParams), c.graph = hGraph;          \
      c.out = phGraphNode; c.mem_node = nodeParams)                                                \
    X(cuGraphAddNode, "cuGraphAddNode", 12020, 0, GRAPH_ADD_NODE, GRAPH,                             \
      (CUgraphNode * phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,                 \
       size_t numDependencies, CUgraphNodeParams *nodeParams),                                     \
      (phGraphNode, hGraph, dependencies, numDependencies, nodeParams), c.graph = hGraph;          \
      c.out = phGraphNode; c.node_params = nodeParams)                                             \
    X(cuGraphAddNode_v2, "cuGraphAddNode", 12030, 0, GRAPH_ADD_NODE, GRAPH,                          \
      (CUgraphNode * phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,                 \
       const CUgraphEdgeData *dependencyData, size_t numDependencies, CUgraphNodeParams *nodeParams), \
      (phGraphNode, hGraph, dependencies, dependencyData, numDependencies, nodeParams),            \
      c.graph = hGraph; c.out = phGraphNode; c.node_params = nodeParams)                           \
    X(cuStreamBeginCapture, "cuStreamBeginCapture", 10000, 0, CAPTURE_BEGIN, NONE,                  \
      (CUstream hStream), (hStream), c.stream = hStream)                                           \
    X(cuStreamBeginCapture_ptsz, "cuStreamBeginCapture", 10000, 1, CAPTURE_BEGIN, NONE,             \
      (CUstream hStream), (hStream), c.stream = hStream)                                           \
    X(cuStreamBeginCapture_v2, "cuStreamBeginCapture", 10010, 0, CAPTURE_BEGIN, NONE,               \
      (CUstream hStream, CUstreamCaptureMode mode), (hStream, mode), c.stream = hStream)           \
    X(cuStreamBeginCapture_v2_ptsz, "cuStreamBeginCapture", 10010, 1, CAPTURE_BEGIN, NONE,          \
      (CUstream hStream, CUstreamCaptureMode mode), (hStream, mode), c.stream = hStream)           \
    X(cuStreamBeginCaptureToGraph, "cuStreamBeginCaptureToGraph", 12030, 0, CAPTURE_BEGIN, NONE,    \
      (CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies,                          \
       const CUgraphEdgeData *dependencyData, size_t numDependencies, CUstreamCaptureMode mode),   \
      (hStream, hGraph, dependencies, dependencyData, numDependencies, mode), c.stream = hStream)  \
    X(cuStreamBeginCaptureToGraph_ptsz, "cuStreamBeginCaptureToGraph", 12030, 1, CAPTURE_BEGIN,     \
      NONE,                                                                                        \
      (CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies,                          \
       const CUgraphEdgeData *dependencyData, size_t numDependencies, CUstreamCaptureMode mode),   \
      (hStream, hGraph, dependencies, dependencyData, numDependencies, mode), c.stream = hStream)  \
    X(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", 11040, 0, GRAPH_INSTANTIATE, NONE,          \
      (CUgraphExec * phGraphExec, CUgraph hGraph, unsigned long long flags),                       \
      (phGraphExec, hGraph, flags), c.out = phGraphExec; c.graph = hGraph; c.flags64 = flags)      \
    X(cuGraphInstantiate, "cuGraphInstantiate", 10000, 0, GRAPH_INSTANTIATE, NONE,                   \
      (CUgraphExec * phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer,       \
       size_t bufferSize),                                                                         \
      (phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize), c.out = phGraphExec;              \
      c.graph = hGraph)                                                                            \
    X(cuGraphInstantiate_v2, "cuGraphInstantiate", 11000, 0, GRAPH_INSTANTIATE, NONE,                \
      (CUgraphExec * phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer,       \
       size_t bufferSize),                                                                         \
      (phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize), c.out = phGraphExec;              \
      c.graph = hGraph)                                                                            \
    X(cuGraphInstantiateWithParams, "cuGraphInstantiateWithParams", 12000, 0, GRAPH_INSTANTIATE,     \
      NONE, (CUgraphExec * phGraphExec, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS *params),     \
      (phGraphExec, hGraph, params), c.out = phGraphExec; c.graph = hGraph;                        \
      c.flags64 = params ? params->flags : 0)                                                      \
    X(cuGraphInstantiateWithParams_ptsz, "cuGraphInstantiateWithParams", 12000, 1,                   \
      GRAPH_INSTANTIATE, NONE,                                                                     \
      (CUgraphExec * phGraphExec, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS *params),           \
      (phGraphExec, hGraph, params), c.out = phGraphExec; c.graph = hGraph;                        \
      c.flags64 = params ? params->flags : 0)                                                      \
    X(cuGraphLaunch, "cuGraphLaunch", 10000, 0, GRAPH_LAUNCH, GRAPH,                                 \
      (CUgraphExec hGraphExec, CUstream hStream), (hGraphExec, hStream), c.exec = hGraphExec;      \
      c.stream = hStream)                                                                          \
    X(cuGraphLaunch_ptsz, "cuGraphLaunch", 10000, 1, GRAPH_LAUNCH, GRAPH,                            \
      (CUgraphExec hGraphExec, CUstream hStream), (hGraphExec, hStream), c.exec = hGraphExec;      \
      c.stream = hStream)                                                                          \
    X(cuGraphExecDestroy, "cuGraphExecDestroy", 10000, 0, GRAPH_EXEC_DESTROY, NONE,                  \
      (CUgraphExec hGraphExec), (hGraphExec), c.exec = hGraphExec)                                 \
    X(cuGraphDestroy, "cuGraphDestroy", 10000, 0, GRAPH_DESTROY, NONE, (CUgraph hGraph), (hGraph),   \
      c.graph = hGraph)                                                                            \
    /* memory pools */                                                                             \
    X(cuMemPoolCreate, "cuMemPoolCreate", 11020, 0, POOL_CREATE, NONE,                              \
      (CUmemoryPool * pool, const CUmemPoolProps *poolProps), (pool, poolProps), c.out = pool;     \
      c.pool_props = poolProps)                                                                    \
    X(cuMemPoolDestroy, "cuMemPoolDestroy", 11020, 0, POOL_DESTROY, NONE, (CUmemoryPool pool),      \
      (pool), c.pool = pool)                                                                       \
    /* streams: a destroyed handle may be reused (the stream-device cache forgets it) */          \
    X(cuStreamDestroy, "cuStreamDestroy", 2000, 0, STREAM_DESTROY, NONE, (CUstream hStream),        \
      (hStream), c.stream = hStream)                                                               \
    X(cuStreamDestroy_v2, "cuStreamDestroy", 4000, 0, STREAM_DESTROY, NONE, (CUstream hStream),     \
      (hStream), c.stream = hStream)                                                               \
    /* contexts: primary-context handles (to tell them from cuCtxCreate ones) and teardown */      \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", 7000, 0, CTX_RETAIN, NONE,              \
      (CUcontext * pctx, CUdevice dev), (pctx, dev), c.out = pctx; c.dev = dev)                    \
    X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease", 7000, 0, CTX_RELEASE, NONE,           \
      (CUdevice dev), (dev), c.dev = dev)                                                          \
    X(cuDevicePrimaryCtxRelease_v2, "cuDevicePrimaryCtxRelease", 11000, 0, CTX_RELEASE, NONE,       \
      (CUdevice dev), (dev), c.dev = dev)                                                          \
    X(cuDevicePrimaryCtxReset, "cuDevicePrimaryCtxReset", 7000, 0, CTX_RESET, NONE,                 \
      (CUdevice dev), (dev), c.dev = dev)                                                          \
    X(cuDevicePrimaryCtxReset_v2, "cuDevicePrimaryCtxReset", 11000, 0, CTX_RESET, NONE,             \
      (CUdevice dev), (dev), c.dev = dev)                                                          \
    X(cuCtxDestroy_v2, "cuCtxDestroy", 4000, 0, CTX_DESTROY, NONE, (CUcontext ctx), (ctx),          \
      c.ctx = ctx)                                                                                 \
    /* the driver's own entry-point query: every other hook is reached through these */            \
    X(cuGetProcAddress, "cuGetProcAddress", 11030, 0, GETPROC, NONE,                                \
      (const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags),                         \
      (symbol, pfn, cudaVersion, flags), c.sym = symbol; c.out = pfn; c.version = cudaVersion;     \
      c.flags64 = flags)                                                                           \
    X(cuGetProcAddress_v2, "cuGetProcAddress", 12000, 0, GETPROC, NONE,                             \
      (const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,                          \
       CUdriverProcAddressQueryResult *symbolStatus),                                              \
      (symbol, pfn, cudaVersion, flags, symbolStatus), c.sym = symbol; c.out = pfn;                \
      c.version = cudaVersion; c.flags64 = flags)

/* Names cuGetProcAddress resolves, from some CUDA version on, to another hooked variant's ABI (as
 * cuda.h renames them: CUDA 12's `#define cuGraphInstantiate cuGraphInstantiateWithFlags`): the
 * look-up hands out that variant's wrapper. Part of the table above (no wrapper or export of its
 * own).
 *
 * CMT_HOOK_ALIAS(base, version, per_thread, sym)
 *   base, version, per_thread  the look-up (name, cudaVersion from which on, _ptsz/_ptds variant)
 *   sym                        the hooked variant (a row of CMT_HOOKS) whose ABI it is */
#define CMT_HOOK_ALIASES(X) X("cuGraphInstantiate", 12000, 0, cuGraphInstantiateWithFlags)

/* Other names the library exports (besides the hooks above and the cmt_* API). */
#define CMT_OTHER_EXPORTS(X)                                                                       \
    X(dlsym) X(dlopen) X(dlclose) X(_exit) X(_Exit) X(execve) X(execv) X(execvp) X(execvpe)        \
        X(execl) X(execlp) X(execle) X(fexecve) X(exit) X(cmt_mark) X(cmt_test_begin)              \
            X(cmt_test_end) X(cmt_dump_path) X(InitializeInjectionNvtx2)                           \
                X(InitializeInjectionNvtxExtension)

#endif
