/*
 * cmt_python.c — see cmt_python.h.
 *
 * Safety: a hook may run on a thread that holds the GIL (ctypes.PyDLL, a C extension) or not
 * (ctypes.CDLL, PyTorch ops). Either way the thread's own frame chain cannot change while it is
 * inside the hook: only this thread pushes and pops its frames. The thread state comes from
 * PyGILState_GetThisThreadState (the gilstate TSS: pthread_getspecific), never from the GIL
 * holder. The only interpreter functions called are Py_IsInitialized (reads a flag),
 * PyGILState_GetThisThreadState (reads a TSS slot) and PyCode_Addr2Line (reads the immutable line
 * table): none allocates, locks or raises. Strings are read from the unicode objects' own storage.
 * Every frame and code object is checked (alignment, type pointer, owner, instruction bounds);
 * one that does not look right ends the walk and counts in python_walk_failed.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmt_internal.h"
#include "cmt_records.h"
#include "cmt_python.h"
#include "cmt_wire.h"
#include "cmt_writer.h"


static const struct cmt_py_layout layouts[] = {
#define CMT_PY_ENTRY(mi, la, tf, cc, fc, fp, fi, fo, cs, fe, cf, cn, cq, co, cl, ua, uc, uu)       \
    {mi, la, tf, cc, fc, fp, fi, fo, cs, fe, cf, cn, cq, co, cl, ua, uc, uu},
    CMT_PY_LAYOUTS(CMT_PY_ENTRY)
#undef CMT_PY_ENTRY
};

enum { PY_UNKNOWN, PY_ON, PY_ABSENT, PY_UNSUPPORTED };
static _Atomic int state;
static pthread_mutex_t detect_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct cmt_py_layout *L;
static void *(*get_tstate)(void);
static int (*is_initialized)(void);
static int (*addr2line)(void *, int);
static uintptr_t code_type, frame_type, unicode_type;
static uintptr_t eval_lo, eval_hi;
static char note[256];
static char note_ver[64];          /* the version the note names ("3.11.7") */
static unsigned note_state;        /* enum cmt_py_state of the note (format 2.3: PYTHON record) */
static uint32_t note_hex;          /* major << 16 | minor << 8 | micro, 0 when unknown */
static _Atomic uint32_t note_gen; /* generation + 1 whose dump has the note */

static inline uintptr_t ld(uintptr_t base, int off) {
    return *(const uintptr_t *)(base + (uintptr_t)off);
}

/* ---- detection ---- */

static int find_libpython(struct dl_phdr_info *info, size_t size, void *arg) {
    (void)size;
    const char *b = strrchr(info->dlpi_name, '/');
    b = b ? b + 1 : info->dlpi_name;
    if (strncmp(b, "libpython3.", 11) == 0) {
        snprintf((char *)arg, 4096, "%s", info->dlpi_name);
        return 1;
    }
    return 0;
}

static void *sym(void *h, const char *name) {
    return cmt_real_dlsym ? cmt_real_dlsym(h, name) : NULL;
}

/* "3.11.7" from Py_Version (3.11+) or Py_GetVersion; CUMEMTRACK_PYTHON_VERSION (internal, for
 * tests) replaces the version used to pick the layout. */
static int version(void *h, char *buf, size_t len) {
    const uint32_t *hex = sym(h, "Py_Version");
    if (hex)
        snprintf(buf, len, "%u.%u.%u", *hex >> 24, (*hex >> 16) & 0xff, (*hex >> 8) & 0xff);
    else {
        const char *(*gv)(void) = (const char *(*)(void))sym(h, "Py_GetVersion");
        const char *v = gv ? gv() : NULL;
        if (!v) return -1;
        size_t n = strcspn(v, " ");
        snprintf(buf, len, "%.*s", (int)(n < 32 ? n : 32), v);
    }
    const char *o = getenv("CUMEMTRACK_PYTHON_VERSION");
    if (o && *o) snprintf(buf, len, "%s", o);
    unsigned major = 0, minor = 0;
    if (sscanf(buf, "%u.%u", &major, &minor) != 2 || major != 3) return -1;
    return (int)minor;
}

static void detect(void) {
    void *h = RTLD_DEFAULT;
    if (!sym(h, "PyGILState_GetThisThreadState")) {
        static char path[4096];
        path[0] = 0;
        dl_iterate_phdr(find_libpython, path);
        h = path[0] && cmt_real_dlopen ? cmt_real_dlopen(path, RTLD_LAZY | RTLD_NOLOAD) : NULL;
        if (!h || !sym(h, "PyGILState_GetThisThreadState")) {
            atomic_store(&state, PY_ABSENT);
            return;
        }
    }
    char ver[64] = "?";
    int minor = version(h, ver, sizeof ver);
    const struct cmt_py_layout *l = NULL;
    for (size_t i = 0; i < sizeof layouts / sizeof *layouts; i++)
        if (layouts[i].minor == minor) l = &layouts[i];
    get_tstate = (void *(*)(void))sym(h, "PyGILState_GetThisThreadState");
    is_initialized = (int (*)(void))sym(h, "Py_IsInitialized");
    addr2line = (int (*)(void *, int))sym(h, "PyCode_Addr2Line");
    code_type = (uintptr_t)sym(h, "PyCode_Type");
    unicode_type = (uintptr_t)sym(h, "PyUnicode_Type");
    frame_type = (uintptr_t)sym(h, "PyFrame_Type");
    unsigned vmaj = 0, vmin = 0, vmic = 0;
    snprintf(note_ver, sizeof note_ver, "%.32s", ver);
    if (sscanf(ver, "%u.%u.%u", &vmaj, &vmin, &vmic) >= 2 && vmaj < 256 && vmin < 256 && vmic < 256)
        note_hex = vmaj << 16 | vmin << 8 | vmic;
    note_state = CMT_PY_NO_LAYOUT;
    if (!l) {
        snprintf(note, sizeof note,
                 "CPython %.32s has no frame layout entry in this cumemtrack: native-only stacks",
                 ver);
        atomic_store(&state, PY_UNSUPPORTED);
        return;
    }
    if (!get_tstate || !is_initialized || !addr2line || !code_type || !unicode_type ||
        (l->lasti && !frame_type)) {
        note_state = CMT_PY_NO_SYMBOLS;
        snprintf(note, sizeof note,
                 "CPython %.32s lacks the symbols Python frames need: native-only stacks", ver);
        atomic_store(&state, PY_UNSUPPORTED);
        return;
    }
    /* the table describes default builds: a type object's ob_type is at offset 8 there, not in a
     * free-threaded (3.13t) or Py_TRACE_REFS build, whose layouts differ */
    uintptr_t type_type = (uintptr_t)sym(h, "PyType_Type");
    if (!type_type || ld(code_type, 8) != type_type) {
        note_state = CMT_PY_OBJECT_LAYOUT;
        snprintf(note, sizeof note,
                 "CPython %.32s has an object layout this cumemtrack does not know (free-threaded "
                 "or debug build?): "
                 "native-only stacks",
                 ver);
        atomic_store(&state, PY_UNSUPPORTED);
        return;
    }
    void *ev = sym(h, "_PyEval_EvalFrameDefault");
    Dl_info di;
    const ElfW(Sym) *es = NULL;
    if (ev && dladdr1(ev, &di, (void **)&es, RTLD_DL_SYMENT) && es && es->st_size) {
        eval_lo = (uintptr_t)ev;
        eval_hi = (uintptr_t)ev + es->st_size;
    }
    L = l;
    note_state = eval_hi ? CMT_PY_ON : CMT_PY_ON_NO_EVAL;
    snprintf(note, sizeof note, "CPython %.32s: Python frames on%s", ver,
             eval_hi ? "" : " (eval loop not found: Python frames after the native ones)");
    atomic_store_explicit(&state, PY_ON, memory_order_release);
}

void cmt_python_mark_dirty(void) {
    int s = PY_ABSENT;
    atomic_compare_exchange_strong(&state, &s, PY_UNKNOWN);
}

static void emit_note(void) {
    uint32_t g = atomic_load_explicit(&cmt_generation, memory_order_relaxed) + 1;
    if (CMT_LIKELY(atomic_load_explicit(&note_gen, memory_order_relaxed) == g)) return;
    if (atomic_exchange(&note_gen, g) == g || !note[0]) return;
    cmt_rec_info("python", note);
    cmt_rec_python(note_state, note_hex, note_ver); /* the same, as codes (format 2.3) */
}

/* PY_ON when Python frames can be walked in this process. */
static bool ready(void) {
    int s = atomic_load_explicit(&state, memory_order_acquire);
    if (CMT_UNLIKELY(s == PY_UNKNOWN)) {
        pthread_mutex_lock(&detect_lock);
        if (atomic_load(&state) == PY_UNKNOWN) detect();
        pthread_mutex_unlock(&detect_lock);
        s = atomic_load_explicit(&state, memory_order_acquire);
    }
    if (s == PY_ON || s == PY_UNSUPPORTED) emit_note();
    return s == PY_ON;
}

/* ---- the walk ---- */

static inline bool is_code(uintptr_t c) {
    return c && !(c & 7) && ld(c, 8) == code_type;
}

int cmt_python_walk(struct cmt_pyframe *out, int max) {
    if (!cmt_cfg.python || max <= 0 || !ready() || !is_initialized()) return 0;
    uintptr_t ts = (uintptr_t)get_tstate();
    if (!ts || (ts & 7)) return 0;
    const struct cmt_py_layout *l = L;
    int n = 0;
    uintptr_t f = ld(ts, l->ts_frame);
    if (l->lasti) { /* PyFrameObject chain: one eval-loop invocation per frame */
        for (; f && n < max; f = ld(f, l->fr_prev)) {
            if ((f & 7) || ld(f, 8) != frame_type) goto bad;
            uintptr_t code = ld(f, l->fr_code);
            if (!is_code(code)) goto bad;
            int lasti = *(const int *)(f + (uintptr_t)l->fr_instr);
            int64_t size = *(const int64_t *)(ld(code, l->co_code) + 16); /* PyBytes ob_size */
            int64_t off = lasti < 0 ? -1 : (int64_t)lasti * l->lasti;
            if (off >= size) goto bad;
            out[n++] = (struct cmt_pyframe){code, (int32_t)off, 1};
        }
        return n;
    }
    if (l->cf_cur >= 0) f = f ? ld(f, l->cf_cur) : 0;
    for (int steps = 0; f && n < max; f = ld(f, l->fr_prev)) {
        if ((f & 7) || ++steps > 2 * max + 16) goto bad;
        int owner = *(const signed char *)(f + (uintptr_t)l->fr_owner);
        if (owner < 0 || owner > 3) goto bad;
        if (owner == l->cstack) { /* the shim an eval-loop invocation starts with */
            if (n) out[n - 1].entry = 1;
            continue;
        }
        uintptr_t code = ld(f, l->fr_code);
        if (!is_code(code)) goto bad;
        int64_t units = *(const int64_t *)(code + 16); /* Py_SIZE: code units */
        int64_t off = (int64_t)(ld(f, l->fr_instr) - (code + (uintptr_t)l->co_code));
        if (off < 0) off = -1; /* not started (3.11/3.12: prev_instr = first - 1) */
        if (off >= units * 2) goto bad;
        uint32_t entry =
            l->fr_entry >= 0 ? *(const unsigned char *)(f + (uintptr_t)l->fr_entry) != 0 : 0;
        out[n++] = (struct cmt_pyframe){code, (int32_t)off, entry};
    }
    if (n && !f) out[n - 1].entry = 1;
    return n;
bad:
    cmt_counter_add(CMT_CTR_PYTHON_WALK_FAILED, 1);
    if (n) out[n - 1].entry = 1;
    return n;
}

bool cmt_python_is_eval(uintptr_t ip) {
    return ip > eval_lo && ip <= eval_hi;
}

/* ---- strings ---- */

static size_t put_utf8(char *o, uint32_t c) {
    if (c < 0x80) return o[0] = (char)c, 1;
    if (c < 0x800) return o[0] = (char)(0xc0 | c >> 6), o[1] = (char)(0x80 | (c & 0x3f)), 2;
    if (c < 0x10000)
        return o[0] = (char)(0xe0 | c >> 12), o[1] = (char)(0x80 | ((c >> 6) & 0x3f)),
               o[2] = (char)(0x80 | (c & 0x3f)), 3;
    o[0] = (char)(0xf0 | c >> 18), o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((c >> 6) & 0x3f)), o[3] = (char)(0x80 | (c & 0x3f));
    return 4;
}

/* Copies a str object's text (UTF-8) into buf (NUL-terminated, cut to fit); "?" when it is not one.
 */
static void read_str(uintptr_t s, char *buf, size_t cap) {
    snprintf(buf, cap, "?");
    if (!s || (s & 7) || ld(s, 8) != unicode_type) return;
    int64_t len = *(const int64_t *)(s + 16);
    uint32_t st = *(const uint32_t *)(s + 32);
    unsigned kind = (st >> 2) & 7, compact = (st >> 5) & 1, ascii = (st >> 6) & 1;
    if (len < 0 || !compact) return;
    if (ascii) {
        size_t n = (size_t)len < cap - 1 ? (size_t)len : cap - 1;
        memcpy(buf, (const char *)(s + (uintptr_t)L->u_ascii), n);
        buf[n] = 0;
        return;
    }
    const char *u = (const char *)ld(s, L->u_utf8);
    if (u) {
        int64_t ulen = *(const int64_t *)(s + (uintptr_t)L->u_utf8 - 8);
        size_t n = ulen >= 0 && (size_t)ulen < cap - 1 ? (size_t)ulen : cap - 1;
        memcpy(buf, u, n);
        buf[n] = 0;
        return;
    }
    if (kind != 1 && kind != 2 && kind != 4) return;
    const uint8_t *d = (const uint8_t *)(s + (uintptr_t)L->u_compact);
    size_t o = 0;
    for (int64_t i = 0; i < len && o + 5 < cap; i++) {
        uint32_t c = kind == 1   ? d[i]
                     : kind == 2 ? ((const uint16_t *)d)[i]
                                 : ((const uint32_t *)d)[i];
        o += put_utf8(buf + o, c > 0x10ffff ? '?' : c);
    }
    buf[o] = 0;
}

/* ---- interning ----
 * A code object is recognised by its address plus its name, file and first line (an address can
 * be reused by another code object once the first is freed). The process-wide table (one mutex)
 * gives ids and writes PYCODE records under its lock, so no thread can use an id before its
 * definition is in the dump; a per-thread cache answers the repeated lookups without the lock. */

struct code_key {
    uintptr_t code, name, file;
    int64_t first;
    uint32_t id;
};
struct line_slot {
    uintptr_t code;
    int64_t off;
    uint32_t line;
};
#define TLS_CODES 256
#define TLS_LINES 1024
struct pytls {
    uint32_t gen;
    struct code_key c[TLS_CODES];
    struct line_slot l[TLS_LINES];
};
static __thread struct pytls *pt __attribute__((tls_model("initial-exec")));
static pthread_key_t pt_key;
static pthread_once_t pt_once = PTHREAD_ONCE_INIT;
static void pt_free(void *p) {
    free(p);
    pt = NULL; /* a hook later in this thread's exit allocates a new one */
}
static void pt_make_key(void) {
    pthread_key_create(&pt_key, pt_free);
}

static pthread_mutex_t codes_lock = PTHREAD_MUTEX_INITIALIZER;
static struct code_key *codes;
static size_t codes_cap, codes_used;
static uint32_t codes_gen, next_code;

static struct pytls *tls(void) {
    uint32_t gen = atomic_load_explicit(&cmt_generation, memory_order_relaxed);
    if (CMT_UNLIKELY(!pt)) {
        pt = calloc(1, sizeof *pt);
        if (!pt) return NULL;
        pthread_once(&pt_once, pt_make_key);
        pthread_setspecific(pt_key, pt); /* freed when the thread exits */
        pt->gen = gen;
    }
    if (CMT_UNLIKELY(pt->gen != gen)) {
        memset(pt, 0, sizeof *pt);
        pt->gen = gen;
    }
    return pt;
}

static inline uint64_t mix(uint64_t h) {
    return (h ^ (h >> 29)) * 0x9E3779B97F4A7C15ull;
}

static bool same(const struct code_key *a, const struct code_key *b) {
    return a->code == b->code && a->name == b->name && a->file == b->file && a->first == b->first;
}

static void emit_code(const struct code_key *k) {
    static char file[CMT_MAX_STR], name[1024]; /* under codes_lock */
    read_str(k->file, file, sizeof file);
    read_str(k->name, name, sizeof name);
    cmt_rec_pycode(k->id, k->first, file, name);
}

/* The id of k in the process-wide table, inserted (and its PYCODE written) when new. */
static uint32_t global_id(struct code_key *k) {
    uint32_t id = 0;
    pthread_mutex_lock(&codes_lock);
    uint32_t gen = atomic_load(&cmt_generation);
    if (codes_gen != gen) {
        if (codes) memset(codes, 0, codes_cap * sizeof *codes);
        codes_used = 0;
        next_code = 0;
        codes_gen = gen;
    }
    if (codes_used * 4 >= codes_cap * 3) {
        size_t cap = codes_cap ? codes_cap * 2 : 4096;
        struct code_key *t = calloc(cap, sizeof *t);
        if (!t) goto out;
        for (size_t i = 0; i < codes_cap; i++)
            if (codes[i].id)
                for (size_t j = mix(codes[i].code) & (cap - 1);; j = (j + 1) & (cap - 1))
                    if (!t[j].id) {
                        t[j] = codes[i];
                        break;
                    }
        free(codes);
        codes = t;
        codes_cap = cap;
    }
    for (size_t j = mix(k->code) & (codes_cap - 1);; j = (j + 1) & (codes_cap - 1)) {
        if (!codes[j].id) {
            k->id = ++next_code;
            codes[j] = *k;
            codes_used++;
            emit_code(k);
            break;
        }
        if (same(&codes[j], k)) {
            k->id = codes[j].id;
            break;
        }
    }
    id = k->id;
out:
    pthread_mutex_unlock(&codes_lock);
    return id;
}

uint32_t cmt_python_code_id(uintptr_t code) {
    const struct cmt_py_layout *l = L;
    struct code_key k = {code, ld(code, l->co_qualname >= 0 ? l->co_qualname : l->co_name),
                         ld(code, l->co_filename),
                         *(const int *)(code + (uintptr_t)l->co_firstlineno), 0};
    struct pytls *t = tls();
    struct code_key *c = t ? &t->c[mix(code) >> 56] : NULL;
    if (c && c->id && same(c, &k)) return c->id;
    uint32_t id = global_id(&k);
    if (c && id) *c = k;
    return id;
}

uint32_t cmt_python_line(uintptr_t code, int32_t off) {
    struct pytls *t = tls();
    struct line_slot *s = t ? &t->l[mix(code ^ ((uint64_t)(uint32_t)off << 40)) >> 54] : NULL;
    if (s && s->code == code && s->off == off) return s->line;
    int line = addr2line((void *)code, off);
    uint32_t r = line > 0 ? (uint32_t)line : 0;
    if (s) *s = (struct line_slot){code, off, r};
    return r;
}

bool cmt_python_where(char *buf, unsigned len) {
    struct cmt_pyframe f;
    if (len < 8 || cmt_python_walk(&f, 1) != 1) return false;
    char name[256], file[1024];
    const struct cmt_py_layout *l = L;
    read_str(ld(f.code, l->co_qualname >= 0 ? l->co_qualname : l->co_name), name, sizeof name);
    read_str(ld(f.code, l->co_filename), file, sizeof file);
    int line = addr2line((void *)f.code, f.off);
    snprintf(buf, len, "%s (%s:%d)", name, file, line > 0 ? line : 0);
    return true;
}

void cmt_python_fork_child(void) {
    /* the table and the per-thread caches restart with the child's dump (generation checks); a
     * lock another thread held at fork is re-created */
    pthread_mutex_init(&codes_lock, NULL);
    pthread_mutex_init(&detect_lock, NULL);
}
CMT_LIFECYCLE(python, 40, NULL, cmt_python_fork_child);
