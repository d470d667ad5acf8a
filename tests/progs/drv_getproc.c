/* drv_getproc.c — cuMemAlloc through cuGetProcAddress: at versions 3020, 12000, 99999 with flags 0
 * and 2, through a cuGetProcAddress that was itself obtained by cuGetProcAddress (12000: 5-arg,
 * 11030: 4-arg). Each route allocates; the last one's allocation is leaked. */
#include <cuda.h>
#include <cudaTypedefs.h>

#include "fake_prog.h"

static void route_alloc(PFN_cuMemAlloc_v3020 fn, int leak)
{
    CUdeviceptr p;
    FAKE_CU_ALLOC(fn(&p, 1024));
    if (leak) {
        fake_expect_leak("device", 0, 1024);
        return;
    }
    FAKE_CU(cuMemFree(p));
}

static void leak_via_getproc(PFN_cuMemAlloc_v3020 fn) { route_alloc(fn, 1); }

int main(void)
{
    fake_drv_start();

    void *gpa12 = NULL, *gpa11 = NULL;
    CUdriverProcAddressQueryResult st;
    FAKE_CU(cuGetProcAddress("cuGetProcAddress", &gpa12, 12000, 0, &st));
    FAKE_CU(cuGetProcAddress("cuGetProcAddress", &gpa11, 11030, 0, &st));
    fake_check(gpa12 && gpa11 && gpa12 != gpa11);
    PFN_cuGetProcAddress_v12000 g12 = (PFN_cuGetProcAddress_v12000)gpa12;
    PFN_cuGetProcAddress_v11030 g11 = (PFN_cuGetProcAddress_v11030)gpa11;

    static const int versions[] = {3020, 12000, 99999};
    void *first = NULL;
    for (int i = 0; i < 3; i++)
        for (int fl = 0; fl <= 2; fl += 2) {
            void *fn = NULL;
            FAKE_CU(g12("cuMemAlloc", &fn, versions[i], (cuuint64_t)fl, &st));
            fake_check(st == CU_GET_PROC_ADDRESS_SUCCESS && fn);
            if (!first)
                first = fn;
            fake_check(fn == first); /* cuMemAlloc has no per-thread variant */
            route_alloc((PFN_cuMemAlloc_v3020)fn, 0);
        }
    void *fn = NULL;
    FAKE_CU(g11("cuMemAlloc", &fn, 3020, 0));
    fake_check(fn == first);
    route_alloc((PFN_cuMemAlloc_v3020)fn, 0);
    fake_check(g12("cuMemAlloc", &fn, 2000, 0, &st) == CUDA_ERROR_NOT_FOUND);
    fake_check(st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT && fn == NULL);
    void *a0 = NULL, *a2 = NULL;
    FAKE_CU(g12("cuMemAllocAsync", &a0, 11020, 0, &st));
    FAKE_CU(g12("cuMemAllocAsync", &a2, 11020, 2, &st));
    fake_check(a0 && a2 && a0 != a2);
    /* the 4-arg cuGetProcAddress obtained through the 5-arg one, and back */
    void *g11b = NULL, *g12b = NULL;
    FAKE_CU(g12("cuGetProcAddress", &g11b, 11030, 0, &st));
    FAKE_CU(g11("cuGetProcAddress", &g12b, 12000, 0));
    fake_check(g11b == gpa11 && g12b == gpa12);
    FAKE_CU(((PFN_cuGetProcAddress_v11030)g11b)("cuMemAlloc", &fn, 99999, 2));
    leak_via_getproc((PFN_cuMemAlloc_v3020)fn);
    fake_expect_alloc();
    return 0;
}
