/*
 * cmt_nvml.h — the driver's view of GPU memory, through NVML (libnvidia-ml.so.1, opened with
 * dlopen: optional; a machine without it is a normal state, shown as "n/a"). Owns loading NVML and
 * one snapshot, refreshed on demand: per GPU its UUID, PCI bus id and the driver's used/total bytes
 * (nvmlDeviceGetMemoryInfo), and per (GPU, process) the bytes the driver charges to the process
 * (nvmlDeviceGetComputeRunningProcesses_v3: context, modules and library memory included, so more
 * than the process allocated). NVML numbers GPUs in PCI order and ignores CUDA_VISIBLE_DEVICES;
 * match by UUID. In a container NVML may report host pids (or none) for the container's processes.
 *
 * The few documented NVML types and calls used are declared below (the nvml.h subset, NVML API
 * reference): the analyzer builds without NVML or CUDA headers. The test bed's fake NVML
 * (tests/fakenvml) implements the same declarations.
 */
#ifndef CMT_NVML_H
#define CMT_NVML_H

#include <stddef.h>
#include <stdint.h>

/* ---- the NVML ABI subset (nvml.h) ---------------------------------------------------------- */
typedef int nvmlReturn_t;
#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NO_PERMISSION 4
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define NVML_ERROR_LIBRARY_NOT_FOUND 12
#define NVML_ERROR_FUNCTION_NOT_FOUND 13
#define NVML_ERROR_GPU_IS_LOST 15
#define NVML_ERROR_MEMORY 20
#define NVML_ERROR_UNKNOWN 999

#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16
#define NVML_VALUE_NOT_AVAILABLE_ULL (~0ull) /* usedGpuMemory when the driver cannot tell */

typedef struct nvmlDevice_st *nvmlDevice_t;

typedef struct nvmlMemory_st { /* nvmlDeviceGetMemoryInfo */
    unsigned long long total, free, used;
} nvmlMemory_t;

typedef struct nvmlPciInfo_st {                              /* nvmlDeviceGetPciInfo_v3 */
    char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE]; /* "0000:01:00.0" */
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE]; /* "00000000:01:00.0" */
} nvmlPciInfo_t;

typedef struct nvmlProcessInfo_st { /* nvmlDeviceGetComputeRunningProcesses_v3 (v2/v3 layout) */
    unsigned int pid;
    unsigned long long usedGpuMemory; /* NVML_VALUE_NOT_AVAILABLE_ULL: unknown */
    unsigned int gpuInstanceId;       /* MIG; 0xffffffff otherwise */
    unsigned int computeInstanceId;
} nvmlProcessInfo_t;

/* The documented layouts (x86-64 / aarch64 LP64): a mismatch is a build error, not a wrong number.
 */
_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t layout");
_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t layout");
_Static_assert(offsetof(nvmlPciInfo_t, busId) == 36, "nvmlPciInfo_t layout");
_Static_assert(sizeof(nvmlProcessInfo_t) == 24, "nvmlProcessInfo_t layout");
_Static_assert(offsetof(nvmlProcessInfo_t, usedGpuMemory) == 8, "nvmlProcessInfo_t layout");
_Static_assert(offsetof(nvmlProcessInfo_t, computeInstanceId) == 20, "nvmlProcessInfo_t");

/* Every NVML entry point used: X(name, return type, parameters). */
#define CMT_NVML_CALLS(X)                                                                          \
    X(nvmlInit_v2, nvmlReturn_t, (void))                                                           \
    X(nvmlShutdown, nvmlReturn_t, (void))                                                          \
    X(nvmlErrorString, const char *, (nvmlReturn_t result))                                        \
    X(nvmlDeviceGetCount_v2, nvmlReturn_t, (unsigned int *count))                                  \
    X(nvmlDeviceGetHandleByIndex_v2, nvmlReturn_t, (unsigned int index, nvmlDevice_t *device))     \
    X(nvmlDeviceGetHandleByUUID, nvmlReturn_t, (const char *uuid, nvmlDevice_t *device))           \
    X(nvmlDeviceGetUUID, nvmlReturn_t, (nvmlDevice_t device, char *uuid, unsigned int length))     \
    X(nvmlDeviceGetPciInfo_v3, nvmlReturn_t, (nvmlDevice_t device, nvmlPciInfo_t * pci))           \
    X(nvmlDeviceGetMemoryInfo, nvmlReturn_t, (nvmlDevice_t device, nvmlMemory_t * memory))         \
    X(nvmlDeviceGetComputeRunningProcesses_v3, nvmlReturn_t,                                       \
      (nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_t *infos))

/* ---- the snapshot ---------------------------------------------------------------------------- */
#define CMT_NVML_DEFAULT_LIB "libnvidia-ml.so.1"
#define CMT_NVML_UUID_LEN 48 /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" + NUL, with room */

enum cmt_nvml_status {
    CMT_NVML_NA,    /* no NVML: library absent, lacking a call, or no driver (why says which) */
    CMT_NVML_READY, /* loaded and initialised; the snapshot is as of the last refresh */
};

struct cmt_nvml_gpu {
    char uuid[CMT_NVML_UUID_LEN]; /* lower case, as the analyzer prints UUIDs */
    char pci_bus_id[16];          /* "0000:10:00.0", as cuDeviceGetPCIBusId writes it */
    int mem_known;                /* 1: used/total are from the last refresh */
    int procs_known;              /* 1: the process list is from the last refresh */
    uint64_t used_bytes, total_bytes;
    size_t first_proc, nprocs; /* this GPU's entries in cmt_nvml.procs */
};

struct cmt_nvml_proc {
    uint32_t pid;
    int used_known; /* 0: the driver lists the process but cannot tell its memory */
    uint64_t used_bytes;
};

struct cmt_nvml_api; /* the resolved entry points (cmt_nvml.c) */

struct cmt_nvml {
    enum cmt_nvml_status status;
    char why[160]; /* NA: why; READY: the last refresh's first problem, or "" */
    void *lib;
    struct cmt_nvml_api *api;
    nvmlDevice_t *handles;
    struct cmt_nvml_gpu *gpus;
    size_t ngpus;
    struct cmt_nvml_proc *procs; /* all GPUs' processes, grouped by GPU */
    size_t nprocs, procs_cap;
    nvmlProcessInfo_t *scratch; /* the buffer handed to NVML, reused across refreshes */
    unsigned int scratch_cap;
};

/* Loads NVML (lib: a file name for dlopen, NULL: CMT_NVML_DEFAULT_LIB), initialises it, lists the
 * GPUs and takes a first snapshot. Returns 0 (READY) or -1 (NA, n->why says why); never exits and
 * never prints. An out-of-memory is NA with a reason too. */
int cmt_nvml_open(struct cmt_nvml *n, const char *lib);
/* Re-reads every GPU's memory and process list. Returns 0, or -1 when some figure could not be read
 * (n->why names the first; those GPUs' *_known flags are 0) or NVML is NA. */
int cmt_nvml_refresh(struct cmt_nvml *n);
/* The GPU with this UUID ("GPU-...", any case), or NULL (unknown, or NA). */
const struct cmt_nvml_gpu *cmt_nvml_gpu(const struct cmt_nvml *n, const char *uuid);
/* The driver's bytes for (GPU uuid, pid): 1 and *bytes when listed with a known figure; 0 when the
 * GPU's list is known and the pid is not in it (it holds no memory there); -1 when not known (NA,
 * unknown GPU, list not read, or the driver cannot tell the figure). */
int cmt_nvml_proc_used(const struct cmt_nvml *n, const char *uuid, uint32_t pid, uint64_t *bytes);
/* Shuts NVML down and unloads it; n may then be opened again. */
void cmt_nvml_close(struct cmt_nvml *n);

#endif
