/*
 * fakecuda.c — a GPU-less fake of the CUDA driver (libcuda.so.1) for the cumemtrack test bed.
 *
 * Implements the part of the documented driver API (cuda.h, CUDA 13.0) that allocates, frees and
 * describes device memory, backed by host memory, and exports the same ABI symbol names as the
 * real libcuda (cuMemAlloc_v2, cuMemAllocAsync_ptsz, cuGetProcAddress_v2, ...). It is compiled
 * with -D__CUDA_API_VERSION_INTERNAL so that cuda.h declares every ABI name literally.
 * cuGetProcAddress(_v2) resolves (name, cudaVersion, flags) through ONE variant table
 * (FAKE_PROCS below). There are no private export tables (cuGetExportTable: NOT_SUPPORTED).
 *
 * It also writes the ground truth the tracker's output is compared with (FAKECUDA_GROUND_TRUTH):
 *     # fakecuda ground truth v1
 *     alloc_calls N
 *     free_calls N
 *     leak KIND PHYS ORDINAL 0xPTR BYTES WHEN      (WHEN: exit | teardown)
 *
 * Environment: FAKECUDA_DEVICES, CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER, FAKECUDA_MEM_MB,
 * FAKECUDA_FAST, FAKECUDA_GROUND_TRUTH (%p = pid), FAKECUDA_GROUND_TRUTH_SYNC, FAKECUDA_TRACE,
 * FAKECUDA_GATE, FAKECUDA_FREE_US.
 * See tests/fakecuda/README.md (format, variables, semantics).
 */
#include <cuda.h>
#include <cudaTypedefs.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmt_format.h"

#define FK_EXPORT __attribute__((visibility("default")))
#define FK_MAX_DEV 64
#define FK_MAX_CTX 4096
#define FK_NBUCKET 65536

/* ------------------------------------------------------------------------------------------ */
/* State                                                                                      */

static const char *const fk_kind_names[] = {
#define FK_KIND_NAME(id, name) name,
    CMT_KINDS(FK_KIND_NAME)
#undef FK_KIND_NAME
};

enum { FK_MAGIC_GNODE = 0x474e4f44, FK_MAGIC_EXEC = 0x45584543, FK_MAGIC_CTX = 0x43545821, FK_MAGIC_STREAM = 0x53545245, FK_MAGIC_POOL = 0x504f4f4c,
       FK_MAGIC_GRAPH = 0x47524150, FK_MAGIC_ARRAY = 0x41525241, FK_MAGIC_EVENT = 0x45564e54 };

struct fk_ctx {
    int magic;
    int id;        /* 1.. (index in fk_ctxs) */
    int ord;       /* device ordinal as the process sees it */
    int primary;
    int alive;     /* non-primary: not destroyed; primary: active */
    int refs;      /* primary: retain count */
    unsigned flags;
};

struct fk_pool {
    int magic;
    CUmemLocationType loc_type;
    int loc_id;
};

struct fk_alloc;
struct fk_graph;
/* A node of a graph (CUgraphNode is its address). Graph memory nodes: an alloc node owns an
 * fk_alloc (kind graph, address fixed when the node is made), a free node names an address. */
struct fk_gnode {
    int magic;
    CUgraphNodeType type;
    struct fk_graph *g;
    struct fk_gnode **deps;   /* the nodes it depends on (edges deps[i] -> this) */
    int ndeps, capdeps;
    struct fk_alloc *alloc;   /* MEM_ALLOC */
    uintptr_t dptr;           /* MEM_FREE */
    struct fk_graph *child;   /* GRAPH: the child graph it owns (cloned or moved in) */
    CUhostFn host_fn;         /* HOST: what a launch calls */
    void *host_data;
    int item, item_end;       /* scratch of fk_graph_order: its items (a child graph node: two) */
};

struct fk_graph {
    int magic;
    struct fk_gnode **nodes;  /* in creation order */
    int n, cap;
    int nexec;                /* live executables made from it */
    int owned;                /* moved into a child-graph node: lives and dies with its parent */
};

/* What a launch of an executable does with graph memory, in the order it does it: its graph's
 * alloc and free nodes (child graphs included) in a topological order of the edges. */
struct fk_gop {
    struct fk_alloc *alloc;   /* an alloc node, or NULL: */
    uintptr_t dptr;           /* a free node of this address, or (0) */
    CUhostFn host_fn;         /* a host node */
    void *host_data;
};

/* The shape of an executable's top-level node, for cuGraphExecUpdate. */
struct fk_gshape {
    CUgraphNodeType type;
    int ndeps;
    uintptr_t dptr;           /* memory nodes: the address (alloc: of its allocation) */
    size_t size;
};

struct fk_exec {
    int magic;
    struct fk_graph *g;       /* the graph it was made from (NULL once that is destroyed) */
    unsigned long long flags;
    struct fk_gop *ops;
    int nops;
    struct fk_gshape *shape;
    int nshape;
    int uploaded;
};

struct fk_stream {
    int magic;
    struct fk_ctx *ctx;
    int capturing;
    struct fk_graph *graph;
    int joined;              /* capturing because it waited on an event of a capturing stream */
    struct fk_gnode **cdeps; /* capturing: the nodes the next captured operation depends on */
    int ncdeps, capcdeps;
    struct fk_stream *next;  /* fk_streams (live) or fk_stream_free (destroyed) */
};

struct fk_event {
    int magic;
    struct fk_graph *capture; /* recorded in a capturing stream: waiting on it joins the capture */
    struct fk_stream *src;    /* that stream: the capture is joined only while it still captures into it */
    struct fk_gnode **deps;   /* the recording stream's capture dependencies when it was recorded */
    int ndeps;
};

struct fk_vmm {            /* a physical allocation made by cuMemCreate; handle = its address */
    size_t size;
    int imported;          /* made by cuMemImportFromShareableHandle (another process's memory) */
    unsigned handle_types; /* requestedHandleTypes: what cuMemExportToShareableHandle may make */
    int ord;
    int fd;                /* memfd holding the bytes */
    int refs;              /* 1 for the handle + 1 per mapping + 1 per retain */
};

struct fk_array {
    int magic;
    int mipmapped;
    size_t size;
    void *mem;
};

struct fk_alloc {
    struct fk_alloc *next;
    uintptr_t key;
    int space;             /* CMT_SPACE_* */
    int kind;              /* enum cmt_kind */
    int ord;               /* -1: host */
    size_t size;
    struct fk_ctx *ctx;    /* NULL: not bound to a context (vmm, host pool) */
    void *mem;             /* to free(): malloc'd memory; NULL for host-registered */
    void *obj;             /* fk_vmm / fk_array */
    struct fk_pool *pool;
    struct fk_graph *graph; /* captured: a graph node, not counted */
    int glive;             /* kind graph: allocated by a launch, not freed yet */
    int owners;            /* kind graph: its alloc node's graph + the executables that hold it */
    int refs;              /* imported (IPC): opens of the same handle in this process */
    uint64_t origin;       /* imported (IPC): exporter pid << 48 ^ its pointer */
};

struct fk_map {
    struct fk_map *next;
    uintptr_t va;
    size_t size;
    struct fk_vmm *vmm;
};

struct fk_resv {
    struct fk_resv *next;
    uintptr_t va;
    size_t size;
    void *base;
    size_t maplen;
};

static pthread_mutex_t fk_lock = PTHREAD_MUTEX_INITIALIZER;
static int fk_inited;
static int fk_env_done;
static int fk_nphys = 4;
static int fk_ndev;
static int fk_phys_of[FK_MAX_DEV];
static size_t fk_mem_limit = 16384ull << 20;
static _Atomic size_t fk_used[FK_MAX_DEV];
static _Atomic size_t fk_managed[FK_MAX_DEV];   /* managed bytes of a device (not counted in fk_used) */
static _Atomic size_t fk_held_high[FK_MAX_DEV]; /* the most fk_used + fk_managed ever held: `peak` */
static int fk_trace;
static int fk_fast;
static int fk_gt_sync;
static char fk_gt_path[4096];
static int fk_exiting;
static int fk_atexit_done;

static struct fk_ctx fk_prim[FK_MAX_DEV];
static struct fk_ctx *fk_ctxs[FK_MAX_CTX + 1];
static int fk_nctx;
static struct fk_pool fk_default_pool[FK_MAX_DEV];
static struct fk_pool *fk_cur_pool[FK_MAX_DEV];

static struct fk_alloc *fk_tab[FK_NBUCKET];
static struct fk_map *fk_maps;
static struct fk_resv *fk_resvs;
static uint64_t fk_alloc_calls, fk_free_calls;
static char *fk_td_lines;   /* teardown leak lines, kept for every rewrite of the file */
static size_t fk_td_len, fk_td_cap;

static __thread struct fk_ctx *fk_stack[32];
static __thread int fk_depth;

#define FK_CUR() (fk_depth > 0 ? fk_stack[fk_depth - 1] : NULL)

/* ------------------------------------------------------------------------------------------ */
/* Small helpers                                                                              */

static void fk_trace_call(const char *fn)
{
    char buf[160];
    int n = snprintf(buf, sizeof buf, "fakecuda: %s\n", fn);
    if (n > 0 && write(2, buf, (size_t)n) < 0) {
    }
}

/* FAKECUDA_GATE=1 (ordering tests): the thread whose cuMemCreate returns first is held at its
 * next driver entry (whoever makes it: the tracker's post-hook or the program) until another
 * thread's cuMemRelease has returned (at most 10 s). fakecuda_gate_wait() returns 0 once that
 * thread is held (-1 after 10 s): a test can then act "after the create returned, before the
 * creating thread goes on", deterministically. */
static int fk_gate;       /* 1: FAKECUDA_GATE=1 (a create held), 2: FAKECUDA_GATE=free (a free held) */
static int fk_gate_state; /* 0 idle, 1 armed, 2 held, 3 open */
static __thread int fk_gate_mine; /* 1: hold at the next entry; 2 (free gate): open at the next entry */
static pthread_mutex_t fk_gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fk_gate_cond = PTHREAD_COND_INITIALIZER;

static int fk_gate_until(int state)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 10;
    int r = 0;
    while (fk_gate_state < state && r == 0)
        r = pthread_cond_timedwait(&fk_gate_cond, &fk_gate_lock, &dl);
    return fk_gate_state >= state ? 0 : -1;
}

static void fk_gate_hold(void)
{
    fk_gate_mine = 0;
    pthread_mutex_lock(&fk_gate_lock);
    fk_gate_state = 2;
    pthread_cond_broadcast(&fk_gate_cond);
    if (fk_gate_until(3) != 0)
        fprintf(stderr, "fakecuda: gate: no cuMemRelease from another thread in 10 s\n");
    pthread_mutex_unlock(&fk_gate_lock);
}

static void fk_gate_set(int from, int to, int mine)
{
    if (fk_gate != 1)
        return;
    pthread_mutex_lock(&fk_gate_lock);
    if (fk_gate_state == from && !fk_gate_mine) {
        fk_gate_state = to;
        fk_gate_mine = mine;
        pthread_cond_broadcast(&fk_gate_cond);
    }
    pthread_mutex_unlock(&fk_gate_lock);
}

/* FAKECUDA_GATE=free: the first cuMemRelease / cuMemFree_v2 that finds something to free is held
 * inside the driver, the memory still allocated, until another thread, after one of its
 * allocations (cuMemCreate / cuMemAlloc_v2) returned, enters the driver again (at most 10 s): a
 * test can make an allocation complete (and be recorded) while a free is inside the driver. */
static int fk_free_us; /* FAKECUDA_FREE_US: a free's time inside the driver, memory still held */

static void fk_gate_free_hold(void)
{
    if (fk_free_us > 0)
        usleep((useconds_t)fk_free_us);
    if (fk_gate != 2)
        return;
    pthread_mutex_lock(&fk_gate_lock);
    if (fk_gate_state == 0) {
        fk_gate_state = 2;
        pthread_cond_broadcast(&fk_gate_cond);
        if (fk_gate_until(3) != 0)
            fprintf(stderr, "fakecuda: gate: no allocation by another thread in 10 s\n");
    }
    pthread_mutex_unlock(&fk_gate_lock);
}

/* An allocation returned: with a free held (FAKECUDA_GATE=free), this thread opens the gate at its
 * next driver entry. */
static void fk_gate_allocated(void)
{
    if (fk_gate != 2)
        return;
    pthread_mutex_lock(&fk_gate_lock);
    if (fk_gate_state == 2)
        fk_gate_mine = 2;
    pthread_mutex_unlock(&fk_gate_lock);
}

static void fk_gate_open(void)
{
    fk_gate_mine = 0;
    pthread_mutex_lock(&fk_gate_lock);
    fk_gate_state = 3;
    pthread_cond_broadcast(&fk_gate_cond);
    pthread_mutex_unlock(&fk_gate_lock);
}

FK_EXPORT int fakecuda_gate_wait(void)
{
    pthread_mutex_lock(&fk_gate_lock);
    int r = fk_gate_until(2);
    pthread_mutex_unlock(&fk_gate_lock);
    return r;
}

#define ENTER()                                                                                    \
    do {                                                                                           \
        if (fk_trace)                                                                              \
            fk_trace_call(__func__);                                                               \
        if (fk_gate_mine)                                                                          \
            fk_gate_mine == 2 ? fk_gate_open() : fk_gate_hold();                                   \
    } while (0)
#define NEED_INIT()                                                                                \
    do {                                                                                           \
        if (!fk_inited)                                                                            \
            return CUDA_ERROR_NOT_INITIALIZED;                                                     \
    } while (0)

static size_t fk_hash(uintptr_t key, int space)
{
    uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull + (uint64_t)space;
    return (size_t)(h >> 48) & (FK_NBUCKET - 1);
}

static struct fk_alloc *fk_find(uintptr_t key, int space, struct fk_alloc ***link)
{
    struct fk_alloc **pp = &fk_tab[fk_hash(key, space)];
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->key == key && (*pp)->space == space) {
            if (link)
                *link = pp;
            return *pp;
        }
    return NULL;
}

static struct fk_alloc *fk_insert(uintptr_t key, int space, int kind, int ord, size_t size,
                                  struct fk_ctx *ctx, void *mem)
{
    struct fk_alloc *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->key = key;
    a->space = space;
    a->kind = kind;
    a->ord = ord;
    a->size = size;
    a->ctx = ctx;
    a->mem = mem;
    size_t h = fk_hash(key, space);
    a->next = fk_tab[h];
    fk_tab[h] = a;
    return a;
}

/* The ADDR-space allocation whose range holds p (NULL if none). */
static struct fk_alloc *fk_find_range(uintptr_t p)
{
    for (size_t i = 0; i < FK_NBUCKET; i++)
        for (struct fk_alloc *a = fk_tab[i]; a; a = a->next)
            if (a->space == CMT_SPACE_ADDR && p >= a->key && p < a->key + (a->size ? a->size : 1))
                return a;
    return NULL;
}

static int fk_phys(int ord) { return ord >= 0 && ord < fk_ndev ? fk_phys_of[ord] : -1; }

static int fk_counts_on_device(int kind)
{
    return kind == CMT_KIND_DEVICE || kind == CMT_KIND_PITCH || kind == CMT_KIND_ASYNC ||
           kind == CMT_KIND_VMM || kind == CMT_KIND_ARRAY;
}

/* Raises physical device p's high-water mark of what it holds to the current figure. */
static void fk_note_high(int p)
{
    size_t h = atomic_load(&fk_used[p]) + atomic_load(&fk_managed[p]);
    size_t cur = atomic_load(&fk_held_high[p]);
    while (h > cur && !atomic_compare_exchange_weak(&fk_held_high[p], &cur, h))
        ;
}

static int fk_reserve(int ord, size_t size)
{
    if (ord < 0)
        return 1;
    int p = fk_phys(ord);
    size_t cur = atomic_load(&fk_used[p]);
    do {
        if (cur + size > fk_mem_limit || cur + size < cur)
            return 0;
    } while (!atomic_compare_exchange_weak(&fk_used[p], &cur, cur + size));
    fk_note_high(p);
    return 1;
}

static void fk_unreserve(int ord, size_t size)
{
    if (ord >= 0)
        atomic_fetch_sub(&fk_used[fk_phys(ord)], size);
}

static void *fk_mem(size_t size)
{
    void *p = NULL;
    if (posix_memalign(&p, 256, size ? (size + 255) & ~(size_t)255 : 256))
        return NULL;
    return p;
}

/* ------------------------------------------------------------------------------------------ */
/* Ground truth                                                                               */

struct fk_buf {
    char *p;
    size_t len, cap;
};

static void fk_buf_add(struct fk_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fk_buf_add(struct fk_buf *b, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 4096;
        while (nc < b->len + (size_t)n + 1)
            nc *= 2;
        char *np = realloc(b->p, nc);
        if (!np)
            return;
        b->p = np;
        b->cap = nc;
    }
    memcpy(b->p + b->len, line, (size_t)n);
    b->len += (size_t)n;
}

static void fk_fast_leaks(struct fk_buf *b);

static void fk_leak_line(struct fk_buf *b, const struct fk_alloc *a, const char *when)
{
    if (a->kind == CMT_KIND_IMPORTED)
        return; /* another process's memory: never this process's leak */
    fk_buf_add(b, "leak %s %d %d 0x%llx %zu %s\n", fk_kind_names[a->kind], fk_phys(a->ord), a->ord,
               (unsigned long long)a->key, a->size, when);
}

static uint64_t fk_fast_count(int which);

/* Rewrites the whole file (tmp + rename). Caller holds fk_lock. */
static void fk_gt_write(void)
{
    if (!fk_gt_path[0])
        return;
    struct fk_buf b = {0};
    fk_buf_add(&b, "# fakecuda ground truth v1\n");
    fk_buf_add(&b, "alloc_calls %llu\n", (unsigned long long)(fk_alloc_calls + fk_fast_count(0)));
    fk_buf_add(&b, "free_calls %llu\n", (unsigned long long)(fk_free_calls + fk_fast_count(1)));
    for (int ord = 0; ord < fk_ndev; ord++) {
        size_t high = atomic_load(&fk_held_high[fk_phys(ord)]);
        if (high)
            fk_buf_add(&b, "peak %d %zu\n", ord, high);
    }
    if (fk_td_len) {
        if (b.len + fk_td_len + 1 > b.cap) {
            char *np = realloc(b.p, b.len + fk_td_len + 1);
            if (!np)
                goto out;
            b.p = np;
            b.cap = b.len + fk_td_len + 1;
        }
        memcpy(b.p + b.len, fk_td_lines, fk_td_len);
        b.len += fk_td_len;
    }
    for (size_t i = 0; i < FK_NBUCKET; i++)
        for (struct fk_alloc *a = fk_tab[i]; a; a = a->next)
            if (a->kind == CMT_KIND_GRAPH ? a->glive : !a->graph)
                fk_leak_line(&b, a, "exit");
    fk_fast_leaks(&b);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp%d", fk_gt_path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        goto out;
    size_t off = 0;
    while (off < b.len) {
        ssize_t w = write(fd, b.p + off, b.len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        off += (size_t)w;
    }
    close(fd);
    rename(tmp, fk_gt_path);
out:
    free(b.p);
}

static void fk_td_add(const struct fk_alloc *a)
{
    struct fk_buf b = {fk_td_lines, fk_td_len, fk_td_cap};
    fk_leak_line(&b, a, fk_exiting ? "exit" : "teardown");
    fk_td_lines = b.p;
    fk_td_len = b.len;
    fk_td_cap = b.cap;
}

static void fk_changed(void)
{
    if (fk_gt_sync)
        fk_gt_write();
}

static void fk_mark_exiting(void) { fk_exiting = 1; }

__attribute__((destructor)) static void fk_fini(void)
{
    pthread_mutex_lock(&fk_lock);
    fk_exiting = 1;
    fk_gt_write();
    pthread_mutex_unlock(&fk_lock);
}

/* ------------------------------------------------------------------------------------------ */
/* Environment and devices                                                                    */

static void fk_uuid(int phys, unsigned char out[16])
{
    static const unsigned char base[16] = {0xfa, 0xce, 0xc0, 0xda, 0x00, 0x00, 0x40, 0x00,
                                           0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    memcpy(out, base, 16);
    out[4] = (unsigned char)phys;
    out[5] = (unsigned char)(0x5a ^ phys);
    for (int i = 10; i < 16; i++)
        out[i] = (unsigned char)(phys * 16 + i);
}

static void fk_uuid_str(int phys, char out[48])
{
    unsigned char u[16];
    fk_uuid(phys, u);
    char *o = out + sprintf(out, "GPU-");
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            *o++ = '-';
        o += sprintf(o, "%02x", u[i]);
    }
}

static int fk_parse_visible_entry(const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (!n)
        return -1;
    if (n > 4 && !strncmp(s, "GPU-", 4)) {
        int match = -1;
        for (int p = 0; p < fk_nphys; p++) {
            char u[48];
            fk_uuid_str(p, u);
            if (n <= strlen(u) && !strncasecmp(u, s, n)) {
                if (match >= 0)
                    return -1; /* ambiguous prefix */
                match = p;
            }
        }
        return match;
    }
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > 1000)
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v < fk_nphys ? v : -1;
}

static void fk_pid_path(const char *tmpl, char *out, size_t cap)
{
    size_t o = 0;
    for (const char *s = tmpl; *s && o + 24 < cap; s++) {
        if (s[0] == '%' && s[1] == 'p') {
            o += (size_t)snprintf(out + o, cap - o, "%d", (int)getpid());
            s++;
        } else
            out[o++] = *s;
    }
    out[o] = 0;
}

static void fk_reset_after_fork(void);

static void fk_env(void)
{
    if (fk_env_done)
        return;
    const char *e;
    if ((e = getenv("FAKECUDA_DEVICES")) && *e) {
        fk_nphys = atoi(e);
        if (fk_nphys < 0)
            fk_nphys = 0;
        if (fk_nphys > FK_MAX_DEV)
            fk_nphys = FK_MAX_DEV;
    }
    if ((e = getenv("FAKECUDA_MEM_MB")) && *e)
        fk_mem_limit = (size_t)strtoull(e, NULL, 10) << 20;
    fk_trace = (e = getenv("FAKECUDA_TRACE")) && *e && strcmp(e, "0");
    fk_free_us = (e = getenv("FAKECUDA_FREE_US")) ? atoi(e) : 0;
    fk_gate = (e = getenv("FAKECUDA_GATE")) && *e && strcmp(e, "0") ? (strcmp(e, "free") ? 1 : 2) : 0;
    fk_fast = (e = getenv("FAKECUDA_FAST")) && *e && strcmp(e, "0");
    fk_gt_sync = (e = getenv("FAKECUDA_GROUND_TRUTH_SYNC")) && *e && strcmp(e, "0");
    if ((e = getenv("FAKECUDA_GROUND_TRUTH")) && *e)
        fk_pid_path(e, fk_gt_path, sizeof fk_gt_path);
    /* CUDA_DEVICE_ORDER (FASTEST_FIRST / PCI_BUS_ID): every fake device is alike, so both orders
     * are the physical order. */
    fk_ndev = 0;
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    if (!vis) {
        for (int p = 0; p < fk_nphys; p++)
            fk_phys_of[fk_ndev++] = p;
    } else {
        const char *s = vis;
        while (*s && fk_ndev < FK_MAX_DEV) {
            const char *c = strchr(s, ',');
            size_t n = c ? (size_t)(c - s) : strlen(s);
            int p = fk_parse_visible_entry(s, n);
            if (p < 0)
                break; /* an invalid entry ends the list */
            int dup = 0;
            for (int i = 0; i < fk_ndev; i++)
                dup |= fk_phys_of[i] == p;
            if (dup)
                break;
            fk_phys_of[fk_ndev++] = p;
            if (!c)
                break;
            s = c + 1;
        }
    }
    for (int i = 0; i < FK_MAX_DEV; i++) {
        fk_prim[i] = (struct fk_ctx){.magic = FK_MAGIC_CTX, .ord = i, .primary = 1};
        fk_default_pool[i] =
            (struct fk_pool){.magic = FK_MAGIC_POOL, .loc_type = CU_MEM_LOCATION_TYPE_DEVICE, .loc_id = i};
        fk_cur_pool[i] = &fk_default_pool[i];
    }
    for (int i = 0; i < fk_ndev; i++) {
        fk_prim[i].id = ++fk_nctx;
        fk_ctxs[fk_prim[i].id] = &fk_prim[i];
    }
    pthread_atfork(NULL, NULL, fk_reset_after_fork);
    fk_env_done = 1;
}

__attribute__((constructor)) static void fk_ctor(void)
{
    pthread_mutex_lock(&fk_lock);
    fk_env();
    pthread_mutex_unlock(&fk_lock);
}

static int fk_valid_dev(CUdevice d) { return d >= 0 && d < fk_ndev; }

static struct fk_ctx *fk_ctx_of(CUcontext c)
{
    struct fk_ctx *x = (struct fk_ctx *)c;
    if (!x || x->magic != FK_MAGIC_CTX)
        return NULL;
    return x;
}

static struct fk_stream *fk_stream_of(CUstream s)
{
    uintptr_t v = (uintptr_t)s;
    if (v == 0 || v == (uintptr_t)CU_STREAM_LEGACY || v == (uintptr_t)CU_STREAM_PER_THREAD)
        return NULL;
    struct fk_stream *st = (struct fk_stream *)s;
    return st->magic == FK_MAGIC_STREAM ? st : NULL;
}

/* The context a stream's work runs in (NULL: none). */
static struct fk_ctx *fk_stream_ctx(CUstream s)
{
    struct fk_stream *st = fk_stream_of(s);
    return st ? st->ctx : FK_CUR();
}

static int fk_ctx_usable(struct fk_ctx *c) { return c && c->alive; }

/* ------------------------------------------------------------------------------------------ */
/* Context teardown: every allocation bound to ctx ends here (like the real driver).          */

static void fk_free_alloc_mem(struct fk_alloc *a)
{
    if (a->kind == CMT_KIND_GRAPH ? a->glive : fk_counts_on_device(a->kind) && !a->graph)
        fk_unreserve(a->ord, a->size);
    if (a->kind == CMT_KIND_MANAGED && a->ord >= 0)
        atomic_fetch_sub(&fk_managed[fk_phys(a->ord)], a->size);
    if (a->kind == CMT_KIND_ARRAY && a->obj) {
        struct fk_array *arr = a->obj;
        arr->magic = 0;
        free(arr->mem);
        free(arr);
    } else if (a->mem) {
        free(a->mem);
    }
}

/* Graph memory helpers (fk_lock held). */
static size_t fk_graph_used[FK_MAX_DEV];

static int fk_grow(void **arr, int *cap, int n, size_t elem)
{
    if (n < *cap)
        return 1;
    int nc = *cap ? *cap * 2 : 8;
    void *p = realloc(*arr, (size_t)nc * elem);
    if (!p)
        return 0;
    *arr = p;
    *cap = nc;
    return 1;
}

/* A new node of type in g depending on deps[0..ndeps) (nodes of g); NULL when a dependency is
 * not a node of g, is named twice, or memory runs out. */
static struct fk_gnode *fk_gnode_add(struct fk_graph *g, CUgraphNodeType type, const CUgraphNode *deps, size_t ndeps)
{
    if (ndeps && !deps)
        return NULL;
    for (size_t i = 0; i < ndeps; i++) {
        struct fk_gnode *d = (struct fk_gnode *)deps[i];
        if (!d || d->magic != FK_MAGIC_GNODE || d->g != g)
            return NULL;
        for (size_t k = 0; k < i; k++)
            if (deps[k] == deps[i])
                return NULL;
    }
    struct fk_gnode *n = calloc(1, sizeof *n);
    if (!n || !fk_grow((void **)&g->nodes, &g->cap, g->n, sizeof *g->nodes) ||
        (ndeps && !(n->deps = malloc(ndeps * sizeof *n->deps)))) {
        free(n);
        return NULL;
    }
    n->magic = FK_MAGIC_GNODE;
    n->type = type;
    n->g = g;
    for (size_t i = 0; i < ndeps; i++)
        n->deps[i] = (struct fk_gnode *)deps[i];
    n->ndeps = n->capdeps = (int)ndeps;
    g->nodes[g->n++] = n;
    return n;
}

static struct fk_gnode *fk_gnode_of(CUgraphNode h)
{
    struct fk_gnode *n = (struct fk_gnode *)h;
    return n && n->magic == FK_MAGIC_GNODE ? n : NULL;
}

/* Whether g (or a child graph of it) holds memory nodes. */
static int fk_graph_has_mem(const struct fk_graph *g)
{
    for (int i = 0; i < g->n; i++) {
        const struct fk_gnode *n = g->nodes[i];
        if (n->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC || n->type == CU_GRAPH_NODE_TYPE_MEM_FREE ||
            (n->child && fk_graph_has_mem(n->child)))
            return 1;
    }
    return 0;
}

/* The free node of dptr in g or its child graphs (NULL: none). */
static struct fk_gnode *fk_graph_find_free(const struct fk_graph *g, uintptr_t dptr)
{
    for (int i = 0; i < g->n; i++) {
        struct fk_gnode *n = g->nodes[i], *c;
        if (n->type == CU_GRAPH_NODE_TYPE_MEM_FREE && n->dptr == dptr)
            return n;
        if (n->child && (c = fk_graph_find_free(n->child, dptr)))
            return c;
    }
    return NULL;
}

static void fk_unlink_alloc(struct fk_alloc *a)
{
    struct fk_alloc **link;
    if (fk_find(a->key, a->space, &link) == a) {
        *link = a->next;
        free(a->mem);
        free(a);
    }
}

/* One owner of a graph allocation let go of it; with none left its address is given up, now or,
 * while its memory is allocated, when that is freed. */
static void fk_graph_release(struct fk_alloc *a)
{
    if (--a->owners > 0)
        return;
    a->graph = NULL;
    if (!a->glive)
        fk_unlink_alloc(a);
}

/* Frees the memory of a launched graph allocation; its address stays the node's while its graph
 * or an executable holds it (one no longer held is removed). 0 when it was not allocated. */
static int fk_graph_free(struct fk_alloc *a, struct fk_alloc **link)
{
    if (!a->glive)
        return 0;
    fk_unreserve(a->ord, a->size);
    fk_graph_used[a->ord] -= a->size;
    a->glive = 0;
    fk_free_calls++;
    if (a->owners <= 0) {
        if (link) {
            *link = a->next;
            free(a->mem);
            free(a);
        } else {
            fk_unlink_alloc(a);
        }
    }
    fk_changed();
    return 1;
}

static void fk_fast_teardown(int ctxid);

static void fk_teardown(struct fk_ctx *c)
{
    for (size_t i = 0; i < FK_NBUCKET; i++) {
        struct fk_alloc **pp = &fk_tab[i];
        while (*pp) {
            struct fk_alloc *a = *pp;
            if (a->ctx == c) {
                *pp = a->next;
                if (!a->graph)
                    fk_td_add(a);
                fk_free_alloc_mem(a);
                free(a);
            } else
                pp = &a->next;
        }
    }
    fk_fast_teardown(c->id);
    if (fk_gt_path[0])
        fk_gt_write();
}

static void fk_reset_after_fork(void)
{
    /* The child starts with no allocations of its own (the parent's belong to the parent). */
    pthread_mutex_init(&fk_lock, NULL);
    for (size_t i = 0; i < FK_NBUCKET; i++)
        fk_tab[i] = NULL;
    fk_maps = NULL;
    fk_alloc_calls = fk_free_calls = 0;
    fk_td_len = 0;
    const char *e = getenv("FAKECUDA_GROUND_TRUTH");
    if (e && *e)
        fk_pid_path(e, fk_gt_path, sizeof fk_gt_path);
}

/* ------------------------------------------------------------------------------------------ */
/* FAKECUDA_FAST: cuMemAlloc_v2/cuMemFree_v2 from a bump arena (per-thread chunks), per-thread free lists. */

#define FK_ARENA_SIZE (16ull << 30)
#define FK_GRAN 256u
#define FK_NCLASS 20 /* up to 256 << 19 = 128 MiB; bigger ones take the slow path */

struct fk_tcount { /* one cache line per thread: no false sharing */
    struct fk_tcount *next;
    uint64_t allocs, frees;
    char pad[64 - 3 * sizeof(uint64_t)];
};

static char *fk_arena;
/* Per granule: size << 24 | ctxid << 8 | class << 1 | live (1). A granule on its thread's free
 * list instead: (the next granule on the list + 1, 0: none) << 24 | ctxid << 8 | FK_META_FREED |
 * class << 1. The list is linked through these words, never through the arena: a write into the
 * arena's untouched pages made page faults (about one per 5 random-order frees at 1 M live,
 * ~390 ns a pair of kernel time in `make bench`'s random row), which no real driver's free does. */
static _Atomic uint64_t *fk_meta;
#define FK_META_FREED 0x80u
#define FK_META_KEEP 0xffff3eu /* ctxid and class */
static _Atomic size_t fk_bump;
static struct fk_tcount *fk_tcounts;
static pthread_once_t fk_fast_once = PTHREAD_ONCE_INIT;
static __thread void *fk_freelist[FK_NCLASS];
static __thread struct fk_tcount *fk_tc;
/* Each thread bumps inside a chunk of its own (FK_CHUNK, or the request when larger), so two
 * threads' allocations, and their fk_meta words, never share a cache line: like a real
 * allocator's per-thread caches, and without the false sharing that made a second thread slow
 * down both threads (and anything that fences after the free, such as a tracker's lock). */
#define FK_CHUNK ((size_t)1 << 20)
static __thread size_t fk_chunk_off, fk_chunk_end;

/* The arena offset of a fresh block of bytes for this thread (past FK_ARENA_SIZE when full). */
static size_t fk_chunk_take(size_t bytes)
{
    if (fk_chunk_end - fk_chunk_off < bytes) {
        size_t want = bytes > FK_CHUNK ? bytes : FK_CHUNK;
        size_t off = atomic_fetch_add_explicit(&fk_bump, want, memory_order_relaxed);
        if (off + want > FK_ARENA_SIZE)
            return FK_ARENA_SIZE;
        fk_chunk_off = off;
        fk_chunk_end = off + want;
    }
    size_t off = fk_chunk_off;
    fk_chunk_off += bytes;
    return off;
}

static void fk_fast_init(void)
{
    void *a = mmap(NULL, FK_ARENA_SIZE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *m = mmap(NULL, FK_ARENA_SIZE / FK_GRAN * sizeof(uint64_t), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (a == MAP_FAILED || m == MAP_FAILED)
        return;
    fk_meta = m;
    fk_arena = a;
}

/* How far the arena was handed out (chunks included; never past the arena). */
static size_t fk_bump_end(void)
{
    size_t b = atomic_load(&fk_bump);
    return b < FK_ARENA_SIZE ? b : FK_ARENA_SIZE;
}

static struct fk_tcount *fk_tcount_get(void)
{
    if (!fk_tc) {
        struct fk_tcount *t = aligned_alloc(64, sizeof *t);
        if (!t)
            return NULL;
        memset(t, 0, sizeof *t);
        pthread_mutex_lock(&fk_lock);
        t->next = fk_tcounts;
        fk_tcounts = t;
        pthread_mutex_unlock(&fk_lock);
        fk_tc = t;
    }
    return fk_tc;
}

static uint64_t fk_fast_count(int which)
{
    uint64_t n = 0;
    for (struct fk_tcount *t = fk_tcounts; t; t = t->next)
        n += which ? t->frees : t->allocs;
    return n;
}

static void fk_fast_leaks(struct fk_buf *b)
{
    if (!fk_arena)
        return;
    size_t end = fk_bump_end() / FK_GRAN;
    for (size_t g = 0; g < end; g++) {
        uint64_t m = atomic_load_explicit(&fk_meta[g], memory_order_relaxed);
        if (!(m & 1))
            continue;
        struct fk_ctx *c = fk_ctxs[(m >> 8) & 0xffff];
        struct fk_alloc a = {.key = (uintptr_t)(fk_arena + g * FK_GRAN), .kind = CMT_KIND_DEVICE,
                             .ord = c ? c->ord : -1, .size = (size_t)(m >> 24)};
        fk_leak_line(b, &a, "exit");
    }
}

static void fk_fast_teardown(int ctxid)
{
    if (!fk_arena)
        return;
    size_t end = fk_bump_end() / FK_GRAN;
    for (size_t g = 0; g < end; g++) {
        uint64_t m = atomic_load_explicit(&fk_meta[g], memory_order_relaxed);
        if (!(m & 1) || (int)((m >> 8) & 0xffff) != ctxid)
            continue;
        struct fk_ctx *c = fk_ctxs[ctxid];
        struct fk_alloc a = {.key = (uintptr_t)(fk_arena + g * FK_GRAN), .kind = CMT_KIND_DEVICE,
                             .ord = c ? c->ord : -1, .size = (size_t)(m >> 24)};
        fk_td_add(&a);
        fk_unreserve(a.ord, a.size);
        atomic_store_explicit(&fk_meta[g], m & ~(uint64_t)1, memory_order_relaxed);
    }
}

static inline int fk_in_arena(uintptr_t p)
{
    return fk_arena && p >= (uintptr_t)fk_arena && p < (uintptr_t)fk_arena + FK_ARENA_SIZE;
}

/* 1: handled (result in *res); 0: take the slow path. */
static inline int fk_fast_alloc(CUdeviceptr *dptr, size_t size, CUresult *res)
{
    if (size == 0 || size > ((size_t)FK_GRAN << (FK_NCLASS - 1)))
        return 0;
    pthread_once(&fk_fast_once, fk_fast_init);
    if (!fk_arena)
        return 0;
    struct fk_ctx *c = FK_CUR();
    if (!fk_ctx_usable(c)) {
        *res = CUDA_ERROR_INVALID_CONTEXT;
        return 1;
    }
    unsigned cls = 0;
    while (((size_t)FK_GRAN << cls) < size)
        cls++;
    char *p = fk_freelist[cls];
    if (p) {
        uint64_t link = atomic_load_explicit(&fk_meta[(size_t)(p - fk_arena) / FK_GRAN], memory_order_relaxed) >> 24;
        fk_freelist[cls] = link ? fk_arena + (link - 1) * FK_GRAN : NULL;
    } else {
        size_t bytes = (size_t)FK_GRAN << cls;
        if (!fk_reserve(c->ord, bytes)) {
            *res = CUDA_ERROR_OUT_OF_MEMORY;
            return 1;
        }
        size_t off = fk_chunk_take(bytes);
        if (off + bytes > FK_ARENA_SIZE) {
            fk_unreserve(c->ord, bytes);
            return 0;
        }
        p = fk_arena + off;
    }
    struct fk_tcount *t = fk_tcount_get();
    if (t)
        t->allocs++;
    atomic_store_explicit(&fk_meta[(size_t)(p - fk_arena) / FK_GRAN],
                          (uint64_t)size << 24 | (uint64_t)c->id << 8 | cls << 1 | 1,
                          memory_order_relaxed);
    *dptr = (CUdeviceptr)(uintptr_t)p;
    *res = CUDA_SUCCESS;
    return 1;
}

static inline CUresult fk_fast_free(uintptr_t p)
{
    if ((p - (uintptr_t)fk_arena) % FK_GRAN)
        return CUDA_ERROR_INVALID_VALUE;
    size_t g = (p - (uintptr_t)fk_arena) / FK_GRAN;
    uint64_t m = atomic_load_explicit(&fk_meta[g], memory_order_relaxed);
    if (!(m & 1))
        return CUDA_ERROR_INVALID_VALUE;
    unsigned cls = (m >> 1) & 0x1f;
    const char *next = fk_freelist[cls];
    uint64_t link = next ? (uint64_t)(next - fk_arena) / FK_GRAN + 1 : 0;
    atomic_store_explicit(&fk_meta[g], link << 24 | (m & FK_META_KEEP) | FK_META_FREED, memory_order_relaxed);
    fk_freelist[cls] = (void *)p;
    struct fk_tcount *t = fk_tcount_get();
    if (t)
        t->frees++;
    return CUDA_SUCCESS;
}

/* Start address and size of the fast allocation holding p (0 if none). */
static int fk_fast_range(uintptr_t p, uintptr_t *base, size_t *size, int *ord)
{
    if (!fk_in_arena(p))
        return 0;
    size_t g = (p - (uintptr_t)fk_arena) / FK_GRAN;
    for (size_t k = 0; k <= ((size_t)1 << (FK_NCLASS - 1)) && k <= g; k++) {
        uint64_t m = atomic_load(&fk_meta[g - k]);
        if (!m)
            continue;
        if (!(m & 1) || (m >> 24) <= (p - (uintptr_t)(fk_arena + (g - k) * FK_GRAN)))
            return 0;
        struct fk_ctx *c = fk_ctxs[(m >> 8) & 0xffff];
        *base = (uintptr_t)(fk_arena + (g - k) * FK_GRAN);
        *size = (size_t)(m >> 24);
        *ord = c ? c->ord : -1;
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Initialisation, versions, errors                                                           */

FK_EXPORT CUresult cuInit(unsigned int flags)
{
    ENTER();
    if (flags)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fk_lock);
    fk_env();
    fk_inited = 1;
    pthread_mutex_unlock(&fk_lock);
    return fk_ndev ? CUDA_SUCCESS : CUDA_ERROR_NO_DEVICE;
}

FK_EXPORT CUresult cuDriverGetVersion(int *v)
{
    ENTER();
    if (!v)
        return CUDA_ERROR_INVALID_VALUE;
    *v = 13000;
    return CUDA_SUCCESS;
}

#define FK_ERRORS(X)                                                                               \
    X(CUDA_SUCCESS, "no error")                                                                    \
    X(CUDA_ERROR_INVALID_VALUE, "invalid argument")                                                \
    X(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")                                                   \
    X(CUDA_ERROR_NOT_INITIALIZED, "initialization error")                                          \
    X(CUDA_ERROR_DEINITIALIZED, "driver shutting down")                                            \
    X(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected")                                  \
    X(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal")                                         \
    X(CUDA_ERROR_INVALID_CONTEXT, "invalid device context")                                        \
    X(CUDA_ERROR_CONTEXT_ALREADY_CURRENT, "context already current")                               \
    X(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle")                                        \
    X(CUDA_ERROR_NOT_FOUND, "named symbol not found")                                              \
    X(CUDA_ERROR_NOT_SUPPORTED, "operation not supported")                                         \
    X(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "part or all of the requested memory range is already mapped") \
    X(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "pointer does not correspond to a registered memory region") \
    X(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "operation not permitted when stream is capturing")  \
    X(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "operation failed due to a previous error during capture") \
    X(CUDA_ERROR_ILLEGAL_STATE, "the operation cannot be performed in the present state")          \
    X(CUDA_ERROR_UNKNOWN, "unknown error")

FK_EXPORT CUresult cuGetErrorName(CUresult e, const char **s)
{
    ENTER();
    if (!s)
        return CUDA_ERROR_INVALID_VALUE;
    switch (e) {
#define FK_ERRNAME(code, str)                                                                      \
    case code:                                                                                     \
        *s = #code;                                                                                \
        return CUDA_SUCCESS;
        FK_ERRORS(FK_ERRNAME)
#undef FK_ERRNAME
    default:
        *s = NULL;
        return CUDA_ERROR_INVALID_VALUE;
    }
}

FK_EXPORT CUresult cuGetErrorString(CUresult e, const char **s)
{
    ENTER();
    if (!s)
        return CUDA_ERROR_INVALID_VALUE;
    switch (e) {
#define FK_ERRSTR(code, str)                                                                       \
    case code:                                                                                     \
        *s = str;                                                                                  \
        return CUDA_SUCCESS;
        FK_ERRORS(FK_ERRSTR)
#undef FK_ERRSTR
    default:
        *s = NULL;
        return CUDA_ERROR_INVALID_VALUE;
    }
}

FK_EXPORT CUresult cuGetExportTable(const void **table, const CUuuid *id)
{
    ENTER();
    (void)id;
    if (table)
        *table = NULL;
    return CUDA_ERROR_NOT_SUPPORTED;
}

FK_EXPORT CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode *mode)
{
    ENTER();
    if (!mode)
        return CUDA_ERROR_INVALID_VALUE;
    *mode = CU_MODULE_LAZY_LOADING;
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Devices                                                                                    */

FK_EXPORT CUresult cuDeviceGetCount(int *n)
{
    ENTER();
    NEED_INIT();
    if (!n)
        return CUDA_ERROR_INVALID_VALUE;
    *n = fk_ndev;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuDeviceGet(CUdevice *d, int ord)
{
    ENTER();
    NEED_INIT();
    if (!d)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fk_valid_dev(ord))
        return CUDA_ERROR_INVALID_DEVICE;
    *d = ord;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
    ENTER();
    NEED_INIT();
    if (!name || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fk_valid_dev(d))
        return CUDA_ERROR_INVALID_DEVICE;
    snprintf(name, (size_t)len, "Fake CUDA Device %d", fk_phys(d));
    return CUDA_SUCCESS;
}

static CUresult fk_get_uuid(CUuuid *u, CUdevice d)
{
    if (!fk_inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!u)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fk_valid_dev(d))
        return CUDA_ERROR_INVALID_DEVICE;
    fk_uuid(fk_phys(d), (unsigned char *)u->bytes);
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuDeviceGetUuid(CUuuid *u, CUdevice d)
{
    ENTER();
    return fk_get_uuid(u, d);
}

FK_EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *u, CUdevice d)
{
    ENTER();
    return fk_get_uuid(u, d);
}

FK_EXPORT CUresult cuDeviceGetPCIBusId(char *bus, int len, CUdevice d)
{
    ENTER();
    NEED_INIT();
    if (!bus || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fk_valid_dev(d))
        return CUDA_ERROR_INVALID_DEVICE;
    snprintf(bus, (size_t)len, "0000:%02x:00.0", (fk_phys(d) * 16 + 0x10) & 0xff);
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuDeviceGetByPCIBusId(CUdevice *d, const char *bus)
{
    ENTER();
    NEED_INIT();
    if (!d || !bus)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned dom = 0, b = 0, dev = 0, fn = 0;
    if (sscanf(bus, "%x:%x:%x.%x", &dom, &b, &dev, &fn) != 4) {
        dom = 0;
        if (sscanf(bus, "%x:%x.%x", &b, &dev, &fn) != 3)
            return CUDA_ERROR_INVALID_VALUE;
    }
    for (int i = 0; i < fk_ndev; i++)
        if (dom == 0 && dev == 0 && fn == 0 && b == (unsigned)((fk_phys(i) * 16 + 0x10) & 0xff)) {
            *d = i;
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_DEVICE;
}

FK_EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d)
{
    ENTER();
    NEED_INIT();
    if (!bytes)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fk_valid_dev(d))
        return CUDA_ERROR_INVALID_DEVICE;
    *bytes = fk_mem_limit;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
    ENTER();
    NEED_INIT();
    if (!v)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fk_valid_dev(d))
        return CUDA_ERROR_INVALID_DEVICE;
    int r = 1;
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: r = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: r = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: r = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: r = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: r = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: r = 49152; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: r = 232448; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: r = 233472; break;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: r = 65536; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: r = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH: r = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: r = 65536; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: r = 1980000; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: r = 2619000; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: r = 5120; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: r = 52428800; break;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: r = 512; break;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT: r = 32; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: r = 132; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: r = 2048; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: r = 32; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: r = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: r = 0; break;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: r = 3; break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: r = (fk_phys(d) * 16 + 0x10) & 0xff; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: r = 0; break;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED: case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: r = 0; break;
    case CU_DEVICE_ATTRIBUTE_TCC_DRIVER: r = 0; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: r = CU_COMPUTEMODE_DEFAULT; break;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID: r = fk_phys(d); break;
    case CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES: r = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR; break;
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID: r = 0; break;
    default: r = 1; break; /* capability flags and everything else: "supported" */
    }
    *v = r;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuDeviceCanAccessPeer(int *can, CUdevice a, CUdevice b)
{
    ENTER();
    NEED_INIT();
    if (!can)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fk_valid_dev(a) || !fk_valid_dev(b))
        return CUDA_ERROR_INVALID_DEVICE;
    *can = a != b;
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Imported memory: legacy IPC and shareable handles, between processes                       */
/* cuIpcGetMemHandle writes {magic, exporter pid, pointer, size, ordinal} into the handle; another
 * process's cuIpcOpenMemHandle maps it (here: host memory of that size; the bytes are not shared)
 * into its current context, once per handle (reference counted, like the driver), and
 * cuIpcCloseMemHandle unmaps it. Opening a handle in the process that exported it fails
 * (CUDA_ERROR_INVALID_CONTEXT). cuMemExportToShareableHandle(POSIX_FILE_DESCRIPTOR) hands out a
 * descriptor of the allocation's memfd (the handle must have been created with that type
 * requested); cuMemImportFromShareableHandle makes a handle over it in the importing process.
 * Imported memory is not the importer's: it counts against no device, is in no alloc_calls and
 * never a leak line. */

static struct fk_vmm *fk_vmm_of(CUmemGenericAllocationHandle h, struct fk_alloc ***link);

struct fk_ipc {
    uint32_t magic;
    int32_t pid;
    uint64_t ptr, size;
    int32_t ord;
};
#define FK_IPC_MAGIC 0x49504331u

FK_EXPORT CUresult cuIpcGetMemHandle(CUipcMemHandle *h, CUdeviceptr p)
{
    ENTER();
    NEED_INIT();
    if (!h)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fk_lock);
    struct fk_alloc *a = fk_find((uintptr_t)p, CMT_SPACE_ADDR, NULL);
    struct fk_ipc ipc = {0};
    if (a && a->kind == CMT_KIND_DEVICE)
        ipc = (struct fk_ipc){FK_IPC_MAGIC, (int32_t)getpid(), (uint64_t)p, a->size, a->ord};
    pthread_mutex_unlock(&fk_lock);
    if (!ipc.magic)
        return CUDA_ERROR_INVALID_VALUE;
    memset(h, 0, sizeof *h);
    memcpy(h->reserved, &ipc, sizeof ipc);
    return CUDA_SUCCESS;
}

static CUresult fk_ipc_open(CUdeviceptr *pdptr, CUipcMemHandle h, unsigned int flags);
/* the CUDA 4.1 ABI variant (same parameters) */
FK_EXPORT CUresult cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle h, unsigned int flags)
{
    ENTER();
    return fk_ipc_open(pdptr, h, flags);
}

FK_EXPORT CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle h, unsigned int flags)
{
    ENTER();
    return fk_ipc_open(pdptr, h, flags);
}

static CUresult fk_ipc_open(CUdeviceptr *pdptr, CUipcMemHandle h, unsigned int flags)
{
    NEED_INIT();
    (void)flags;
    struct fk_ipc ipc;
    memcpy(&ipc, h.reserved, sizeof ipc);
    if (!pdptr || ipc.magic != FK_IPC_MAGIC)
        return CUDA_ERROR_INVALID_VALUE;
    struct fk_ctx *c = FK_CUR();
    if (!fk_ctx_usable(c) || ipc.pid == (int32_t)getpid())
        return CUDA_ERROR_INVALID_CONTEXT;
    uint64_t origin = (uint64_t)ipc.pid << 48 ^ ipc.ptr;
    pthread_mutex_lock(&fk_lock);
    for (size_t i = 0; i < FK_NBUCKET; i++)
        for (struct fk_alloc *a = fk_tab[i]; a; a = a->next)
            if (a->kind == CMT_KIND_IMPORTED && a->space == CMT_SPACE_ADDR && a->origin == origin) {
                a->refs++;
                *pdptr = (CUdeviceptr)a->key;
                pthread_mutex_unlock(&fk_lock);
                return CUDA_SUCCESS;
            }
    void *m = fk_mem(ipc.size);
    struct fk_alloc *a = m ? fk_insert((uintptr_t)m, CMT_SPACE_ADDR, CMT_KIND_IMPORTED, ipc.ord, ipc.size, c, m) : NULL;
    if (a) {
        a->refs = 1;
        a->origin = origin;
    }
    pthread_mutex_unlock(&fk_lock);
    if (!a) {
        free(m);
        return CUDA_ERROR_MAP_FAILED;
    }
    *pdptr = (CUdeviceptr)(uintptr_t)m;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuIpcCloseMemHandle(CUdeviceptr p)
{
    ENTER();
    NEED_INIT();
    struct fk_alloc **link;
    pthread_mutex_lock(&fk_lock);
    struct fk_alloc *a = fk_find((uintptr_t)p, CMT_SPACE_ADDR, &link);
    if (!a || a->kind != CMT_KIND_IMPORTED) {
        pthread_mutex_unlock(&fk_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (--a->refs == 0) {
        *link = a->next;
        free(a->mem);
        free(a);
    }
    pthread_mutex_unlock(&fk_lock);
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuMemExportToShareableHandle(void *sh, CUmemGenericAllocationHandle h,
                                                CUmemAllocationHandleType type, unsigned long long flags)
{
    ENTER();
    NEED_INIT();
    if (!sh || flags || type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fk_lock);
    struct fk_vmm *v = fk_vmm_of(h, NULL);
    int fd = v && (v->handle_types & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ? fcntl(v->fd, F_DUPFD_CLOEXEC, 0) : -2;
    pthread_mutex_unlock(&fk_lock);
    if (fd == -2)
        return CUDA_ERROR_INVALID_VALUE;
    if (fd < 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *(int *)sh = fd;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *h, void *os,
                                                  CUmemAllocationHandleType type)
{
    ENTER();
    NEED_INIT();
    if (!h || type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_INVALID_VALUE;
    int fd = fcntl((int)(intptr_t)os, F_DUPFD_CLOEXEC, 0);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) {
        if (fd >= 0)
            close(fd);
        return CUDA_ERROR_INVALID_HANDLE;
    }
    struct fk_vmm *v = calloc(1, sizeof *v);
    if (!v) {
        close(fd);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    /* the device: the exporter's (this fake keeps no record of it across processes: device 0) */
    *v = (struct fk_vmm){.size = (size_t)st.st_size, .ord = 0, .fd = fd, .refs = 1, .imported = 1};
    pthread_mutex_lock(&fk_lock);
    struct fk_alloc *a = fk_insert((uintptr_t)v, CMT_SPACE_VMM, CMT_KIND_IMPORTED, 0, v->size, NULL, NULL);
    if (a)
        a->obj = v;
    pthread_mutex_unlock(&fk_lock);
    if (!a) {
        close(fd);
        free(v);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *h = (CUmemGenericAllocationHandle)(uintptr_t)v;
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Contexts                                                                                   */

static void fk_exit_handler(void) { fk_mark_exiting(); }

FK_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice d)
{
    ENTER();
    NEED_INIT();
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fk_valid_dev(d))
        return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&fk_lock);
    /* Registered after the runtime's own atexit handler (which releases the primary contexts at
     * exit), so it runs before it: teardown at exit is then reported as WHEN=exit. */
    if (!fk_atexit_done) {
        fk_atexit_done = 1;
        atexit(fk_exit_handler);
    }
    fk_prim[d].refs++;
    fk_prim[d].alive = 1;
    pthread_mutex_unlock(&fk_lock);
    *pctx = (CUcontext)&fk_prim[d];
    return CUDA_SUCCESS;
}

static CUresult fk_primary_release(CUdevice d)
{
    if (!fk_inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!fk_valid_dev(d))
        return CUDA_ERROR_INVALID_DEVICE;
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&fk_lock);
    if (fk_prim[d].refs <= 0)
        r = CUDA_ERROR_INVALID_CONTEXT;
    else if (--fk_prim[d].refs == 0) {
        fk_teardown(&fk_prim[d]);
        fk_prim[d].alive = 0;
    }
    pthread_mutex_unlock(&fk_lock);
    return r;
}

FK_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice d)
{
    ENTER();
    return fk_primary_release(d);
}

FK_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d)
{
    ENTER();
    return fk_primary_release(d);
}

static CUresult fk_primary_reset(CUdevice d)
{
    if (!fk_inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!fk_valid_dev(d))
        return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&fk_lock);
    fk_teardown(&fk_prim[d]);
    fk_prim[d].flags = 0;
    pthread_mutex_unlock(&fk_lock);
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice d)
{
    ENTER();
    return fk_primary_reset(d);
}

FK_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice d)
{
    ENTER();
    return fk_primary_reset(d);
}

FK_EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice d, unsigned int *flags, int *active)
{
    ENTER();
    NEED_INIT();
    if (!flags || !active)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fk_valid_dev(d))
        return CUDA_ERROR_INVALID_DEVICE;
    *flags = fk_prim[d].flags;
    *active = fk_prim[d].refs > 0;
    return CUDA_SUCCESS;
}

static CUresult fk_primary_setflags(CUdevice d, unsigned flags)
{
    if (!fk_inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!fk_valid_dev(d))
        return CUDA_ERROR_INVALID_DEVICE;
    fk_prim[d].flags = flags;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuDevicePrimaryCtxSetFlags(CUdevice d, unsigned int flags)
{
    ENTER();
    return fk_primary_setflags(d, flags);
}

FK_EXPORT CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice d, unsigned int flags)
{
    ENTER();
    return fk_primary_setflags(d, flags);
}

static CUresult fk_ctx_create(CUcontext *pctx, unsigned flags, CUdevice d)
{
    if (!fk_inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fk_valid_dev(d))
        return CUDA_ERROR_INVALID_DEVICE;
    struct fk_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&fk_lock);
    int id = 0;
    if (fk_nctx < FK_MAX_CTX) {
        id = ++fk_nctx;
    } else {
        /* like the driver, a destroyed context's resources (and its handle) are reused: at most
         * FK_MAX_CTX contexts exist at once, any number over the process's life */
        for (int i = 1; i <= FK_MAX_CTX && !id; i++)
            if (!fk_ctxs[i]->primary && !fk_ctxs[i]->alive)
                id = i;
        if (!id) {
            pthread_mutex_unlock(&fk_lock);
            free(c);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        free(c);
        c = fk_ctxs[id];
    }
    *c = (struct fk_ctx){.magic = FK_MAGIC_CTX, .id = id, .ord = d, .alive = 1, .flags = flags};
    fk_ctxs[c->id] = c;
    pthread_mutex_unlock(&fk_lock);
    if (fk_depth < 32)
        fk_stack[fk_depth++] = c;
    *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice d)
{
    ENTER();
    return fk_ctx_create(pctx, flags, d);
}

FK_EXPORT CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *params, int n,
                                  unsigned int flags, CUdevice d)
{
    ENTER();
    (void)params;
    (void)n;
    return fk_ctx_create(pctx, flags, d);
}

FK_EXPORT CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *params, unsigned int flags,
                                  CUdevice d)
{
    ENTER();
    (void)params;
    return fk_ctx_create(pctx, flags, d);
}

FK_EXPORT CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    ENTER();
    NEED_INIT();
    struct fk_ctx *c = fk_ctx_of(ctx);
    if (!c || c->primary || !c->alive)
        return CUDA_ERROR_INVALID_CONTEXT;
    pthread_mutex_lock(&fk_lock);
    fk_teardown(c);
    c->alive = 0;
    pthread_mutex_unlock(&fk_lock);
    /* Destroying the calling thread's current context makes it non-current. */
    for (int i = 0; i < fk_depth; i++)
        if (fk_stack[i] == c) {
            memmove(&fk_stack[i], &fk_stack[i + 1], (size_t)(fk_depth - i - 1) * sizeof fk_stack[0]);
            fk_depth--;
            i--;
        }
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    ENTER();
    NEED_INIT();
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = (CUcontext)FK_CUR();
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
    ENTER();
    NEED_INIT();
    struct fk_ctx *c = fk_ctx_of(ctx);
    if (ctx && !c)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!c) {
        if (fk_depth > 0)
            fk_depth--;
        return CUDA_SUCCESS;
    }
    if (fk_depth == 0)
        fk_stack[fk_depth++] = c;
    else
        fk_stack[fk_depth - 1] = c;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    ENTER();
    NEED_INIT();
    struct fk_ctx *c = fk_ctx_of(ctx);
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (fk_depth >= 32)
        return CUDA_ERROR_INVALID_VALUE;
    fk_stack[fk_depth++] = c;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
    ENTER();
    NEED_INIT();
    if (fk_depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    struct fk_ctx *c = fk_stack[--fk_depth];
    if (pctx)
        *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuCtxGetDevice(CUdevice *d)
{
    ENTER();
    NEED_INIT();
    if (!d)
        return CUDA_ERROR_INVALID_VALUE;
    struct fk_ctx *c = FK_CUR();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    *d = c->ord;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuCtxGetDevice_v2(CUdevice *d, CUcontext ctx)
{
    ENTER();
    NEED_INIT();
    if (!d)
        return CUDA_ERROR_INVALID_VALUE;
    struct fk_ctx *c = ctx ? fk_ctx_of(ctx) : FK_CUR();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    *d = c->ord;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuCtxSynchronize(void)
{
    ENTER();
    NEED_INIT();
    return FK_CUR() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

FK_EXPORT CUresult cuCtxSynchronize_v2(CUcontext ctx)
{
    ENTER();
    NEED_INIT();
    return (ctx ? fk_ctx_of(ctx) : FK_CUR()) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

FK_EXPORT CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *v)
{
    ENTER();
    (void)ctx;
    if (!v)
        return CUDA_ERROR_INVALID_VALUE;
    *v = 13000;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuCtxGetFlags(unsigned int *flags)
{
    ENTER();
    NEED_INIT();
    struct fk_ctx *c = FK_CUR();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!flags)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = c->flags;
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Linear allocations                                                                         */

/* Allocates size bytes of kind in the current context; OOM checked against the device. */
static CUresult fk_alloc_linear(CUdeviceptr *dptr, size_t size, int kind, struct fk_ctx *c,
                                void **hostp)
{
    if (!fk_inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!dptr && !hostp)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fk_ctx_usable(c))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    int ord = (kind == CMT_KIND_HOST_PINNED) ? -1 : c->ord;
    int dev = fk_counts_on_device(kind);
    if (dev && !fk_reserve(ord, size))
        return CUDA_ERROR_OUT_OF_MEMORY;
    void *m = fk_mem(size);
    if (!m) {
        if (dev)
            fk_unreserve(ord, size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_lock(&fk_lock);
    struct fk_alloc *a = fk_insert((uintptr_t)m, CMT_SPACE_ADDR, kind, ord, size, c, m);
    if (a)
        fk_alloc_calls++;
    if (a && kind == CMT_KIND_MANAGED && ord >= 0) {
        atomic_fetch_add(&fk_managed[fk_phys(ord)], size);
        fk_note_high(fk_phys(ord));
    }
    fk_changed();
    pthread_mutex_unlock(&fk_lock);
    if (!a) {
        free(m);
        if (dev)
            fk_unreserve(ord, size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (dptr)
        *dptr = (CUdeviceptr)(uintptr_t)m;
    if (hostp)
        *hostp = m;
    return CUDA_SUCCESS;
}

/* Frees an ADDR-space allocation of one of the kinds in mask (bit per kind). */
static CUresult fk_free_linear(uintptr_t p, unsigned mask, CUresult notfound)
{
    if (!fk_inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!p)
        return CUDA_SUCCESS; /* cuMemFree(0) is a no-op success */
    pthread_mutex_lock(&fk_lock);
    struct fk_alloc **link;
    struct fk_alloc *a = fk_find(p, CMT_SPACE_ADDR, &link);
    if (a && a->kind == CMT_KIND_GRAPH && (mask & (1u << CMT_KIND_DEVICE))) {
        CUresult r = fk_graph_free(a, link) ? CUDA_SUCCESS : notfound;
        pthread_mutex_unlock(&fk_lock);
        return r;
    }
    if (!a || !(mask & (1u << a->kind)) || a->graph) {
        pthread_mutex_unlock(&fk_lock);
        return notfound;
    }
    *link = a->next;
    fk_free_calls++;
    fk_free_alloc_mem(a);
    free(a);
    fk_changed();
    pthread_mutex_unlock(&fk_lock);
    return CUDA_SUCCESS;
}

#define FK_DEVMASK                                                                                 \
    ((1u << CMT_KIND_DEVICE) | (1u << CMT_KIND_PITCH) | (1u << CMT_KIND_MANAGED) |                \
     (1u << CMT_KIND_ASYNC))

FK_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t size)
{
    ENTER();
    if (fk_fast) {
        CUresult r;
        if (!fk_inited)
            return CUDA_ERROR_NOT_INITIALIZED;
        if (!dptr)
            return CUDA_ERROR_INVALID_VALUE;
        if (fk_fast_alloc(dptr, size, &r))
            return r;
    }
    CUresult r = fk_alloc_linear(dptr, size, CMT_KIND_DEVICE, FK_CUR(), NULL);
    if (r == CUDA_SUCCESS)
        fk_gate_allocated();
    return r;
}

FK_EXPORT CUresult cuMemFree_v2(CUdeviceptr p)
{
    ENTER();
    if (fk_fast && fk_in_arena((uintptr_t)p))
        return fk_fast_free((uintptr_t)p);
    if ((fk_gate == 2 || fk_free_us > 0) && p) {
        pthread_mutex_lock(&fk_lock);
        struct fk_alloc **link;
        int live = fk_find((uintptr_t)p, CMT_SPACE_ADDR, &link) != NULL;
        pthread_mutex_unlock(&fk_lock);
        if (live)
            fk_gate_free_hold(); /* the memory is still allocated meanwhile */
    }
    return fk_free_linear((uintptr_t)p, FK_DEVMASK, CUDA_ERROR_INVALID_VALUE);
}

FK_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height,
                                      unsigned int elem)
{
    ENTER();
    if (!pitch || !width || !height || (elem != 4 && elem != 8 && elem != 16))
        return CUDA_ERROR_INVALID_VALUE;
    size_t p = (width + 511) & ~(size_t)511;
    CUresult r = fk_alloc_linear(dptr, p * height, CMT_KIND_PITCH, FK_CUR(), NULL);
    if (r == CUDA_SUCCESS)
        *pitch = p;
    return r;
}

FK_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t size, unsigned int flags)
{
    ENTER();
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)
        return CUDA_ERROR_INVALID_VALUE;
    return fk_alloc_linear(dptr, size, CMT_KIND_MANAGED, FK_CUR(), NULL);
}

FK_EXPORT CUresult cuMemHostAlloc(void **pp, size_t size, unsigned int flags)
{
    ENTER();
    (void)flags;
    return fk_alloc_linear(NULL, size, CMT_KIND_HOST_PINNED, FK_CUR(), pp);
}

FK_EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t size)
{
    ENTER();
    return fk_alloc_linear(NULL, size, CMT_KIND_HOST_PINNED, FK_CUR(), pp);
}

FK_EXPORT CUresult cuMemFreeHost(void *p)
{
    ENTER();
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    return fk_free_linear((uintptr_t)p, 1u << CMT_KIND_HOST_PINNED, CUDA_ERROR_INVALID_VALUE);
}

FK_EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *d, void *p, unsigned int flags)
{
    ENTER();
    NEED_INIT();
    if (!d || flags)
        return CUDA_ERROR_INVALID_VALUE;
    *d = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

static CUresult fk_host_register(void *p, size_t size, unsigned flags)
{
    (void)flags;
    if (!fk_inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!p || !size)
        return CUDA_ERROR_INVALID_VALUE;
    struct fk_ctx *c = FK_CUR();
    if (!fk_ctx_usable(c))
        return CUDA_ERROR_INVALID_CONTEXT;
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&fk_lock);
    struct fk_alloc *o = fk_find_range((uintptr_t)p);
    if (o && o->kind == CMT_KIND_HOST_REGISTERED)
        r = CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    else if (!fk_insert((uintptr_t)p, CMT_SPACE_ADDR, CMT_KIND_HOST_REGISTERED, -1, size, c, NULL))
        r = CUDA_ERROR_OUT_OF_MEMORY;
    else
        fk_alloc_calls++;
    fk_changed();
    pthread_mutex_unlock(&fk_lock);
    return r;
}

FK_EXPORT CUresult cuMemHostRegister(void *p, size_t size, unsigned int flags)
{
    ENTER();
    return fk_host_register(p, size, flags);
}

FK_EXPORT CUresult cuMemHostRegister_v2(void *p, size_t size, unsigned int flags)
{
    ENTER();
    return fk_host_register(p, size, flags);
}

FK_EXPORT CUresult cuMemHostUnregister(void *p)
{
    ENTER();
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    return fk_free_linear((uintptr_t)p, 1u << CMT_KIND_HOST_REGISTERED,
                          CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
}

FK_EXPORT CUresult cuMemGetInfo_v2(size_t *freeb, size_t *total)
{
    ENTER();
    NEED_INIT();
    struct fk_ctx *c = FK_CUR();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    size_t used = atomic_load(&fk_used[fk_phys(c->ord)]);
    if (freeb)
        *freeb = used < fk_mem_limit ? fk_mem_limit - used : 0;
    if (total)
        *total = fk_mem_limit;
    return CUDA_SUCCESS;
}

/* Start, size and owner of the allocation holding p. */
static int fk_lookup_range(uintptr_t p, uintptr_t *base, size_t *size, struct fk_alloc *out)
{
    int ord;
    if (fk_fast_range(p, base, size, &ord)) {
        *out = (struct fk_alloc){.key = *base, .kind = CMT_KIND_DEVICE, .ord = ord, .size = *size,
                                 .ctx = ord >= 0 ? &fk_prim[ord] : NULL};
        return 1;
    }
    pthread_mutex_lock(&fk_lock);
    struct fk_alloc *a = fk_find_range(p);
    if (a)
        *out = *a;
    struct fk_map *m = NULL;
    if (!a)
        for (m = fk_maps; m; m = m->next)
            if (p >= m->va && p < m->va + m->size)
                break;
    pthread_mutex_unlock(&fk_lock);
    if (a) {
        *base = a->key;
        *size = a->size;
        return 1;
    }
    if (m) {
        *out = (struct fk_alloc){.key = m->va, .kind = CMT_KIND_VMM, .ord = m->vmm->ord, .size = m->size};
        *base = m->va;
        *size = m->size;
        return 1;
    }
    return 0;
}

FK_EXPORT CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr p)
{
    ENTER();
    NEED_INIT();
    uintptr_t base;
    size_t size;
    struct fk_alloc a;
    if (!fk_lookup_range((uintptr_t)p, &base, &size, &a))
        return CUDA_ERROR_NOT_FOUND;
    if (pbase)
        *pbase = base;
    if (psize)
        *psize = size;
    return CUDA_SUCCESS;
}

static CUresult fk_pointer_attr(void *data, CUpointer_attribute attr, CUdeviceptr p)
{
    uintptr_t base = 0;
    size_t size = 0;
    struct fk_alloc a;
    int found = fk_lookup_range((uintptr_t)p, &base, &size, &a);
    if (!found && attr != CU_POINTER_ATTRIBUTE_MEMORY_TYPE && attr != CU_POINTER_ATTRIBUTE_MAPPED &&
        attr != CU_POINTER_ATTRIBUTE_IS_MANAGED)
        return CUDA_ERROR_INVALID_VALUE;
    int host = found && (a.kind == CMT_KIND_HOST_PINNED || a.kind == CMT_KIND_HOST_REGISTERED);
    switch (attr) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
        *(CUcontext *)data = (CUcontext)a.ctx;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        if (!found)
            return CUDA_ERROR_INVALID_VALUE;
        *(CUmemorytype *)data = host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        *(CUdeviceptr *)data = p;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if (!host && a.kind != CMT_KIND_MANAGED)
            return CUDA_ERROR_INVALID_VALUE;
        *(void **)data = (void *)(uintptr_t)p;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *(unsigned *)data = found && a.kind == CMT_KIND_MANAGED;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = a.ord >= 0 ? a.ord : (a.ctx ? a.ctx->ord : -1);
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        *(CUdeviceptr *)data = base;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
        *(size_t *)data = size;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPED:
        *(unsigned *)data = found;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
        *(unsigned long long *)data = base;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
        *(CUmemoryPool *)data = (CUmemoryPool)a.pool;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
        *(unsigned *)data = a.kind == CMT_KIND_DEVICE;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

FK_EXPORT CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attr, CUdeviceptr p)
{
    ENTER();
    NEED_INIT();
    if (!data)
        return CUDA_ERROR_INVALID_VALUE;
    return fk_pointer_attr(data, attr, p);
}

FK_EXPORT CUresult cuPointerGetAttributes(unsigned int n, CUpointer_attribute *attrs, void **data,
                                          CUdeviceptr p)
{
    ENTER();
    NEED_INIT();
    if (!attrs || !data)
        return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < n; i++)
        if (data[i] && fk_pointer_attr(data[i], attrs[i], p) != CUDA_SUCCESS)
            memset(data[i], 0, attrs[i] == CU_POINTER_ATTRIBUTE_CONTEXT ? sizeof(void *) : sizeof(int));
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Copies and sets (all memory is host memory)                                                 */

#define FK_COPY_BODY(dst, src, n)                                                                  \
    do {                                                                                           \
        NEED_INIT();                                                                               \
        if ((n) && (!(dst) || !(src)))                                                             \
            return CUDA_ERROR_INVALID_VALUE;                                                       \
        if (n)                                                                                     \
            memmove((void *)(uintptr_t)(dst), (const void *)(uintptr_t)(src), (n));                \
        return CUDA_SUCCESS;                                                                       \
    } while (0)

FK_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) { ENTER(); FK_COPY_BODY(d, s, n); }
FK_EXPORT CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) { ENTER(); FK_COPY_BODY(d, s, n); }
FK_EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n) { ENTER(); FK_COPY_BODY(d, s, n); }
FK_EXPORT CUresult cuMemcpy(CUdeviceptr d, CUdeviceptr s, size_t n) { ENTER(); FK_COPY_BODY(d, s, n); }
FK_EXPORT CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr d, const void *s, size_t n) { ENTER(); FK_COPY_BODY(d, s, n); }
FK_EXPORT CUresult cuMemcpyDtoH_v2_ptds(void *d, CUdeviceptr s, size_t n) { ENTER(); FK_COPY_BODY(d, s, n); }
FK_EXPORT CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr d, CUdeviceptr s, size_t n) { ENTER(); FK_COPY_BODY(d, s, n); }
FK_EXPORT CUresult cuMemcpy_ptds(CUdeviceptr d, CUdeviceptr s, size_t n) { ENTER(); FK_COPY_BODY(d, s, n); }
FK_EXPORT CUresult cuMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) { ENTER(); (void)st; FK_COPY_BODY(d, s, n); }
FK_EXPORT CUresult cuMemcpyAsync_ptsz(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) { ENTER(); (void)st; FK_COPY_BODY(d, s, n); }
FK_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, CUstream st) { ENTER(); (void)st; FK_COPY_BODY(d, s, n); }
FK_EXPORT CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr d, const void *s, size_t n, CUstream st) { ENTER(); (void)st; FK_COPY_BODY(d, s, n); }
FK_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, CUstream st) { ENTER(); (void)st; FK_COPY_BODY(d, s, n); }
FK_EXPORT CUresult cuMemcpyDtoHAsync_v2_ptsz(void *d, CUdeviceptr s, size_t n, CUstream st) { ENTER(); (void)st; FK_COPY_BODY(d, s, n); }

#define FK_SET_BODY(d, v, n)                                                                       \
    do {                                                                                           \
        NEED_INIT();                                                                               \
        if ((n) && !(d))                                                                           \
            return CUDA_ERROR_INVALID_VALUE;                                                       \
        memset((void *)(uintptr_t)(d), (v), (n));                                                  \
        return CUDA_SUCCESS;                                                                       \
    } while (0)

FK_EXPORT CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) { ENTER(); FK_SET_BODY(d, v, n); }
FK_EXPORT CUresult cuMemsetD8_v2_ptds(CUdeviceptr d, unsigned char v, size_t n) { ENTER(); FK_SET_BODY(d, v, n); }
FK_EXPORT CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) { ENTER(); (void)s; FK_SET_BODY(d, v, n); }
FK_EXPORT CUresult cuMemsetD8Async_ptsz(CUdeviceptr d, unsigned char v, size_t n, CUstream s) { ENTER(); (void)s; FK_SET_BODY(d, v, n); }

/* ------------------------------------------------------------------------------------------ */
/* Streams, events, capture, graphs                                                           */

/* Live streams, and destroyed ones whose handles the next creates hand out again, the last
 * destroyed first (a real driver reuses stream handles too). */
static struct fk_stream *fk_streams, *fk_stream_free;

static CUresult fk_stream_create(CUstream *ps)
{
    if (!fk_inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!ps)
        return CUDA_ERROR_INVALID_VALUE;
    struct fk_ctx *c = FK_CUR();
    if (!fk_ctx_usable(c))
        return CUDA_ERROR_INVALID_CONTEXT;
    pthread_mutex_lock(&fk_lock);
    struct fk_stream *s = fk_stream_free;
    if (s)
        fk_stream_free = s->next;
    else
        s = malloc(sizeof *s);
    if (s) {
        *s = (struct fk_stream){.magic = FK_MAGIC_STREAM, .ctx = c, .next = fk_streams};
        fk_streams = s;
    }
    pthread_mutex_unlock(&fk_lock);
    if (!s)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *ps = (CUstream)s;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuStreamCreate(CUstream *ps, unsigned int flags)
{
    ENTER();
    (void)flags;
    return fk_stream_create(ps);
}

FK_EXPORT CUresult cuStreamCreateWithPriority(CUstream *ps, unsigned int flags, int prio)
{
    ENTER();
    (void)flags;
    (void)prio;
    return fk_stream_create(ps);
}

static CUresult fk_stream_destroy(CUstream s)
{
    NEED_INIT();
    pthread_mutex_lock(&fk_lock);
    struct fk_stream *st = fk_stream_of(s);
    struct fk_stream **link = &fk_streams;
    while (st && *link != st)
        link = &(*link)->next;
    if (!st) {
        pthread_mutex_unlock(&fk_lock);
        return CUDA_ERROR_INVALID_HANDLE;
    }
    *link = st->next;
    st->magic = 0;
    st->next = fk_stream_free;
    fk_stream_free = st;
    pthread_mutex_unlock(&fk_lock);
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuStreamDestroy(CUstream s) { ENTER(); return fk_stream_destroy(s); }
FK_EXPORT CUresult cuStreamDestroy_v2(CUstream s) { ENTER(); return fk_stream_destroy(s); }

static CUresult fk_stream_sync(CUstream s)
{
    if (!fk_inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    struct fk_stream *st = fk_stream_of(s);
    if (s && (uintptr_t)s > 2 && !st)
        return CUDA_ERROR_INVALID_HANDLE;
    if (st && st->capturing)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    return fk_stream_ctx(s) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

FK_EXPORT CUresult cuStreamSynchronize(CUstream s) { ENTER(); return fk_stream_sync(s); }
FK_EXPORT CUresult cuStreamSynchronize_ptsz(CUstream s) { ENTER(); return fk_stream_sync(s); }
FK_EXPORT CUresult cuStreamQuery(CUstream s) { ENTER(); return fk_stream_sync(s); }
FK_EXPORT CUresult cuStreamQuery_ptsz(CUstream s) { ENTER(); return fk_stream_sync(s); }

static CUresult fk_stream_getctx(CUstream s, CUcontext *pc)
{
    if (!fk_inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pc)
        return CUDA_ERROR_INVALID_VALUE;
    struct fk_ctx *c = fk_stream_ctx(s);
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    *pc = (CUcontext)c;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuStreamGetCtx(CUstream s, CUcontext *pc) { ENTER(); return fk_stream_getctx(s, pc); }
FK_EXPORT CUresult cuStreamGetCtx_ptsz(CUstream s, CUcontext *pc) { ENTER(); return fk_stream_getctx(s, pc); }

/* Sets a capturing stream's dependencies to deps[0..n) (fk_lock held); 0: out of memory. */
static int fk_cdeps_set(struct fk_stream *st, struct fk_gnode *const *deps, int n)
{
    st->ncdeps = 0;
    for (int i = 0; i < n; i++) {
        if (!fk_grow((void **)&st->cdeps, &st->capcdeps, st->ncdeps, sizeof *st->cdeps))
            return 0;
        st->cdeps[st->ncdeps++] = deps[i];
    }
    return 1;
}

/* A node made by an operation captured on st: it depends on the stream's dependencies and is
 * then the stream's only one (fk_lock held). */
static struct fk_gnode *fk_capture_node(struct fk_stream *st, CUgraphNodeType type)
{
    struct fk_gnode *n = fk_gnode_add(st->graph, type, (const CUgraphNode *)st->cdeps, (size_t)st->ncdeps);
    if (n && !fk_cdeps_set(st, &n, 1))
        return NULL;
    return n;
}

/* Begins a capture into graph into (NULL: a new graph), depending on deps[0..ndeps). */
static CUresult fk_begin_capture_into(CUstream s, struct fk_graph *into, const CUgraphNode *deps, size_t ndeps)
{
    if (!fk_inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    struct fk_stream *st = fk_stream_of(s);
    if (!st)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED; /* the legacy / per-thread stream */
    CUresult rc = CUDA_SUCCESS;
    struct fk_graph *g = NULL;
    pthread_mutex_lock(&fk_lock); /* as fk_end_capture and fk_stream_wait_event write capturing/graph */
    if (st->capturing)
        rc = CUDA_ERROR_ILLEGAL_STATE;
    else if (!(g = into ? into : calloc(1, sizeof *g)))
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    else {
        g->magic = FK_MAGIC_GRAPH;
        st->graph = g;
        st->capturing = 1;
        for (size_t i = 0; i < ndeps; i++) {
            struct fk_gnode *d = fk_gnode_of(deps[i]);
            if (!d || d->g != g)
                rc = CUDA_ERROR_INVALID_VALUE;
        }
        if (rc != CUDA_SUCCESS || !fk_cdeps_set(st, (struct fk_gnode *const *)deps, (int)ndeps)) {
            rc = rc != CUDA_SUCCESS ? rc : CUDA_ERROR_OUT_OF_MEMORY;
            st->capturing = 0;
            st->graph = NULL;
            if (!into)
                free(g);
        }
    }
    pthread_mutex_unlock(&fk_lock);
    return rc;
}

static CUresult fk_begin_capture(CUstream s) { return fk_begin_capture_into(s, NULL, NULL, 0); }

static CUresult fk_begin_capture_to_graph(CUstream s, CUgraph g, const CUgraphNode *deps,
                                          const CUgraphEdgeData *data, size_t n, CUstreamCaptureMode m)
{
    (void)data;
    (void)m;
    struct fk_graph *gr = (struct fk_graph *)g;
    if (!gr || gr->magic != FK_MAGIC_GRAPH || (n && !deps))
        return CUDA_ERROR_INVALID_VALUE;
    return fk_begin_capture_into(s, gr, deps, n);
}

FK_EXPORT CUresult cuStreamBeginCapture(CUstream s) { ENTER(); return fk_begin_capture(s); }
FK_EXPORT CUresult cuStreamBeginCapture_ptsz(CUstream s) { ENTER(); return fk_begin_capture(s); }
FK_EXPORT CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode m) { ENTER(); (void)m; return fk_begin_capture(s); }
FK_EXPORT CUresult cuStreamBeginCapture_v2_ptsz(CUstream s, CUstreamCaptureMode m) { ENTER(); (void)m; return fk_begin_capture(s); }
FK_EXPORT CUresult cuStreamBeginCaptureToGraph(CUstream s, CUgraph g, const CUgraphNode *deps, const CUgraphEdgeData *data, size_t n, CUstreamCaptureMode m) { ENTER(); return fk_begin_capture_to_graph(s, g, deps, data, n, m); }
FK_EXPORT CUresult cuStreamBeginCaptureToGraph_ptsz(CUstream s, CUgraph g, const CUgraphNode *deps, const CUgraphEdgeData *data, size_t n, CUstreamCaptureMode m) { ENTER(); return fk_begin_capture_to_graph(s, g, deps, data, n, m); }

static CUresult fk_end_capture(CUstream s, CUgraph *pg)
{
    if (!fk_inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    struct fk_stream *st = fk_stream_of(s);
    if (!pg)
        return CUDA_ERROR_INVALID_VALUE;
    if (!st || !st->capturing)
        return CUDA_ERROR_ILLEGAL_STATE;
    if (st->joined)
        return CUDA_ERROR_STREAM_CAPTURE_UNMATCHED; /* ended by the stream that began it */
    *pg = (CUgraph)st->graph;
    pthread_mutex_lock(&fk_lock);
    for (struct fk_stream *j = fk_streams; j; j = j->next) /* the joined streams leave it too */
        if (j != st && j->joined && j->graph == st->graph) {
            j->capturing = j->joined = 0;
            j->graph = NULL;
            j->ncdeps = 0;
        }
    st->capturing = 0;
    st->graph = NULL;
    st->ncdeps = 0;
    pthread_mutex_unlock(&fk_lock);
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuStreamEndCapture(CUstream s, CUgraph *pg) { ENTER(); return fk_end_capture(s, pg); }
FK_EXPORT CUresult cuStreamEndCapture_ptsz(CUstream s, CUgraph *pg) { ENTER(); return fk_end_capture(s, pg); }

static CUresult fk_is_capturing(CUstream s, CUstreamCaptureStatus *cs)
{
    if (!fk_inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!cs)
        return CUDA_ERROR_INVALID_VALUE;
    struct fk_stream *st = fk_stream_of(s);
    *cs = st && st->capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus *cs) { ENTER(); return fk_is_capturing(s, cs); }
FK_EXPORT CUresult cuStreamIsCapturing_ptsz(CUstream s, CUstreamCaptureStatus *cs) { ENTER(); return fk_is_capturing(s, cs); }

#include "fakecuda_graph.c" /* graphs: see that file */

FK_EXPORT CUresult cuEventCreate(CUevent *pe, unsigned int flags)
{
    ENTER();
    NEED_INIT();
    (void)flags;
    if (!pe)
        return CUDA_ERROR_INVALID_VALUE;
    struct fk_event *e = calloc(1, sizeof *e);
    if (!e)
        return CUDA_ERROR_OUT_OF_MEMORY;
    e->magic = FK_MAGIC_EVENT;
    *pe = (CUevent)e;
    return CUDA_SUCCESS;
}

static struct fk_event *fk_event_of(CUevent e)
{
    struct fk_event *ev = (struct fk_event *)e;
    return ev && ev->magic == FK_MAGIC_EVENT ? ev : NULL;
}

FK_EXPORT CUresult cuEventDestroy_v2(CUevent e)
{
    ENTER();
    NEED_INIT();
    struct fk_event *ev = fk_event_of(e);
    if (!ev)
        return CUDA_ERROR_INVALID_HANDLE;
    ev->magic = 0;
    free(ev->deps);
    free(ev);
    return CUDA_SUCCESS;
}

/* Recorded in a capturing stream, the event is a node of that capture: a stream that waits on it
 * joins the capture (cross-stream dependencies), until the capture ends: only while the recording
 * stream is alive and still capturing into the same graph (streams are recycled, never freed, so
 * ev->src stays readable after a destroy). */
static CUresult fk_event_record(CUevent e, CUstream s)
{
    NEED_INIT();
    struct fk_event *ev = fk_event_of(e);
    if (!ev)
        return CUDA_ERROR_INVALID_HANDLE;
    struct fk_stream *st = fk_stream_of(s);
    pthread_mutex_lock(&fk_lock);
    ev->src = st && st->capturing ? st : NULL;
    ev->capture = ev->src ? st->graph : NULL;
    ev->ndeps = 0;
    if (ev->src && st->ncdeps) {
        struct fk_gnode **d = realloc(ev->deps, (size_t)st->ncdeps * sizeof *d);
        if (d) {
            memcpy(d, st->cdeps, (size_t)st->ncdeps * sizeof *d);
            ev->deps = d;
            ev->ndeps = st->ncdeps;
        }
    }
    pthread_mutex_unlock(&fk_lock);
    return CUDA_SUCCESS;
}

static CUresult fk_stream_wait_event(CUstream s, CUevent e)
{
    NEED_INIT();
    struct fk_event *ev = fk_event_of(e);
    if (!ev)
        return CUDA_ERROR_INVALID_HANDLE;
    struct fk_stream *st = fk_stream_of(s);
    pthread_mutex_lock(&fk_lock);
    struct fk_stream *src = ev->src;
    if (ev->capture && src && src->magic == FK_MAGIC_STREAM && src->capturing && src->graph == ev->capture && st &&
        !st->capturing) {
        st->graph = ev->capture;
        st->capturing = st->joined = 1;
        fk_cdeps_set(st, ev->deps, ev->ndeps); /* its next operation follows the recorded ones */
    } else if (ev->capture && st && st->capturing && st->graph == ev->capture) {
        for (int i = 0; i < ev->ndeps; i++) { /* and the event's, within the same capture */
            int k = 0;
            while (k < st->ncdeps && st->cdeps[k] != ev->deps[i])
                k++;
            if (k == st->ncdeps && fk_grow((void **)&st->cdeps, &st->capcdeps, st->ncdeps, sizeof *st->cdeps))
                st->cdeps[st->ncdeps++] = ev->deps[i];
        }
    }
    pthread_mutex_unlock(&fk_lock);
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuEventRecord(CUevent e, CUstream s) { ENTER(); return fk_event_record(e, s); }
FK_EXPORT CUresult cuEventRecord_ptsz(CUevent e, CUstream s) { ENTER(); return fk_event_record(e, s); }
FK_EXPORT CUresult cuEventSynchronize(CUevent e) { ENTER(); NEED_INIT(); return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE; }
FK_EXPORT CUresult cuEventQuery(CUevent e) { ENTER(); NEED_INIT(); return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE; }
FK_EXPORT CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int f) { ENTER(); (void)f; return fk_stream_wait_event(s, e); }
FK_EXPORT CUresult cuStreamWaitEvent_ptsz(CUstream s, CUevent e, unsigned int f) { ENTER(); (void)f; return fk_stream_wait_event(s, e); }

/* ------------------------------------------------------------------------------------------ */
/* Memory pools and stream-ordered allocation                                                 */

FK_EXPORT CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice d)
{
    ENTER();
    NEED_INIT();
    if (!pool)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fk_valid_dev(d))
        return CUDA_ERROR_INVALID_DEVICE;
    *pool = (CUmemoryPool)&fk_default_pool[d];
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice d)
{
    ENTER();
    NEED_INIT();
    if (!pool)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fk_valid_dev(d))
        return CUDA_ERROR_INVALID_DEVICE;
    *pool = (CUmemoryPool)fk_cur_pool[d];
    return CUDA_SUCCESS;
}

static struct fk_pool *fk_pool_of(CUmemoryPool p)
{
    struct fk_pool *x = (struct fk_pool *)p;
    return x && x->magic == FK_MAGIC_POOL ? x : NULL;
}

FK_EXPORT CUresult cuDeviceSetMemPool(CUdevice d, CUmemoryPool pool)
{
    ENTER();
    NEED_INIT();
    struct fk_pool *p = fk_pool_of(pool);
    if (!fk_valid_dev(d))
        return CUDA_ERROR_INVALID_DEVICE;
    if (!p || p->loc_type != CU_MEM_LOCATION_TYPE_DEVICE || p->loc_id != d)
        return CUDA_ERROR_INVALID_VALUE;
    fk_cur_pool[d] = p;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props)
{
    ENTER();
    NEED_INIT();
    if (!pool || !props)
        return CUDA_ERROR_INVALID_VALUE;
    CUmemLocationType t = props->location.type;
    if (t == CU_MEM_LOCATION_TYPE_DEVICE) {
        if (!fk_valid_dev(props->location.id))
            return CUDA_ERROR_INVALID_DEVICE;
    } else if (t != CU_MEM_LOCATION_TYPE_HOST && t != CU_MEM_LOCATION_TYPE_HOST_NUMA &&
               t != CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT)
        return CUDA_ERROR_INVALID_VALUE;
    struct fk_pool *p = calloc(1, sizeof *p);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    p->magic = FK_MAGIC_POOL;
    p->loc_type = t;
    p->loc_id = t == CU_MEM_LOCATION_TYPE_DEVICE ? props->location.id : -1;
    *pool = (CUmemoryPool)p;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
    ENTER();
    NEED_INIT();
    struct fk_pool *p = fk_pool_of(pool);
    if (!p || p == &fk_default_pool[p->loc_id >= 0 ? p->loc_id : 0])
        return CUDA_ERROR_INVALID_VALUE;
    /* Like the real driver, outstanding allocations stay valid; the pool object is kept. */
    pthread_mutex_lock(&fk_lock);
    for (int d = 0; d < fk_ndev; d++)
        if (fk_cur_pool[d] == p)
            fk_cur_pool[d] = &fk_default_pool[d];
    pthread_mutex_unlock(&fk_lock);
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t keep)
{
    ENTER();
    NEED_INIT();
    (void)keep;
    return fk_pool_of(pool) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static CUresult fk_alloc_async(CUdeviceptr *dptr, size_t size, struct fk_pool *pool, CUstream s)
{
    if (!fk_inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!dptr || !size)
        return CUDA_ERROR_INVALID_VALUE;
    struct fk_stream *st = fk_stream_of(s);
    if (s && (uintptr_t)s > 2 && !st)
        return CUDA_ERROR_INVALID_HANDLE;
    struct fk_ctx *c = fk_stream_ctx(s);
    if (!fk_ctx_usable(c))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!pool)
        pool = fk_cur_pool[c->ord];
    int ord = pool->loc_type == CU_MEM_LOCATION_TYPE_DEVICE ? pool->loc_id : -1;
    struct fk_graph *g = st && st->capturing ? st->graph : NULL;
    if (!g && !fk_reserve(ord, size))
        return CUDA_ERROR_OUT_OF_MEMORY;
    void *m = fk_mem(size);
    if (!m) {
        if (!g)
            fk_unreserve(ord, size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_lock(&fk_lock);
    /* Device-located pool memory belongs to that device's primary context (a teardown of it ends
     * the allocation); host-located pools outlive contexts. */
    struct fk_alloc *a = g ? fk_insert((uintptr_t)m, CMT_SPACE_ADDR, CMT_KIND_GRAPH, ord, size, NULL, m)
                           : fk_insert((uintptr_t)m, CMT_SPACE_ADDR, CMT_KIND_ASYNC, ord, size,
                                       ord >= 0 ? (c->ord == ord ? c : &fk_prim[ord]) : NULL, m);
    if (a) {
        a->pool = pool;
        a->graph = g;
        if (!g) {
            fk_alloc_calls++;
        } else {
            struct fk_gnode *n = fk_capture_node(st, CU_GRAPH_NODE_TYPE_MEM_ALLOC);
            if (n) { /* an alloc node of the capture */
                n->alloc = a;
                a->owners = 1;
            } else {
                struct fk_alloc **link = NULL;
                if (fk_find(a->key, a->space, &link) == a && link)
                    *link = a->next;
                free(a);
                a = NULL;
            }
        }
    }
    fk_changed();
    pthread_mutex_unlock(&fk_lock);
    if (!a) {
        free(m);
        if (!g)
            fk_unreserve(ord, size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *dptr = (CUdeviceptr)(uintptr_t)m;
    return CUDA_SUCCESS;
}

static CUresult fk_free_async(CUdeviceptr p, CUstream s)
{
    if (!fk_inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    struct fk_stream *st = fk_stream_of(s);
    if (fk_fast && fk_in_arena((uintptr_t)p))
        return fk_fast_free((uintptr_t)p);
    pthread_mutex_lock(&fk_lock);
    struct fk_alloc **link;
    struct fk_alloc *a = fk_find((uintptr_t)p, CMT_SPACE_ADDR, &link);
    if (!a || !((FK_DEVMASK | 1u << CMT_KIND_GRAPH) & (1u << a->kind))) {
        pthread_mutex_unlock(&fk_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (st && st->capturing) {
        /* A free node in the graph: the memory is freed when the graph runs, not now. It "must
         * therefore be passed the address of a graph allocation", freed once in a graph. */
        struct fk_gnode *n = a->kind == CMT_KIND_GRAPH && !fk_graph_find_free(st->graph, (uintptr_t)p)
                                 ? fk_capture_node(st, CU_GRAPH_NODE_TYPE_MEM_FREE)
                                 : NULL;
        if (n)
            n->dptr = (uintptr_t)p;
        pthread_mutex_unlock(&fk_lock);
        return n ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    }
    if (a->kind == CMT_KIND_GRAPH) {
        CUresult r = fk_graph_free(a, link) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
        pthread_mutex_unlock(&fk_lock);
        return r;
    }
    *link = a->next;
    if (!a->graph)
        fk_free_calls++;
    fk_free_alloc_mem(a);
    free(a);
    fk_changed();
    pthread_mutex_unlock(&fk_lock);
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *d, size_t n, CUstream s) { ENTER(); return fk_alloc_async(d, n, NULL, s); }
FK_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *d, size_t n, CUstream s) { ENTER(); return fk_alloc_async(d, n, NULL, s); }
FK_EXPORT CUresult cuMemFreeAsync(CUdeviceptr p, CUstream s) { ENTER(); return fk_free_async(p, s); }
FK_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr p, CUstream s) { ENTER(); return fk_free_async(p, s); }

FK_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *d, size_t n, CUmemoryPool pool, CUstream s)
{
    ENTER();
    struct fk_pool *p = fk_pool_of(pool);
    return p ? fk_alloc_async(d, n, p, s) : CUDA_ERROR_INVALID_VALUE;
}

FK_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *d, size_t n, CUmemoryPool pool, CUstream s)
{
    ENTER();
    struct fk_pool *p = fk_pool_of(pool);
    return p ? fk_alloc_async(d, n, p, s) : CUDA_ERROR_INVALID_VALUE;
}

/* ------------------------------------------------------------------------------------------ */
/* Virtual memory management                                                                  */

#define FK_VMM_GRAN ((size_t)2 << 20)

FK_EXPORT CUresult cuMemGetAllocationGranularity(size_t *g, const CUmemAllocationProp *prop,
                                                 CUmemAllocationGranularity_flags opt)
{
    ENTER();
    NEED_INIT();
    (void)opt;
    if (!g || !prop)
        return CUDA_ERROR_INVALID_VALUE;
    *g = FK_VMM_GRAN;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t align, CUdeviceptr addr,
                                       unsigned long long flags)
{
    ENTER();
    NEED_INIT();
    (void)addr;
    (void)flags;
    if (!ptr || !size || size % FK_VMM_GRAN)
        return CUDA_ERROR_INVALID_VALUE;
    if (align < FK_VMM_GRAN)
        align = FK_VMM_GRAN;
    size_t len = size + align;
    void *b = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (b == MAP_FAILED)
        return CUDA_ERROR_OUT_OF_MEMORY;
    uintptr_t va = ((uintptr_t)b + align - 1) & ~(uintptr_t)(align - 1);
    struct fk_resv *r = calloc(1, sizeof *r);
    if (!r) {
        munmap(b, len);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *r = (struct fk_resv){.va = va, .size = size, .base = b, .maplen = len};
    pthread_mutex_lock(&fk_lock);
    r->next = fk_resvs;
    fk_resvs = r;
    pthread_mutex_unlock(&fk_lock);
    *ptr = (CUdeviceptr)va;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    ENTER();
    NEED_INIT();
    pthread_mutex_lock(&fk_lock);
    for (struct fk_resv **pp = &fk_resvs; *pp; pp = &(*pp)->next)
        if ((*pp)->va == (uintptr_t)ptr && (*pp)->size == size) {
            struct fk_resv *r = *pp;
            for (struct fk_map *m = fk_maps; m; m = m->next)
                if (m->va >= r->va && m->va < r->va + r->size) {
                    pthread_mutex_unlock(&fk_lock);
                    return CUDA_ERROR_ILLEGAL_STATE; /* still mapped */
                }
            *pp = r->next;
            pthread_mutex_unlock(&fk_lock);
            munmap(r->base, r->maplen);
            free(r);
            return CUDA_SUCCESS;
        }
    pthread_mutex_unlock(&fk_lock);
    return CUDA_ERROR_INVALID_VALUE;
}

static struct fk_vmm *fk_vmm_of(CUmemGenericAllocationHandle h, struct fk_alloc ***link)
{
    struct fk_alloc *a = fk_find((uintptr_t)h, CMT_SPACE_VMM, link);
    return a ? a->obj : NULL;
}

/* Drops one reference; the physical memory ends with the last. Caller holds fk_lock. */
static void fk_vmm_unref(CUmemGenericAllocationHandle h)
{
    struct fk_alloc **link;
    struct fk_vmm *v = fk_vmm_of(h, &link);
    if (!v || --v->refs > 0)
        return;
    struct fk_alloc *a = *link;
    *link = a->next;
    if (!v->imported)
        fk_unreserve(a->ord, a->size);
    close(v->fd);
    free(v);
    free(a);
}

FK_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                               const CUmemAllocationProp *prop, unsigned long long flags)
{
    ENTER();
    NEED_INIT();
    if (!handle || !prop || flags || !size || size % FK_VMM_GRAN)
        return CUDA_ERROR_INVALID_VALUE;
    int ord;
    if (prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE) {
        if (!fk_valid_dev(prop->location.id))
            return CUDA_ERROR_INVALID_DEVICE;
        ord = prop->location.id;
    } else if (prop->location.type == CU_MEM_LOCATION_TYPE_HOST ||
               prop->location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA ||
               prop->location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT)
        ord = -1;
    else
        return CUDA_ERROR_INVALID_VALUE;
    if (!fk_reserve(ord, size))
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct fk_vmm *v = calloc(1, sizeof *v);
    int fd = memfd_create("fakecuda-vmm", MFD_CLOEXEC);
    if (!v || fd < 0 || ftruncate(fd, (off_t)size) != 0) {
        free(v);
        if (fd >= 0)
            close(fd);
        fk_unreserve(ord, size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *v = (struct fk_vmm){.size = size, .ord = ord, .fd = fd, .refs = 1,
                         .handle_types = (unsigned)prop->requestedHandleTypes};
    pthread_mutex_lock(&fk_lock);
    struct fk_alloc *a = fk_insert((uintptr_t)v, CMT_SPACE_VMM, CMT_KIND_VMM, ord, size, NULL, NULL);
    if (a) {
        a->obj = v;
        fk_alloc_calls++;
    }
    fk_changed();
    pthread_mutex_unlock(&fk_lock);
    if (!a) {
        close(fd);
        free(v);
        fk_unreserve(ord, size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *handle = (CUmemGenericAllocationHandle)(uintptr_t)v;
    fk_gate_set(0, 1, 1);
    fk_gate_allocated();
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle h)
{
    ENTER();
    NEED_INIT();
    pthread_mutex_lock(&fk_lock);
    struct fk_vmm *v = fk_vmm_of(h, NULL);
    pthread_mutex_unlock(&fk_lock);
    if (v)
        fk_gate_free_hold(); /* FAKECUDA_GATE=free: the memory is still allocated meanwhile */
    pthread_mutex_lock(&fk_lock);
    v = fk_vmm_of(h, NULL);
    if (!v) {
        pthread_mutex_unlock(&fk_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    fk_free_calls++;
    fk_vmm_unref(h);
    fk_changed();
    pthread_mutex_unlock(&fk_lock);
    fk_gate_set(2, 3, 0);
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                            CUmemGenericAllocationHandle h, unsigned long long flags)
{
    ENTER();
    NEED_INIT();
    if (flags || !size || size % FK_VMM_GRAN || offset % FK_VMM_GRAN)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fk_lock);
    struct fk_vmm *v = fk_vmm_of(h, NULL);
    CUresult r = CUDA_SUCCESS;
    struct fk_resv *rv = fk_resvs;
    for (; rv; rv = rv->next)
        if ((uintptr_t)ptr >= rv->va && (uintptr_t)ptr + size <= rv->va + rv->size)
            break;
    if (!v || offset + size > v->size || !rv)
        r = CUDA_ERROR_INVALID_VALUE;
    for (struct fk_map *m = fk_maps; r == CUDA_SUCCESS && m; m = m->next)
        if ((uintptr_t)ptr < m->va + m->size && m->va < (uintptr_t)ptr + size)
            r = CUDA_ERROR_INVALID_VALUE; /* overlaps an existing mapping */
    struct fk_map *m = NULL;
    if (r == CUDA_SUCCESS) {
        m = calloc(1, sizeof *m);
        if (!m || mmap((void *)(uintptr_t)ptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                       v->fd, (off_t)offset) == MAP_FAILED) {
            free(m);
            r = CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    if (r == CUDA_SUCCESS) {
        *m = (struct fk_map){.next = fk_maps, .va = (uintptr_t)ptr, .size = size, .vmm = v};
        fk_maps = m;
        v->refs++;
    }
    pthread_mutex_unlock(&fk_lock);
    return r;
}

FK_EXPORT CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    ENTER();
    NEED_INIT();
    int n = 0;
    pthread_mutex_lock(&fk_lock);
    struct fk_map **pp = &fk_maps;
    while (*pp) {
        struct fk_map *m = *pp;
        if (m->va >= (uintptr_t)ptr && m->va + m->size <= (uintptr_t)ptr + size) {
            *pp = m->next;
            mmap((void *)m->va, m->size, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
            fk_vmm_unref((CUmemGenericAllocationHandle)(uintptr_t)m->vmm);
            free(m);
            n++;
        } else
            pp = &m->next;
    }
    if (n)
        fk_changed();
    pthread_mutex_unlock(&fk_lock);
    return n ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

FK_EXPORT CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
    ENTER();
    NEED_INIT();
    if (!desc || !count || !size)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < count; i++)
        if (desc[i].location.type == CU_MEM_LOCATION_TYPE_DEVICE && !fk_valid_dev(desc[i].location.id))
            return CUDA_ERROR_INVALID_DEVICE;
    size_t covered = 0;
    pthread_mutex_lock(&fk_lock);
    for (struct fk_map *m = fk_maps; m; m = m->next)
        if (m->va >= (uintptr_t)ptr && m->va + m->size <= (uintptr_t)ptr + size)
            covered += m->size;
    pthread_mutex_unlock(&fk_lock);
    return covered == size ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

FK_EXPORT CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *h, void *addr)
{
    ENTER();
    NEED_INIT();
    if (!h)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fk_lock);
    for (struct fk_map *m = fk_maps; m; m = m->next)
        if ((uintptr_t)addr >= m->va && (uintptr_t)addr < m->va + m->size) {
            m->vmm->refs++;
            *h = (CUmemGenericAllocationHandle)(uintptr_t)m->vmm;
            r = CUDA_SUCCESS;
            break;
        }
    pthread_mutex_unlock(&fk_lock);
    return r;
}

FK_EXPORT CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                                          CUmemGenericAllocationHandle h)
{
    ENTER();
    NEED_INIT();
    if (!prop)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fk_lock);
    struct fk_vmm *v = fk_vmm_of(h, NULL);
    int ord = v ? v->ord : 0;
    pthread_mutex_unlock(&fk_lock);
    if (!v)
        return CUDA_ERROR_INVALID_VALUE;
    memset(prop, 0, sizeof *prop);
    prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop->location.type = ord >= 0 ? CU_MEM_LOCATION_TYPE_DEVICE : CU_MEM_LOCATION_TYPE_HOST;
    prop->location.id = ord >= 0 ? ord : 0;
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Arrays                                                                                     */

static size_t fk_format_size(CUarray_format f)
{
    switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT16: case CU_AD_FORMAT_SIGNED_INT16: case CU_AD_FORMAT_HALF: return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32: case CU_AD_FORMAT_SIGNED_INT32: case CU_AD_FORMAT_FLOAT: return 4;
    default: return 1;
    }
}

/* mip = number of mipmap levels for a mipmapped array (each level halves every extent), 0 for a
 * plain array */
static CUresult fk_array_create(void **handle, size_t w, size_t h, size_t d, CUarray_format f,
                                unsigned ch, unsigned mip)
{
    if (!fk_inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!handle || !w || (ch != 1 && ch != 2 && ch != 4))
        return CUDA_ERROR_INVALID_VALUE;
    struct fk_ctx *c = FK_CUR();
    if (!fk_ctx_usable(c))
        return CUDA_ERROR_INVALID_CONTEXT;
    size_t size = 0, lw = w, lh = h ? h : 1, ld = d ? d : 1;
    for (unsigned l = 0; l < (mip ? mip : 1); l++) {
        size += lw * lh * ld * ch * fk_format_size(f);
        lw = lw > 1 ? lw / 2 : 1;
        lh = lh > 1 ? lh / 2 : 1;
        ld = ld > 1 ? ld / 2 : 1;
    }
    if (!fk_reserve(c->ord, size))
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct fk_array *arr = calloc(1, sizeof *arr);
    void *m = fk_mem(size);
    if (!arr || !m) {
        free(arr);
        free(m);
        fk_unreserve(c->ord, size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *arr = (struct fk_array){.magic = FK_MAGIC_ARRAY, .mipmapped = mip, .size = size, .mem = m};
    pthread_mutex_lock(&fk_lock);
    struct fk_alloc *a = fk_insert((uintptr_t)arr, CMT_SPACE_ARRAY, CMT_KIND_ARRAY, c->ord, size, c, NULL);
    if (a) {
        a->obj = arr;
        fk_alloc_calls++;
    }
    fk_changed();
    pthread_mutex_unlock(&fk_lock);
    if (!a) {
        free(arr);
        free(m);
        fk_unreserve(c->ord, size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *handle = arr;
    return CUDA_SUCCESS;
}

static CUresult fk_array_destroy(void *handle, int mip)
{
    if (!fk_inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    pthread_mutex_lock(&fk_lock);
    struct fk_alloc **link;
    struct fk_alloc *a = fk_find((uintptr_t)handle, CMT_SPACE_ARRAY, &link);
    if (!a || (((struct fk_array *)a->obj)->mipmapped != 0) != mip) {
        pthread_mutex_unlock(&fk_lock);
        return CUDA_ERROR_INVALID_HANDLE;
    }
    *link = a->next;
    fk_free_calls++;
    fk_free_alloc_mem(a);
    free(a);
    fk_changed();
    pthread_mutex_unlock(&fk_lock);
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuArrayCreate_v2(CUarray *h, const CUDA_ARRAY_DESCRIPTOR *d)
{
    ENTER();
    if (!d)
        return CUDA_ERROR_INVALID_VALUE;
    return fk_array_create((void **)h, d->Width, d->Height, 1, d->Format, d->NumChannels, 0);
}

FK_EXPORT CUresult cuArray3DCreate_v2(CUarray *h, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    ENTER();
    if (!d)
        return CUDA_ERROR_INVALID_VALUE;
    return fk_array_create((void **)h, d->Width, d->Height, d->Depth, d->Format, d->NumChannels, 0);
}

FK_EXPORT CUresult cuArrayDestroy(CUarray h)
{
    ENTER();
    return fk_array_destroy(h, 0);
}

FK_EXPORT CUresult cuMipmappedArrayCreate(CUmipmappedArray *h, const CUDA_ARRAY3D_DESCRIPTOR *d,
                                          unsigned int levels)
{
    ENTER();
    if (!d || !levels)
        return CUDA_ERROR_INVALID_VALUE;
    return fk_array_create((void **)h, d->Width, d->Height, d->Depth, d->Format, d->NumChannels, levels);
}

FK_EXPORT CUresult cuMipmappedArrayDestroy(CUmipmappedArray h)
{
    ENTER();
    return fk_array_destroy(h, 1);
}

/* ------------------------------------------------------------------------------------------ */
/* cuGetProcAddress: the one variant table.                                                    */
/* X(base name, version the variant was introduced in, per-thread-stream variant?, ABI symbol) */

#define FAKE_PROCS(X)                                                                              \
    X(cuInit, 2000, 0, cuInit)                                                                     \
    X(cuDriverGetVersion, 2020, 0, cuDriverGetVersion)                                             \
    X(cuGetErrorName, 6000, 0, cuGetErrorName)                                                     \
    X(cuGetErrorString, 6000, 0, cuGetErrorString)                                                 \
    X(cuGetExportTable, 3000, 0, cuGetExportTable)                                                 \
    X(cuGetProcAddress, 11030, 0, cuGetProcAddress)                                                \
    X(cuGetProcAddress, 12000, 0, cuGetProcAddress_v2)                                             \
    X(cuModuleGetLoadingMode, 11070, 0, cuModuleGetLoadingMode)                                    \
    X(cuDeviceGet, 2000, 0, cuDeviceGet)                                                           \
    X(cuDeviceGetCount, 2000, 0, cuDeviceGetCount)                                                 \
    X(cuDeviceGetName, 2000, 0, cuDeviceGetName)                                                   \
    X(cuDeviceGetUuid, 9020, 0, cuDeviceGetUuid)                                                   \
    X(cuDeviceGetUuid, 11040, 0, cuDeviceGetUuid_v2)                                               \
    X(cuDeviceGetPCIBusId, 4010, 0, cuDeviceGetPCIBusId)                                           \
    X(cuDeviceGetByPCIBusId, 4010, 0, cuDeviceGetByPCIBusId)                                       \
    X(cuDeviceTotalMem, 3020, 0, cuDeviceTotalMem_v2)                                              \
    X(cuDeviceGetAttribute, 2000, 0, cuDeviceGetAttribute)                                         \
    X(cuDeviceCanAccessPeer, 4000, 0, cuDeviceCanAccessPeer)                                       \
    X(cuDevicePrimaryCtxRetain, 7000, 0, cuDevicePrimaryCtxRetain)                                 \
    X(cuDevicePrimaryCtxRelease, 7000, 0, cuDevicePrimaryCtxRelease)                               \
    X(cuDevicePrimaryCtxRelease, 11000, 0, cuDevicePrimaryCtxRelease_v2)                           \
    X(cuDevicePrimaryCtxReset, 7000, 0, cuDevicePrimaryCtxReset)                                   \
    X(cuDevicePrimaryCtxReset, 11000, 0, cuDevicePrimaryCtxReset_v2)                               \
    X(cuDevicePrimaryCtxGetState, 7000, 0, cuDevicePrimaryCtxGetState)                             \
    X(cuDevicePrimaryCtxSetFlags, 7000, 0, cuDevicePrimaryCtxSetFlags)                             \
    X(cuDevicePrimaryCtxSetFlags, 11000, 0, cuDevicePrimaryCtxSetFlags_v2)                         \
    X(cuCtxCreate, 3020, 0, cuCtxCreate_v2)                                                        \
    X(cuCtxCreate, 11040, 0, cuCtxCreate_v3)                                                       \
    X(cuCtxCreate, 12050, 0, cuCtxCreate_v4)                                                       \
    X(cuCtxDestroy, 4000, 0, cuCtxDestroy_v2)                                                      \
    X(cuCtxGetCurrent, 4000, 0, cuCtxGetCurrent)                                                   \
    X(cuCtxSetCurrent, 4000, 0, cuCtxSetCurrent)                                                   \
    X(cuCtxPushCurrent, 4000, 0, cuCtxPushCurrent_v2)                                              \
    X(cuCtxPopCurrent, 4000, 0, cuCtxPopCurrent_v2)                                                \
    X(cuCtxGetDevice, 2000, 0, cuCtxGetDevice)                                                     \
    X(cuCtxGetDevice, 13000, 0, cuCtxGetDevice_v2)                                                 \
    X(cuCtxSynchronize, 2000, 0, cuCtxSynchronize)                                                 \
    X(cuCtxSynchronize, 13000, 0, cuCtxSynchronize_v2)                                             \
    X(cuCtxGetApiVersion, 3020, 0, cuCtxGetApiVersion)                                             \
    X(cuCtxGetFlags, 7000, 0, cuCtxGetFlags)                                                       \
    X(cuMemAlloc, 3020, 0, cuMemAlloc_v2)                                                          \
    X(cuMemFree, 3020, 0, cuMemFree_v2)                                                            \
    X(cuMemAllocPitch, 3020, 0, cuMemAllocPitch_v2)                                                \
    X(cuMemAllocManaged, 6000, 0, cuMemAllocManaged)                                               \
    X(cuMemHostAlloc, 2020, 0, cuMemHostAlloc)                                                     \
    X(cuMemAllocHost, 3020, 0, cuMemAllocHost_v2)                                                  \
    X(cuMemFreeHost, 2000, 0, cuMemFreeHost)                                                       \
    X(cuMemHostGetDevicePointer, 3020, 0, cuMemHostGetDevicePointer_v2)                            \
    X(cuMemHostRegister, 4000, 0, cuMemHostRegister)                                               \
    X(cuMemHostRegister, 6050, 0, cuMemHostRegister_v2)                                            \
    X(cuMemHostUnregister, 4000, 0, cuMemHostUnregister)                                           \
    X(cuMemGetInfo, 3020, 0, cuMemGetInfo_v2)                                                      \
    X(cuMemGetAddressRange, 3020, 0, cuMemGetAddressRange_v2)                                      \
    X(cuPointerGetAttribute, 4000, 0, cuPointerGetAttribute)                                       \
    X(cuPointerGetAttributes, 7000, 0, cuPointerGetAttributes)                                     \
    X(cuMemcpy, 4000, 0, cuMemcpy)                                                                 \
    X(cuMemcpy, 7000, 1, cuMemcpy_ptds)                                                            \
    X(cuMemcpyAsync, 4000, 0, cuMemcpyAsync)                                                       \
    X(cuMemcpyAsync, 7000, 1, cuMemcpyAsync_ptsz)                                                  \
    X(cuMemcpyHtoD, 3020, 0, cuMemcpyHtoD_v2)                                                      \
    X(cuMemcpyHtoD, 7000, 1, cuMemcpyHtoD_v2_ptds)                                                 \
    X(cuMemcpyDtoH, 3020, 0, cuMemcpyDtoH_v2)                                                      \
    X(cuMemcpyDtoH, 7000, 1, cuMemcpyDtoH_v2_ptds)                                                 \
    X(cuMemcpyDtoD, 3020, 0, cuMemcpyDtoD_v2)                                                      \
    X(cuMemcpyDtoD, 7000, 1, cuMemcpyDtoD_v2_ptds)                                                 \
    X(cuMemcpyHtoDAsync, 3020, 0, cuMemcpyHtoDAsync_v2)                                            \
    X(cuMemcpyHtoDAsync, 7000, 1, cuMemcpyHtoDAsync_v2_ptsz)                                       \
    X(cuMemcpyDtoHAsync, 3020, 0, cuMemcpyDtoHAsync_v2)                                            \
    X(cuMemcpyDtoHAsync, 7000, 1, cuMemcpyDtoHAsync_v2_ptsz)                                       \
    X(cuMemsetD8, 3020, 0, cuMemsetD8_v2)                                                          \
    X(cuMemsetD8, 7000, 1, cuMemsetD8_v2_ptds)                                                     \
    X(cuMemsetD8Async, 3020, 0, cuMemsetD8Async)                                                   \
    X(cuMemsetD8Async, 7000, 1, cuMemsetD8Async_ptsz)                                              \
    X(cuStreamCreate, 2000, 0, cuStreamCreate)                                                     \
    X(cuStreamCreateWithPriority, 5050, 0, cuStreamCreateWithPriority)                             \
    X(cuStreamDestroy, 2000, 0, cuStreamDestroy)                                                   \
    X(cuStreamDestroy, 4000, 0, cuStreamDestroy_v2)                                                \
    X(cuStreamSynchronize, 2000, 0, cuStreamSynchronize)                                           \
    X(cuStreamSynchronize, 7000, 1, cuStreamSynchronize_ptsz)                                      \
    X(cuStreamQuery, 2000, 0, cuStreamQuery)                                                       \
    X(cuStreamQuery, 7000, 1, cuStreamQuery_ptsz)                                                  \
    X(cuStreamGetCtx, 9020, 0, cuStreamGetCtx)                                                     \
    X(cuStreamGetCtx, 9020, 1, cuStreamGetCtx_ptsz)                                                \
    X(cuStreamWaitEvent, 3020, 0, cuStreamWaitEvent)                                               \
    X(cuStreamWaitEvent, 7000, 1, cuStreamWaitEvent_ptsz)                                          \
    X(cuStreamBeginCapture, 10000, 0, cuStreamBeginCapture)                                        \
    X(cuStreamBeginCapture, 10000, 1, cuStreamBeginCapture_ptsz)                                   \
    X(cuStreamBeginCapture, 10010, 0, cuStreamBeginCapture_v2)                                     \
    X(cuStreamBeginCapture, 10010, 1, cuStreamBeginCapture_v2_ptsz)                                \
    X(cuStreamBeginCaptureToGraph, 12030, 0, cuStreamBeginCaptureToGraph)                          \
    X(cuStreamBeginCaptureToGraph, 12030, 1, cuStreamBeginCaptureToGraph_ptsz)                     \
    X(cuStreamEndCapture, 10000, 0, cuStreamEndCapture)                                            \
    X(cuStreamEndCapture, 10000, 1, cuStreamEndCapture_ptsz)                                       \
    X(cuStreamIsCapturing, 10000, 0, cuStreamIsCapturing)                                          \
    X(cuStreamIsCapturing, 10000, 1, cuStreamIsCapturing_ptsz)                                     \
    X(cuGraphDestroy, 10000, 0, cuGraphDestroy)                                                    \
    X(cuEventCreate, 2000, 0, cuEventCreate)                                                       \
    X(cuEventDestroy, 4000, 0, cuEventDestroy_v2)                                                  \
    X(cuEventRecord, 2000, 0, cuEventRecord)                                                       \
    X(cuEventRecord, 7000, 1, cuEventRecord_ptsz)                                                  \
    X(cuEventSynchronize, 2000, 0, cuEventSynchronize)                                             \
    X(cuEventQuery, 2000, 0, cuEventQuery)                                                         \
    X(cuDeviceGetDefaultMemPool, 11020, 0, cuDeviceGetDefaultMemPool)                              \
    X(cuDeviceGetMemPool, 11020, 0, cuDeviceGetMemPool)                                            \
    X(cuDeviceSetMemPool, 11020, 0, cuDeviceSetMemPool)                                            \
    X(cuMemPoolCreate, 11020, 0, cuMemPoolCreate)                                                  \
    X(cuMemPoolDestroy, 11020, 0, cuMemPoolDestroy)                                                \
    X(cuMemPoolTrimTo, 11020, 0, cuMemPoolTrimTo)                                                  \
    X(cuMemAllocAsync, 11020, 0, cuMemAllocAsync)                                                  \
    X(cuMemAllocAsync, 11020, 1, cuMemAllocAsync_ptsz)                                             \
    X(cuMemAllocFromPoolAsync, 11020, 0, cuMemAllocFromPoolAsync)                                  \
    X(cuMemAllocFromPoolAsync, 11020, 1, cuMemAllocFromPoolAsync_ptsz)                             \
    X(cuMemFreeAsync, 11020, 0, cuMemFreeAsync)                                                    \
    X(cuMemFreeAsync, 11020, 1, cuMemFreeAsync_ptsz)                                               \
    X(cuMemGetAllocationGranularity, 10020, 0, cuMemGetAllocationGranularity)                      \
    X(cuMemAddressReserve, 10020, 0, cuMemAddressReserve)                                          \
    X(cuMemAddressFree, 10020, 0, cuMemAddressFree)                                                \
    X(cuMemCreate, 10020, 0, cuMemCreate)                                                          \
    X(cuIpcGetMemHandle, 4010, 0, cuIpcGetMemHandle)                                               \
    X(cuGraphCreate, 10000, 0, cuGraphCreate)                                                      \
    X(cuGraphAddMemAllocNode, 11040, 0, cuGraphAddMemAllocNode)                                    \
    X(cuGraphAddMemFreeNode, 11040, 0, cuGraphAddMemFreeNode)                                      \
    X(cuGraphInstantiateWithFlags, 11040, 0, cuGraphInstantiateWithFlags)                          \
    X(cuGraphInstantiate, 10000, 0, cuGraphInstantiate)                                            \
    X(cuGraphInstantiate, 11000, 0, cuGraphInstantiate_v2)                                         \
    /* CUDA 12's cuGraphInstantiate is the 3-argument one (cuda.h: #define cuGraphInstantiate     \
     * cuGraphInstantiateWithFlags): the look-up at 12000 and later returns that function */      \
    X(cuGraphInstantiate, 12000, 0, cuGraphInstantiateWithFlags)                                   \
    X(cuGraphInstantiateWithParams, 12000, 0, cuGraphInstantiateWithParams)                        \
    X(cuGraphInstantiateWithParams, 12000, 1, cuGraphInstantiateWithParams_ptsz)                   \
    X(cuGraphUpload, 11010, 0, cuGraphUpload)                                                      \
    X(cuGraphUpload, 11010, 1, cuGraphUpload_ptsz)                                                 \
    X(cuGraphExecUpdate, 10020, 0, cuGraphExecUpdate)                                              \
    X(cuGraphExecUpdate, 12000, 0, cuGraphExecUpdate_v2)                                           \
    X(cuGraphAddNode, 12020, 0, cuGraphAddNode)                                                    \
    X(cuGraphAddNode, 12030, 0, cuGraphAddNode_v2)                                                 \
    X(cuGraphAddMemsetNode, 10000, 0, cuGraphAddMemsetNode)                                        \
    X(cuGraphAddEmptyNode, 10000, 0, cuGraphAddEmptyNode)                                          \
    X(cuGraphAddHostNode, 10000, 0, cuGraphAddHostNode)                                            \
    X(cuLaunchHostFunc, 10000, 0, cuLaunchHostFunc)                                                \
    X(cuLaunchHostFunc, 10000, 1, cuLaunchHostFunc_ptsz)                                           \
    X(cuGraphAddKernelNode, 12000, 0, cuGraphAddKernelNode_v2)                                     \
    X(cuGraphAddMemcpyNode, 10000, 0, cuGraphAddMemcpyNode)                                        \
    X(cuLaunchKernel, 4000, 0, cuLaunchKernel)                                                     \
    X(cuLaunchKernel, 7000, 1, cuLaunchKernel_ptsz)                                                \
    X(cuGraphAddChildGraphNode, 10000, 0, cuGraphAddChildGraphNode)                                \
    X(cuGraphClone, 10000, 0, cuGraphClone)                                                        \
    X(cuGraphGetNodes, 10000, 0, cuGraphGetNodes)                                                  \
    X(cuGraphGetEdges, 10000, 0, cuGraphGetEdges)                                                  \
    X(cuGraphGetEdges, 12030, 0, cuGraphGetEdges_v2)                                               \
    X(cuGraphNodeGetType, 10000, 0, cuGraphNodeGetType)                                            \
    X(cuGraphMemAllocNodeGetParams, 11040, 0, cuGraphMemAllocNodeGetParams)                        \
    X(cuGraphMemFreeNodeGetParams, 11040, 0, cuGraphMemFreeNodeGetParams)                          \
    X(cuGraphChildGraphNodeGetGraph, 10000, 0, cuGraphChildGraphNodeGetGraph)                      \
    X(cuStreamGetCaptureInfo, 11030, 0, cuStreamGetCaptureInfo_v2)                                 \
    X(cuStreamGetCaptureInfo, 11030, 1, cuStreamGetCaptureInfo_v2_ptsz)                            \
    X(cuGraphLaunch, 10000, 0, cuGraphLaunch)                                                      \
    X(cuGraphLaunch, 10000, 1, cuGraphLaunch_ptsz)                                                 \
    X(cuGraphExecDestroy, 10000, 0, cuGraphExecDestroy)                                            \
    X(cuDeviceGraphMemTrim, 11040, 0, cuDeviceGraphMemTrim)                                        \
    X(cuDeviceGetGraphMemAttribute, 11040, 0, cuDeviceGetGraphMemAttribute)                        \
    X(cuIpcOpenMemHandle, 4010, 0, cuIpcOpenMemHandle)                                             \
    X(cuIpcOpenMemHandle, 11000, 0, cuIpcOpenMemHandle_v2)                                         \
    X(cuIpcCloseMemHandle, 4010, 0, cuIpcCloseMemHandle)                                           \
    X(cuMemExportToShareableHandle, 10020, 0, cuMemExportToShareableHandle)                        \
    X(cuMemImportFromShareableHandle, 10020, 0, cuMemImportFromShareableHandle)                    \
    X(cuMemRelease, 10020, 0, cuMemRelease)                                                        \
    X(cuMemMap, 10020, 0, cuMemMap)                                                                \
    X(cuMemUnmap, 10020, 0, cuMemUnmap)                                                            \
    X(cuMemSetAccess, 10020, 0, cuMemSetAccess)                                                    \
    X(cuMemRetainAllocationHandle, 11000, 0, cuMemRetainAllocationHandle)                          \
    X(cuMemGetAllocationPropertiesFromHandle, 10020, 0, cuMemGetAllocationPropertiesFromHandle)    \
    X(cuArrayCreate, 3020, 0, cuArrayCreate_v2)                                                    \
    X(cuArray3DCreate, 3020, 0, cuArray3DCreate_v2)                                                \
    X(cuArrayDestroy, 2000, 0, cuArrayDestroy)                                                     \
    X(cuMipmappedArrayCreate, 5000, 0, cuMipmappedArrayCreate)                                     \
    X(cuMipmappedArrayDestroy, 5000, 0, cuMipmappedArrayDestroy)

struct fk_proc {
    const char *name;
    int version;
    int per_thread;
    void *fn;  /* the exported function: a library preloaded over the driver interposes on it */
    void *own; /* the same function by a hidden alias: nobody interposes on it */
};

/* cuGetProcAddress hands out the driver's own entry points, as a real libcuda does (its internal
 * functions): a library preloaded over the driver that exports the same names (a tracker) is not
 * handed its own wrappers by the look-up, it must recognise the driver's function (its variant
 * map). FAKECUDA_OWN_PROCS=0: the exported functions' addresses instead, which bind to such a
 * library's definitions (the fake's behaviour before 2026-12-04). */
#define FK_PROC_OWN(base, ver, pt, sym)                                                            \
    extern __typeof__(sym) fk_own_##base##_##ver##_##pt __attribute__((alias(#sym), visibility("hidden")));
FAKE_PROCS(FK_PROC_OWN)
#undef FK_PROC_OWN

static const struct fk_proc fk_procs[] = {
#define FK_PROC_ENTRY(base, ver, pt, sym) {#base, ver, pt, (void *)sym, (void *)fk_own_##base##_##ver##_##pt},
    FAKE_PROCS(FK_PROC_ENTRY)
#undef FK_PROC_ENTRY
};

/* FAKECUDA_FUTURE_VARIANT=1: a driver newer than the tracker's headers, whose ("cuMemAlloc",
 * >= 14000) is an ABI variant nobody has seen yet (same signature, its own entry point): the
 * tracker must pass it through untouched and count it. */
static CUresult fk_cuMemAlloc_future(CUdeviceptr *dptr, size_t bytesize)
{
    /* the implementation itself: calling the exported cuMemAlloc_v2 would bind to a preloaded
     * tracker's wrapper */
    if (!fk_inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!dptr)
        return CUDA_ERROR_INVALID_VALUE;
    return fk_alloc_linear(dptr, bytesize, CMT_KIND_DEVICE, FK_CUR(), NULL);
}

/* Also future variants of cuStreamBeginCapture and cuStreamDestroy: a tracker that cannot see
 * them must assume a capture may be active and that stream handles may be reused. */
static CUresult fk_begin_capture_future(CUstream s, CUstreamCaptureMode m)
{
    (void)m;
    return fk_begin_capture(s);
}

static CUresult fk_getproc(const char *sym, void **pfn, int version, cuuint64_t flags,
                           CUdriverProcAddressQueryResult *status)
{
    void *future = NULL;
    if (sym && pfn && version >= 14000 && getenv("FAKECUDA_FUTURE_VARIANT"))
        future = !strcmp(sym, "cuMemAlloc")             ? (void *)fk_cuMemAlloc_future
                 : !strcmp(sym, "cuStreamBeginCapture") ? (void *)fk_begin_capture_future
                 : !strcmp(sym, "cuStreamDestroy")      ? (void *)fk_stream_destroy
                                                        : NULL;
    if (future) {
        *pfn = future;
        if (status)
            *status = CU_GET_PROC_ADDRESS_SUCCESS;
        return CUDA_SUCCESS;
    }
    if (status)
        *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    if (!sym || !pfn || (flags & ~(cuuint64_t)3))
        return CUDA_ERROR_INVALID_VALUE;
    *pfn = NULL;
    int pt = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) &&
             !(flags & CU_GET_PROC_ADDRESS_LEGACY_STREAM);
    const struct fk_proc *best = NULL, *best_pt = NULL;
    int known = 0;
    for (size_t i = 0; i < sizeof fk_procs / sizeof fk_procs[0]; i++) {
        const struct fk_proc *p = &fk_procs[i];
        if (strcmp(p->name, sym))
            continue;
        known = 1;
        if (p->version > version)
            continue;
        const struct fk_proc **slot = p->per_thread ? &best_pt : &best;
        if (!*slot || p->version > (*slot)->version)
            *slot = p;
    }
    if (pt && best_pt && (!best || best_pt->version >= best->version))
        best = best_pt;
    if (!best) {
        if (status)
            *status = known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                            : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        return CUDA_ERROR_NOT_FOUND;
    }
    const char *own = getenv("FAKECUDA_OWN_PROCS");
    *pfn = own && !strcmp(own, "0") ? best->fn : best->own;
    if (status)
        *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuGetProcAddress(const char *sym, void **pfn, int version, cuuint64_t flags)
{
    ENTER();
    return fk_getproc(sym, pfn, version, flags, NULL);
}

FK_EXPORT CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int version, cuuint64_t flags,
                                       CUdriverProcAddressQueryResult *status)
{
    ENTER();
    return fk_getproc(sym, pfn, version, flags, status);
}
