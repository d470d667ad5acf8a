/*
 * reader_internal.h — the reader's private state, shared by its four parts and nothing else:
 *   reader.c  the dump: header validation, block scan, open/close, record and kind names, errors
 *   decode.c  the checked decoding of every record's payload (the one place that knows them all)
 *   follow.c  follow mode: a dump read while it is written, poll by poll (the blocks each poll
 *             finds, a block opened as it is being written)
 *   merge.c   the fast ALLOC/FREE path and the k-way merge of the writers' streams by sequence
 *             number, in both modes
 * Each uses only those above it here.
 */
#ifndef CMT_READER_INTERNAL_H
#define CMT_READER_INTERNAL_H

#include <stdint.h>

#include "cmt_wire.h"
#include "reader.h"

struct cmt_blockref {
    uint32_t writer, index;
    uint64_t off, len;
    int staging; /* CMT_BLOCK_MAGIC_STAGING: skipped when a normal copy exists */
};

struct cmt_stream {
    uint32_t writer;
    size_t first, count, cur; /* blocks[first .. first+count), cur: next block to open */
    struct cmt_cursor c;      /* inside the open block */
    uint64_t block_off;       /* file offset of the open block */
    int open, partial, first_rec;
    uint64_t seq, last_seq, ptr;
    int64_t time;
    int have_last, done;
    uint8_t *buf;        /* the open block read into memory (NULL: decoded from the mapping) */
    const uint8_t *base; /* where the open block's bytes are: buf or the mapping */
    struct cmt_event ev;
    uint64_t frames[CMT_MAX_FRAMES];           /* ev.frames */
    struct cmt_pyframe_rec py[CMT_MAX_FRAMES]; /* ev.py */
    int major;                                 /* the dump's version_major */
    struct cmt_segment segs[CMT_MAX_SEGMENTS]; /* ev.segs */
    /* follow mode: the block (writer, fidx) is read next, from byte fresume (0: its start) */
    uint32_t fidx;
    uint64_t fresume;
    int fstaging;           /* the open block is the writer's staging block */
    int fstaging_done;      /* ... and its writer has begun the next block: read it to its end once more */
    uint64_t staging_at[2]; /* positions + 1 of the last two staging blocks seen for this writer (a
                             * writer has up to two: cmt_format.h), the latest first; 0: none */
    int has_head;           /* ev holds a decoded record not returned yet (held past the bound) */
    int cold_set;           /* a field of ev past result may be non-zero (the fast path clears them then) */
    uint64_t missing_since; /* the poll that first found block fidx absent, 0: not absent */
    uint64_t snap_poll;     /* the poll that read the open block's bytes */
};

struct cmt_dump {
    char *path;
    const uint8_t *map;
    size_t size;
    const struct cmt_file_header *hdr;
    int fd; /* blocks are read with pread (see open_block) */
    int truncated, corrupt;
    struct cmt_blockref *blocks;
    size_t nblocks;
    struct cmt_stream *streams;
    size_t nstreams;
    size_t *heap, nheap;
    size_t last; /* stream returned last, to advance on the next call; (size_t)-1: none */
    /* the smallest head among the other streams (seq, writer) when last was chosen: while last's
     * next record stays below it, last is the head again without touching the heap */
    uint64_t bound_seq;
    uint32_t bound_writer;
    int have_bound;
    int started;
    struct cmt_pycode *pycodes; /* by PYCODE id, filled as the merged iteration meets them */
    size_t npycodes;
    size_t page;
    char err[512];
    /* follow mode (cmt_dump_open_follow): block positions, by state, and where to look for blocks */
    int follow;
    uint8_t *pstate; /* per block position: FPOS_EMPTY, FPOS_NORMAL, FPOS_STAGING */
    size_t npos, pos_cap, scan_lo;
    struct cmt_htab bmap; /* (writer, index) -> position + 1 of its normal block */
    struct cmt_htab smap; /* (writer, 0) -> stream index + 1 */
    uint64_t polls;
    int64_t last_poll_ns; /* CLOCK_MONOTONIC at the previous poll */
    int64_t emit_time;    /* records up to this time (dump clock) are returned (see cmt_dump_poll) */
    int barrier;          /* a writer's next block went missing in this poll: return nothing more */
};
enum { FPOS_EMPTY, FPOS_NORMAL, FPOS_STAGING };

/* Drops the pages of [off, end) from this process (MADV_DONTNEED: a private read-only file mapping
 * reads them back from the file when touched again), so resident memory stays a few blocks per
 * writer instead of growing with the file. Pointers into the mapping stay valid. */
#define CMT_READ_MAX (1u << 20) /* blocks up to this size are read, not mapped */

/* 1 when [ptr, ptr + size) lies below 2^64 and size is at most 2^57 bytes: no address space
 * (x86-64 with 5-level paging: 57 bits; others less) holds more, so a larger size is a flipped
 * bit, and two of them would overflow the live byte counts */
#define CMT_SPAN_MAX (1ull << 57)
static inline int span_ok(uint64_t ptr, uint64_t size) {
    return size <= UINT64_MAX - ptr && size <= CMT_SPAN_MAX;
}


/* reader.c */
void cmt_rd_set_err(char *err, size_t errlen, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The dump is corrupt at file offset off (the first report wins; cmt_dump_error tells it). */
void cmt_rd_corrupt(struct cmt_dump *d, uint64_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void cmt_rd_release(struct cmt_dump *d, uint64_t off, uint64_t end);

/* decode.c */
void cmt_rd_reset_event(struct cmt_event *e);
int cmt_rd_decode_record(struct cmt_dump *d, struct cmt_stream *s, unsigned t, uint64_t off, uint64_t *sd,
                         uint64_t *td);

/* follow.c */
int cmt_rd_open_block_follow(struct cmt_dump *d, struct cmt_stream *s);
int cmt_rd_follow_has_block(struct cmt_dump *d, const struct cmt_stream *s, uint32_t idx);

#endif
