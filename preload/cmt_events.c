/*
 * cmt_events.c — what each family of hooked calls means: the pre-hook (before the real call:
 * untrack frees, so no other thread can be handed the address first) and the post-hook (after it:
 * track allocations, record OOMs, failures, teardowns, pools, re-track refused frees). Generated
 * wrappers (cmt_wrappers.c) call these two for every hooked variant.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cmt_driver.h"
#include "cmt_events.h"
#include "cmt_graph.h"
#include "cmt_internal.h"
#include "cmt_modules.h"
#include "cmt_ptrtab.h"
#include "cmt_seq.h"
#include "cmt_records.h"
#include "cmt_alerts.h"
#include "cmt_marks.h"
#include "cmt_stacks.h"
#include "cmt_streams.h"
#include "cmt_vmm.h"
#include "cmt_wire.h"
#include "cmt_writer.h"

_Atomic int cmt_exited;
_Atomic int cmt_exiting; /* exit() has begun (atexit handlers run): teardowns now are "at exit" */
_Atomic int cmt_exit_handler_registered;

/* Registered at the first allocation, i.e. after a CUDA runtime finished its initialisation (and
 * registered its own exit handler, which releases its contexts): handlers run last-registered
 * first, so this one marks the start of exit() before that release, and the teardown it causes is
 * recorded as happening at exit. */
static void on_exit_begin(void) { atomic_store(&cmt_exiting, 1); }


/* ---- pools: where a pool's memory lives ---- */

#define MAX_POOLS 1024
static struct {
    uint64_t pool;
    int device; /* -1: host */
} pools[MAX_POOLS];
static int npools;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

static bool pool_device(uint64_t pool, int *device) {
    bool found = false;
    pthread_mutex_lock(&pool_lock);
    for (int i = 0; i < npools && !found; i++)
        if (pools[i].pool == pool) {
            *device = pools[i].device;
            found = true;
        }
    pthread_mutex_unlock(&pool_lock);
    return found;
}

static void pool_created(struct cmt_call *c) {
    uint64_t pool = 0;
    memcpy(&pool, c->out, sizeof pool);
    int type = c->pool_props ? (int)c->pool_props->location.type : 0;
    int id = c->pool_props ? c->pool_props->location.id : -2;
    int device = type == CU_MEM_LOCATION_TYPE_DEVICE ? id : -1;
    pthread_mutex_lock(&pool_lock);
    int i = 0;
    while (i < npools && pools[i].pool != pool) i++;
    if (i == npools && npools < MAX_POOLS) npools++;
    if (i == npools) cmt_counter_add(CMT_CTR_POOL_TABLE_FULL, 1); /* its device is then unknown */
    if (i < npools) {
        pools[i].pool = pool;
        pools[i].device = device;
    }
    pthread_mutex_unlock(&pool_lock);
    if (device >= 0) cmt_device_note(device);
    cmt_rec_pool(pool, type, id, 1);
}

static void pool_destroyed(struct cmt_call *c) {
    uint64_t pool = (uint64_t)(uintptr_t)c->pool;
    pthread_mutex_lock(&pool_lock);
    for (int i = 0; i < npools; i++)
        if (pools[i].pool == pool) pools[i] = pools[--npools];
    pthread_mutex_unlock(&pool_lock);
    cmt_rec_pool(pool, 0, -2, 2);
}

/* ---- legacy IPC imports: opens of one handle in this process return one mapping ---- */

#define MAX_IPC 1024
static struct {
    uint64_t ptr;
    uint32_t refs;
} ipcs[MAX_IPC];
static int nipcs;
static pthread_mutex_t ipc_lock = PTHREAD_MUTEX_INITIALIZER;

/* Adds a reference to ptr; returns the count it had before (0: a new mapping). */
static uint32_t ipc_ref(uint64_t ptr, int delta) {
    uint32_t before = 0;
    pthread_mutex_lock(&ipc_lock);
    int i = 0;
    while (i < nipcs && ipcs[i].ptr != ptr)
        i++;
    if (i < nipcs) before = ipcs[i].refs;
    if (delta > 0) {
        if (i == nipcs && nipcs < MAX_IPC) {
            ipcs[nipcs].ptr = ptr;
            ipcs[nipcs++].refs = 0;
        }
        if (i < nipcs)
            ipcs[i].refs++;
        else
            cmt_counter_add(CMT_CTR_TABLE_FULL, 1);
    } else if (i < nipcs && --ipcs[i].refs == 0) {
        ipcs[i] = ipcs[--nipcs];
    }
    pthread_mutex_unlock(&ipc_lock);
    return before;
}

/* ---- allocations ---- */

/* Whether c's stream is capturing; asks the driver only once a capture was ever begun. */
static bool stream_capturing(const struct cmt_call *c) {
    if (CMT_LIKELY(!cmt_capture_possible())) return false;
    CUstream s = c->stream;
    if (!s && cmt_apis[c->api].per_thread) s = CU_STREAM_PER_THREAD;
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    return CMT_DRV(cuStreamIsCapturing, s, &st) == CUDA_SUCCESS && st != CU_STREAM_CAPTURE_STATUS_NONE;
}

static int alloc_device(struct cmt_call *c, uint64_t ptr, int ctx_device) {
    switch (c->kind) {
    case CMT_KIND_HOST_PINNED:
    case CMT_KIND_HOST_REGISTERED: return -1;
    case CMT_KIND_ASYNC: {
        int d;
        if (c->pool && pool_device((uint64_t)(uintptr_t)c->pool, &d)) return d;
        if (!c->pool && c->stream_device >= 0) return c->stream_device;
        int ord = -1;
        if (ptr && CMT_DRV(cuPointerGetAttribute, &ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                           (CUdeviceptr)ptr) == CUDA_SUCCESS && ord >= 0)
            return ord;
        return ctx_device;
    }
    default: return ctx_device;
    }
}

/* The device whose current pool a stream-ordered allocation without a pool comes from: the
 * stream's (cuDeviceSetMemPool accepts only a pool local to the device). The NULL, legacy and
 * per-thread streams are the current context's (c->device); a created stream's, its context's. */
static int async_stream_device(const struct cmt_call *c) {
    if ((uintptr_t)c->stream <= (uintptr_t)CU_STREAM_PER_THREAD) return c->device;
    return cmt_stream_device(c->stream);
}

/* A pool's device: created by cuMemPoolCreate (the table), else a device's default or current
 * pool (cuDeviceGetDefaultMemPool / cuDeviceGetMemPool hand those out without a create). */
static int pool_device_any(CUmemoryPool pool) {
    int d;
    if (pool_device((uint64_t)(uintptr_t)pool, &d)) return d;
    int n = 0;
    if (CMT_DRV(cuDeviceGetCount, &n) != CUDA_SUCCESS) return -2;
    for (int i = 0; i < n; i++) {
        CUmemoryPool p = NULL, q = NULL;
        if ((CMT_DRV(cuDeviceGetDefaultMemPool, &p, i) == CUDA_SUCCESS && p == pool) ||
            (CMT_DRV(cuDeviceGetMemPool, &q, i) == CUDA_SUCCESS && q == pool))
            return i;
    }
    return -2;
}

/* The device a refused allocation was asked of: the pool's (stream-ordered: the given pool, else
 * the stream's device's current pool), the location's (cuMemCreate), else the context's. */
static int failed_device(const struct cmt_call *c, int ctx_device) {
    if (c->family == CMT_FAM_VMM_CREATE && c->vmm_prop)
        return c->vmm_prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE ? c->vmm_prop->location.id
                                                                         : -1;
    if (c->kind == CMT_KIND_ASYNC) {
        int d = c->pool ? pool_device_any(c->pool) : c->stream_device;
        if (d == -2 && c->pool) d = async_stream_device(c);
        if (d != -2) return d;
    }
    return alloc_device((struct cmt_call *)c, 0, ctx_device);
}

/* Before the real call: everything slow (the context look-up, the stack capture with its
 * first-use work, device identities), so that the allocation takes its place in the order the
 * moment the real call returned (the post-hook does nothing slow before taking its sequence). */
static void alloc_pre(struct cmt_call *c) {
    if (CMT_UNLIKELY(!atomic_load_explicit(&cmt_exit_handler_registered, memory_order_relaxed)) &&
        !atomic_exchange(&cmt_exit_handler_registered, 1))
        atexit(on_exit_begin);
    c->ctx_idx = cmt_ctx_current(&c->device);
    c->stack = cmt_cfg.depth ? cmt_stack_capture(c->frame) : 0; /* depth 0: no call */
    c->captured =
        c->kind == CMT_KIND_ASYNC && stream_capturing(c); /* the call does not change it */
    int d = c->device;
    if (c->family == CMT_FAM_VMM_IMPORT || c->family == CMT_FAM_IPC_OPEN)
        d = -2; /* known after the call */
    else if (c->family == CMT_FAM_VMM_CREATE)
        d = c->vmm_prop && c->vmm_prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE
                ? c->vmm_prop->location.id
                : -1;
    else if (c->kind == CMT_KIND_HOST_PINNED || c->kind == CMT_KIND_HOST_REGISTERED)
        d = -1;
    else if (c->kind == CMT_KIND_ASYNC && c->pool && !pool_device((uint64_t)(uintptr_t)c->pool, &d))
        d = -2;
    c->stream_device = c->kind == CMT_KIND_ASYNC && !c->pool ? async_stream_device(c) : -2;
    if (c->stream_device >= 0) d = c->stream_device; /* its DEVICE record before, not after */
    if (d >= 0) cmt_device_note(d);
}

static void track_alloc(struct cmt_call *c, CUresult r) {
    int ctx_device = c->device;
    uint16_t ctx = c->ctx_idx;
    uint32_t stack = c->stack;
    if (r != CUDA_SUCCESS) {
        int device = failed_device(c, ctx_device);
        if (device >= 0) cmt_device_note(device);
        cmt_rec_failure(r == CUDA_ERROR_OUT_OF_MEMORY ? CMT_REC_OOM : CMT_REC_FAILED, c->api, device,
                     c->size, stack, r);
        return;
    }
    uint64_t ptr = 0;
    if (c->family == CMT_FAM_REGISTER)
        ptr = c->ptr;
    else if (c->out)
        memcpy(&ptr, c->out, sizeof ptr);
    if (!ptr) return;
    if (c->family == CMT_FAM_VMM_CREATE) {
        cmt_vmm_created(c, ptr, stack);
        return;
    }
    if (c->family == CMT_FAM_VMM_IMPORT) {
        cmt_vmm_imported(c, ptr, stack);
        return;
    }
    int device;
    if (c->family == CMT_FAM_IPC_OPEN) {
        if (ipc_ref(ptr, 1)) return; /* this mapping was opened before: one more reference */
        CUdeviceptr base = 0;
        size_t size = 0;
        if (CMT_DRV(cuMemGetAddressRange, &base, &size, (CUdeviceptr)ptr) == CUDA_SUCCESS)
            c->size = size;
        int ord = -1;
        device = CMT_DRV(cuPointerGetAttribute, &ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                         (CUdeviceptr)ptr) == CUDA_SUCCESS &&
                         ord >= 0
                     ? ord
                     : ctx_device;
    } else {
        device = alloc_device(c, ptr, ctx_device);
    }
    if (device >= 0) cmt_device_note(device);
    uint64_t granted = c->size;
    if (c->pitch) granted = (uint64_t)*c->pitch * c->height;
    unsigned space = c->family == CMT_FAM_ARRAY_CREATE ? CMT_SPACE_ARRAY : CMT_SPACE_ADDR;
    unsigned flags = space | (cmt_apis[c->api].per_thread ? CMT_FLAG_PER_THREAD : 0);
    if (!c->captured) {
        cmt_alloc_tracked(false, c->api, c->kind, space, flags, device, ptr, c->size, granted, stack, ctx, c->caller);
        return;
    }
    /* an alloc node of the graph being captured (a graph node, not memory): memory from its
     * launches */
    int64_t now = cmt_now();
    cmt_rec_alloc(CMT_REC_ALLOC, c->api, c->kind, flags | CMT_FLAG_CAPTURED, device, ptr, c->size, granted, stack, ctx,
                  cmt_seq_def(now), now, 0);
    /* the node just made is the capturing stream's only dependency now */
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    cuuint64_t id = 0;
    CUgraph graph = NULL;
    const CUgraphNode *deps = NULL;
    size_t ndeps = 0;
    CUstream s = c->stream;
    if (!s && cmt_apis[c->api].per_thread) s = CU_STREAM_PER_THREAD;
    if (CMT_DRV(cuStreamGetCaptureInfo, s, &st, &id, &graph, &deps, &ndeps) != CUDA_SUCCESS || ndeps != 1 || !deps)
        ndeps = 0;
    cmt_graph_node_made(ndeps ? (uint64_t)(uintptr_t)deps[0] : 0, (uint64_t)(uintptr_t)graph, ptr, stack);
}

/* ---- frees ---- */

bool cmt_untrack_captured(enum cmt_api api, unsigned flags, uint64_t ptr, CUstream stream) {
    struct cmt_call c = {.api = api, .stream = stream};
    if (!stream_capturing(&c)) return false;
    int64_t now = cmt_now();
    cmt_rec_free(api, flags, -2, ptr, cmt_seq_def(now), now); /* the graph's free node: read at instantiation */
    return true;
}

/* Keeps what cmt_untrack did (u) and the entry it removed (e) in c, for the post-hook. */
static void untracked(struct cmt_call *c, enum cmt_untracked u, const struct cmt_entry *e) {
    c->untracked = u;
    if (u == CMT_UNTRACK_LIVE)
        c->saved = (struct cmt_entry_copy){.size = e->size,
                                           .stack = e->stack,
                                           .ctx = e->ctx,
                                           .device = e->device,
                                           .kind = (uint8_t)(e->kind_space >> 2),
                                           .space = (uint8_t)(e->kind_space & 3)};
}

/* The general pre-hook's untrack. */
static void untrack(struct cmt_call *c) {
    struct cmt_entry e;
    untracked(c,
              cmt_untrack(false, c->api, c->family, cmt_apis[c->api].per_thread, c->ptr, c->stream, &e, &c->free_at,
                          &c->free_seq, &c->free_time, &c->free_flags),
              &e);
}

static void free_refused(struct cmt_call *c, CUresult r) {
    if (c->untracked == CMT_UNTRACK_LIVE) {
        struct cmt_entry e = {.key = c->ptr, .size = c->saved.size, .stack = c->saved.stack,
                              .ctx = c->saved.ctx, .device = c->saved.device,
                              .kind_space = (uint8_t)(c->saved.kind << 2 | c->saved.space)};
        uint64_t seq;
        int64_t now = cmt_now();
        cmt_ptr_insert(&e, now, &seq);
        cmt_rec_alloc(CMT_REC_RETRACK, c->api, c->saved.kind, c->saved.space, c->saved.device, c->ptr,
                       c->saved.size, c->saved.size, c->saved.stack, c->saved.ctx, seq, now, r);
        if (c->saved.kind != CMT_KIND_IMPORTED)
            cmt_live_add(c->saved.device, (int64_t)c->saved.size, c->caller);
    } else if (c->untracked == CMT_UNTRACK_UNKNOWN) {
        cmt_rec_failure(CMT_REC_FAILED, c->api, -2, 0, cmt_stack_capture(c->frame), r);
    }
}

/* ---- graph launches: graph memory becomes live (kind graph) ---- */

/* An alloc node was added to a graph: its stack (the node's memory is live from a launch). */
static void alloc_node_made(struct cmt_call *c, const CUmemPoolProps *props, CUdeviceptr ptr) {
    if (!cmt_writer_ensure()) return;
    CUgraphNode node = NULL;
    if (c->out) memcpy(&node, c->out, sizeof node);
    if (props->location.type == CU_MEM_LOCATION_TYPE_DEVICE) cmt_device_note(props->location.id);
    cmt_graph_node_made((uint64_t)(uintptr_t)node, (uint64_t)(uintptr_t)c->graph, ptr, cmt_stack_capture(c->frame));
}

static void graph_end(enum cmt_api api, uint64_t ptr) {
    struct cmt_entry e;
    uint64_t seq;
    int64_t now = cmt_now();
    if (cmt_ptr_remove(ptr, CMT_SPACE_ADDR, now, &e, &seq)) {
        cmt_rec_free(api, CMT_SPACE_ADDR, e.device, ptr, seq, now);
        cmt_live_add(e.device, -(int64_t)e.size, NULL);
    }
}

/* After a successful launch (the order of the driver's own work: AUTO_FREE_ON_LAUNCH frees the
 * last launch's memory, then the memory nodes allocate and free in the order the graph's edges
 * allow, as read at instantiation). */
static void graph_launched(struct cmt_call *c) {
    int n = 0;
    unsigned long long flags = 0;
    struct cmt_gnode *nodes = cmt_graph_exec_nodes((uint64_t)(uintptr_t)c->exec, &n, &flags);
    if (!nodes) return;
    if (flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)
        for (int i = 0; i < n; i++)
            if (!nodes[i].is_free) graph_end(c->api, nodes[i].ptr);
    for (int i = 0; i < n; i++) {
        if (nodes[i].is_free) {
            graph_end(c->api, nodes[i].ptr);
            continue;
        }
        struct cmt_gnode *g = &nodes[i];
        struct cmt_entry e = {.key = g->ptr, .size = g->size, .stack = g->stack, .ctx = 0,
                              .device = (int8_t)g->device,
                              .kind_space = (uint8_t)(CMT_KIND_GRAPH << 2 | CMT_SPACE_ADDR)};
        uint64_t seq;
        int64_t now = cmt_now();
        cmt_ptr_insert(&e, now, &seq);
        cmt_rec_alloc(CMT_REC_ALLOC, c->api, CMT_KIND_GRAPH, CMT_SPACE_ADDR, g->device, g->ptr, g->size,
                       g->size, g->stack, 0, seq, now, 0);
        cmt_live_add(g->device, (int64_t)g->size, c->caller);
    }
    free(nodes);
}

/* ---- context teardown ---- */

struct sweep_arg {
    uint16_t ctx;
    int device;
};
static bool sweep_match(const struct cmt_entry *e, void *arg) {
    const struct sweep_arg *a = arg;
    if (a->ctx) return e->ctx == a->ctx;
    return e->ctx && cmt_ctx_device(e->ctx) == a->device;
}
static void sweep_gone(const struct cmt_entry *e, void *arg) {
    (void)arg;
    if (e->kind_space >> 2 != CMT_KIND_IMPORTED) cmt_live_add(e->device, -(int64_t)e->size, NULL);
}

/* Ends context ctx (0: every non-primary-known context of device). Called after the driver
 * accepted the destroy/reset/release: a refused one ends nothing. */
static void teardown(enum cmt_api api, uint16_t ctx, int device, unsigned flags) {
    if (!cmt_writer_path()) return; /* nothing was ever recorded */
    if (atomic_load(&cmt_exited) || atomic_load(&cmt_exiting)) flags |= CMT_FLAG_AT_EXIT;
    uint64_t at = cmt_rec_teardown(cmt_ptr_clock(), api, device, ctx, flags);
    struct sweep_arg a = {.ctx = ctx, .device = device};
    cmt_ptr_sweep(sweep_match, &a, sweep_gone, at); /* frees in flight stay before the TEARDOWN */
    cmt_ctx_end(ctx, device);
}

/* The primary context of device ended (reset, or its last reference released): only it. */
static void primary_teardown(enum cmt_api api, int device) {
    int idx = cmt_ctx_primary(device);
    if (idx == 0) return; /* never used for an allocation: nothing of it was recorded */
    teardown(api, (uint16_t)(idx > 0 ? idx : 0), device, CMT_FLAG_PRIMARY);
}

/* ---- entry points from the wrappers ---- */

/* The families that create something tracked (case labels). */
#define CMT_ALLOC_FAMILIES                                                                         \
    CMT_FAM_ALLOC:                                                                                 \
    case CMT_FAM_REGISTER:                                                                         \
    case CMT_FAM_ARRAY_CREATE:                                                                     \
    case CMT_FAM_VMM_CREATE:                                                                       \
    case CMT_FAM_IPC_OPEN:                                                                         \
    case CMT_FAM_VMM_IMPORT

/* The inline path's gate (cmt_state.h) stands for every condition below being clear: each is
 * something the general pre-hook (cmt_hook_pre and what it calls) handles on every call and that
 * is almost always already done. X(clear, who makes it unclear again and closes the gate). A new
 * per-call step of the general path belongs here, and whoever makes it due must call
 * cmt_gate_close() after doing so; otherwise the inline path skips it. */
#define CMT_GATE_CONDITIONS(X)                                                                                         \
    X(atomic_load(&cmt_init_state) == 2, "nobody: initialisation happens once")                                        \
    X(!cmt_fork_token || *cmt_fork_token, "a fork: the child finds the token page, the gate with it, wiped")           \
    X(!atomic_load(&cmt_disabled), "CUMEMTRACK_DISABLE (never opens); a fork child with NO_CHILDREN (closes it)")      \
    X(cmt_writer_open(), "nobody: the dump stays open (a fork child's gate is closed by the fork)")                    \
    X(!atomic_load(&cmt_modules_dirty), "cmt_modules.c when a library is loaded or unloaded (closes it)")              \
    X(atomic_load(&cmt_pending_marks) <= 0, "cmt_marks.c's signal handler (closes it)")                                \
    X(atomic_load(&cmt_exit_handler_registered), "nobody: registered once, at the first allocation")                   \
    X(cmt_cfg.fast, "nobody: CUMEMTRACK_FAST=0 (tests) keeps it closed")

/* Opens the gate when every condition is clear. */
static void fast_gate_refresh(void) {
    uint64_t w = atomic_load(atomic_load(&cmt_gate_at));
    if (CMT_LIKELY(w & 1)) return;
#define CMT_GATE_CHECK(clear, closer)                                                                                  \
    if (!(clear)) return;
    CMT_GATE_CONDITIONS(CMT_GATE_CHECK)
#undef CMT_GATE_CHECK
    cmt_gate_open_from(w);
}

bool cmt_hook_pre(struct cmt_call *c) {
    if (cmt_inside()) return false; /* nested: before anything else */
    /* every per-call step below that is not the call's own work is a condition of the inline
     * path's gate (CMT_GATE_CONDITIONS above) */
    cmt_init();
    if (!cmt_enter()) return false;
    /* only into an open dump: a call that records nothing (a forked child's exit-time context
     * release) must not create one; the first stack capture writes the module map */
    if (cmt_writer_open()) cmt_modules_check();
    cmt_marks_pending();
    switch (c->family) {
    case CMT_ALLOC_FAMILIES:
        alloc_pre(c);
        break;
    case CMT_FAM_IPC_CLOSE:
        /* the last reference unmaps: a free; an earlier one releases nothing */
        c->untracked = CMT_UNTRACK_NOTHING;
        c->free_at = 0;
        if (ipc_ref(c->ptr, 0) > 1) {
            ipc_ref(c->ptr, -1);
            c->untracked = CMT_UNTRACK_IPC_REF;
        } else {
            if (ipc_ref(c->ptr, 0)) ipc_ref(c->ptr, -1);
            if (c->ptr) untrack(c);
        }
        break;
    case CMT_FAM_FREE:
    case CMT_FAM_ARRAY_DESTROY:
        c->untracked = CMT_UNTRACK_NOTHING;
        c->free_at = 0;
        if (c->ptr) untrack(c); /* cuMemFree(0) is a no-op, not an anomaly */
        break;
    case CMT_FAM_VMM_RELEASE: cmt_vmm_release_pre(c); break;
    case CMT_FAM_VMM_UNMAP: cmt_vmm_unmap_pre(c); break;
    case CMT_FAM_CTX_DESTROY:
        c->teardown_ctx = cmt_ctx_lookup((uint64_t)(uintptr_t)c->ctx);
        break;
    default: break;
    }
    fast_gate_refresh();
    return true;
}

void cmt_hook_post(struct cmt_call *c, CUresult r) {
    switch (c->family) {
    case CMT_ALLOC_FAMILIES:
        track_alloc(c, r);
        break;
    case CMT_FAM_IPC_CLOSE:
        if (c->free_at) /* its FREE, now that the real close returned (before a RETRACK) */
            cmt_free_late(false, c->api, c->free_flags, c->saved.device, c->ptr, c->free_at, c->free_seq, c->free_time);
        if (r != CUDA_SUCCESS) {
            if (c->untracked == CMT_UNTRACK_LIVE || c->untracked == CMT_UNTRACK_IPC_REF)
                ipc_ref(c->ptr, 1); /* the reference taken off in the pre-hook */
            if (c->untracked != CMT_UNTRACK_IPC_REF) free_refused(c, r);
        }
        break;
    case CMT_FAM_FREE:
    case CMT_FAM_ARRAY_DESTROY:
        if (r != CUDA_SUCCESS) free_refused(c, r);
        break;
    case CMT_FAM_VMM_RELEASE: cmt_vmm_release_post(c, r); break;
    case CMT_FAM_VMM_MAP:
        if (r == CUDA_SUCCESS) cmt_vmm_mapped(c);
        break;
    case CMT_FAM_VMM_UNMAP: cmt_vmm_unmap_post(c, r); break;
    case CMT_FAM_VMM_RETAIN:
        if (r == CUDA_SUCCESS && c->out) {
            uint64_t h;
            memcpy(&h, c->out, sizeof h);
            cmt_vmm_retained(c, h);
        }
        break;
    case CMT_FAM_POOL_CREATE:
        if (r == CUDA_SUCCESS && c->out && cmt_writer_ensure()) pool_created(c);
        break;
    case CMT_FAM_POOL_DESTROY:
        if (r == CUDA_SUCCESS && cmt_writer_path()) pool_destroyed(c);
        break;
    case CMT_FAM_GRAPH_ALLOC_NODE:
        if (r == CUDA_SUCCESS && c->mem_node) alloc_node_made(c, &c->mem_node->poolProps, c->mem_node->dptr);
        break;
    case CMT_FAM_GRAPH_ADD_NODE:
        if (r == CUDA_SUCCESS && c->node_params && c->node_params->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC)
            alloc_node_made(c, &c->node_params->alloc.poolProps, c->node_params->alloc.dptr);
        break;
    case CMT_FAM_GRAPH_INSTANTIATE:
        if (r == CUDA_SUCCESS && c->out) {
            CUgraphExec e = NULL;
            memcpy(&e, c->out, sizeof e);
            cmt_graph_instantiate((uint64_t)(uintptr_t)e, (uint64_t)(uintptr_t)c->graph, c->flags64);
        }
        break;
    case CMT_FAM_GRAPH_LAUNCH:
        if (r == CUDA_SUCCESS) graph_launched(c);
        break;
    case CMT_FAM_GRAPH_EXEC_DESTROY:
        if (r == CUDA_SUCCESS) cmt_graph_exec_destroy((uint64_t)(uintptr_t)c->exec);
        break;
    case CMT_FAM_GRAPH_DESTROY:
        if (r == CUDA_SUCCESS) cmt_graph_destroy((uint64_t)(uintptr_t)c->graph);
        break;
    case CMT_FAM_CTX_RETAIN:
        if (r == CUDA_SUCCESS && c->out) {
            uint64_t h = 0;
            memcpy(&h, c->out, sizeof h);
            cmt_ctx_primary_retained(c->dev, h);
        }
        break;
    case CMT_FAM_CTX_RELEASE: {
        unsigned flags = 0;
        int active = 1;
        if (r == CUDA_SUCCESS &&
            CMT_DRV(cuDevicePrimaryCtxGetState, c->dev, &flags, &active) == CUDA_SUCCESS && !active)
            primary_teardown(c->api, c->dev);
        break;
    }
    case CMT_FAM_CTX_RESET:
        if (r == CUDA_SUCCESS) primary_teardown(c->api, c->dev);
        break;
    case CMT_FAM_CTX_DESTROY:
        if (r == CUDA_SUCCESS && c->teardown_ctx)
            teardown(c->api, (uint16_t)c->teardown_ctx, cmt_ctx_device((uint16_t)c->teardown_ctx),
                     0);
        break;
    default: break;
    }
    cmt_leave();
}

void cmt_fast_refused(enum cmt_api api, enum cmt_family family, int kind, const void *caller, const void *frame,
                      void *out, uint64_t ptr, size_t size, CUstream stream, int device, uint16_t ctx, uint32_t stack,
                      enum cmt_untracked u, const struct cmt_entry *e, CUresult r) {
    struct cmt_call c;
    memset(&c, 0, sizeof c);
    c.api = api;
    c.family = family;
    c.kind = kind;
    c.caller = caller;
    c.frame = frame;
    c.out = out;
    c.ptr = ptr;
    c.size = size;
    c.stream = stream;
    c.device = device;
    c.stream_device = -2;
    c.ctx_idx = ctx;
    c.stack = stack;
    untracked(&c, u, e);
    cmt_hook_post(&c, r);
}

void cmt_events_fork_child(void) {
    pthread_mutex_init(&pool_lock, NULL);
    npools = 0;
    pthread_mutex_init(&ipc_lock, NULL);
    nipcs = 0; /* the parent's mappings are the parent's */
    atomic_store(&cmt_exited, 0);
    atomic_store(&cmt_exiting, 0); /* the handler itself is inherited */
}
CMT_LIFECYCLE(events, 90, NULL, cmt_events_fork_child);

/* ---- array sizes (what was asked for; the driver may round up) ---- */

static size_t format_bytes(CUarray_format f) {
    switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8: return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF: return 2;
    default: return 4;
    }
}

size_t cmt_array2d_bytes(const CUDA_ARRAY_DESCRIPTOR *d) {
    if (!d) return 0;
    size_t h = d->Height ? d->Height : 1;
    return d->Width * h * d->NumChannels * format_bytes(d->Format);
}

size_t cmt_array3d_bytes(const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned levels) {
    if (!d) return 0;
    size_t w = d->Width, h = d->Height ? d->Height : 1, z = d->Depth ? d->Depth : 1, total = 0;
    for (unsigned l = 0; l < (levels ? levels : 1); l++) {
        total += w * h * z * d->NumChannels * format_bytes(d->Format);
        w = w > 1 ? w / 2 : 1;
        h = h > 1 ? h / 2 : 1;
        z = z > 1 ? z / 2 : 1;
    }
    return total;
}
