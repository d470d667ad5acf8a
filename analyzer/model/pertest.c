/*
 * pertest.c — the per-test view of one process. See pertest.h.
 */
#include "pertest.h"

#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "cmt_format.h"
#include "reader.h"
#include "growth.h"

const char *const cmt_test_end_names[3] = {"end", "next", "unfinished"};

struct cmt_test_live {
    struct cmt_hkey k; /* a: ptr, b: space, val: sdc */
    uint64_t bytes;
};

int cmt_tests_begin(struct cmt_tests *T, const char *name, size_t len, int64_t t) {
    int rc = 0;
    if (T->open) rc = cmt_tests_end(T, t, CMT_TEST_NEXT, NULL);
    if (cmt_grow((void **)&T->v, &T->cap, T->n + 1, sizeof *T->v) != 0) return -1;
    struct cmt_test_rec *r = &T->v[T->n];
    memset(r, 0, sizeof *r);
    r->name = strndup(name ? name : "", len);
    if (!r->name) return -1;
    r->begin_ns = r->end_ns = t;
    r->end = CMT_TEST_UNFINISHED;
    T->n++;
    T->open = 1;
    T->cur = 0;
    if (!T->live.esz) cmt_htab_init(&T->live, sizeof(struct cmt_test_live), 64);
    return rc;
}

static int cmp_stack(const void *a, const void *b) {
    const struct cmt_test_stack *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    return x->stack < y->stack ? -1 : x->stack > y->stack;
}

int cmt_tests_end(struct cmt_tests *T, int64_t t, int how, const struct cmt_stack_live *counters) {
    if (!T->open) return 0;
    struct cmt_test_rec *r = &T->v[T->n - 1];
    T->open = 0;
    r->end_ns = t;
    r->end = how;
    int rc = 0;
    /* what is still live, by (stack, device): its sdc index, summed in a map sdc -> stacks index */
    struct cmt_htab by_sdc;
    cmt_htab_init(&by_sdc, sizeof(struct cmt_hkey), 16);
    size_t cap = 0;
    for (size_t i = 0; i < T->live.cap; i++) {
        const struct cmt_test_live *l = cmt_htab_at(&T->live, i);
        if (!cmt_hkey_used(&l->k)) continue;
        r->live_bytes += l->bytes;
        r->live_allocations++;
        uint32_t *slot = cmt_htab_slot(&by_sdc, l->k.val, 0);
        if (!slot || (!*slot && cmt_grow((void **)&r->stacks, &cap, r->nstacks + 1, sizeof *r->stacks) != 0)) {
            rc = -1;
            continue;
        }
        if (!*slot) {
            r->stacks[r->nstacks] = (struct cmt_test_stack){.stack = counters ? counters[l->k.val].stack : 0,
                                                            .device = counters ? counters[l->k.val].device : -1};
            *slot = (uint32_t)++r->nstacks;
        }
        r->stacks[*slot - 1].bytes += l->bytes;
        r->stacks[*slot - 1].allocations++;
    }
    cmt_htab_free(&by_sdc);
    cmt_htab_free(&T->live);
    cmt_htab_init(&T->live, sizeof(struct cmt_test_live), 64);
    if (r->nstacks > 1) qsort(r->stacks, r->nstacks, sizeof *r->stacks, cmp_stack);
    T->cur = 0;
    return rc;
}

int cmt_tests_marker(struct cmt_tests *T, const struct cmt_event *e, const struct cmt_stack_live *counters) {
    static const char dom[] = CMT_TEST_DOMAIN;
    if (e->str2_len != sizeof dom - 1 || !e->str2 || memcmp(e->str2, dom, sizeof dom - 1)) return 0;
    int rc = 0;
    if (e->flags == CMT_MARK_RANGE_PUSH)
        rc = cmt_tests_begin(T, e->str1 ? e->str1 : "", e->str1_len, e->time_ns);
    else if (e->flags == CMT_MARK_RANGE_POP)
        rc = cmt_tests_end(T, e->time_ns, CMT_TEST_ENDED, counters);
    return rc < 0 ? -1 : 1;
}

int cmt_tests_alloc(struct cmt_tests *T, uint64_t ptr, uint32_t space, uint32_t sdc, uint64_t bytes) {
    int existed;
    struct cmt_test_live *l = cmt_htab_put(&T->live, ptr, space, &existed);
    if (!l) return -1;
    if (existed) T->cur -= l->bytes; /* allocated again without a free seen */
    l->k.val = sdc;
    l->bytes = bytes;
    struct cmt_test_rec *r = &T->v[T->n - 1];
    r->allocated_bytes += bytes;
    r->allocations++;
    T->cur += bytes;
    if (T->cur > r->peak_bytes) r->peak_bytes = T->cur;
    return 0;
}

void cmt_tests_gone(struct cmt_tests *T, uint64_t ptr, uint32_t space) {
    struct cmt_test_live *l = cmt_htab_find(&T->live, ptr, space);
    if (!l) return; /* allocated before the test began */
    T->cur -= l->bytes;
    cmt_htab_del(&T->live, l);
}

void cmt_tests_free(struct cmt_tests *T) {
    for (size_t i = 0; i < T->n; i++) {
        free(T->v[i].name);
        free(T->v[i].stacks);
    }
    free(T->v);
    cmt_htab_free(&T->live);
    memset(T, 0, sizeof *T);
}

/* ---- the analysis' side ---- */

static int suppressed(const struct cmt_suppressions *s, const struct cmt_stack_sym *st) {
    for (size_t k = 0; s && k < s->n; k++)
        for (size_t i = 0; i < st->n; i++) {
            const struct cmt_sym_frame *f = &st->frames[i];
            if (cmt_suppress_match(s->v[k].pattern, f->function) || cmt_suppress_match(s->v[k].pattern, f->file) ||
                cmt_suppress_match(s->v[k].pattern, f->module))
                return 1;
        }
    return 0;
}

static int stack_class(const struct cmt_rtest_stack *s) {
    return s->suppressed ? 2 : s->allocator ? 1 : 0;
}

static int cmp_rstack(const void *a, const void *b) {
    const struct cmt_rtest_stack *x = a, *y = b;
    if (stack_class(x) != stack_class(y)) return stack_class(x) - stack_class(y);
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    return x->device < y->device ? -1 : x->device > y->device;
}

static int cmp_rtest(const void *a, const void *b) {
    const struct cmt_rtest *x = a, *y = b;
    if (x->leaked_bytes != y->leaked_bytes) return x->leaked_bytes > y->leaked_bytes ? -1 : 1;
    if (x->cached_bytes != y->cached_bytes) return x->cached_bytes > y->cached_bytes ? -1 : 1;
    if (x->t->peak_bytes != y->t->peak_bytes) return x->t->peak_bytes > y->t->peak_bytes ? -1 : 1;
    if (x->proc != y->proc) return x->proc < y->proc ? -1 : 1;
    return x->t < y->t ? -1 : x->t > y->t;
}

int cmt_tests_build(struct cmt_analysis *a) {
    size_t n = 0;
    for (size_t i = 0; i < a->nprocs; i++) {
        n += a->procs[i].replay.tests.n;
        a->tests_procs += a->procs[i].replay.tests.n > 0;
    }
    if (!n) return 0;
    a->tests = calloc(n, sizeof *a->tests);
    if (!a->tests) return -1;
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->tests.n; k++) {
            const struct cmt_test_rec *t = &r->tests.v[k];
            struct cmt_rtest *rt = &a->tests[a->ntests++];
            rt->proc = i;
            rt->t = t;
            if (!t->nstacks) continue;
            rt->stacks = calloc(t->nstacks, sizeof *rt->stacks);
            if (!rt->stacks) return -1;
            for (size_t s = 0; s < t->nstacks; s++) {
                struct cmt_rtest_stack *st = &rt->stacks[rt->nstacks++];
                st->id = t->stacks[s].stack;
                st->device = t->stacks[s].device;
                st->bytes = t->stacks[s].bytes;
                st->allocations = t->stacks[s].allocations;
                st->stack = cmt_analysis_stack(a, i, t->stacks[s].stack);
                char ubuf[48];
                if (cmt_replay_uuid(r, st->device, ubuf) && !(st->uuid = strdup(ubuf))) return -1;
                st->suppressed = suppressed(a->opts.suppressions, &st->stack);
                st->allocator = st->suppressed ? NULL
                                               : cmt_caching_match(a->opts.caching, &a->builtin_caching,
                                                                   st->stack.frames, st->stack.n);
                if (st->suppressed) {
                    rt->suppressed_bytes += st->bytes;
                } else if (st->allocator) {
                    rt->cached_bytes += st->bytes;
                    rt->cached_allocations += st->allocations;
                } else {
                    rt->leaked_bytes += st->bytes;
                    rt->leaked_allocations += st->allocations;
                }
            }
            if (rt->nstacks > 1) qsort(rt->stacks, rt->nstacks, sizeof *rt->stacks, cmp_rstack);
        }
    }
    if (a->out_of_memory) return -1;
    if (a->ntests > 1) qsort(a->tests, a->ntests, sizeof *a->tests, cmp_rtest);
    return 0;
}

void cmt_tests_view_free(struct cmt_analysis *a) {
    for (size_t i = 0; i < a->ntests; i++) {
        for (size_t s = 0; s < a->tests[i].nstacks; s++) {
            cmt_stack_sym_free(&a->tests[i].stacks[s].stack);
            free(a->tests[i].stacks[s].uuid);
        }
        free(a->tests[i].stacks);
    }
    free(a->tests);
    a->tests = NULL;
    a->ntests = 0;
}
