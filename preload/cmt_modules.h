/*
 * cmt_modules.h — the module map (path, load bias, PT_LOAD segments, GNU build-id) written into the
 * dump so that stacks are symbolized offline. Kept right across dlopen/dlclose: dlclose rescans at
 * once; dlopen marks the map dirty and the next tracked event (or any new stack with an unknown
 * address) rescans, before anything that could refer to the new module is written.
 */
#ifndef CMT_MODULES_H
#define CMT_MODULES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

void cmt_modules_mark_dirty(void);
/* Rescans if dirty (an inline check; call before recording an event). */
extern _Atomic int cmt_modules_dirty __attribute__((visibility("hidden")));
void cmt_modules_rescan(void);
static inline void cmt_modules_check(void) {
    if (__builtin_expect(atomic_load_explicit(&cmt_modules_dirty, memory_order_acquire), 0)) cmt_modules_rescan();
}
/* Bumped when a rescan finds a module gone: code really went away, return addresses may now mean
 * other code (the stack caches keyed by return address start over when it moves). */
extern _Atomic uint32_t cmt_modules_unloaded __attribute__((visibility("hidden")));
/* Rescans if some address is in no known module. */
void cmt_modules_cover(const void *const *ips, unsigned n);
void cmt_modules_fork_child(void);

#endif
