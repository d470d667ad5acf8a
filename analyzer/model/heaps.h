/*
 * heaps.h — sub-allocations that pool allocators report through the NVTX memory-heap API
 * (SUBALLOC records): heaps (a pool's memory, usually one device allocation) and the regions
 * carved out of them, with the stack that registered each region. At the end of a process, the
 * regions still registered in a heap that was never unregistered or reset are the pool's own
 * leaks, grouped by stack: what a device-level view cannot see inside a caching allocator.
 */
#ifndef CMT_HEAPS_H
#define CMT_HEAPS_H

#include <stddef.h>
#include <stdint.h>

struct cmt_event;
struct cmt_heaps;

struct cmt_heap_leak {
    uint64_t stack, bytes, regions;
};

struct cmt_heap {
    uint64_t heap, size;
    char *name;
    int64_t device; /* device of the allocation the heap lives in, -2 unknown */
    int unregistered;
    uint64_t registered, live_regions, live_bytes, peak_bytes;
    struct cmt_heap_leak *leaks; /* filled at the end, bytes desc */
    size_t nleaks;
};

struct cmt_heaps *cmt_heaps_new(void);
/* Applies a SUBALLOC record; device: the device of the tracked allocation the heap lives in (a
 * HEAP_REGISTER record; -2 unknown), given by the replay. Returns 0, or -1 when out of memory (the
 * record's effect is lost). */
int cmt_heaps_event(struct cmt_heaps *p, const struct cmt_event *e, int64_t device);
/* Ends the stream: remaining regions of live heaps become the heaps' leaks. 0, or -1 when out of
 * memory (some leaks are missing). */
int cmt_heaps_finish(struct cmt_heaps *p);
const struct cmt_heap *cmt_heaps_list(const struct cmt_heaps *p, size_t *n);
void cmt_heaps_free(struct cmt_heaps *p);

#endif
