/* test_seq.c — the tracer's sequence numbers (preload/cmt_seq.c, the hybrid logical clock of
 * cmt_format.h ORDERING) with chosen times: a number follows the structure clock it is taken after
 * even when its thread's time is behind; a thread's numbers increase; two threads at the same time
 * get different numbers (the slot bits); a definition raises the floor for every thread; a slot
 * freed by an exiting thread goes to the next new thread with its last number (the new thread's
 * numbers are above it even when its time is behind); threads beyond the slots share the last one
 * and still get unique numbers; a clock past its range gives 0 (the event is dropped). Exit 0 when
 * every check holds. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmt_seq.h"

__thread struct cmt_tls cmt_tls;

static int failures;
#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "test_seq.c:%d: FAIL: %s\n", __LINE__, #cond);                                             \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

static const int64_t BASE = 1000000;
#define SLOT(s) ((s) & ((1u << CMT_SEQ_SLOT_BITS) - 1))

/* ---- a thread that takes numbers on request ---- */
struct req {
    uint64_t floor;
    int64_t now;
    int def, exit_after;
    uint64_t got;
};
static void *take(void *arg) {
    struct req *r = arg;
    r->got = r->def ? cmt_seq_def(r->now) : cmt_seq_after(r->floor, r->now);
    if (r->exit_after) cmt_seq_thread_exit();
    return NULL;
}
static uint64_t on_thread(uint64_t floor, int64_t now, int def, int exit_after) {
    struct req r = {floor, now, def, exit_after, 0};
    pthread_t t;
    if (pthread_create(&t, NULL, take, &r)) abort();
    pthread_join(t, NULL);
    return r.got;
}

/* ---- many threads alive at once ---- */
#define MANY 600
#define PER 50
static uint64_t many[MANY][PER];
static pthread_barrier_t all_alive;
static void *many_worker(void *arg) {
    uint64_t *out = arg;
    pthread_barrier_wait(&all_alive); /* every thread holds its slot before any exits */
    for (int i = 0; i < PER; i++)
        out[i] = cmt_seq(BASE + 500);
    pthread_barrier_wait(&all_alive);
    return NULL;
}
static int cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(void) {
    cmt_seq_init(BASE);

    /* the structure clock: another thread far ahead in time, then this one behind it */
    uint64_t ahead = on_thread(0, BASE + 1000000, 0, 1);
    uint64_t a = cmt_seq_after(ahead, BASE + 10);
    CHECK(a > ahead);
    CHECK(SLOT(a) != 0 && SLOT(a) != CMT_SEQ_SHARED_SLOT);
    /* without a floor, the time rules and the thread's own numbers increase */
    uint64_t b = cmt_seq(BASE + 5);
    CHECK(b > a);
    uint64_t c = cmt_seq(BASE + 5000000);
    CHECK(c >> CMT_SEQ_SLOT_BITS == 5000000 + 1); /* the clock counts ns since init (+1) */
    /* two threads at the same time: different numbers */
    uint64_t d = on_thread(0, BASE + 5000000, 0, 1);
    CHECK(d != c && SLOT(d) != SLOT(c));

    /* a definition on another thread raises the floor: a later number here is above it */
    uint64_t def = on_thread(0, BASE + 90000000, 1, 1);
    uint64_t e = cmt_seq(BASE + 5000001);
    CHECK(e > def);

    /* slot reuse: a thread takes a number far ahead and exits; the next new thread gets its slot
     * (the free list is a stack) and, though its time is behind, numbers above the old ones */
    uint64_t old = on_thread(0, BASE + 800000000, 0, 1);
    uint64_t reuse = on_thread(0, BASE + 1, 0, 1);
    CHECK(SLOT(reuse) == SLOT(old));
    CHECK(reuse > old);

    /* more threads alive than slots: the rest share the last slot; every number is unique */
    pthread_barrier_init(&all_alive, NULL, MANY);
    pthread_t th[MANY];
    for (int i = 0; i < MANY; i++)
        if (pthread_create(&th[i], NULL, many_worker, many[i])) abort();
    for (int i = 0; i < MANY; i++)
        pthread_join(th[i], NULL);
    int shared = 0;
    for (int i = 0; i < MANY; i++) {
        shared += SLOT(many[i][0]) == CMT_SEQ_SHARED_SLOT;
        for (int j = 1; j < PER; j++)
            CHECK(many[i][j] > many[i][j - 1]);
    }
    CHECK(shared >= MANY - (int)CMT_SEQ_SHARED_SLOT);
    qsort(many, (size_t)MANY * PER, sizeof many[0][0], cmp);
    int dup = 0;
    for (size_t k = 1; k < (size_t)MANY * PER; k++)
        dup += ((uint64_t *)many)[k] == ((uint64_t *)many)[k - 1];
    CHECK(dup == 0);

    /* the clock's range: 2^(64 - slot bits) ns after init, no number is left */
    CHECK(cmt_seq(BASE + (int64_t)(UINT64_MAX >> CMT_SEQ_SLOT_BITS)) == 0);

    if (failures) return 1;
    printf("test_seq: ok (%d threads beyond the slots shared the last one)\n", shared);
    return 0;
}
