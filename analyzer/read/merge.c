/*
 * merge.c — the reader's iteration: the fast path for ALLOC and FREE (most records of a dump, read
 * with unchecked varints when a whole record fits), a stream moved record by record across its
 * blocks, and the k-way merge of all writers' streams by sequence number (cmt_dump_next, the hot
 * variants the replay uses); PYCODE definitions kept as the iteration meets them.
 */
#include "reader_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmt_wire.h"

/* ---- the fast path for ALLOC and FREE (most records of a dump) ----
 * When a whole record of the longest encoding fits before the end of the block, its varints are
 * read with no bounds check. The values are the ones the checked cursor reads: a varint longer
 * than CMT_VARINT_MAX bytes (the only way to fail there) sends the record back to the checked
 * path, which reports it. tests/cases/analyzer_fastpath.sh compares both paths. */
#define FAST_FIELDS 11 /* sequence and time deltas + ALLOC's 9 payload fields */
#define FAST_ROOM (1 + FAST_FIELDS * CMT_VARINT_MAX)

/* A varint at *p (at least CMT_VARINT_MAX bytes readable); sets *bad when it is longer. Unrolled:
 * each continuation byte is a load, a mask, a constant shift, an or and a test (no loop counter,
 * no length check until the tenth byte). */
#define FAST_VARINT_BYTE(i)                                                                                            \
    do {                                                                                                               \
        b = q[i];                                                                                                      \
        v |= (b & 0x7f) << (7 * (i));                                                                                  \
        if (b < 0x80) {                                                                                                \
            *p = q + (i) + 1;                                                                                          \
            return v;                                                                                                  \
        }                                                                                                              \
    } while (0)
static inline __attribute__((always_inline)) uint64_t fast_varint(const uint8_t **p, int *bad) {
    _Static_assert(CMT_VARINT_MAX == 10, "fast_varint reads up to 10 bytes");
    const uint8_t *q = *p;
    uint64_t b = *q;
    if (__builtin_expect(b < 0x80, 1)) {
        *p = q + 1;
        return b;
    }
    uint64_t v = b & 0x7f;
    FAST_VARINT_BYTE(1);
    FAST_VARINT_BYTE(2);
    FAST_VARINT_BYTE(3);
    FAST_VARINT_BYTE(4);
    FAST_VARINT_BYTE(5);
    FAST_VARINT_BYTE(6);
    FAST_VARINT_BYTE(7);
    FAST_VARINT_BYTE(8);
    FAST_VARINT_BYTE(9);
    *bad = 1; /* longer than CMT_VARINT_MAX bytes */
    *p = q + CMT_VARINT_MAX;
    return v;
}
#undef FAST_VARINT_BYTE

/* Opens the stream's next block; returns 0 when there is none, -1 when its header is corrupt. */
static int open_block(struct cmt_dump *d, struct cmt_stream *s) {
    if (s->cur >= s->count) return 0;
    const struct cmt_blockref *b = &d->blocks[s->first + s->cur++];
    struct cmt_block_header bh;
    /* Blocks are read into a buffer per stream (memory: one block per writer, whatever the file
     * size; no page faults, which cost 20-50 us each on VMs). Huge blocks (hostile headers) and
     * failed reads are decoded from the mapping instead. */
    s->base = d->map + b->off;
    if (b->len <= CMT_READ_MAX) {
        if (!s->buf) s->buf = malloc(CMT_READ_MAX);
        if (s->buf && pread(d->fd, s->buf, (size_t)b->len, (off_t)b->off) == (ssize_t)b->len) s->base = s->buf;
    }
    memcpy(&bh, s->base, sizeof bh);
    if (bh.base_time_ns < 0 || bh.base_time_ns >= CMT_TIME_MAX) {
        cmt_rd_corrupt(d, b->off + 24, "block base_time_ns (writer %u, block %u): time %lld outside [0, 2^62)",
                       s->writer, bh.index, (long long)bh.base_time_ns);
        return -1;
    }
    s->block_off = b->off;
    s->c.p = s->base + sizeof bh;
    s->c.end = s->base + b->len;
    s->c.ok = 1;
    s->open = 1;
    s->partial = b->len < d->hdr->block_size;
    s->first_rec = 1;
    s->seq = bh.base_seq;
    s->time = bh.base_time_ns;
    s->ptr = 0;
    return 1;
}

/* The fast path's decoder: the ALLOC or FREE record at *pp (type byte t, FAST_ROOM bytes readable,
 * writer w, at file offset off; *ptr: the writer's pointer before it) into the fields of e up to
 * result but seq and time_ns, its sequence/time deltas into *sd, *td. 1 with *pp and *ptr moved
 * past it, or 0 when the checked path must take it (a varint too long, an allocation past 2^64: it
 * reports them): *pp and *ptr unmoved then, and what was written into e is rewritten or not read.
 * Each field is stored as soon as it is decoded: few registers live. */
static inline __attribute__((always_inline)) int fast_decode(const uint8_t **pp, uint64_t *ptrp, unsigned t, uint32_t w,
                                                             uint64_t off, uint64_t *sd, uint64_t *td,
                                                             struct cmt_event *e) {
    const uint8_t *p = *pp + 1;
    int bad = 0;
    e->type = (uint8_t)t;
    e->writer = w;
    e->offset = off;
    *sd = fast_varint(&p, &bad);
    *td = fast_varint(&p, &bad);
    e->api = fast_varint(&p, &bad);
    e->kind = t == CMT_REC_ALLOC ? fast_varint(&p, &bad) : 0;
    e->flags = fast_varint(&p, &bad);
    e->device = cmt_zz_dec(fast_varint(&p, &bad));
    uint64_t ptr = *ptrp + (uint64_t)cmt_zz_dec(fast_varint(&p, &bad));
    e->ptr = ptr;
    e->result = 0;
    if (t == CMT_REC_ALLOC) {
        uint64_t size = fast_varint(&p, &bad), granted = fast_varint(&p, &bad);
        if (!granted) granted = size;
        e->size = size;
        e->granted = granted;
        e->stack = fast_varint(&p, &bad);
        e->ctx = fast_varint(&p, &bad);
        if (!span_ok(ptr, size) || !span_ok(ptr, granted)) bad = 1;
    } else {
        e->size = e->granted = e->stack = e->ctx = 0;
    }
    if (__builtin_expect(bad, 0)) return 0;
    *ptrp = ptr;
    *pp = p;
    return 1;
}

/* fast_decode of the record at s->c.p, into e: s->ev (its fields past result cleared first when a
 * record of another type set them) or a caller's slot whose other fields nobody reads
 * (cmt_dump_next_hot); slot_only: e is known to be a slot (no lazy reset to look at). */
static inline __attribute__((always_inline)) int fast_record(struct cmt_stream *s, unsigned t, uint64_t off,
                                                             uint64_t *sd, uint64_t *td, struct cmt_event *e,
                                                             int slot_only) {
    if (!slot_only && e == &s->ev && s->cold_set) {
        cmt_rd_reset_event(e);
        s->cold_set = 0;
    }
    return fast_decode(&s->c.p, &s->ptr, t, s->writer, off, sd, td, e);
}

/* Moves the stream to its next record, opening its next block as needed: 1 when c.p is at a record,
 * 0 at the stream's end (following: at the end of what was written so far), -1 when corrupt. */
static __attribute__((noinline)) int stream_seek(struct cmt_dump *d, struct cmt_stream *s) {
    for (;;) {
        if (s->done) return 0;
        if (!s->open) {
            int rc = d->follow ? cmt_rd_open_block_follow(d, s) : open_block(d, s);
            if (rc < 0) return -1;
            if (!rc) {
                if (!d->follow) s->done = 1;
                return 0;
            }
        }
        struct cmt_cursor *c = &s->c;
        if (c->p >= c->end || *c->p == 0) { /* end of the block */
            s->open = 0;
            if (d->follow) {
                if (s->fstaging) { /* the writer may still be writing it: go on from here */
                    s->fresume = (uint64_t)(c->p - s->base);
                    if (s->fstaging_done) { /* read to its end after the next block was seen: complete */
                        s->fstaging_done = 0;
                        s->fidx++;
                        s->fresume = 0;
                        continue;
                    }
                    /* a writer that set a full block aside goes on in its other staging block
                     * (cmt_format.h): once the next index is there, this one grows no more */
                    if (cmt_rd_follow_has_block(d, s, s->fidx + 1)) {
                        s->fstaging_done = 1;
                        continue;
                    }
                    if (s->snap_poll != d->polls) continue; /* read in an earlier poll: read it again now */
                    return 0;
                }
                s->fidx++; /* a normal block is complete */
                s->fresume = 0;
                continue;
            }
            if (s->base == d->map + s->block_off)
                cmt_rd_release(d, s->block_off, s->block_off + (uint64_t)(c->end - s->base));
            continue;
        }
        return 1;
    }
}

/* The checks every record's sequence number and time pass (t, off: its type and offset; sd, td:
 * its deltas), then the stream's clocks and e->seq, e->time_ns set: 1, or -1 when corrupt. */
static inline __attribute__((always_inline)) int stream_commit(struct cmt_dump *d, struct cmt_stream *s,
                                                               struct cmt_event *e, unsigned t, uint64_t off,
                                                               uint64_t sd, uint64_t td) {
    if (sd > UINT64_MAX - s->seq) {
        cmt_rd_corrupt(d, off, "record type 0x%02x (writer %u): sequence number %llu + delta %llu passes 2^64 - 1", t,
                       s->writer, (unsigned long long)s->seq, (unsigned long long)sd);
        return -1;
    }
    if (td >= (uint64_t)(CMT_TIME_MAX - s->time)) { /* s->time lies in [0, CMT_TIME_MAX) */
        cmt_rd_corrupt(d, off, "record type 0x%02x (writer %u): time %lld + delta %llu passes 2^62", t, s->writer,
                       (long long)s->time, (unsigned long long)td);
        return -1;
    }
    uint64_t seq = s->seq + sd;
    if (!s->first_rec && sd == 0) {
        cmt_rd_corrupt(d, off, "record type 0x%02x (writer %u): sequence number does not increase", t, s->writer);
        return -1;
    }
    if (s->have_last && seq <= s->last_seq) {
        cmt_rd_corrupt(d, off, "record type 0x%02x (writer %u): sequence number %llu not after %llu", t, s->writer,
                       (unsigned long long)seq, (unsigned long long)s->last_seq);
        return -1;
    }
    s->first_rec = 0;
    s->seq = seq;
    s->last_seq = seq;
    s->have_last = 1;
    s->time += (int64_t)td; /* checked above */
    e->seq = seq;
    e->time_ns = s->time;
    return 1;
}

/* Decodes the stream's next record: an ALLOC or FREE the fast path takes into the fields of hot up
 * to result, any other record into s->ev; *out is where it went. Returns 1, 0 at the stream's end,
 * -1 when corrupt. Inline: a record in the middle of a block costs no call. */
static inline __attribute__((always_inline)) int stream_advance_to(struct cmt_dump *d, struct cmt_stream *s,
                                                                   struct cmt_event *hot, struct cmt_event **out) {
    struct cmt_cursor *c = &s->c;
    if (s->done || !s->open || c->p >= c->end || *c->p == 0) {
        int rc = stream_seek(d, s);
        if (rc <= 0) return rc;
    }
    uint64_t off = s->block_off + (uint64_t)(c->p - s->base);
    unsigned t = *c->p;
    uint64_t sd, td;
    struct cmt_event *e = hot;
    if (!((t == CMT_REC_ALLOC || t == CMT_REC_FREE) && c->end - c->p >= FAST_ROOM &&
          fast_record(s, t, off, &sd, &td, hot, 0))) {
        c->p++;
        int rc = cmt_rd_decode_record(d, s, t, off, &sd, &td);
        if (rc <= 0) return rc;
        e = &s->ev;
    }
    *out = e;
    return stream_commit(d, s, e, t, off, sd, td);
}

/* Decodes the stream's next record into s->ev: stream_advance_to with s->ev as the slot. */
static inline __attribute__((always_inline)) int stream_advance(struct cmt_dump *d, struct cmt_stream *s) {
    struct cmt_event *e;
    return stream_advance_to(d, s, &s->ev, &e);
}

static int heap_less(struct cmt_dump *d, size_t a, size_t b) {
    const struct cmt_stream *x = &d->streams[a], *y = &d->streams[b];
    if (x->ev.seq != y->ev.seq) return x->ev.seq < y->ev.seq;
    return x->writer < y->writer;
}

/* Remembers the smallest head below the heap top (its children), or none. */
static void set_bound(struct cmt_dump *d) {
    d->have_bound = 0;
    if (d->nheap < 2) return;
    size_t m = d->heap[1];
    if (d->nheap > 2 && heap_less(d, d->heap[2], m)) m = d->heap[2];
    d->bound_seq = d->streams[m].ev.seq;
    d->bound_writer = d->streams[m].writer;
    d->have_bound = 1;
}

static void sift_down(struct cmt_dump *d, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < d->nheap && heap_less(d, d->heap[l], d->heap[m])) m = l;
        if (r < d->nheap && heap_less(d, d->heap[r], d->heap[m])) m = r;
        if (m == i) return;
        size_t t = d->heap[i];
        d->heap[i] = d->heap[m];
        d->heap[m] = t;
        i = m;
    }
}

static int next_merged(struct cmt_dump *d, const struct cmt_event **ev);

/* Keeps the PYCODE definitions met so far (ids are dense from 1, bounded by CMT_MAX_PYCODES). */
static int note_pycode(struct cmt_dump *d, const struct cmt_event *e) {
    if (e->id >= d->npycodes) {
        size_t n = d->npycodes ? d->npycodes : 256;
        while (n <= e->id)
            n *= 2;
        struct cmt_pycode *t = realloc(d->pycodes, n * sizeof *t);
        if (!t) {
            cmt_rd_corrupt(d, e->offset, "out of memory for PYCODE %llu", (unsigned long long)e->id);
            return -1;
        }
        memset(t + d->npycodes, 0, (n - d->npycodes) * sizeof *t);
        d->pycodes = t;
        d->npycodes = n;
    }
    if (d->follow) { /* the strings are in a buffer the next poll overwrites: keep copies */
        free((char *)d->pycodes[e->id].file);
        free((char *)d->pycodes[e->id].name);
        char *file = strndup(e->str1 ? e->str1 : "", e->str1_len), *name = strndup(e->str2 ? e->str2 : "", e->str2_len);
        if (!file || !name) {
            free(file);
            free(name);
            d->pycodes[e->id] = (struct cmt_pycode){0};
            cmt_rd_corrupt(d, e->offset, "out of memory for PYCODE %llu", (unsigned long long)e->id);
            return -1;
        }
        d->pycodes[e->id] = (struct cmt_pycode){file, name, e->str1_len, e->str2_len, e->first_line};
        return 0;
    }
    d->pycodes[e->id] =
        (struct cmt_pycode){e->str1 ? e->str1 : "", e->str2 ? e->str2 : "", e->str1_len, e->str2_len, e->first_line};
    return 0;
}

static int next_follow(struct cmt_dump *d, const struct cmt_event **ev);

/* A record the iteration returns: rc as it came, the PYCODE definitions kept on the way. */
static inline int returned(struct cmt_dump *d, int rc, const struct cmt_event *const *ev) {
    if (rc > 0 && (*ev)->type == CMT_REC_PYCODE && note_pycode(d, *ev) < 0) return -1;
    return rc;
}

int cmt_dump_next(struct cmt_dump *d, const struct cmt_event **ev) {
    return returned(d, d->follow ? next_follow(d, ev) : next_merged(d, ev), ev);
}

const struct cmt_pycode *cmt_dump_pycode(const struct cmt_dump *d, uint64_t id) {
    return id && id < d->npycodes && d->pycodes[id].file ? &d->pycodes[id] : NULL;
}

/* The merge's next record: the heap's top (it becomes the stream returned last). */
static int merge_top(struct cmt_dump *d, const struct cmt_event **ev) {
    if (!d->nheap) return 0;
    d->last = d->heap[0];
    set_bound(d);
    *ev = &d->streams[d->last].ev;
    return 1;
}

/* The stream returned last, s, moved on (rc: stream_advance_to's, e: where its record went): its
 * record when it is still the smallest head, else s goes back into the heap (its record waits in
 * s->ev) and the heap's top comes next. */
static inline __attribute__((always_inline)) int merge_after(struct cmt_dump *d, struct cmt_stream *s, int rc,
                                                             struct cmt_event *e, const struct cmt_event **ev) {
    if (rc > 0 &&
        (!d->have_bound || e->seq < d->bound_seq || (e->seq == d->bound_seq && s->writer < d->bound_writer))) {
        *ev = e; /* still the smallest head: the heap is unchanged */
        return 1;
    }
    if (rc > 0 && e != &s->ev) { /* another writer's record comes first: this one waits in s->ev */
        if (s->cold_set) {
            cmt_rd_reset_event(&s->ev);
            s->cold_set = 0;
        }
        cmt_event_copy_hot(&s->ev, e);
    }
    if (rc == 0) d->heap[0] = d->heap[--d->nheap];
    if (d->nheap) sift_down(d, 0);
    d->last = (size_t)-1;
    return merge_top(d, ev);
}

/* The merge; hot: where the stream returned last may decode its next ALLOC or FREE (see
 * cmt_dump_next_hot; &that stream's ev otherwise). */
static inline __attribute__((always_inline)) int next_merged_to(struct cmt_dump *d, struct cmt_event *hot,
                                                                const struct cmt_event **ev) {
    if (d->corrupt) return -1;
    if (!d->started) {
        d->started = 1;
        for (size_t i = 0; i < d->nstreams; i++) {
            int rc = stream_advance(d, &d->streams[i]);
            if (rc < 0) return -1;
            if (rc > 0) d->heap[d->nheap++] = i;
        }
        for (size_t i = d->nheap / 2; i-- > 0;)
            sift_down(d, i);
    } else if (d->last != (size_t)-1) {
        struct cmt_stream *s = &d->streams[d->last];
        struct cmt_event *e = NULL;
        int rc = stream_advance_to(d, s, hot ? hot : &s->ev, &e);
        if (rc < 0) return -1;
        return merge_after(d, s, rc, e, ev);
    }
    return merge_top(d, ev);
}

static int next_merged(struct cmt_dump *d, const struct cmt_event **ev) {
    return next_merged_to(d, NULL, ev);
}

static __attribute__((noinline)) int next_hot_slow(struct cmt_dump *d, struct cmt_event *slot,
                                                   const struct cmt_event **ev) {
    if (d->follow) return cmt_dump_next(d, ev);
    return returned(d, next_merged_to(d, slot, ev), ev); /* a PYCODE never goes into the slot */
}

/* The usual case first, apart from the rest (which needs more registers, saved on every call): an
 * ALLOC or FREE in the middle of the block of the stream returned last. */
int cmt_dump_next_hot(struct cmt_dump *d, struct cmt_event *slot, const struct cmt_event **ev) {
    size_t last = d->last;
    if (__builtin_expect(last != (size_t)-1 && d->started && !d->corrupt && !d->follow, 1)) {
        struct cmt_stream *s = &d->streams[last];
        const uint8_t *p = s->c.p;
        unsigned t = s->open && !s->done && s->c.end - p >= FAST_ROOM ? *p : 0;
        uint64_t off = s->block_off + (uint64_t)(p - s->base), sd, td;
        if ((t == CMT_REC_ALLOC || t == CMT_REC_FREE) && fast_record(s, t, off, &sd, &td, slot, 1)) {
            if (stream_commit(d, s, slot, t, off, sd, td) < 0) return -1;
            return returned(d, merge_after(d, s, 1, slot, ev), ev); /* another writer's may come first */
        }
    }
    return next_hot_slow(d, slot, ev);
}

/* The run of ALLOC/FREE records in the middle of the block of the stream returned last, each before
 * the other writers' heads (cmt_dump_next_hot's usual case, many at a time): what stays the same
 * along the run is checked once, the stream's position, pointer and clocks live in registers. A
 * record the run does not take (another type, too near the block's end, a check that fails, past
 * the bound) is left unread for cmt_dump_next_hot, which takes it or reports it. */
size_t cmt_dump_next_hot_run(struct cmt_dump *d, struct cmt_event *slots, size_t max) {
    size_t last = d->last;
    if (last == (size_t)-1 || !d->started || d->corrupt || d->follow) return 0;
    struct cmt_stream *s = &d->streams[last];
    /* after a record of this block: its sequence checks are sd != 0 and no overflow (below) */
    if (!s->open || s->done || s->first_rec || !s->have_last || s->last_seq != s->seq) return 0;
    uint64_t lim = UINT64_MAX; /* the last sequence number before the other writers' heads */
    if (d->have_bound) {
        if (s->writer < d->bound_writer)
            lim = d->bound_seq;
        else if (d->bound_seq)
            lim = d->bound_seq - 1;
        else
            return 0;
    }
    if (s->seq > lim) return 0;
    const uint8_t *p = s->c.p, *end = s->c.end;
    uint64_t ptr = s->ptr, seq = s->seq;
    int64_t time = s->time;
    /* stream_commit's checks as what is left: a record's sequence delta must lie in [1, seq_room]
     * (increasing, below lim: no overflow), its time delta below time_room (time in [0, CMT_TIME_MAX)) */
    uint64_t seq_room = lim - seq, time_room = (uint64_t)(CMT_TIME_MAX - time);
    const uint32_t w = s->writer;
    const uint64_t off0 = s->block_off - (uint64_t)(uintptr_t)s->base; /* + p: the file offset */
    struct cmt_event *e = slots, *e_end = slots + max;
    for (; e < e_end && end - p >= FAST_ROOM; e++) {
        unsigned t = *p;
        if (t != CMT_REC_ALLOC && t != CMT_REC_FREE) break;
        const uint8_t *q = p;
        uint64_t qptr = ptr, sd, td;
        if (!fast_decode(&q, &qptr, t, w, off0 + (uint64_t)(uintptr_t)p, &sd, &td, e)) break;
        if (sd - 1 >= seq_room || td >= time_room) break; /* sd - 1 wraps when sd is 0 */
        seq_room -= sd;
        time_room -= td;
        seq += sd;
        time += (int64_t)td;
        e->seq = seq;
        e->time_ns = time;
        p = q;
        ptr = qptr;
    }
    s->c.p = p;
    s->ptr = ptr;
    s->seq = s->last_seq = seq;
    s->time = time;
    return (size_t)(e - slots);
}

/* ---- follow mode's merge ---- */

/* Follow-mode merge: the heads of all writers by sequence number, none timed past emit_time (held
 * heads stay decoded in their stream until a later poll raises the bound). */
static int follow_advance(struct cmt_dump *d, struct cmt_stream *s) {
    int rc = stream_advance(d, s);
    if (rc < 0) return -1;
    s->has_head = rc > 0;
    return rc;
}

static int next_follow(struct cmt_dump *d, const struct cmt_event **ev) {
    if (d->corrupt) return -1;
    if (!d->started) {
        d->started = 1;
        d->nheap = 0;
        for (size_t i = 0; i < d->nstreams; i++) {
            struct cmt_stream *s = &d->streams[i];
            if (!s->has_head && follow_advance(d, s) < 0) return -1;
            if (s->has_head) d->heap[d->nheap++] = i;
        }
        for (size_t i = d->nheap / 2; i-- > 0;)
            sift_down(d, i);
    } else if (d->last != (size_t)-1) {
        struct cmt_stream *s = &d->streams[d->last];
        d->last = (size_t)-1;
        int rc = follow_advance(d, s);
        if (rc < 0) return -1;
        if (rc == 0) d->heap[0] = d->heap[--d->nheap];
        if (d->nheap) sift_down(d, 0);
    }
    if (!d->nheap || d->barrier) return 0;
    struct cmt_stream *top = &d->streams[d->heap[0]];
    if (top->ev.time_ns > d->emit_time) return 0; /* held: a writer may still show an earlier record */
    d->last = d->heap[0];
    top->has_head = 0;
    *ev = &top->ev;
    return 1;
}
