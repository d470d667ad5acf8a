/*
 * cmt_stacks.c — see cmt_stacks.h.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "cmt_cfi.h"
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
 * words per Python frame: code id | at << 32, line (see PYTHON FRAMES in cmt_format.h).
 *
 * Entries are never freed (other threads' caches keep pointers to them), but an entry of an older
 * epoch (defined before the last unload: never served again) is reused, so a program that loads
 * and unloads a library in a loop keeps as many entries as it has stacks in one epoch, not one set
 * per epoch: a stack met again is defined again in its own entry, and the oldest entries of a
 * stripe, once stale, go to the stripe's free lists (by capacity) for new stacks of that stripe.
 * All under the stripe's lock. The caches read entries without it, so an entry is rewritten as a
 * seqlock whose sequence is its epoch: EPOCH_BUSY while the fields change, then the new epoch,
 * always newer than the old one; a reader takes the fields only if the epoch it read before them
 * is the one it wants and is still there after them (entry_read: the scalars as relaxed atomics,
 * the key with memcmp, the usual seqlock reader's plain reads of what it validates after). */
struct stack {
    UT_hash_handle hh;
    struct stack *free_next;
    uint32_t cap; /* key's capacity in words (fixed) */
    uint32_t id;
    uint64_t hash;
    uint32_t epoch; /* cmt_modules_unloaded when defined: a stack of an older one is never served again */
    uint32_t words; /* (what entry_read reads next to the key: few cache lines) */
    uintptr_t key[];
};

#define EPOCH_BUSY UINT32_MAX
#define KEY_MAX_WORDS (1 + 3 * CMT_MAX_FRAMES)
#define GRAIN 8 /* key capacities are multiples of GRAIN words: an entry serves keys of its class */
#define CLASSES ((KEY_MAX_WORDS + GRAIN - 1) / GRAIN + 1)

static struct {
    pthread_mutex_t lock;
    struct stack *table;         /* in definition order (uthash's list): the oldest first */
    struct stack *free[CLASSES]; /* stale entries taken out of the table, by capacity / GRAIN */
} stripes[STRIPES];

static _Atomic uint32_t next_id;
static _Atomic int unwind_state; /* 0 unknown, 1 loaded, 2 missing */
static int (*unw_backtrace_fn)(void **, int);
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
        memset(stripes[i].free, 0, sizeof stripes[i].free);
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

/* Whether entry s holds, for epoch, the stack whose key is head, then the words - 1 of rest (hash h,
 * or 0: not checked), read without the stripe's lock; *id: its id then. */
static inline __attribute__((always_inline)) bool entry_read(const struct stack *s, uint32_t epoch, uint64_t h,
                                                             uintptr_t head, const uintptr_t *rest, uint32_t words,
                                                             uint32_t *id) {
    if (__atomic_load_n(&s->epoch, __ATOMIC_ACQUIRE) != epoch) return false;
    if ((h && __atomic_load_n(&s->hash, __ATOMIC_RELAXED) != h) ||
        __atomic_load_n(&s->words, __ATOMIC_RELAXED) != words || words > s->cap ||
        __atomic_load_n(&s->key[0], __ATOMIC_RELAXED) != head)
        return false;
    /* (memcmp, as fast as the hot path needs, may read a key being rewritten: the epoch read again
     * below discards such a read) */
    if (memcmp(s->key + 1, rest, (words - 1) * sizeof *rest) != 0) return false;
    uint32_t got = __atomic_load_n(&s->id, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&s->epoch, __ATOMIC_RELAXED) != epoch) return false; /* rewritten meanwhile */
    *id = got;
    return true;
}

/* (Re)defines entry s (under its stripe's lock) as the stack of key for epoch, with id: the
 * writer's side of entry_read. */
static void entry_write(struct stack *s, uint32_t epoch, uint64_t h, const uintptr_t *key, uint32_t words,
                        uint32_t id) {
    __atomic_store_n(&s->epoch, EPOCH_BUSY, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&s->hash, h, __ATOMIC_RELAXED);
    __atomic_store_n(&s->words, words, __ATOMIC_RELAXED);
    for (uint32_t i = 0; i < words; i++)
        __atomic_store_n(&s->key[i], key[i], __ATOMIC_RELAXED);
    __atomic_store_n(&s->id, id, __ATOMIC_RELAXED);
    __atomic_store_n(&s->epoch, epoch, __ATOMIC_RELEASE);
}

static uint32_t stack_intern(const uintptr_t *key, uint32_t words, struct stack **entry);

/* CUMEMTRACK_TEST_REDEFINE_US=N (tests): a definition waits N microseconds between its STACK
 * record and its entry's publication, to widen the window in which a reader without the lock (the
 * per-thread and layout caches) must not see the new id; 0 or unset: no wait. Read once. */
static _Atomic int test_redefine_us = -1;
static void test_redefine_wait(void) {
    int us = atomic_load_explicit(&test_redefine_us, memory_order_relaxed);
    if (us < 0) {
        const char *v = getenv("CUMEMTRACK_TEST_REDEFINE_US");
        us = v ? atoi(v) : 0;
        atomic_store_explicit(&test_redefine_us, us > 0 ? us : 0, memory_order_relaxed);
    }
    if (us > 0) {
        struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};
        nanosleep(&ts, NULL);
    }
}

static void emit_stack(uint32_t id, const uintptr_t *key) {
    uint32_t n = (uint32_t)key[0], npy = (uint32_t)(key[0] >> 32);
    const uintptr_t *frames = key + 1, *py = frames + n;
    cmt_rec_stack(id, frames, n, py, npy);
}

int cmt_stack_raw(void **buf, int n) {
    return load_unwind() ? unw_backtrace_fn(buf, n) : 0;
}

/* ---- the per-thread stack caches ----
 * A training loop allocates from the same call sites with the same stacks again and again. A
 * call site is keyed by (return address into the caller, caller's stack pointer). A cache may make
 * a stack cheaper, never different: it serves a stack only with a proof that unwinding would give
 * it. Unwinding (libunwind's fast trace, which unw_backtrace is) walks each frame by the rule of
 * its return address in the DWARF call frame information (cmt_cfi.h): CFA = rsp or rbp + a
 * constant, the next return address at CFA - 8, the caller's rbp unchanged or loaded from CFA + a
 * constant, rsp = CFA; it stops at a frame whose return address is undefined, or at a return
 * address below 0x4000. So, from the call site's stack pointer and rbp (the wrapper's saved rbp),
 * the stack is a function of the return addresses' rules (fixed by the return addresses) and of
 * the stack words the walk reads: the return-address slots, each saved rbp value a CFA was then
 * computed from, and the word that ended the walk. When a stack is unwound at a call site, that
 * walk is replayed with the rules (the slots it reads must give libunwind's frames, or nothing is
 * cached) and every word it read is noted with its value (at offsets from the call site's slot:
 * every entry is for one stack pointer): the stack's proof. A stack is served only where every noted word holds its
 * noted value: then the walk would read the same words and give the same stack. A frame realigned or sized with alloca
 * is rbp-based: its caller's slot moves with rbp, and rbp is among the words checked, so stale return addresses left in
 * the old slots prove nothing. A frame whose rule is anything else (no CFI, a CFA expression, a signal frame) makes its
 * stacks uncacheable: always unwound. Two caches hold proofs:
 *  - the call-site cache (SC_ENTRIES direct-mapped entries, Python frames included: one native
 *    call site in the interpreter serves many Python call sites; the thread's Python frames are
 *    walked every time, a few loads each): the last stack met at each key and its proof;
 *  - the layout cache, below, for the many stacks one key can have.
 * Anything else falls back to unw_backtrace, which CUMEMTRACK_STACK_CACHE=0 uses for every
 * stack. */

#define SC_ENTRIES 32
#define SC_MAX_FRAMES 64
#define SC_MAX_CHECKS (SC_MAX_FRAMES + 2)
#define SC_MAX_PY 64

/* A stack's proof at a call site: the words the walk reads, as word offsets from the call site's
 * return-address slot (csp - 1 word), with the values they must hold: the return addresses (the
 * stack's own frames), then the other words (saved rbp values: stack addresses, valid for this
 * call site's stack pointer only, as every cache entry is; the word that ended the walk). */
struct proof {
    uint32_t n, m;
    int16_t off[SC_MAX_FRAMES];
    int16_t xoff[SC_MAX_CHECKS];
    uintptr_t xval[SC_MAX_CHECKS];
};

struct sc_entry {
    uintptr_t ra, sp;
    uint32_t id, n, npy, m;
    int valid; /* a proof is held: hits are verified by loads */
    struct {
        const uintptr_t *at;
        uintptr_t val;
    } chk[SC_MAX_FRAMES + SC_MAX_CHECKS]; /* the n return addresses' and the m other words' */
    struct cmt_pyframe py[SC_MAX_PY];
};

/* ---- the layout cache (native stacks: no Python frames on this thread) ----
 * Many stacks can share a call-site key: a call site reached from 10 000 different callers has one
 * key and 10 000 stacks, usually with their return addresses at the same places and the same
 * saved rbp values (one "layout": a proof less the return addresses' values). A layout is
 * remembered per key (LY_WAYS per set of keys), and a stack by (layout, the values at its slots)
 * in a set-associative table (ST_SETS x ST_WAYS, LRU per set). A call checks the other words of
 * each layout of its key, loads its slots (independent loads), hashes the values with the layout's
 * serial, and takes the stack whose frames equal the values word for word. Each stack is entered
 * under its own layout only. Bounded: about 2 MiB per thread with the call-site cache and the
 * rules, mapped with the thread's first stack (anonymous pages, touched as used; mmap rather than
 * malloc, so that freeing a block this size never moves glibc's dynamic mmap and trim thresholds,
 * which the application's own allocations depend on). */

#define LY_SETS 512
#define LY_WAYS 4
#define ST_SETS 4096
#define ST_WAYS 8

struct layout {
    uintptr_t ra, sp;
    uint32_t serial, n, m; /* serial 0: empty */
    int16_t off[SC_MAX_FRAMES];
    int16_t xoff[SC_MAX_CHECKS];
    uintptr_t xval[SC_MAX_CHECKS];
};

struct st_way {
    uint64_t tag;
    struct stack *s;
};

/* A return address's unwinding rule (cmt_cfi.h), read once per thread */
#define RU_SLOTS 4096
#define RU_PROBE 8

struct rslot {
    uintptr_t ip; /* 0: empty */
    struct cmt_cfi_rule r;
};

struct tcache {
    struct sc_entry e[SC_ENTRIES];
    struct rslot ru[RU_SLOTS];
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
    uint32_t epoch = atomic_load_explicit(&cmt_modules_unloaded, memory_order_acquire);
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
    uintptr_t d = 0;
    for (uint32_t i = 0, k = e->n + e->m; i < k; i++)
        d |= *e->chk[i].at ^ e->chk[i].val;
    return d == 0;
}

static inline uint64_t mix64(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

/* The rule of return address ip (cmt_cfi.h), from this thread's table. */
static struct cmt_cfi_rule rule_of(uintptr_t ip) {
    struct rslot *t = sc.t->ru, *e = NULL;
    uint32_t h = (uint32_t)(mix64(ip) & (RU_SLOTS - 1));
    for (uint32_t i = 0; i < RU_PROBE; i++) {
        struct rslot *x = &t[(h + i) & (RU_SLOTS - 1)];
        if (x->ip == ip) return x->r;
        if (!x->ip) {
            e = x;
            break;
        }
    }
    if (!e) e = &t[h]; /* the window is full: the first one is replaced */
    e->r = cmt_cfi_rule(ip);
    e->ip = ip;
    return e->r;
}

/* Notes that stack word at holds v. */
static bool note(struct proof *pf, const uintptr_t *base, const uintptr_t *at, uintptr_t v) {
    if (pf->m == SC_MAX_CHECKS || at < base - 1 || at - base > INT16_MAX) return false;
    pf->xoff[pf->m] = (int16_t)(at - base);
    pf->xval[pf->m] = v;
    pf->m++;
    return true;
}

/* Replays the walk of the n frames[] that unw_backtrace gave at call site (frames[0], csp), the
 * caller's rbp being the wrapper's saved one (csp - 2 words), with each return address's rule,
 * reading stack words above csp only; ended: the stack ended after frames[n - 1] (else it went on
 * past the depth). Fills pf and returns true when the walk reads frames[] exactly and ends (if
 * ended) for a reason that is a rule or a word it read; false: nothing to cache. */
static bool prove(const uintptr_t *frames, uint32_t n, uintptr_t csp, bool ended, struct proof *pf) {
    const uintptr_t *base = (const uintptr_t *)csp - 1, *bp_at = base - 1;
    uintptr_t sp = csp, bp = *bp_at;
    bool bp_noted = false;
    pf->n = n;
    pf->m = 0;
    pf->off[0] = 0;
    for (uint32_t i = 0;; i++) {
        if (i + 1 == n && !ended) return true;
        struct cmt_cfi_rule r = rule_of(frames[i]);
        if (r.kind == CMT_CFI_LAST) return i + 1 == n; /* libunwind's last frame */
        if (r.kind != CMT_CFI_STEP) return false;
        if (r.cfa_bp && !bp_noted) {
            if (!note(pf, base, bp_at, bp)) return false;
            bp_noted = true;
        }
        uintptr_t cfa = (r.cfa_bp ? bp : sp) + (intptr_t)r.cfa_off;
        const uintptr_t *at = (const uintptr_t *)(cfa - sizeof *at);
        if (cfa <= sp || cfa > sc.hi || (cfa & (sizeof *at - 1)) || at - base > INT16_MAX) return false;
        uintptr_t v = *at;
        if (i + 1 == n) return v < 0x4000 && note(pf, base, at, v); /* where libunwind stops */
        if (v != frames[i + 1]) return false;
        pf->off[i + 1] = (int16_t)(at - base);
        if (r.bp_saved) {
            bp_at = (const uintptr_t *)(cfa + (intptr_t)r.bp_off);
            if (bp_at < base - 1 || (uintptr_t)bp_at >= sc.hi || ((uintptr_t)bp_at & (sizeof *at - 1))) return false;
            bp = *bp_at;
            bp_noted = false;
        }
        sp = cfa;
    }
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

static void sc_note(struct sc_entry *e, uintptr_t ra, uintptr_t sp, uint32_t id, uint32_t n, const uintptr_t *frames,
                    const struct layout *l);

/* The id of the native stack (no Python frames) at call site (ra, sp), when one of the site's
 * layouts finds a stack this thread has met there (then noted in the site's call-site entry ce:
 * sc_note); 0 otherwise. sc_lookup(ra, sp) has said the thread's caches are usable and sp is on its
 * stack. */
static uint32_t lc_find(uintptr_t ra, uintptr_t sp, struct sc_entry *ce) {
    struct layout *set = ly_set(ra, sp);
    const uintptr_t *base = (const uintptr_t *)sp - 1;
    for (int w = 0; w < LY_WAYS; w++) {
        const struct layout *l = &set[w];
        if (l->ra != ra || l->sp != sp || !l->serial) continue;
        uintptr_t d = 0;
        for (uint32_t j = 0; j < l->m; j++)
            d |= base[l->xoff[j]] ^ l->xval[j];
        if (d) continue; /* the walk would read other words: not this layout */
        uint32_t n = l->n, id;
        uintptr_t v[SC_MAX_FRAMES];
        uint64_t h = 0;
        for (uint32_t i = 0; i < n; i++)
            h = values_step(h, v[i] = base[l->off[i]]);
        uint64_t tag = values_tag(l->serial, h, n);
        struct st_way *ways = st_set(tag);
        for (int k = 0; k < ST_WAYS; k++) {
            struct stack *s = ways[k].s;
            if (ways[k].tag != tag || !s || !entry_read(s, sc.epoch, 0, n, v, n + 1, &id)) continue;
            if (k) { /* most recently used first */
                struct st_way hit = ways[k];
                memmove(ways + 1, ways, (size_t)k * sizeof *ways);
                ways[0] = hit;
            }
            sc_note(ce, ra, sp, id, n, v, l);
            return id;
        }
    }
    return 0;
}

/* Call-site entry e holds the stack of n frames with its proof (off, xoff: offsets from the
 * return-address slot of call site sp; xval: the other words' values). */
static void sc_fill(struct sc_entry *e, uintptr_t sp, uint32_t n, const uintptr_t *frames, const int16_t *off,
                    uint32_t m, const int16_t *xoff, const uintptr_t *xval) {
    const uintptr_t *base = (const uintptr_t *)sp - 1;
    e->n = n;
    e->m = m;
    /* in address order (the stack words are read as the old slot checks read them: the return
     * addresses and saved rbp values mixed, one cache line after the other; an insertion sort of a
     * few dozen words, once per entry) */
    for (uint32_t i = 0, k = 0; i < n + m; i++, k++) {
        const uintptr_t *a = i < n ? base + off[i] : base + xoff[i - n];
        uintptr_t v = i < n ? frames[i] : xval[i - n];
        uint32_t j = k;
        for (; j > 0 && e->chk[j - 1].at > a; j--)
            e->chk[j] = e->chk[j - 1];
        e->chk[j].at = a;
        e->chk[j].val = v;
    }
}

/* A layout-cache hit of stack id (n frames) at call site (ra, sp), whose call-site entry is e: the second hit
 * in a row of the same stack there makes e valid (its proof is the layout's), so a call site that
 * keeps its stack is then recognised by the call-site checks alone. The first one only notes the
 * stack (n stays 0: the unwinding path never takes e for a stack seen once). */
static void sc_note(struct sc_entry *e, uintptr_t ra, uintptr_t sp, uint32_t id, uint32_t n, const uintptr_t *frames,
                    const struct layout *l) {
    if (e->valid || e->ra != ra || e->sp != sp || e->id != id || e->n || e->npy) {
        e->ra = ra;
        e->sp = sp;
        e->id = id;
        e->n = e->npy = e->m = 0;
        e->valid = 0;
        return;
    }
    sc_fill(e, sp, n, frames, l->off, l->m, l->xoff, l->xval);
    e->valid = 1;
}

/* Remembers native stack s (its pf->n frames, frames[0] == ra) unwound at call site (ra, sp) with
 * its proof pf: its layout, then the stack under that layout. */
static void lc_add(uintptr_t ra, uintptr_t sp, struct stack *s, const uintptr_t *frames, const struct proof *pf) {
    uint32_t n = pf->n, m = pf->m;
    struct layout *set = ly_set(ra, sp), *l = NULL;
    for (int w = 0; w < LY_WAYS && !l; w++) {
        struct layout *c = &set[w];
        if (c->serial && c->ra == ra && c->sp == sp && c->n == n && c->m == m &&
            !memcmp(c->off, pf->off, n * sizeof *c->off) && !memcmp(c->xoff, pf->xoff, m * sizeof *c->xoff) &&
            !memcmp(c->xval, pf->xval, m * sizeof *c->xval))
            l = c;
    }
    if (!l) { /* a new layout replaces the oldest */
        memmove(set + 1, set, (LY_WAYS - 1) * sizeof *set);
        l = &set[0];
        l->ra = ra;
        l->sp = sp;
        l->n = n;
        l->m = m;
        l->serial = ++sc.t->serial ? sc.t->serial : ++sc.t->serial;
        memcpy(l->off, pf->off, n * sizeof *l->off);
        memcpy(l->xoff, pf->xoff, m * sizeof *l->xoff);
        memcpy(l->xval, pf->xval, m * sizeof *l->xval);
    }
    uint64_t h = 0;
    for (uint32_t i = 0; i < n; i++)
        h = values_step(h, frames[i]);
    uint64_t tag = values_tag(l->serial, h, n);
    struct st_way *ways = st_set(tag);
    memmove(ways + 1, ways, (ST_WAYS - 1) * sizeof *ways);
    ways[0] = (struct st_way){tag, s};
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
        /* (no memcmp call when there are no Python frames: glibc's AVX-512 memcmp reads its
         * empty operands with masked loads, which cost a microcode assist on every call while
         * ce->py's page has never been touched) */
        if (ce && ce->valid && ce->ra == ra && ce->sp == csp && ce->npy == (uint32_t)npy &&
            (!npy || memcmp(ce->py, py, (size_t)npy * sizeof *py) == 0) && sc_verify(ce))
            return ce->id;
        if (ce && npy == 0) {
            uint32_t id = lc_find(ra, csp, ce);
            if (id) return id;
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
    struct stack *s;
    uint32_t id = stack_intern(key, 1 + n + 2 * k, &s);
    if (!id) return 0;
    /* n < depth: the stack ended there, unless the buffer was full of the tracker's own frames */
    struct proof pf;
    if (ce && frames[0] == ra && (n == depth || got < (int)depth + OWN_MARGIN) &&
        prove(frames, n, csp, n < depth, &pf)) {
        if (npy == 0) lc_add(ra, csp, s, key + 1, &pf);
        ce->ra = ra;
        ce->sp = csp;
        ce->id = id;
        sc_fill(ce, csp, n, key + 1, pf.off, pf.m, pf.xoff, pf.xval);
        ce->npy = (uint32_t)npy;
        memcpy(ce->py, py, (size_t)npy * sizeof *py);
        ce->valid = 1;
    } else if (ce) {
        ce->valid = 0;
    }
    return id;
}

/* Takes stale entries (of an epoch before epoch) out of the head of stripe k's table, the oldest
 * first, into its free lists: at most a few per call, so that each stack defined sweeps more than
 * it adds. Under the stripe's lock. */
static void sweep(int k, uint32_t epoch) {
    for (int i = 0; i < 2; i++) {
        struct stack *s = stripes[k].table;
        if (!s || s->epoch >= epoch) return; /* (the table is in definition order: the rest is newer) */
        HASH_DELETE(hh, stripes[k].table, s);
        s->free_next = stripes[k].free[s->cap / GRAIN];
        stripes[k].free[s->cap / GRAIN] = s;
    }
}

/* An entry for a key of words in stripe k (under its lock): a stale one of its free lists that is
 * large enough (the smallest such), else a new one; NULL: no memory. */
static struct stack *entry_get(int k, uint32_t words, uint32_t epoch) {
    for (uint32_t c = (words + GRAIN - 1) / GRAIN; c < CLASSES; c++) {
        struct stack **at = &stripes[k].free[c];
        while (*at && (*at)->epoch >= epoch) /* (entries of this epoch: only for a later one) */
            at = &(*at)->free_next;
        if (*at) {
            struct stack *s = *at;
            *at = s->free_next;
            return s;
        }
    }
    uint32_t cap = (words + GRAIN - 1) / GRAIN * GRAIN;
    struct stack *s = malloc(sizeof *s + cap * sizeof s->key[0]);
    if (s) {
        s->cap = cap;
        s->epoch = 0;
    }
    return s;
}

/* The id of a stack in the global table (inserted, and written as a STACK record, when new; 0: no
 * memory); *entry: its entry. */
static uint32_t stack_intern(const uintptr_t *key, uint32_t words, struct stack **entry) {
    uint64_t h = hash_words(key, words);
    uint32_t id;

    uint32_t gen = atomic_load_explicit(&cmt_generation, memory_order_relaxed);
    if (cache.gen != gen) {
        memset(&cache, 0, sizeof cache);
        cache.gen = gen;
    }
    uint32_t epoch = atomic_load_explicit(&cmt_modules_unloaded, memory_order_acquire);
    struct stack *c = cache.e[h & (TLS_CACHE - 1)];
    if (c && entry_read(c, epoch, h, key[0], key + 1, words, &id)) {
        *entry = c;
        return id;
    }

    /* new to this thread: make sure every frame's module is in the dump first */
    cmt_modules_cover((const void *const *)(key + 1), (uint32_t)key[0]);

    int k = (int)(h >> 60) & (STRIPES - 1);
    struct stack *s = NULL;
    id = 0;
    pthread_mutex_lock(&stripes[k].lock);
    HASH_FIND_BYHASHVALUE(hh, stripes[k].table, key, words * sizeof *key, (unsigned)h, s);
    if (s && s->epoch >= epoch) {
        id = s->id; /* (one of a newer epoch, when a library was unloaded since epoch was read: as good) */
    } else {
        /* new, or defined before a library was unloaded: its addresses may now be another library's,
         * so the stack is defined again (a new id), after the module records of what is mapped now;
         * a stale entry of this key is redefined in place, others are swept out for reuse */
        if (s) HASH_DELETE(hh, stripes[k].table, s);
        sweep(k, epoch);
        if (!s) s = entry_get(k, words, epoch);
        if (s) {
            /* linked first (uthash keeps the key's address and the hash, it reads no key here), so that
             * no memory means the entry is left as it was */
            stack_oom = 0;
            HASH_ADD_KEYPTR_BYHASHVALUE(hh, stripes[k].table, s->key, words * sizeof *key, (unsigned)h, s);
            if (stack_oom) { /* unchanged: stale, or new to everyone */
                s->free_next = stripes[k].free[s->cap / GRAIN];
                stripes[k].free[s->cap / GRAIN] = s;
                s = NULL;
            } else {
                id = atomic_fetch_add(&next_id, 1) + 1;
                /* defined first: a reused entry is read without the lock (the per-thread and layout
                 * caches), so its new id must not be seen before its STACK record has a number */
                emit_stack(id, key);
                if (__builtin_expect(atomic_load_explicit(&test_redefine_us, memory_order_relaxed) != 0, 0))
                    test_redefine_wait();
                entry_write(s, epoch, h, key, words, id);
            }
        }
    }
    pthread_mutex_unlock(&stripes[k].lock);
    if (!s) {
        cmt_counter_add(CMT_CTR_DROPPED_STACKS, 1);
        return 0;
    }
    cache.e[h & (TLS_CACHE - 1)] = s;
    *entry = s;
    return id;
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
