/*
 * cmt_format.h — the cumemtrack dump format (version 2.3). This comment is the specification.
 *
 * Shared by the tracer (preload/, the only writer) and the analyzer (analyzer/, the reader).
 * tests/unit/test_format.c pins every offset and size below: change them only with a major version bump.
 *
 * FILE
 *   [ file header: CMT_HEADER_SIZE (4096) bytes, struct cmt_file_header ]
 *   [ block 0 ][ block 1 ] ...    each block_size bytes (header field), block i at
 *                                 header_size + i * block_size
 *   All integers are little-endian. The file is written through a MAP_SHARED mapping while the
 *   process runs, so everything written before a kill -9 is in the file. Space is reserved with
 *   posix_fallocate, so unused space reads as zero bytes; a file may end with zero blocks. The
 *   file header's magic is stored last: a file whose magic is still zero is being created.
 *
 * BLOCKS AND STREAMS
 *   Every thread that records events owns a stream ("writer", numbered from 1 per process) and
 *   writes it into blocks it owns alone, one after another. A block starts with struct
 *   cmt_block_header; its magic is stored last, so a block whose magic is not CMT_BLOCK_MAGIC is
 *   unused (skip it). Records follow the block header back to back; a record never straddles
 *   blocks. A record's first byte (its type) is stored last, with release ordering, after the rest
 *   of the record: a zero type byte ends the block (the rest of a block is unused, or the record
 *   being written when the process died). Readers must treat bytes after a zero type as absent.
 *   A writer records into a staging block it reuses (magic CMT_BLOCK_MAGIC_STAGING) and copies it
 *   to a normal block (same writer and index, magic CMT_BLOCK_MAGIC) when it is full; a staging
 *   block whose (writer, index) also exists as a normal block is a stale copy: skip it. Otherwise
 *   a staging block is read like a normal one (it holds the last records of that writer).
 *   A writer may have two staging blocks, with consecutive indexes: when another thread is copying
 *   a block as its own fills, it sets the full one aside (copied later, or never if the process
 *   ends first) and records into its second one. A reader following a dump as it is written (live
 *   view) therefore takes a staging block as complete once the writer's next index exists.
 *
 * ORDERING
 *   Every record carries a sequence number, unique in the process and taken where the ordering is
 *   decided (for a free: before the real free is called, while the pointer is untracked; for an
 *   allocation: after the driver returned, when the pointer is tracked). Within a stream, sequence
 *   numbers increase strictly. The events of a process are read back by merging all streams by
 *   sequence number (a k-way merge over writers, ordering a writer's blocks by their index). Gaps
 *   are normal (a sequence number taken by a thread that then died, or a dropped event).
 *   Definition records (STACK, PYCODE, DEVICE, CTX, MODULE_LOAD) have a smaller sequence number than
 *   any record that refers to them (possibly in another writer's stream), so a single merged pass
 *   sees every definition before its first use.
 *   From 2.2 a sequence number is a hybrid logical clock, not a process-wide counter (no cache line
 *   is shared by all events): seq = clock << CMT_SEQ_SLOT_BITS | slot, where slot (1 ..
 *   2^CMT_SEQ_SLOT_BITS - 1) is the writer's slot: no two running threads hold the same one, except
 *   the last, shared slot, whose numbers are taken with an atomic; a slot that an exiting thread
 *   gave up goes to a new thread together with its last number. clock = max(ns since the process's
 *   tracking started, c + 1 for the clock c of every number this event must follow): the writer's
 *   previous one, the clock of the structure whose lock orders the event (the pointer-table stripe
 *   of the address: an allocation and the free of the same address, on any threads, are ordered;
 *   the VMM table), and the largest definition's (definitions, TEARDOWN and VMM_MAP raise a
 *   process-wide floor before they are published). So numbers are unique, increase within a
 *   stream, order every pair of events that the tracker's own locks order, and otherwise follow the
 *   time (events of different threads that only the application's synchronisation orders are
 *   ordered by their times, whose per-thread clocks agree within microseconds). Readers need not
 *   tell the two kinds of number apart: both merge by sequence number. A writer that would need a
 *   clock of 2^(64 - CMT_SEQ_SLOT_BITS) ns (2.2 years) or more drops its events (dropped_events).
 *
 * RECORD ENCODING
 *   u8 type, varint seq_delta, varint time_delta, [varint payload_len if type >= 0x40], payload.
 *   varint: unsigned LEB128, at most 10 bytes. zvarint: zigzag-encoded signed value in a varint.
 *   seq = previous record's seq in this block + seq_delta (the first record: block base_seq +
 *   seq_delta). time (ns, clock of the header's clock_id) likewise from base_time_ns; a thread's
 *   times never decrease. Every time (the header's start_realtime_ns and start_clock_ns, a block's
 *   base_time_ns, every record's time) lies in [0, CMT_TIME_MAX), so the sum or difference of two
 *   never overflows; a sequence number never passes 2^64 - 1. A reader treats a time outside that
 *   range, or a delta that would carry a seq or time past it, as corruption. Types below 0x40 are core records with the payload layouts below; a
 *   reader that meets an unknown core type must stop (corrupt, or a newer major version). Types
 *   0x40..0x7f carry their payload length and may be skipped by readers that do not know them.
 *   "ptr" fields of core records are zvarint deltas against the previous core ptr field in the same
 *   block (initially 0), modulo 2^64 (the writer subtracts unsigned: any address round-trips);
 *   extension records carry plain varint addresses.
 *   str: varint length, then that many bytes (no NUL). Lengths are bounded by CMT_MAX_STR.
 *
 *   ALLOC      api, kind, flags, zvarint device, ptr, varint size, varint granted (0: = size),
 *              varint stack (0: none), varint ctx (0: none)
 *   FREE       api, flags, zvarint device (as recorded at allocation; -2 when unknown), ptr.
 *              From 2.3 a free of a live allocation takes its place in the order (and its time)
 *              when the real free returned, so the replayed live bytes never fall below what
 *              the driver still held; but when the driver handed the same key to another thread
 *              before the free returned (or a teardown swept the table meanwhile), its place is
 *              just below that reuse's ALLOC (the earliest of the reuses and teardowns that
 *              met it), in the freeing writer's numbering, with that place's time (for a reuse,
 *              the latest place the tracker can prove: the driver released the key before it; a
 *              teardown's sweep places every free in flight it meets just below it, the torn-down
 *              context's or not, except one untracked after the TEARDOWN's number was taken, which
 *              stays after it); where no number is left between the two, the one reserved when the
 *              tracker untracked it, before the real free, with at least that number's time.
 *              Readers need not tell these places apart.
 *   RETRACK    like ALLOC, then varint result: the real free refused (result) the pointer the
 *              previous FREE released; it is live again with these attributes
 *   OOM        api, zvarint device, varint size, varint stack, varint result
 *   FAILED     api, zvarint device, varint size, varint stack, varint result
 *   TEARDOWN   api, zvarint device, varint ctx, flags: every allocation made in context ctx ends
 *              here; what was still live is a leak at teardown. A primary context's teardown
 *              (flag PRIMARY) names that context; ctx 0 (older dumps, or a primary context whose
 *              handle the tracker never saw) ends every allocation made in a context of device.
 *              Allocations recorded with ctx 0 (VMM, host pools) are never ended by a TEARDOWN.
 *              Written after the driver accepted the call (a refused destroy ends nothing).
 *   STACK      varint id, varint nframes, frames: first a varint address, then zvarint deltas (mod 2^64).
 *              Frames are return addresses, innermost first, the tracker's own frames removed.
 *              Then (2.x only; a 1.x STACK ends after its frames and has npy = 0):
 *              varint npy, npy x (varint code, varint line, varint at): the calling thread's
 *              Python frames, innermost first (code: a PYCODE id; line: the line being executed,
 *              0 when unknown; at: see PYTHON FRAMES). npy <= CMT_MAX_FRAMES. Two stacks with
 *              the same native frames but different Python frames are different stacks.
 *   PYCODE     varint id (from 1), varint first_line, str file, str qualname: a Python code
 *              object (co_filename, co_qualname, or co_name before CPython 3.11, co_firstlineno),
 *              defined once per dump before the first STACK that names it (2.x)
 *   DEVICE     zvarint ordinal, varint total_bytes, 16 bytes uuid, str name, str pci_bus_id
 *              (ordinal as the process saw it under CUDA_VISIBLE_DEVICES; uuid is the physical GPU)
 *   CTX        varint ctx (index, from 1), zvarint device, varint handle (the CUcontext value).
 *              An index is reused only after a TEARDOWN ended its context: a later CTX record
 *              with the same index defines a new context from there on.
 *   EXIT       varint how (enum cmt_exit), zvarint status
 *   Extension records (type >= 0x40, skippable):
 *   MODULE_LOAD    varint id, varint base (load bias), str path, str build_id (raw bytes),
 *                  varint nseg, nseg x (varint vaddr, varint memsz, varint flags PF_*)
 *   MODULE_UNLOAD  varint id
 *   POOL           varint handle, varint location_type (CUmemLocationType), zvarint location_id,
 *                  varint op (1 create, 2 destroy)
 *   UNMATCHED_PROC varint version, varint flags, str name: a cuGetProcAddress result that matched
 *                  no known variant and was passed through untracked
 *   VMM_MAP        varint op (1 map, 2 unmap), varint ptr, varint size, varint handle
 *   INFO           str key, str value (warnings and facts: "warning", "libunwind", ...); every
 *                  dump has one "clock": how its times were read ("tsc": the TSC scaled to
 *                  CLOCK_MONOTONIC per thread segment, "monotonic", "coarse"; the times are
 *                  CLOCK_MONOTONIC ns in every case)
 *   MARKER         str label, varint flags (enum cmt_marker_flags), str domain
 *   ALERT          zvarint device, varint live_bytes, varint threshold_bytes, varint caller
 *   EXEC_FAILED    zvarint errno: an exec announced by EXIT(exec) failed; the process goes on
 *   API_NAME       varint id, str name: names the "api" ids used by this dump (the hooked entry
 *                  points, e.g. "cuMemAlloc_v2"); written when the dump is created
 *   SUBALLOC       varint op (enum cmt_suballoc_op), varint heap, varint ptr, varint size,
 *                  varint stack, str name: a pool allocator's own bookkeeping reported through the
 *                  NVTX memory-heap API (heap = the heap's address; regions live inside heaps)
 *   PYTHON         varint state (enum cmt_py_state), varint version, str text (2.3): the
 *                  structured form of the INFO "python" sentence written just before it (version:
 *                  major << 16 | minor << 8 | micro, 0 when unknown; text: the version as the
 *                  tracer read it, at most 32 bytes); readers of older dumps parse the sentence
 *
 * PYTHON FRAMES
 *   When CPython runs in the process the tracer also records, for each stack, the calling thread's
 *   own Python frames (read from its interpreter frame chain, without the GIL). Each Python frame
 *   was run by one invocation of the interpreter's eval loop (_PyEval_EvalFrameDefault), which is
 *   one of the native frames: "at" is the index (0 = innermost) in the STACK's native frames of the
 *   eval-loop frame that ran it, or nframes when that native frame lies beyond the recorded native
 *   frames (depth limit, or no eval-loop frame was found for it). Python frames are innermost
 *   first, so "at" never decreases along them; CPython 3.11+ runs several Python frames in one
 *   eval-loop invocation (they share an "at"), older versions one each. Not every eval-loop
 *   native frame has Python frames (the Python walk may be shorter, CUMEMTRACK_DEPTH bounds both).
 *   A reader interleaves (as py-spy --native does) by walking the native frames innermost first:
 *   native frame i is replaced by the Python frames whose at == i, in their order (a native frame
 *   no Python frame names stays as it is); after the last native frame come the Python frames with
 *   at >= nframes, in their order. Example: native [cudaMalloc, ffi_call, _PyEval_EvalFrameDefault
 *   (1), _PyEval_EvalFrameDefault (2), main], Python [leak at=2, step at=2, main at=3] reads
 *   cudaMalloc <- ffi_call <- leak <- step <- main(py) <- main. A stack whose Python walk stopped
 *   at a frame that did not look right keeps the frames read before it (header counter
 *   python_walk_failed counts such walks). INFO records with key "python" say whether Python
 *   frames are recorded ("CPython 3.11.7: Python frames on") or why not (a version without a frame
 *   layout entry: native-only stacks); from 2.3 a PYTHON record says the same as codes.
 *
 * KEYS
 *   Allocations are keyed by (space, ptr), space = flags & CMT_FLAG_SPACE_MASK: ordinary memory
 *   addresses, array handles, VMM physical allocation handles. A FREE matches the live allocation
 *   with the same key.
 *
 * VERSIONING
 *   version_major changes when any layout here changes meaning; readers reject majors they do not
 *   know. 2.0: STACK gained its Python frames, PYCODE was added (a core record: a 1.x reader must
 *   not skip it), kinds imported and graph, the counters after python_walk_failed, TEARDOWN by
 *   context; the analyzer still reads 1.x dumps (tests/compat/).
 *   version_minor grows when record types or header fields are added at the end; readers accept any
 *   minor of their major (skipping extension records they do not know).
 *   2.1: proc_start_ticks and dump_id take the last 24 bytes of cmdline (1768 -> 1744 bytes). A 2.0
 *   dump's cmdline may run to offset 4096: a reader reads those fields only when version_minor >= 1.
 *   2.2: sequence numbers are hybrid logical clocks (ORDERING); the record layouts are unchanged.
 *   2.3: a FREE's place is when the real free returned (RECORD ENCODING, FREE; the layout is
 *   unchanged); the PYTHON record; the header's exit_status slot (offset 340, reserved0 before:
 *   zero in older dumps). EXIT status: from 2.3 the status as wait() reports it (status & 0xff);
 *   readers show an older dump's status the same way.
 *
 * IDENTITY
 *   A dump is the same dump (a copy, or the same file named twice) as another when host, pid,
 *   start_realtime_ns, start_clock_ns and dump_id are equal (dump_id is zero before 2.1). A process
 *   is still running when its host is this host and a live process with its pid has the same
 *   proc_start_ticks (2.1).
 */
#ifndef CMT_FORMAT_H
#define CMT_FORMAT_H

#include <stdint.h>

#define CMT_MAGIC "CUMEMTRK"
#define CMT_VERSION_MAJOR 2
#define CMT_VERSION_MAJOR_OLDEST 1 /* the oldest major the analyzer still reads */
#define CMT_VERSION_MINOR 3
#define CMT_SEQ_SLOT_BITS 8 /* ORDERING: the low bits of a 2.2 sequence number */
#define CMT_HEADER_SIZE 4096u
#define CMT_BLOCK_SIZE 65536u
#define CMT_BLOCK_MAGIC 0x42544d43u /* "CMTB" */
#define CMT_BLOCK_MAGIC_STAGING 0x53544d43u /* "CMTS": a writer's staging block (see BLOCKS) */
#define CMT_MAX_STR 4096u
#define CMT_MAX_FRAMES 256u
#define CMT_MAX_SEGMENTS 64u

/* Record types: X(NAME, type byte). The one list: the enum below and the reader's names
 * (analyzer/read/reader.c, "ALLOC", "MODULE_LOAD"...) are generated from it. Core types are below
 * CMT_REC_EXT_FIRST; extension types (CMT_REC_EXT_FIRST..CMT_REC_EXT_LAST) carry a length. */
#define CMT_RECORDS(X)                                                                             \
    X(ALLOC, 0x01)                                                                                 \
    X(FREE, 0x02)                                                                                  \
    X(RETRACK, 0x03)                                                                               \
    X(OOM, 0x04)                                                                                   \
    X(FAILED, 0x05)                                                                                \
    X(TEARDOWN, 0x06)                                                                              \
    X(STACK, 0x07)                                                                                 \
    X(DEVICE, 0x08)                                                                                \
    X(CTX, 0x09)                                                                                   \
    X(EXIT, 0x0a)                                                                                  \
    X(PYCODE, 0x0b)                                                                                \
    X(MODULE_LOAD, 0x40)                                                                           \
    X(MODULE_UNLOAD, 0x41)                                                                         \
    X(POOL, 0x42)                                                                                  \
    X(UNMATCHED_PROC, 0x43)                                                                        \
    X(VMM_MAP, 0x44)                                                                               \
    X(INFO, 0x45)                                                                                  \
    X(MARKER, 0x46)                                                                                \
    X(ALERT, 0x47)                                                                                 \
    X(EXEC_FAILED, 0x48)                                                                           \
    X(API_NAME, 0x49)                                                                              \
    X(SUBALLOC, 0x4a)                                                                              \
    X(PYTHON, 0x4b)

enum cmt_rec {
#define CMT_REC_ENUM(name, type) CMT_REC_##name = type,
    CMT_RECORDS(CMT_REC_ENUM)
#undef CMT_REC_ENUM
    CMT_REC_EXT_FIRST = 0x40,
    CMT_REC_EXT_LAST = 0x7f,
};

/* Allocation kinds (ALLOC.kind); names are cmt_kind_names[]. New kinds are appended.
 * IMPORTED (2.0): memory another process allocated, mapped into this one: cuIpcOpenMemHandle
 * (space ADDR: the mapped address, size of the mapping, ended by cuIpcCloseMemHandle; nested
 * opens of one handle are recorded once) and cuMemImportFromShareableHandle (space VMM: the
 * handle, recorded at its first cuMemMap with that mapping's size, ended like a VMM handle). It is
 * not this process's allocation: readers keep it out of this process's leaks and peaks.
 * GRAPH (2.0): the allocation of a graph memory node (cuGraphAddMemAllocNode, cuGraphAddNode,
 * or a stream-ordered allocation captured into a graph), recorded when a launch of the graph
 * reaches it (at the node's fixed address, with the stack of the node's creation or of the
 * capture, ctx 0) and ended by a FREE: a free node in a launch, cuMemFree/cuMemFreeAsync outside
 * the graph, or the next launch of an executable instantiated with AUTO_FREE_ON_LAUNCH. A launch's
 * ALLOC and FREE records follow a topological order of the graph's edges (a free node an alloc
 * node depends on comes first); the record layouts are unchanged. Destroying the graph or its
 * executable does not end it. */
#define CMT_KINDS(X)                                                                               \
    X(DEVICE, "device")                                                                            \
    X(PITCH, "pitch")                                                                              \
    X(MANAGED, "managed")                                                                          \
    X(ASYNC, "async")                                                                              \
    X(HOST_PINNED, "host-pinned")                                                                  \
    X(HOST_REGISTERED, "host-registered")                                                          \
    X(VMM, "vmm")                                                                                  \
    X(ARRAY, "array")                                                                              \
    X(IMPORTED, "imported") /* another process's memory mapped here (IPC, shareable handle) */   \
    X(GRAPH, "graph")       /* graph memory: a graph memory node's allocation, live from a launch */

enum cmt_kind {
#define CMT_KIND_ENUM(id, name) CMT_KIND_##id,
    CMT_KINDS(CMT_KIND_ENUM)
#undef CMT_KIND_ENUM
        CMT_KIND_COUNT
};

/* ALLOC/FREE/TEARDOWN flags. */
enum cmt_flags {
    CMT_FLAG_SPACE_MASK = 0x3,     /* key space: */
    CMT_SPACE_ADDR = 0x0,          /*   a memory address */
    CMT_SPACE_ARRAY = 0x1,         /*   a CUarray / CUmipmappedArray handle */
    CMT_SPACE_VMM = 0x2,           /*   a CUmemGenericAllocationHandle */
    CMT_FLAG_CAPTURED = 0x4,       /* made during stream capture: a graph node, never live */
    CMT_FLAG_UNKNOWN = 0x8,        /* FREE: the tracker had no live allocation for this key */
    CMT_FLAG_PRIMARY = 0x10,       /* TEARDOWN: of a primary context */
    CMT_FLAG_AT_EXIT = 0x20,       /* TEARDOWN: after the process's EXIT record */
    CMT_FLAG_PER_THREAD = 0x40,    /* the call was a _ptsz/_ptds variant */
};

enum cmt_exit {
    CMT_EXIT_CLEAN = 1,          /* exit() or return from main */
    CMT_EXIT_IMMEDIATE = 2,      /* _exit() / _Exit() */
    CMT_EXIT_EXEC = 3,           /* replaced by exec */
};

/* The header's exit_status slot (2.3): 0 until the process ends; then, with one store when the
 * EXIT record is written (whether or not the record found room), CMT_EXIT_SLOT_SET | how << 8 |
 * status (0..255, as wait() reports it). A reader takes it when the dump has no EXIT record. */
#define CMT_EXIT_SLOT_SET 0x80000000u
#define CMT_EXIT_SLOT(how, status) (CMT_EXIT_SLOT_SET | ((uint32_t)(how) & 0xffu) << 8 | ((uint32_t)(status) & 0xffu))

/* PYTHON.state (2.3): whether the tracer records Python frames, and why not. */
#define CMT_PY_STATES(X)                                                                           \
    X(ON, 1)            /* Python frames on */                                                     \
    X(NO_LAYOUT, 2)     /* off: the CPython version has no frame layout entry in the tracer */     \
    X(NO_SYMBOLS, 3)    /* off: the CPython lacks the symbols the walk needs */                    \
    X(OBJECT_LAYOUT, 4) /* off: an object layout the tracer does not know (free-threaded, debug) */ \
    X(ON_NO_EVAL, 5)    /* on, but the eval loop was not found: Python frames after native ones */

enum cmt_py_state {
#define CMT_PY_STATE_ENUM(id, v) CMT_PY_##id = v,
    CMT_PY_STATES(CMT_PY_STATE_ENUM)
#undef CMT_PY_STATE_ENUM
};

enum cmt_suballoc_op {
    CMT_SUB_HEAP_REGISTER = 1,   /* ptr, size: the heap's memory; name: its NVTX message */
    CMT_SUB_HEAP_UNREGISTER = 2, /* every region of the heap ends */
    CMT_SUB_HEAP_RESET = 3,      /* likewise, the heap stays */
    CMT_SUB_REGION_REGISTER = 4, /* ptr, size, stack */
    CMT_SUB_REGION_UNREGISTER = 5,
    CMT_SUB_REGION_RESIZE = 6,   /* ptr, new size */
};

enum cmt_marker_flags {
    CMT_MARK_POINT = 0,
    CMT_MARK_RANGE_PUSH = 1,
    CMT_MARK_RANGE_POP = 2,
    CMT_MARK_SIGNAL = 3,
};
/* The domain of the range markers that bracket one test (cmt_test_begin / cmt_test_end): the
 * analyzer's per-test view (analyzer/pertest.h). */
#define CMT_TEST_DOMAIN "cumemtrack.test"

/* Counters kept in the file header, updated atomically while the process runs. */
#define CMT_COUNTERS(X)                                                                            \
    X(DROPPED_EVENTS, "dropped_events")       /* events not written (disk full, limit, no memory) */ \
    X(DROPPED_STACKS, "dropped_stacks")       /* stacks not stored (stack table full/no memory) */   \
    X(TABLE_FULL, "table_full")               /* allocations the pointer table could not hold */     \
    X(WRITE_STOPPED, "write_stopped")         /* 1 when writing stopped (disk full, size limit) */   \
    X(UNMATCHED_PROC, "unmatched_proc")       /* cuGetProcAddress results passed through */          \
    X(DEEPBIND_STRIPPED, "deepbind_stripped") /* dlopen calls whose RTLD_DEEPBIND was removed */     \
    X(UNWIND_FAILED, "unwind_failed")         /* stacks that could not be captured */          \
    X(PYTHON_WALK_FAILED, "python_walk_failed") /* Python walks ended at a frame that looked wrong */ \
    X(CTX_TABLE_FULL, "ctx_table_full")       /* contexts the context table could not hold */  \
    X(POOL_TABLE_FULL, "pool_table_full")     /* pools the pool table could not hold */        \
    X(VMM_UNDO_FULL, "vmm_undo_full")         /* VMM undo records not kept (refusal lost) */

enum cmt_counter {
#define CMT_COUNTER_ENUM(id, name) CMT_CTR_##id,
    CMT_COUNTERS(CMT_COUNTER_ENUM)
#undef CMT_COUNTER_ENUM
        CMT_CTR_COUNT
};
#define CMT_MAX_COUNTERS 32
/* A counter counts events of one process: above CMT_COUNTER_MAX (2^40, a million million calls)
 * it is corruption, and so is write_stopped above 1. Readers check the counters they know. */
#define CMT_COUNTER_MAX ((uint64_t)1 << 40)

#define CMT_CLOCK_MONOTONIC 1
#define CMT_TIME_MAX ((int64_t)1 << 62) /* ns: 146 years; every time lies in [0, CMT_TIME_MAX) */

struct cmt_file_header {
    char magic[8];              /*    0 "CUMEMTRK" */
    uint16_t version_major;     /*    8 */
    uint16_t version_minor;     /*   10 */
    uint32_t header_size;       /*   12 CMT_HEADER_SIZE */
    uint32_t block_size;        /*   16 CMT_BLOCK_SIZE */
    uint32_t flags;             /*   20 reserved, 0 */
    uint32_t pid;               /*   24 */
    uint32_t ppid;              /*   28 */
    uint32_t clock_id;          /*   32 CMT_CLOCK_MONOTONIC */
    int32_t rank;               /*   36 -1 when unknown */
    int32_t local_rank;         /*   40 -1 when unknown */
    int32_t world_size;         /*   44 -1 when unknown */
    uint32_t stack_depth;       /*   48 CUMEMTRACK_DEPTH in effect (0: no stacks) */
    uint32_t stacks_available;  /*   52 1 when libunwind was loaded */
    int64_t start_realtime_ns;  /*   56 CLOCK_REALTIME at start */
    int64_t start_clock_ns;     /*   64 the record clock at the same instant */
    uint64_t counters[CMT_MAX_COUNTERS]; /* 72 enum cmt_counter, atomically updated */
    uint64_t blocks_used;       /*  328 blocks handed out (advisory; readers scan) */
    uint32_t cmdline_len;       /*  336 bytes used in cmdline */
    uint32_t exit_status;       /*  340 (2.3) CMT_EXIT_SLOT(how, status) once the process ended; 0 before */
    char host[256];             /*  344 NUL-terminated strings from here on */
    char job_id[128];           /*  600 SLURM_JOB_ID or TORCHELASTIC_RUN_ID */
    char cuda_visible_devices[512]; /* 728 "\x01unset" when unset */
    char cuda_device_order[64]; /* 1240 */
    char exe[1024];             /* 1304 /proc/self/exe */
    char cmdline[1744];         /* 2328 arguments, NUL-separated (cmdline_len bytes); 1768 bytes in 2.0 */
    uint64_t proc_start_ticks;  /* 4072 (2.1) the process's start time: field 22 of /proc/PID/stat (clock
                                   ticks since boot); 0 when unknown */
    uint8_t dump_id[16];        /* 4080 (2.1) random bytes chosen when the dump was created (never all zero) */
    /* 4096 */
};

struct cmt_block_header {
    uint32_t magic;        /*  0 CMT_BLOCK_MAGIC, stored last */
    uint32_t writer;       /*  4 stream id, from 1 */
    uint32_t index;        /*  8 n-th block of this writer, from 0 */
    uint32_t tid;          /* 12 kernel thread id of the writer */
    uint64_t base_seq;     /* 16 */
    int64_t base_time_ns;  /* 24 */
    /* 32 */
};

#define CMT_UNSET_MARK "\x01unset"

#ifdef __cplusplus
static_assert(sizeof(struct cmt_file_header) == CMT_HEADER_SIZE, "header size");
#else
_Static_assert(sizeof(struct cmt_file_header) == CMT_HEADER_SIZE, "header size");
_Static_assert(sizeof(struct cmt_block_header) == 32, "block header size");
#endif

#endif
