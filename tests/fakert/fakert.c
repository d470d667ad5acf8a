/*
 * fakert.c — a test double of the CUDA 13.0 runtime (libcudart.so.13 / libcudart_static.a) for
 * the cumemtrack test bed. Programs compile against the real cuda_runtime_api.h and link this.
 *
 * It finds the driver exactly as the real runtime does: at first use
 * dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL), ONE dlsym(handle, "cuGetProcAddress_v2"), then
 * every look-up of tests/fakert/cudart13-getprocaddress.txt in that order (the list is
 * turned into fakert_procs.h at build time by tests/tests.mk), tolerating NOT_FOUND. After that
 * the driver is called only through the pointers of that table (DRV(name, version, flags)), so a
 * reference to a look-up the real runtime does not make fails to compile.
 *
 * Like the real runtime it retains each device's primary context on first use, makes it current,
 * and releases them from an atexit handler registered at initialisation; cudaDeviceReset resets
 * the primary context. Per-thread-default-stream entry points (_ptsz/_ptds) use the flags=2
 * look-ups. Compiled with -D__CUDA_API_VERSION_INTERNAL so both ABI names are declared.
 */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fakert_procs.h" /* generated: FAKERT_PROC_LIST(X), X(id, "name", version, flags) */

#define FR_EXPORT __attribute__((visibility("default")))
#define FR_MAX_DEV 64

enum fakert_proc_id {
#define FAKERT_ENUM(id, name, ver, flags) id,
    FAKERT_PROC_LIST(FAKERT_ENUM)
#undef FAKERT_ENUM
        FAKERT_NPROC
};

static const struct {
    const char *name;
    int version;
    unsigned long long flags;
} fakert_req[FAKERT_NPROC] = {
#define FAKERT_REQ(id, name, ver, flags) {name, ver, flags},
    FAKERT_PROC_LIST(FAKERT_REQ)
#undef FAKERT_REQ
};

static void *fakert_pfn[FAKERT_NPROC];
static CUresult fakert_status[FAKERT_NPROC];

/* The driver entry point from look-up (name, version, flags), as its PFN type. */
#define DRV(name, ver, fl) ((PFN_##name##_v##ver)fakert_pfn[P_##name##_##ver##_##fl])
#define DRV_PT(name, ver, fl) ((PFN_##name##_v##ver##_ptsz)fakert_pfn[P_##name##_##ver##_##fl])
#define DRV_PTDS(name, ver, fl) ((PFN_##name##_v##ver##_ptds)fakert_pfn[P_##name##_##ver##_##fl])
#define HAVE(name, ver, fl) (fakert_pfn[P_##name##_##ver##_##fl] != NULL)

static pthread_once_t fr_once = PTHREAD_ONCE_INIT;
static cudaError_t fr_init_error = cudaSuccess;
static int fr_ndev;
static pthread_mutex_t fr_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext fr_ctx[FR_MAX_DEV];
static int fr_retained[FR_MAX_DEV];
static __thread int fr_dev;
static __thread cudaError_t fr_last;

static cudaError_t fr_map(CUresult r)
{
    switch (r) {
    case CUDA_SUCCESS: return cudaSuccess;
    case CUDA_ERROR_INVALID_VALUE: return cudaErrorInvalidValue;
    case CUDA_ERROR_OUT_OF_MEMORY: return cudaErrorMemoryAllocation;
    case CUDA_ERROR_NOT_INITIALIZED: return cudaErrorInitializationError;
    case CUDA_ERROR_DEINITIALIZED: return cudaErrorCudartUnloading;
    case CUDA_ERROR_NO_DEVICE: return cudaErrorNoDevice;
    case CUDA_ERROR_INVALID_DEVICE: return cudaErrorInvalidDevice;
    case CUDA_ERROR_INVALID_CONTEXT: return cudaErrorDeviceUninitialized;
    case CUDA_ERROR_INVALID_HANDLE: return cudaErrorInvalidResourceHandle;
    case CUDA_ERROR_NOT_FOUND: return cudaErrorSymbolNotFound;
    case CUDA_ERROR_NOT_SUPPORTED: return cudaErrorNotSupported;
    case CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED: return cudaErrorHostMemoryAlreadyRegistered;
    case CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED: return cudaErrorHostMemoryNotRegistered;
    case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: return cudaErrorStreamCaptureUnsupported;
    case CUDA_ERROR_ILLEGAL_STATE: return cudaErrorIllegalState;
    default: return cudaErrorUnknown;
    }
}

static cudaError_t fr_ret(cudaError_t e)
{
    if (e != cudaSuccess)
        fr_last = e;
    return e;
}

#define FR_RET_CU(expr) return fr_ret(fr_map(expr))

static void fr_atexit(void)
{
    /* Like the real runtime: release every primary context retained (the driver frees what
     * is still allocated in them). */
    for (int d = 0; d < fr_ndev; d++)
        if (fr_retained[d]) {
            fr_retained[d] = 0;
            DRV(cuDevicePrimaryCtxRelease, 7000, 0)(d);
        }
}

static void fr_do_init(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fr_init_error = cudaErrorInsufficientDriver;
        return;
    }
    PFN_cuGetProcAddress_v12000 gpa = (PFN_cuGetProcAddress_v12000)dlsym(h, "cuGetProcAddress_v2");
    if (!gpa) {
        fr_init_error = cudaErrorInsufficientDriver;
        return;
    }
    for (int i = 0; i < FAKERT_NPROC; i++) {
        CUdriverProcAddressQueryResult st;
        fakert_status[i] = gpa(fakert_req[i].name, &fakert_pfn[i], fakert_req[i].version,
                               fakert_req[i].flags, &st);
        if (fakert_status[i] != CUDA_SUCCESS)
            fakert_pfn[i] = NULL; /* NOT_FOUND is tolerated: the runtime never calls those */
    }
    if (!HAVE(cuInit, 2000, 0) || !HAVE(cuDeviceGetCount, 2000, 0) ||
        !HAVE(cuDevicePrimaryCtxRetain, 7000, 0) || !HAVE(cuDevicePrimaryCtxRelease, 7000, 0) ||
        !HAVE(cuCtxSetCurrent, 4000, 0) || !HAVE(cuCtxGetCurrent, 4000, 0)) {
        fr_init_error = cudaErrorInsufficientDriver;
        return;
    }
    atexit(fr_atexit);
    CUresult r = DRV(cuInit, 2000, 0)(0);
    if (r != CUDA_SUCCESS) {
        fr_init_error = r == CUDA_ERROR_NO_DEVICE ? cudaErrorNoDevice : cudaErrorInitializationError;
        return;
    }
    int v = 0;
    if (HAVE(cuDriverGetVersion, 2020, 0))
        DRV(cuDriverGetVersion, 2020, 0)(&v);
    int n = 0;
    DRV(cuDeviceGetCount, 2000, 0)(&n);
    fr_ndev = n > FR_MAX_DEV ? FR_MAX_DEV : n;
    /* The real runtime describes every device at start-up. */
    for (int i = 0; i < fr_ndev; i++) {
        CUdevice d;
        char name[256];
        CUuuid u;
        size_t total;
        int attr;
        if (DRV(cuDeviceGet, 2000, 0)(&d, i) != CUDA_SUCCESS)
            continue;
        if (HAVE(cuDeviceGetName, 2000, 0))
            DRV(cuDeviceGetName, 2000, 0)(name, sizeof name, d);
        if (HAVE(cuDeviceGetUuid, 9020, 0))
            DRV(cuDeviceGetUuid, 9020, 0)(&u, d);
        if (HAVE(cuDeviceTotalMem, 3020, 0))
            DRV(cuDeviceTotalMem, 3020, 0)(&total, d);
        if (HAVE(cuDeviceGetAttribute, 2000, 0)) {
            DRV(cuDeviceGetAttribute, 2000, 0)(&attr, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d);
            DRV(cuDeviceGetAttribute, 2000, 0)(&attr, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d);
            DRV(cuDeviceGetAttribute, 2000, 0)(&attr, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, d);
        }
    }
    if (HAVE(cuModuleGetLoadingMode, 11070, 0)) {
        CUmoduleLoadingMode m;
        DRV(cuModuleGetLoadingMode, 11070, 0)(&m);
    }
}

static cudaError_t fr_init(void)
{
    pthread_once(&fr_once, fr_do_init);
    return fr_init_error;
}

/* Makes device d's primary context (retained on first use) current on this thread. */
static cudaError_t fr_activate(int d)
{
    cudaError_t e = fr_init();
    if (e != cudaSuccess)
        return e;
    if (d < 0 || d >= fr_ndev)
        return cudaErrorInvalidDevice;
    pthread_mutex_lock(&fr_lock);
    CUresult r = CUDA_SUCCESS;
    if (!fr_retained[d]) {
        r = DRV(cuDevicePrimaryCtxRetain, 7000, 0)(&fr_ctx[d], d);
        if (r == CUDA_SUCCESS)
            fr_retained[d] = 1;
    }
    CUcontext c = fr_ctx[d];
    pthread_mutex_unlock(&fr_lock);
    if (r != CUDA_SUCCESS)
        return fr_map(r);
    CUcontext cur = NULL;
    DRV(cuCtxGetCurrent, 4000, 0)(&cur);
    if (cur != c && (r = DRV(cuCtxSetCurrent, 4000, 0)(c)) != CUDA_SUCCESS)
        return fr_map(r);
    return cudaSuccess;
}

#define FR_CTX()                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = fr_activate(fr_dev);                                                      \
        if (e_ != cudaSuccess)                                                                     \
            return fr_ret(e_);                                                                     \
    } while (0)

#define FR_NEED(name, ver, fl)                                                                     \
    do {                                                                                           \
        if (!HAVE(name, ver, fl))                                                                  \
            return fr_ret(cudaErrorNotSupported);                                                  \
    } while (0)

/* ------------------------------------------------------------------------------------------ */
/* Devices, errors, versions                                                                  */

FR_EXPORT cudaError_t cudaGetDeviceCount(int *n)
{
    cudaError_t e = fr_init();
    if (e != cudaSuccess)
        return fr_ret(e);
    if (!n)
        return fr_ret(cudaErrorInvalidValue);
    *n = fr_ndev;
    return cudaSuccess;
}

FR_EXPORT cudaError_t cudaSetDevice(int d)
{
    cudaError_t e = fr_init();
    if (e != cudaSuccess)
        return fr_ret(e);
    if (d < 0 || d >= fr_ndev)
        return fr_ret(cudaErrorInvalidDevice);
    fr_dev = d;
    return fr_ret(fr_activate(d)); /* since CUDA 12 cudaSetDevice initialises the device */
}

FR_EXPORT cudaError_t cudaGetDevice(int *d)
{
    cudaError_t e = fr_init();
    if (e != cudaSuccess)
        return fr_ret(e);
    if (!d)
        return fr_ret(cudaErrorInvalidValue);
    *d = fr_dev;
    return cudaSuccess;
}

FR_EXPORT cudaError_t cudaDeviceReset(void)
{
    FR_CTX();
    FR_RET_CU(DRV(cuDevicePrimaryCtxReset, 7000, 0)(fr_dev));
}

FR_EXPORT cudaError_t cudaDeviceSynchronize(void)
{
    FR_CTX();
    if (HAVE(cuCtxSynchronize, 13000, 0))
        FR_RET_CU(DRV(cuCtxSynchronize, 13000, 0)(fr_ctx[fr_dev]));
    FR_NEED(cuCtxSynchronize, 2000, 0);
    FR_RET_CU(DRV(cuCtxSynchronize, 2000, 0)());
}

FR_EXPORT cudaError_t cudaDriverGetVersion(int *v)
{
    cudaError_t e = fr_init();
    if (e != cudaSuccess)
        return fr_ret(e);
    FR_NEED(cuDriverGetVersion, 2020, 0);
    FR_RET_CU(DRV(cuDriverGetVersion, 2020, 0)(v));
}

FR_EXPORT cudaError_t cudaRuntimeGetVersion(int *v)
{
    if (!v)
        return fr_ret(cudaErrorInvalidValue);
    *v = CUDART_VERSION;
    return cudaSuccess;
}

FR_EXPORT cudaError_t cudaGetLastError(void)
{
    cudaError_t e = fr_last;
    fr_last = cudaSuccess;
    return e;
}

FR_EXPORT cudaError_t cudaPeekAtLastError(void) { return fr_last; }

#define FR_ERRORS(X)                                                                               \
    X(cudaSuccess, "no error")                                                                     \
    X(cudaErrorInvalidValue, "invalid argument")                                                   \
    X(cudaErrorMemoryAllocation, "out of memory")                                                  \
    X(cudaErrorInitializationError, "initialization error")                                        \
    X(cudaErrorCudartUnloading, "driver shutting down")                                            \
    X(cudaErrorInsufficientDriver, "CUDA driver version is insufficient for CUDA runtime version") \
    X(cudaErrorNoDevice, "no CUDA-capable device is detected")                                     \
    X(cudaErrorInvalidDevice, "invalid device ordinal")                                            \
    X(cudaErrorDeviceUninitialized, "invalid device context")                                      \
    X(cudaErrorInvalidResourceHandle, "invalid resource handle")                                   \
    X(cudaErrorIllegalState, "the operation cannot be performed in the present state")             \
    X(cudaErrorSymbolNotFound, "named symbol not found")                                           \
    X(cudaErrorNotSupported, "operation not supported")                                            \
    X(cudaErrorHostMemoryAlreadyRegistered, "part or all of the requested memory range is already mapped") \
    X(cudaErrorHostMemoryNotRegistered, "pointer does not correspond to a registered memory region") \
    X(cudaErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing")      \
    X(cudaErrorUnknown, "unknown error")

FR_EXPORT const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
#define FR_ERRSTR(code, str)                                                                       \
    case code:                                                                                     \
        return str;
        FR_ERRORS(FR_ERRSTR)
#undef FR_ERRSTR
    default:
        return "unrecognized error code";
    }
}

FR_EXPORT const char *cudaGetErrorName(cudaError_t e)
{
    switch (e) {
#define FR_ERRNAME(code, str)                                                                      \
    case code:                                                                                     \
        return #code;
        FR_ERRORS(FR_ERRNAME)
#undef FR_ERRNAME
    default:
        return "cudaErrorUnknown";
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Memory                                                                                     */

FR_EXPORT cudaError_t cudaMalloc(void **p, size_t n)
{
    if (!p)
        return fr_ret(cudaErrorInvalidValue);
    FR_CTX();
    FR_NEED(cuMemAlloc, 3020, 0);
    CUdeviceptr d = 0;
    CUresult r = DRV(cuMemAlloc, 3020, 0)(&d, n);
    *p = r == CUDA_SUCCESS ? (void *)(uintptr_t)d : NULL;
    FR_RET_CU(r);
}

FR_EXPORT cudaError_t cudaFree(void *p)
{
    FR_CTX();
    if (!p)
        return cudaSuccess;
    FR_NEED(cuMemFree, 3020, 0);
    FR_RET_CU(DRV(cuMemFree, 3020, 0)((CUdeviceptr)(uintptr_t)p));
}

FR_EXPORT cudaError_t cudaMallocManaged(void **p, size_t n, unsigned int flags)
{
    if (!p)
        return fr_ret(cudaErrorInvalidValue);
    FR_CTX();
    FR_NEED(cuMemAllocManaged, 6000, 0);
    CUdeviceptr d = 0;
    CUresult r = DRV(cuMemAllocManaged, 6000, 0)(&d, n, flags ? flags : CU_MEM_ATTACH_GLOBAL);
    *p = r == CUDA_SUCCESS ? (void *)(uintptr_t)d : NULL;
    FR_RET_CU(r);
}

FR_EXPORT cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height)
{
    if (!p || !pitch)
        return fr_ret(cudaErrorInvalidValue);
    FR_CTX();
    FR_NEED(cuMemAllocPitch, 3020, 0);
    CUdeviceptr d = 0;
    CUresult r = DRV(cuMemAllocPitch, 3020, 0)(&d, pitch, width, height, 16);
    *p = r == CUDA_SUCCESS ? (void *)(uintptr_t)d : NULL;
    FR_RET_CU(r);
}

FR_EXPORT cudaError_t cudaHostAlloc(void **p, size_t n, unsigned int flags)
{
    if (!p)
        return fr_ret(cudaErrorInvalidValue);
    FR_CTX();
    FR_NEED(cuMemHostAlloc, 2020, 0);
    CUresult r = DRV(cuMemHostAlloc, 2020, 0)(p, n, flags);
    if (r != CUDA_SUCCESS)
        *p = NULL;
    FR_RET_CU(r);
}

FR_EXPORT cudaError_t cudaMallocHost(void **p, size_t n) { return cudaHostAlloc(p, n, 0); }

FR_EXPORT cudaError_t cudaFreeHost(void *p)
{
    FR_CTX();
    FR_NEED(cuMemFreeHost, 2000, 0);
    FR_RET_CU(DRV(cuMemFreeHost, 2000, 0)(p));
}

FR_EXPORT cudaError_t cudaHostRegister(void *p, size_t n, unsigned int flags)
{
    FR_CTX();
    FR_NEED(cuMemHostRegister, 6050, 0);
    FR_RET_CU(DRV(cuMemHostRegister, 6050, 0)(p, n, flags));
}

FR_EXPORT cudaError_t cudaHostUnregister(void *p)
{
    FR_CTX();
    FR_NEED(cuMemHostUnregister, 4000, 0);
    FR_RET_CU(DRV(cuMemHostUnregister, 4000, 0)(p));
}

static int fr_format(const struct cudaChannelFormatDesc *d, CUarray_format *f, unsigned *ch)
{
    int bits = d->x;
    *ch = (d->x > 0) + (d->y > 0) + (d->z > 0) + (d->w > 0);
    switch (d->f) {
    case cudaChannelFormatKindFloat:
        *f = bits == 16 ? CU_AD_FORMAT_HALF : CU_AD_FORMAT_FLOAT;
        return bits == 16 || bits == 32;
    case cudaChannelFormatKindSigned:
        *f = bits == 8 ? CU_AD_FORMAT_SIGNED_INT8 : bits == 16 ? CU_AD_FORMAT_SIGNED_INT16 : CU_AD_FORMAT_SIGNED_INT32;
        return bits == 8 || bits == 16 || bits == 32;
    case cudaChannelFormatKindUnsigned:
        *f = bits == 8 ? CU_AD_FORMAT_UNSIGNED_INT8 : bits == 16 ? CU_AD_FORMAT_UNSIGNED_INT16 : CU_AD_FORMAT_UNSIGNED_INT32;
        return bits == 8 || bits == 16 || bits == 32;
    default:
        return 0;
    }
}

FR_EXPORT cudaError_t cudaMallocArray(cudaArray_t *arr, const struct cudaChannelFormatDesc *desc,
                                      size_t width, size_t height, unsigned int flags)
{
    (void)flags;
    CUDA_ARRAY_DESCRIPTOR ad;
    unsigned ch;
    if (!arr || !desc || !fr_format(desc, &ad.Format, &ch))
        return fr_ret(cudaErrorInvalidValue);
    FR_CTX();
    FR_NEED(cuArrayCreate, 3020, 0);
    ad.Width = width;
    ad.Height = height;
    ad.NumChannels = ch;
    CUarray a = NULL;
    CUresult r = DRV(cuArrayCreate, 3020, 0)(&a, &ad);
    *arr = r == CUDA_SUCCESS ? (cudaArray_t)a : NULL;
    FR_RET_CU(r);
}

FR_EXPORT cudaError_t cudaMalloc3DArray(cudaArray_t *arr, const struct cudaChannelFormatDesc *desc,
                                        struct cudaExtent ext, unsigned int flags)
{
    CUDA_ARRAY3D_DESCRIPTOR ad;
    unsigned ch;
    if (!arr || !desc || !fr_format(desc, &ad.Format, &ch))
        return fr_ret(cudaErrorInvalidValue);
    FR_CTX();
    FR_NEED(cuArray3DCreate, 3020, 0);
    ad.Width = ext.width;
    ad.Height = ext.height;
    ad.Depth = ext.depth;
    ad.NumChannels = ch;
    ad.Flags = flags;
    CUarray a = NULL;
    CUresult r = DRV(cuArray3DCreate, 3020, 0)(&a, &ad);
    *arr = r == CUDA_SUCCESS ? (cudaArray_t)a : NULL;
    FR_RET_CU(r);
}

FR_EXPORT cudaError_t cudaFreeArray(cudaArray_t arr)
{
    FR_CTX();
    if (!arr)
        return cudaSuccess;
    FR_NEED(cuArrayDestroy, 2000, 0);
    FR_RET_CU(DRV(cuArrayDestroy, 2000, 0)((CUarray)arr));
}

FR_EXPORT cudaError_t cudaMemGetInfo(size_t *freeb, size_t *total)
{
    FR_CTX();
    FR_NEED(cuMemGetInfo, 3020, 0);
    FR_RET_CU(DRV(cuMemGetInfo, 3020, 0)(freeb, total));
}

static cudaError_t fr_memcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, int pt)
{
    (void)kind;
    FR_CTX();
    if (pt) {
        FR_NEED(cuMemcpy, 7000, 2);
        FR_RET_CU(DRV_PTDS(cuMemcpy, 7000, 2)((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, n));
    }
    FR_NEED(cuMemcpy, 4000, 0);
    FR_RET_CU(DRV(cuMemcpy, 4000, 0)((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, n));
}

FR_EXPORT cudaError_t cudaMemcpy(void *d, const void *s, size_t n, enum cudaMemcpyKind k) { return fr_memcpy(d, s, n, k, 0); }
FR_EXPORT cudaError_t cudaMemcpy_ptds(void *d, const void *s, size_t n, enum cudaMemcpyKind k) { return fr_memcpy(d, s, n, k, 1); }

static cudaError_t fr_memset(void *p, int v, size_t n, int pt)
{
    FR_CTX();
    if (pt) {
        FR_NEED(cuMemsetD8, 7000, 2);
        FR_RET_CU(DRV_PTDS(cuMemsetD8, 7000, 2)((CUdeviceptr)(uintptr_t)p, (unsigned char)v, n));
    }
    FR_NEED(cuMemsetD8, 3020, 0);
    FR_RET_CU(DRV(cuMemsetD8, 3020, 0)((CUdeviceptr)(uintptr_t)p, (unsigned char)v, n));
}

FR_EXPORT cudaError_t cudaMemset(void *p, int v, size_t n) { return fr_memset(p, v, n, 0); }
FR_EXPORT cudaError_t cudaMemset_ptds(void *p, int v, size_t n) { return fr_memset(p, v, n, 1); }

/* ------------------------------------------------------------------------------------------ */
/* Streams, capture, graphs                                                                   */

FR_EXPORT cudaError_t cudaStreamCreate(cudaStream_t *s)
{
    FR_CTX();
    FR_NEED(cuStreamCreate, 2000, 0);
    FR_RET_CU(DRV(cuStreamCreate, 2000, 0)((CUstream *)s, 0));
}

FR_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    FR_CTX();
    FR_NEED(cuStreamDestroy, 4000, 0);
    FR_RET_CU(DRV(cuStreamDestroy, 4000, 0)((CUstream)s));
}

FR_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    FR_CTX();
    FR_NEED(cuStreamSynchronize, 2000, 0);
    FR_RET_CU(DRV(cuStreamSynchronize, 2000, 0)((CUstream)s));
}

FR_EXPORT cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t s)
{
    FR_CTX();
    FR_NEED(cuStreamSynchronize, 7000, 2);
    FR_RET_CU(DRV_PT(cuStreamSynchronize, 7000, 2)((CUstream)s));
}

FR_EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode m)
{
    FR_CTX();
    FR_NEED(cuStreamBeginCapture, 10010, 0);
    FR_RET_CU(DRV(cuStreamBeginCapture, 10010, 0)((CUstream)s, (CUstreamCaptureMode)m));
}

FR_EXPORT cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t s, enum cudaStreamCaptureMode m)
{
    FR_CTX();
    FR_NEED(cuStreamBeginCapture, 10010, 2);
    FR_RET_CU(DRV_PT(cuStreamBeginCapture, 10010, 2)((CUstream)s, (CUstreamCaptureMode)m));
}

FR_EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g)
{
    FR_CTX();
    FR_NEED(cuStreamEndCapture, 10000, 0);
    FR_RET_CU(DRV(cuStreamEndCapture, 10000, 0)((CUstream)s, (CUgraph *)g));
}

FR_EXPORT cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t s, cudaGraph_t *g)
{
    FR_CTX();
    FR_NEED(cuStreamEndCapture, 10000, 2);
    FR_RET_CU(DRV_PT(cuStreamEndCapture, 10000, 2)((CUstream)s, (CUgraph *)g));
}

FR_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t s, enum cudaStreamCaptureStatus *st)
{
    FR_CTX();
    FR_NEED(cuStreamIsCapturing, 10000, 0);
    FR_RET_CU(DRV(cuStreamIsCapturing, 10000, 0)((CUstream)s, (CUstreamCaptureStatus *)st));
}

FR_EXPORT cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t s, enum cudaStreamCaptureStatus *st)
{
    FR_CTX();
    FR_NEED(cuStreamIsCapturing, 10000, 2);
    FR_RET_CU(DRV_PT(cuStreamIsCapturing, 10000, 2)((CUstream)s, (CUstreamCaptureStatus *)st));
}

FR_EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t g)
{
    FR_CTX();
    FR_NEED(cuGraphDestroy, 10000, 0);
    FR_RET_CU(DRV(cuGraphDestroy, 10000, 0)((CUgraph)g));
}

/* ------------------------------------------------------------------------------------------ */
/* Stream-ordered allocation and pools                                                        */

static cudaError_t fr_malloc_async(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s, int pt)
{
    if (!p)
        return fr_ret(cudaErrorInvalidValue);
    FR_CTX();
    CUdeviceptr d = 0;
    CUresult r;
    if (pool) {
        if (pt) {
            FR_NEED(cuMemAllocFromPoolAsync, 11020, 2);
            r = DRV_PT(cuMemAllocFromPoolAsync, 11020, 2)(&d, n, (CUmemoryPool)pool, (CUstream)s);
        } else {
            FR_NEED(cuMemAllocFromPoolAsync, 11020, 0);
            r = DRV(cuMemAllocFromPoolAsync, 11020, 0)(&d, n, (CUmemoryPool)pool, (CUstream)s);
        }
    } else if (pt) {
        FR_NEED(cuMemAllocAsync, 11020, 2);
        r = DRV_PT(cuMemAllocAsync, 11020, 2)(&d, n, (CUstream)s);
    } else {
        FR_NEED(cuMemAllocAsync, 11020, 0);
        r = DRV(cuMemAllocAsync, 11020, 0)(&d, n, (CUstream)s);
    }
    *p = r == CUDA_SUCCESS ? (void *)(uintptr_t)d : NULL;
    FR_RET_CU(r);
}

FR_EXPORT cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s) { return fr_malloc_async(p, n, NULL, s, 0); }
FR_EXPORT cudaError_t cudaMallocAsync_ptsz(void **p, size_t n, cudaStream_t s) { return fr_malloc_async(p, n, NULL, s, 1); }
FR_EXPORT cudaError_t cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s)
{
    return pool ? fr_malloc_async(p, n, pool, s, 0) : fr_ret(cudaErrorInvalidValue);
}
FR_EXPORT cudaError_t cudaMallocFromPoolAsync_ptsz(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s)
{
    return pool ? fr_malloc_async(p, n, pool, s, 1) : fr_ret(cudaErrorInvalidValue);
}

static cudaError_t fr_free_async(void *p, cudaStream_t s, int pt)
{
    FR_CTX();
    if (pt) {
        FR_NEED(cuMemFreeAsync, 11020, 2);
        FR_RET_CU(DRV_PT(cuMemFreeAsync, 11020, 2)((CUdeviceptr)(uintptr_t)p, (CUstream)s));
    }
    FR_NEED(cuMemFreeAsync, 11020, 0);
    FR_RET_CU(DRV(cuMemFreeAsync, 11020, 0)((CUdeviceptr)(uintptr_t)p, (CUstream)s));
}

FR_EXPORT cudaError_t cudaFreeAsync(void *p, cudaStream_t s) { return fr_free_async(p, s, 0); }
FR_EXPORT cudaError_t cudaFreeAsync_ptsz(void *p, cudaStream_t s) { return fr_free_async(p, s, 1); }

FR_EXPORT cudaError_t cudaMemPoolCreate(cudaMemPool_t *pool, const struct cudaMemPoolProps *props)
{
    if (!pool || !props)
        return fr_ret(cudaErrorInvalidValue);
    FR_CTX();
    FR_NEED(cuMemPoolCreate, 11020, 0);
    CUmemPoolProps p;
    memset(&p, 0, sizeof p);
    p.allocType = (CUmemAllocationType)props->allocType;
    p.handleTypes = (CUmemAllocationHandleType)props->handleTypes;
    p.location.type = (CUmemLocationType)props->location.type;
    p.location.id = props->location.id;
    p.maxSize = props->maxSize;
    FR_RET_CU(DRV(cuMemPoolCreate, 11020, 0)((CUmemoryPool *)pool, &p));
}

FR_EXPORT cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool)
{
    FR_CTX();
    FR_NEED(cuMemPoolDestroy, 11020, 0);
    FR_RET_CU(DRV(cuMemPoolDestroy, 11020, 0)((CUmemoryPool)pool));
}

FR_EXPORT cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int dev)
{
    cudaError_t e = fr_init();
    if (e != cudaSuccess)
        return fr_ret(e);
    FR_NEED(cuDeviceGetDefaultMemPool, 11020, 0);
    FR_RET_CU(DRV(cuDeviceGetDefaultMemPool, 11020, 0)((CUmemoryPool *)pool, dev));
}

/* ------------------------------------------------------------------------------------------ */
/* Driver entry points: through the driver's cuGetProcAddress_v2 from the table.              */

static cudaError_t fr_entry(const char *sym, void **fn, unsigned ver, unsigned long long flags,
                            enum cudaDriverEntryPointQueryResult *st, int pt)
{
    cudaError_t e = fr_init();
    if (e != cudaSuccess)
        return fr_ret(e);
    if (!sym || !fn)
        return fr_ret(cudaErrorInvalidValue);
    if (pt && flags == cudaEnableDefault)
        flags = cudaEnablePerThreadDefaultStream;
    FR_NEED(cuGetProcAddress, 12000, 0);
    CUdriverProcAddressQueryResult cs = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult r = DRV(cuGetProcAddress, 12000, 0)(sym, fn, (int)ver, flags, &cs);
    if (st)
        *st = (enum cudaDriverEntryPointQueryResult)cs;
    FR_RET_CU(r);
}

FR_EXPORT cudaError_t cudaGetDriverEntryPoint(const char *sym, void **fn, unsigned long long flags,
                                              enum cudaDriverEntryPointQueryResult *st)
{
    return fr_entry(sym, fn, CUDART_VERSION, flags, st, 0);
}

FR_EXPORT cudaError_t cudaGetDriverEntryPoint_ptsz(const char *sym, void **fn, unsigned long long flags,
                                                   enum cudaDriverEntryPointQueryResult *st)
{
    return fr_entry(sym, fn, CUDART_VERSION, flags, st, 1);
}

FR_EXPORT cudaError_t cudaGetDriverEntryPointByVersion(const char *sym, void **fn, unsigned int ver,
                                                       unsigned long long flags,
                                                       enum cudaDriverEntryPointQueryResult *st)
{
    return fr_entry(sym, fn, ver, flags, st, 0);
}

FR_EXPORT cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char *sym, void **fn, unsigned int ver,
                                                            unsigned long long flags,
                                                            enum cudaDriverEntryPointQueryResult *st)
{
    return fr_entry(sym, fn, ver, flags, st, 1);
}

/* ------------------------------------------------------------------------------------------ */
/* For the other part of the double (fakert_graph.c, see fakert_internal.h)                    */

void *fakert_drv(int id) { return id >= 0 && id < FAKERT_NPROC ? fakert_pfn[id] : NULL; }

cudaError_t fakert_enter(void)
{
    cudaError_t e = fr_activate(fr_dev);
    return e == cudaSuccess ? e : fr_ret(e);
}

cudaError_t fakert_ret(CUresult r) { return fr_ret(fr_map(r)); }

cudaError_t fakert_fail(cudaError_t e) { return fr_ret(e); }
