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

/* A hooked variant a look-up of its name can return: a row of the table (its base name), or an
 * alias (CMT_HOOK_ALIASES: the name resolves to that row's ABI from a version on). */
struct variant {
    enum cmt_api api;
    int version, per_thread;
};

static const struct {
    const char *base;
    int version, per_thread;
    enum cmt_api api;
} aliases[] = {
#define CMT_ALIAS_ENTRY(base, ver, pt, sym) {base, ver, pt, CMT_API_##sym},
    CMT_HOOK_ALIASES(CMT_ALIAS_ENTRY)
#undef CMT_ALIAS_ENTRY
};

#define MAX_VARIANTS 16

/* The variants of name sym (at most MAX_VARIANTS; 0: not a hooked name). */
static int variants_of(const char *sym, struct variant *v) {
    int n = 0;
    for (int i = 0; i < CMT_API_COUNT && n < MAX_VARIANTS; i++)
        if (strcmp(cmt_apis[i].base, sym) == 0)
            v[n++] = (struct variant){(enum cmt_api)i, cmt_apis[i].version, cmt_apis[i].per_thread};
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0] && n < MAX_VARIANTS; i++)
        if (strcmp(aliases[i].base, sym) == 0)
            v[n++] = (struct variant){aliases[i].api, aliases[i].version, aliases[i].per_thread};
    return n;
}

static void record_unmatched(const char *sym, int version, cuuint64_t flags) {
    cmt_counter_add(CMT_CTR_UNMATCHED_PROC, 1);
    if (cmt_writer_ensure()) cmt_rec_unmatched_proc(sym, version, flags);
}

void *cmt_getproc_swap(const char *sym, int version, cuuint64_t flags, void *fn, void *const *wrappers) {
    if (!fn || !sym || cmt_is_own_address(fn)) return fn;
    struct variant v[MAX_VARIANTS];
    int n = variants_of(sym, v);
    if (!n) return fn;
    enum cmt_family family = cmt_apis[v[0].api].family;
    bool has_pt = false;
    for (int k = 0; k < n; k++) {
        if (atomic_load(&cmt_real_fns[v[k].api]) == fn) return wrappers[v[k].api];
        has_pt |= v[k].per_thread != 0;
    }
    bool pt = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && has_pt;
    if (version <= CUDA_VERSION) {
        /* the variant introduced at or before the version asked for */
        int best = -1;
        for (int k = 0; k < n; k++) {
            if (v[k].per_thread != pt || v[k].version > version) continue;
            if (best < 0 || v[k].version > v[best].version) best = k;
        }
        if (best >= 0) {
            cmt_set_real_slot(v[best].api, fn);
            if (atomic_load(&cmt_real_fns[v[best].api]) == fn) return wrappers[v[best].api];
        }
    } else {
        /* newer than our headers: accept it only if it is one of the variants we know */
        for (int k = 0; k < n; k++) {
            if (!atomic_load(&cmt_real_fns[v[k].api]))
                cmt_set_real_slot(v[k].api, cmt_real_getproc(sym, v[k].version, v[k].per_thread ? 2 : 0));
            if (atomic_load(&cmt_real_fns[v[k].api]) == fn) return wrappers[v[k].api];
        }
    }
    record_unmatched(sym, version, flags);
    cmt_streams_unwrapped(family); /* its calls go unseen */
    return fn;
}
