/*
 * compare.c — stack chains, folded stacks and the matching of two runs. See compare.h.
 */
#include "compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A name in a folded line: ';' becomes ':' and control characters spaces, so every line splits
 * unambiguously. */
static void fold_clean(char *s) {
    for (char *c = s; *c; c++) {
        if (*c == ';')
            *c = ':';
        else if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = ' ';
    }
}

/* The shown frames of s (analysis.h: CMT_FRAME_SHOWN) joined by ';': innermost first (outer_first
 * 0) or outermost first, each the function (Python: the qualified name) or module+0xOFFSET; with
 * fold set, a frame with a known line reads "function (file:line)" (file's base name), ';' in a
 * name becomes ':' and control characters spaces. malloc'd, NULL when out of memory. */
static char *join_frames(const struct cmt_stack_sym *s, int outer_first, int fold) {
    size_t cap = 256, len = 0, vis = cmt_stack_visible(s);
    char *out = malloc(cap);
    if (!out) return NULL;
    for (size_t k = 0; k < s->n; k++) {
        size_t i = outer_first ? s->n - 1 - k : k;
        if (!CMT_FRAME_SHOWN(s, i, vis)) continue;
        const struct cmt_sym_frame *f = &s->frames[i];
        char part[1200];
        if (f->function && fold && f->file && f->line) {
            const char *fb = strrchr(f->file, '/');
            snprintf(part, sizeof part, "%s (%s:%d)", f->function, fb ? fb + 1 : f->file, f->line);
        } else if (f->function)
            snprintf(part, sizeof part, "%s", f->function);
        else {
            const char *m = f->module ? f->module : "?", *b = strrchr(m, '/');
            snprintf(part, sizeof part, "%s+0x%llx", b ? b + 1 : m, (unsigned long long)f->offset);
        }
        if (fold) fold_clean(part);
        size_t pl = strlen(part);
        if (len + pl + 2 > cap) {
            while (len + pl + 2 > cap)
                cap *= 2;
            char *n = realloc(out, cap);
            if (!n) {
                free(out);
                return NULL;
            }
            out = n;
        }
        if (len) out[len++] = ';';
        memcpy(out + len, part, pl);
        len += pl;
    }
    out[len] = 0;
    return out;
}

char *cmt_stack_chain(const struct cmt_stack_sym *s) {
    return join_frames(s, 0, 0);
}

char *cmt_fold_stack(const struct cmt_stack_sym *s) {
    return s->n ? join_frames(s, 1, 1) : strdup("[no stack]");
}

/* ---------------------------------------------------------------- folded stacks */

static int cmp_fold(const void *x, const void *y) {
    return strcmp(((const struct cmt_fold *)x)->stack, ((const struct cmt_fold *)y)->stack);
}

static int fold_push(struct cmt_fold **v, size_t *n, size_t *cap, char *stack, uint64_t bytes) {
    if (!stack) return -1;
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        struct cmt_fold *nv = realloc(*v, nc * sizeof *nv);
        if (!nv) {
            free(stack);
            return -1;
        }
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = (struct cmt_fold){stack, bytes};
    return 0;
}

/* add(ctx, text(stack), bytes) for every stack live at every peak; 0 or -1 (out of memory) */
static int peak_stacks(struct cmt_analysis *a, char *(*text)(const struct cmt_stack_sym *),
                       int (*add)(void *ctx, char *text, uint64_t bytes), void *ctx) {
    for (size_t k = 0; k < a->npeaks; k++) {
        const struct cmt_devstate *d = a->peaks[k].dev;
        for (size_t s = 0; s < d->npeak_top; s++) {
            struct cmt_stack_sym st = cmt_analysis_stack(a, a->peaks[k].proc, d->peak_top[s].stack);
            int rc = add(ctx, text(&st), d->peak_top[s].bytes);
            cmt_stack_sym_free(&st);
            if (rc) return -1;
        }
    }
    return 0;
}

/* The flame root of a device: its physical GPU's label, the UUID (cmt_device_uuid), so one GPU is
 * one root whatever ordinal each process saw it as; "GPU N (pid P on HOST)" for a device without
 * a UUID (only its process knows which GPU it is); "host" for host memory. Into root (cap bytes). */
static void fold_root(const struct cmt_analysis *a, size_t proc, const char *uuid, int64_t ordinal, char *root,
                      size_t cap) {
    const struct cmt_file_header *h = &a->procs[proc].hdr;
    if (ordinal < 0)
        snprintf(root, cap, "host");
    else if (uuid)
        snprintf(root, cap, "%s", uuid);
    else
        snprintf(root, cap, "GPU %lld (pid %u on %.*s)", (long long)ordinal, h->pid, (int)sizeof h->host,
                 h->host[0] ? h->host : "?");
    fold_clean(root);
}

/* root + ";" + stack. malloc'd (stack freed). */
static char *with_root(const char *root, char *stack) {
    if (!stack) return NULL;
    size_t rl = strlen(root), sl = strlen(stack);
    char *out = malloc(rl + sl + 2);
    if (out) {
        memcpy(out, root, rl);
        out[rl] = ';';
        memcpy(out + rl + 1, stack, sl + 1);
    }
    free(stack);
    return out;
}

int cmt_fold_collect(struct cmt_analysis *a, int peak, int device_root, struct cmt_fold **out, size_t *nout) {
    struct cmt_fold *v = NULL;
    size_t n = 0, cap = 0;
    if (!peak) {
        for (size_t i = 0; i < a->nleaks; i++) {
            const struct cmt_rleak *l = &a->leaks[i];
            if (!l->leak->bytes) continue;
            char *st = cmt_fold_stack(&l->stack), root[400];
            if (device_root) {
                fold_root(a, l->proc, l->uuid, l->leak->device, root, sizeof root);
                st = with_root(root, st);
            }
            if (fold_push(&v, &n, &cap, st, l->leak->bytes) != 0) goto fail;
        }
    } else {
        for (size_t k = 0; k < a->npeaks; k++) {
            const struct cmt_devstate *d = a->peaks[k].dev;
            char ubuf[48], root[400];
            fold_root(a, a->peaks[k].proc, cmt_device_uuid(d, ubuf), d->ordinal, root, sizeof root);
            for (size_t s = 0; s < d->npeak_top; s++) {
                struct cmt_stack_sym st = cmt_analysis_stack(a, a->peaks[k].proc, d->peak_top[s].stack);
                char *text = cmt_fold_stack(&st);
                cmt_stack_sym_free(&st);
                if (device_root) text = with_root(root, text);
                if (fold_push(&v, &n, &cap, text, d->peak_top[s].bytes) != 0) goto fail;
            }
        }
    }
    if (n) qsort(v, n, sizeof *v, cmp_fold);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (w && !strcmp(v[w - 1].stack, v[i].stack)) {
            v[w - 1].bytes += v[i].bytes;
            free(v[i].stack);
        } else
            v[w++] = v[i];
    }
    *out = v;
    *nout = w;
    return 0;
fail:
    cmt_fold_free(v, n);
    *out = NULL;
    *nout = 0;
    return -1;
}

void cmt_fold_free(struct cmt_fold *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        free(v[i].stack);
    free(v);
}

/* ---------------------------------------------------------------- two runs */

const char *cmt_change_status(uint64_t o, uint64_t n) {
    if (o == n) return "unchanged";
    if (!o) return "appeared";
    if (!n) return "disappeared";
    return n > o ? "grew" : "shrank";
}

static int cmp_chain(const void *x, const void *y) {
    return strcmp(((const struct cmt_chain_delta *)x)->chain, ((const struct cmt_chain_delta *)y)->chain);
}

static int push_chain(struct cmt_comparison *c, size_t *cap, char *chain, int side, uint64_t leak, uint64_t allocs,
                      uint64_t peak) {
    if (!chain) return -1;
    if (c->nchains == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        struct cmt_chain_delta *nv = realloc(c->chains, nc * sizeof *nv);
        if (!nv) {
            free(chain);
            return -1;
        }
        c->chains = nv;
        *cap = nc;
    }
    struct cmt_chain_delta *e = &c->chains[c->nchains++];
    memset(e, 0, sizeof *e);
    e->chain = chain;
    e->leak[side] = leak;
    e->leak_allocs[side] = allocs;
    e->peak[side] = peak;
    return 0;
}

struct chain_vec {
    struct cmt_comparison *c;
    size_t *cap;
    int side;
};

static int chain_add(void *ctx, char *chain, uint64_t bytes) {
    struct chain_vec *cv = ctx;
    return push_chain(cv->c, cv->cap, chain, cv->side, 0, 0, bytes);
}

static int collect_side(struct cmt_comparison *c, size_t *cap, struct cmt_analysis *a, int side) {
    for (size_t i = 0; i < a->nleaks; i++)
        if (push_chain(c, cap, cmt_stack_chain(&a->leaks[i].stack), side, a->leaks[i].leak->bytes,
                       a->leaks[i].leak->allocations, 0))
            return -1;
    struct chain_vec cv = {c, cap, side};
    if (peak_stacks(a, cmt_stack_chain, chain_add, &cv) != 0) return -1;
    for (size_t g = 0; g < a->ngpus; g++)
        c->peak_total[side] += a->gpus[g].peak_bytes;
    return 0;
}

static int pair_gpus(struct cmt_comparison *c, struct cmt_analysis *s[2]) {
    c->gpus = calloc(s[0]->ngpus + s[1]->ngpus + 1, sizeof *c->gpus);
    if (!c->gpus) return -1;
    for (int side = 0; side < 2; side++)
        for (size_t g = 0; g < s[side]->ngpus; g++) {
            const struct cmt_gpu *gp = &s[side]->gpus[g];
            size_t k = 0;
            while (k < c->ngpus && strcmp((c->gpus[k].g[0] ? c->gpus[k].g[0] : c->gpus[k].g[1])->uuid, gp->uuid))
                k++;
            if (k == c->ngpus) c->ngpus++;
            c->gpus[k].g[side] = gp;
            if (side == CMT_NEW && c->gpus[k].g[CMT_OLD]) c->gpus_matched++;
        }
    return 0;
}

int cmt_compare(struct cmt_analysis *old, struct cmt_analysis *new_, struct cmt_comparison *c) {
    struct cmt_analysis *s[2] = {old, new_};
    size_t cap = 0;
    memset(c, 0, sizeof *c);
    c->run[CMT_OLD] = old;
    c->run[CMT_NEW] = new_;
    if (collect_side(c, &cap, old, CMT_OLD) || collect_side(c, &cap, new_, CMT_NEW) || pair_gpus(c, s)) {
        cmt_comparison_free(c);
        return -1;
    }
    if (c->nchains) qsort(c->chains, c->nchains, sizeof *c->chains, cmp_chain);
    size_t w = 0;
    for (size_t i = 0; i < c->nchains; i++) {
        struct cmt_chain_delta *v = c->chains;
        if (w && !strcmp(v[w - 1].chain, v[i].chain)) {
            for (int k = 0; k < 2; k++) {
                v[w - 1].leak[k] += v[i].leak[k];
                v[w - 1].leak_allocs[k] += v[i].leak_allocs[k];
                v[w - 1].peak[k] += v[i].peak[k];
            }
            free(v[i].chain);
        } else
            v[w++] = v[i];
    }
    c->nchains = w;
    return 0;
}

void cmt_comparison_free(struct cmt_comparison *c) {
    for (size_t i = 0; i < c->nchains; i++)
        free(c->chains[i].chain);
    free(c->chains);
    free(c->gpus);
    memset(c, 0, sizeof *c);
}

uint64_t cmt_chain_change(const struct cmt_chain_delta *e, int leak) {
    const uint64_t *m = leak ? e->leak : e->peak;
    return m[1] > m[0] ? m[1] - m[0] : m[0] - m[1];
}

struct order_ctx {
    const struct cmt_chain_delta *v;
    int leak;
};

static int cmp_change(const void *x, const void *y, void *arg) {
    const struct order_ctx *o = arg;
    const struct cmt_chain_delta *a = &o->v[*(const size_t *)x], *b = &o->v[*(const size_t *)y];
    uint64_t da = cmt_chain_change(a, o->leak), db = cmt_chain_change(b, o->leak);
    if (da != db) return da > db ? -1 : 1;
    return strcmp(a->chain, b->chain);
}

size_t *cmt_compare_order(const struct cmt_comparison *c, int leak, size_t *nout) {
    size_t *ix = malloc((c->nchains ? c->nchains : 1) * sizeof *ix), k = 0;
    *nout = 0;
    if (!ix) return NULL;
    for (size_t i = 0; i < c->nchains; i++) {
        const uint64_t *m = leak ? c->chains[i].leak : c->chains[i].peak;
        if (m[0] || m[1]) ix[k++] = i;
    }
    struct order_ctx o = {c->chains, leak};
    if (k > 1) qsort_r(ix, k, sizeof *ix, cmp_change, &o);
    *nout = k;
    return ix;
}
