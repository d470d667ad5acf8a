/*
 * test_nvml.c — unit test of analyzer/read/cmt_nvml against the fake NVML (tests/fakenvml), and of the
 * states without NVML. Usage:
 *   test_nvml unit FAKELIB   every check below; writes its state files in the current directory
 *   test_nvml list [LIB]     prints the snapshot (LIB: default soname): "status ready|n/a WHY",
 *                            "gpu UUID PCI USED TOTAL NPROCS", "proc UUID PID BYTES|n/a"
 * Exit 0 when every check passed; the failed ones are printed.
 */
#include "cmt_nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                                 \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

#define MiB (1ull << 20)

/* The fake driver's UUID of physical device p, by the rule of tests/fakecuda/README.md. */
static void fake_uuid(int p, char out[48]) {
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

static void write_state(const char *text) {
    FILE *f = fopen("nvml.state", "w");
    if (!f || fputs(text, f) < 0 || fclose(f)) {
        perror("nvml.state");
        exit(2);
    }
}

/* cmt_nvml_proc_used as one value: the bytes, 0 (not listed) or NA (-1: not known) */
#define NA INT64_MIN
static int64_t used(const struct cmt_nvml *n, const char *uuid, uint32_t pid) {
    uint64_t b = 12345;
    int r = cmt_nvml_proc_used(n, uuid, pid, &b);
    if (r == 1 && b > INT64_MAX) return INT64_MAX; /* never NA nor negative by accident */
    return r == 1 ? (int64_t)b : r == 0 ? 0 : r == -1 ? NA : INT64_MAX;
}

static void no_nvml(const char *fake) {
    struct cmt_nvml n;
    CHECK(cmt_nvml_open(&n, "/nonexistent/libnvidia-ml.so.1") == -1, "absent library");
    CHECK(n.status == CMT_NVML_NA, "status %d", n.status);
    CHECK(strstr(n.why, "/nonexistent/libnvidia-ml.so.1"), "why: %s", n.why);
    CHECK(cmt_nvml_refresh(&n) == -1, "refresh without NVML");
    CHECK(!cmt_nvml_gpu(&n, "GPU-facec0da-005a-4000-8000-0a0b0c0d0e0f"), "a GPU without NVML");
    CHECK(used(&n, "GPU-facec0da-005a-4000-8000-0a0b0c0d0e0f", 1) == NA, "a process without NVML");
    cmt_nvml_close(&n);
    cmt_nvml_close(&n); /* twice: harmless */

    CHECK(cmt_nvml_open(&n, "libm.so.6") == -1, "a library that is not NVML");
    CHECK(n.status == CMT_NVML_NA && strstr(n.why, "lacks nvmlInit_v2"), "why: %s", n.why);

    setenv("FAKENVML_INIT_ERROR", "9", 1); /* library installed, no driver */
    CHECK(cmt_nvml_open(&n, fake) == -1, "nvmlInit_v2 failing");
    CHECK(n.status == CMT_NVML_NA && strstr(n.why, "nvmlInit_v2: Driver Not Loaded"), "why: %s",
          n.why);
    CHECK(!cmt_nvml_gpu(&n, "GPU-facec0da-005a-4000-8000-0a0b0c0d0e0f"), "GPU after a failed init");
    unsetenv("FAKENVML_INIT_ERROR");
}

static void snapshot(const char *fake) {
    char u[3][48];
    for (int p = 0; p < 3; p++)
        fake_uuid(p, u[p]);
    setenv("FAKECUDA_DEVICES", "3", 1);
    setenv("FAKECUDA_MEM_MB", "1024", 1);
    setenv("CUDA_VISIBLE_DEVICES", "1", 1); /* NVML ignores it */
    setenv("FAKENVML_STATE", "nvml.state", 1);
    remove("nvml.state");

    struct cmt_nvml n;
    CHECK(cmt_nvml_open(&n, fake) == 0, "open the fake: %s", n.why);
    CHECK(n.status == CMT_NVML_READY && !n.why[0], "status %d why %s", n.status, n.why);
    CHECK(n.ngpus == 3, "%zu GPUs", n.ngpus);
    for (int p = 0; p < 3 && (size_t)p < n.ngpus; p++) {
        const struct cmt_nvml_gpu *g = cmt_nvml_gpu(&n, u[p]);
        char bus[16];
        snprintf(bus, sizeof bus, "0000:%02x:00.0", p * 16 + 0x10);
        CHECK(g == &n.gpus[p], "GPU %d by UUID %s (NVML has %s)", p, u[p], n.gpus[p].uuid);
        CHECK(!strcmp(n.gpus[p].pci_bus_id, bus), "GPU %d bus %s", p, n.gpus[p].pci_bus_id);
        CHECK(n.gpus[p].mem_known && n.gpus[p].total_bytes == 1024 * MiB &&
                  n.gpus[p].used_bytes == 0,
              "GPU %d memory %d %llu/%llu", p, n.gpus[p].mem_known,
              (unsigned long long)n.gpus[p].used_bytes, (unsigned long long)n.gpus[p].total_bytes);
        CHECK(n.gpus[p].procs_known && n.gpus[p].nprocs == 0, "GPU %d processes", p);
    }
    CHECK(used(&n, u[0], 4242) == 0, "nothing running: pid not listed");

    /* what the driver reports: 300 processes on GPU 0 (more than any first buffer: the
     * INSUFFICIENT_SIZE protocol), a reserve on GPU 1, an unknown figure on GPU 2 */
    char *text = malloc(64 * 1024), *t = text;
    uint64_t sum0 = 0;
    for (int k = 0; k < 300; k++) {
        t += sprintf(t, "%s %d %llu\n", u[0], 1000 + k, (unsigned long long)(k + 1) * 4096);
        sum0 += (uint64_t)(k + 1) * 4096;
    }
    t += sprintf(t, "# comment\n\n%s 100 %llu\n%s 200 %llu\n%s reserved %llu\n", u[1], 5 * MiB,
                 u[1], 7 * MiB, u[1], 300 * MiB);
    /* upper case in the file, as a test might write it */
    for (const char *c = u[2]; *c; c++)
        *t++ = *c >= 'a' && *c <= 'f' ? (char)(*c - 'a' + 'A') : *c;
    t += sprintf(t, " 100 n/a\n");
    write_state(text);
    CHECK(cmt_nvml_refresh(&n) == 0, "refresh: %s", n.why);
    CHECK(n.gpus[0].used_bytes == sum0 && n.gpus[0].nprocs == 300, "GPU 0: %llu bytes, %zu procs",
          (unsigned long long)n.gpus[0].used_bytes, n.gpus[0].nprocs);
    CHECK(used(&n, u[0], 1000) == 4096 && used(&n, u[0], 1299) == 300 * 4096, "GPU 0 processes");
    CHECK(n.gpus[1].used_bytes == 312 * MiB && n.gpus[1].nprocs == 2, "GPU 1: %llu",
          (unsigned long long)n.gpus[1].used_bytes);
    CHECK(used(&n, u[1], 100) == (int64_t)(5 * MiB) && used(&n, u[1], 200) == (int64_t)(7 * MiB),
          "GPU 1 processes");
    CHECK(used(&n, u[1], 1000) == 0, "a pid of another GPU");
    CHECK(used(&n, u[2], 100) == NA && n.gpus[2].nprocs == 1, "n/a figure");
    CHECK(used(&n, "GPU-FACEC0DA-005A-4000-8000-0A0B0C0D0E0F", 1000) == 4096, "UUID in upper case");
    CHECK(!cmt_nvml_gpu(&n, "GPU-00000000-0000-0000-0000-000000000000"), "unknown GPU");
    CHECK(used(&n, "GPU-00000000-0000-0000-0000-000000000000", 100) == NA, "unknown GPU's pid");
    CHECK(!cmt_nvml_gpu(&n, NULL), "NULL uuid");

    /* the job moves on: a refresh sees it, without taking memory */
    size_t scap = n.scratch_cap, pcap = n.procs_cap;
    sprintf(text, "%s 1000 8192\n%s 100 %llu\n%s 400 %llu\n", u[0], u[1], 6 * MiB, u[1], 9 * MiB);
    write_state(text);
    CHECK(cmt_nvml_refresh(&n) == 0, "refresh: %s", n.why);
    CHECK(n.gpus[0].used_bytes == 8192 && n.gpus[0].nprocs == 1, "GPU 0 after");
    CHECK(used(&n, u[0], 1299) == 0, "an exited process");
    CHECK(used(&n, u[1], 100) == (int64_t)(6 * MiB) && used(&n, u[1], 200) == 0 &&
              used(&n, u[1], 400) == (int64_t)(9 * MiB),
          "GPU 1 after");
    CHECK(n.gpus[1].used_bytes == 15 * MiB, "GPU 1 used %llu",
          (unsigned long long)n.gpus[1].used_bytes);
    CHECK(n.gpus[2].nprocs == 0 && used(&n, u[2], 100) == 0, "GPU 2 after");
    CHECK(n.scratch_cap == scap && n.procs_cap == pcap, "a refresh of fewer processes allocated");

    /* more processes than the buffers hold: they grow */
    t = text;
    for (int k = 0; k < 1000; k++)
        t += sprintf(t, "%s %d 1\n", u[2], 5000 + k);
    write_state(text);
    CHECK(cmt_nvml_refresh(&n) == 0, "refresh: %s", n.why);
    CHECK(n.gpus[2].nprocs == 1000 && used(&n, u[2], 5999) == 1 && n.gpus[2].used_bytes == 1000,
          "1000 processes: %zu", n.gpus[2].nprocs);
    CHECK(n.gpus[0].nprocs == 0 && n.gpus[1].nprocs == 0, "the other GPUs are empty");

    /* the driver failing: every figure unknown, said why; then back */
    write_state("this is not a state line\n");
    CHECK(cmt_nvml_refresh(&n) == -1, "refresh over a failing driver");
    CHECK(strstr(n.why, "Unknown Error"), "why: %s", n.why);
    CHECK(cmt_nvml_gpu(&n, u[1]) && !n.gpus[1].mem_known && !n.gpus[1].procs_known,
          "figures of a failed refresh");
    CHECK(used(&n, u[1], 100) == NA, "pid after a failed refresh");
    write_state("");
    CHECK(cmt_nvml_refresh(&n) == 0 && n.gpus[1].mem_known && !n.why[0], "refresh after: %s",
          n.why);

    cmt_nvml_close(&n);
    CHECK(n.status == CMT_NVML_NA && !cmt_nvml_gpu(&n, u[0]), "closed");
    free(text);
    unsetenv("CUDA_VISIBLE_DEVICES");
}

/* The fake itself follows NVML's documented protocol (called directly, cmt_nvml closed). */
static void fake_protocol(const char *fake) {
    void *h = dlopen(fake, RTLD_NOW | RTLD_LOCAL);
    CHECK(h, "dlopen %s", fake);
    if (!h) return;
    struct cmt_nvml_fns {
#define FIELD(name, ret, params) ret(*name) params;
        CMT_NVML_CALLS(FIELD)
#undef FIELD
    } f;
#define RESOLVE(name, ret, params)                                                                 \
    {                                                                                              \
        void *s = dlsym(h, #name);                                                                 \
        CHECK(s, "%s missing", #name);                                                             \
        if (!s) return;                                                                            \
        memcpy(&f.name, &s, sizeof s);                                                             \
    }
    CMT_NVML_CALLS(RESOLVE)
#undef RESOLVE
    char u[3][48];
    for (int p = 0; p < 3; p++)
        fake_uuid(p, u[p]);
    unsigned int count = 99;
    CHECK(f.nvmlDeviceGetCount_v2(&count) == NVML_ERROR_UNINITIALIZED, "count before init");
    CHECK(f.nvmlShutdown() == NVML_ERROR_UNINITIALIZED, "shutdown before init");
    CHECK(f.nvmlInit_v2() == NVML_SUCCESS && f.nvmlInit_v2() == NVML_SUCCESS, "init twice");
    CHECK(f.nvmlDeviceGetCount_v2(&count) == NVML_SUCCESS && count == 3, "count %u", count);
    nvmlDevice_t d0, d1, x;
    CHECK(f.nvmlDeviceGetHandleByIndex_v2(3, &x) == NVML_ERROR_INVALID_ARGUMENT, "index 3");
    CHECK(f.nvmlDeviceGetHandleByIndex_v2(0, &d0) == NVML_SUCCESS &&
              f.nvmlDeviceGetHandleByIndex_v2(1, &d1) == NVML_SUCCESS,
          "handles");
    char small[10], big[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    CHECK(f.nvmlDeviceGetUUID(d1, small, sizeof small) == NVML_ERROR_INSUFFICIENT_SIZE, "short");
    CHECK(f.nvmlDeviceGetUUID(d1, big, sizeof big) == NVML_SUCCESS && !strcmp(big, u[1]), "%s",
          big);
    CHECK(f.nvmlDeviceGetHandleByUUID(u[1], &x) == NVML_SUCCESS && x == d1, "by UUID");
    CHECK(f.nvmlDeviceGetHandleByUUID("GPU-00000000-0000-0000-0000-000000000000", &x) ==
              NVML_ERROR_NOT_FOUND,
          "unknown UUID");
    nvmlPciInfo_t pci;
    CHECK(f.nvmlDeviceGetPciInfo_v3(d1, &pci) == NVML_SUCCESS && pci.bus == 0x20 &&
              !strcmp(pci.busId, "00000000:20:00.0") && !strcmp(pci.busIdLegacy, "0000:20:00.0"),
          "pci %s", pci.busId);

    char text[256];
    snprintf(text, sizeof text, "%s 7 100\n%s 8 200\n%s reserved 1000\n", u[1], u[1], u[1]);
    write_state(text);
    nvmlProcessInfo_t info[4];
    count = 0;
    CHECK(f.nvmlDeviceGetComputeRunningProcesses_v3(d1, &count, NULL) ==
                  NVML_ERROR_INSUFFICIENT_SIZE &&
              count == 2,
          "count query: %u", count);
    count = 1;
    CHECK(f.nvmlDeviceGetComputeRunningProcesses_v3(d1, &count, info) ==
                  NVML_ERROR_INSUFFICIENT_SIZE &&
              count == 2,
          "too small: %u", count);
    count = 4;
    CHECK(f.nvmlDeviceGetComputeRunningProcesses_v3(d1, &count, info) == NVML_SUCCESS &&
              count == 2 && info[0].pid == 7 && info[0].usedGpuMemory == 100 && info[1].pid == 8 &&
              info[0].gpuInstanceId == 0xffffffffu && info[1].computeInstanceId == 0xffffffffu,
          "list: %u", count);
    count = 0;
    CHECK(f.nvmlDeviceGetComputeRunningProcesses_v3(d0, &count, NULL) == NVML_SUCCESS && count == 0,
          "none running: %u", count);
    nvmlMemory_t m;
    CHECK(f.nvmlDeviceGetMemoryInfo(d1, &m) == NVML_SUCCESS && m.used == 1300 &&
              m.total == 1024 * MiB && m.free == m.total - m.used,
          "memory %llu", m.used);
    CHECK(!strcmp(f.nvmlErrorString(NVML_ERROR_INSUFFICIENT_SIZE), "Insufficient Size"), "string");
    CHECK(f.nvmlShutdown() == NVML_SUCCESS && f.nvmlShutdown() == NVML_SUCCESS, "shutdown twice");
    CHECK(f.nvmlShutdown() == NVML_ERROR_UNINITIALIZED, "shutdown once too often");
    CHECK(f.nvmlDeviceGetMemoryInfo(d1, &m) == NVML_ERROR_UNINITIALIZED, "after shutdown");
    dlclose(h);
}

static int list(const char *lib) {
    struct cmt_nvml n;
    if (cmt_nvml_open(&n, lib)) {
        printf("status n/a %s\n", n.why);
        return 0;
    }
    printf("status ready%s%s\n", n.why[0] ? " " : "", n.why);
    for (size_t i = 0; i < n.ngpus; i++) {
        const struct cmt_nvml_gpu *g = &n.gpus[i];
        printf("gpu %s %s %llu %llu %zu\n", g->uuid, g->pci_bus_id,
               (unsigned long long)g->used_bytes, (unsigned long long)g->total_bytes, g->nprocs);
        for (size_t k = g->first_proc; k < g->first_proc + g->nprocs; k++) {
            if (n.procs[k].used_known)
                printf("proc %s %u %llu\n", g->uuid, n.procs[k].pid,
                       (unsigned long long)n.procs[k].used_bytes);
            else
                printf("proc %s %u n/a\n", g->uuid, n.procs[k].pid);
        }
    }
    cmt_nvml_close(&n);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "list")) return list(argc > 2 ? argv[2] : NULL);
    if (argc != 3 || strcmp(argv[1], "unit")) {
        fprintf(stderr, "usage: test_nvml unit FAKELIB | list [LIB]\n");
        return 2;
    }
    no_nvml(argv[2]);
    snapshot(argv[2]);
    fake_protocol(argv[2]);
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
