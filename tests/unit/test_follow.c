/* test_follow.c — the follow-mode reader (cmt_dump_open_follow, cmt_dump_poll) over a dump this test
 * writes between polls, by hand, the way the tracer does (include/cmt_format.h): records must come
 * out once each, in sequence order, whatever a writer had not yet written at a poll.
 * A record is taken (sequence number and time) before it is written: a writer may still be writing
 * one (copying its full block first, waiting for the lock, or descheduled) when a follower opens the
 * dump, and callers poll right after the open (live.c reads a dump in the refresh that finds it).
 * Here writer 2 has taken sequence number 20 (its staging block's header is there, the record not
 * yet) when the dump is opened; writer 1 has written 10 and 30. The poll right after the open must
 * not return 30 before 20 (it did: the open's scan served as the previous poll, so the first poll
 * returned everything timed before the open). Exit 0 when the order is right. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmt_format.h"
#include "cmt_wire.h"
#include "reader.h"

static int fd;
static int64_t t0; /* CLOCK_MONOTONIC ns, some time before the open */

static void put(const void *p, size_t n, off_t off) {
    if (pwrite(fd, p, n, off) != (ssize_t)n) {
        perror("pwrite");
        exit(2);
    }
}

static off_t block_at(unsigned pos) {
    return (off_t)CMT_HEADER_SIZE + (off_t)pos * CMT_BLOCK_SIZE;
}

/* A staging block at position pos for writer w, index 0, starting at (seq, time). */
static void staging(unsigned pos, uint32_t w, uint64_t seq, int64_t time) {
    struct cmt_block_header h = {CMT_BLOCK_MAGIC_STAGING, w, 0, 1000 + w, seq, time};
    put(&h, sizeof h, block_at(pos));
}

/* An ALLOC record at offset at of block pos (seq and time as deltas from the previous ones); its type
 * byte last, as the writer stores it. Returns the offset after it. */
static size_t alloc_rec(unsigned pos, size_t at, uint64_t seq_delta, uint64_t time_delta, uint64_t size) {
    uint8_t b[64], *p = b + 1;
    p = cmt_put_varint(p, seq_delta);
    p = cmt_put_varint(p, time_delta);
    p = cmt_put_varint(p, 0);                       /* api */
    p = cmt_put_varint(p, 0);                       /* kind */
    p = cmt_put_varint(p, 0);                       /* flags */
    p = cmt_put_zvarint(p, 0);                      /* device */
    p = cmt_put_zvarint(p, 0x1000 * (int64_t)size); /* ptr */
    p = cmt_put_varint(p, size);
    p = cmt_put_varint(p, 0); /* granted: = size */
    p = cmt_put_varint(p, 0); /* stack */
    p = cmt_put_varint(p, 0); /* ctx */
    put(b + 1, (size_t)(p - b) - 1, block_at(pos) + (off_t)at + 1);
    b[0] = CMT_REC_ALLOC;
    put(b, 1, block_at(pos) + (off_t)at);
    return at + (size_t)(p - b);
}

static uint64_t got[16];
static int ngot;

static int drain(struct cmt_dump *d) {
    const struct cmt_event *e;
    int rc;
    while ((rc = cmt_dump_next(d, &e)) > 0)
        if (ngot < 16) got[ngot++] = e->seq;
    return rc;
}

int main(void) {
    char path[] = "/tmp/cmt-test-follow-XXXXXX";
    fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        return 2;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    t0 = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - 10000000; /* 10 ms ago */
    struct cmt_file_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CMT_MAGIC, 8);
    h.version_major = CMT_VERSION_MAJOR;
    h.version_minor = CMT_VERSION_MINOR;
    h.header_size = CMT_HEADER_SIZE;
    h.block_size = CMT_BLOCK_SIZE;
    h.pid = 1;
    h.clock_id = CMT_CLOCK_MONOTONIC;
    h.rank = h.local_rank = h.world_size = -1;
    h.start_realtime_ns = 1000000000;
    h.start_clock_ns = t0 - 1000;
    h.dump_id[0] = 1;
    put(&h, sizeof h, 0);
    if (ftruncate(fd, block_at(2)) != 0) {
        perror("ftruncate");
        return 2;
    }
    /* writer 1: 10 at t0, 30 at t0 + 3 us, written; writer 2: 20 at t0 + 2 us taken, not written */
    staging(0, 1, 10, t0);
    size_t at = alloc_rec(0, sizeof(struct cmt_block_header), 0, 0, 1);
    alloc_rec(0, at, 20, 3000, 3);
    staging(1, 2, 20, t0 + 2000);

    char err[512];
    struct cmt_dump *d = cmt_dump_open_follow(path, err, sizeof err);
    if (!d) {
        fprintf(stderr, "open: %s\n", err);
        return 1;
    }
    int rc = cmt_dump_poll(d, 0) || drain(d) < 0;           /* right after the open, as live.c does */
    alloc_rec(1, sizeof(struct cmt_block_header), 0, 0, 2); /* writer 2 writes 20 now */
    rc = rc || cmt_dump_poll(d, 0) || drain(d) < 0;
    rc = rc || cmt_dump_poll(d, 1) || drain(d) < 0; /* the writer is gone: everything */
    if (rc) fprintf(stderr, "reader: %s\n", cmt_dump_error(d));
    cmt_dump_close(d);
    unlink(path);
    printf("follow order:");
    for (int i = 0; i < ngot; i++)
        printf(" %llu", (unsigned long long)got[i]);
    printf("\n");
    if (rc || ngot != 3 || got[0] != 10 || got[1] != 20 || got[2] != 30) {
        fprintf(stderr, "test_follow: want 10 20 30, each once, in that order\n");
        return 1;
    }
    return 0;
}
