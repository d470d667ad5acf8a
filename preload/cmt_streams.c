/*
 * cmt_streams.c — see cmt_streams.h.
 *
 * Why the cache is exact: a stream belongs to one context for its whole life and a context to
 * one device, so a live handle's device never changes; a handle can only name another stream
 * after cuStreamDestroy or the destruction of its context, both hooked. An entry is used only
 * while no destroy is in flight and the generation it was filled at is current; it is filled with
 * the generation read before the driver was asked, so a destroy that overlaps the fill makes it
 * stale. A handle reused after a destroy was created after that destroy's pre-hook, so a thread
 * that allocates on it sees either the destroy in flight or the new generation.
 */
#include "cmt_streams.h"

#include "cmt_driver.h"

_Atomic int cmt_capture_begun;
_Atomic unsigned cmt_stream_destroys;
_Atomic unsigned cmt_stream_gen = 1;
static _Atomic int cache_off; /* stream destroys may be unseen: never trust an entry */

#define STREAM_WAYS 8 /* per thread, direct-mapped on the handle */
struct stream_entry {
    uintptr_t handle;
    unsigned gen;
    int device;
};
static __thread struct stream_entry stream_cache[STREAM_WAYS] __attribute__((tls_model("initial-exec")));

void cmt_streams_unwrapped(enum cmt_family family) {
    if (family == CMT_FAM_CAPTURE_BEGIN) atomic_store(&cmt_capture_begun, 1);
    if (cmt_streams_destroys(family)) atomic_store(&cache_off, 1);
}

static int ask_driver(CUstream s) {
    CUcontext ctx = NULL;
    if (CMT_DRV(cuStreamGetCtx, s, &ctx) != CUDA_SUCCESS || !ctx) return -2;
    return cmt_ctx_handle_device(ctx);
}

int cmt_stream_device(CUstream s) {
    uintptr_t h = (uintptr_t)s;
    struct stream_entry *e = &stream_cache[(h >> 4 ^ h >> 10) & (STREAM_WAYS - 1)];
    bool usable = atomic_load(&cmt_stream_destroys) == 0 && !atomic_load_explicit(&cache_off, memory_order_relaxed);
    unsigned gen = atomic_load(&cmt_stream_gen);
    if (CMT_LIKELY(usable && e->handle == h && e->gen == gen)) return e->device;
    int device = ask_driver(s);
    if (usable && device >= 0) *e = (struct stream_entry){.handle = h, .gen = gen, .device = device};
    return device;
}
