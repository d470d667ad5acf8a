/*
 * feed.c — the replay's reader thread and its single-producer single-consumer ring. See feed.h.
 * The reader thread publishes the ring's head every PUBLISH records (and at once for a record it
 * must wait on, and at the end); the replay's thread publishes the tail likewise. A side that finds
 * nothing to do says what it waits for (the index it needs) and sleeps on a condition variable;
 * the other side wakes it only once that index is reached, so a full or empty ring costs a wake-up
 * per half ring, not per record. Flags and indices are seq_cst atomics where a sleep is decided
 * (the waiter stores its need, then reads the index; the other stores the index, then reads the
 * need: one of them sees the other).
 */
#include "feed.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CMT_FEED_SLOTS 4096u /* a power of two */
#define PUBLISH 32u
#define SLOT_BYTES ((CMT_HOT_PREFIX + 7) & ~(size_t)7)
#define SPIN 64

struct cmt_feed {
    struct cmt_dump *d;
    unsigned char *ring;  /* CMT_FEED_SLOTS slots of SLOT_BYTES */
    struct cmt_event big; /* the one record handed over whole (never more than one is ready) */
    pthread_t th;
    pthread_mutex_t m;
    pthread_cond_t wake_reader, wake_replay;
    int rc;                             /* the last cmt_dump_next's, once done */
    _Alignas(64) _Atomic uint64_t head; /* records published by the reader */
    _Atomic int done;                   /* the reader ended: head is final */
    _Atomic uint64_t replay_need;       /* the replay sleeps until head >= this - 1 (0: awake) */
    _Alignas(64) _Atomic uint64_t tail; /* records applied, as published by the replay */
    _Atomic int stop;                   /* cmt_feed_finish: the reader ends */
    _Atomic uint64_t reader_need;       /* the reader sleeps until tail >= this - 1 (0: awake) */
    /* the replay thread's own */
    _Alignas(64) uint64_t rtail; /* records applied */
    uint64_t rhead;              /* head as last read */
};

static inline struct cmt_event *slot(const struct cmt_feed *f, uint64_t i) {
    return (struct cmt_event *)(void *)(f->ring + (size_t)(i & (CMT_FEED_SLOTS - 1)) * SLOT_BYTES);
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Reader: publishes head = h, and wakes the replay when it waits for no more than that, or at
 * once (urgent: the reader is going to wait for it). */
static void publish_head(struct cmt_feed *f, uint64_t h, int done, int urgent) {
    atomic_store(&f->head, h);
    if (done) atomic_store(&f->done, 1);
    uint64_t need = atomic_load(&f->replay_need);
    if (need && (done || urgent || h + 1 >= need)) {
        pthread_mutex_lock(&f->m);
        pthread_cond_signal(&f->wake_replay);
        pthread_mutex_unlock(&f->m);
    }
}

/* Reader: sleeps until the replay has applied `until` records (or stop); returns 0, or -1 on stop. */
static int reader_wait(struct cmt_feed *f, uint64_t until) {
    if (atomic_load(&f->tail) >= until) return 0;
    pthread_mutex_lock(&f->m);
    atomic_store(&f->reader_need, until + 1);
    while (atomic_load(&f->tail) < until && !atomic_load(&f->stop))
        pthread_cond_wait(&f->wake_reader, &f->m);
    atomic_store(&f->reader_need, 0);
    pthread_mutex_unlock(&f->m);
    return atomic_load(&f->stop) ? -1 : 0;
}

static void *reader_main(void *arg) {
    struct cmt_feed *f = arg;
    uint64_t h = 0, published = 0, tail = 0; /* tail: as last read */
    const struct cmt_event *e;
    int rc = 0;
    while (!atomic_load_explicit(&f->stop, memory_order_relaxed) && (rc = cmt_dump_next(f->d, &e)) > 0) {
        if (h - tail >= CMT_FEED_SLOTS && h - (tail = atomic_load_explicit(&f->tail, memory_order_acquire)) >=
                                              CMT_FEED_SLOTS) { /* full: wait until half of it is free */
            publish_head(f, h, 0, 1);
            published = h;
            if (reader_wait(f, h - CMT_FEED_SLOTS / 2) != 0) break;
            tail = atomic_load(&f->tail);
        }
        int hot = cmt_hot_event(e->type);
        cmt_copy_hot(slot(f, h), e);
        if (!hot) f->big = *e;
        h++;
        if (!hot) { /* it points into the reader's buffers: apply it before reading on */
            publish_head(f, h, 0, 1);
            published = h;
            if (reader_wait(f, h) != 0) break;
        } else if (h - published >= PUBLISH) {
            publish_head(f, h, 0, 0);
            published = h;
        }
    }
    f->rc = atomic_load(&f->stop) ? 0 : rc;
    publish_head(f, h, 1, 1);
    return NULL;
}

struct cmt_feed *cmt_feed_start(struct cmt_dump *d) {
    struct cmt_feed *f = aligned_alloc(64, (sizeof *f + 63) & ~(size_t)63);
    if (!f) return NULL;
    memset(f, 0, sizeof *f);
    f->d = d;
    /* room past the last slot: a record there is read as a struct cmt_event */
    f->ring = malloc((size_t)CMT_FEED_SLOTS * SLOT_BYTES + sizeof(struct cmt_event));
    if (!f->ring) {
        free(f);
        return NULL;
    }
    pthread_mutex_init(&f->m, NULL);
    pthread_cond_init(&f->wake_reader, NULL);
    pthread_cond_init(&f->wake_replay, NULL);
    if (pthread_create(&f->th, NULL, reader_main, f) != 0) {
        pthread_mutex_destroy(&f->m);
        pthread_cond_destroy(&f->wake_reader);
        pthread_cond_destroy(&f->wake_replay);
        free(f->ring);
        free(f);
        return NULL;
    }
    return f;
}

/* Replay: publishes tail, and wakes the reader when it waits for no more than that. */
static void publish_tail(struct cmt_feed *f) {
    atomic_store(&f->tail, f->rtail);
    uint64_t need = atomic_load(&f->reader_need);
    if (need && f->rtail + 1 >= need) {
        pthread_mutex_lock(&f->m);
        pthread_cond_signal(&f->wake_reader);
        pthread_mutex_unlock(&f->m);
    }
}

size_t cmt_feed_wait(struct cmt_feed *f) {
    if (f->rhead - f->rtail > PUBLISH) return (size_t)(f->rhead - f->rtail);
    f->rhead = atomic_load_explicit(&f->head, memory_order_acquire);
    if (f->rhead != f->rtail) return (size_t)(f->rhead - f->rtail);
    publish_tail(f); /* the reader may wait for what was applied */
    for (int i = 0; i < SPIN; i++) {
        cpu_relax();
        f->rhead = atomic_load_explicit(&f->head, memory_order_acquire);
        if (f->rhead != f->rtail) return (size_t)(f->rhead - f->rtail);
    }
    pthread_mutex_lock(&f->m);
    /* woken after half a ring (the reader publishes its head in between, on its own), or at the end */
    atomic_store(&f->replay_need, f->rtail + CMT_FEED_SLOTS / 2 + 1);
    while ((f->rhead = atomic_load(&f->head)) == f->rtail && !atomic_load(&f->done))
        pthread_cond_wait(&f->wake_replay, &f->m);
    atomic_store(&f->replay_need, 0);
    pthread_mutex_unlock(&f->m);
    f->rhead = atomic_load(&f->head);
    return (size_t)(f->rhead - f->rtail);
}

const struct cmt_event *cmt_feed_peek(const struct cmt_feed *f, size_t k) {
    const struct cmt_event *e = slot(f, f->rtail + k);
    return cmt_hot_event(e->type) ? e : &f->big;
}

void cmt_feed_pop(struct cmt_feed *f) {
    int hot = cmt_hot_event(slot(f, f->rtail)->type);
    f->rtail++;
    if (!hot || !(f->rtail % PUBLISH)) publish_tail(f);
}

int cmt_feed_finish(struct cmt_feed *f) {
    atomic_store(&f->stop, 1);
    pthread_mutex_lock(&f->m);
    pthread_cond_signal(&f->wake_reader);
    pthread_mutex_unlock(&f->m);
    pthread_join(f->th, NULL);
    int rc = f->rc;
    pthread_mutex_destroy(&f->m);
    pthread_cond_destroy(&f->wake_reader);
    pthread_cond_destroy(&f->wake_replay);
    free(f->ring);
    free(f);
    return rc;
}
