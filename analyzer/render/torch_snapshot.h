/*
 * torch_snapshot.h — one process of an analysis as PyTorch's memory snapshot (the dict
 * torch.cuda.memory._snapshot() returns, pickled as torch.cuda.memory._dump_snapshot writes it, for
 * PyTorch's memory viewer MemoryViz): the replay's allocation changes (replay.h observer: every
 * device allocation that began or ended, every OOM) recorded as they happen, then written with the
 * analysis' symbolized stacks (cmt_analysis_stack, frames named by cmt_frame_parts).
 *   device_traces[ordinal]: per device ordinal from 0 (at least device 0's), in order: a device allocation is
 * "segment_alloc" + "alloc", its free "free_requested" + "free_completed" + "segment_free" (all at the record's time);
 *     an allocation held by a caching allocator (caching.h) is a segment only ("segment_alloc" /
 *     "segment_free"): its blocks are that allocator's business; an OOM is "oom" (size: the
 *     request, device_free: the device's total less this process's live bytes, 0 when unknown)
 *   segments: what is live at the end (leaked at exit or when the process died, or held by a
 *     caching allocator), one segment per allocation with its one block ("active_allocated", or
 *     "inactive" for a caching allocator's segment)
 *   A device allocation an NVTX memory heap lives in (heaps.h: a pool that reports its
 *   sub-allocations) is a segment only too, and the heap's regions are its blocks: "alloc" /
 *   "free_requested" + "free_completed" as they are registered and unregistered (a resize is both;
 *   a reset, an unregister or the allocation's free ends them), "active_allocated" blocks at the
 *   end with "inactive" ones between them (a region outside its heap is left out).
 * Allocations a context teardown ended mid-run are freed at the teardown; those a teardown at exit
 * ended stay live (the report's leaks at exit). Host memory and imported memory are left out.
 */
#ifndef CMT_TORCH_SNAPSHOT_H
#define CMT_TORCH_SNAPSHOT_H

#include <stdint.h>
#include <stdio.h>

#include "analysis.h"

struct cmt_torch_event {
    int64_t time_ns; /* dump clock */
    uint64_t ptr;    /* OOM: device_free */
    uint64_t size;   /* granted bytes; OOM: the request */
    uint64_t requested, stack;
    int32_t device;
    uint8_t action;  /* enum cmt_torch_action */
    uint8_t dropped; /* a free the driver refused (RETRACK): none */
    uint8_t pool;    /* ALLOC, FREE: an NVTX heap lives in it (its blocks are the heap's regions) */
    uint32_t heap;   /* REGION_*: its heap (heaps index + 1) */
};
enum cmt_torch_action { CMT_TORCH_ALLOC, CMT_TORCH_FREE, CMT_TORCH_OOM, CMT_TORCH_REGION_ALLOC, CMT_TORCH_REGION_FREE };

struct torch_heap { /* an NVTX heap (heaps.h) */
    int64_t device; /* -1: not in a tracked allocation, or unregistered */
    uint64_t base, size;
    uint32_t alloc; /* the ALLOC event of the allocation it lives in + 1 */
};

struct cmt_torch_trace {
    struct cmt_torch_event *v;
    size_t n, cap;
    int lost;                 /* out of memory while recording: the trace is incomplete */
    struct cmt_htab live;     /* (ptr, 0) -> the ALLOC event of a live device allocation + 1 */
    struct cmt_htab heap_map; /* (heap, 0) -> heaps index + 1 */
    struct torch_heap *heaps;
    size_t nheaps, capheaps;
    struct cmt_htab regions; /* (ptr, 0) -> the REGION_ALLOC event of a live region + 1 */
};

/* The observer to set in cmt_report_opts (arg: a struct cmt_torch_trace made by
 * cmt_torch_trace_init), for a load of one dump. */
void cmt_torch_trace_init(struct cmt_torch_trace *t);
void cmt_torch_observe(void *arg, const struct cmt_replay *r, const struct cmt_live_change *c);
void cmt_torch_trace_free(struct cmt_torch_trace *t);

/* What the snapshot holds, for the caller's messages. */
struct cmt_torch_summary {
    size_t devices, segments;
    uint64_t allocations, live_bytes, ooms;
};

/* Writes the snapshot of process proc of a (loaded with the observer on t) to f. Returns 0, or
 * -1 when out of memory (the pickle is incomplete). */
int cmt_torch_write(FILE *f, struct cmt_analysis *a, size_t proc, const struct cmt_torch_trace *t,
                    struct cmt_torch_summary *sum);

#endif
