/*
 * follow.c — follow mode (cmt_dump_open_follow): a dump read while its process writes it. Each poll
 * scans the blocks written since the last one; a writer's staging block is read between two reads
 * of its header; records are returned in sequence order only up to the time of the previous poll,
 * since a record taken earlier may still be being written by another thread.
 */
#include "reader_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Follow mode: the writer's next block is not in the file as this poll saw it. Either the writer
 * was copying its staging block to a normal block while the poll scanned (the copy is found by the
 * next poll: until then a later record of another writer may not be returned, since this writer's
 * next records may come before it), or it will never come (a writer that ended on an empty block
 * skips its index): so only the first poll that misses it stops the merge. */
static int follow_missing(struct cmt_dump *d, struct cmt_stream *s) {
    if (!s->missing_since) {
        s->missing_since = d->polls;
        if (d->emit_time != INT64_MAX) d->barrier = 1;
    }
    return 0;
}

/* Follow mode: the offset of the staging block of s's writer that holds index idx now (its header
 * read into *h: a staging block moves on to later indexes), 0 when neither of them does. */
static uint64_t follow_staging(struct cmt_dump *d, const struct cmt_stream *s, uint32_t idx,
                               struct cmt_block_header *h) {
    for (int k = 0; k < 2; k++) {
        if (!s->staging_at[k]) continue;
        uint64_t off = d->hdr->header_size + (s->staging_at[k] - 1) * d->hdr->block_size;
        if (pread(d->fd, h, sizeof *h, (off_t)off) == (ssize_t)sizeof *h && h->magic == CMT_BLOCK_MAGIC_STAGING &&
            h->writer == s->writer && h->index == idx)
            return off;
    }
    return 0;
}

/* Follow mode: whether the poll found block idx of s's writer, as a normal block or in one of its
 * staging blocks. */
int cmt_rd_follow_has_block(struct cmt_dump *d, const struct cmt_stream *s, uint32_t idx) {
    struct cmt_block_header h;
    return cmt_htab_get(&d->bmap, s->writer, idx) || follow_staging(d, s, idx, &h);
}

/* Follow mode: opens block (writer, fidx) from byte fresume: its normal copy when the poll found
 * one, else one of the writer's staging blocks when it currently holds that index. The staging block is
 * read between two reads of its header: the same header twice means the bytes read belong to that
 * (writer, index) (a writer never holds an index twice, and clears the block only after its normal
 * copy is complete), so nothing of the next index is ever mixed in. Returns 1, 0 when the block is
 * not there yet (try again after the next poll), -1 when corrupt. Never locks or writes. */
int cmt_rd_open_block_follow(struct cmt_dump *d, struct cmt_stream *s) {
    uint32_t bs = d->hdr->block_size, hs = d->hdr->header_size;
    uint32_t v = cmt_htab_get(&d->bmap, s->writer, s->fidx);
    uint64_t off;
    int staging = !v;
    struct cmt_block_header h1, h2;
    if (v) {
        off = hs + (uint64_t)(v - 1) * bs;
        if (pread(d->fd, &h1, sizeof h1, (off_t)off) != (ssize_t)sizeof h1) return follow_missing(d, s);
        if (h1.magic != CMT_BLOCK_MAGIC || h1.writer != s->writer || h1.index != s->fidx) return follow_missing(d, s);
    } else if (!(off = follow_staging(d, s, s->fidx, &h1))) {
        return follow_missing(d, s); /* a staging block moved on: its normal copy comes next poll */
    }
    if (!s->buf) s->buf = malloc(bs); /* bs <= CMT_READ_MAX (cmt_dump_open_follow) */
    if (!s->buf) {
        cmt_rd_corrupt(d, off, "out of memory for a block buffer");
        return -1;
    }
    uint64_t from = s->fresume > sizeof h1 ? s->fresume : sizeof h1;
    if (from > bs) from = bs;
    ssize_t n = pread(d->fd, s->buf + from, bs - from, (off_t)(off + from));
    if (n < 0) return follow_missing(d, s);
    if ((uint64_t)n < bs - from) memset(s->buf + from + n, 0, bs - from - (size_t)n);
    if (staging && (pread(d->fd, &h2, sizeof h2, (off_t)off) != (ssize_t)sizeof h2 || memcmp(&h1, &h2, sizeof h1)))
        return follow_missing(d, s);
    s->missing_since = 0;
    memcpy(s->buf, &h1, sizeof h1);
    if (h1.base_time_ns < 0 || h1.base_time_ns >= CMT_TIME_MAX) {
        cmt_rd_corrupt(d, off + 24, "block base_time_ns (writer %u, block %u): time %lld outside [0, 2^62)", s->writer,
                h1.index, (long long)h1.base_time_ns);
        return -1;
    }
    s->base = s->buf;
    s->block_off = off;
    s->c.p = s->buf + from;
    s->c.end = s->buf + bs;
    s->c.ok = 1;
    s->open = 1;
    s->partial = 0;
    s->fstaging = staging;
    if (!staging) s->fstaging_done = 0;
    s->snap_poll = d->polls;
    if (!s->fresume) {
        s->first_rec = 1;
        s->seq = h1.base_seq;
        s->time = h1.base_time_ns;
        s->ptr = 0;
    }
    return 1;
}

/* ---- follow mode ---- */

/* The stream of writer w (added when new; only between iterations: the merge holds indices). */
static struct cmt_stream *follow_stream(struct cmt_dump *d, uint32_t w) {
    uint32_t *slot = cmt_htab_slot(&d->smap, w, 0);
    if (!slot) return NULL;
    if (*slot) return &d->streams[*slot - 1];
    struct cmt_stream *ns = realloc(d->streams, (d->nstreams + 1) * sizeof *ns);
    size_t *nh = ns ? realloc(d->heap, (d->nstreams + 1) * sizeof *nh) : NULL;
    if (ns) d->streams = ns;
    if (!nh) return NULL; /* the slot stays 0: the writer is added again next time */
    d->heap = nh;
    for (size_t i = 0; i < d->nstreams; i++) { /* the events point into their streams */
        d->streams[i].ev.frames = d->streams[i].frames;
        d->streams[i].ev.segs = d->streams[i].segs;
        d->streams[i].ev.py = d->streams[i].py;
    }
    struct cmt_stream *s = &d->streams[d->nstreams++];
    memset(s, 0, sizeof *s);
    s->writer = w;
    s->ev.frames = s->frames;
    s->ev.segs = s->segs;
    s->ev.py = s->py;
    s->major = d->hdr->version_major;
    *slot = (uint32_t)d->nstreams;
    return s;
}

int cmt_dump_poll(struct cmt_dump *d, int final) {
    if (!d->follow) return 0;
    if (d->corrupt) return -1;
    d->polls++;
    /* A record is taken (sequence number and time) before it is written: one another thread is
     * still writing, or that sits in a staging block being copied to its normal block, may have a
     * smaller sequence number than records already in the file. Every record taken before the
     * previous poll (a caller's refresh ago: the open's scan does not count) is in the file by now,
     * so records timed up to the previous poll (the record clock is CLOCK_MONOTONIC, the same on the
     * host: final is for dumps of another host, or of a process that is gone) are returned in
     * sequence order; later ones wait for the next poll. */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    d->emit_time = final || d->hdr->clock_id != CMT_CLOCK_MONOTONIC ? INT64_MAX : d->last_poll_ns;
    d->barrier = 0;
    d->last_poll_ns = now;
    struct stat st;
    if (fstat(d->fd, &st) != 0) return 0;
    uint32_t bs = d->hdr->block_size, hs = d->hdr->header_size;
    size_t npos = (size_t)st.st_size > hs ? ((size_t)st.st_size - hs) / bs : 0; /* whole blocks only */
    if (npos > d->pos_cap) {
        size_t cap = d->pos_cap;
        if (cmt_grow((void **)&d->pstate, &cap, npos, 1) != 0) {
            cmt_rd_corrupt(d, hs, "out of memory for the block table");
            return -1;
        }
        d->pos_cap = cap;
    }
    if (npos > d->npos) d->npos = npos;
    for (size_t i = d->scan_lo; i < d->npos; i++) {
        if (d->pstate[i] == FPOS_NORMAL) continue;
        uint64_t off = hs + (uint64_t)i * bs;
        struct cmt_block_header bh;
        if (pread(d->fd, &bh, sizeof bh, (off_t)off) != (ssize_t)sizeof bh) continue;
        if (bh.magic == 0) {
            d->pstate[i] = FPOS_EMPTY;
            continue;
        }
        if (bh.magic != CMT_BLOCK_MAGIC && bh.magic != CMT_BLOCK_MAGIC_STAGING) {
            cmt_rd_corrupt(d, off, "block %zu magic: corrupt block header (magic 0x%08x)", i, bh.magic);
            return -1;
        }
        if (bh.writer == 0) {
            cmt_rd_corrupt(d, off + 4, "block %zu writer: writer id 0 is invalid", i);
            return -1;
        }
        struct cmt_stream *s = follow_stream(d, bh.writer);
        if (!s) {
            cmt_rd_corrupt(d, off, "out of memory for writer %u", bh.writer);
            return -1;
        }
        if (bh.magic == CMT_BLOCK_MAGIC_STAGING) {
            d->pstate[i] = FPOS_STAGING;
            if (s->staging_at[0] != i + 1) {
                s->staging_at[1] = s->staging_at[0];
                s->staging_at[0] = i + 1;
            }
            continue;
        }
        uint32_t *slot = cmt_htab_slot(&d->bmap, bh.writer, bh.index);
        if (!slot) {
            cmt_rd_corrupt(d, off, "out of memory for the block table");
            return -1;
        }
        if (*slot) {
            cmt_rd_corrupt(d, off + 8, "block index: writer %u has two blocks with index %u", bh.writer, bh.index);
            return -1;
        }
        *slot = (uint32_t)(i + 1);
        d->pstate[i] = FPOS_NORMAL;
    }
    while (d->scan_lo < d->npos && d->pstate[d->scan_lo] == FPOS_NORMAL)
        d->scan_lo++;
    /* the merge starts over from where every stream stopped (held heads stay decoded) */
    d->nheap = 0;
    d->last = (size_t)-1;
    d->have_bound = 0;
    d->started = 0;
    return 0;
}

int cmt_dump_being_created(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char m[8];
    ssize_t n = pread(fd, m, sizeof m, 0);
    close(fd);
    if (n < 0) return 0;
    for (ssize_t i = 0; i < n; i++)
        if (m[i]) return 0;
    return 1; /* empty, or zeros so far */
}

struct cmt_dump *cmt_dump_open_follow(const char *path, char *err, size_t errlen) {
    struct cmt_dump *d = cmt_dump_open(path, err, errlen); /* validates the header */
    if (!d) return NULL;
    if (d->hdr->block_size > CMT_READ_MAX) {
        cmt_rd_set_err(err, errlen, path, "offset 16 (block_size): %u-byte blocks cannot be followed (at most %u)",
                d->hdr->block_size, CMT_READ_MAX);
        cmt_dump_close(d);
        return NULL;
    }
    for (size_t i = 0; i < d->nstreams; i++)
        free(d->streams[i].buf);
    free(d->streams);
    free(d->blocks);
    d->streams = NULL;
    d->blocks = NULL;
    d->nstreams = d->nblocks = 0;
    free(d->heap);
    d->heap = NULL;
    d->follow = 1;
    cmt_htab_init(&d->bmap, sizeof(struct cmt_hkey), 256);
    cmt_htab_init(&d->smap, sizeof(struct cmt_hkey), 16);
    if (cmt_dump_poll(d, 0) != 0) {
        if (err && errlen) snprintf(err, errlen, "%s", d->err);
        cmt_dump_close(d);
        return NULL;
    }
    /* The open's scan is no previous poll: a caller polls right after it (live.c reads a dump in the
     * refresh that finds it), when a record timed before the open may not be in the file yet (its
     * writer copying its full block first, or descheduled between taking and writing it), so the
     * first poll returns records only when final, and the one after it those timed up to it. */
    d->last_poll_ns = 0;
    return d;
}

int cmt_dump_following(const struct cmt_dump *d) {
    return d->follow;
}
