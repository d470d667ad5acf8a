/*
 * cmt_mark_stub.c — build/libcumemtrack_mark.so, the tiny library applications link for
 * cmt_mark() (include/cumemtrack.h). Under the tracker the process-wide cmt_mark is the
 * tracker's (it is preloaded, so it comes first); this one forwards to it, and does nothing when
 * the tracker is absent. A definition inside the executable would shadow the tracker's, hence a
 * separate shared library.
 */

#include <dlfcn.h>
#include <stddef.h>

#include "cumemtrack.h"

void cmt_mark(const char *label) {
    static void (*target)(const char *);
    static int resolved;
    if (!__atomic_load_n(&resolved, __ATOMIC_ACQUIRE)) {
        void (*f)(const char *) = (void (*)(const char *))dlsym(RTLD_DEFAULT, "cmt_mark");
        __atomic_store_n(&target, f == cmt_mark ? NULL : f, __ATOMIC_RELAXED);
        __atomic_store_n(&resolved, 1, __ATOMIC_RELEASE);
    }
    void (*f)(const char *) = __atomic_load_n(&target, __ATOMIC_RELAXED);
    if (f) f(label);
}
