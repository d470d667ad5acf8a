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

/* One Python frame of a STACK record (2.x): a PYCODE id, the line, the native frame it replaces
 * (see PYTHON FRAMES in cmt_format.h). */
struct cmt_pyframe_rec {
    uint64_t code, line, at;
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
    const uint64_t *frames;           /* STACK: nframes addresses (owned by the reader, valid with the event) */
    uint32_t npy;                     /* STACK: Python frames, innermost first (0 in 1.x dumps) */
    const struct cmt_pyframe_rec *py; /* npy frames (owned by the reader, valid with the event) */
    uint64_t first_line;              /* PYCODE (id in id, file in str1, qualified name in str2) */
    /* DEVICE */
    uint64_t total; /* total_bytes */
    uint8_t uuid[16];
    const char *str1, *str2; /* DEVICE name/pci; MODULE path/build_id; INFO key/value; MARKER
                                label/domain; UNMATCHED_PROC name; API_NAME name; SUBALLOC name */
    size_t str1_len, str2_len;
    uint64_t handle; /* CTX: the CUcontext; VMM_MAP: the allocation handle */
    uint64_t op;     /* VMM_MAP, POOL, SUBALLOC: the operation (enum cmt_sub_op for SUBALLOC);
                        PYTHON: the state (enum cmt_py_state; version: the CPython version, str1 its text) */
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

/* Header fields by version (cmt_format.h VERSIONING): whether proc_start_ticks and dump_id are
 * there (2.1 on), and the bytes cmdline may use from its offset (1744 from 2.1, 1768 before). */
int cmt_header_has_identity(const struct cmt_file_header *h);
size_t cmt_header_cmdline_cap(const struct cmt_file_header *h);
/* Reads the file header of path into *h (fields a version lacks zeroed): 0, or -1 when the file
 * cannot be read or does not start with a dump header of a known major. */
int cmt_dump_read_header(const char *path, struct cmt_file_header *h);
/* Whether two headers identify the same dump (cmt_format.h IDENTITY). */
int cmt_header_same_dump(const struct cmt_file_header *a, const struct cmt_file_header *b);

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
/* cmt_dump_next that may decode the record into the caller's slot: an ALLOC or FREE that follows the
 * previous record in its writer's block (nearly all of them) is written straight into the fields of
 * *slot up to result (CMT_EVENT_HOT_SIZE; the other fields of *slot are left as they were: nobody
 * reads them for those types) and *ev is slot; any other record is returned as cmt_dump_next returns
 * it (*ev points into the reader). Same records, same order as cmt_dump_next. */
int cmt_dump_next_hot(struct cmt_dump *d, struct cmt_event *slot, const struct cmt_event **ev);
/* Up to max records of cmt_dump_next_hot's usual case (an ALLOC or FREE that follows the previous
 * record in its writer's block), decoded as it decodes them into slots[0], slots[1], ...: the
 * records cmt_dump_next would return next, in its order. Returns how many (0: none of them next;
 * cmt_dump_next_hot reads the next record, whatever it is). */
size_t cmt_dump_next_hot_run(struct cmt_dump *d, struct cmt_event *slots, size_t max);
/* ALLOC, FREE and RETRACK carry nothing past result: these first bytes of an event hold them. */
#define CMT_EVENT_HOT_SIZE offsetof(struct cmt_event, id)

/* Copies the fields of e up to result into c, field by field, each through a register: a load of
 * the same size as the store that wrote the field (the reader, just before) is forwarded from the
 * store buffer, where memcpy's 16-byte loads across two 8-byte stores stalled until the stores
 * reached the cache. */
#define CMT_HOT_FIELD(c, e, f)                                                                                         \
    do {                                                                                                               \
        __typeof__((e)->f + 0) v_ = (e)->f;                                                                            \
        __asm__("" : "+r"(v_));                                                                                        \
        (c)->f = v_;                                                                                                   \
    } while (0)
static inline void cmt_event_copy_hot(struct cmt_event *c, const struct cmt_event *e) {
    _Static_assert(offsetof(struct cmt_event, result) + sizeof e->result == CMT_EVENT_HOT_SIZE,
                   "cmt_event_copy_hot copies every field before id");
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

/* Starts the iteration over (for a second pass). */
void cmt_dump_rewind(struct cmt_dump *d);
const char *cmt_dump_error(const struct cmt_dump *d);

/* A Python code object (PYCODE record) met so far in the merged iteration: NULL when id is not
 * defined yet. Strings point into the mapping (valid while the dump is open). */
struct cmt_pycode {
    const char *file, *name;
    size_t file_len, name_len;
    uint64_t first_line;
};
const struct cmt_pycode *cmt_dump_pycode(const struct cmt_dump *d, uint64_t id);
#define CMT_MAX_PYCODES (1u << 20) /* PYCODE ids above are corrupt */

/* A stack's frames, tagged native or Python, interleaved as cmt_format.h (PYTHON FRAMES) says:
 * the eval-loop native frame that ran Python frames is replaced by them (keep_eval: kept right
 * after them, flagged eval). out must hold nframes + npy frames; returns how many were written.
 * The one place that interleaves: every consumer of stacks with Python frames calls it. */
enum cmt_frame_kind { CMT_FRAME_NATIVE, CMT_FRAME_PYTHON };
struct cmt_frame {
    enum cmt_frame_kind kind;
    int eval;      /* native: an eval-loop frame whose Python frames come just before it */
    uint64_t addr; /* native: return address */
    uint64_t code; /* python: PYCODE id */
    uint64_t line; /* python: line (0: unknown) */
};
size_t cmt_stack_frames(const struct cmt_event *stack, struct cmt_frame *out, size_t max, int keep_eval);

/* Follow mode: a dump still being written (`top`, `timeline --follow`). Reads only what was written
 * since the last poll: new blocks, and the records a writer added to its staging block (up to the
 * last complete record: a zero type byte ends what is valid). Takes no lock and writes nothing, so
 * the tracer never waits on it. cmt_dump_next returns 0 when the records so far are read;
 * cmt_dump_poll then looks again (call it only when cmt_dump_next returned 0): 0, or -1 when corrupt.
 * Records come merged by sequence number, each once, in the order a whole-file read gives: a record
 * is returned from the first poll after the previous poll's time (records carry CLOCK_MONOTONIC
 * times, taken with their sequence numbers: a writer may still be finishing an earlier one), so a
 * follower lags one poll; final (the writer is gone, or on another host, or a one-time snapshot)
 * returns everything. The open scans the dump but is no previous poll: the first cmt_dump_poll
 * returns records only when final (a record timed before the open may still be being written when
 * a caller polls right after it).
 * Event strings are valid until the next cmt_dump_next (the PYCODE table keeps copies).
 * cmt_dump_rewind is not for follow mode. */
struct cmt_dump *cmt_dump_open_follow(const char *path, char *err, size_t errlen);
/* 1 when path is a file whose header is not written yet (its magic, written last, still zero): a
 * dump being created, to be tried again later rather than reported unreadable. */
int cmt_dump_being_created(const char *path);
int cmt_dump_poll(struct cmt_dump *d, int final);
int cmt_dump_following(const struct cmt_dump *d);

/* Record type name ("ALLOC", "MODULE_LOAD", ... or NULL). */
const char *cmt_rec_name(unsigned type);
/* Kind name ("device", ... or NULL when out of range). */
const char *cmt_kind_name(uint64_t kind);

#endif
