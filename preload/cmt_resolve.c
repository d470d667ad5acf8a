/*
 * cmt_resolve.c — see cmt_resolve.h.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "cmt_internal.h"
#include "cmt_resolve.h"

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
void *cmt_real_getproc(const char *base, int version, cuuint64_t flags) {
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
        void *f = cmt_real_getproc(#name, ver, 0);                                                                     \
        if (!f) f = driver_sym(exported);                                                                              \
        if (f) atomic_store_explicit(&cmt_drv_##name##_ptr, f, memory_order_release);                                  \
        return (cmt_drv_##name##_t)f;                                                                                  \
    }
CMT_DRIVER_CALLS(CMT_DRV_DEF)
#undef CMT_DRV_DEF
