/*
 * bench/floor_shim.c — a measuring instrument for `make bench`, not part of the product: the least
 * an LD_PRELOAD tracker that knows what each free releases must do. It wraps cuMemAlloc_v2 and
 * cuMemFree_v2 with one open-addressing table of 16-byte entries (address, size), linear probing,
 * backward-shift deletion, sized once for 4 M slots (64 MiB, never grows; past 3 M live it adds no more), no lock (the
 * bench pattern it is used on is one thread), no clock, no record, no stack: it removes the address before the real
 * free and puts it back when the driver refuses, as the tracker does. Its added ns per pair on the random-order-free
 * pattern is the floor of section 6's random row on the machine of the run: the cache and TLB misses of looking up one
 * random live allocation per free.
 * FLOOR_SHIM_STEPS=K (default 0) adds, to every call, a chain of K dependent multiply-adds (~4 cycles
 * each) that nothing else waits for: how much per-call work the pattern tolerates before the CPU stops
 * overlapping the program's own cache misses of consecutive iterations (section 6's "cliff" rows).
 */
#include <cuda.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <stdint.h>
#include <sys/mman.h>

#define FS_BITS 22
#define FS_CAP (1u << FS_BITS)

struct fs_entry {
    uint64_t key; /* 0: empty */
    uint64_t size;
};

static struct fs_entry *fs_slots;
static unsigned fs_steps; /* FLOOR_SHIM_STEPS */
static uint64_t fs_sink;
static uint32_t fs_count; /* kept under 3/4 of FS_CAP: past it, addresses go untracked */
static CUresult (*fs_real_alloc)(CUdeviceptr *, size_t);
static CUresult (*fs_real_free)(CUdeviceptr);

static uint32_t fs_home(uint64_t key) {
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> (64 - FS_BITS));
}

static int fs_ready(void) {
    if (fs_slots) return 1;
    void *m = mmap(NULL, sizeof(struct fs_entry) * FS_CAP, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    fs_real_alloc = (CUresult(*)(CUdeviceptr *, size_t))dlsym(RTLD_NEXT, "cuMemAlloc_v2");
    fs_real_free = (CUresult(*)(CUdeviceptr))dlsym(RTLD_NEXT, "cuMemFree_v2");
    if (m == MAP_FAILED || !fs_real_alloc || !fs_real_free) return 0;
    const char *k = getenv("FLOOR_SHIM_STEPS");
    fs_steps = k ? (unsigned)strtoul(k, NULL, 10) : 0;
    fs_slots = m;
    return 1;
}

static void fs_insert(uint64_t key, uint64_t size) {
    if (fs_count >= FS_CAP / 4 * 3) return;
    uint32_t j = fs_home(key);
    while (fs_slots[j].key && fs_slots[j].key != key)
        j = (j + 1) & (FS_CAP - 1);
    if (!fs_slots[j].key) fs_count++;
    fs_slots[j].key = key;
    fs_slots[j].size = size;
}

static int fs_remove(uint64_t key, uint64_t *size) {
    uint32_t i = fs_home(key);
    while (fs_slots[i].key != key) {
        if (!fs_slots[i].key) return 0;
        i = (i + 1) & (FS_CAP - 1);
    }
    *size = fs_slots[i].size;
    for (uint32_t j = i;;) {
        j = (j + 1) & (FS_CAP - 1);
        if (!fs_slots[j].key) break;
        uint32_t home = fs_home(fs_slots[j].key);
        if (((j - home) & (FS_CAP - 1)) >= ((j - i) & (FS_CAP - 1))) {
            fs_slots[i] = fs_slots[j];
            i = j;
        }
    }
    fs_slots[i].key = 0;
    fs_count--;
    return 1;
}

/* K dependent multiply-adds; the asm keeps the compiler from folding the chain away. */
static void fs_work(uint64_t seed) {
    uint64_t x = seed;
    for (unsigned i = 0; i < fs_steps; i++) {
        x = x * 0x9E3779B97F4A7C15ull + 1;
        __asm__ volatile("" : "+r"(x));
    }
    fs_sink = x;
}

__attribute__((visibility("default"))) CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes) {
    if (!fs_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    fs_work(bytes);
    CUresult r = fs_real_alloc(dptr, bytes);
    if (r == CUDA_SUCCESS) fs_insert(*dptr, bytes);
    return r;
}

__attribute__((visibility("default"))) CUresult cuMemFree_v2(CUdeviceptr p) {
    if (!fs_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    uint64_t size = 0;
    fs_work(p);
    int had = fs_remove(p, &size);
    CUresult r = fs_real_free(p);
    if (r != CUDA_SUCCESS && had) fs_insert(p, size);
    return r;
}
