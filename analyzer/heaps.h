/*
 * cmt_pools.h — sub-allocations that pool allocators report through the NVTX memory-heap API
 * (SUBALLOC records): heaps (a pool's memory, usually one device allocation) and the regions
 * carved out of them, with the stack that registered each region. At the end of a process, the
 * regions still registered in a heap that was never unregistered or reset are the pool's own
 * leaks, grouped by stack: what a device-level view cannot see inside a caching allocator.
 */
#ifndef CMT_POOLS_H
#define CMT_POOLS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cmt_event;
struct cmt_analysis;
struct cmt_json;
struct cmt_pools;

struct cmt_pool_leak {
    uint64_t stack, bytes, regions;
};

struct cmt_pool {
    uint64_t heap, size;
    char *name;
    int64_t device;            /* device of the allocation the heap lives in, -2 unknown */
    int unregistered;
    uint64_t registered, live_regions, live_bytes, peak_bytes;
    struct cmt_pool_leak *leaks; /* filled at the end, bytes desc */
    size_t nleaks;
};

struct cmt_pools *cmt_pools_new(void);
/* Applies a SUBALLOC record; device_of(ptr) gives the device of the live allocation at ptr. */
void cmt_pools_event(struct cmt_pools *p, const struct cmt_event *e, int64_t device);
/* Ends the stream: remaining regions of live heaps become the pools' leaks. */
void cmt_pools_finish(struct cmt_pools *p);
const struct cmt_pool *cmt_pools_list(const struct cmt_pools *p, size_t *n);
void cmt_pools_free(struct cmt_pools *p);

void cmt_pools_text(struct cmt_analysis *a, FILE *f);
void cmt_pools_json(struct cmt_analysis *a, struct cmt_json *j);

#endif
