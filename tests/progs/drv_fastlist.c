/* drv_fastlist.c — FAKECUDA_FAST's free lists (argv[1]: live allocations, default 100000): N
 * allocations of 256 bytes freed in a scattered order (a stride coprime to N), then N allocated
 * again. Checks that every address handed back was freed, once each (the lists lose and repeat
 * nothing), that a second free of one is refused and frees nothing, and prints the minor page faults
 * the N frees made ("free-faults K"): a free must not write into the freed allocation, whose
 * arena page it may be the first to touch (a real driver's free never does). Frees everything. */
#include <cuda.h>
#include <stdint.h>
#include <sys/resource.h>

#include "fake_prog.h"

static int cmp_ptr(const void *a, const void *b)
{
    CUdeviceptr x = *(const CUdeviceptr *)a, y = *(const CUdeviceptr *)b;
    return x < y ? -1 : x > y;
}

static long minflt(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

int main(int argc, char **argv)
{
    fake_stdout_lines();
    long n = argc > 1 ? atol(argv[1]) : 100000;
    if (n < 2)
        n = 2;
    CUcontext ctx;
    FAKE_CU(cuInit(0));
    FAKE_CU(cuDevicePrimaryCtxRetain(&ctx, 0));
    FAKE_CU(cuCtxSetCurrent(ctx));
    CUdeviceptr *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b);
    fake_check(a && b);
    for (long i = 0; i < n; i++)
        FAKE_CU(cuMemAlloc(&a[i], 256));
    fake_allocs += (int)n;
    long stride = 7919; /* a prime: coprime to n unless n is a multiple of it */
    while (n % stride == 0)
        stride += 2;
    long before = minflt();
    for (long i = 0, k = 0; i < n; i++, k = (k + stride) % n)
        FAKE_CU(cuMemFree(a[k]));
    long faults = minflt() - before;
    fake_check(cuMemFree(a[0]) == CUDA_ERROR_INVALID_VALUE); /* freed already */
    for (long i = 0; i < n; i++)
        FAKE_CU(cuMemAlloc(&b[i], 256));
    fake_allocs += (int)n;
    qsort(a, (size_t)n, sizeof *a, cmp_ptr);
    qsort(b, (size_t)n, sizeof *b, cmp_ptr);
    for (long i = 0; i < n; i++)
        if (a[i] != b[i])
            fake_fail("allocation %ld: %#llx handed back, %#llx freed", i, (unsigned long long)b[i],
                      (unsigned long long)a[i]);
    for (long i = 0; i < n; i++)
        FAKE_CU(cuMemFree(b[i]));
    printf("free-faults %ld\n", faults);
    fake_expect_alloc();
    return 0;
}
