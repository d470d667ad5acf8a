/*
 * cmt_writer.h — the dump writer: creates the file on the first CUDA event, hands each thread
 * its own blocks of a MAP_SHARED mapping (space reserved with posix_fallocate, RLIMIT_FSIZE
 * checked first), and appends records with the type byte stored last. Never raises a signal,
 * never exits: when the file cannot grow, writing stops with one warning and a count.
 */
#ifndef CMT_WRITER_H
#define CMT_WRITER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmt_format.h"
#include "cmt_state.h"
#include "cmt_wire.h"

/* The dump's state (cmt_writer.c), read by the inline checks below. */
enum cmt_writer_states { CMT_W_NONE = 0, CMT_W_OPEN = 1, CMT_W_FAILED = 2 };
extern _Atomic int cmt_writer_state __attribute__((visibility("hidden")));
bool cmt_writer_ensure_slow(void) __attribute__((visibility("hidden")));
/* Creates the dump if needed. False when there is none (disabled, or creation failed). */
static inline bool cmt_writer_ensure(void) {
    if (__builtin_expect(atomic_load_explicit(&cmt_writer_state, memory_order_acquire) == CMT_W_OPEN, 1)) return true;
    return cmt_writer_ensure_slow();
}
/* True when the dump is open (cmt_writer_path() != NULL, without the call). */
static inline bool cmt_writer_open(void) {
    return atomic_load_explicit(&cmt_writer_state, memory_order_acquire) == CMT_W_OPEN;
}
uint8_t *cmt_rec_begin_slow(size_t max_payload, uint64_t seq, int64_t now) __attribute__((visibility("hidden")));
/* Writes a record's sequence and time deltas after its (not yet stored) type byte. */
static inline uint8_t *cmt_rec_head(struct cmt_tls *t, uint64_t seq, int64_t now) {
    uint8_t *p = t->cur + 1;
    p = cmt_put_varint(p, seq - t->last_seq);
    p = cmt_put_varint(p, (uint64_t)(now - t->last_time));
    t->last_seq = seq;
    t->last_time = now;
    return p;
}
/* The room a record with max_payload bytes of payload is given: its type byte, its sequence and
 * time deltas and one more varint, then the payload. */
#define CMT_REC_ROOM(max_payload) (1 + 3 * CMT_VARINT_MAX + (max_payload))
/* Starts a core record with room for max_payload bytes; returns where the payload goes, or NULL
 * when the record is dropped (then do not call cmt_rec_end). seq: from cmt_seq.h (0: dropped).
 * Inline while the thread's block is open and has room; cmt_rec_begin_slow does the rest (the
 * dump's creation, a forked child, a new block, a drop). gated: the caller found the inline
 * path's gate open (cmt_state.h), which stands for the dump being open in this process (not a
 * fresh fork child's inherited one), so those checks are not made again. */
static inline __attribute__((always_inline)) uint8_t *cmt_rec_begin_as(size_t max_payload, uint64_t seq, int64_t now,
                                                                       bool gated) {
    struct cmt_tls *t = &cmt_tls;
    size_t need = CMT_REC_ROOM(max_payload);
    if (__builtin_expect((size_t)(t->lim - t->cur) < need || seq <= t->last_seq || now < t->last_time ||
                             (!gated && (!cmt_writer_open() ||
                                         t->gen != atomic_load_explicit(&cmt_generation, memory_order_relaxed))),
                         0))
        return cmt_rec_begin_slow(max_payload, seq, now);
    return cmt_rec_head(t, seq, now);
}
static inline uint8_t *cmt_rec_begin(size_t max_payload, uint64_t seq, int64_t now) {
    return cmt_rec_begin_as(max_payload, seq, now, false);
}
/* Publishes the record begun last; end is one past its payload. */
static inline void cmt_rec_end(uint8_t type, uint8_t *end) {
    struct cmt_tls *t = &cmt_tls;
    uint8_t *start = t->cur;
    t->cur = end;
    __atomic_store_n(start, type, __ATOMIC_RELEASE);
}
/* Encodes a ptr field of a core record (delta against the previous one in the block). */
static inline uint8_t *cmt_put_ptr(uint8_t *p, uint64_t ptr) {
    p = cmt_put_zvarint(p, (int64_t)(ptr - cmt_tls.last_ptr));
    cmt_tls.last_ptr = ptr;
    return p;
}
/* The process's last record (EXIT): like cmt_rec_begin / cmt_rec_end, but after writing stopped
 * it still goes into the room each block keeps for it (at most 3 + 2 varints of payload; a thread
 * without a block takes a clear one an ended thread left, if any), so a
 * stopped dump still tells how the process ended (a record that claims nothing about memory);
 * nothing is recorded after it then. */
uint8_t *cmt_rec_begin_last(size_t max_payload, uint64_t seq, int64_t now) __attribute__((visibility("hidden")));
void cmt_rec_end_last(uint8_t type, uint8_t *end) __attribute__((visibility("hidden")));
/* Writes an extension record (type >= 0x40) whose payload was built in buf. */
void cmt_emit_ext(uint8_t type, uint64_t seq, int64_t now, const uint8_t *buf, size_t len);
void cmt_counter_add(enum cmt_counter c, uint64_t n);
/* Called in the child after fork: forget the parent's file and mappings. */
void cmt_writer_fork_child(void);
/* The dump's path, or NULL. */
const char *cmt_writer_path(void);
/* True when this process created the open dump (false in a vfork child, which shares the
 * parent's memory without running fork handlers: it must never write there). */
bool cmt_writer_mine(void);
void cmt_writer_set_stacks_available(bool yes);
/* Stores v into the header's exit_status slot (one store; include/cmt_format.h), when this
 * process's dump is open. */
void cmt_writer_exit_slot(uint32_t v);

#endif
