/*
 * cmt_mark_stub.c — build/libcumemtrack_mark.so, the tiny library applications link for the API
 * of include/cumemtrack.h (cmt_mark, cmt_test_begin, cmt_test_end, cmt_dump_path). Under the
 * tracker the process-wide definitions are the tracker's (it is preloaded, so it comes first);
 * these forward to them, and do nothing (NULL for cmt_dump_path) when the tracker is absent. A
 * definition inside the executable would shadow the tracker's, hence a separate shared library.
 */

#include <dlfcn.h>
#include <stddef.h>

#include "cumemtrack.h"

/* The tracker's definition of name (not this library's own, self), found once. */
static void *resolve(void **target, int *resolved, const char *name, void *self) {
    if (!__atomic_load_n(resolved, __ATOMIC_ACQUIRE)) {
        void *f = dlsym(RTLD_DEFAULT, name);
        __atomic_store_n(target, f == self ? NULL : f, __ATOMIC_RELAXED);
        __atomic_store_n(resolved, 1, __ATOMIC_RELEASE);
    }
    return __atomic_load_n(target, __ATOMIC_RELAXED);
}

#define CMT_FORWARD_LABEL(fn)                                                                                          \
    void fn(const char *label) {                                                                                       \
        static void *target;                                                                                           \
        static int resolved;                                                                                           \
        void (*f)(const char *) = (void (*)(const char *))resolve(&target, &resolved, #fn, (void *)fn);                \
        if (f) f(label);                                                                                               \
    }
CMT_FORWARD_LABEL(cmt_mark)
CMT_FORWARD_LABEL(cmt_test_begin)
CMT_FORWARD_LABEL(cmt_test_end)

const char *cmt_dump_path(void) {
    static void *target;
    static int resolved;
    const char *(*f)(void) = (const char *(*)(void))resolve(&target, &resolved, "cmt_dump_path", (void *)cmt_dump_path);
    return f ? f() : NULL;
}
