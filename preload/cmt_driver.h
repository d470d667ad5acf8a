/*
 * cmt_driver.h — what the tracker knows of the driver's objects: device identities (DEVICE
 * records, once per device) and the context table (CTX records; contexts end at teardown).
 */
#ifndef CMT_DRIVER_H
#define CMT_DRIVER_H

#include <cuda.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cmt_resolve.h"
#include "cmt_state.h"

/* Notes a device ordinal; writes its DEVICE record the first time (the check is inline: it runs
 * on every allocation). */
extern _Atomic uint64_t cmt_seen_devices[4] __attribute__((visibility("hidden"))); /* ordinals 0..255 */
void cmt_device_note_slow(int ordinal) __attribute__((visibility("hidden")));
static inline void cmt_device_note(int ordinal) {
    if (ordinal < 0 || ordinal > 255) return;
    if (__builtin_expect(
            (atomic_load_explicit(&cmt_seen_devices[ordinal >> 6], memory_order_acquire) >> (ordinal & 63)) & 1, 1))
        return;
    cmt_device_note_slow(ordinal);
}
/* The current context's index (0: none) and its device (-2: unknown). Asks the driver every time
 * (a runtime can switch contexts where the tracker does not see it); inline while the answer is
 * this thread's last context (cached with the table's epoch), cmt_ctx_current_slow otherwise. */
extern _Atomic uint32_t cmt_ctx_epoch __attribute__((visibility("hidden")));
uint16_t cmt_ctx_current_slow(CUcontext ctx, uint32_t epoch, int *device) __attribute__((visibility("hidden")));
static inline uint16_t cmt_ctx_current(int *device) {
    CUcontext ctx = NULL;
    *device = -2;
    if (CMT_DRV(cuCtxGetCurrent, &ctx) != CUDA_SUCCESS || !ctx) return 0;
    struct cmt_tls *t = &cmt_tls;
    uint32_t epoch = atomic_load_explicit(&cmt_ctx_epoch, memory_order_acquire);
    if (__builtin_expect(t->ctx_handle == (uint64_t)(uintptr_t)ctx && t->ctx_gen == epoch && t->ctx_index, 1)) {
        *device = t->ctx_device;
        return t->ctx_index;
    }
    return cmt_ctx_current_slow(ctx, epoch, device);
}
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
