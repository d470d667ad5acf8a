/*
 * cmt_wrappers.c — the exported wrappers and the table of their addresses (cmt_api_wrappers),
 * generated from cmt_hooks.h.
 *
 * Each wrapper is exported under the exact ABI name (an asm label, so cuda.h's renaming macros
 * never get in the way), calls the pre-hook, the real function from its slot, and the post-hook.
 * Nested calls and disabled tracking go straight through with the same arguments and result.
 */
#include <string.h>

#include "cmt_events.h"
#include "cmt_getproc.h"
#include "cmt_internal.h"
#include "cmt_resolve.h"
#include "cmt_streams.h"

#define CMT_WRAPPER(sym, base, ver, pt, fam, knd, params, args, fill)                                                  \
    CMT_EXPORT CUresult cmt_w_##sym params __asm__(#sym);                                                              \
    CMT_EXPORT CUresult cmt_w_##sym params {                                                                           \
        typedef CUresult(*cmt_fn_t) params;                                                                            \
        cmt_fn_t real = (cmt_fn_t)cmt_real_slot(CMT_API_##sym);                                                        \
        if (CMT_UNLIKELY(!real)) return CUDA_ERROR_NOT_FOUND;  /* not in the driver: as CMT_DRV */                     \
        if (cmt_fast_api(CMT_FAM_##fam, CMT_KIND_##knd, pt)) { /* a constant */                                        \
            struct cmt_call c;                                 /* for fill: only the fields read below */              \
            c.out = NULL;                                                                                              \
            c.ptr = 0;                                                                                                 \
            c.size = 0;                                                                                                \
            c.stream = NULL;                                                                                           \
            fill;                                                                                                      \
            struct cmt_fast f = {.api = CMT_API_##sym,                                                                 \
                                 .family = CMT_FAM_##fam,                                                              \
                                 .kind = CMT_KIND_##knd,                                                               \
                                 .caller = __builtin_return_address(0),                                                \
                                 .frame = __builtin_frame_address(0),                                                  \
                                 .out = c.out,                                                                         \
                                 .ptr = c.ptr,                                                                         \
                                 .size = c.size,                                                                       \
                                 .stream = c.stream};                                                                  \
            struct cmt_entry e;                                                                                        \
            if (cmt_fast_pre(&f, &e)) {                                                                                \
                CUresult r = real args;                                                                                \
                cmt_fast_end(&f, &e, r);                                                                               \
                return r;                                                                                              \
            }                                                                                                          \
        }                                                                                                              \
        struct cmt_call c;                                                                                             \
        memset(&c, 0, CMT_CALL_ARGS_SIZE); /* the pre-hook writes the rest before it is read */                        \
        c.api = CMT_API_##sym;                                                                                         \
        c.family = CMT_FAM_##fam;                                                                                      \
        c.kind = CMT_KIND_##knd;                                                                                       \
        c.caller = __builtin_return_address(0);                                                                        \
        c.frame = __builtin_frame_address(0);                                                                          \
        fill;                                                                                                          \
        cmt_streams_pre(CMT_FAM_##fam); /* nothing but for its families */                                             \
        if (!cmt_hook_pre(&c)) {                                                                                       \
            CUresult r0 = real args;                                                                                   \
            cmt_streams_post(CMT_FAM_##fam);                                                                           \
            return r0;                                                                                                 \
        }                                                                                                              \
        CUresult r = real args;                                                                                        \
        cmt_streams_post(CMT_FAM_##fam);                                                                               \
        cmt_getproc_post(CMT_FAM_##fam, &c, r, cmt_api_wrappers); /* nothing but for cuGetProcAddress */               \
        cmt_hook_end(&c, CMT_FAM_##fam, r);                                                                            \
        return r;                                                                                                      \
    }
CMT_HOOKS(CMT_WRAPPER)
#undef CMT_WRAPPER

void *const cmt_api_wrappers[CMT_API_COUNT] = {
#define CMT_API_WRAPPER(sym, base, ver, pt, fam, knd, params, args, fill) [CMT_API_##sym] = (void *)cmt_w_##sym,
    CMT_HOOKS(CMT_API_WRAPPER)
#undef CMT_API_WRAPPER
};
