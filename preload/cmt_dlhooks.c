/*
 * cmt_dlhooks.c — the tracker's hooks on the dynamic linker: the pre-hooks behind the assembly
 * trampolines of cmt_tramp.S (dlsym hands out our wrappers for hooked CUDA names, dlopen strips
 * RTLD_DEEPBIND) and the dlclose wrapper (rescans the module map).
 */
#include <dlfcn.h>
#include <string.h>

#include "cmt_internal.h"
#include "cmt_modules.h"
#include "cmt_python.h"
#include "cmt_resolve.h"
#include "cmt_writer.h"

static atomic_int warned_deepbind;

/* Does the object containing address `caller` define `name` itself? (A handle of that object,
 * without loading anything: its own definition comes first in its look-up scope.) */
static bool caller_defines(const void *caller, const char *name) {
    Dl_info ci, si;
    if (!caller || !dladdr(caller, &ci) || !ci.dli_fname) return false;
    void *h = cmt_real_dlopen(ci.dli_fname[0] ? ci.dli_fname : NULL, RTLD_LAZY | RTLD_NOLOAD);
    if (!h) return false;
    void *f = cmt_real_dlsym(h, name);
    cmt_real_dlclose(h);
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
    return cmt_api_wrappers[api];
}

/* dlopen: RTLD_DEEPBIND would let the library bypass our hooks: strip it, warn once. */
CMT_HIDDEN int cmt_dlopen_pre(const char *file, int mode) {
    cmt_dl_init();
    if (mode & RTLD_DEEPBIND) {
        mode &= ~RTLD_DEEPBIND;
        cmt_counter_add(CMT_CTR_DEEPBIND_STRIPPED, 1);
        cmt_warn_once(&warned_deepbind,
                      "warning: RTLD_DEEPBIND removed from dlopen(\"%s\") so that "
                      "CUDA calls stay visible to the tracker",
                      file ? file : "(main)");
    }
    cmt_modules_mark_dirty();
    cmt_python_mark_dirty(); /* it may be a libpython */
    return mode;
}

CMT_EXPORT int dlclose(void *handle) {
    cmt_dl_init();
    int r = cmt_real_dlclose(handle);
    cmt_modules_mark_dirty();
    if (!cmt_disabled && cmt_writer_path()) cmt_modules_rescan();
    return r;
}
