/*
 * cmt_resolve.c — see cmt_resolve.h.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "cmt_internal.h"
#include "cmt_records.h"
#include "cmt_resolve.h"
#include "cmt_streams.h"
#include "cmt_writer.h"

/* ---- real pointers of the hooked variants ---- */

void *_Atomic cmt_real_fns[CMT_API_COUNT];
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
    if (fn && !cmt_is_own_address(fn)) atomic_compare_exchange_strong(&cmt_real_fns[api], &expected, fn);
}

void *cmt_real_slot_slow(enum cmt_api api) {
    void *f = driver_sym(cmt_apis[api].sym);
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
    return atomic_load(&cmt_real_fns[api]);
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
    void *v2 = atomic_load(&cmt_real_fns[CMT_API_cuGetProcAddress_v2]);
    void *v1 = atomic_load(&cmt_real_fns[CMT_API_cuGetProcAddress]);
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

#define CMT_DRV_DEF(name, ver, exported, params)                                                                       \
    void *_Atomic cmt_drv_##name##_ptr;                                                                                \
    static _Atomic int drv_##name##_tried;                                                                             \
    cmt_drv_##name##_t cmt_drv_##name##_slow(void) {                                                                   \
        if (atomic_load(&drv_##name##_tried) > 3) return NULL;                                                         \
        atomic_fetch_add(&drv_##name##_tried, 1);                                                                      \
        void *f = real_getproc(#name, ver, 0);                                                                         \
        if (!f) f = driver_sym(exported);                                                                              \
        if (f) atomic_store_explicit(&cmt_drv_##name##_ptr, f, memory_order_release);                                  \
        return (cmt_drv_##name##_t)f;                                                                                  \
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
    if (cmt_writer_ensure()) cmt_rec_unmatched_proc(sym, version, flags);
}

void *cmt_getproc_swap(const char *sym, int version, cuuint64_t flags, void *fn) {
    if (!fn || !sym || cmt_is_own_address(fn)) return fn;
    bool known = false;
    enum cmt_family family = CMT_FAM_GETPROC;
    for (int i = 0; i < CMT_API_COUNT; i++) {
        if (strcmp(cmt_apis[i].base, sym) != 0) continue;
        known = true;
        family = cmt_apis[i].family;
        if (atomic_load(&cmt_real_fns[i]) == fn) return cmt_apis[i].wrapper;
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
            if (atomic_load(&cmt_real_fns[best]) == fn) return cmt_apis[best].wrapper;
        }
    } else {
        /* newer than our headers: accept it only if it is one of the variants we know */
        for (int i = 0; i < CMT_API_COUNT; i++) {
            const struct cmt_api_info *a = &cmt_apis[i];
            if (strcmp(a->base, sym) != 0) continue;
            if (!atomic_load(&cmt_real_fns[i]))
                cmt_set_real_slot((enum cmt_api)i, real_getproc(a->base, a->version, a->per_thread ? 2 : 0));
            if (atomic_load(&cmt_real_fns[i]) == fn) return a->wrapper;
        }
    }
    record_unmatched(sym, version, flags);
    cmt_streams_unwrapped(family); /* its calls go unseen */
    return fn;
}
