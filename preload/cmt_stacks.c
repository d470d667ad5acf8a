/*
 * cmt_stacks.c — see cmt_stacks.h.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <ucontext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cmt_internal.h"
#include "cmt_records.h"
#include "cmt_modules.h"
#include "cmt_python.h"
#include "cmt_stacks.h"
#include "cmt_wire.h"
#include "cmt_writer.h"

#define HASH_NONFATAL_OOM 1
static __thread int stack_oom;
#define uthash_nonfatal_oom(obj) (stack_oom = 1)
#include <uthash.h>

#define STRIPES 16
#define TLS_CACHE 256
#define OWN_MARGIN 8

/* A stack's identity is key[0] = n | npy << 32, then the n native return addresses, then two
 * words per Python frame: code id | at << 32, line (see PYTHON FRAMES in cmt_format.h). */
struct stack {
    UT_hash_handle hh;
    uint32_t id;
    uint32_t words;
    uint64_t hash;
    uintptr_t key[];
};

static struct {
    pthread_mutex_t lock;
    struct stack *table;
} stripes[STRIPES];

static _Atomic uint32_t next_id;
static _Atomic int unwind_state; /* 0 unknown, 1 loaded, 2 missing */
static int (*unw_backtrace_fn)(void **, int);
/* libunwind's cursor API (x86-64 only: its local-unwinding symbols, no header needed): where the
 * caches learn each frame's stack pointer, so the slot of each return address is exact */
#if defined(__x86_64__)
#define UNW_CURSOR_WORDS 256 /* libunwind's unw_cursor_t: 127 words on x86-64 */
#define UNW_X86_64_RSP 7
#define UNW_X86_64_RIP 16
static int (*unw_getcontext_fn)(ucontext_t *);
static int (*unw_init_local_fn)(void *, ucontext_t *);
static int (*unw_step_fn)(void *);
static int (*unw_get_reg_fn)(void *, int, uint64_t *);
#endif
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int warned_missing;

/* per-thread cache: hash -> stack (entries are never freed while the process lives) */
static __thread struct {
    uint32_t gen;
    struct stack *e[TLS_CACHE];
} cache __attribute__((tls_model("initial-exec")));

/* glibc mutexes are valid when zeroed, so the tables work before any constructor has run */
static void stripes_init(void) {
    for (int i = 0; i < STRIPES; i++) {
        pthread_mutex_init(&stripes[i].lock, NULL);
        stripes[i].table = NULL;
    }
}

static bool load_unwind(void) {
    int s = atomic_load_explicit(&unwind_state, memory_order_acquire);
    if (CMT_LIKELY(s == 1)) return true;
    if (s == 2) return false;
    pthread_mutex_lock(&load_lock);
    if (atomic_load(&unwind_state) == 0) {
        void *h = cmt_real_dlopen ? cmt_real_dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL) : NULL;
        void *f = h ? cmt_real_dlsym(h, "unw_backtrace") : NULL;
        unw_backtrace_fn = (int (*)(void **, int))f;
#if defined(__x86_64__)
        if (f) {
            void *g = cmt_real_dlsym(h, "_Ux86_64_getcontext"), *i = cmt_real_dlsym(h, "_ULx86_64_init_local"),
                 *st = cmt_real_dlsym(h, "_ULx86_64_step"), *r = cmt_real_dlsym(h, "_ULx86_64_get_reg");
            if (g && i && st && r) {
                unw_getcontext_fn = (int (*)(ucontext_t *))g;
                unw_init_local_fn = (int (*)(void *, ucontext_t *))i;
                unw_step_fn = (int (*)(void *))st;
                unw_get_reg_fn = (int (*)(void *, int, uint64_t *))r;
            }
        }
#endif
        atomic_store_explicit(&unwind_state, f ? 1 : 2, memory_order_release);
        cmt_writer_set_stacks_available(f != NULL);
        if (!f)
            cmt_warn_once(&warned_missing, "warning: libunwind.so.8 not found: running without call "
                                           "stacks (install the Debian package libunwind8)");
    }
    pthread_mutex_unlock(&load_lock);
    return atomic_load(&unwind_state) == 1;
}

static inline uint64_t hash_words(const uintptr_t *f, uint32_t n) {
    uint64_t h = 0x84222325cbf29ce4ull ^ n;
    for (uint32_t i = 0; i < n; i++) {
        h ^= f[i];
        h *= 0x100000001b3ull;
        h ^= h >> 32;
    }
    return h;
}

static const struct stack *stack_intern(const uintptr_t *key, uint32_t words);

static void emit_stack(const struct stack *s) {
    uint32_t n = (uint32_t)s->key[0], npy = (uint32_t)(s->key[0] >> 32);
    const uintptr_t *frames = s->key + 1, *py = frames + n;
    cmt_rec_stack(s->id, frames, n, py, npy);
}

int cmt_stack_raw(void **buf, int n) {
    return load_unwind() ? unw_backtrace_fn(buf, n) : 0;
}

/* ---- the per-thread stack caches ----
 * A training loop allocates from the same call sites with the same stacks again and again. A
 * call site is keyed by (return address into the caller, caller's stack pointer). Once libunwind
 * has unwound a stack there, the stack slot holding each of its return addresses is known exactly:
 * the first is below the caller's stack pointer, each next one a fixed number of words above the
 * previous, the frame size of the function that return address is in (learned per return address
 * from libunwind's cursor, which reports each frame's stack pointer, and checked on every stack it
 * serves; a function whose frame size changed, e.g. with alloca, is never served again). Two caches
 * then recognise a stack by loading its slots instead of unwinding:
 *  - the call-site cache (SC_ENTRIES direct-mapped entries, Python frames included: one native
 *    call site in the interpreter serves many Python call sites; the thread's Python frames are
 *    walked every time, a few loads each): the last stack met at each key, checked slot by slot;
 *  - the layout cache, below, for the many stacks one key can have.
 * A stack is only ever recognised by its own slots holding its own return addresses, and the
 * slots follow from the frame sizes of those return addresses: a different caller anywhere on the
 * stack changes a loaded value, giving another stack or a miss, never the old stack. (A frame size
 * that varies at one return address — alloca, or a frame realigned to its entry stack pointer —
 * together with uninitialised memory holding an older stack's return addresses exactly where the
 * slots would be, could still fool the checks: the reason a size seen to change is never used
 * again, and why no stack is ever built from learned frame sizes alone: each new one comes from
 * unw_backtrace, its slots checked against it.) Anything else falls back to unw_backtrace, which
 * CUMEMTRACK_STACK_CACHE=0 uses for every stack. */

#define SC_ENTRIES 32
#define SC_MAX_FRAMES 64
#define SC_MAX_PY 64

struct sc_entry {
    uintptr_t ra, sp;
    uint32_t id, n, npy;
    int valid; /* slots known: hits are verified by loads */
    uintptr_t ip[SC_MAX_FRAMES];
    const uintptr_t *slot[SC_MAX_FRAMES];
    struct cmt_pyframe py[SC_MAX_PY];
};

/* ---- the layout cache (native stacks: no Python frames on this thread) ----
 * Many stacks can share a call-site key: a call site reached from 10 000 different callers has one
 * key and 10 000 stacks, usually with their return addresses at the same places (one "layout":
 * word offsets from the call site's return-address slot). A layout is remembered per key (LY_WAYS
 * per set of keys), and a stack by (layout, the values at its slots) in a set-associative table
 * (ST_SETS x ST_WAYS, LRU per set). A call loads the slots of each layout of its key (independent
 * loads), hashes the values with the layout's serial, and takes the stack whose frames equal the
 * values word for word. Each stack is entered under its own layout only. Bounded: about 1 MiB per
 * thread with the call-site cache and the frame sizes, mapped with the thread's first stack
 * (anonymous pages, touched as used; mmap rather than malloc, so that freeing a block this size
 * never moves glibc's dynamic mmap and trim thresholds, which the application's own allocations
 * depend on). */

#define LY_SETS 512
#define LY_WAYS 4
#define ST_SETS 4096
#define ST_WAYS 8

struct layout {
    uintptr_t ra, sp;
    uint32_t serial, n;          /* serial 0: empty */
    uint16_t off[SC_MAX_FRAMES]; /* word offsets from the return-address slot (sp - 1 word) */
};

struct st_way {
    uint64_t tag;
    struct stack *s;
};

/* A return address's frame size: how many words above its own slot the next return address
 * sits (learned from libunwind's cursor; 0: it varied, the function's frame size is not fixed). */
#define FS_SLOTS 4096
#define FS_PROBE 8

struct fsize {
    uintptr_t ip; /* 0: empty */
    uint32_t words;
};

struct tcache {
    struct sc_entry e[SC_ENTRIES];
    struct fsize fs[FS_SLOTS];
    struct layout ly[LY_SETS][LY_WAYS];
    struct st_way st[ST_SETS][ST_WAYS];
    uint32_t serial;
};

static __thread struct {
    uint32_t gen, epoch;
    int state;        /* 0 unknown, 1 usable, -1 not for this thread */
    uintptr_t lo, hi; /* this thread's stack */
    struct sc_entry *e;
    struct tcache *t;
} sc __attribute__((tls_model("initial-exec")));

static pthread_key_t sc_key;
static pthread_once_t sc_once = PTHREAD_ONCE_INIT;
/* The key's destructor, in the exiting thread: later destructors (another key's, the CUDA
 * runtime's) may still allocate on this thread, with stacks but without these caches. */
static void sc_free(void *p) {
    if (p == sc.t) {
        sc.t = NULL;
        sc.e = NULL;
        sc.state = -1;
    }
    munmap(p, sizeof(struct tcache));
}

static struct tcache *tc_map(void) {
    void *p = mmap(NULL, sizeof(struct tcache), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}
static void sc_make_key(void) {
    pthread_key_create(&sc_key, sc_free);
}

static struct sc_entry *sc_lookup(uintptr_t ra, uintptr_t sp) {
    uint32_t gen = atomic_load_explicit(&cmt_generation, memory_order_relaxed);
    uint32_t epoch = atomic_load_explicit(&cmt_modules_unloaded, memory_order_relaxed);
    if (CMT_UNLIKELY(sc.gen != gen || sc.epoch != epoch)) {
        sc.gen = gen;
        sc.epoch = epoch;
        /* zeroed in place: MADV_DONTNEED drops the pages (a private anonymous mapping reads back
         * zero-filled) rather than a memset that would touch all of them */
        if (sc.t && madvise(sc.t, sizeof *sc.t, MADV_DONTNEED) != 0) memset(sc.t, 0, sizeof *sc.t);
    }
    if (CMT_UNLIKELY(sc.state == 0)) {
        pthread_attr_t a;
        void *addr;
        size_t size;
        sc.state = -1;
        if (cmt_cfg.stack_cache && pthread_getattr_np(pthread_self(), &a) == 0) {
            if (pthread_attr_getstack(&a, &addr, &size) == 0) {
                sc.lo = (uintptr_t)addr;
                sc.hi = (uintptr_t)addr + size;
                sc.t = tc_map();
                if (sc.t) {
                    sc.e = sc.t->e;
                    sc.state = 1;
                    pthread_once(&sc_once, sc_make_key);
                    pthread_setspecific(sc_key, sc.t); /* unmapped when the thread exits */
                }
            }
            pthread_attr_destroy(&a);
        }
    }
    if (sc.state != 1 || sp < sc.lo || sp >= sc.hi) return NULL; /* e.g. on a signal stack */
    uint64_t h = (ra ^ (sp >> 4)) * 0x9E3779B97F4A7C15ull;
    return &sc.e[h >> 59]; /* 32 entries */
}

static bool sc_verify(const struct sc_entry *e) {
    for (uint32_t i = 0; i < e->n; i++)
        if (*e->slot[i] != e->ip[i]) return false;
    return true;
}

/* Unwinds the calling thread with libunwind's cursor (frame by frame), giving each frame's return
 * address and the stack slot it was read from (the frame's stack pointer - 1 word: the caller's
 * call pushed it there); a frame whose slot does not hold its return address (a signal frame)
 * gets slot NULL. Returns the frame count, 0 when libunwind's cursor API is missing (then the
 * caches learn nothing and every stack they cannot find is unwound with unw_backtrace). */
__attribute__((noinline)) static int unwind_slots(uintptr_t *ip, const uintptr_t **slot, int max) {
#if defined(__x86_64__)
    if (!unw_step_fn) return 0;
    ucontext_t uc;
    uintptr_t cursor[UNW_CURSOR_WORDS];
    if (unw_getcontext_fn(&uc) != 0 || unw_init_local_fn(cursor, &uc) < 0) return 0;
    int n = 0;
    do {
        uint64_t i, sp;
        if (unw_get_reg_fn(cursor, UNW_X86_64_RIP, &i) < 0 || unw_get_reg_fn(cursor, UNW_X86_64_RSP, &sp) < 0) break;
        const uintptr_t *at = (const uintptr_t *)sp - 1;
        ip[n] = i;
        slot[n] = sp - sizeof *at >= sc.lo && sp <= sc.hi && *at == i ? at : NULL;
        n++;
    } while (n < max && unw_step_fn(cursor) > 0);
    return n;
#else
    (void)ip, (void)slot, (void)max;
    return 0;
#endif
}

static inline uint64_t mix64(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

/* The layout cache's tag of n stack values (chained by values_step) read through layout serial: a
 * rotate-xor chain of the values times an odd constant (without the multiply, stacks that differ
 * in a few frames by the same address difference collide: 10 000 call sites made a few hundred
 * tags), then one mix. A collision only costs a comparison. */
static inline uint64_t values_tag(uint32_t serial, uint64_t h, uint32_t n) {
    return mix64(h ^ ((uint64_t)serial << 32 | n) * 0x9E3779B97F4A7C15ull);
}

static inline uint64_t values_step(uint64_t h, uintptr_t v) {
    return (h << 5 | h >> 59) ^ v * 0x9E3779B97F4A7C15ull; /* the multiply is off the chain */
}

static inline struct layout *ly_set(uintptr_t ra, uintptr_t sp) {
    return sc.t->ly[mix64(ra ^ sp * 0x9E3779B97F4A7C15ull) & (LY_SETS - 1)];
}

static inline struct st_way *st_set(uint64_t tag) {
    return sc.t->st[(tag >> 20) & (ST_SETS - 1)];
}

/* The native stack (no Python frames) at call site (ra, sp), when one of the site's layouts finds
 * a stack this thread has met there; NULL otherwise. sc_lookup(ra, sp) has said the thread's
 * caches are usable and sp is on its stack. */
static const struct stack *lc_find(uintptr_t ra, uintptr_t sp, const struct layout **found) {
    struct layout *set = ly_set(ra, sp);
    const uintptr_t *base = (const uintptr_t *)sp - 1;
    for (int w = 0; w < LY_WAYS; w++) {
        const struct layout *l = &set[w];
        if (l->ra != ra || l->sp != sp || !l->serial) continue;
        uint32_t n = l->n;
        uintptr_t v[SC_MAX_FRAMES];
        uint64_t h = 0;
        for (uint32_t i = 0; i < n; i++)
            h = values_step(h, v[i] = base[l->off[i]]);
        uint64_t tag = values_tag(l->serial, h, n);
        struct st_way *ways = st_set(tag);
        for (int k = 0; k < ST_WAYS; k++) {
            struct stack *s = ways[k].s;
            if (ways[k].tag != tag || !s || s->key[0] != n || memcmp(s->key + 1, v, n * sizeof *v)) continue;
            if (k) { /* most recently used first */
                struct st_way hit = ways[k];
                memmove(ways + 1, ways, (size_t)k * sizeof *ways);
                ways[0] = hit;
            }
            *found = l;
            return s;
        }
    }
    return NULL;
}

/* A layout-cache hit of stack s at call site (ra, sp), whose call-site entry is e: the second hit
 * in a row of the same stack there makes e valid (its slots are the layout's), so a call site that
 * keeps its stack is then recognised by the slot checks alone. The first one only notes the stack
 * (n stays 0: the unwinding path never takes e for a stack seen once). */
static void sc_note(struct sc_entry *e, uintptr_t ra, uintptr_t sp, const struct stack *s, const struct layout *l) {
    if (e->valid || e->ra != ra || e->sp != sp || e->id != s->id || e->n || e->npy) {
        e->ra = ra;
        e->sp = sp;
        e->id = s->id;
        e->n = e->npy = 0;
        e->valid = 0;
        return;
    }
    const uintptr_t *base = (const uintptr_t *)sp - 1;
    e->n = l->n;
    for (uint32_t i = 0; i < l->n; i++) {
        e->ip[i] = s->key[1 + i];
        e->slot[i] = base + l->off[i];
    }
    e->valid = 1;
}

/* Remembers native stack s (s->key[0] frames, frames[0] == ra) unwound at call site (ra, sp), whose
 * return addresses sit in slot[]: its layout, then the stack under that layout. */
static void lc_add(uintptr_t ra, uintptr_t sp, const struct stack *s, const uintptr_t *const *slot) {
    uint32_t n = (uint32_t)s->key[0];
    const uintptr_t *frames = s->key + 1, *base = (const uintptr_t *)sp - 1;
    struct layout *set = ly_set(ra, sp), *l = NULL;
    for (int w = 0; w < LY_WAYS && !l; w++) {
        struct layout *c = &set[w];
        if (c->serial && c->ra == ra && c->sp == sp && c->n == n) {
            uint32_t i = 0;
            while (i < n && base + c->off[i] == slot[i])
                i++;
            if (i == n) l = c;
        }
    }
    if (!l) { /* a new layout replaces the oldest */
        memmove(set + 1, set, (LY_WAYS - 1) * sizeof *set);
        l = &set[0];
        l->ra = ra;
        l->sp = sp;
        l->n = n;
        l->serial = ++sc.t->serial ? sc.t->serial : ++sc.t->serial;
        for (uint32_t i = 0; i < n; i++)
            l->off[i] = (uint16_t)(slot[i] - base);
    }
    uint64_t h = 0;
    for (uint32_t i = 0; i < n; i++)
        h = values_step(h, frames[i]);
    uint64_t tag = values_tag(l->serial, h, n);
    struct st_way *ways = st_set(tag);
    memmove(ways + 1, ways, (ST_WAYS - 1) * sizeof *ways);
    ways[0] = (struct st_way){tag, (struct stack *)s};
}

static struct fsize *fs_find(uintptr_t ip, bool add) {
    struct fsize *fs = sc.t->fs;
    uint32_t h = (uint32_t)(mix64(ip) & (FS_SLOTS - 1));
    for (uint32_t i = 0; i < FS_PROBE; i++) {
        struct fsize *e = &fs[(h + i) & (FS_SLOTS - 1)];
        if (e->ip == ip) return e;
        if (!e->ip) return add ? e : NULL;
    }
    if (!add) return NULL;
    /* full: the first slot with a fixed size is taken over; a size marked varying is kept (forgotten,
     * it could be learned again and served) */
    for (uint32_t i = 0; i < FS_PROBE; i++) {
        struct fsize *e = &fs[(h + i) & (FS_SLOTS - 1)];
        if (e->words) return e;
    }
    return NULL;
}

/* A frame size was seen to change: the layouts and call-site entries already derived from the old
 * size stop serving (rare: cleared outright). Stacks under the old layouts' serials are never
 * reached again (serials are not reused) and age out of their sets. */
static void sc_forget_layouts(void) {
    memset(sc.t->e, 0, sizeof sc.t->e);
    memset(sc.t->ly, 0, sizeof sc.t->ly);
}

/* Learns the frame sizes of the n return addresses frames[] (frames[0] == the call site's, at sp - 1
 * word) from libunwind's cursor; false when the cursor cannot give them. */
static bool fs_learn(const uintptr_t *frames, uint32_t n, uintptr_t sp) {
    uintptr_t ip[CMT_MAX_FRAMES + OWN_MARGIN];
    const uintptr_t *slot[CMT_MAX_FRAMES + OWN_MARGIN];
    int got = unwind_slots(ip, slot, (int)n + OWN_MARGIN), skip = 0;
    while (skip < got && cmt_is_own_address((const void *)ip[skip]))
        skip++;
    if ((uint32_t)(got - skip) < n || slot[skip] != (const uintptr_t *)sp - 1) return false;
    for (uint32_t i = 0; i < n; i++)
        if (ip[skip + i] != frames[i] || !slot[skip + i]) return false;
    bool ok = true, varied = false;
    for (uint32_t i = 0; i + 1 < n; i++) {
        const uintptr_t *a = slot[skip + i], *b = slot[skip + i + 1];
        if (b <= a || b - a > UINT16_MAX) {
            ok = false;
            break;
        }
        struct fsize *e = fs_find(frames[i], true);
        if (!e) continue; /* the probe window holds only sizes marked varying */
        if (e->ip != frames[i])
            *e = (struct fsize){frames[i], (uint32_t)(b - a)};
        else if (e->words && e->words != (uint32_t)(b - a)) {
            e->words = 0;  /* varies: never derived again, */
            varied = true; /* nor served from what was derived before */
        }
    }
    if (varied) sc_forget_layouts();
    return ok;
}

/* The stack slot of each of the n return addresses frames[] of a stack unwound at call site (ra,
 * sp), from the frame size of each (learned once per return address with libunwind's cursor, which
 * is slow), each slot checked to hold its return address. False when a frame's size is not fixed,
 * or a slot lies beyond a layout's reach. */
static bool find_slots(const uintptr_t *frames, uint32_t n, uintptr_t sp, const uintptr_t **slot) {
    const uintptr_t *base = (const uintptr_t *)sp - 1;
    for (int learned = 0;; learned = 1) {
        uint32_t i = 0;
        bool varies = false;
        slot[0] = base;
        for (; i + 1 < n; i++) {
            const struct fsize *e = fs_find(frames[i], false);
            if (!e) break;
            if (!e->words) {
                varies = true;
                break;
            }
            const uintptr_t *next = slot[i] + e->words;
            if ((uintptr_t)next >= sc.hi || next - base > UINT16_MAX || *next != frames[i + 1]) break;
            slot[i + 1] = next;
        }
        if (i + 1 >= n) return true;
        /* an unknown frame size, or one that did not fit: learn (a size that changed is marked) */
        if (learned || varies || !fs_learn(frames, n, sp)) return false;
    }
}

/* The index, from i on, of the next native frame in the interpreter's eval loop (n: none). */
static uint32_t next_eval(const uintptr_t *frames, uint32_t i, uint32_t n) {
    while (i < n && !cmt_python_is_eval(frames[i]))
        i++;
    return i;
}

uint32_t cmt_stack_capture(const void *frame) {
    unsigned depth = cmt_cfg.depth;
    if (depth == 0 || !load_unwind()) return 0;
    if (depth > CMT_MAX_FRAMES) depth = CMT_MAX_FRAMES;
    struct cmt_pyframe py[CMT_MAX_FRAMES];
    int npy = cmt_python_walk(py, (int)depth);
    struct sc_entry *ce = NULL;
    uintptr_t ra = 0, csp = 0;
    if (frame && depth <= SC_MAX_FRAMES && npy <= SC_MAX_PY) {
        ra = ((const uintptr_t *)frame)[1];
        csp = (uintptr_t)frame + 2 * sizeof(uintptr_t);
        ce = sc_lookup(ra, csp);
        if (ce && ce->valid && ce->ra == ra && ce->sp == csp && ce->npy == (uint32_t)npy &&
            memcmp(ce->py, py, (size_t)npy * sizeof *py) == 0 && sc_verify(ce))
            return ce->id;
        if (ce && npy == 0) {
            const struct layout *l;
            const struct stack *s = lc_find(ra, csp, &l);
            if (s) {
                sc_note(ce, ra, csp, s, l);
                return s->id;
            }
        }
    }
    void *raw[CMT_MAX_FRAMES + OWN_MARGIN];
    int got = unw_backtrace_fn(raw, (int)depth + OWN_MARGIN);
    if (got <= 0) {
        cmt_counter_add(CMT_CTR_UNWIND_FAILED, 1);
        return 0;
    }
    int skip = 0;
    while (skip < got && cmt_is_own_address(raw[skip]))
        skip++;
    uint32_t n = (uint32_t)(got - skip);
    if (n > depth) n = depth;
    if (n == 0) return 0;
    const uintptr_t *frames = (const uintptr_t *)(raw + skip);
    uintptr_t key[1 + CMT_MAX_FRAMES + 2 * CMT_MAX_FRAMES];
    memcpy(key + 1, frames, n * sizeof *frames);
    uint32_t at = next_eval(frames, 0, n), k = 0;
    for (; k < (uint32_t)npy; k++) {
        uint32_t code = cmt_python_code_id(py[k].code);
        if (!code) break; /* no memory: keep the frames resolved so far */
        key[1 + n + 2 * k] = code | (uintptr_t)at << 32;
        key[2 + n + 2 * k] = cmt_python_line(py[k].code, py[k].off);
        if (py[k].entry && at < n) at = next_eval(frames, at + 1, n);
    }
    key[0] = n | (uintptr_t)k << 32;
    const struct stack *s = stack_intern(key, 1 + n + 2 * k);
    if (!s) return 0;
    const uintptr_t *slot[SC_MAX_FRAMES];
    if (ce && frames[0] == ra && find_slots(frames, n, csp, slot)) {
        if (npy == 0) lc_add(ra, csp, s, slot);
        ce->ra = ra;
        ce->sp = csp;
        ce->n = n;
        ce->id = s->id;
        memcpy(ce->ip, frames, n * sizeof *frames);
        memcpy(ce->slot, slot, n * sizeof *slot);
        ce->npy = (uint32_t)npy;
        memcpy(ce->py, py, (size_t)npy * sizeof *py);
        ce->valid = 1;
    }
    return s->id;
}

/* A stack's entry in the global table (inserted, and written as a STACK record, when new; NULL: no
 * memory). */
static const struct stack *stack_intern(const uintptr_t *key, uint32_t words) {
    uint64_t h = hash_words(key, words);

    uint32_t gen = atomic_load_explicit(&cmt_generation, memory_order_relaxed);
    if (cache.gen != gen) {
        memset(&cache, 0, sizeof cache);
        cache.gen = gen;
    }
    struct stack *c = cache.e[h & (TLS_CACHE - 1)];
    if (c && c->hash == h && c->words == words && memcmp(c->key, key, words * sizeof *key) == 0) return c;

    /* new to this thread: make sure every frame's module is in the dump first */
    cmt_modules_cover((const void *const *)(key + 1), (uint32_t)key[0]);

    int k = (int)(h >> 60) & (STRIPES - 1);
    struct stack *s = NULL;
    pthread_mutex_lock(&stripes[k].lock);
    HASH_FIND_BYHASHVALUE(hh, stripes[k].table, key, words * sizeof *key, (unsigned)h, s);
    if (!s) {
        s = malloc(sizeof *s + words * sizeof *key);
        if (s) {
            s->id = atomic_fetch_add(&next_id, 1) + 1;
            s->words = words;
            s->hash = h;
            memcpy(s->key, key, words * sizeof *key);
            stack_oom = 0;
            HASH_ADD_KEYPTR_BYHASHVALUE(hh, stripes[k].table, s->key, words * sizeof *key, (unsigned)h, s);
            if (stack_oom) {
                free(s);
                s = NULL;
            } else {
                emit_stack(s); /* under the lock: nobody can use the id before it is defined */
            }
        }
    }
    pthread_mutex_unlock(&stripes[k].lock);
    if (!s) {
        cmt_counter_add(CMT_CTR_DROPPED_STACKS, 1);
        return NULL;
    }
    cache.e[h & (TLS_CACHE - 1)] = s;
    return s;
}

void cmt_stacks_fork_child(void) {
    /* the forking thread's call-site caches (ids restart in the child): the generation's change
     * makes sc_lookup zero them on their next use */
    sc.gen = 0;
    /* entries stay allocated (another thread may have been inside a table at fork); the ids and
     * the definitions start again in the child's own dump */
    stripes_init();
    atomic_store(&next_id, 0);
    memset(&cache, 0, sizeof cache);
}
CMT_LIFECYCLE(stacks, 30, NULL, cmt_stacks_fork_child);
