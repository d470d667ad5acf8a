/*
 * cmt_driver.h — the tracker's side of the driver: real-pointer slots of the hooked variants,
 * the few driver functions the tracker calls itself (oldest variants that do the job, asked
 * through the real cuGetProcAddress), device identities (DEVICE records, once per device) and the
 * context table (CTX records; contexts end at teardown).
 */
#ifndef CMT_DRIVER_H
#define CMT_DRIVER_H

#include <cuda.h>
#include <stdbool.h>
#include <stdint.h>

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
      (CUmemAllocationProp * prop, CUmemGenericAllocationHandle handle))

#define CMT_DRV_DECL(name, ver, exported, params)                                                  \
    typedef CUresult (*cmt_drv_##name##_t) params;                                                 \
    cmt_drv_##name##_t cmt_drv_##name##_fn(void);
CMT_DRIVER_CALLS(CMT_DRV_DECL)
#undef CMT_DRV_DECL
/* Calls one of them: CMT_DRV(cuCtxGetDevice, &dev); CUDA_ERROR_NOT_FOUND when unavailable. */
#define CMT_DRV(name, ...)                                                                         \
    (cmt_drv_##name##_fn() ? cmt_drv_##name##_fn()(__VA_ARGS__) : CUDA_ERROR_NOT_FOUND)

/* Notes a device ordinal; writes its DEVICE record the first time. */
void cmt_device_note(int ordinal);
/* The current context's index (0: none) and its device (-2: unknown). */
uint16_t cmt_ctx_current(int *device);
/* Index of a known live context handle (0: unknown). */
uint16_t cmt_ctx_lookup(uint64_t handle);
int cmt_ctx_device(uint16_t idx);
/* The device of a context handle (known, or asked of the driver); -2 when unknown. */
int cmt_ctx_handle_device(CUcontext ctx);
/* cuDevicePrimaryCtxRetain returned handle for device: that handle is the primary context. */
void cmt_ctx_primary_retained(int device, uint64_t handle);
/* Index of device's live primary context: 0 when not registered (no allocation made in it),
 * -1 when the tracker never saw the device's primary handle (then contexts are not told apart). */
int cmt_ctx_primary(int device);
bool cmt_ctx_is_primary(uint16_t idx);
/* Marks contexts dead: one (idx), or every one of a device (idx 0; unknown primary handle). */
void cmt_ctx_end(uint16_t idx, int device);
void cmt_driver_fork_child(void);

#endif
