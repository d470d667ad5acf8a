/* py_walk.c — the Python frame walker (preload/cmt_python.c) on synthetic CPython 3.12 structures
 * laid out by its own CMT_PY_LAYOUTS entry: grouping by entry shims, every validation that ends a
 * walk (a code object of the wrong type, a misaligned frame, an owner out of range, an instruction
 * outside its code, a cycle of shims) keeps the frames read before it and counts in
 * python_walk_failed, the depth bound, no thread state, an uninitialised interpreter, interning
 * (one PYCODE per code object) and lines. "py_walk future" instead runs with a version the table
 * lacks (CUMEMTRACK_PYTHON_VERSION=3.99), "py_walk layout" with type objects laid out unlike a
 * default build (free-threaded): no frames, and the INFO note. Exit 0 when every check holds. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmt_internal.h"
#include "cmt_python.h"
#include "cmt_wire.h"
#include "cmt_writer.h"

/* ---- stubs of what cmt_python.c (and cmt_records.c, linked with it) use from the rest of the
 * tracer ---- */
_Atomic uint32_t cmt_generation;
struct cmt_config cmt_cfg = {.depth = 64, .python = true};
static uint64_t counters[CMT_CTR_COUNT];
static uint8_t rec[1 << 16], info[1024];
static size_t info_len;
static int pycodes;
void cmt_counter_add(enum cmt_counter c, uint64_t n) {
    counters[c] += n;
}
__thread struct cmt_tls cmt_tls; /* clk_tsc 0: cmt_now() asks cmt_now_slow() */
uint64_t cmt_tsc_mult, cmt_tsc_span;
int64_t cmt_now_slow(void) {
    return 0;
}
_Atomic int cmt_writer_state; /* 0: cmt_rec_begin (inline) goes to the stub below */
/* PYCODE records ended so far: cmt_rec_end (inline) stores each record's type at rec[0] */
static int ended_pycodes(void) {
    if (rec[0] == CMT_REC_PYCODE) pycodes++;
    rec[0] = 0;
    return pycodes;
}
uint8_t *cmt_rec_begin_slow(size_t max, uint64_t s, int64_t now) {
    (void)s, (void)now;
    ended_pycodes();
    cmt_tls.block = rec;
    cmt_tls.cur = cmt_tls.lim = rec; /* no room: every record comes here */
    return max < sizeof rec ? rec + 1 : NULL;
}
uint8_t *cmt_rec_begin_last(size_t max, uint64_t s, int64_t now) {
    return cmt_rec_begin_slow(max, s, now);
}
void cmt_rec_end_last(uint8_t type, uint8_t *end) {
    cmt_rec_end(type, end);
}
void cmt_emit_ext(uint8_t type, uint64_t s, int64_t now, const uint8_t *buf, size_t len) {
    (void)s, (void)now;
    if (type == CMT_REC_INFO && len <= sizeof info) memcpy(info, buf, info_len = len);
}

/* ---- a fake CPython 3.12 ---- */
static const struct cmt_py_layout L12 = {
#define PICK(mi, ...) PICK_##mi(mi, __VA_ARGS__)
#define PICK_8(...)
#define PICK_9(...)
#define PICK_10(...)
#define PICK_11(...)
#define PICK_12(mi, ...) mi, __VA_ARGS__
#define PICK_13(...)
    CMT_PY_LAYOUTS(PICK)};
static _Alignas(16) uint8_t type_type[64], code_type[64], unicode_type[64], other_type[64];
static uint32_t version = 0x030c01f0; /* 3.12.1 */
static void *tstate;
static int initialized = 1;
static void *get_tstate(void) {
    return tstate;
}
static int is_init(void) {
    return initialized;
}
static int addr2line(void *code, int off) {
    (void)code;
    return off < 0 ? 7 : 1000 + off;
}
static void *fake_dlsym(void *h, const char *name) {
    (void)h;
    static const struct {
        const char *name;
        void *p;
    } syms[] = {{"PyGILState_GetThisThreadState", (void *)get_tstate},
                {"Py_IsInitialized", (void *)is_init},
                {"PyCode_Addr2Line", (void *)addr2line},
                {"PyCode_Type", code_type},
                {"PyUnicode_Type", unicode_type},
                {"PyType_Type", type_type},
                {"Py_Version", &version}};
    for (size_t i = 0; i < sizeof syms / sizeof *syms; i++)
        if (!strcmp(syms[i].name, name)) return syms[i].p;
    return NULL;
}
void *(*cmt_real_dlsym)(void *, const char *) = fake_dlsym;
void *(*cmt_real_dlopen)(const char *, int) = NULL;

#define PUT(base, off, type, v) (*(type *)((uint8_t *)(base) + (off)) = (v))
static void *obj(size_t size, void *type) {
    void *o = aligned_alloc(16, size);
    memset(o, 0, size);
    PUT(o, 8, void *, type);
    return o;
}
static void *str(const char *s) {
    void *o = obj((size_t)L12.u_ascii + strlen(s) + 1, unicode_type);
    PUT(o, 16, int64_t, (int64_t)strlen(s));
    PUT(o, 32, uint32_t, 1u << 2 | 1u << 5 | 1u << 6); /* kind 1, compact, ascii */
    memcpy((uint8_t *)o + L12.u_ascii, s, strlen(s));
    return o;
}
static void *code(const char *name, int first) {
    void *c = obj(512, code_type);
    PUT(c, 16, int64_t, 100); /* 100 code units */
    PUT(c, L12.co_name, void *, str(name));
    PUT(c, L12.co_qualname, void *, str(name));
    PUT(c, L12.co_filename, void *, str("/x/model.py"));
    PUT(c, L12.co_firstlineno, int, first);
    return c;
}
static void *frame(void *c, int unit, int owner, void *prev) {
    void *f = aligned_alloc(16, 128);
    memset(f, 0, 128);
    PUT(f, L12.fr_code, void *, c);
    PUT(f, L12.fr_prev, void *, prev);
    PUT(f, L12.fr_instr, uint8_t *, (uint8_t *)c + L12.co_code + 2 * unit);
    PUT(f, L12.fr_owner, char, (char)owner);
    return f;
}
static void *thread_state(void *innermost) {
    void *cf = aligned_alloc(16, 64), *ts = aligned_alloc(16, 256);
    memset(cf, 0, 64);
    memset(ts, 0, 256);
    PUT(cf, L12.cf_cur, void *, innermost);
    PUT(ts, L12.ts_frame, void *, cf);
    return ts;
}

static int fails;
#define CHECK(c)                                                                                                       \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            printf("FAIL line %d: %s\n", __LINE__, #c);                                                                \
            fails++;                                                                                                   \
        }                                                                                                              \
    } while (0)

int main(int argc, char **argv) {
    struct cmt_pyframe out[CMT_MAX_FRAMES];
    if (argc > 1 && !strcmp(argv[1], "layout")) { /* type objects not where a default build has them */
        tstate = thread_state(frame(code("f", 1), 3, 0, NULL));
        CHECK(cmt_python_walk(out, 64) == 0);
        CHECK(info_len && memmem(info, info_len, "has an object layout this cumemtrack does not know", 50));
        puts(fails ? "FAIL" : "ok layout");
        return fails != 0;
    }
    PUT(code_type, 8, void *, type_type);
    if (argc > 1 && !strcmp(argv[1], "future")) { /* run with CUMEMTRACK_PYTHON_VERSION=3.99 */
        tstate = thread_state(frame(code("f", 1), 3, 0, NULL));
        CHECK(cmt_python_walk(out, 64) == 0);
        CHECK(info_len && memmem(info, info_len, "CPython 3.99 has no frame layout entry", 38));
        CHECK(counters[CMT_CTR_PYTHON_WALK_FAILED] == 0);
        puts(fails ? "FAIL" : "ok future");
        return fails != 0;
    }
    void *A = code("step", 40), *B = code("Model.forward", 20), *C = code("<module>", 1);
    /* f0 (A) -> f1 (B) -> shim -> f2 (C) -> shim -> NULL */
    void *s2 = frame(C, 0, L12.cstack, NULL), *f2 = frame(C, 50, 0, s2), *s1 = frame(C, 0, L12.cstack, f2);
    void *f1 = frame(B, 5, 0, s1), *f0 = frame(A, 10, 0, f1);
    tstate = thread_state(f0);
    int n = cmt_python_walk(out, 64);
    CHECK(n == 3);
    CHECK(out[0].code == (uintptr_t)A && out[0].off == 20 && out[0].entry == 0);
    CHECK(out[1].code == (uintptr_t)B && out[1].off == 10 && out[1].entry == 1);
    CHECK(out[2].code == (uintptr_t)C && out[2].off == 100 && out[2].entry == 1);
    CHECK(counters[CMT_CTR_PYTHON_WALK_FAILED] == 0);
    CHECK(info_len && memmem(info, info_len, "CPython 3.12.1: Python frames on", 32));
    /* the depth bound: not a failure */
    CHECK(cmt_python_walk(out, 2) == 2 && counters[CMT_CTR_PYTHON_WALK_FAILED] == 0);
    /* interning and lines */
    uint32_t a = cmt_python_code_id((uintptr_t)A), b = cmt_python_code_id((uintptr_t)B);
    CHECK(a == 1 && b == 2 && ended_pycodes() == 2);
    CHECK(cmt_python_code_id((uintptr_t)A) == 1 && ended_pycodes() == 2);
    CHECK(cmt_python_line((uintptr_t)A, 20) == 1020 && cmt_python_line((uintptr_t)A, -1) == 7);
    char where[256];
    CHECK(cmt_python_where(where, sizeof where) && !strcmp(where, "step (/x/model.py:1020)"));

    /* each defect ends the walk after the frames before it, and counts */
    static const char *const defects[] = {"code of another type", "misaligned frame", "owner out of range",
                                          "instruction outside its code", "cycle of shims"};
    for (int d = 0; d < 5; d++) {
        void *g1 = frame(B, 5, 0, s1), *g0 = frame(A, 10, 0, g1);
        void *Bbad = code("bad", 1);
        switch (d) {
        case 0:
            PUT(Bbad, 8, void *, other_type);
            PUT(g1, L12.fr_code, void *, Bbad);
            break;
        case 1:
            PUT(g0, L12.fr_prev, void *, (uint8_t *)g1 + 4);
            break;
        case 2:
            PUT(g1, L12.fr_owner, char, 9);
            break;
        case 3:
            PUT(g1, L12.fr_instr, uint8_t *, (uint8_t *)B + L12.co_code + 2 * 100);
            break;
        case 4: {
            void *loop = frame(C, 0, L12.cstack, NULL);
            PUT(loop, L12.fr_prev, void *, loop);
            PUT(g1, L12.fr_prev, void *, loop);
            break;
        }
        }
        tstate = thread_state(g0);
        uint64_t before = counters[CMT_CTR_PYTHON_WALK_FAILED];
        n = cmt_python_walk(out, 64);
        int want = d == 4 ? 2 : 1;
        if (n != want || counters[CMT_CTR_PYTHON_WALK_FAILED] != before + 1 || out[0].code != (uintptr_t)A)
            printf("FAIL %s: %d frames, counter +%llu\n", defects[d], n,
                   (unsigned long long)(counters[CMT_CTR_PYTHON_WALK_FAILED] - before)),
                fails++;
        else
            printf("ok %s\n", defects[d]);
    }
    /* no thread state (a thread Python never ran on), an interpreter not initialised */
    tstate = NULL;
    CHECK(cmt_python_walk(out, 64) == 0);
    tstate = thread_state(f0);
    initialized = 0;
    CHECK(cmt_python_walk(out, 64) == 0);
    puts(fails ? "FAIL" : "PASS");
    return fails != 0;
}
