/*
 * cmt_driver.c — see cmt_driver.h; also the cuGetProcAddress variant map.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "cmt_driver.h"
#include "cmt_internal.h"
#include "cmt_signals.h"
#include "cmt_wire.h"
#include "cmt_writer.h"

/* ---- real pointers of the hooked variants ---- */

static void *_Atomic real[CMT_API_COUNT];
static atomic_int warned_nodriver;
static atomic_int warned_missing[CMT_API_COUNT];

static void *driver_handle(void) {
    cmt_dl_init();
    void *h = cmt_real_dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!h) h = cmt_real_dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    return h;
}

static void *driver_sym(const char *exported) {
    void *f = cmt_next_sym(exported);
    if (f) return f;
    void *h = driver_handle();
    f = h ? cmt_real_dlsym(h, exported) : NULL;
    return cmt_is_own_address(f) ? NULL : f;
}

void cmt_set_real_slot(enum cmt_api api, void *fn) {
    void *expected = NULL;
    if (fn && !cmt_is_own_address(fn)) atomic_compare_exchange_strong(&real[api], &expected, fn);
}

void *cmt_real_slot(enum cmt_api api) {
    void *f = atomic_load_explicit(&real[api], memory_order_acquire);
    if (CMT_LIKELY(f != NULL)) return f;
    f = driver_sym(cmt_apis[api].sym);
    if (!f) {
        if (driver_handle())
            cmt_warn_once(&warned_missing[api],
                          "warning: %s is not exported by the CUDA driver "
                          "(libcuda.so.1); the call returns CUDA_ERROR_NOT_FOUND",
                          cmt_apis[api].sym);
        else
            cmt_warn_once(&warned_nodriver,
                          "warning: %s: no CUDA driver (libcuda.so.1) found; the "
                          "call returns CUDA_ERROR_NOT_FOUND",
                          cmt_apis[api].sym);
        return NULL;
    }
    cmt_set_real_slot(api, f);
    return atomic_load(&real[api]);
}

int cmt_hooked_symbol(const char *name) {
    for (int i = 0; i < CMT_API_COUNT; i++)
        if (strcmp(cmt_apis[i].sym, name) == 0) return i;
    return -1;
}

/* Asks the real cuGetProcAddress (either form), or NULL. */
static void *real_getproc(const char *base, int version, cuuint64_t flags) {
    void *fn = NULL;
    CUdriverProcAddressQueryResult st;
    void *v2 = atomic_load(&real[CMT_API_cuGetProcAddress_v2]);
    void *v1 = atomic_load(&real[CMT_API_cuGetProcAddress]);
    if (!v2 && !v1) v2 = cmt_real_slot(CMT_API_cuGetProcAddress_v2);
    CUresult r;
    if (v2)
        r = ((CUresult(*)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *))v2)(
            base, &fn, version, flags, &st);
    else if (v1)
        r = ((CUresult(*)(const char *, void **, int, cuuint64_t))v1)(base, &fn, version, flags);
    else
        return NULL;
    return r == CUDA_SUCCESS && !cmt_is_own_address(fn) ? fn : NULL;
}

/* ---- the tracker's own driver calls ---- */

#define CMT_DRV_DEF(name, ver, exported, params)                                                   \
    static void *_Atomic drv_##name;                                                               \
    static _Atomic int drv_##name##_tried;                                                         \
    cmt_drv_##name##_t cmt_drv_##name##_fn(void) {                                                 \
        void *f = atomic_load_explicit(&drv_##name, memory_order_acquire);                         \
        if (CMT_LIKELY(f != NULL)) return (cmt_drv_##name##_t)f;                                   \
        if (atomic_load(&drv_##name##_tried) > 3) return NULL;                                     \
        atomic_fetch_add(&drv_##name##_tried, 1);                                                  \
        f = real_getproc(#name, ver, 0);                                                           \
        if (!f) f = driver_sym(exported);                                                          \
        if (f) atomic_store_explicit(&drv_##name, f, memory_order_release);                        \
        return (cmt_drv_##name##_t)f;                                                              \
    }
CMT_DRIVER_CALLS(CMT_DRV_DEF)
#undef CMT_DRV_DEF

/* ---- cuGetProcAddress: swap results for our wrappers ---- */

static bool has_per_thread(const char *base) {
    for (int i = 0; i < CMT_API_COUNT; i++)
        if (cmt_apis[i].per_thread && strcmp(cmt_apis[i].base, base) == 0) return true;
    return false;
}

static void record_unmatched(const char *sym, int version, cuuint64_t flags) {
    cmt_counter_add(CMT_CTR_UNMATCHED_PROC, 1);
    if (!cmt_writer_ensure()) return;
    uint8_t buf[512];
    uint8_t *p = cmt_put_varint(buf, (uint64_t)version);
    p = cmt_put_varint(p, flags);
    p = cmt_put_str(p, sym, 256);
    cmt_emit_ext(CMT_REC_UNMATCHED_PROC, cmt_next_seq(), cmt_now(), buf, (size_t)(p - buf));
}

void *cmt_getproc_swap(const char *sym, int version, cuuint64_t flags, void *fn) {
    if (!fn || !sym || cmt_is_own_address(fn)) return fn;
    bool known = false;
    for (int i = 0; i < CMT_API_COUNT; i++) {
        if (strcmp(cmt_apis[i].base, sym) != 0) continue;
        known = true;
        if (atomic_load(&real[i]) == fn) return cmt_apis[i].wrapper;
    }
    if (!known) return fn;
    bool pt = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && has_per_thread(sym);
    if (version <= CUDA_VERSION) {
        /* the variant introduced at or before the version asked for */
        int best = -1;
        for (int i = 0; i < CMT_API_COUNT; i++) {
            const struct cmt_api_info *a = &cmt_apis[i];
            if (strcmp(a->base, sym) || a->per_thread != pt || a->version > version) continue;
            if (best < 0 || a->version > cmt_apis[best].version) best = i;
        }
        if (best >= 0) {
            cmt_set_real_slot((enum cmt_api)best, fn);
            if (atomic_load(&real[best]) == fn) return cmt_apis[best].wrapper;
        }
    } else {
        /* newer than our headers: accept it only if it is one of the variants we know */
        for (int i = 0; i < CMT_API_COUNT; i++) {
            const struct cmt_api_info *a = &cmt_apis[i];
            if (strcmp(a->base, sym) != 0) continue;
            if (!atomic_load(&real[i]))
                cmt_set_real_slot((enum cmt_api)i, real_getproc(a->base, a->version, a->per_thread ? 2 : 0));
            if (atomic_load(&real[i]) == fn) return a->wrapper;
        }
    }
    record_unmatched(sym, version, flags);
    return fn;
}

/* ---- devices ---- */

static _Atomic uint64_t seen_devices[4]; /* ordinals 0..255 */
static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;

void cmt_device_note(int ordinal) {
    if (ordinal < 0 || ordinal > 255) return;
    uint64_t bit = 1ull << (ordinal & 63);
    if (CMT_LIKELY(atomic_load_explicit(&seen_devices[ordinal >> 6], memory_order_acquire) & bit)) return;
    pthread_mutex_lock(&dev_lock);
    if (!(atomic_load(&seen_devices[ordinal >> 6]) & bit) && cmt_writer_ensure()) {
        CUdevice dev = ordinal;
        char name[256] = "", pci[64] = "";
        CUuuid uuid;
        memset(&uuid, 0, sizeof uuid);
        size_t total = 0;
        if (CMT_DRV(cuDeviceGet, &dev, ordinal) != CUDA_SUCCESS) dev = ordinal;
        CMT_DRV(cuDeviceGetName, name, (int)sizeof name - 1, dev);
        if (CMT_DRV(cuDeviceGetUuid_v2, &uuid, dev) != CUDA_SUCCESS) CMT_DRV(cuDeviceGetUuid, &uuid, dev);
        CMT_DRV(cuDeviceGetPCIBusId, pci, (int)sizeof pci - 1, dev);
        CMT_DRV(cuDeviceTotalMem, &total, dev);
        cmt_signals_device(ordinal, total, (const uint8_t *)uuid.bytes);
        uint8_t buf[512], *p = cmt_put_zvarint(buf, ordinal);
        p = cmt_put_varint(p, total);
        memcpy(p, uuid.bytes, 16);
        p = cmt_put_str(p + 16, name, 200);
        p = cmt_put_str(p, pci, 60);
        uint64_t seq = cmt_next_seq();
        uint8_t *q = cmt_rec_begin((size_t)(p - buf), seq, cmt_now());
        if (q) {
            memcpy(q, buf, (size_t)(p - buf));
            cmt_rec_end(CMT_REC_DEVICE, q + (p - buf));
        }
        atomic_fetch_or(&seen_devices[ordinal >> 6], bit);
    }
    pthread_mutex_unlock(&dev_lock);
}

/* ---- contexts ---- */

#define MAX_CTX 4096
static struct {
    uint64_t handle;
    int8_t device;
    bool alive;
    bool primary; /* the device's primary context (its handle came from cuDevicePrimaryCtxRetain) */
} ctxs[MAX_CTX];
static uint32_t nctx; /* entries used; index = position + 1; dead entries are reused when full */
static uint64_t primary_handle[256]; /* per device ordinal: the last primary context handle seen */
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint32_t ctx_epoch = 1;
static atomic_int warned_ctx_full;

static bool is_primary(uint64_t handle, int device) {
    return device >= 0 && device < 256 && primary_handle[device] == handle;
}

static uint16_t ctx_register(uint64_t handle, int device) {
    for (uint32_t i = 0; i < nctx; i++)
        if (ctxs[i].alive && ctxs[i].handle == handle) return (uint16_t)(i + 1);
    if (!cmt_writer_ensure()) return 0;
    uint32_t i = nctx;
    if (nctx < MAX_CTX) {
        nctx++;
    } else { /* full: reuse the slot of a context a teardown ended (its allocations ended with it) */
        i = 0;
        while (i < MAX_CTX && ctxs[i].alive) i++;
    }
    if (i >= MAX_CTX) {
        cmt_counter_add(CMT_CTR_CTX_TABLE_FULL, 1);
        cmt_warn_once(&warned_ctx_full,
                      "warning: more than %d live CUDA contexts; the rest are not "
                      "told apart (counted in ctx_table_full)",
                      MAX_CTX);
        return 0;
    }
    ctxs[i].handle = handle;
    ctxs[i].device = (int8_t)device;
    ctxs[i].alive = true;
    ctxs[i].primary = is_primary(handle, device);
    if (device >= 0) cmt_device_note(device);
    uint64_t seq = cmt_next_seq();
    uint8_t *p = cmt_rec_begin(3 * CMT_VARINT_MAX, seq, cmt_now());
    if (p) {
        p = cmt_put_varint(p, i + 1);
        p = cmt_put_zvarint(p, device);
        p = cmt_put_varint(p, handle);
        cmt_rec_end(CMT_REC_CTX, p);
    }
    return (uint16_t)(i + 1);
}

uint16_t cmt_ctx_current(int *device) {
    CUcontext ctx = NULL;
    *device = -2;
    if (CMT_DRV(cuCtxGetCurrent, &ctx) != CUDA_SUCCESS || !ctx) return 0;
    struct cmt_tls *t = &cmt_tls;
    uint32_t epoch = atomic_load_explicit(&ctx_epoch, memory_order_acquire);
    if (t->ctx_handle == (uint64_t)(uintptr_t)ctx && t->ctx_gen == epoch && t->ctx_index) {
        *device = t->ctx_device;
        return t->ctx_index;
    }
    CUdevice dev = -2;
    if (CMT_DRV(cuCtxGetDevice, &dev) != CUDA_SUCCESS) dev = -2;
    pthread_mutex_lock(&ctx_lock);
    uint16_t idx = ctx_register((uint64_t)(uintptr_t)ctx, dev);
    pthread_mutex_unlock(&ctx_lock);
    if (idx) {
        t->ctx_handle = (uint64_t)(uintptr_t)ctx;
        t->ctx_index = idx;
        t->ctx_device = (int8_t)dev;
        t->ctx_gen = epoch;
    }
    *device = dev;
    return idx;
}

uint16_t cmt_ctx_lookup(uint64_t handle) {
    uint16_t idx = 0;
    pthread_mutex_lock(&ctx_lock);
    for (uint32_t i = 0; i < nctx && !idx; i++)
        if (ctxs[i].alive && ctxs[i].handle == handle) idx = (uint16_t)(i + 1);
    pthread_mutex_unlock(&ctx_lock);
    return idx;
}

void cmt_ctx_primary_retained(int device, uint64_t handle) {
    if (device < 0 || device >= 256 || !handle) return;
    pthread_mutex_lock(&ctx_lock);
    primary_handle[device] = handle;
    for (uint32_t i = 0; i < nctx; i++)
        if (ctxs[i].alive && ctxs[i].handle == handle && ctxs[i].device == device)
            ctxs[i].primary = true;
    pthread_mutex_unlock(&ctx_lock);
}

int cmt_ctx_primary(int device) {
    int idx = -1;
    pthread_mutex_lock(&ctx_lock);
    if (device >= 0 && device < 256 && primary_handle[device]) {
        idx = 0;
        for (uint32_t i = 0; i < nctx && !idx; i++)
            if (ctxs[i].alive && ctxs[i].primary && ctxs[i].device == device) idx = (int)i + 1;
    }
    pthread_mutex_unlock(&ctx_lock);
    return idx;
}

int cmt_ctx_device(uint16_t idx) {
    if (idx == 0 || idx > nctx) return -2;
    return ctxs[idx - 1].device;
}

int cmt_ctx_handle_device(CUcontext ctx) {
    uint16_t idx = cmt_ctx_lookup((uint64_t)(uintptr_t)ctx);
    if (idx) return cmt_ctx_device(idx);
    CUdevice dev = -2;
    if (!ctx || CMT_DRV(cuCtxPushCurrent, ctx) != CUDA_SUCCESS) return -2;
    if (CMT_DRV(cuCtxGetDevice, &dev) != CUDA_SUCCESS) dev = -2;
    CUcontext popped;
    CMT_DRV(cuCtxPopCurrent, &popped);
    return dev;
}

bool cmt_ctx_is_primary(uint16_t idx) {
    return idx && idx <= nctx && ctxs[idx - 1].primary;
}

void cmt_ctx_end(uint16_t idx, int device) {
    pthread_mutex_lock(&ctx_lock);
    for (uint32_t i = 0; i < nctx; i++)
        if (idx ? i + 1 == idx : ctxs[i].device == device && !ctxs[i].primary)
            ctxs[i].alive = false;
    atomic_fetch_add(&ctx_epoch, 1);
    pthread_mutex_unlock(&ctx_lock);
}

void cmt_driver_fork_child(void) {
    pthread_mutex_init(&dev_lock, NULL);
    pthread_mutex_init(&ctx_lock, NULL);
    for (int i = 0; i < 4; i++) atomic_store(&seen_devices[i], 0);
    nctx = 0;
    memset(primary_handle, 0, sizeof primary_handle);
    atomic_fetch_add(&ctx_epoch, 1);
}
