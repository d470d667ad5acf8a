/*
 * cmt_internal.h — what the modules of the preload share: the per-call descriptor, API ids
 * generated from cmt_hooks.h, the thread-local state, and the small helpers every module uses.
 * The modules' layers: layers.txt (bottom first); which module owns which concept: README.md.
 */
#ifndef CMT_INTERNAL_H
#define CMT_INTERNAL_H

#include <cuda.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmt_format.h"
#include "cmt_hooks.h"
#include "cmt_init.h" /* cmt_init(): lazy initialisation, safe to call from anywhere, any number of times */
#include "cmt_state.h"

#define CMT_HIDDEN __attribute__((visibility("hidden")))
#define CMT_EXPORT __attribute__((visibility("default")))
#define CMT_LIKELY(x) __builtin_expect(!!(x), 1)
#define CMT_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define CMT_KIND_NONE CMT_KIND_COUNT

/* API ids: one per hooked variant, in table order. */
enum cmt_api {
#define CMT_API_ENUM(sym, base, ver, pt, fam, kind, params, args, fill) CMT_API_##sym,
    CMT_HOOKS(CMT_API_ENUM)
#undef CMT_API_ENUM
        CMT_API_COUNT
};

enum cmt_family {
    CMT_FAM_ALLOC,
    CMT_FAM_FREE,
    CMT_FAM_REGISTER,
    CMT_FAM_ARRAY_CREATE,
    CMT_FAM_ARRAY_DESTROY,
    CMT_FAM_VMM_CREATE,
    CMT_FAM_VMM_RELEASE,
    CMT_FAM_VMM_MAP,
    CMT_FAM_VMM_UNMAP,
    CMT_FAM_VMM_RETAIN,
    CMT_FAM_IPC_OPEN,
    CMT_FAM_IPC_CLOSE,
    CMT_FAM_VMM_IMPORT,
    CMT_FAM_GRAPH_ALLOC_NODE,
    CMT_FAM_GRAPH_ADD_NODE,
    CMT_FAM_CAPTURE_BEGIN,
    CMT_FAM_GRAPH_INSTANTIATE,
    CMT_FAM_GRAPH_LAUNCH,
    CMT_FAM_GRAPH_EXEC_DESTROY,
    CMT_FAM_GRAPH_DESTROY,
    CMT_FAM_POOL_CREATE,
    CMT_FAM_POOL_DESTROY,
    CMT_FAM_CTX_RETAIN,
    CMT_FAM_CTX_RELEASE,
    CMT_FAM_CTX_RESET,
    CMT_FAM_CTX_DESTROY,
    CMT_FAM_STREAM_DESTROY,
    CMT_FAM_GETPROC,
};

/* Static description of a hooked variant (generated: cmt_apis.c). */
struct cmt_api_info {
    const char *sym;
    const char *base;
    int version;
    int per_thread;
    enum cmt_family family;
    int kind;
};
extern const struct cmt_api_info cmt_apis[CMT_API_COUNT] CMT_HIDDEN;
/* Each variant's exported wrapper (generated with the wrappers: cmt_wrappers.c), for the layer of
 * the wrappers: what dlsym hands out (cmt_dlhooks.c) and the wrappers pass to cmt_getproc_swap. */
extern void *const cmt_api_wrappers[CMT_API_COUNT] CMT_HIDDEN;

/* One intercepted call, filled by the generated wrapper. */
struct cmt_call {
    enum cmt_api api;
    enum cmt_family family;
    int kind;
    void *out;               /* out-parameter receiving a pointer or handle (8 bytes) */
    CUdeviceptr ptr;         /* pointer or handle argument */
    size_t size;             /* requested bytes */
    size_t *pitch;           /* cuMemAllocPitch */
    size_t height;
    CUstream stream;
    CUmemoryPool pool;
    CUmemGenericAllocationHandle handle;
    const CUmemAllocationProp *vmm_prop;
    const CUmemPoolProps *pool_props;
    CUdevice dev;
    CUcontext ctx;
    CUgraph graph;
    CUgraphExec exec;
    CUDA_MEM_ALLOC_NODE_PARAMS *mem_node;
    CUgraphNodeParams *node_params; /* cuGraphAddNode */
    const void *caller;      /* return address into the application */
    const void *frame;       /* the wrapper's frame address (stack cache key) */
    const char *sym;         /* cuGetProcAddress */
    int version;
    cuuint64_t flags64;
    /* filled by the pre-hook for the post-hook, each before anything reads it: the wrappers zero
     * only the fields above (CMT_CALL_ARGS_SIZE) */
    int device;
    int stream_device;       /* stream-ordered allocations: the stream's device (-2: unknown) */
    enum cmt_untracked {     /* frees: what the pre-hook did (the post-hook undoes it if refused) */
        CMT_UNTRACK_NOTHING,  /* nothing recorded (a NULL pointer) */
        CMT_UNTRACK_UNKNOWN,  /* a FREE of an address that was not live was recorded */
        CMT_UNTRACK_LIVE,     /* the live entry was removed (kept in `saved`); its FREE recorded,
                                 or to record when the real free returned (free_seq) */
        CMT_UNTRACK_CAPTURED, /* a free node of the graph being captured: nothing released now */
        CMT_UNTRACK_IPC_REF,  /* an IPC mapping's earlier reference: one reference dropped */
    } untracked;
    struct cmt_entry_copy {
        uint64_t size;
        uint32_t stack;
        uint16_t ctx;
        int8_t device;
        uint8_t kind;
        uint8_t space;
    } saved;
    unsigned free_at;  /* frees: the FREE still to write once the real free returned */
    uint64_t free_seq; /*   (cmt_free_late): its in-flight slot (0: none), the number and */
    int64_t free_time; /*   time reserved */
    unsigned free_flags;
    int teardown_ctx;        /* ctx index to tear down after a successful destroy */
    uint32_t stack;          /* allocations: captured before the real call */
    uint16_t ctx_idx;        /* allocations: the current context (c->device: its device) */
    bool captured;           /* stream-ordered allocation on a capturing stream */
};
#define CMT_CALL_ARGS_SIZE offsetof(struct cmt_call, device)

size_t cmt_array2d_bytes(const CUDA_ARRAY_DESCRIPTOR *d) CMT_HIDDEN;
size_t cmt_array3d_bytes(const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned levels) CMT_HIDDEN;

/* cmt_dl.c: the real dynamic-linker functions and our own address range. */
extern void *(*cmt_real_dlsym)(void *, const char *) CMT_HIDDEN;
extern void *(*cmt_real_dlopen)(const char *, int) CMT_HIDDEN;
extern int (*cmt_real_dlclose)(void *) CMT_HIDDEN;
void cmt_dl_init(void) CMT_HIDDEN;
bool cmt_is_own_address(const void *p) CMT_HIDDEN;
void *cmt_next_sym(const char *name) CMT_HIDDEN; /* dlsym(RTLD_NEXT, name) from here */
struct dl_phdr_info;
/* The address range [lo, hi) covered by a loaded object's PT_LOAD segments (hi 0: none). */
void cmt_module_range(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi) CMT_HIDDEN;

/* cmt_log.c: one-line messages to stderr without allocating. */
extern bool cmt_log_quiet CMT_HIDDEN; /* CUMEMTRACK_QUIET */
void cmt_warn(const char *fmt, ...) CMT_HIDDEN __attribute__((format(printf, 1, 2)));
void cmt_warn_once(atomic_int *flag, const char *fmt, ...) CMT_HIDDEN
    __attribute__((format(printf, 2, 3)));


#endif
