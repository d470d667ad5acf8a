/*
 * replay.h — replays the merged events of one process (reader.h): live allocations keyed
 * by (space, ptr), per-device live/peak bytes with the top stacks live at each peak (snapshotted
 * lazily, exact), the process's GPU live/peak bytes (all its devices together, exact), leaks at
 * teardown/exit/death, OOM snapshots, anomalies, and the definition tables (stacks, devices,
 * contexts, modules, api names). Markers go to growth.h, NVTX heaps to heaps.h; an observer
 * (timeline.h) is told every change of live bytes. replay.c applies records, replay_dump.c drives
 * a whole dump. Streaming: memory grows with live allocations and distinct stacks, never with the
 * number of events. Running out of memory is counted (out_of_memory).
 */
#ifndef CMT_REPLAY_H
#define CMT_REPLAY_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "growth.h"
#include "pertest.h"
#include "reader.h"
#include "util.h"

enum cmt_leak_at { CMT_AT_EXIT = 0, CMT_AT_TEARDOWN = 1, CMT_AT_DIED = 2 };
const char *cmt_leak_at_name(int at);
/* The same in words, for text: "at exit", "at context teardown", "when it died". */
const char *cmt_leak_at_phrase(int at);

#define CMT_TOP_ALL ((size_t)-1) /* a top_n that keeps every stack */

struct cmt_stack_bytes {
    uint64_t stack; /* stack id (0: none) */
    uint64_t bytes, allocations;
};

struct cmt_stack {
    uint64_t id;
    uint32_t nframes;
    const uint64_t *frames; /* return addresses, innermost first */
    uint32_t npy;
    const struct cmt_pyframe_rec *py; /* Python frames, innermost first (reader.h) */
    uint64_t mod_epoch;               /* the module map it resolves against: cmt_replay.mod_events at its STACK */
};

/* A Python code object (PYCODE record) of the process, copied out of the dump. */
struct cmt_replay_pycode {
    char *file, *name;
    uint64_t first_line;
};

struct cmt_module {
    uint64_t id, base;
    char *path;
    uint8_t *build_id;
    size_t build_id_len;
    uint32_t nseg;
    struct cmt_segment *segs;
    int unloaded;
    /* the module map's history (cmt_replay.mod_events): mapped from loaded_at, up to unloaded_at
     * (0: never unloaded) */
    uint64_t loaded_at, unloaded_at;
};

struct cmt_devstate {
    int64_t ordinal;
    int has_info;
    uint8_t uuid[16];
    char name[256], pci[64];
    uint64_t total;
    uint64_t allocations, frees, live, live_count, peak;
    int64_t peak_time;
    uint64_t peak_seq;
    uint64_t observed_live; /* live bytes at the last CMT_CHANGE_LIVE */
    uint64_t leaked_bytes, leaked_allocations;
    /* top stacks live at the peak (drawn by cmt_replay_finish) */
    struct cmt_stack_bytes *peak_top;
    size_t npeak_top;
    uint64_t snap_epoch; /* replay.c: the peaks so far (the counters keep their value at the last) */
};

struct cmt_leak {
    int64_t device; /* -1: host */
    uint64_t kind, stack;
    int at; /* enum cmt_leak_at */
    uint64_t bytes, requested, allocations;
};

struct cmt_oom {
    int64_t device;
    uint64_t requested, stack, api, seq;
    int64_t time_ns;
    uint64_t live_bytes; /* that device's live bytes then */
    size_t nlive;
    int64_t *live_dev; /* every device of the process */
    uint64_t *live_bytes_dev;
    struct cmt_stack_bytes *top; /* top live stacks on that device then */
    size_t ntop;
};

enum cmt_anomaly {
    CMT_AN_UNKNOWN_FREE,
    CMT_AN_DOUBLE_FREE,
    CMT_AN_FAILED_FREE,
    CMT_AN_FAILED_CALLS,
    CMT_AN_DROPPED_EVENTS,
    CMT_AN_DROPPED_STACKS,
    CMT_AN_TABLE_FULL,
    CMT_AN_TRUNCATED_DUMPS,
    CMT_AN_UNREADABLE_DUMPS, /* counted by the analysis: dumps left out (analysis.h unreadable[]) */
    CMT_AN_DIED_PROCESSES,
    CMT_AN_RUNNING_PROCESSES, /* counted by the analysis (running.h) */
    CMT_AN_UNMATCHED_PROC,
    CMT_AN_CAPTURED_ALLOCATIONS,
    CMT_AN_COUNT
};
extern const char *const cmt_anomaly_names[CMT_AN_COUNT];

struct cmt_replay_live; /* internal tables */
struct cmt_replay;

/* What the replay tells its observer, as it applies the records. Host memory (device -1) changes no
 * GPU counter. */
enum cmt_change_kind {
    CMT_CHANGE_STACK,    /* the bytes of one (stack, device) counter rose (up) or fell: an allocation
                            began (ALLOC, RETRACK) or ended (FREE, TEARDOWN, reallocated unseen) */
    CMT_CHANGE_LIVE,     /* a GPU's live bytes differ from the last LIVE change, after a record */
    CMT_CHANGE_OOM,      /* an OOM record */
    CMT_CHANGE_MARKER,   /* a MARKER record (every kind, range pops included) */
    CMT_CHANGE_SUBALLOC, /* a SUBALLOC record (an NVTX memory heap or region: heaps.h) */
};

struct cmt_live_change {
    enum cmt_change_kind kind;
    uint8_t record;                 /* the record type that caused it */
    size_t proc;                    /* the replay's observer_id */
    int64_t time_ns;                /* the record's time (dump clock) */
    int64_t device;                 /* -1: host memory (OOM) or none (MARKER) */
    const struct cmt_devstate *dev; /* that GPU, NULL for host / none */
    uint64_t live;                  /* LIVE: the GPU's live bytes now; OOM: that device's then */
    uint64_t stack;                 /* STACK, OOM */
    uint64_t stack_bytes;           /* STACK: the counter now */
    int up;                         /* STACK: 1 rose, 0 fell */
    uint64_t ptr, granted;          /* STACK: the allocation that began or ended: address, bytes */
    int at;                         /* STACK that fell: -1 freed, else a leak (enum cmt_leak_at) */
    uint64_t requested;             /* OOM; STACK: the allocation's requested bytes */
    const char *label;              /* OOM: the API name (may be NULL); MARKER: the label */
    size_t label_len;
    const char *api;    /* LIVE, OOM: the API of the record (NULL: none or unknown) */
    uint64_t size;      /* LIVE after an ALLOC: its size; OOM: the request; else 0 */
    uint64_t mark_kind; /* MARKER: enum cmt_marker_flags (a RANGE_POP closes its thread's latest push) */
    uint32_t writer;    /* MARKER: the stream (thread) that recorded it: NVTX ranges nest per thread */
    uint64_t op, heap;  /* SUBALLOC: enum cmt_suballoc_op, the heap (ptr, size, stack: the record's) */
};

typedef void (*cmt_observer)(void *arg, const struct cmt_replay *r, const struct cmt_live_change *c);

/* Memory another process allocated, mapped into this one (kind imported): kept out of the live
 * table, so never in this process's leaks, peaks or OOM snapshots. */
struct cmt_imported {
    int64_t device;
    uint64_t space, ptr, bytes;
    int open; /* not released (yet, or at the end) */
};

struct cmt_replay {
    size_t top_n;          /* stacks kept per peak / OOM snapshot */
    cmt_observer observer; /* told about live changes, OOMs and markers (may be NULL) */
    void *observer_arg;
    size_t observer_id;         /* passed as change.proc */
    _Atomic uint64_t *progress; /* may be NULL: events replayed are added to it, 65536 at a time */

    uint64_t events;
    int64_t first_time, last_time;
    int have_exit;
    uint64_t exit_how;
    int64_t exit_status;
    uint64_t anomalies[CMT_AN_COUNT];
    uint64_t unmatched_records;
    uint64_t out_of_memory; /* records whose effect was lost for lack of memory: figures are wrong */

    struct cmt_devstate *devs; /* GPUs (ordinal >= 0), sorted by ordinal after cmt_replay_finish */
    size_t ndevs;
    uint64_t gpu_live, gpu_peak; /* GPU bytes live now over all devs, and the most at one moment */
    uint64_t host_live, host_peak, host_leaked, host_leaked_allocations, host_allocations, host_frees;

    struct cmt_leak *leaks;
    size_t nleaks;
    struct cmt_oom *ooms;
    size_t nooms;
    struct cmt_module *mods;
    size_t nmods;
    uint64_t mod_events;           /* MODULE_LOAD and MODULE_UNLOAD records so far */
    struct cmt_marker_log marks;   /* markers and the stacks growing across them (growth.h) */
    struct cmt_tests tests;        /* the tests of a test runner (pertest.h) */
    struct cmt_heaps *heaps;       /* NVTX memory heaps (heaps.h), NULL until one is seen */
    struct cmt_imported *imported; /* in order of import */
    size_t nimported, capimported;
    char *python_info; /* the last INFO "python" note (NUL-terminated copy), NULL when none: whether
                          the tracer recorded Python frames ("CPython 3.7.16 has no frame layout ...") */
    /* the same as codes, from the PYTHON record that follows it (2.3): python_state 0 when the dump
     * has none (older dumps: read python_info); python_text the version as the tracer read it */
    uint64_t python_state, python_version;
    char python_text[40];

    struct cmt_replay_live *t; /* internal */
};

/* Initialises r (top_n stacks per snapshot, 0 means 10, CMT_TOP_ALL every stack). */
int cmt_replay_init(struct cmt_replay *r, size_t top_n);
/* Applies one event. */
void cmt_replay_event(struct cmt_replay *r, const struct cmt_event *ev);
/* Ends the stream: what is live becomes a leak ("exit", or "died" when no EXIT was seen). */
void cmt_replay_finish(struct cmt_replay *r);
/* Before cmt_replay_finish: a dump without an EXIT record whose header's exit_status slot (2.3) was
 * set ended that way (its EXIT record found no room). */
void cmt_replay_exit_slot(struct cmt_replay *r, const struct cmt_file_header *h);
void cmt_replay_free(struct cmt_replay *r);
/* After the stream (cmt_replay_dump done): frees the tables only events need (live and recently
 * freed pointers), keeping the summaries, stacks and definitions; no more events may follow. */
void cmt_replay_trim(struct cmt_replay *r);

/* Replays a whole dump, in one pass. Returns 0, or -1 when the dump is corrupt (cmt_dump_error). */
int cmt_replay_dump(struct cmt_replay *r, struct cmt_dump *d);

/* The stack with the most bytes live on device now (the smallest id among equals); 0 and *bytes 0
 * when nothing is live there. Scans every (stack, device) counter: for occasional questions. */
uint64_t cmt_replay_top_stack(const struct cmt_replay *r, int64_t device, uint64_t *bytes);
const struct cmt_stack *cmt_replay_stack(const struct cmt_replay *r, uint64_t id);
/* The Python code object id of the process (NULL when never defined). */
const struct cmt_replay_pycode *cmt_replay_pycode(const struct cmt_replay *r, uint64_t id);
const struct cmt_devstate *cmt_replay_device(const struct cmt_replay *r, int64_t ordinal);
const char *cmt_replay_api_name(const struct cmt_replay *r, uint64_t api); /* NULL if unnamed */
/* The one device label: "GPU-..." of a device into buf (>= 48 bytes), NULL when it is unknown
 * (no DEVICE record, host memory: device < 0). */
const char *cmt_device_uuid(const struct cmt_devstate *d, char *buf);
const char *cmt_replay_uuid(const struct cmt_replay *r, int64_t device, char *buf);
int64_t cmt_replay_ctx_device(const struct cmt_replay *r, uint64_t ctx); /* -2 if unknown */

#endif
