/*
 * caching.c — caching allocators recognized from stacks. See caching.h.
 */
#include "caching.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* X(name, regex over native function names, holds_buffers): the built-in caching allocators. PyTorch's cache is its
 * per-device DeviceCachingAllocator (segments, expandable ones too): its namespace also holds the
 * uncached path (PYTORCH_NO_CUDA_MEMORY_CACHING=1: NativeCachingAllocator::allocate calls cudaMalloc
 * for each tensor) and the cudaMallocAsync backend (CudaMallocAsync::: one tensor per
 * cudaMallocAsync), whose allocations are tensors, not a cache (seen on an H200, torch 2.11).
 * PyTorch's handle pool keeps one cuBLAS (cuSPARSE, cuSOLVER, cuDNN) handle per thread and device
 * for reuse and never destroys it: what the library allocated for it (cublasCreate_v2: 64 MiB of
 * workspace and two small buffers per handle on an H200, one handle for the forward thread and one
 * for autograd's) is held by that pool at exit, not leaked. */
#define CMT_CACHING_ALLOCATORS                                                                                         \
    X("PyTorch", "c10::cuda::CUDACachingAllocator::.*(DeviceCachingAllocator|ExpandableSegment)", 0)                   \
    X("PyTorch handle pool",                                                                                           \
      "at::cuda::.*(getCurrentCUDA(Blas|BlasLt|Sparse|Solver(Dn)?)Handle|getCUDABlasLtWorkspace|getNewWorkspace|"      \
      "setWorkspaceForHandle)|at::native::getCudnnHandle",                                                             \
      1)                                                                                                               \
    X("CuPy", "cupy[._:]+cuda[._:]+memory|SingleDeviceMemoryPool|cupy.*MemoryPool", 0)                                 \
    X("RMM",                                                                                                           \
      "rmm::mr::(pool_memory_resource|arena_memory_resource|fixed_size_memory_resource|"                               \
      "binning_memory_resource|detail::stream_ordered_memory_resource)",                                               \
      0)                                                                                                               \
    X("BFC", "(tensorflow|tsl|xla|stream_executor)::([A-Za-z_]+::)*BFCAllocator", 0)

static int add_rule(struct cmt_caching *c, const char *name, const char *pattern, int user, int holds_buffers,
                    char *err, size_t errlen) {
    struct cmt_caching_rule *nv = realloc(c->v, (c->n + 1) * sizeof *nv);
    if (!nv) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    c->v = nv;
    struct cmt_caching_rule *r = &c->v[c->n];
    memset(r, 0, sizeof *r);
    int rc = regcomp(&r->re, pattern, REG_EXTENDED | REG_NOSUB);
    if (rc) {
        char why[256];
        regerror(rc, &r->re, why, sizeof why);
        snprintf(err, errlen, "'%s' is not a valid regular expression: %s", pattern, why);
        return -1;
    }
    r->name = strdup(name);
    r->pattern = strdup(pattern);
    r->user = user;
    r->holds_buffers = holds_buffers;
    if (!r->name || !r->pattern) {
        regfree(&r->re);
        free(r->name);
        free(r->pattern);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    c->n++;
    return 0;
}

int cmt_caching_builtin(struct cmt_caching *c) {
    char err[512];
    if (c->n) return 0;
#define X(name, re, holds_buffers)                                                                                     \
    if (add_rule(c, name, re, 0, holds_buffers, err, sizeof err) != 0) return -1;
    CMT_CACHING_ALLOCATORS
#undef X
    return 0;
}

int cmt_caching_add(struct cmt_caching *c, const char *regex, char *err, size_t errlen) {
    return add_rule(c, regex, regex, 1, 0, err, errlen);
}

void cmt_caching_free(struct cmt_caching *c) {
    for (size_t i = 0; i < c->n; i++) {
        regfree(&c->v[i].re);
        free(c->v[i].name);
        free(c->v[i].pattern);
    }
    free(c->v);
    c->v = NULL;
    c->n = 0;
}

static int hit(const regex_t *re, const char *s) {
    return s && regexec(re, s, 0, NULL, 0) == 0;
}

static const struct cmt_caching_rule *match_set(const struct cmt_caching *c, const struct cmt_sym_frame *frames,
                                                size_t n) {
    for (size_t k = 0; c && k < c->n; k++) {
        const struct cmt_caching_rule *r = &c->v[k];
        for (size_t i = 0; i < n; i++) {
            const struct cmt_sym_frame *f = &frames[i];
            if (!r->user && f->kind != CMT_FRAME_NATIVE) continue;
            if (hit(&r->re, f->function) || (r->user && (hit(&r->re, f->file) || hit(&r->re, f->module)))) return r;
        }
    }
    return NULL;
}

const struct cmt_caching_rule *cmt_caching_match_rule(const struct cmt_caching *user, const struct cmt_caching *builtin,
                                                      const struct cmt_sym_frame *frames, size_t n) {
    const struct cmt_caching_rule *m = match_set(user, frames, n);
    return m ? m : match_set(builtin, frames, n);
}

const char *cmt_caching_match(const struct cmt_caching *user, const struct cmt_caching *builtin,
                              const struct cmt_sym_frame *frames, size_t n) {
    const struct cmt_caching_rule *m = cmt_caching_match_rule(user, builtin, frames, n);
    return m ? m->name : NULL;
}
