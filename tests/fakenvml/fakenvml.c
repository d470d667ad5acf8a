/*
 * fakenvml.c — a GPU-less fake of NVML (libnvidia-ml.so.1) for the cumemtrack test bed: just the
 * documented calls the analyzer's cmt_nvml uses (CMT_NVML_CALLS in analyzer/read/cmt_nvml.h, whose ABI
 * declarations it shares; their layouts are asserted there against the NVML reference).
 *
 * Its GPUs are the fake CUDA driver's physical devices (tests/fakecuda/README.md): FAKECUDA_DEVICES
 * of them (default 4, at most 64) in physical order — like NVML, it ignores CUDA_VISIBLE_DEVICES —
 * with the same UUIDs and PCI bus ids, and FAKECUDA_MEM_MB (default 16384) MiB each.
 *
 * What "the driver" reports is read, at every query, from the file FAKENVML_STATE names (unset or
 * absent: nothing running). One line each, '#' comments and blank lines ignored:
 *     UUID PID BYTES        a compute process on that GPU (BYTES "n/a": NVML_VALUE_NOT_AVAILABLE)
 *     UUID reserved BYTES   memory the driver uses on that GPU outside any process
 * A GPU's used bytes are the sum of its lines (at most its total). A malformed line, an unknown
 * UUID or a pid listed twice on one GPU makes the queries fail with NVML_ERROR_UNKNOWN and a
 * message on stderr: a mistake in a test shows, it is not read as "nothing running".
 * FAKENVML_INIT_ERROR=N makes nvmlInit_v2 return N (9: NVML_ERROR_DRIVER_NOT_LOADED, as on a
 * machine with the library but no driver).
 *
 * Semantics modelled from the NVML reference: every call but nvmlInit_v2 and nvmlErrorString
 * returns NVML_ERROR_UNINITIALIZED before nvmlInit_v2 and after the matching nvmlShutdown
 * (init/shutdown are reference counted); nvmlDeviceGetComputeRunningProcesses_v3 returns
 * NVML_ERROR_INSUFFICIENT_SIZE with *infoCount set to the number needed when the array is too small
 * (NULL with *infoCount 0 asks for the count; NVML_SUCCESS when there is none); gpuInstanceId and
 * computeInstanceId are 0xffffffff (no MIG); nvmlDeviceGetUUID with a too small buffer returns
 * NVML_ERROR_INSUFFICIENT_SIZE.
 */
#include "cmt_nvml.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FN_EXPORT __attribute__((visibility("default")))
#define FN_MAX_DEV 64
#define FN_MAX_PROCS 4096 /* per state file */

struct nvmlDevice_st {
    int phys;
};

static pthread_mutex_t fn_lock = PTHREAD_MUTEX_INITIALIZER;
static int fn_refs; /* nvmlInit_v2 calls not yet shut down */
static int fn_ndev;
static unsigned long long fn_total;
static struct nvmlDevice_st fn_dev[FN_MAX_DEV];

/* The fake CUDA driver's UUID of physical device p (tests/fakecuda/README.md, fk_uuid). */
static void fn_uuid(int p, char out[48]) {
    unsigned char u[16] = {0xfa, 0xce, 0xc0, 0xda, (unsigned char)p, (unsigned char)(0x5a ^ p),
                           0x40, 0x00, 0x80, 0x00};
    for (int i = 10; i < 16; i++)
        u[i] = (unsigned char)(p * 16 + i);
    char *o = out + sprintf(out, "GPU-");
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) *o++ = '-';
        o += sprintf(o, "%02x", u[i]);
    }
}

static int fn_bus(int p) {
    return (p * 16 + 0x10) & 0xff;
}

static struct nvmlDevice_st *fn_check(nvmlDevice_t d) {
    for (int i = 0; i < fn_ndev; i++)
        if (d == &fn_dev[i]) return d;
    return NULL;
}

/* ---- the state file ------------------------------------------------------------------------ */
struct fn_entry {
    int phys;
    int reserved; /* a "reserved" line */
    unsigned int pid;
    unsigned long long bytes;
};

static int fn_fail(const char *path, int line, const char *why) {
    fprintf(stderr, "fakenvml: %s:%d: %s\n", path, line, why);
    return -1;
}

/* Reads FAKENVML_STATE into e (n entries); 0, or -1 after a message on stderr. */
static int fn_state(struct fn_entry *e, int *n) {
    *n = 0;
    const char *path = getenv("FAKENVML_STATE");
    if (!path || !*path) return 0;
    FILE *f = fopen(path, "r");
    if (!f) return errno == ENOENT ? 0 : fn_fail(path, 0, strerror(errno));
    char buf[512];
    int line = 0, rc = 0;
    while (rc == 0 && fgets(buf, sizeof buf, f)) {
        line++;
        char uuid[64], who[32], bytes[32], extra[2];
        char *s = buf;
        while (isspace((unsigned char)*s))
            s++;
        if (!*s || *s == '#') continue;
        if (sscanf(s, "%63s %31s %31s %1s", uuid, who, bytes, extra) != 3) {
            rc = fn_fail(path, line, "want: UUID PID|reserved BYTES|n/a");
            break;
        }
        struct fn_entry x = {.phys = -1};
        for (int p = 0; p < fn_ndev; p++) {
            char u[48];
            fn_uuid(p, u);
            if (!strcasecmp(u, uuid)) x.phys = p;
        }
        char *end;
        if (x.phys < 0) {
            rc = fn_fail(path, line, "no such GPU (see FAKECUDA_DEVICES)");
        } else if (!strcmp(who, "reserved")) {
            x.reserved = 1;
        } else {
            unsigned long v = strtoul(who, &end, 10);
            if (*end || !isdigit((unsigned char)who[0]) || v == 0 || v > 0xffffffffu)
                rc = fn_fail(path, line, "bad pid");
            x.pid = (unsigned int)v;
        }
        if (!strcmp(bytes, "n/a") && !x.reserved) {
            x.bytes = NVML_VALUE_NOT_AVAILABLE_ULL;
        } else {
            x.bytes = strtoull(bytes, &end, 10);
            if (*end || !isdigit((unsigned char)bytes[0])) rc = fn_fail(path, line, "bad BYTES");
        }
        for (int k = 0; rc == 0 && k < *n; k++)
            if (!x.reserved && !e[k].reserved && e[k].phys == x.phys && e[k].pid == x.pid)
                rc = fn_fail(path, line, "pid listed twice on one GPU");
        if (rc == 0 && *n == FN_MAX_PROCS) rc = fn_fail(path, line, "too many lines");
        if (rc == 0) e[(*n)++] = x;
    }
    fclose(f);
    return rc;
}

/* ---- the API ------------------------------------------------------------------------------- */
#define FN_NEED_INIT()                                                                             \
    do {                                                                                           \
        if (!fn_refs) return NVML_ERROR_UNINITIALIZED;                                             \
    } while (0)

FN_EXPORT nvmlReturn_t nvmlInit_v2(void) {
    const char *e = getenv("FAKENVML_INIT_ERROR");
    if (e && *e) return (nvmlReturn_t)atoi(e);
    pthread_mutex_lock(&fn_lock);
    if (!fn_refs++) {
        fn_ndev = 4;
        if ((e = getenv("FAKECUDA_DEVICES")) && *e) fn_ndev = atoi(e);
        if (fn_ndev < 0) fn_ndev = 0;
        if (fn_ndev > FN_MAX_DEV) fn_ndev = FN_MAX_DEV;
        fn_total = 16384ull << 20;
        if ((e = getenv("FAKECUDA_MEM_MB")) && *e) fn_total = strtoull(e, NULL, 10) << 20;
        for (int i = 0; i < fn_ndev; i++)
            fn_dev[i].phys = i;
    }
    pthread_mutex_unlock(&fn_lock);
    return NVML_SUCCESS;
}

FN_EXPORT nvmlReturn_t nvmlShutdown(void) {
    pthread_mutex_lock(&fn_lock);
    int was = fn_refs;
    if (fn_refs) fn_refs--;
    pthread_mutex_unlock(&fn_lock);
    return was ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
}

FN_EXPORT const char *nvmlErrorString(nvmlReturn_t r) {
    switch (r) {
    case NVML_SUCCESS:
        return "Success";
    case NVML_ERROR_UNINITIALIZED:
        return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT:
        return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED:
        return "Not Supported";
    case NVML_ERROR_NO_PERMISSION:
        return "Insufficient Permissions";
    case NVML_ERROR_NOT_FOUND:
        return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE:
        return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED:
        return "Driver Not Loaded";
    case NVML_ERROR_GPU_IS_LOST:
        return "GPU is lost";
    case NVML_ERROR_MEMORY:
        return "Insufficient Memory";
    default:
        return "Unknown Error";
    }
}

FN_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
    FN_NEED_INIT();
    if (!count) return NVML_ERROR_INVALID_ARGUMENT;
    *count = (unsigned int)fn_ndev;
    return NVML_SUCCESS;
}

FN_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
    FN_NEED_INIT();
    if (!device || index >= (unsigned int)fn_ndev) return NVML_ERROR_INVALID_ARGUMENT;
    *device = &fn_dev[index];
    return NVML_SUCCESS;
}

FN_EXPORT nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device) {
    FN_NEED_INIT();
    if (!uuid || !device) return NVML_ERROR_INVALID_ARGUMENT;
    for (int p = 0; p < fn_ndev; p++) {
        char u[48];
        fn_uuid(p, u);
        if (!strcmp(u, uuid)) {
            *device = &fn_dev[p];
            return NVML_SUCCESS;
        }
    }
    return NVML_ERROR_NOT_FOUND;
}

FN_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) {
    FN_NEED_INIT();
    struct nvmlDevice_st *d = fn_check(device);
    if (!d || !uuid) return NVML_ERROR_INVALID_ARGUMENT;
    char u[48];
    fn_uuid(d->phys, u);
    if (length < strlen(u) + 1) return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(uuid, u, strlen(u) + 1);
    return NVML_SUCCESS;
}

FN_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci) {
    FN_NEED_INIT();
    struct nvmlDevice_st *d = fn_check(device);
    if (!d || !pci) return NVML_ERROR_INVALID_ARGUMENT;
    memset(pci, 0, sizeof *pci);
    pci->domain = 0;
    pci->bus = (unsigned int)fn_bus(d->phys);
    pci->device = 0;
    pci->pciDeviceId = 0x233010de; /* device 0x2330, vendor NVIDIA */
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04x:%02x:%02x.0", 0, pci->bus, 0);
    snprintf(pci->busId, sizeof pci->busId, "%08x:%02x:%02x.0", 0, pci->bus, 0);
    return NVML_SUCCESS;
}

FN_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory) {
    FN_NEED_INIT();
    struct nvmlDevice_st *d = fn_check(device);
    if (!d || !memory) return NVML_ERROR_INVALID_ARGUMENT;
    static struct fn_entry e[FN_MAX_PROCS];
    int n;
    pthread_mutex_lock(&fn_lock);
    int bad = fn_state(e, &n);
    unsigned long long used = 0;
    for (int k = 0; k < n; k++)
        if (e[k].phys == d->phys && e[k].bytes != NVML_VALUE_NOT_AVAILABLE_ULL) used += e[k].bytes;
    pthread_mutex_unlock(&fn_lock);
    if (bad) return NVML_ERROR_UNKNOWN;
    if (used > fn_total) used = fn_total;
    memory->total = fn_total;
    memory->used = used;
    memory->free = fn_total - used;
    return NVML_SUCCESS;
}

FN_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device,
                                                               unsigned int *infoCount,
                                                               nvmlProcessInfo_t *infos) {
    FN_NEED_INIT();
    struct nvmlDevice_st *d = fn_check(device);
    if (!d || !infoCount) return NVML_ERROR_INVALID_ARGUMENT;
    static struct fn_entry e[FN_MAX_PROCS];
    int n;
    pthread_mutex_lock(&fn_lock);
    int bad = fn_state(e, &n);
    unsigned int want = 0;
    for (int k = 0; k < n; k++)
        want += e[k].phys == d->phys && !e[k].reserved;
    nvmlReturn_t r = NVML_SUCCESS;
    if (bad) {
        r = NVML_ERROR_UNKNOWN;
    } else if (want > *infoCount || (want && !infos)) {
        *infoCount = want;
        r = NVML_ERROR_INSUFFICIENT_SIZE;
    } else {
        unsigned int o = 0;
        for (int k = 0; k < n; k++) {
            if (e[k].phys != d->phys || e[k].reserved) continue;
            infos[o].pid = e[k].pid;
            infos[o].usedGpuMemory = e[k].bytes;
            infos[o].gpuInstanceId = 0xffffffffu;
            infos[o].computeInstanceId = 0xffffffffu;
            o++;
        }
        *infoCount = o;
    }
    pthread_mutex_unlock(&fn_lock);
    return r;
}
