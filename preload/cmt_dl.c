/*
 * cmt_dl.c — the dynamic-linker side: the real dlsym/dlopen/dlclose (found with dlvsym, never by
 * calling our own exports), the pre-hooks behind the assembly trampolines of cmt_tramp.S, the
 * dlclose wrapper, and the address range of this library (to drop its frames from stacks and to
 * never store one of our wrappers as a "real" function).
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <string.h>

#include "cmt_internal.h"
#include "cmt_modules.h"
#include "cmt_python.h"
#include "cmt_writer.h"

void *(*cmt_real_dlsym)(void *, const char *);
void *(*cmt_real_dlopen)(const char *, int);
static int (*real_dlclose)(void *);
static uintptr_t own_lo, own_hi;
static atomic_int warned_deepbind;

static int find_own(struct dl_phdr_info *info, size_t size, void *arg) {
    (void)size;
    uintptr_t me = (uintptr_t)arg, lo, hi;
    cmt_module_range(info, &lo, &hi);
    if (me >= lo && me < hi) {
        own_lo = lo;
        own_hi = hi;
        return 1;
    }
    return 0;
}

static void *next_versioned(const char *name) {
    void *f = dlvsym(RTLD_NEXT, name, "GLIBC_2.34");
    if (!f) f = dlvsym(RTLD_NEXT, name, "GLIBC_2.2.5");
    return f;
}

void cmt_dl_init(void) {
    if (__atomic_load_n(&cmt_real_dlsym, __ATOMIC_ACQUIRE)) return;
    void *o = next_versioned("dlopen");
    void *c = next_versioned("dlclose");
    void *s = next_versioned("dlsym");
    __atomic_store_n(&cmt_real_dlopen, (void *(*)(const char *, int))o, __ATOMIC_RELEASE);
    __atomic_store_n(&real_dlclose, (int (*)(void *))c, __ATOMIC_RELEASE);
    if (!own_hi) dl_iterate_phdr(find_own, (void *)(uintptr_t)&cmt_dl_init);
    __atomic_store_n(&cmt_real_dlsym, (void *(*)(void *, const char *))s, __ATOMIC_RELEASE);
}

bool cmt_is_own_address(const void *p) {
    uintptr_t a = (uintptr_t)p;
    return a >= own_lo && a < own_hi;
}

void *cmt_next_sym(const char *name) {
    cmt_dl_init();
    void *f = cmt_real_dlsym(RTLD_NEXT, name);
    return cmt_is_own_address(f) ? NULL : f;
}

/* Does the object containing address `caller` define `name` itself? (A handle of that object,
 * without loading anything: its own definition comes first in its look-up scope.) */
static bool caller_defines(const void *caller, const char *name) {
    Dl_info ci, si;
    if (!caller || !dladdr(caller, &ci) || !ci.dli_fname) return false;
    void *h = cmt_real_dlopen(ci.dli_fname[0] ? ci.dli_fname : NULL, RTLD_LAZY | RTLD_NOLOAD);
    if (!h) return false;
    void *f = cmt_real_dlsym(h, name);
    real_dlclose(h);
    return f && dladdr(f, &si) && si.dli_fbase == ci.dli_fbase;
}

/* dlsym: a look-up of a hooked CUDA name on any handle returns our wrapper (after keeping the
 * real function as the wrapper's target); NULL lets the trampoline pass the call through.
 * Except RTLD_NEXT from an object that defines the name itself: that is an interposer (a
 * profiler's cuMemAlloc_v2 forwarding to the next one). Our wrapper sits before it in the
 * search order and may well have it as its real function, so handing it our wrapper would
 * recurse until the stack overflows; it gets what RTLD_NEXT means for it, untouched (the call
 * was tracked when it went through our wrapper). */
CMT_HIDDEN void *cmt_dlsym_pre(void *handle, const char *name, const void *caller) {
    cmt_dl_init();
    if (!name || name[0] != 'c' || name[1] != 'u') return NULL;
    int api = cmt_hooked_symbol(name);
    if (api < 0 || cmt_disabled) return NULL;
    if (handle == RTLD_NEXT && caller_defines(caller, name)) return NULL;
    void *real = cmt_real_dlsym(handle, name);
    if (!real) return NULL; /* let the real dlsym set dlerror() */
    if (!cmt_is_own_address(real)) cmt_set_real_slot((enum cmt_api)api, real);
    return cmt_apis[api].wrapper;
}

/* dlopen: RTLD_DEEPBIND would let the library bypass our hooks: strip it, warn once. */
CMT_HIDDEN int cmt_dlopen_pre(const char *file, int mode) {
    cmt_dl_init();
    if (mode & RTLD_DEEPBIND) {
        mode &= ~RTLD_DEEPBIND;
        cmt_counter_add(CMT_CTR_DEEPBIND_STRIPPED, 1);
        cmt_warn_once(&warned_deepbind, "warning: RTLD_DEEPBIND removed from dlopen(\"%s\") so that "
                      "CUDA calls stay visible to the tracker", file ? file : "(main)");
    }
    cmt_modules_mark_dirty();
    cmt_python_mark_dirty(); /* it may be a libpython */
    return mode;
}

CMT_EXPORT int dlclose(void *handle) {
    cmt_dl_init();
    int r = real_dlclose(handle);
    cmt_modules_mark_dirty();
    if (!cmt_disabled && cmt_writer_path()) cmt_modules_rescan();
    return r;
}
