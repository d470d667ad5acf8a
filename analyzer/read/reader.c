/*
 * reader.c — the dump: maps it, validates the header, scans its blocks into per-writer streams,
 * opens and closes it; record and kind names; the reader's error reports. Its other parts (see
 * reader_internal.h): decode.c, merge.c, follow.c. See reader.h. Decoding is checked arithmetic: a
 * time outside [0, CMT_TIME_MAX), a sequence number past 2^64 - 1, an address range past 2^64 or
 * larger than 2^57 bytes is corruption.
 */
#include "reader_internal.h"

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

void cmt_rd_set_err(char *err, size_t errlen, const char *path, const char *fmt, ...) {
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


void cmt_rd_release(struct cmt_dump *d, uint64_t off, uint64_t end) {
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
        cmt_rd_set_err(err, errlen, path, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        cmt_rd_set_err(err, errlen, path, "not a regular file");
        close(fd);
        return NULL;
    }
    size_t size = (size_t)st.st_size;
    if (size < sizeof(struct cmt_file_header)) {
        cmt_rd_set_err(err, errlen, path, "offset %zu (file header): file too short for a dump header (%zu bytes, need %u)",
                size, size, CMT_HEADER_SIZE);
        close(fd);
        return NULL;
    }
    void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
        cmt_rd_set_err(err, errlen, path, "cannot map: %s", strerror(errno));
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
        cmt_rd_set_err(err, errlen, path, "%s", why);
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
            cmt_rd_set_err(err, errlen, path, "offset %llu (block %zu magic): corrupt block header (magic 0x%08x)",
                    (unsigned long long)off, i, bh.magic);
            goto fail;
        }
        if (bh.writer == 0) {
            cmt_rd_set_err(err, errlen, path, "offset %llu (block %zu writer): writer id 0 is invalid",
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
            cmt_rd_set_err(err, errlen, path, "offset %llu (block index): writer %u has two blocks with index %u",
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
    cmt_rd_set_err(err, errlen, path, "out of memory");
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

void cmt_rd_corrupt(struct cmt_dump *d, uint64_t off, const char *fmt, ...) {
    if (d->corrupt) return;
    d->corrupt = 1;
    int n = snprintf(d->err, sizeof d->err, "%s: offset %llu: ", d->path, (unsigned long long)off);
    if (n < 0 || (size_t)n >= sizeof d->err) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err + n, sizeof d->err - (size_t)n, fmt, ap);
    va_end(ap);
}

/* The iteration starts over (merge.c reads from the first record again). */
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
