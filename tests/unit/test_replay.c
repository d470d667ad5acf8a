/*
 * test_replay.c — unit tests of the analyzer's replay (analyzer/model/replay.c): live and peak bytes (per
 * device, and the process's over all its devices at one moment), the top stacks snapshotted at the
 * peak (exact even when the live bytes fall and rise again), unknown and double frees (the window
 * of recently freed keys), OOM snapshots, teardown of one context's allocations, the memos before
 * the (stack, device) and (context, kind) maps under constant slot collisions, leaks at exit and at
 * death; and that running out of memory anywhere in the replay is counted (out_of_memory, which
 * makes the analysis fail) rather than silently giving other figures: the allocator is wrapped
 * (-Wl,--wrap) to fail from the n-th allocation on. Exit 0 when every check holds.
 */
#include <stdlib.h>

#include "an_events.h"
#include "replay_internal.h" /* FREED_RING */

/* allocations left before every one fails (-1: never) */
static long alloc_budget = -1;
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
static int may_alloc(void) {
    if (alloc_budget == 0) return 0;
    if (alloc_budget > 0) alloc_budget--;
    return 1;
}
void *__wrap_malloc(size_t n) {
    return may_alloc() ? __real_malloc(n) : NULL;
}
void *__wrap_calloc(size_t n, size_t m) {
    return may_alloc() ? __real_calloc(n, m) : NULL;
}
void *__wrap_realloc(void *p, size_t n) {
    return may_alloc() ? __real_realloc(p, n) : NULL;
}

static const struct cmt_leak *leak_of(const struct cmt_replay *r, uint64_t stack) {
    for (size_t i = 0; i < r->nleaks; i++)
        if (r->leaks[i].stack == stack) return &r->leaks[i];
    return NULL;
}

static uint64_t peak_bytes_of(const struct cmt_devstate *d, uint64_t stack) {
    for (size_t i = 0; i < d->npeak_top; i++)
        if (d->peak_top[i].stack == stack) return d->peak_top[i].bytes;
    return 0;
}

static void test_peak_and_leaks(void) {
    struct cmt_replay r;
    CHECK(cmt_replay_init(&r, 10) == 0);
    an_device(&r, 0, 0x11);
    an_alloc(&r, 0, 0x1000, 1000, 1, 0);
    an_free(&r, 0x1000);
    an_alloc(&r, 0, 0x2000, 600, 2, 0);
    an_alloc(&r, 0, 0x3000, 300, 3, 0);
    an_free(&r, 0x3000);
    an_free(&r, 0x3000); /* double */
    an_free(&r, 0x9000); /* never allocated */
    an_oom(&r, 0, 1ull << 40, 4);
    cmt_replay_finish(&r); /* no EXIT: the process died */
    const struct cmt_devstate *d = cmt_replay_device(&r, 0);
    CHECK(d != NULL);
    if (!d) return;
    CHECK(d->peak == 1000);
    CHECK(d->live == 0); /* what was live became a leak */
    CHECK(d->allocations == 3 && d->frees == 2);
    CHECK(peak_bytes_of(d, 1) == 1000 && peak_bytes_of(d, 2) == 0); /* the snapshot of the first peak */
    CHECK(r.anomalies[CMT_AN_DOUBLE_FREE] == 1);
    CHECK(r.anomalies[CMT_AN_UNKNOWN_FREE] == 1);
    CHECK(r.nooms == 1 && r.ooms[0].requested == 1ull << 40 && r.ooms[0].live_bytes == 600);
    CHECK(r.nooms == 1 && r.ooms[0].ntop == 1 && r.ooms[0].top[0].stack == 2);
    CHECK(r.nleaks == 1);
    const struct cmt_leak *k = leak_of(&r, 2);
    CHECK(k && k->bytes == 600 && k->allocations == 1 && k->at == CMT_AT_DIED && k->device == 0);
    CHECK(d->leaked_bytes == 600 && d->leaked_allocations == 1);
    cmt_replay_free(&r);
}

/* The recently-freed set (replay.c: a ring of the last FREED_RING frees, indexed only when a free
 * misses): a free of a key freed within the window is a double free, one freed before it, or
 * re-allocated and freed again, is judged by its latest free; the index is brought up to date
 * across several misses and after the ring wraps. */
static void test_recently_freed_window(void) {
    struct cmt_replay r;
    CHECK(cmt_replay_init(&r, 10) == 0);
    an_device(&r, 0, 0x33);
    an_alloc(&r, 0, 0x10, 1, 1, 0);
    an_free(&r, 0x10); /* free number 0 */
    an_free(&r, 0x10); /* double: indexes the ring */
    CHECK(r.anomalies[CMT_AN_DOUBLE_FREE] == 1);
    an_alloc(&r, 0, 0x10, 1, 1, 0); /* re-allocated: live, then freed again */
    an_free(&r, 0x10);
    an_free(&r, 0x10); /* double again */
    CHECK(r.anomalies[CMT_AN_DOUBLE_FREE] == 2);
    /* FREED_RING - 1 other frees: 0x10's latest free is the oldest one still in the window */
    for (uint64_t i = 1; i < FREED_RING; i++) {
        an_alloc(&r, 0, 0x100000 + i * 16, 1, 1, 0);
        an_free(&r, 0x100000 + i * 16);
    }
    an_free(&r, 0x10);
    CHECK(r.anomalies[CMT_AN_DOUBLE_FREE] == 3 && r.anomalies[CMT_AN_UNKNOWN_FREE] == 0);
    an_alloc(&r, 0, 0x20, 1, 1, 0);
    an_free(&r, 0x20); /* pushes 0x10 out of the window */
    an_free(&r, 0x10);
    CHECK(r.anomalies[CMT_AN_DOUBLE_FREE] == 3 && r.anomalies[CMT_AN_UNKNOWN_FREE] == 1);
    an_free(&r, 0x20);                             /* still in the window */
    an_free(&r, 0x100000 + (FREED_RING - 1) * 16); /* so is the last of the others */
    an_free(&r, 0x100000 + 16);                    /* the oldest in the window (misses are not frees) */
    CHECK(r.anomalies[CMT_AN_DOUBLE_FREE] == 6 && r.anomalies[CMT_AN_UNKNOWN_FREE] == 1);
    /* more than a ring's worth of frees since the last miss: the index is rebuilt */
    for (uint64_t i = 0; i < FREED_RING + 10; i++) {
        an_alloc(&r, 0, 0x900000 + i * 16, 1, 1, 0);
        an_free(&r, 0x900000 + i * 16);
    }
    an_free(&r, 0x20);               /* fell out long ago */
    an_free(&r, 0x900000 + 9 * 16);  /* fell out just now */
    an_free(&r, 0x900000 + 10 * 16); /* the oldest in the window */
    CHECK(r.anomalies[CMT_AN_DOUBLE_FREE] == 7 && r.anomalies[CMT_AN_UNKNOWN_FREE] == 3);
    CHECK(r.out_of_memory == 0);
    cmt_replay_free(&r);
}

/* The one hash table (util.c) grown past 4 MiB: a mapping that grows in place (mremap) and moves
 * its entries inside itself. Every key stays found with its value through growth and deletions,
 * including those whose probe paths wrap around the end of the table to slot 0 (the case the
 * in-place move must repair); the replay's live entries are 16 bytes. */
static void test_htab_in_place_growth(void) {
    CHECK(sizeof(struct live) == 16);
    struct cmt_htab t;
    cmt_htab_init(&t, sizeof(struct cmt_hkey), 1024);
    const uint64_t n = 1500000; /* 16-byte entries: 32 MiB at the end, the last growths in place */
    int existed, bad = 0;
    for (uint64_t i = 0; i < n; i++) {
        struct cmt_hkey *k = cmt_htab_put(&t, i * 0x10001 + 7, (uint32_t)(i & 3), &existed);
        if (!k || existed) {
            bad++;
            continue;
        }
        k->val = (uint32_t)i;
    }
    CHECK(bad == 0 && t.n == n && t.mapped);
    for (uint64_t i = 0; i < n; i++) {
        const struct cmt_hkey *k = cmt_htab_find(&t, i * 0x10001 + 7, (uint32_t)(i & 3));
        if (!k || k->val != (uint32_t)i) bad++;
        if (cmt_htab_find(&t, i * 0x10001 + 7, (uint32_t)((i + 1) & 3))) bad++;
    }
    CHECK(bad == 0);
    for (uint64_t i = 0; i < n; i += 2) {
        void *k = cmt_htab_find(&t, i * 0x10001 + 7, (uint32_t)(i & 3));
        if (k)
            cmt_htab_del(&t, k);
        else
            bad++;
    }
    for (uint64_t i = 0; i < n; i++) {
        const struct cmt_hkey *k = cmt_htab_find(&t, i * 0x10001 + 7, (uint32_t)(i & 3));
        if ((i & 1) ? !k || k->val != (uint32_t)i : k != NULL) bad++;
    }
    CHECK(bad == 0 && t.n == n / 2);
    size_t used = 0;
    for (size_t i = 0; i < t.cap; i++)
        used += cmt_hkey_used(cmt_htab_at(&t, i));
    CHECK(used == t.n);
    cmt_htab_free(&t);
    CHECK(cmt_htab_put(&t, 1, CMT_HKEY_B_MAX, &existed) == NULL); /* b out of range: refused */
    /* 2000 keys whose homes are the last 16 slots (their cluster wraps to slot 0), then random
     * keys, through two growths: at each growth in place, half of the crowded keys get homes at
     * the new end and wrap onto slots whose old entries are moved later */
    const size_t cap0 = 1u << 18; /* 4 MiB of 16-byte entries: a mapping from the first put */
    cmt_htab_init(&t, sizeof(struct cmt_hkey), cap0);
    uint64_t nkeys = 0, crowded = 0;
    for (uint64_t a = 1; crowded < 2000; a++)
        if ((cmt_htab_hash(a, CMT_HKEY_B_MAX) & (cap0 - 1)) >= cap0 - 16) {
            struct cmt_hkey *k = cmt_htab_put(&t, a, 0, &existed);
            if (k) k->val = 1;
            crowded++;
        }
    CHECK(t.mapped && t.n == 2000);
    /* random keys (b = 1: never a crowded one) up to the second growth, none after it (a later put
     * could fill a hole that growth left on a probe path and hide it); then every key must be found
     * from its home: this fails when the move in place starts anywhere but the first empty slot */
    for (uint64_t i = 0; t.cap < 4 * cap0 && i < 4 * cap0; i++) {
        struct cmt_hkey *k = cmt_htab_put(&t, i * 0x9e3779b97f4a7c15ull, 1, &existed);
        if (k) k->val = 2;
        nkeys += k != NULL;
    }
    CHECK(t.cap == 4 * cap0 && t.n == 2000 + nkeys);
    nkeys = 0;
    for (size_t i = 0; i < t.cap; i++) {
        const struct cmt_hkey *k = cmt_htab_at(&t, i);
        if (!cmt_hkey_used(k)) continue;
        nkeys++;
        if (cmt_htab_find(&t, k->a, (k->b & ~CMT_HKEY_B_MAX)) != k) bad++;
    }
    CHECK(bad == 0 && nkeys == t.n);
    cmt_htab_free(&t);
}

static void test_teardown_by_context(void) {
    struct cmt_replay r;
    CHECK(cmt_replay_init(&r, 10) == 0);
    an_device(&r, 0, 0x22);
    an_alloc(&r, 0, 0x1000, 100, 1, 0xa);
    an_alloc(&r, 0, 0x2000, 200, 2, 0xb);
    an_alloc(&r, 0, 0x3000, 400, 3, 0xa);
    an_teardown(&r, 0, 0xa); /* ends 0x1000 and 0x3000 only */
    an_free(&r, 0x2000);
    an_free(&r, 0x1000); /* ended by the teardown: not live any more */
    an_exit(&r);
    cmt_replay_finish(&r);
    const struct cmt_devstate *d = cmt_replay_device(&r, 0);
    CHECK(d && d->peak == 700 && d->live == 0 && d->leaked_bytes == 500);
    CHECK(r.nleaks == 2);
    const struct cmt_leak *k1 = leak_of(&r, 1), *k3 = leak_of(&r, 3);
    CHECK(k1 && k1->at == CMT_AT_TEARDOWN && k1->bytes == 100);
    CHECK(k3 && k3->at == CMT_AT_TEARDOWN && k3->bytes == 400);
    CHECK(r.nleaks == 2 && r.leaks[0].stack == 3); /* bytes desc */
    CHECK(leak_of(&r, 2) == NULL);
    CHECK(r.anomalies[CMT_AN_UNKNOWN_FREE] == 1);
    cmt_replay_free(&r);
}

static void test_leak_at_exit(void) {
    struct cmt_replay r;
    CHECK(cmt_replay_init(&r, 10) == 0);
    an_device(&r, 1, 0x33);
    an_alloc(&r, 1, 0x1000, 50, 7, 0);
    an_alloc(&r, 1, 0x2000, 50, 7, 0);
    an_alloc(&r, -1, 0x5000, 64, 8, 0); /* host memory */
    an_exit(&r);
    cmt_replay_finish(&r);
    const struct cmt_leak *k = leak_of(&r, 7);
    CHECK(k && k->at == CMT_AT_EXIT && k->bytes == 100 && k->allocations == 2 && k->device == 1);
    const struct cmt_leak *h = leak_of(&r, 8);
    CHECK(h && h->device == -1 && h->bytes == 64);
    CHECK(r.host_peak == 64 && r.host_leaked == 64);
    CHECK(r.have_exit && r.exit_how == CMT_EXIT_CLEAN);
    cmt_replay_free(&r);
}

/* The process's GPU bytes (gpu_live, gpu_peak): all its devices together at one moment, host memory
 * apart; not the largest device peak (6) nor the sum of the device peaks (11). */
static void test_process_gpu_peak(void) {
    struct cmt_replay r;
    CHECK(cmt_replay_init(&r, 10) == 0);
    an_device(&r, 0, 0x44);
    an_device(&r, 1, 0x55);
    an_alloc(&r, 0, 0x1000, 3, 1, 0xa);
    an_alloc(&r, 1, 0x2000, 5, 1, 0xb);
    an_alloc(&r, -1, 0x9000, 100, 2, 0); /* host memory: not GPU bytes */
    CHECK(r.gpu_live == 8 && r.gpu_peak == 8);
    an_free(&r, 0x1000);
    an_teardown(&r, 1, 0xb); /* ends 0x2000 */
    CHECK(r.gpu_live == 0 && r.gpu_peak == 8);
    an_alloc(&r, 0, 0x3000, 6, 1, 0xa);
    an_alloc(&r, 0, 0x3000, 2, 1, 0xa); /* again without a free: replaces the 6 */
    CHECK(r.gpu_live == 2 && r.gpu_peak == 8);
    cmt_replay_finish(&r); /* what is live becomes a leak */
    const struct cmt_devstate *d0 = cmt_replay_device(&r, 0), *d1 = cmt_replay_device(&r, 1);
    CHECK(d0 && d0->peak == 6 && d1 && d1->peak == 5);
    CHECK(r.gpu_live == 0 && r.gpu_peak == 8 && r.host_peak == 100);
    cmt_replay_free(&r);
}

/* The memos before the (stack, device) and (context, kind) maps (replay_internal.h, 64 slots each)
 * must compare both parts of their key. Besides a round robin churn that fights over the slots all
 * the time, entries that share a memo slot (cmt_memo_slot) and differ in only ONE key part are
 * allocated one right after the other: the same stack on devices 0 and 37, two stacks on one
 * device, the same kind in two contexts, the same context with two kinds. A memo that compares only
 * half its key hands the second the first's counter or context. Every allocation must keep its own:
 * each leak row (stack, device, kind, at) holds exactly the bytes of its allocations, and a teardown
 * of a context ends exactly that context's. */
#define MEMO_STACKS 4000 /* stack ids 1..MEMO_STACKS */
#define MEMO_DEVS 3
#define MEMO_KINDS 4
#define MEMO_CTXS 40
static const int64_t memo_dev[MEMO_DEVS] = {0, 37, 2};
/* 240: a kind this reader does not know (a newer writer's), which the replay keeps as it is. With
 * the kinds it knows (< 10) one context never puts two kinds in one slot; with 240 it does. */
static const uint8_t memo_kind[MEMO_KINDS] = {CMT_KIND_DEVICE, CMT_KIND_MANAGED, CMT_KIND_ASYNC, 240};
static uint64_t memo_want[MEMO_STACKS + 1][MEMO_DEVS][MEMO_KINDS][2]; /* [stack][dev][kind][at: 0 exit, 1 teardown] */
static uint64_t memo_torn[256];                                       /* the contexts torn down */
static size_t memo_ntorn;
static unsigned memo_n;

static int memo_is_torn(uint64_t ctx) {
    for (size_t i = 0; i < memo_ntorn; i++)
        if (memo_torn[i] == ctx) return 1;
    return 0;
}

/* An allocation of (stack, memo_dev[dv]) in (ctx, memo_kind[kind]); its bytes are expected in the
 * row of its context's fate, so contexts are marked torn (memo_torn) before any allocation. */
static void memo_alloc(struct cmt_replay *r, unsigned stack, unsigned dv, uint64_t ctx, unsigned kind) {
    struct cmt_event e = an_ev(CMT_REC_ALLOC);
    unsigned i = memo_n++;
    e.device = memo_dev[dv];
    e.ptr = 0x100000 + (uint64_t)i * 0x1000;
    e.size = e.granted = 1 + i % 97;
    e.stack = stack;
    e.ctx = ctx;
    e.kind = memo_kind[kind];
    cmt_replay_event(r, &e);
    memo_want[stack][dv][kind][memo_is_torn(ctx)] += e.size;
}

static void test_memo_collisions(void) {
    struct cmt_replay r;
    struct idx_memo probe[MEMO_SLOTS];
    CHECK(cmt_replay_init(&r, 10) == 0);
    memset(memo_want, 0, sizeof memo_want);
    memo_ntorn = 0;
    memo_n = 0;
    for (int dv = 0; dv < MEMO_DEVS; dv++)
        an_device(&r, memo_dev[dv], (uint8_t)(0x40 + dv));
#define SLOT(a, b) (cmt_memo_slot(probe, (a), (b)) - probe)
    /* contexts: churn 0xc0000 + c * 0x100 (c < MEMO_CTXS; c == 5 torn down); the context pairs
     * 0xd00000 + j (the first of each pair torn down); the kind pairs 0xe00000 + j */
    memo_torn[memo_ntorn++] = 0xc0000 + 5 * 0x100;
    uint64_t cpair[64][2];
    size_t ncpair = 0;
    for (uint64_t c1 = 0xd00000; c1 < 0xd00000 + 4000 && ncpair < 64; c1++)
        for (uint64_t c2 = c1 + 1; c2 < c1 + 200; c2++) {
            unsigned k = (unsigned)(c1 % MEMO_KINDS);
            if (SLOT(c1, memo_kind[k]) != SLOT(c2, memo_kind[k])) continue;
            int used = 0;
            for (size_t j = 0; j < ncpair; j++)
                used |= cpair[j][0] == c1 || cpair[j][1] == c1 || cpair[j][0] == c2 || cpair[j][1] == c2;
            if (used) continue;
            cpair[ncpair][0] = c1;
            cpair[ncpair][1] = c2;
            memo_torn[memo_ntorn++] = c1;
            ncpair++;
            break;
        }
    CHECK(ncpair == 64);

    /* the churn: stacks 1..500 round robin over the three devices, 40 contexts, 2 kinds */
    for (unsigned i = 0; i < 20000; i++) {
        unsigned st = 1 + (i / 6) % 500, dv = i % MEMO_DEVS, c = (i * 3) % MEMO_CTXS, kind = (i / 3) % 2;
        memo_alloc(&r, st, dv, 0xc0000 + (uint64_t)c * 0x100, kind);
    }
    /* the same stack on devices 0 and 37 (index 1), in one slot, one after the other (both orders) */
    unsigned ndevpairs = 0;
    for (unsigned st = 1; st <= MEMO_STACKS; st++)
        if (SLOT(st, 0) == SLOT(st, 37)) {
            unsigned first = ndevpairs++ % 2;
            memo_alloc(&r, st, first, 0xc0000, 0);
            memo_alloc(&r, st, !first, 0xc0000, 0);
        }
    CHECK(ndevpairs > 100);
    /* two stacks on one device, in one slot, one after the other */
    unsigned nstackpairs = 0;
    for (unsigned dv = 0; dv < MEMO_DEVS; dv++) {
        unsigned last[MEMO_SLOTS] = {0};
        for (unsigned st = 1; st <= MEMO_STACKS; st++) {
            size_t s = SLOT(st, (uint64_t)memo_dev[dv]);
            if (last[s]) {
                memo_alloc(&r, last[s], dv, 0xc0100, 1);
                memo_alloc(&r, st, dv, 0xc0100, 1);
                nstackpairs++;
            }
            last[s] = st;
        }
    }
    CHECK(nstackpairs > 1000);
    /* the same kind in two contexts, in one slot, one after the other (a stack of its own each) */
    unsigned st = 1;
    for (size_t j = 0; j < ncpair; j++) {
        unsigned k = (unsigned)(cpair[j][0] % MEMO_KINDS);
        memo_alloc(&r, st++, j % MEMO_DEVS, cpair[j][0], k);
        memo_alloc(&r, st++, j % MEMO_DEVS, cpair[j][1], k);
    }
    /* the same context with two kinds, in one slot, one after the other (a stack of its own each) */
    unsigned nkindpairs = 0;
    for (uint64_t c = 0xe00000; c < 0xe00000 + 400; c++)
        for (unsigned k1 = 0; k1 < MEMO_KINDS; k1++)
            for (unsigned k2 = 0; k2 < MEMO_KINDS; k2++)
                if (k1 != k2 && SLOT(c, memo_kind[k1]) == SLOT(c, memo_kind[k2])) {
                    memo_alloc(&r, st++, nkindpairs % MEMO_DEVS, c, k1);
                    memo_alloc(&r, st++, nkindpairs % MEMO_DEVS, c, k2);
                    nkindpairs++;
                }
    CHECK(nkindpairs > 100);
    CHECK(st <= MEMO_STACKS);
#undef SLOT

    for (size_t i = 0; i < memo_ntorn; i++) {
        struct cmt_event td = an_ev(CMT_REC_TEARDOWN);
        td.device = 0;
        td.ctx = memo_torn[i];
        cmt_replay_event(&r, &td);
    }
    an_exit(&r);
    cmt_replay_finish(&r);
    size_t rows = 0;
    for (unsigned s = 1; s <= MEMO_STACKS; s++)
        for (unsigned dv = 0; dv < MEMO_DEVS; dv++)
            for (unsigned kind = 0; kind < MEMO_KINDS; kind++)
                for (int at = 0; at < 2; at++) {
                    if (!memo_want[s][dv][kind][at]) continue;
                    rows++;
                    int a = at ? CMT_AT_TEARDOWN : CMT_AT_EXIT;
                    const struct cmt_leak *l = NULL;
                    for (size_t i = 0; i < r.nleaks && !l; i++)
                        if (r.leaks[i].stack == s && r.leaks[i].device == memo_dev[dv] &&
                            r.leaks[i].kind == memo_kind[kind] && r.leaks[i].at == a)
                            l = &r.leaks[i];
                    CHECK(l && l->bytes == memo_want[s][dv][kind][at]);
                }
    CHECK(r.nleaks == rows);
    cmt_replay_free(&r);
}

/* A small process: devices, stacks, allocations, a marker series, an OOM, leaks. */
static void scenario(struct cmt_replay *r) {
    an_device(r, 0, 0x44);
    an_device(r, 1, 0x55);
    for (int i = 0; i < 40; i++) {
        struct cmt_event st = an_ev(CMT_REC_STACK);
        uint64_t frames[2] = {0x1000 + (uint64_t)i, 0x2000};
        st.id = (uint64_t)i + 1;
        st.nframes = 2;
        st.frames = frames;
        cmt_replay_event(r, &st);
    }
    for (int it = 0; it < 6; it++) {
        struct cmt_event m = an_ev(CMT_REC_MARKER);
        m.str1 = "step";
        m.str1_len = 4;
        m.str2 = "";
        cmt_replay_event(r, &m);
        for (uint64_t i = 0; i < 30; i++)
            an_alloc(r, (int64_t)(i % 2), 0x100000 * (i + 1) + (uint64_t)it, 4096 * (i + 1), i % 40 + 1, 0);
        for (uint64_t i = 0; i < 30; i += 2)
            an_free(r, 0x100000 * (i + 1) + (uint64_t)it);
    }
    an_oom(r, 0, 1ull << 40, 3);
    an_exit(r);
}

/* An allocation granted other than its size: the live_info keeps granted - size in 24 bits beside
 * its (context, kind) index, and both aside when granted is smaller than the size, 16 MiB or more
 * above it, or the index is 255 or more. Live, peak and leaked bytes count what was granted,
 * requested bytes the size, whichever way it is kept, through a replacement (allocated again
 * without a free) and the reuse of a freed entry; a teardown finds the contexts kept aside. */
static void an_alloc_granted(struct cmt_replay *r, uint64_t ptr, uint64_t size, uint64_t granted, uint64_t stack,
                             uint64_t ctx) {
    struct cmt_event e = an_ev(CMT_REC_ALLOC);
    e.device = 0;
    e.ctx = ctx;
    e.ptr = ptr;
    e.size = size;
    e.granted = granted;
    e.stack = stack;
    e.kind = CMT_KIND_DEVICE;
    cmt_replay_event(r, &e);
}

static void test_granted_far_from_size(void) {
    struct cmt_replay r;
    CHECK(cmt_replay_init(&r, 10) == 0);
    an_device(&r, 0, 0x33);
    const uint64_t g = 5ull << 30;
    an_alloc_granted(&r, 0x1000, 100, 100 + g, 1, 0);      /* 5 GiB more: kept aside */
    an_alloc_granted(&r, 0x1800, 1, 1 + (1u << 24), 6, 0); /* 16 MiB more: kept aside */
    an_free(&r, 0x1800);
    an_alloc_granted(&r, 0x2000, 1000, 10, 2, 0);  /* less than the size: kept aside */
    an_alloc_granted(&r, 0x3000, 300, 4096, 3, 0); /* beside the index */
    const struct cmt_devstate *d = cmt_replay_device(&r, 0);
    CHECK(d && d->live == 100 + g + 10 + 4096 && d->peak == 100 + g + 1 + (1u << 24));
    an_free(&r, 0x2000);
    CHECK(d->live == 100 + g + 4096);
    an_alloc_granted(&r, 0x4000, 50, 60, 4, 0); /* reuses the entry 0x2000 had */
    CHECK(d->live == 100 + g + 4096 + 60);
    an_alloc_granted(&r, 0x3000, 7, 7 + g + 1, 5, 0); /* 0x3000 again without a free: replaced */
    CHECK(d->live == 100 + g + 60 + 7 + g + 1 && d->peak == d->live);
    an_free(&r, 0x1000);
    CHECK(d->live == 60 + 7 + g + 1);
    an_exit(&r);
    cmt_replay_finish(&r);
    const struct cmt_leak *l4 = leak_of(&r, 4), *l5 = leak_of(&r, 5);
    CHECK(l4 && l4->bytes == 60 && l4->requested == 50);
    CHECK(l5 && l5->bytes == 7 + g + 1 && l5->requested == 7);
    CHECK(!leak_of(&r, 1) && !leak_of(&r, 2) && !leak_of(&r, 3));
    CHECK(d->live == 0 && d->leaked_bytes == 60 + 7 + g + 1 && r.out_of_memory == 0);
    cmt_replay_free(&r);
    /* 300 contexts, one allocation each (1 MiB granted for 1000 bytes): indexes past 254 kept aside */
    CHECK(cmt_replay_init(&r, 10) == 0);
    an_device(&r, 0, 0x33);
    for (uint64_t c = 1; c <= 300; c++)
        an_alloc_granted(&r, 0x100000 * c, 1000, 1u << 20, 100 + c, c);
    d = cmt_replay_device(&r, 0);
    CHECK(d && d->live == 300u << 20);
    an_teardown(&r, 0, 300); /* index 299: kept aside */
    an_teardown(&r, 0, 200); /* index 199: in the live_info */
    CHECK(d->live == 298u << 20 && d->leaked_bytes == 2u << 20);
    an_exit(&r);
    cmt_replay_finish(&r);
    const struct cmt_leak *l300 = leak_of(&r, 400), *l200 = leak_of(&r, 300), *l299 = leak_of(&r, 399);
    CHECK(l300 && l300->at == CMT_AT_TEARDOWN && l300->bytes == 1u << 20 && l300->requested == 1000 &&
          l300->kind == CMT_KIND_DEVICE);
    CHECK(l200 && l200->at == CMT_AT_TEARDOWN && l299 && l299->at == CMT_AT_EXIT && l299->requested == 1000);
    CHECK(d->live == 0 && d->leaked_bytes == 300u << 20 && r.out_of_memory == 0);
    cmt_replay_free(&r);
}

struct figures {
    uint64_t peak0, peak1, leaked0, leaked1, nleaks, nooms, nmarkers, ngrowth, top0;
};

static struct figures figures_of(const struct cmt_replay *r) {
    struct figures f = {0};
    const struct cmt_devstate *d0 = cmt_replay_device(r, 0), *d1 = cmt_replay_device(r, 1);
    if (d0) f = (struct figures){d0->peak, 0, d0->leaked_bytes, 0, 0, 0, 0, 0, d0->npeak_top};
    if (d1) {
        f.peak1 = d1->peak;
        f.leaked1 = d1->leaked_bytes;
    }
    f.nleaks = r->nleaks;
    f.nooms = r->nooms;
    f.nmarkers = r->marks.nmarkers;
    f.ngrowth = r->marks.ngrowth;
    return f;
}

static void test_out_of_memory_is_never_silent(void) {
    struct cmt_replay r;
    alloc_budget = -1;
    CHECK(cmt_replay_init(&r, 10) == 0);
    scenario(&r);
    cmt_replay_finish(&r);
    struct figures want = figures_of(&r);
    CHECK(r.out_of_memory == 0 && want.nleaks > 0 && want.ngrowth > 0 && want.nooms == 1);
    cmt_replay_free(&r);
    int silent = 0, counted = 0;
    for (long budget = 0; budget < 400; budget++) {
        alloc_budget = budget;
        int ok = cmt_replay_init(&r, 10) == 0;
        if (ok) {
            scenario(&r);
            cmt_replay_finish(&r);
            struct figures got = figures_of(&r);
            if (r.out_of_memory)
                counted++;
            else if (memcmp(&got, &want, sizeof got)) {
                fprintf(stderr, "allocation budget %ld: other figures, no out_of_memory\n", budget);
                silent++;
            }
        }
        alloc_budget = -1;
        cmt_replay_free(&r);
    }
    CHECK(silent == 0);
    CHECK(counted > 0);
}

int main(void) {
    test_peak_and_leaks();
    test_teardown_by_context();
    test_recently_freed_window();
    test_htab_in_place_growth();
    test_leak_at_exit();
    test_process_gpu_peak();
    test_memo_collisions();
    test_granted_far_from_size();
    test_out_of_memory_is_never_silent();
    if (an_failures)
        fprintf(stderr, "test_replay: %d check(s) failed\n", an_failures);
    else
        printf("test_replay: ok\n");
    return an_failures != 0;
}
