/*
 * cmt_getproc.c — see cmt_getproc.h.
 */
#include <string.h>

#include "cmt_getproc.h"
#include "cmt_records.h"
#include "cmt_resolve.h"
#include "cmt_streams.h"
#include "cmt_writer.h"

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

void *cmt_getproc_swap(const char *sym, int version, cuuint64_t flags, void *fn, void *const *wrappers) {
    if (!fn || !sym || cmt_is_own_address(fn)) return fn;
    bool known = false;
    enum cmt_family family = CMT_FAM_GETPROC;
    for (int i = 0; i < CMT_API_COUNT; i++) {
        if (strcmp(cmt_apis[i].base, sym) != 0) continue;
        known = true;
        family = cmt_apis[i].family;
        if (atomic_load(&cmt_real_fns[i]) == fn) return wrappers[i];
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
            if (atomic_load(&cmt_real_fns[best]) == fn) return wrappers[best];
        }
    } else {
        /* newer than our headers: accept it only if it is one of the variants we know */
        for (int i = 0; i < CMT_API_COUNT; i++) {
            const struct cmt_api_info *a = &cmt_apis[i];
            if (strcmp(a->base, sym) != 0) continue;
            if (!atomic_load(&cmt_real_fns[i]))
                cmt_set_real_slot((enum cmt_api)i, cmt_real_getproc(a->base, a->version, a->per_thread ? 2 : 0));
            if (atomic_load(&cmt_real_fns[i]) == fn) return wrappers[i];
        }
    }
    record_unmatched(sym, version, flags);
    cmt_streams_unwrapped(family); /* its calls go unseen */
    return fn;
}
