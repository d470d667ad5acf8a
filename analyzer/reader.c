/*
 * reader.c — dump reader: header validation, block scan, per-writer record decoding (decode_payload:
 * the one place that knows every record's payload) and the k-way merge by sequence number. See
 * reader.h. Decoding is checked arithmetic: a time outside [0, CMT_TIME_MAX), a sequence number past
 * 2^64 - 1, an address range past 2^64 or larger than 2^57 bytes is corruption.
 */
#include "reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmt_wire.h"

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

static const char *const rec_names[CMT_REC_EXT_LAST + 1] = {
#define CMT_REC_NAME(name, type) [type] = #name,
    CMT_RECORDS(CMT_REC_NAME)
#undef CMT_REC_NAME
};

const char *cmt_rec_name(unsigned type) {
    if (type < sizeof rec_names / sizeof rec_names[0]) return rec_names[type];
    return NULL;
}

static const char *const kind_names[] = {
#define CMT_KIND_NAME(id, name) name,
    CMT_KINDS(CMT_KIND_NAME)
#undef CMT_KIND_NAME
};

const char *cmt_kind_name(uint64_t kind) {
    return kind < CMT_KIND_COUNT ? kind_names[kind] : NULL;
}

static void set_err(char *err, size_t errlen, const char *path, const char *fmt, ...) {
    if (!err || !errlen) return;
    int n = snprintf(err, errlen, "%s: ", path);
    if (n < 0 || (size_t)n >= errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

static int cmp_block(const void *a, const void *b) {
    const struct cmt_blockref *x = a, *y = b;
    if (x->writer != y->writer) return x->writer < y->writer ? -1 : 1;
    if (x->index != y->index) return x->index < y->index ? -1 : 1;
    return x->staging - y->staging; /* the normal copy first */
}

/* Drops the pages of [off, end) from this process (MADV_DONTNEED: a private read-only file mapping
 * reads them back from the file when touched again), so resident memory stays a few blocks per
 * writer instead of growing with the file. Pointers into the mapping stay valid. */
#define CMT_READ_MAX (1u << 20) /* blocks up to this size are read, not mapped */

static void release(struct cmt_dump *d, uint64_t off, uint64_t end) {
    uint64_t a = (off + d->page - 1) & ~(uint64_t)(d->page - 1), b = end & ~(uint64_t)(d->page - 1);
    if (b > a) madvise((void *)(d->map + a), (size_t)(b - a), MADV_DONTNEED);
}

int cmt_header_has_identity(const struct cmt_file_header *h) {
    return h->version_major > 2 || (h->version_major == 2 && h->version_minor >= 1);
}

size_t cmt_header_cmdline_cap(const struct cmt_file_header *h) {
    return cmt_header_has_identity(h) ? sizeof h->cmdline : CMT_HEADER_SIZE - offsetof(struct cmt_file_header, cmdline);
}

int cmt_dump_read_header(const char *path, struct cmt_file_header *h) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = pread(fd, h, sizeof *h, 0);
    close(fd);
    if (n != (ssize_t)sizeof *h || memcmp(h->magic, CMT_MAGIC, 8) != 0 || h->version_major < CMT_VERSION_MAJOR_OLDEST ||
        h->version_major > CMT_VERSION_MAJOR)
        return -1;
    if (!cmt_header_has_identity(h)) {
        h->proc_start_ticks = 0;
        memset(h->dump_id, 0, sizeof h->dump_id);
    }
    return 0;
}

int cmt_header_same_dump(const struct cmt_file_header *a, const struct cmt_file_header *b) {
    return a->pid == b->pid && a->start_realtime_ns == b->start_realtime_ns && a->start_clock_ns == b->start_clock_ns &&
           !memcmp(a->dump_id, b->dump_id, sizeof a->dump_id) && !strncmp(a->host, b->host, sizeof a->host);
}

struct cmt_dump *cmt_dump_open(const char *path, char *err, size_t errlen) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        set_err(err, errlen, path, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        set_err(err, errlen, path, "not a regular file");
        close(fd);
        return NULL;
    }
    size_t size = (size_t)st.st_size;
    if (size < sizeof(struct cmt_file_header)) {
        set_err(err, errlen, path, "offset %zu (file header): file too short for a dump header (%zu bytes, need %u)",
                size, size, CMT_HEADER_SIZE);
        close(fd);
        return NULL;
    }
    void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
        set_err(err, errlen, path, "cannot map: %s", strerror(errno));
        close(fd);
        return NULL;
    }
    const struct cmt_file_header *h = map;
    const char *why = NULL;
    char buf[256];
    if (memcmp(h->magic, CMT_MAGIC, 8) != 0)
        why = "offset 0 (magic): not a cumemtrack dump (bad magic)";
    else if (h->version_major < CMT_VERSION_MAJOR_OLDEST || h->version_major > CMT_VERSION_MAJOR) {
        snprintf(buf, sizeof buf,
                 "offset 8 (version_major): unsupported format version %u.%u (this reader reads %u.x to %u.x)",
                 h->version_major, h->version_minor, CMT_VERSION_MAJOR_OLDEST, CMT_VERSION_MAJOR);
        why = buf;
    } else if (h->header_size < CMT_HEADER_SIZE || h->header_size > (1u << 20) || h->header_size % 8) {
        snprintf(buf, sizeof buf, "offset 12 (header_size): invalid header size %u", h->header_size);
        why = buf;
    } else if (h->block_size < 64 || h->block_size > (1u << 28) || h->block_size % 8) {
        snprintf(buf, sizeof buf, "offset 16 (block_size): invalid block size %u", h->block_size);
        why = buf;
    } else if (h->header_size > size) {
        snprintf(buf, sizeof buf, "offset 12 (header_size): file (%zu bytes) shorter than its header (%u bytes)", size,
                 h->header_size);
        why = buf;
    } else if (h->cmdline_len > cmt_header_cmdline_cap(h)) {
        snprintf(buf, sizeof buf, "offset 336 (cmdline_len): %u exceeds %zu", h->cmdline_len,
                 cmt_header_cmdline_cap(h));
        why = buf;
    } else if (h->start_realtime_ns < 0 || h->start_realtime_ns >= CMT_TIME_MAX) {
        snprintf(buf, sizeof buf, "offset 56 (start_realtime_ns): time %lld outside [0, 2^62)",
                 (long long)h->start_realtime_ns);
        why = buf;
    } else if (h->start_clock_ns < 0 || h->start_clock_ns >= CMT_TIME_MAX) {
        snprintf(buf, sizeof buf, "offset 64 (start_clock_ns): time %lld outside [0, 2^62)",
                 (long long)h->start_clock_ns);
        why = buf;
    } else {
        static const char *const cnames[] = {
#define CMT_CTR_NAME(id, name) name,
            CMT_COUNTERS(CMT_CTR_NAME)
#undef CMT_CTR_NAME
        };
        for (unsigned k = 0; k < CMT_CTR_COUNT && !why; k++) {
            uint64_t v = h->counters[k], max = k == CMT_CTR_WRITE_STOPPED ? 1 : CMT_COUNTER_MAX;
            if (v <= max) continue;
            snprintf(buf, sizeof buf, "offset %zu (counter %s): %llu is more than a process could count (at most %llu)",
                     offsetof(struct cmt_file_header, counters) + 8 * (size_t)k, cnames[k], (unsigned long long)v,
                     (unsigned long long)max);
            why = buf;
        }
    }
    if (why) {
        set_err(err, errlen, path, "%s", why);
        munmap(map, size);
        close(fd);
        return NULL;
    }
    struct cmt_dump *d = calloc(1, sizeof *d);
    if (!d) goto oom;
    d->path = strdup(path);
    d->map = map;
    d->size = size;
    d->hdr = h;
    d->fd = fd;
    d->last = (size_t)-1;
    size_t bs = h->block_size, body = size - h->header_size;
    size_t nfull = body / bs, rem = body % bs;
    if (rem) d->truncated = 1;
    size_t maxb = nfull + (rem >= sizeof(struct cmt_block_header));
    d->blocks = calloc(maxb ? maxb : 1, sizeof *d->blocks);
    if (!d->path || !d->blocks) goto oom;
    for (size_t i = 0; i < maxb; i++) {
        uint64_t off = h->header_size + (uint64_t)i * bs;
        struct cmt_block_header bh;
        /* pread, not the mapping: a page fault costs far more than a small read on VMs, and the
         * mapped pages would stay resident */
        if (pread(fd, &bh, sizeof bh, (off_t)off) != (ssize_t)sizeof bh) memcpy(&bh, d->map + off, sizeof bh);
        if (bh.magic == 0) continue;
        if (bh.magic != CMT_BLOCK_MAGIC && bh.magic != CMT_BLOCK_MAGIC_STAGING) {
            set_err(err, errlen, path, "offset %llu (block %zu magic): corrupt block header (magic 0x%08x)",
                    (unsigned long long)off, i, bh.magic);
            goto fail;
        }
        if (bh.writer == 0) {
            set_err(err, errlen, path, "offset %llu (block %zu writer): writer id 0 is invalid",
                    (unsigned long long)off + 4, i);
            goto fail;
        }
        struct cmt_blockref *b = &d->blocks[d->nblocks++];
        b->writer = bh.writer;
        b->index = bh.index;
        b->off = off;
        b->len = i < nfull ? bs : rem;
        b->staging = bh.magic == CMT_BLOCK_MAGIC_STAGING;
    }
    if (d->nblocks > 1) qsort(d->blocks, d->nblocks, sizeof *d->blocks, cmp_block);
    d->page = (size_t)sysconf(_SC_PAGESIZE);
    if (!d->page || (d->page & (d->page - 1))) d->page = 4096;
    /* a staging block already copied to a normal block is a stale copy */
    size_t kept = 0;
    for (size_t i = 0; i < d->nblocks; i++) {
        if (kept && d->blocks[i].staging && d->blocks[kept - 1].writer == d->blocks[i].writer &&
            d->blocks[kept - 1].index == d->blocks[i].index && !d->blocks[kept - 1].staging)
            continue;
        d->blocks[kept++] = d->blocks[i];
    }
    d->nblocks = kept;
    size_t nstreams = 0;
    for (size_t i = 0; i < d->nblocks; i++) {
        if (i && d->blocks[i].writer == d->blocks[i - 1].writer && d->blocks[i].index == d->blocks[i - 1].index) {
            set_err(err, errlen, path, "offset %llu (block index): writer %u has two blocks with index %u",
                    (unsigned long long)d->blocks[i].off + 8, d->blocks[i].writer, d->blocks[i].index);
            goto fail;
        }
        if (!i || d->blocks[i].writer != d->blocks[i - 1].writer) nstreams++;
    }
    d->streams = calloc(nstreams ? nstreams : 1, sizeof *d->streams);
    d->heap = calloc(nstreams ? nstreams : 1, sizeof *d->heap);
    if (!d->streams || !d->heap) goto oom;
    for (size_t i = 0; i < d->nblocks; i++) {
        if (!i || d->blocks[i].writer != d->blocks[i - 1].writer) {
            struct cmt_stream *s = &d->streams[d->nstreams++];
            s->writer = d->blocks[i].writer;
            s->ev.frames = s->frames;
            s->ev.segs = s->segs;
            s->ev.py = s->py;
            s->major = d->hdr->version_major;
            s->first = i;
        }
        d->streams[d->nstreams - 1].count++;
    }
    cmt_dump_rewind(d);
    return d;
oom:
    set_err(err, errlen, path, "out of memory");
fail:
    if (d) {
        free(d->path);
        free(d->blocks);
        free(d->streams);
        free(d->heap);
        free(d);
    }
    munmap(map, size);
    close(fd);
    return NULL;
}

void cmt_dump_close(struct cmt_dump *d) {
    if (!d) return;
    munmap((void *)d->map, d->size);
    close(d->fd);
    for (size_t i = 0; i < d->nstreams; i++)
        free(d->streams[i].buf);
    free(d->path);
    free(d->blocks);
    free(d->streams);
    free(d->heap);
    if (d->follow)
        for (size_t i = 0; i < d->npycodes; i++) {
            free((char *)d->pycodes[i].file);
            free((char *)d->pycodes[i].name);
        }
    free(d->pycodes);
    free(d->pstate);
    if (d->follow) {
        cmt_htab_free(&d->bmap);
        cmt_htab_free(&d->smap);
    }
    free(d);
}

const struct cmt_file_header *cmt_dump_header(const struct cmt_dump *d) {
    return d->hdr;
}
const char *cmt_dump_path(const struct cmt_dump *d) {
    return d->path;
}
int cmt_dump_truncated(const struct cmt_dump *d) {
    return d->truncated;
}
unsigned cmt_dump_writers(const struct cmt_dump *d) {
    return (unsigned)d->nstreams;
}
unsigned cmt_dump_blocks(const struct cmt_dump *d) {
    return (unsigned)d->nblocks;
}
const char *cmt_dump_error(const struct cmt_dump *d) {
    return d->err;
}

static void corrupt(struct cmt_dump *d, uint64_t off, const char *fmt, ...) {
    if (d->corrupt) return;
    d->corrupt = 1;
    int n = snprintf(d->err, sizeof d->err, "%s: offset %llu: ", d->path, (unsigned long long)off);
    if (n < 0 || (size_t)n >= sizeof d->err) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err + n, sizeof d->err - (size_t)n, fmt, ap);
    va_end(ap);
}

/* cmt_get_varint with the one-byte case inline (most fields of hot records). */
static inline __attribute__((always_inline)) uint64_t rd_varint(struct cmt_cursor *c) {
    if (__builtin_expect(c->p < c->end && *c->p < 0x80 && c->ok, 1)) return *c->p++;
    return cmt_get_varint(c);
}
static inline __attribute__((always_inline)) int64_t rd_zvarint(struct cmt_cursor *c) {
    return cmt_zz_dec(rd_varint(c));
}
#define cmt_get_varint rd_varint
#define cmt_get_zvarint rd_zvarint

static uint64_t get_ptr(struct cmt_cursor *c, struct cmt_stream *s) {
    int64_t delta = cmt_get_zvarint(c);
    s->ptr += (uint64_t)delta;
    return s->ptr;
}

/* ---- the fast path for ALLOC and FREE (most records of a dump) ----
 * When a whole record of the longest encoding fits before the end of the block, its varints are
 * read with no bounds check. The values are the ones the checked cursor reads: a varint longer
 * than CMT_VARINT_MAX bytes (the only way to fail there) sends the record back to the checked
 * path, which reports it. tests/cases/analyzer_fastpath.sh compares both paths. */
#define FAST_FIELDS 11 /* sequence and time deltas + ALLOC's 9 payload fields */
#define FAST_ROOM (1 + FAST_FIELDS * CMT_VARINT_MAX)

/* A varint at *p (at least CMT_VARINT_MAX bytes readable); sets *bad when it is longer. */
static inline __attribute__((always_inline)) uint64_t fast_varint(const uint8_t **p, int *bad) {
    const uint8_t *q = *p;
    uint64_t b = *q++;
    if (__builtin_expect(b < 0x80, 1)) {
        *p = q;
        return b;
    }
    uint64_t v = b & 0x7f;
    for (unsigned shift = 7;; shift += 7) {
        if (shift >= 7 * CMT_VARINT_MAX) {
            *bad = 1;
            break;
        }
        b = *q++;
        v |= (b & 0x7f) << shift;
        if (b < 0x80) break;
    }
    *p = q;
    return v;
}

/* 1 when [ptr, ptr + size) lies below 2^64 and size is at most 2^57 bytes: no address space
 * (x86-64 with 5-level paging: 57 bits; others less) holds more, so a larger size is a flipped
 * bit, and two of them would overflow the live byte counts */
#define CMT_SPAN_MAX (1ull << 57)
static int span_ok(uint64_t ptr, uint64_t size) {
    return size <= UINT64_MAX - ptr && size <= CMT_SPAN_MAX;
}

static void get_alloc(struct cmt_cursor *c, struct cmt_stream *s, struct cmt_event *e) {
    e->api = cmt_get_varint(c);
    e->kind = cmt_get_varint(c);
    e->flags = cmt_get_varint(c);
    e->device = cmt_get_zvarint(c);
    e->ptr = get_ptr(c, s);
    e->size = cmt_get_varint(c);
    e->granted = cmt_get_varint(c);
    if (!e->granted) e->granted = e->size;
    e->stack = cmt_get_varint(c);
    e->ctx = cmt_get_varint(c);
}

/* Decodes the payload of type t from c into e; returns 0 on success, -1 with *why set. */
static int decode_payload(struct cmt_cursor *c, struct cmt_stream *s, struct cmt_event *e, unsigned t,
                          const char **why) {
    switch (t) {
    case CMT_REC_ALLOC:
    case CMT_REC_RETRACK:
        get_alloc(c, s, e);
        if (t == CMT_REC_RETRACK) e->result = cmt_get_varint(c);
        if (c->ok && (!span_ok(e->ptr, e->size) || !span_ok(e->ptr, e->granted))) {
            *why = "allocation of more than 2^57 bytes, or ending past 2^64 (ptr + size overflows)";
            return -1;
        }
        break;
    case CMT_REC_FREE:
        e->api = cmt_get_varint(c);
        e->flags = cmt_get_varint(c);
        e->device = cmt_get_zvarint(c);
        e->ptr = get_ptr(c, s);
        break;
    case CMT_REC_OOM:
    case CMT_REC_FAILED:
        e->api = cmt_get_varint(c);
        e->device = cmt_get_zvarint(c);
        e->size = cmt_get_varint(c);
        e->stack = cmt_get_varint(c);
        e->result = cmt_get_varint(c);
        break;
    case CMT_REC_TEARDOWN:
        e->api = cmt_get_varint(c);
        e->device = cmt_get_zvarint(c);
        e->ctx = cmt_get_varint(c);
        e->flags = cmt_get_varint(c);
        break;
    case CMT_REC_STACK: {
        e->id = cmt_get_varint(c);
        uint64_t n = cmt_get_varint(c);
        if (c->ok && n > CMT_MAX_FRAMES) {
            *why = "STACK nframes exceeds CMT_MAX_FRAMES";
            return -1;
        }
        e->nframes = (uint32_t)n;
        uint64_t a = 0;
        for (uint32_t i = 0; i < e->nframes && c->ok; i++) {
            a = i ? a + (uint64_t)cmt_get_zvarint(c) : cmt_get_varint(c);
            s->frames[i] = a;
        }
        if (s->major < 2) break; /* 1.x: no Python frames */
        n = cmt_get_varint(c);
        if (c->ok && n > CMT_MAX_FRAMES) {
            *why = "STACK npy exceeds CMT_MAX_FRAMES";
            return -1;
        }
        e->npy = (uint32_t)n;
        for (uint32_t i = 0; i < e->npy && c->ok; i++) {
            struct cmt_pyframe_rec *f = &s->py[i];
            f->code = cmt_get_varint(c);
            f->line = cmt_get_varint(c);
            f->at = cmt_get_varint(c);
            if (c->ok &&
                (f->code == 0 || f->code > CMT_MAX_PYCODES || f->at > e->nframes || (i && f->at < s->py[i - 1].at))) {
                *why = "STACK Python frame out of range (code id, or at not within nframes and non-decreasing)";
                return -1;
            }
        }
        break;
    }
    case CMT_REC_PYCODE:
        e->id = cmt_get_varint(c);
        e->first_line = cmt_get_varint(c);
        e->str1 = cmt_get_str(c, &e->str1_len, CMT_MAX_STR);
        e->str2 = cmt_get_str(c, &e->str2_len, CMT_MAX_STR);
        if (c->ok && (e->id == 0 || e->id > CMT_MAX_PYCODES)) {
            *why = "PYCODE id out of range";
            return -1;
        }
        break;
    case CMT_REC_DEVICE: {
        e->device = cmt_get_zvarint(c);
        e->total = cmt_get_varint(c);
        const uint8_t *u = cmt_get_bytes(c, 16);
        if (u) memcpy(e->uuid, u, 16);
        e->str1 = cmt_get_str(c, &e->str1_len, CMT_MAX_STR);
        e->str2 = cmt_get_str(c, &e->str2_len, CMT_MAX_STR);
        break;
    }
    case CMT_REC_CTX:
        e->ctx = cmt_get_varint(c);
        e->device = cmt_get_zvarint(c);
        e->handle = cmt_get_varint(c);
        break;
    case CMT_REC_EXIT:
        e->exit_how = cmt_get_varint(c);
        e->exit_status = cmt_get_zvarint(c);
        /* as wait() reports it (before 2.3 the tracer wrote exit()'s argument: -1 for 255) */
        if (e->exit_how == CMT_EXIT_CLEAN || e->exit_how == CMT_EXIT_IMMEDIATE) e->exit_status &= 0xff;
        break;
    case CMT_REC_MODULE_LOAD: {
        e->id = cmt_get_varint(c);
        e->base = cmt_get_varint(c);
        e->str1 = cmt_get_str(c, &e->str1_len, CMT_MAX_STR);
        e->str2 = cmt_get_str(c, &e->str2_len, CMT_MAX_STR);
        uint64_t n = cmt_get_varint(c);
        if (c->ok && n > CMT_MAX_SEGMENTS) {
            *why = "MODULE_LOAD nseg exceeds CMT_MAX_SEGMENTS";
            return -1;
        }
        e->nseg = (uint32_t)n;
        for (uint32_t i = 0; i < e->nseg && c->ok; i++) {
            s->segs[i].vaddr = cmt_get_varint(c);
            s->segs[i].memsz = cmt_get_varint(c);
            s->segs[i].flags = cmt_get_varint(c);
        }
        break;
    }
    case CMT_REC_MODULE_UNLOAD:
        e->id = cmt_get_varint(c);
        break;
    case CMT_REC_POOL:
        e->pool = cmt_get_varint(c);
        e->location_type = cmt_get_varint(c);
        e->location_id = cmt_get_zvarint(c);
        e->op = cmt_get_varint(c);
        break;
    case CMT_REC_UNMATCHED_PROC:
        e->version = cmt_get_varint(c);
        e->flags = cmt_get_varint(c);
        e->str1 = cmt_get_str(c, &e->str1_len, CMT_MAX_STR);
        break;
    case CMT_REC_VMM_MAP:
        e->op = cmt_get_varint(c);
        e->ptr = cmt_get_varint(c); /* plain address in extension records */
        e->size = cmt_get_varint(c);
        e->handle = cmt_get_varint(c);
        if (c->ok && !span_ok(e->ptr, e->size)) {
            *why = "mapping of more than 2^57 bytes, or ending past 2^64 (ptr + size overflows)";
            return -1;
        }
        break;
    case CMT_REC_INFO:
        e->str1 = cmt_get_str(c, &e->str1_len, CMT_MAX_STR);
        e->str2 = cmt_get_str(c, &e->str2_len, CMT_MAX_STR);
        break;
    case CMT_REC_MARKER:
        e->str1 = cmt_get_str(c, &e->str1_len, CMT_MAX_STR);
        e->flags = cmt_get_varint(c);
        e->str2 = cmt_get_str(c, &e->str2_len, CMT_MAX_STR);
        break;
    case CMT_REC_ALERT:
        e->device = cmt_get_zvarint(c);
        e->live = cmt_get_varint(c);
        e->threshold = cmt_get_varint(c);
        e->caller = (int64_t)cmt_get_varint(c);
        break;
    case CMT_REC_EXEC_FAILED:
        e->err = cmt_get_zvarint(c);
        break;
    case CMT_REC_API_NAME:
        e->id = cmt_get_varint(c);
        e->str1 = cmt_get_str(c, &e->str1_len, CMT_MAX_STR);
        break;
    case CMT_REC_SUBALLOC:
        e->op = cmt_get_varint(c);
        e->heap = cmt_get_varint(c);
        e->ptr = cmt_get_varint(c);
        e->size = cmt_get_varint(c);
        e->stack = cmt_get_varint(c);
        e->str1 = cmt_get_str(c, &e->str1_len, CMT_MAX_STR);
        if (c->ok && !span_ok(e->ptr, e->size)) {
            *why = "region of more than 2^57 bytes, or ending past 2^64 (ptr + size overflows)";
            return -1;
        }
        break;
    case CMT_REC_PYTHON:
        e->op = cmt_get_varint(c);      /* enum cmt_py_state */
        e->version = cmt_get_varint(c); /* major << 16 | minor << 8 | micro */
        e->str1 = cmt_get_str(c, &e->str1_len, CMT_MAX_STR);
        break;
    default:
        if (t < CMT_REC_EXT_FIRST) {
            *why = "unknown core record type";
            return -1;
        }
        break; /* unknown extension: skipped */
    }
    if (!c->ok) {
        *why = "payload does not decode";
        return -1;
    }
    return 0;
}

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
        corrupt(d, b->off + 24, "block base_time_ns (writer %u, block %u): time %lld outside [0, 2^62)", s->writer,
                bh.index, (long long)bh.base_time_ns);
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
static int follow_has_block(struct cmt_dump *d, const struct cmt_stream *s, uint32_t idx) {
    struct cmt_block_header h;
    return cmt_htab_get(&d->bmap, s->writer, idx) || follow_staging(d, s, idx, &h);
}

/* Follow mode: opens block (writer, fidx) from byte fresume: its normal copy when the poll found
 * one, else one of the writer's staging blocks when it currently holds that index. The staging block is
 * read between two reads of its header: the same header twice means the bytes read belong to that
 * (writer, index) (a writer never holds an index twice, and clears the block only after its normal
 * copy is complete), so nothing of the next index is ever mixed in. Returns 1, 0 when the block is
 * not there yet (try again after the next poll), -1 when corrupt. Never locks or writes. */
static int open_block_follow(struct cmt_dump *d, struct cmt_stream *s) {
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
        corrupt(d, off, "out of memory for a block buffer");
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
        corrupt(d, off + 24, "block base_time_ns (writer %u, block %u): time %lld outside [0, 2^62)", s->writer,
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

/* Every field of ev readers may look at, reset (the checked path does it before each record). */
static void reset_event(struct cmt_event *e) {
    e->api = e->kind = e->flags = e->ptr = e->size = e->granted = e->stack = e->ctx = e->result = 0;
    e->id = e->total = e->handle = e->base = 0;
    e->op = e->heap = e->pool = e->location_type = e->exit_how = e->version = e->live = e->threshold = 0;
    e->device = e->location_id = e->exit_status = e->err = e->caller = 0;
    e->nframes = e->nseg = e->npy = 0;
    e->first_line = 0;
    e->str1 = e->str2 = NULL;
    e->str1_len = e->str2_len = 0;
    e->payload = NULL;
    e->payload_len = 0;
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
        reset_event(e);
        s->cold_set = 0;
    }
    return fast_decode(&s->c.p, &s->ptr, t, s->writer, off, sd, td, e);
}

/* The checked path: decodes the record of type t (its type byte read; it began at off) into s->ev
 * and its deltas into *sd, *td. 1; 0 at the end of a truncated dump; -1 when corrupt. */
static __attribute__((noinline)) int decode_record(struct cmt_dump *d, struct cmt_stream *s, unsigned t, uint64_t off,
                                                   uint64_t *sd, uint64_t *td) {
    struct cmt_cursor *c = &s->c;
    struct cmt_event *e = &s->ev;
    /* reset only the fields readers may look at for this record */
    e->type = (uint8_t)t;
    e->writer = s->writer;
    e->offset = off;
    reset_event(e);
    s->cold_set = 1;
    *sd = cmt_get_varint(c);
    *td = cmt_get_varint(c);
    const char *why = NULL;
    int rc = 0;
    if (!c->ok) {
        why = "record header does not decode";
        rc = -1;
    } else if (t >= CMT_REC_EXT_FIRST) {
        if (t > CMT_REC_EXT_LAST) {
            why = "invalid record type";
            rc = -1;
        } else {
            uint64_t plen = cmt_get_varint(c);
            if (!c->ok || plen > (uint64_t)(c->end - c->p)) {
                why = "payload length past the end of the block";
                c->ok = 0;
                rc = -1;
            } else {
                struct cmt_cursor sub = {c->p, c->p + plen, 1};
                e->payload = c->p;
                e->payload_len = (size_t)plen;
                c->p += plen;
                rc = decode_payload(&sub, s, e, t, &why);
            }
        }
    } else {
        rc = decode_payload(c, s, e, t, &why);
    }
    if (rc != 0) {
        /* cut by the truncation: the record runs past the end of the file's last bytes */
        if (s->partial && !c->ok && (c->p >= c->end || t >= CMT_REC_EXT_FIRST)) {
            s->open = 0;
            s->done = 1;
            return 0;
        }
        corrupt(d, off, "record type 0x%02x (writer %u, block at offset %llu): %s", t, s->writer,
                (unsigned long long)s->block_off, why);
        return -1;
    }
    if ((e->str1 || e->str2 || e->payload) && !d->follow && s->base != d->map + s->block_off) {
        /* strings and payloads point into the mapping: valid as long as the dump is open */
        const uint8_t *m = d->map + s->block_off;
        if (e->str1) e->str1 = (const char *)m + ((const uint8_t *)e->str1 - s->base);
        if (e->str2) e->str2 = (const char *)m + ((const uint8_t *)e->str2 - s->base);
        if (e->payload) e->payload = m + (e->payload - s->base);
    }
    return 1;
}

/* Moves the stream to its next record, opening its next block as needed: 1 when c.p is at a record,
 * 0 at the stream's end (following: at the end of what was written so far), -1 when corrupt. */
static __attribute__((noinline)) int stream_seek(struct cmt_dump *d, struct cmt_stream *s) {
    for (;;) {
        if (s->done) return 0;
        if (!s->open) {
            int rc = d->follow ? open_block_follow(d, s) : open_block(d, s);
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
                    if (follow_has_block(d, s, s->fidx + 1)) {
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
            if (s->base == d->map + s->block_off) release(d, s->block_off, s->block_off + (uint64_t)(c->end - s->base));
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
        corrupt(d, off, "record type 0x%02x (writer %u): sequence number %llu + delta %llu passes 2^64 - 1", t,
                s->writer, (unsigned long long)s->seq, (unsigned long long)sd);
        return -1;
    }
    if (td >= (uint64_t)(CMT_TIME_MAX - s->time)) { /* s->time lies in [0, CMT_TIME_MAX) */
        corrupt(d, off, "record type 0x%02x (writer %u): time %lld + delta %llu passes 2^62", t, s->writer,
                (long long)s->time, (unsigned long long)td);
        return -1;
    }
    uint64_t seq = s->seq + sd;
    if (!s->first_rec && sd == 0) {
        corrupt(d, off, "record type 0x%02x (writer %u): sequence number does not increase", t, s->writer);
        return -1;
    }
    if (s->have_last && seq <= s->last_seq) {
        corrupt(d, off, "record type 0x%02x (writer %u): sequence number %llu not after %llu", t, s->writer,
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
        int rc = decode_record(d, s, t, off, &sd, &td);
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

void cmt_dump_rewind(struct cmt_dump *d) {
    for (size_t i = 0; i < d->nstreams; i++) {
        struct cmt_stream *s = &d->streams[i];
        s->cur = 0;
        s->open = s->done = s->have_last = 0;
        s->last_seq = 0;
    }
    d->nheap = 0;
    d->last = (size_t)-1;
    d->have_bound = 0;
    d->started = 0;
    d->corrupt = 0; /* found again, at the same place, if the records are read again */
    d->err[0] = 0;
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
            corrupt(d, e->offset, "out of memory for PYCODE %llu", (unsigned long long)e->id);
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
            corrupt(d, e->offset, "out of memory for PYCODE %llu", (unsigned long long)e->id);
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

size_t cmt_stack_frames(const struct cmt_event *e, struct cmt_frame *out, size_t max, int keep_eval) {
    size_t k = 0, j = 0;
    for (uint32_t i = 0; i <= e->nframes; i++) {
        int ran = 0;
        for (; j < e->npy && e->py[j].at == i && k < max; j++, ran = 1)
            out[k++] = (struct cmt_frame){CMT_FRAME_PYTHON, 0, 0, e->py[j].code, e->py[j].line};
        if (i < e->nframes && (!ran || keep_eval) && k < max)
            out[k++] = (struct cmt_frame){CMT_FRAME_NATIVE, ran, e->frames[i], 0, 0};
    }
    return k;
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
            reset_event(&s->ev);
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

/* ---- follow mode ---- */

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
            corrupt(d, hs, "out of memory for the block table");
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
            corrupt(d, off, "block %zu magic: corrupt block header (magic 0x%08x)", i, bh.magic);
            return -1;
        }
        if (bh.writer == 0) {
            corrupt(d, off + 4, "block %zu writer: writer id 0 is invalid", i);
            return -1;
        }
        struct cmt_stream *s = follow_stream(d, bh.writer);
        if (!s) {
            corrupt(d, off, "out of memory for writer %u", bh.writer);
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
            corrupt(d, off, "out of memory for the block table");
            return -1;
        }
        if (*slot) {
            corrupt(d, off + 8, "block index: writer %u has two blocks with index %u", bh.writer, bh.index);
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
        set_err(err, errlen, path, "offset 16 (block_size): %u-byte blocks cannot be followed (at most %u)",
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
