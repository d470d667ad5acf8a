/*
 * cmt_dl.c — the real dynamic-linker functions dlsym/dlopen/dlclose (found with dlvsym, never by
 * calling our own exports) and the address range of this library (to drop its frames from stacks
 * and to never store one of our wrappers as a "real" function), and the address range a loaded
 * object covers. It calls nothing of the tracker's: the hooks on the dynamic linker are
 * cmt_dlhooks.c.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <string.h>

#include "cmt_internal.h"

void *(*cmt_real_dlsym)(void *, const char *);
void *(*cmt_real_dlopen)(const char *, int);
int (*cmt_real_dlclose)(void *);
static uintptr_t own_lo, own_hi;

void cmt_module_range(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi) {
    *lo = UINTPTR_MAX;
    *hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (a < *lo) *lo = a;
        if (a + ph->p_memsz > *hi) *hi = a + ph->p_memsz;
    }
}

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
    __atomic_store_n(&cmt_real_dlclose, (int (*)(void *))c, __ATOMIC_RELEASE);
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
