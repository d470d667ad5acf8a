/*
 * feed.h — a reader thread for the replay: decodes a dump's merged records (reader.h) on a thread
 * of its own into a ring that the replay's thread applies (replay_dump.c), so that decoding and
 * replaying run on two CPUs. Records come out in the reader's order, each once. ALLOC, FREE and
 * RETRACK records are copied up to CMT_HOT_PREFIX (everything the replay reads of them) into a
 * ring of CMT_FEED_SLOTS; any other record is handed over whole, and the reader thread waits until
 * it has been applied before it reads on (its frames and strings point into the reader's buffers).
 * Memory: the ring, whatever the size of the dump. Either side sleeps (never spins long) when the
 * other is behind, and is woken only after half a ring's worth, so that CPU time stays that of one
 * thread plus little.
 */
#ifndef CMT_FEED_H
#define CMT_FEED_H

#include <stddef.h>

#include "reader.h"

/* ALLOC, FREE and RETRACK carry nothing past these fields (reader.h): what is copied of them */
#define CMT_HOT_PREFIX offsetof(struct cmt_event, id)
static inline int cmt_hot_event(unsigned type) {
    return type == CMT_REC_ALLOC || type == CMT_REC_FREE || type == CMT_REC_RETRACK;
}

/* Copies the hot prefix of e into c field by field, each through a register: a load of the same
 * size as the store that wrote the field (the reader just did) is forwarded from the store buffer,
 * where memcpy's 16-byte loads across two 8-byte stores stalled until the stores reached the cache
 * (a sixth of the replay's time at 100 k live). */
#define CMT_HOT_FIELD(c, e, f)                                                                                         \
    do {                                                                                                               \
        __typeof__((e)->f + 0) v_ = (e)->f;                                                                            \
        __asm__("" : "+r"(v_));                                                                                        \
        (c)->f = v_;                                                                                                   \
    } while (0)
static inline void cmt_copy_hot(struct cmt_event *c, const struct cmt_event *e) {
    _Static_assert(offsetof(struct cmt_event, result) + sizeof e->result == CMT_HOT_PREFIX,
                   "cmt_copy_hot copies every field before id");
    CMT_HOT_FIELD(c, e, type);
    CMT_HOT_FIELD(c, e, writer);
    CMT_HOT_FIELD(c, e, offset);
    CMT_HOT_FIELD(c, e, seq);
    CMT_HOT_FIELD(c, e, time_ns);
    CMT_HOT_FIELD(c, e, api);
    CMT_HOT_FIELD(c, e, kind);
    CMT_HOT_FIELD(c, e, flags);
    CMT_HOT_FIELD(c, e, device);
    CMT_HOT_FIELD(c, e, ptr);
    CMT_HOT_FIELD(c, e, size);
    CMT_HOT_FIELD(c, e, granted);
    CMT_HOT_FIELD(c, e, stack);
    CMT_HOT_FIELD(c, e, ctx);
    CMT_HOT_FIELD(c, e, result);
}

struct cmt_feed;

/* Starts reading d (from where its iteration stands) on a new thread; NULL when no thread or no
 * memory could be had (then read d yourself). d belongs to that thread until cmt_feed_finish. */
struct cmt_feed *cmt_feed_start(struct cmt_dump *d);
/* Records ready to apply: at least one, waiting for it when none is; 0 at the end. */
size_t cmt_feed_wait(struct cmt_feed *f);
/* Record k (k < what cmt_feed_wait returned last, minus the pops since) of those ready: valid until
 * it is popped. */
const struct cmt_event *cmt_feed_peek(const struct cmt_feed *f, size_t k);
/* Done with record 0: the next one becomes record 0. */
void cmt_feed_pop(struct cmt_feed *f);
/* Stops the thread (reading what is left, if any, without keeping it) and frees f. Returns what
 * the last cmt_dump_next returned: 0 (the end), or -1 when the dump is corrupt (cmt_dump_error). */
int cmt_feed_finish(struct cmt_feed *f);

#endif
