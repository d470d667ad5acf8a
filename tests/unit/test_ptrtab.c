/* test_ptrtab.c — the live-allocation table (preload/cmt_ptrtab.[ch]: 64 stripes of 7-slot groups
 * with overflow counts) against a reference: random inserts, replaces and removes in two spaces
 * (the same key in both), removes of absent keys, growth from empty; keys crafted to share one home
 * group, so that they overflow into the groups after it, past the last group into group 0
 * (wraparound) and past an overflow count's saturation (255); a sweep. After each phase every
 * group's overflow count is checked against the count recomputed from where the keys lie, every
 * live key is found with its value, and the sequence numbers increase. Exit 0 when every check
 * holds. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmt_ptrtab.h"

__thread struct cmt_tls cmt_tls;
static uint64_t table_full;
void cmt_counter_add(enum cmt_counter c, uint64_t n) {
    if (c == CMT_CTR_TABLE_FULL) table_full += n;
}

static int failures;
#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "test_ptrtab.c:%d: FAIL: %s\n", __LINE__, #cond);                                          \
            if (++failures > 20) exit(1);                                                                              \
        }                                                                                                              \
    } while (0)

/* ---- the reference: every (key, space) live, with its entry, in an array (linear search) ---- */
#define REF_MAX 100000
static struct cmt_entry ref[REF_MAX];
static int nref;
static int ref_find(uint64_t key, unsigned space) {
    for (int i = nref - 1; i >= 0; i--) /* from the end: the last one is the most often removed */
        if (ref[i].key == key && (ref[i].kind_space & 3) == space) return i;
    return -1;
}

static int64_t now = 1000;
static uint64_t last_seq;
static long clock_reads;
static int64_t test_now(void) { /* cmt_ptr_untrack's clock */
    clock_reads++;
    return now++;
}
/* An insert on another thread (a key handed out again while a free of it is in flight), or
 * (key 0) a definition's number there (a TEARDOWN's). */
struct reuse {
    struct cmt_entry e;
    int64_t at;
    uint64_t seq;
};
static void *reuse_thread(void *arg) {
    struct reuse *r = arg;
    if (r->e.key)
        cmt_ptr_insert(&r->e, r->at, &r->seq);
    else
        r->seq = cmt_seq_def(r->at);
    return NULL;
}
static void seq_ok(uint64_t seq) {
    CHECK(seq > last_seq);
    last_seq = seq;
}

static struct cmt_entry make(uint64_t key, unsigned space, uint64_t salt) {
    return (struct cmt_entry){.key = key,
                              .size = salt * 256 + 1,
                              .stack = (uint32_t)(salt * 7 + 3),
                              .ctx = (uint16_t)(salt & 0xffff),
                              .device = (int8_t)(salt % 9 - 1),
                              .kind_space = (uint8_t)((salt % 11) << 2 | space)};
}
static bool same(const struct cmt_entry *a, const struct cmt_entry *b) {
    return a->key == b->key && a->size == b->size && a->stack == b->stack && a->ctx == b->ctx &&
           a->device == b->device && a->kind_space == b->kind_space;
}

static void insert(const struct cmt_entry *e, bool indexed) {
    uint64_t seq;
    CHECK(cmt_ptr_insert(e, now++, &seq));
    seq_ok(seq);
    int i = indexed ? ref_find(e->key, e->kind_space & 3) : -1;
    if (i >= 0)
        ref[i] = *e; /* a replace */
    else if (nref < REF_MAX)
        ref[nref++] = *e;
}
static void removal(uint64_t key, unsigned space) {
    struct cmt_entry out = {0};
    uint64_t seq;
    bool live = cmt_ptr_remove(key, space, now++, &out, &seq);
    seq_ok(seq);
    int i = ref_find(key, space);
    CHECK(live == (i >= 0));
    if (i >= 0 && live) {
        CHECK(same(&out, &ref[i]));
        ref[i] = ref[--nref];
    }
}

/* Every group's overflow count equals the number of keys whose probe from their home passed it
 * (a saturated count stays saturated), the stripe counts add up, and every reference entry is found. */
static void check_table(void) {
    long total = 0;
    for (int k = 0; k < CMT_PTR_STRIPES; k++) {
        struct cmt_stripe *s = &cmt_ptr_stripes[k];
        uint32_t n = s->ngroups, live = 0;
        uint32_t *passed = calloc(n ? n : 1, sizeof *passed);
        for (uint32_t g = 0; g < n; g++)
            for (int i = 0; i < CMT_PTR_GROUP_SLOTS; i++) {
                uint8_t t = (uint8_t)(s->groups[g].meta >> (8 * i));
                if (!t) continue;
                live++;
                uint64_t key = s->groups[g].key[i];
                unsigned space = s->groups[g].val[i].kind_space & 3;
                uint64_t h = cmt_ptr_hash(key, space);
                CHECK((h & (CMT_PTR_STRIPES - 1)) == (uint64_t)k);
                CHECK(t == cmt_ptr_tag(h, space));
                for (uint32_t p = cmt_ptr_home(h, n); p != g; p = (p + 1) & (n - 1))
                    passed[p]++;
            }
        for (uint32_t g = 0; g < n; g++) {
            uint8_t o = cmt_ptr_ovf(&s->groups[g]);
            if (o != CMT_PTR_OVF_MAX) /* saturated: sticky until the stripe grows */
                CHECK(o == passed[g]);
        }
        CHECK(live == s->count);
        CHECK(s->count <= s->limit);
        CHECK(s->limit == s->ngroups * CMT_PTR_GROUP_SLOTS / 10 * 7);
        total += live;
        free(passed);
    }
    CHECK(total == nref);
    for (int i = 0; i < nref; i++) { /* found: remove and put back */
        struct cmt_entry out = {0}, e = ref[i];
        uint64_t seq;
        CHECK(cmt_ptr_remove(e.key, e.kind_space & 3, now++, &out, &seq) && same(&out, &e));
        CHECK(cmt_ptr_insert(&e, now++, &seq));
    }
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* n keys of space 0 whose hash puts them in stripe 0 with home group `home` of a stripe of
 * ngroups groups (addresses, 256-aligned). */
static void crafted(uint64_t *out, int n, uint32_t ngroups, uint32_t home) {
    for (uint64_t a = 0x7f0000000000ull; n > 0; a += 256) {
        uint64_t h = cmt_ptr_hash(a, 0);
        if ((h & (CMT_PTR_STRIPES - 1)) == 0 && cmt_ptr_home(h, ngroups) == home) *out++ = a, n--;
    }
}

static bool sweep_match(const struct cmt_entry *e, void *arg) {
    return e->ctx % 3 == *(unsigned *)arg;
}
static int swept;
static void sweep_gone(const struct cmt_entry *e, void *arg) {
    (void)arg;
    int i = ref_find(e->key, e->kind_space & 3);
    CHECK(i >= 0);
    if (i >= 0) {
        CHECK(same(e, &ref[i]));
        ref[i] = ref[--nref];
    }
    swept++;
}

int main(void) {
    cmt_seq_init(0);

    /* 1: random inserts, replaces and removes against the reference (small: many collisions) */
    for (int round = 0; round < 60000; round++) {
        uint64_t r = next();
        uint64_t key = 0x10000 + (r >> 40) % 3000 * 256; /* 3000 addresses: reuse, replace */
        unsigned space = (r >> 8) % 4 == 0;              /* the same address in space 1 too */
        if ((r & 3) == 0)
            removal(key, space);
        else {
            struct cmt_entry e = make(key, space, r >> 20);
            insert(&e, true);
        }
    }
    check_table();
    while (nref) /* remove everything, plus absent keys */
        removal(ref[nref - 1].key, ref[nref - 1].kind_space & 3);
    removal(0x10000, 0);
    removal(0xdead00, 1);
    check_table();

    /* 2: growth from the start: 60 000 distinct keys, every fourth removed on the way */
    for (int i = 0; i < 60000; i++) {
        struct cmt_entry e = make(0x200000000ull + (uint64_t)i * 512, i % 5 == 0, (uint64_t)i);
        insert(&e, false);
        if (i % 4 == 3) removal(ref[nref / 2].key, ref[nref / 2].kind_space & 3);
    }
    check_table();
    while (nref)
        removal(ref[nref - 1].key, ref[nref - 1].kind_space & 3);
    check_table();

    /* 3: one home group, the stripe's last: overflow wraps into group 0 and on; removing from the
     * middle of the chain keeps the rest found (no shifting), reinserting fills the holes */
    uint32_t ng = cmt_ptr_stripes[0].ngroups;
    static uint64_t keys[400];
    crafted(keys, 30, ng, ng - 1);
    for (int i = 0; i < 30; i++)
        insert(&(struct cmt_entry){.key = keys[i], .size = (uint64_t)i + 1, .kind_space = 1 << 2}, true);
    CHECK(cmt_ptr_stripes[0].ngroups == ng);                /* no growth: the chain did wrap */
    CHECK((cmt_ptr_stripes[0].groups[0].meta & 0xff) != 0); /* group 0 holds overflow */
    CHECK(cmt_ptr_ovf(&cmt_ptr_stripes[0].groups[ng - 1]) == 30 - CMT_PTR_GROUP_SLOTS); /* passed the home */
    check_table();
    for (int i = 3; i < 30; i += 4)
        removal(keys[i], 0);
    check_table();
    for (int i = 3; i < 30; i += 4)
        insert(&(struct cmt_entry){.key = keys[i], .size = 7, .kind_space = 2 << 2}, true);
    check_table();
    while (nref)
        removal(ref[nref - 1].key, ref[nref - 1].kind_space & 3);
    check_table();

    /* 4: saturation: 300 keys with one home group (the stripe has room for them: no growth) */
    CHECK(cmt_ptr_stripes[0].limit > 300);
    crafted(keys, 300, ng, 5);
    for (int i = 0; i < 300; i++)
        insert(&(struct cmt_entry){.key = keys[i], .size = (uint64_t)i + 1, .kind_space = 1 << 2}, true);
    CHECK(cmt_ptr_stripes[0].ngroups == ng);
    CHECK(cmt_ptr_ovf(&cmt_ptr_stripes[0].groups[5]) == CMT_PTR_OVF_MAX);
    check_table();
    for (int i = 0; i < 300; i += 2)
        removal(keys[i], 0);
    check_table();
    removal(keys[0], 0); /* absent: the lookup ends */
    while (nref)
        removal(ref[nref - 1].key, ref[nref - 1].kind_space & 3);
    check_table();

    /* 5: a sweep removes exactly the matching entries and hands each one over */
    for (int i = 0; i < 5000; i++)
        insert(
            &(struct cmt_entry){
                .key = 0x900000000ull + (uint64_t)i * 256, .size = 9, .ctx = (uint16_t)i, .kind_space = 1 << 2},
            false);
    unsigned which = 1;
    int want = 0;
    for (int i = 0; i < nref; i++)
        want += ref[i].ctx % 3 == which;
    cmt_ptr_sweep(sweep_match, &which, sweep_gone, 0);
    CHECK(swept == want);
    for (int i = 0; i < nref; i++)
        CHECK(ref[i].ctx % 3 != which);
    check_table();

    /* 6: frees in flight (issue 30): the FREE's number is taken when the real free returned, after
     * the stripe's clock, unless the key was inserted again meanwhile or a sweep passed: then just
     * below that insert's number (or the TEARDOWN's given to the sweep), never below the number
     * reserved at the untrack, which stays when there is no room between the two (issue 28: the
     * untrack of a free kept in flight reads no clock; one recorded at once reads it) */
    {
        struct cmt_entry a = make(0xa00000000ull, 0, 5), b = make(0xa00000100ull, 0, 6), out;
        uint64_t s1, s2, sb;
        int64_t t1, t2, before;
        unsigned w;
        cmt_ptr_insert(&a, now++, &s1);
        before = clock_reads;
        CHECK(cmt_ptr_untrack(a.key, 0, now++, test_now, &out, &s1, &t1, &w) && w && same(&out, &a));
        CHECK(clock_reads == before); /* in flight: no clock read */
        s2 = s1, t2 = t1;
        CHECK(cmt_ptr_freed(w, now += 1000, &s2, &t2) && s2 > s1 && t2 == now); /* not reused: later */
        /* handed out again (on another thread) before the free returned */
        cmt_ptr_insert(&a, now++, &s1);
        cmt_ptr_insert(&b, now++, &sb); /* another key: not a reuse */
        CHECK(cmt_ptr_untrack(a.key, 0, now++, test_now, &out, &s1, &t1, &w) && w);
        struct reuse r = {.e = a, .at = now += 5000};
        pthread_t th;
        CHECK(pthread_create(&th, NULL, reuse_thread, &r) == 0 && pthread_join(th, NULL) == 0);
        s2 = s1, t2 = t1;
        CHECK(!cmt_ptr_freed(w, now += 1000, &s2, &t2));
        CHECK(s1 < s2 && s2 < r.seq && (s2 >> CMT_SEQ_SLOT_BITS) + 1 == (r.seq >> CMT_SEQ_SLOT_BITS));
        CHECK(t2 > t1 && t2 < r.at && t2 <= now);
        seq_ok(s2);
        /* a sweep passed: below the TEARDOWN's number it was given, or the reserved one (none) */
        cmt_ptr_insert(&a, now++, &s1);
        CHECK(cmt_ptr_untrack(a.key, 0, now++, test_now, &out, &s1, &t1, &w) && w);
        struct reuse d = {.at = now += 5000}; /* the TEARDOWN's number, on another thread */
        CHECK(pthread_create(&th, NULL, reuse_thread, &d) == 0 && pthread_join(th, NULL) == 0);
        uint64_t td = d.seq;
        unsigned none = 99; /* a sweep that matches nothing still keeps frees in flight before it */
        cmt_ptr_sweep(sweep_match, &none, sweep_gone, td);
        s2 = s1, t2 = t1;
        CHECK(!cmt_ptr_freed(w, now += 1000, &s2, &t2) && s1 < s2 && s2 < td);
        /* a reuse between the TEARDOWN's number and its sweep: the lower bound (the TEARDOWN's) stays */
        cmt_ptr_insert(&a, now++, &s1);
        CHECK(cmt_ptr_untrack(a.key, 0, now++, test_now, &out, &s1, &t1, &w) && w);
        struct reuse d2 = {.at = now += 5000};
        CHECK(pthread_create(&th, NULL, reuse_thread, &d2) == 0 && pthread_join(th, NULL) == 0);
        struct reuse r2 = {.e = a, .at = now += 5000};
        CHECK(pthread_create(&th, NULL, reuse_thread, &r2) == 0 && pthread_join(th, NULL) == 0);
        CHECK(d2.seq < r2.seq);
        cmt_ptr_sweep(sweep_match, &none, sweep_gone, d2.seq);
        s2 = s1, t2 = t1;
        CHECK(!cmt_ptr_freed(w, now += 1000, &s2, &t2) && s1 < s2 && s2 < d2.seq);
        CHECK(cmt_ptr_untrack(a.key, 0, now++, test_now, &out, &s1, &t1, &w)); /* r2's insert */
        if (w) {
            s2 = s1, t2 = t1;
            cmt_ptr_freed(w, now += 1000, &s2, &t2);
        }
        /* a slot emptied meanwhile (a fork's child starts with none): the count does not wrap */
        cmt_ptr_insert(&a, now++, &s1);
        CHECK(cmt_ptr_untrack(a.key, 0, now++, test_now, &out, &s1, &t1, &w) && w);
        {
            struct cmt_stripe *fs = &cmt_ptr_stripes[w >> 2];
            fs->inflight[(w & 3) - 1] = 0;
            fs->ninflight = 0;
            s2 = s1, t2 = t1;
            CHECK(cmt_ptr_freed(w, now += 1000, &s2, &t2) && fs->ninflight == 0);
        }
        cmt_ptr_insert(&a, now++, &s1);
        CHECK(cmt_ptr_untrack(a.key, 0, now++, test_now, &out, &s1, &t1, &w) && w);
        cmt_ptr_sweep(sweep_match, &none, sweep_gone, 0);
        s2 = s1, t2 = t1;
        CHECK(!cmt_ptr_freed(w, now += 1000, &s2, &t2) && s2 == s1);
        { /* the reserved number, with at least its own clock's time (never after the free returned) */
            int64_t at = cmt_seq_base + (int64_t)(s1 >> CMT_SEQ_SLOT_BITS);
            at = at > now ? now : at;
            CHECK(t2 == (at > t1 ? at : t1));
        }
        /* recorded at once: the time now, read under the lock */
        before = clock_reads;
        CHECK(!cmt_ptr_untrack(0xa00000200ull, 0, now - 500, test_now, &out, &s1, &t1, &w) && !w); /* absent */
        CHECK(clock_reads == before + 1 && t1 == now - 1);
        uint64_t h = cmt_ptr_hash(a.key, 0); /* a full stripe: the free is not kept in flight */
        struct cmt_stripe *st = &cmt_ptr_stripes[h & (CMT_PTR_STRIPES - 1)];
        CHECK(st->ninflight == 0);
        st->ninflight = CMT_PTR_INFLIGHT;
        cmt_ptr_insert(&a, now++, &s1);
        before = clock_reads;
        CHECK(cmt_ptr_untrack(a.key, 0, now - 500, test_now, &out, &s1, &t1, &w) && !w && clock_reads == before + 1);
        st->ninflight = 0;
        { /* a thread on the shared sequence slot gets no late place of its own: the clock is read */
            uint32_t slot = cmt_tls.seq_slot;
            cmt_ptr_insert(&a, now++, &s1);
            cmt_tls.seq_slot = CMT_SEQ_SHARED_SLOT;
            before = clock_reads;
            CHECK(cmt_ptr_untrack(a.key, 0, now - 500, test_now, &out, &s1, &t1, &w) && w &&
                  clock_reads == before + 1 && t1 == now - 1);
            s2 = s1, t2 = t1;
            cmt_ptr_freed(w, now += 1000, &s2, &t2);
            cmt_tls.seq_slot = slot;
        }
        cmt_ptr_insert(&a, now++, &s1); /* no time read yet (0): kept in flight, the clock read */
        before = clock_reads;
        CHECK(cmt_ptr_untrack(a.key, 0, 0, test_now, &out, &s1, &t1, &w) && w && clock_reads == before + 1);
        s2 = s1, t2 = t1;
        CHECK(cmt_ptr_freed(w, now += 1000, &s2, &t2) && s2 > s1);
        CHECK(st->ninflight == 0);
        CHECK(cmt_ptr_remove(b.key, 0, now++, &out, &s1));
    }

    CHECK(table_full == 0);
    if (failures) return 1;
    printf("test_ptrtab: ok\n");
    return 0;
}
