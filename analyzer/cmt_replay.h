/*
 * cmt_replay.h — replays the merged events of one process (cmt_reader.h): live allocations keyed
 * by (space, ptr), per-device live/peak bytes with the top stacks live at each peak (snapshotted
 * lazily, exact), leaks at teardown/exit/death, OOM snapshots, anomalies, and the definition
 * tables (stacks, devices, contexts, modules, api names). Streaming: memory grows with live
 * allocations and distinct stacks, never with the number of events.
 */
#ifndef CMT_REPLAY_H
#define CMT_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "cmt_reader.h"

enum cmt_leak_at { CMT_AT_EXIT = 0, CMT_AT_TEARDOWN = 1, CMT_AT_DIED = 2 };
const char *cmt_leak_at_name(int at);

struct cmt_stack_bytes {
    uint64_t stack; /* stack id (0: none) */
    uint64_t bytes, allocations;
};

struct cmt_stack {
    uint64_t id;
    uint32_t nframes;
    const uint64_t *frames; /* return addresses, innermost first */
};

struct cmt_module {
    uint64_t id, base;
    char *path;
    uint8_t *build_id;
    size_t build_id_len;
    uint32_t nseg;
    struct cmt_segment *segs;
    int unloaded;
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
    uint64_t leaked_bytes, leaked_allocations;
    /* top stacks live at the peak */
    struct cmt_stack_bytes *peak_top;
    size_t npeak_top;
    uint64_t snap_seq, snap_peak;
    int snap_pending, has_snap;
};

struct cmt_leak {
    int64_t device; /* -1: host */
    uint64_t kind, stack;
    int at;         /* enum cmt_leak_at */
    uint64_t bytes, requested, allocations;
};

struct cmt_oom {
    int64_t device;
    uint64_t requested, stack, api, seq;
    int64_t time_ns;
    uint64_t live_bytes;        /* that device's live bytes then */
    size_t nlive;
    int64_t *live_dev;          /* every device of the process */
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
    CMT_AN_DIED_PROCESSES,
    CMT_AN_UNMATCHED_PROC,
    CMT_AN_CAPTURED_ALLOCATIONS,
    CMT_AN_COUNT
};
extern const char *const cmt_anomaly_names[CMT_AN_COUNT];

/* A marker (cmt_mark, the marker signal, an NVTX mark or range push) with the live bytes of every
 * device of the process at that moment (device -1: host memory). */
struct cmt_marker_rec {
    char *label, *domain;
    uint64_t flags; /* enum cmt_marker_flags */
    int64_t time_ns;
    uint64_t seq;
    size_t ndev;
    int64_t *dev;
    uint64_t *live;
};

/* A stack whose live bytes grow across consecutive markers of one label: the leak-per-iteration
 * finder. bytes_per_marker = (last - first) / (markers - 1). */
struct cmt_growth {
    const char *label; /* owned by the replay */
    uint64_t flags;    /* the markers' kind */
    uint64_t stack;
    int64_t device;
    uint64_t first_bytes, last_bytes, markers;
    double bytes_per_marker;
};
#define CMT_MAX_MARKERS 100000

struct cmt_replay_live; /* internal tables */
struct cmt_replay;

typedef void (*cmt_event_hook)(void *arg, const struct cmt_event *ev, const struct cmt_replay *r);

/* Memory another process allocated, mapped into this one (kind imported): kept out of the live
 * table, so never in this process's leaks, peaks or OOM snapshots. */
struct cmt_imported {
    int64_t device;
    uint64_t space, ptr, bytes;
    int open; /* not released (yet, or at the end) */
};

struct cmt_replay {
    size_t top_n;             /* stacks kept per peak / OOM snapshot */
    cmt_event_hook hook;      /* called after each event is applied (may be NULL) */
    void *hook_arg;

    uint64_t events;
    int64_t first_time, last_time;
    int have_exit;
    uint64_t exit_how;
    int64_t exit_status;
    uint64_t anomalies[CMT_AN_COUNT];
    uint64_t unmatched_records;

    struct cmt_devstate *devs; /* GPUs (ordinal >= 0), sorted by ordinal after cmt_replay_finish */
    size_t ndevs;
    uint64_t host_live, host_peak, host_leaked, host_leaked_allocations, host_allocations, host_frees;

    struct cmt_leak *leaks;
    size_t nleaks;
    struct cmt_oom *ooms;
    size_t nooms;
    struct cmt_module *mods;
    size_t nmods;
    struct cmt_marker_rec *markers; /* in order; at most CMT_MAX_MARKERS kept */
    size_t nmarkers;
    uint64_t markers_dropped;
    struct cmt_growth *growth; /* sorted by bytes_per_marker, largest first */
    size_t ngrowth;
    struct cmt_pools *pools;   /* NVTX memory heaps (cmt_pools.h), NULL until one is seen */
    struct cmt_imported *imported; /* in order of import */
    size_t nimported, capimported;

    struct cmt_replay_live *t; /* internal */
};

/* Initialises r (top_n stacks per snapshot, 0 means 10). */
int cmt_replay_init(struct cmt_replay *r, size_t top_n);
/* Applies one event. */
void cmt_replay_event(struct cmt_replay *r, const struct cmt_event *ev);
/* Ends the stream: what is live becomes a leak ("exit", or "died" when no EXIT was seen). */
void cmt_replay_finish(struct cmt_replay *r);
void cmt_replay_free(struct cmt_replay *r);
/* After the stream (cmt_replay_dump done): frees the tables only events need (live and recently
 * freed pointers), keeping the summaries, stacks and definitions; no more events may follow. */
void cmt_replay_trim(struct cmt_replay *r);

/* Replays a whole dump: two passes only when a peak snapshot must be redone exactly. Returns 0,
 * or -1 when the dump is corrupt (cmt_dump_error). */
int cmt_replay_dump(struct cmt_replay *r, struct cmt_dump *d);

const struct cmt_stack *cmt_replay_stack(const struct cmt_replay *r, uint64_t id);
const struct cmt_devstate *cmt_replay_device(const struct cmt_replay *r, int64_t ordinal);
const char *cmt_replay_api_name(const struct cmt_replay *r, uint64_t api); /* NULL if unnamed */
int64_t cmt_replay_ctx_device(const struct cmt_replay *r, uint64_t ctx);   /* -2 if unknown */

#endif
