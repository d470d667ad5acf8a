/*
 * stack.c — the one frame path of every view: a recorded stack symbolized (symbols.c), its Python
 * frames interleaved, each frame classified by the hiding rule (enum cmt_hide: the tracker's and
 * the runtime's own frames, the interpreter's); which suppression, if any, a stack matches. See
 * stack.h.
 */
#include "stack.h"

#include <stdlib.h>
#include <string.h>

static const char *base_name(const char *path) {
    const char *b = path ? strrchr(path, '/') : NULL;
    return b ? b + 1 : path ? path : "";
}

static int has_prefix(const char *s, const char *p) {
    return s && !strncmp(s, p, strlen(p));
}

/* "python3", "python3.11", "libpython3.11.so.1.0", "libpython3.12d.so": the interpreter itself */
static int interpreter_module(const char *b) {
    if (has_prefix(b, "libpython")) return 1;
    if (!has_prefix(b, "python")) return 0;
    for (b += 6; *b; b++)
        if (!((*b >= '0' && *b <= '9') || *b == '.')) return 0;
    return 1;
}

/* cuda* / cu* entry points of the runtime and driver APIs: cudaMalloc, cuMemAlloc_v2 */
int cmt_cuda_api_name(const char *f) {
    if (!f || f[0] != 'c' || f[1] != 'u') return 0;
    if (f[2] >= 'A' && f[2] <= 'Z') return 1;
    return f[2] == 'd' && f[3] == 'a' && f[4] >= 'A' && f[4] <= 'Z';
}

/* The hiding rule (documented in README "Reading stacks"):
 *  - startup: _start, __libc_start_main*, __libc_start_call_main;
 *  - CUDA internals below the API entry: functions named libcudart_static_* (the static runtime's
 *    internals), and frames in libcudart.so* / libcuda.so* whose function is not a cuda* / cu*
 *    API entry point (the entry point itself stays: the stack starts where the application
 *    called CUDA);
 *  - interpreter machinery, only in stacks that carry Python frames (without them these frames are
 *    all there is to see): the eval-loop frames the Python frames replace, and native frames in
 *    the interpreter (libpython*.so*, a python[0-9.]* executable), in ctypes (_ctypes*) or libffi
 *    (libffi*), or whose function starts with _Py, Py or ffi_.
 * Frames of the application, its libraries and C extensions are never hidden. */
static void classify_frames(struct cmt_stack_sym *r) {
    int has_py = 0;
    for (size_t i = 0; i < r->n; i++)
        has_py |= r->frames[i].kind == CMT_FRAME_PYTHON;
    for (size_t i = 0; i < r->n; i++) {
        struct cmt_sym_frame *f = &r->frames[i];
        if (f->kind == CMT_FRAME_PYTHON) continue;
        const char *fn = f->function, *b = base_name(f->module);
        if (fn &&
            (!strcmp(fn, "_start") || has_prefix(fn, "__libc_start_main") || !strcmp(fn, "__libc_start_call_main")))
            f->hidden = CMT_HIDE_STARTUP;
        else if (has_prefix(fn, "libcudart_static_") ||
                 ((has_prefix(b, "libcudart.so") || has_prefix(b, "libcuda.so")) && !cmt_cuda_api_name(fn)))
            f->hidden = CMT_HIDE_CUDA;
        else if (has_py &&
                 (f->hidden == CMT_HIDE_INTERPRETER || interpreter_module(b) || has_prefix(b, "_ctypes") ||
                  has_prefix(b, "libffi") || has_prefix(fn, "_Py") || has_prefix(fn, "Py") || has_prefix(fn, "ffi_")))
            f->hidden = CMT_HIDE_INTERPRETER;
        else
            f->hidden = CMT_SHOW;
    }
}

struct cmt_stack_sym cmt_stack_symbolize(struct cmt_symbolizer *sym, const struct cmt_replay *rp, uint64_t id,
                                         uint64_t *out_of_memory) {
    struct cmt_stack_sym r = {0, NULL};
    const struct cmt_stack *st = id ? cmt_replay_stack(rp, id) : NULL;
    if (!st || !(st->nframes + st->npy)) return r;
    struct cmt_event ev = {
        .type = CMT_REC_STACK, .nframes = st->nframes, .frames = st->frames, .npy = st->npy, .py = st->py};
    size_t nin = (size_t)st->nframes + st->npy;
    struct cmt_frame *in = malloc(nin * sizeof *in);
    size_t cap = nin * 2 + 8;
    r.frames = calloc(cap, sizeof *r.frames);
    if (!r.frames || !in) {
        free(in);
        free(r.frames);
        r.frames = NULL;
        (*out_of_memory)++;
        return r;
    }
    nin = cmt_stack_frames(&ev, in, nin, 1);
    for (size_t i = 0; i < nin; i++) {
        struct cmt_sym_frame f[CMT_SYM_MAX_INLINE];
        size_t n = 1;
        if (in[i].kind == CMT_FRAME_PYTHON) {
            const struct cmt_replay_pycode *pc = cmt_replay_pycode(rp, in[i].code);
            memset(f, 0, sizeof f[0]);
            f[0].kind = CMT_FRAME_PYTHON;
            f[0].function = pc ? pc->name : "[unknown code]";
            f[0].file = pc ? pc->file : NULL;
            f[0].line = (int)(in[i].line > INT32_MAX ? 0 : in[i].line);
        } else {
            n = cmt_sym_resolve(sym, rp->mods, rp->nmods, st->mod_epoch, in[i].addr, f, CMT_SYM_MAX_INLINE);
            for (size_t k = 0; k < n; k++) {
                f[k].kind = CMT_FRAME_NATIVE;
                f[k].hidden = in[i].eval ? CMT_HIDE_INTERPRETER : CMT_SHOW;
            }
        }
        if (r.n + n > cap) {
            size_t nc = (r.n + n) * 2;
            struct cmt_sym_frame *nf = realloc(r.frames, nc * sizeof *nf);
            if (!nf) {
                (*out_of_memory)++;
                break;
            }
            r.frames = nf;
            cap = nc;
        }
        memcpy(r.frames + r.n, f, n * sizeof *f);
        r.n += n;
    }
    free(in);
    classify_frames(&r);
    return r;
}

size_t cmt_stack_visible(const struct cmt_stack_sym *s) {
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        n += !s->frames[i].hidden;
    return n;
}

void cmt_stack_sym_free(struct cmt_stack_sym *s) {
    free(s->frames);
    s->frames = NULL;
    s->n = 0;
}

struct cmt_suppression *cmt_stack_suppression(const struct cmt_suppressions *s, const struct cmt_stack_sym *st) {
    for (size_t k = 0; s && k < s->n; k++)
        for (size_t i = 0; i < st->n; i++) {
            const struct cmt_sym_frame *f = &st->frames[i];
            if (cmt_suppress_match(s->v[k].pattern, f->function) || cmt_suppress_match(s->v[k].pattern, f->file) ||
                cmt_suppress_match(s->v[k].pattern, f->module))
                return &s->v[k];
        }
    return NULL;
}
