/*
 * an_events.h — builds the decoded records (struct cmt_event) the analyzer's unit tests feed to a
 * replay, and a CHECK macro that counts failures. Header-only, for tests/unit/test_*.c.
 */
#ifndef AN_EVENTS_H
#define AN_EVENTS_H

#include <stdio.h>
#include <string.h>

#include "replay.h"

static int an_failures;
#define CHECK(c)                                                                                                       \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);                                      \
            an_failures++;                                                                                             \
        }                                                                                                              \
    } while (0)

static uint64_t an_seq;

static inline struct cmt_event an_ev(uint8_t type) {
    struct cmt_event e;
    memset(&e, 0, sizeof e);
    e.type = type;
    e.seq = ++an_seq;
    e.time_ns = (int64_t)an_seq * 1000;
    return e;
}

static inline void an_device(struct cmt_replay *r, int64_t ord, uint8_t uuid_byte) {
    struct cmt_event e = an_ev(CMT_REC_DEVICE);
    e.device = ord;
    memset(e.uuid, uuid_byte, sizeof e.uuid);
    e.total = 80ull << 30;
    cmt_replay_event(r, &e);
}

static inline void an_alloc(struct cmt_replay *r, int64_t dev, uint64_t ptr, uint64_t size, uint64_t stack,
                            uint64_t ctx) {
    struct cmt_event e = an_ev(CMT_REC_ALLOC);
    e.device = dev;
    e.ptr = ptr;
    e.size = e.granted = size;
    e.stack = stack;
    e.ctx = ctx;
    e.kind = CMT_KIND_DEVICE;
    cmt_replay_event(r, &e);
}

static inline void an_free(struct cmt_replay *r, uint64_t ptr) {
    struct cmt_event e = an_ev(CMT_REC_FREE);
    e.ptr = ptr;
    cmt_replay_event(r, &e);
}

static inline void an_oom(struct cmt_replay *r, int64_t dev, uint64_t size, uint64_t stack) {
    struct cmt_event e = an_ev(CMT_REC_OOM);
    e.device = dev;
    e.size = size;
    e.stack = stack;
    cmt_replay_event(r, &e);
}

static inline void an_teardown(struct cmt_replay *r, int64_t dev, uint64_t ctx) {
    struct cmt_event e = an_ev(CMT_REC_TEARDOWN);
    e.device = dev;
    e.ctx = ctx;
    cmt_replay_event(r, &e);
}

static inline void an_exit(struct cmt_replay *r) {
    struct cmt_event e = an_ev(CMT_REC_EXIT);
    e.exit_how = CMT_EXIT_CLEAN;
    cmt_replay_event(r, &e);
}

#endif
