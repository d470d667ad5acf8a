/*
 * cmt_nvml.c — NVML through dlopen (cmt_nvml.h): the entry points of CMT_NVML_CALLS resolved by
 * name, and the snapshot. Memory is taken at open (per GPU) and when a process list outgrows the
 * buffers, which are kept across refreshes; a refresh of an unchanged machine allocates nothing.
 */
#include "cmt_nvml.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct cmt_nvml_api {
#define CMT_NVML_FIELD(name, ret, params) ret(*name) params;
    CMT_NVML_CALLS(CMT_NVML_FIELD)
#undef CMT_NVML_FIELD
};

static void why_set(struct cmt_nvml *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void why_set(struct cmt_nvml *n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n->why, sizeof n->why, fmt, ap);
    va_end(ap);
}

static const char *err_name(const struct cmt_nvml *n, nvmlReturn_t r) {
    const char *s = n->api && n->api->nvmlErrorString ? n->api->nvmlErrorString(r) : NULL;
    return s ? s : "unknown NVML error";
}

/* Frees everything but status and why. */
static void unload(struct cmt_nvml *n) {
    free(n->handles);
    free(n->gpus);
    free(n->procs);
    free(n->scratch);
    free(n->api);
    if (n->lib) dlclose(n->lib);
    n->lib = NULL, n->api = NULL, n->handles = NULL, n->gpus = NULL, n->procs = NULL;
    n->scratch = NULL, n->ngpus = n->nprocs = n->procs_cap = 0, n->scratch_cap = 0;
}

static int fail_open(struct cmt_nvml *n, int initialised) {
    if (initialised) n->api->nvmlShutdown();
    unload(n);
    n->status = CMT_NVML_NA;
    return -1;
}

/* Names GPU i: UUID (lower case) and PCI bus id in CUDA's form; 0, or -1 with why set. */
static int name_gpu(struct cmt_nvml *n, size_t i) {
    struct cmt_nvml_gpu *g = &n->gpus[i];
    nvmlReturn_t r = n->api->nvmlDeviceGetHandleByIndex_v2((unsigned)i, &n->handles[i]);
    if (r != NVML_SUCCESS) {
        n->handles[i] = NULL;
        why_set(n, "NVML: GPU %zu: nvmlDeviceGetHandleByIndex_v2: %s", i, err_name(n, r));
        return -1;
    }
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    r = n->api->nvmlDeviceGetUUID(n->handles[i], uuid, sizeof uuid);
    if (r != NVML_SUCCESS || strlen(uuid) >= sizeof g->uuid) {
        n->handles[i] = NULL;
        why_set(n, "NVML: GPU %zu: nvmlDeviceGetUUID: %s", i, r ? err_name(n, r) : "name too long");
        return -1;
    }
    for (size_t k = 0; uuid[k]; k++)
        g->uuid[k] =
            k >= 4 && uuid[k] >= 'A' && uuid[k] <= 'F' ? (char)(uuid[k] - 'A' + 'a') : uuid[k];
    nvmlPciInfo_t pci;
    memset(&pci, 0, sizeof pci);
    r = n->api->nvmlDeviceGetPciInfo_v3(n->handles[i], &pci);
    if (r == NVML_SUCCESS) {
        pci.busId[sizeof pci.busId - 1] = 0;
        const char *dot = strrchr(pci.busId, '.');
        unsigned fn = dot ? (unsigned)strtoul(dot + 1, NULL, 16) : 0;
        snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "%04x:%02x:%02x.%x", pci.domain & 0xffff,
                 pci.bus & 0xff, pci.device & 0xff, fn & 0xf);
    } /* else unknown: "" (the UUID is what matches GPUs) */
    return 0;
}

int cmt_nvml_open(struct cmt_nvml *n, const char *lib) {
    memset(n, 0, sizeof *n);
    n->status = CMT_NVML_NA;
    if (!lib) lib = CMT_NVML_DEFAULT_LIB;
    n->lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!n->lib) {
        const char *e = dlerror();
        why_set(n, "NVML not loadable: %s", e ? e : lib);
        return -1;
    }
    n->api = calloc(1, sizeof *n->api);
    if (!n->api) {
        why_set(n, "NVML: out of memory");
        return fail_open(n, 0);
    }
#define CMT_NVML_RESOLVE(name, ret, params)                                                        \
    {                                                                                              \
        void *sym = dlsym(n->lib, #name);                                                          \
        if (!sym) {                                                                                \
            why_set(n, "NVML: %s lacks %s", lib, #name);                                           \
            return fail_open(n, 0);                                                                \
        }                                                                                          \
        memcpy(&n->api->name, &sym, sizeof sym);                                                   \
    }
    CMT_NVML_CALLS(CMT_NVML_RESOLVE)
#undef CMT_NVML_RESOLVE
    nvmlReturn_t r = n->api->nvmlInit_v2();
    if (r != NVML_SUCCESS) {
        why_set(n, "NVML: nvmlInit_v2: %s", err_name(n, r));
        return fail_open(n, 0);
    }
    unsigned int count = 0;
    r = n->api->nvmlDeviceGetCount_v2(&count);
    if (r != NVML_SUCCESS) {
        why_set(n, "NVML: nvmlDeviceGetCount_v2: %s", err_name(n, r));
        return fail_open(n, 1);
    }
    n->handles = calloc(count ? count : 1, sizeof *n->handles);
    n->gpus = calloc(count ? count : 1, sizeof *n->gpus);
    if (!n->handles || !n->gpus) {
        why_set(n, "NVML: out of memory");
        return fail_open(n, 1);
    }
    n->ngpus = count;
    n->status = CMT_NVML_READY;
    char first[sizeof n->why] = "";
    for (size_t i = 0; i < n->ngpus; i++)
        if (name_gpu(n, i) && !first[0]) memcpy(first, n->why, sizeof first);
    cmt_nvml_refresh(n);
    if (first[0]) memcpy(n->why, first, sizeof first); /* a GPU without a name: say so first */
    return 0;
}

/* Room for want entries in n->scratch; 0, or -1 when out of memory. */
static int grow_scratch(struct cmt_nvml *n, unsigned int want) {
    if (want <= n->scratch_cap) return 0;
    unsigned int cap = want + want / 4 + 8;
    nvmlProcessInfo_t *s = realloc(n->scratch, (size_t)cap * sizeof *s);
    if (!s) return -1;
    n->scratch = s, n->scratch_cap = cap;
    return 0;
}

static int grow_procs(struct cmt_nvml *n, size_t want) {
    if (want <= n->procs_cap) return 0;
    size_t cap = want + want / 2 + 16;
    struct cmt_nvml_proc *p = realloc(n->procs, cap * sizeof *p);
    if (!p) return -1;
    n->procs = p, n->procs_cap = cap;
    return 0;
}

/* One GPU's process list into n->procs; 0, or -1 with why set. */
static int read_procs(struct cmt_nvml *n, size_t i) {
    struct cmt_nvml_gpu *g = &n->gpus[i];
    nvmlReturn_t r;
    unsigned int count;
    /* the documented protocol: too small a buffer returns INSUFFICIENT_SIZE with the count needed;
     * processes may start between the calls, so ask again a few times */
    for (int tries = 0;; tries++) {
        count = n->scratch_cap;
        r = n->api->nvmlDeviceGetComputeRunningProcesses_v3(n->handles[i], &count,
                                                            n->scratch_cap ? n->scratch : NULL);
        if (r != NVML_ERROR_INSUFFICIENT_SIZE || tries == 4) break;
        if (grow_scratch(n, count)) {
            why_set(n, "NVML: %s: out of memory for %u processes", g->uuid, count);
            return -1;
        }
    }
    if (r != NVML_SUCCESS) {
        why_set(n, "NVML: %s: nvmlDeviceGetComputeRunningProcesses_v3: %s", g->uuid,
                err_name(n, r));
        return -1;
    }
    if (count > n->scratch_cap) count = n->scratch_cap; /* never past what was handed over */
    if (grow_procs(n, n->nprocs + count)) {
        why_set(n, "NVML: %s: out of memory for %u processes", g->uuid, count);
        return -1;
    }
    for (unsigned int k = 0; k < count; k++) {
        struct cmt_nvml_proc *p = &n->procs[n->nprocs++];
        p->pid = n->scratch[k].pid;
        p->used_known = n->scratch[k].usedGpuMemory != NVML_VALUE_NOT_AVAILABLE_ULL;
        p->used_bytes = p->used_known ? n->scratch[k].usedGpuMemory : 0;
    }
    g->nprocs = count;
    g->procs_known = 1;
    return 0;
}

int cmt_nvml_refresh(struct cmt_nvml *n) {
    if (n->status != CMT_NVML_READY) return -1;
    char first[sizeof n->why] = "";
    n->nprocs = 0;
    for (size_t i = 0; i < n->ngpus; i++) {
        struct cmt_nvml_gpu *g = &n->gpus[i];
        g->mem_known = g->procs_known = 0;
        g->used_bytes = g->total_bytes = 0;
        g->first_proc = n->nprocs, g->nprocs = 0;
        if (!n->handles[i]) { /* not named at open */
            if (!first[0]) snprintf(first, sizeof first, "NVML: GPU %zu has no name", i);
            continue;
        }
        nvmlMemory_t m;
        nvmlReturn_t r = n->api->nvmlDeviceGetMemoryInfo(n->handles[i], &m);
        if (r == NVML_SUCCESS) {
            g->used_bytes = m.used, g->total_bytes = m.total, g->mem_known = 1;
        } else if (!first[0]) {
            why_set(n, "NVML: %s: nvmlDeviceGetMemoryInfo: %s", g->uuid, err_name(n, r));
            memcpy(first, n->why, sizeof first);
        }
        if (read_procs(n, i) && !first[0]) memcpy(first, n->why, sizeof first);
    }
    memcpy(n->why, first, sizeof first);
    return first[0] ? -1 : 0;
}

const struct cmt_nvml_gpu *cmt_nvml_gpu(const struct cmt_nvml *n, const char *uuid) {
    if (n->status != CMT_NVML_READY || !uuid) return NULL;
    for (size_t i = 0; i < n->ngpus; i++)
        if (n->handles[i] && !strcasecmp(n->gpus[i].uuid, uuid)) return &n->gpus[i];
    return NULL;
}

int cmt_nvml_proc_used(const struct cmt_nvml *n, const char *uuid, uint32_t pid, uint64_t *bytes) {
    const struct cmt_nvml_gpu *g = cmt_nvml_gpu(n, uuid);
    if (!g || !g->procs_known) return -1;
    for (size_t k = g->first_proc; k < g->first_proc + g->nprocs; k++) {
        if (n->procs[k].pid != pid) continue;
        if (!n->procs[k].used_known) return -1;
        if (bytes) *bytes = n->procs[k].used_bytes;
        return 1;
    }
    return 0;
}

void cmt_nvml_close(struct cmt_nvml *n) {
    if (n->status == CMT_NVML_READY) n->api->nvmlShutdown();
    unload(n);
    n->status = CMT_NVML_NA;
    why_set(n, "NVML closed");
}
