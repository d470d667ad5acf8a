/*
 * pertest_view.c — the analysis' per-test rows (struct cmt_rtest): each process's tests (pertest.c,
 * recorded by its replay) with their stacks symbolized, suppressed or told to be a caching
 * allocator's as every leak is, sorted by leaked bytes. See pertest.h.
 */
#include "pertest.h"

#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "stack.h"

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
                st->stack = cmt_stack_symbolize(a->sym, r, t->stacks[s].stack, &a->out_of_memory);
                char ubuf[48];
                if (cmt_replay_uuid(r, st->device, ubuf) && !(st->uuid = strdup(ubuf))) return -1;
                st->suppressed = cmt_stack_suppression(a->opts.suppressions, &st->stack) != NULL;
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
