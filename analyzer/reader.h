/*
 * reader.h — reads one cumemtrack dump (include/cmt_format.h): maps it read-only, validates
 * the header, scans blocks, groups them per writer and iterates every record of the process
 * merged by sequence number (a k-way heap merge over writers: memory grows with writers and
 * blocks, never with events). Hostile input never crashes or hangs the reader: every count and
 * length is bounded, and a record that does not decode makes the dump "corrupt" with a message
 * naming the file and the byte offset.
 */
#ifndef CMT_READER_H
#define CMT_READER_H

#include <stddef.h>
#include <stdint.h>

#include "cmt_format.h"
#include "util.h"

struct cmt_segment {
    uint64_t vaddr, memsz, flags;
};

/* One decoded record. Strings point into the mapping (not NUL-terminated). Which fields are set
 * depends on type (see cmt_format.h for the payloads); every field means one thing. */
struct cmt_event {
    uint8_t type;
    uint32_t writer; /* stream it came from */
    uint64_t offset; /* file offset of its type byte */
    uint64_t seq;
    int64_t time_ns;
    /* ALLOC FREE RETRACK OOM FAILED TEARDOWN */
    uint64_t api, kind, flags; /* flags: also UNMATCHED_PROC flags, MARKER kind (enum cmt_marker_flags) */
    int64_t device;            /* a device ordinal (-1: host); also DEVICE, CTX, ALERT */
    uint64_t ptr;              /* also VMM_MAP, SUBALLOC */
    uint64_t size;             /* requested (OOM/FAILED size, VMM_MAP size, SUBALLOC size) */
    uint64_t granted;          /* ALLOC/RETRACK: 0 in the record is replaced by size */
    uint64_t stack;            /* stack id, 0: none; also SUBALLOC */
    uint64_t ctx;              /* ALLOC, TEARDOWN, CTX: a context */
    uint64_t result;           /* RETRACK/OOM/FAILED result */
    /* STACK MODULE_LOAD MODULE_UNLOAD API_NAME: the id defined */
    uint64_t id;
    uint32_t nframes;
    const uint64_t *frames; /* STACK: nframes addresses (owned by the reader, valid with the event) */
    /* DEVICE */
    uint64_t total; /* total_bytes */
    uint8_t uuid[16];
    const char *str1, *str2; /* DEVICE name/pci; MODULE path/build_id; INFO key/value; MARKER
                                label/domain; UNMATCHED_PROC name; API_NAME name; SUBALLOC name */
    size_t str1_len, str2_len;
    uint64_t handle; /* CTX: the CUcontext; VMM_MAP: the allocation handle */
    uint64_t op;     /* VMM_MAP, POOL, SUBALLOC: the operation (enum cmt_sub_op for SUBALLOC) */
    uint64_t heap;   /* SUBALLOC: the NVTX heap */
    /* POOL */
    uint64_t pool, location_type;
    int64_t location_id;
    /* EXIT */
    uint64_t exit_how; /* enum cmt_exit_how */
    int64_t exit_status;
    int64_t err;      /* EXEC_FAILED: errno */
    uint64_t version; /* UNMATCHED_PROC: the version asked for */
    /* ALERT */
    uint64_t live, threshold;
    int64_t caller;
    /* MODULE_LOAD */
    uint64_t base;
    uint32_t nseg;
    const struct cmt_segment *segs; /* nseg segments (owned by the reader, valid with the event) */
    /* extension records: raw payload */
    const uint8_t *payload;
    size_t payload_len;
};

struct cmt_dump;

/* Opens and validates path. On failure returns NULL and writes "PATH: offset N (field): why" into
 * err. */
struct cmt_dump *cmt_dump_open(const char *path, char *err, size_t errlen);
void cmt_dump_close(struct cmt_dump *d);

const struct cmt_file_header *cmt_dump_header(const struct cmt_dump *d);
const char *cmt_dump_path(const struct cmt_dump *d);
int cmt_dump_truncated(const struct cmt_dump *d); /* the file ends inside a block */
unsigned cmt_dump_writers(const struct cmt_dump *d);
unsigned cmt_dump_blocks(const struct cmt_dump *d); /* blocks with a valid magic */

/* Iterates the merged records. Returns 1 with *ev set (valid until the next call), 0 at the end,
 * -1 when the dump is corrupt (cmt_dump_error() says where). */
int cmt_dump_next(struct cmt_dump *d, const struct cmt_event **ev);
/* Starts the iteration over (for a second pass). */
void cmt_dump_rewind(struct cmt_dump *d);
const char *cmt_dump_error(const struct cmt_dump *d);

/* Record type name ("ALLOC", "MODULE_LOAD", ... or NULL). */
const char *cmt_rec_name(unsigned type);
/* Kind name ("device", ... or NULL when out of range). */
const char *cmt_kind_name(uint64_t kind);

#endif
