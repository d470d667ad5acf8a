/*
 * cmt_resolve.h — finding the driver's functions: the real-pointer slots of the hooked variants
 * (what a wrapper calls), the real cuGetProcAddress (cmt_getproc.h hands out our wrappers for the
 * variants we know), and the few driver functions the tracker calls itself (oldest variants that
 * do the job, asked through the real cuGetProcAddress).
 */
#ifndef CMT_RESOLVE_H
#define CMT_RESOLVE_H

#include <cuda.h>

#include "cmt_internal.h"

/* The real function of a hooked variant (NULL, with a warning, when the driver lacks it). */
extern void *_Atomic cmt_real_fns[CMT_API_COUNT] CMT_HIDDEN;
void *cmt_real_slot_slow(enum cmt_api api) CMT_HIDDEN;
static inline void *cmt_real_slot(enum cmt_api api) {
    void *f = atomic_load_explicit(&cmt_real_fns[api], memory_order_acquire);
    return __builtin_expect(f != NULL, 1) ? f : cmt_real_slot_slow(api);
}
void cmt_set_real_slot(enum cmt_api api, void *fn) CMT_HIDDEN;
/* Asks the real cuGetProcAddress (either form) for base; NULL when it has none. */
void *cmt_real_getproc(const char *base, int version, cuuint64_t flags) CMT_HIDDEN;
int cmt_hooked_symbol(const char *name) CMT_HIDDEN; /* api id of an exported name, or -1 */

/* The tracker's own driver calls: X(name, version, exported_name, params) */
#define CMT_DRIVER_CALLS(X)                                                                        \
    X(cuCtxGetCurrent, 4000, "cuCtxGetCurrent", (CUcontext * pctx))                                \
    X(cuCtxGetDevice, 2000, "cuCtxGetDevice", (CUdevice * device))                                 \
    X(cuDeviceGet, 2000, "cuDeviceGet", (CUdevice * device, int ordinal))                          \
    X(cuDeviceGetName, 2000, "cuDeviceGetName", (char *name, int len, CUdevice dev))               \
    X(cuDeviceGetUuid_v2, 11040, "cuDeviceGetUuid_v2", (CUuuid * uuid, CUdevice dev))              \
    X(cuDeviceGetUuid, 9020, "cuDeviceGetUuid", (CUuuid * uuid, CUdevice dev))                     \
    X(cuDeviceGetPCIBusId, 4010, "cuDeviceGetPCIBusId", (char *id, int len, CUdevice dev))         \
    X(cuDeviceTotalMem, 3020, "cuDeviceTotalMem_v2", (size_t * bytes, CUdevice dev))               \
    X(cuPointerGetAttribute, 4000, "cuPointerGetAttribute",                                        \
      (void *data, CUpointer_attribute attribute, CUdeviceptr ptr))                                \
    X(cuStreamIsCapturing, 10000, "cuStreamIsCapturing",                                           \
      (CUstream hStream, CUstreamCaptureStatus * captureStatus))                                   \
    X(cuDevicePrimaryCtxGetState, 7000, "cuDevicePrimaryCtxGetState",                              \
      (CUdevice dev, unsigned int *flags, int *active))                                            \
    X(cuCtxPushCurrent, 4000, "cuCtxPushCurrent_v2", (CUcontext ctx))                              \
    X(cuCtxPopCurrent, 4000, "cuCtxPopCurrent_v2", (CUcontext * pctx))                             \
    X(cuStreamGetCtx, 9020, "cuStreamGetCtx", (CUstream hStream, CUcontext * pctx))                \
    X(cuDeviceGetCount, 2000, "cuDeviceGetCount", (int *count))                                    \
    X(cuDeviceGetDefaultMemPool, 11020, "cuDeviceGetDefaultMemPool",                               \
      (CUmemoryPool * pool, CUdevice dev))                                                         \
    X(cuDeviceGetMemPool, 11020, "cuDeviceGetMemPool", (CUmemoryPool * pool, CUdevice dev))        \
    X(cuMemGetAddressRange, 3020, "cuMemGetAddressRange_v2",                                       \
      (CUdeviceptr * base, size_t * size, CUdeviceptr ptr))                                        \
    X(cuMemGetAllocationPropertiesFromHandle, 10020, "cuMemGetAllocationPropertiesFromHandle",     \
      (CUmemAllocationProp * prop, CUmemGenericAllocationHandle handle))                           \
    X(cuStreamGetCaptureInfo, 11030, "cuStreamGetCaptureInfo_v2",                                  \
      (CUstream hStream, CUstreamCaptureStatus * status, cuuint64_t * id, CUgraph * graph,         \
       const CUgraphNode **deps, size_t *numDeps))                                                 \
    X(cuGraphGetNodes, 10000, "cuGraphGetNodes", (CUgraph hGraph, CUgraphNode * nodes, size_t * n)) \
    X(cuGraphGetEdges, 10000, "cuGraphGetEdges",                                                   \
      (CUgraph hGraph, CUgraphNode * from, CUgraphNode * to, size_t * numEdges))                   \
    X(cuGraphNodeGetType, 10000, "cuGraphNodeGetType", (CUgraphNode hNode, CUgraphNodeType * type)) \
    X(cuGraphChildGraphNodeGetGraph, 10000, "cuGraphChildGraphNodeGetGraph",                       \
      (CUgraphNode hNode, CUgraph * phGraph))                                                      \
    X(cuGraphMemAllocNodeGetParams, 11040, "cuGraphMemAllocNodeGetParams",                         \
      (CUgraphNode hNode, CUDA_MEM_ALLOC_NODE_PARAMS * params))                                    \
    X(cuGraphMemFreeNodeGetParams, 11040, "cuGraphMemFreeNodeGetParams",                           \
      (CUgraphNode hNode, CUdeviceptr * dptr))

/* cmt_drv_NAME_fn(): the function (NULL when the driver lacks it); inline once resolved. */
#define CMT_DRV_DECL(name, ver, exported, params)                                                  \
    typedef CUresult (*cmt_drv_##name##_t) params;                                                 \
    extern void *_Atomic cmt_drv_##name##_ptr CMT_HIDDEN;                                          \
    cmt_drv_##name##_t cmt_drv_##name##_slow(void) CMT_HIDDEN;                                     \
    static inline cmt_drv_##name##_t cmt_drv_##name##_fn(void) {                                   \
        void *f = atomic_load_explicit(&cmt_drv_##name##_ptr, memory_order_acquire);               \
        return CMT_LIKELY(f != NULL) ? (cmt_drv_##name##_t)f : cmt_drv_##name##_slow();            \
    }
CMT_DRIVER_CALLS(CMT_DRV_DECL)
#undef CMT_DRV_DECL
/* Calls one of them: CMT_DRV(cuCtxGetDevice, &dev); CUDA_ERROR_NOT_FOUND when unavailable. */
#define CMT_DRV(name, ...)                                                                         \
    __extension__({                                                                                \
        cmt_drv_##name##_t cmt_f_ = cmt_drv_##name##_fn(); /* resolved once per call */           \
        cmt_f_ ? cmt_f_(__VA_ARGS__) : CUDA_ERROR_NOT_FOUND;                                       \
    })

#endif
