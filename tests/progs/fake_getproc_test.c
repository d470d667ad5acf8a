/* fake_getproc_test.c — unit test of the fake driver's cuGetProcAddress(_v2).
 * Usage: fake_getproc_test REFERENCE-LIST (run with LD_LIBRARY_PATH=build/tests/fakecuda).
 * 1. Every line of the runtime's look-up list answers SUCCESS (a non-NULL pointer whose symbol is
 *    that base name or an ABI variant of it; a _ptsz/_ptds one only with flags 2) or NOT_FOUND
 *    (NULL, status SYMBOL_NOT_FOUND or VERSION_NOT_SUFFICIENT); the 4-arg form agrees.
 * 2. Variant / version / flags semantics, against expectations written here independently. */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        printf("FAIL: ");                                                                          \
        printf(__VA_ARGS__);                                                                       \
        printf("\n");                                                                              \
        failures++;                                                                                \
    } while (0)

static PFN_cuGetProcAddress_v12000 gpa2;
static PFN_cuGetProcAddress_v11030 gpa1;
static void *lib;

static int variant_of(const char *sym, const char *base, int per_thread)
{
    size_t n = strlen(base);
    if (strncmp(sym, base, n))
        return 0;
    const char *s = sym + n;
    if (s[0] == '_' && s[1] == 'v' && s[2] >= '0' && s[2] <= '9') {
        s += 2;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    if (!strcmp(s, "_ptsz") || !strcmp(s, "_ptds"))
        return per_thread;
    return *s == 0;
}

static void check_line(const char *name, int ver, int flags)
{
    void *fn = (void *)1;
    CUdriverProcAddressQueryResult st = 99;
    CUresult r = gpa2(name, &fn, ver, (cuuint64_t)flags, &st);
    void *fn1 = (void *)1;
    CUresult r1 = gpa1(name, &fn1, ver, (cuuint64_t)flags);
    if (r1 != r || fn1 != fn)
        FAIL("'%s' %d %d: 4-arg form disagrees", name, ver, flags);
    if (r == CUDA_SUCCESS) {
        Dl_info info;
        if (!fn || st != CU_GET_PROC_ADDRESS_SUCCESS)
            FAIL("'%s' %d %d: SUCCESS with fn=%p status=%d", name, ver, flags, fn, (int)st);
        else if (!dladdr(fn, &info) || !info.dli_sname)
            FAIL("'%s' %d %d: pointer names no symbol", name, ver, flags);
        else if (!variant_of(info.dli_sname, name, flags == 2))
            FAIL("'%s' %d %d: resolved to %s", name, ver, flags, info.dli_sname);
    } else if (r == CUDA_ERROR_NOT_FOUND) {
        if (fn || (st != CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND &&
                   st != CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT))
            FAIL("'%s' %d %d: NOT_FOUND with fn=%p status=%d", name, ver, flags, fn, (int)st);
        if (!*name && st != CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND)
            FAIL("empty name: status %d", (int)st);
    } else {
        FAIL("'%s' %d %d: result %d", name, ver, flags, (int)r);
    }
}

struct expect {
    const char *name;
    int version, flags;
    const char *symbol; /* NULL: NOT_FOUND */
    CUdriverProcAddressQueryResult status;
};

static const struct expect expects[] = {
    {"cuMemAlloc", 3020, 0, "cuMemAlloc_v2", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuMemAlloc", 12000, 2, "cuMemAlloc_v2", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuMemAlloc", 99999, 0, "cuMemAlloc_v2", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuMemAlloc", 12000, 1, "cuMemAlloc_v2", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuMemAlloc", 2000, 0, NULL, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT},
    {"cuMemFree", 3020, 0, "cuMemFree_v2", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuMemAllocAsync", 11020, 0, "cuMemAllocAsync", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuMemAllocAsync", 11020, 2, "cuMemAllocAsync_ptsz", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuMemAllocAsync", 11010, 2, NULL, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT},
    {"cuMemFreeAsync", 11020, 2, "cuMemFreeAsync_ptsz", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuMemAllocFromPoolAsync", 11020, 2, "cuMemAllocFromPoolAsync_ptsz", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuMemAllocFromPoolAsync", 11020, 0, "cuMemAllocFromPoolAsync", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuGetProcAddress", 11030, 0, "cuGetProcAddress", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuGetProcAddress", 12000, 0, "cuGetProcAddress_v2", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuGetProcAddress", 11020, 0, NULL, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT},
    {"cuMemHostRegister", 4000, 0, "cuMemHostRegister", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuMemHostRegister", 6050, 0, "cuMemHostRegister_v2", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuDevicePrimaryCtxRelease", 7000, 0, "cuDevicePrimaryCtxRelease", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuDevicePrimaryCtxRelease", 11000, 0, "cuDevicePrimaryCtxRelease_v2", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuDevicePrimaryCtxReset", 12000, 0, "cuDevicePrimaryCtxReset_v2", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuDeviceGetUuid", 9020, 0, "cuDeviceGetUuid", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuDeviceGetUuid", 11040, 0, "cuDeviceGetUuid_v2", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuDeviceTotalMem", 3020, 0, "cuDeviceTotalMem_v2", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuCtxGetDevice", 2000, 0, "cuCtxGetDevice", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuCtxGetDevice", 13000, 0, "cuCtxGetDevice_v2", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuCtxSynchronize", 13000, 0, "cuCtxSynchronize_v2", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuCtxCreate", 3020, 0, "cuCtxCreate_v2", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuCtxCreate", 12050, 0, "cuCtxCreate_v4", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuCtxDestroy", 4000, 0, "cuCtxDestroy_v2", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuStreamBeginCapture", 10000, 0, "cuStreamBeginCapture", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuStreamBeginCapture", 10000, 2, "cuStreamBeginCapture_ptsz", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuStreamBeginCapture", 10010, 0, "cuStreamBeginCapture_v2", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuStreamBeginCapture", 10010, 2, "cuStreamBeginCapture_v2_ptsz", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuStreamSynchronize", 7000, 1, "cuStreamSynchronize", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuStreamSynchronize", 7000, 2, "cuStreamSynchronize_ptsz", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuMemcpyHtoD", 3020, 2, "cuMemcpyHtoD_v2", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuMemcpyHtoD", 7000, 2, "cuMemcpyHtoD_v2_ptds", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuMemcpy", 7000, 2, "cuMemcpy_ptds", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuMemsetD8", 7000, 2, "cuMemsetD8_v2_ptds", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuArrayCreate", 3020, 0, "cuArrayCreate_v2", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuMemCreate", 10020, 0, "cuMemCreate", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuMemRetainAllocationHandle", 11000, 0, "cuMemRetainAllocationHandle", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuGraphInstantiate", 10000, 0, "cuGraphInstantiate", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuGraphInstantiate", 11000, 0, "cuGraphInstantiate_v2", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuGraphInstantiate", 11080, 0, "cuGraphInstantiate_v2", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuGraphInstantiate", 12000, 0, "cuGraphInstantiateWithFlags", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuGraphInstantiate", 13000, 2, "cuGraphInstantiateWithFlags", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuGraphInstantiateWithFlags", 11040, 0, "cuGraphInstantiateWithFlags", CU_GET_PROC_ADDRESS_SUCCESS},
    {"cuGetExportTable", 3000, 0, "cuGetExportTable", CU_GET_PROC_ADDRESS_SUCCESS},
    {"", 0, 0, NULL, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND},
    {"", 12000, 0, NULL, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND},
    {"cuNoSuchFunction", 12000, 0, NULL, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND},
    {"cuGraphicsGLRegisterBuffer", 3000, 0, NULL, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND},
};

static void check_expect(const struct expect *e)
{
    void *fn = (void *)1;
    CUdriverProcAddressQueryResult st = 99;
    CUresult r = gpa2(e->name, &fn, e->version, (cuuint64_t)e->flags, &st);
    if (e->symbol) {
        void *want = dlsym(lib, e->symbol);
        if (!want)
            FAIL("the fake does not export %s", e->symbol);
        if (r != CUDA_SUCCESS || fn != want || st != CU_GET_PROC_ADDRESS_SUCCESS) {
            Dl_info info = {0};
            dladdr(fn, &info);
            FAIL("('%s', %d, %d): want %s, got r=%d status=%d %s", e->name, e->version, e->flags,
                 e->symbol, (int)r, (int)st, info.dli_sname ? info.dli_sname : "?");
        }
    } else if (r != CUDA_ERROR_NOT_FOUND || fn != NULL || st != e->status) {
        FAIL("('%s', %d, %d): want NOT_FOUND status %d, got r=%d status=%d", e->name, e->version,
             e->flags, (int)e->status, (int)r, (int)st);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s REFERENCE-LIST\n", argv[0]);
        return 2;
    }
    lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen libcuda.so.1: %s\n", dlerror());
        return 2;
    }
    gpa2 = (PFN_cuGetProcAddress_v12000)dlsym(lib, "cuGetProcAddress_v2");
    gpa1 = (PFN_cuGetProcAddress_v11030)dlsym(lib, "cuGetProcAddress");
    if (!gpa2 || !gpa1) {
        fprintf(stderr, "no cuGetProcAddress in libcuda.so.1\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    char line[512];
    int lines = 0, found = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        char name[256] = "";
        int ver, flags;
        if (sscanf(line, "%255s %d %d", name, &ver, &flags) != 3) {
            name[0] = 0;
            if (sscanf(line, "%d %d", &ver, &flags) != 2)
                continue;
        }
        check_line(name, ver, flags);
        void *fn = NULL;
        CUdriverProcAddressQueryResult st;
        found += gpa2(name, &fn, ver, (cuuint64_t)flags, &st) == CUDA_SUCCESS;
        lines++;
    }
    fclose(f);
    if (lines < 400)
        FAIL("only %d look-ups read from %s", lines, argv[1]);
    for (size_t i = 0; i < sizeof expects / sizeof expects[0]; i++)
        check_expect(&expects[i]);
    void *fn;
    CUdriverProcAddressQueryResult st;
    if (gpa2("cuMemAlloc", &fn, 12000, 4, &st) != CUDA_ERROR_INVALID_VALUE)
        FAIL("invalid flags accepted");
    if (gpa2(NULL, &fn, 12000, 0, &st) != CUDA_ERROR_INVALID_VALUE)
        FAIL("NULL symbol accepted");
    printf("%d look-ups checked (%d found), %zu expectations, %d failures\n", lines, found,
           sizeof expects / sizeof expects[0], failures);
    return failures ? 1 : 0;
}
