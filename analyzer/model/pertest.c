/*
 * pertest.c — the tests of one process as its replay meets them (cmt_test_begin/end markers): what
 * each allocated, its peak, what it left live at its end, by stack. The analysis' rows built from
 * them are pertest_view.c's. See pertest.h.
 */
#include "pertest.h"

#include <stdlib.h>
#include <string.h>

#include "cmt_format.h"
#include "reader.h"
#include "growth.h"

const char *const cmt_test_end_names[3] = {"end", "next", "unfinished"};

struct cmt_test_live {
    struct cmt_hkey k; /* a: ptr, b: space, val: sdc */
    uint64_t bytes;
};

int cmt_tests_begin(struct cmt_tests *T, const char *name, size_t len, int64_t t, const struct cmt_stack_live *counters) {
    int rc = 0;
    if (T->open) rc = cmt_tests_end(T, t, CMT_TEST_NEXT, counters);
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
    T->gone.seen = 0;
    return rc;
}

int cmt_tests_marker(struct cmt_tests *T, const struct cmt_event *e, const struct cmt_stack_live *counters) {
    static const char dom[] = CMT_TEST_DOMAIN;
    if (e->str2_len != sizeof dom - 1 || !e->str2 || memcmp(e->str2, dom, sizeof dom - 1)) return 0;
    int rc = 0;
    if (e->flags == CMT_MARK_RANGE_PUSH)
        rc = cmt_tests_begin(T, e->str1 ? e->str1 : "", e->str1_len, e->time_ns, counters);
    else if (e->flags == CMT_MARK_RANGE_POP)
        rc = cmt_tests_end(T, e->time_ns, CMT_TEST_ENDED, counters);
    return rc < 0 ? -1 : 1;
}

static int put_live(struct cmt_tests *T, uint64_t ptr, uint32_t space, uint32_t sdc, uint64_t bytes) {
    int existed;
    struct cmt_test_live *l = cmt_htab_put(&T->live, ptr, space, &existed);
    if (!l) return -1;
    if (existed) T->cur -= l->bytes; /* allocated again without a free seen */
    l->k.val = sdc;
    l->bytes = bytes;
    struct cmt_test_rec *r = &T->v[T->n - 1];
    T->cur += bytes;
    if (T->cur > r->peak_bytes) r->peak_bytes = T->cur;
    return 0;
}

int cmt_tests_alloc(struct cmt_tests *T, uint64_t ptr, uint32_t space, uint32_t sdc, uint64_t bytes, int retrack) {
    if (retrack) {
        /* the free it undoes ended one of this test's allocations: live again; else the memory
         * predates the test (or the free came before it began) and stays no one's */
        int mine = T->gone.seen && T->gone.mine && T->gone.ptr == ptr && T->gone.space == space;
        T->gone.seen = 0;
        return mine ? put_live(T, ptr, space, T->gone.sdc, T->gone.bytes) : 0;
    }
    if (put_live(T, ptr, space, sdc, bytes) != 0) return -1;
    struct cmt_test_rec *r = &T->v[T->n - 1];
    r->allocated_bytes += bytes;
    r->allocations++;
    return 0;
}

void cmt_tests_gone(struct cmt_tests *T, uint64_t ptr, uint32_t space) {
    struct cmt_test_live *l = cmt_htab_find(&T->live, ptr, space);
    T->gone.seen = 1;
    T->gone.ptr = ptr;
    T->gone.space = space;
    T->gone.mine = l != NULL;
    if (!l) return; /* allocated before the test began */
    T->gone.sdc = (uint32_t)l->k.val;
    T->gone.bytes = l->bytes;
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
