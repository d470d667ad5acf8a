/*
 * cmt_stacks.c — see cmt_stacks.h.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

static uint32_t stack_id(const uintptr_t *key, uint32_t words);

static void emit_stack(const struct stack *s) {
    uint32_t n = (uint32_t)s->key[0], npy = (uint32_t)(s->key[0] >> 32);
    const uintptr_t *frames = s->key + 1, *py = frames + n;
    cmt_rec_stack(s->id, frames, n, py, npy);
}

int cmt_stack_raw(void **buf, int n) { return load_unwind() ? unw_backtrace_fn(buf, n) : 0; }

/* ---- the call-site cache ----
 * A training loop allocates from the same call sites with the same stacks again and again. A
 * call site is keyed by (return address into the caller, caller's stack pointer); the second time
 * a key yields the same frames, the stack slots holding each return address are located (scanning
 * upward from the caller's stack pointer, within this thread's stack), and from then on the stack
 * is recognised by checking that every slot still holds its return address: n loads instead of an
 * unwind. Any difference falls back to libunwind. CUMEMTRACK_STACK_CACHE=0 turns it off.
 * The thread's Python frames (walked every time: a few loads each) are part of the key: one
 * native call site in the interpreter serves many Python call sites. */

#define SC_ENTRIES 32
#define SC_MAX_FRAMES 64
#define SC_MAX_PY 64
#define SC_MAX_SCAN (256u << 10)

struct sc_entry {
    uintptr_t ra, sp;
    uint32_t id, n, npy;
    int valid;     /* slots located: hits are verified by loads */
    uintptr_t ip[SC_MAX_FRAMES];
    const uintptr_t *slot[SC_MAX_FRAMES];
    struct cmt_pyframe py[SC_MAX_PY];
};

static __thread struct {
    uint32_t gen;
    int state; /* 0 unknown, 1 usable, -1 not for this thread */
    uintptr_t lo, hi; /* this thread's stack */
    struct sc_entry *e;
} sc __attribute__((tls_model("initial-exec")));

static pthread_key_t sc_key;
static pthread_once_t sc_once = PTHREAD_ONCE_INIT;
static void sc_free(void *p) { free(p); }
static void sc_make_key(void) { pthread_key_create(&sc_key, sc_free); }

static struct sc_entry *sc_lookup(uintptr_t ra, uintptr_t sp) {
    uint32_t gen = atomic_load_explicit(&cmt_generation, memory_order_relaxed);
    if (CMT_UNLIKELY(sc.gen != gen)) {
        sc.gen = gen;
        if (sc.e) memset(sc.e, 0, SC_ENTRIES * sizeof *sc.e);
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
                sc.e = calloc(SC_ENTRIES, sizeof *sc.e);
                if (sc.e) {
                    sc.state = 1;
                    pthread_once(&sc_once, sc_make_key);
                    pthread_setspecific(sc_key, sc.e); /* freed when the thread exits */
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

/* Finds, upward from sp, the stack slot of each return address. */
static bool sc_locate(struct sc_entry *e, uintptr_t sp) {
    const uintptr_t *p = (const uintptr_t *)sp, *end = (const uintptr_t *)sc.hi;
    if ((uintptr_t)end - sp > SC_MAX_SCAN) end = (const uintptr_t *)(sp + SC_MAX_SCAN);
    for (uint32_t i = 0; i < e->n; i++) {
        while (p < end && *p != e->ip[i]) p++;
        if (p >= end) return false;
        e->slot[i] = p++;
    }
    return true;
}

/* The index, from i on, of the next native frame in the interpreter's eval loop (n: none). */
static uint32_t next_eval(const uintptr_t *frames, uint32_t i, uint32_t n) {
    while (i < n && !cmt_python_is_eval(frames[i])) i++;
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
    }
    void *raw[CMT_MAX_FRAMES + OWN_MARGIN];
    int got = unw_backtrace_fn(raw, (int)depth + OWN_MARGIN);
    if (got <= 0) {
        cmt_counter_add(CMT_CTR_UNWIND_FAILED, 1);
        return 0;
    }
    int skip = 0;
    while (skip < got && cmt_is_own_address(raw[skip])) skip++;
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
    uint32_t id = stack_id(key, 1 + n + 2 * k);
    if (ce && id) {
        if (ce->ra == ra && ce->sp == csp && ce->n == n && ce->id == id && !ce->valid && ce->npy == (uint32_t)npy &&
            memcmp(ce->py, py, (size_t)npy * sizeof *py) == 0) {
            /* seen twice with the same frames: worth locating the slots */
            ce->valid = frames[0] == ra && sc_locate(ce, csp - sizeof(uintptr_t));
        } else {
            ce->ra = ra;
            ce->sp = csp;
            ce->n = n;
            ce->id = id;
            ce->valid = 0;
            memcpy(ce->ip, frames, n * sizeof *frames);
            ce->npy = (uint32_t)npy;
            memcpy(ce->py, py, (size_t)npy * sizeof *py);
        }
    }
    return id;
}

/* The id of a stack (inserted, and written as a STACK record, when new). */
static uint32_t stack_id(const uintptr_t *key, uint32_t words) {
    uint64_t h = hash_words(key, words);

    uint32_t gen = atomic_load_explicit(&cmt_generation, memory_order_relaxed);
    if (cache.gen != gen) {
        memset(&cache, 0, sizeof cache);
        cache.gen = gen;
    }
    struct stack *c = cache.e[h & (TLS_CACHE - 1)];
    if (c && c->hash == h && c->words == words && memcmp(c->key, key, words * sizeof *key) == 0)
        return c->id;

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
        return 0;
    }
    cache.e[h & (TLS_CACHE - 1)] = s;
    return s->id;
}

void cmt_stacks_fork_child(void) {
    sc.gen = 0; /* the forking thread's call-site cache: ids restart in the child */
    if (sc.e) memset(sc.e, 0, SC_ENTRIES * sizeof *sc.e);
    /* entries stay allocated (another thread may have been inside a table at fork); the ids and
     * the definitions start again in the child's own dump */
    stripes_init();
    atomic_store(&next_id, 0);
    memset(&cache, 0, sizeof cache);
}
