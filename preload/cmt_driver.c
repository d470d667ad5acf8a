/*
 * cmt_driver.c — see cmt_driver.h.
 */
#include <pthread.h>
#include <string.h>

#include "cmt_alerts.h"
#include "cmt_driver.h"
#include "cmt_internal.h"
#include "cmt_records.h"
#include "cmt_writer.h"

/* ---- devices ---- */

_Atomic uint64_t cmt_seen_devices[4]; /* ordinals 0..255 */
static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;

void cmt_device_note_slow(int ordinal) {
    uint64_t bit = 1ull << (ordinal & 63);
    pthread_mutex_lock(&dev_lock);
    if (!(atomic_load(&cmt_seen_devices[ordinal >> 6]) & bit) && cmt_writer_ensure()) {
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
        cmt_alerts_device(ordinal, total, (const uint8_t *)uuid.bytes);
        cmt_rec_device(ordinal, total, (const uint8_t *)uuid.bytes, name, pci);
        atomic_fetch_or(&cmt_seen_devices[ordinal >> 6], bit);
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
static uint32_t nctx;                /* entries used; index = position + 1; dead entries are reused when full */
static uint64_t primary_handle[256]; /* per device ordinal: the last primary context handle seen */
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
_Atomic uint32_t cmt_ctx_epoch = 1;
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
        while (i < MAX_CTX && ctxs[i].alive)
            i++;
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
    cmt_rec_ctx((uint16_t)(i + 1), device, handle);
    return (uint16_t)(i + 1);
}

uint16_t cmt_ctx_current_slow(CUcontext ctx, uint32_t epoch, int *device) {
    struct cmt_tls *t = &cmt_tls;
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
        if (ctxs[i].alive && ctxs[i].handle == handle && ctxs[i].device == device) ctxs[i].primary = true;
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
        if (idx ? i + 1 == idx : ctxs[i].device == device && !ctxs[i].primary) ctxs[i].alive = false;
    atomic_fetch_add(&cmt_ctx_epoch, 1);
    pthread_mutex_unlock(&ctx_lock);
}

void cmt_driver_fork_child(void) {
    pthread_mutex_init(&dev_lock, NULL);
    pthread_mutex_init(&ctx_lock, NULL);
    for (int i = 0; i < 4; i++)
        atomic_store(&cmt_seen_devices[i], 0);
    nctx = 0;
    memset(primary_handle, 0, sizeof primary_handle);
    atomic_fetch_add(&cmt_ctx_epoch, 1);
}
CMT_LIFECYCLE(driver, 60, NULL, cmt_driver_fork_child);
