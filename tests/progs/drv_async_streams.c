/* drv_async_streams.c — stream-ordered allocations where the tracker answers without asking the
 * driver each time (its stream-device cache and its "no capture begun yet" shortcut):
 *   devices [future] created streams of devices 0 and 1, allocating with device 0's context
 *                    current: each allocation is on its stream's device; then a stream of device 0
 *                    is destroyed and its handle reused (the fake hands it out again) by a stream
 *                    of device 1: allocations on it are device 1's (future: destroyed through a
 *                    cuStreamDestroy variant the tracker does not know, FAKECUDA_FUTURE_VARIANT)
 *   capture VARIANT  1000 uncaptured pairs, then a capture begun through VARIANT (v1, v2, ptsz:
 *                    cuGetProcAddress with the per-thread flag, tograph: BeginCaptureToGraph,
 *                    future: a variant the tracker does not know, FAKECUDA_FUTURE_VARIANT) on
 *                    stream b; stream c joins it by waiting on an event recorded in b: allocations
 *                    and frees on b and c are graph nodes, not memory
 *   pairs N          N cuMemAllocAsync+cuMemFreeAsync pairs on one created stream (for counting
 *                    the driver calls with FAKECUDA_TRACE)
 * Prints `expect-leak` lines and `expect-alloc N` (fake_prog.h). */
#include <cuda.h>

#include "fake_prog.h"

#define KB ((size_t)1 << 10)

static CUcontext ctx_of(int dev)
{
    CUcontext c;
    FAKE_CU(cuDevicePrimaryCtxRetain(&c, dev));
    return c;
}

static CUstream stream_on(int dev)
{
    CUcontext prev;
    FAKE_CU(cuCtxGetCurrent(&prev));
    FAKE_CU(cuCtxSetCurrent(ctx_of(dev)));
    CUstream s;
    FAKE_CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    FAKE_CU(cuCtxSetCurrent(prev));
    return s;
}

static CUdeviceptr alloc_on(CUstream s, size_t size)
{
    CUdeviceptr p;
    FAKE_CU_ALLOC(cuMemAllocAsync(&p, size, s));
    return p;
}

static void leak_on(CUstream s, int dev, size_t size)
{
    alloc_on(s, size);
    fake_expect_leak("async", dev, size);
}

typedef CUresult (*destroy_t)(CUstream);
typedef CUresult (*begin_ptsz_t)(CUstream, CUstreamCaptureMode);
static destroy_t destroy = cuStreamDestroy;

static void devices(const char *variant)
{
    if (variant && !strcmp(variant, "future")) /* FAKECUDA_FUTURE_VARIANT: one the tracker lacks */
        FAKE_CU(cuGetProcAddress("cuStreamDestroy", (void **)&destroy, 14000, 0, NULL));
    CUstream s0 = stream_on(0), s1 = stream_on(1);
    /* device 0's context is current: the allocations on s1 are still device 1's */
    for (int i = 0; i < 100; i++) {
        FAKE_CU(cuMemFreeAsync(alloc_on(s0, 4 * KB), s0));
        FAKE_CU(cuMemFreeAsync(alloc_on(s1, 8 * KB), s1));
    }
    leak_on(s0, 0, 16 * KB);
    leak_on(s1, 1, 32 * KB);
    leak_on(NULL, 0, 20 * KB); /* the current context's stream */
    FAKE_CU(destroy(s0));
    CUstream s2 = stream_on(1);
    fake_check(s2 == s0); /* the fake reuses the handle: the cache must not */
    leak_on(s2, 1, 64 * KB);
    FAKE_CU(cuCtxSetCurrent(ctx_of(1)));
    FAKE_CU(destroy(s2));
    CUstream s3 = stream_on(0); /* and back to device 0, created with device 1 current */
    fake_check(s3 == s0);
    leak_on(s3, 0, 128 * KB);
    leak_on(s1, 1, 40 * KB);
    leak_on(NULL, 1, 24 * KB);
}


static void begin(const char *variant, CUstream s)
{
    if (!strcmp(variant, "v1")) {
        CUresult cuStreamBeginCapture_v1(CUstream) __asm__("cuStreamBeginCapture");
        FAKE_CU(cuStreamBeginCapture_v1(s));
    } else if (!strcmp(variant, "v2")) {
        FAKE_CU(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    } else if (!strcmp(variant, "ptsz")) {
        void *fn = NULL;
        FAKE_CU(cuGetProcAddress("cuStreamBeginCapture", &fn, 12000,
                                 CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, NULL));
        FAKE_CU(((begin_ptsz_t)fn)(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    } else if (!strcmp(variant, "future")) { /* FAKECUDA_FUTURE_VARIANT: one the tracker lacks */
        void *fn = NULL;
        FAKE_CU(cuGetProcAddress("cuStreamBeginCapture", &fn, 14000, 0, NULL));
        FAKE_CU(((begin_ptsz_t)fn)(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    } else if (!strcmp(variant, "tograph")) {
        CUgraph g;
        FAKE_CU(cuGraphCreate(&g, 0));
        FAKE_CU(cuStreamBeginCaptureToGraph(s, g, NULL, NULL, 0, CU_STREAM_CAPTURE_MODE_GLOBAL));
    } else {
        fake_fail("unknown capture variant %s", variant);
    }
}

static void capture(const char *variant)
{
    CUstream a = stream_on(0), b = stream_on(0), c = stream_on(0);
    for (int i = 0; i < 1000; i++)
        FAKE_CU(cuMemFreeAsync(alloc_on(a, 4 * KB), a));
    begin(variant, b);
    CUdeviceptr pb, pc;
    FAKE_CU(cuMemAllocAsync(&pb, 1 * KB, b)); /* graph nodes: not counted */
    CUevent e;
    FAKE_CU(cuEventCreate(&e, 0));
    FAKE_CU(cuEventRecord(e, b));
    FAKE_CU(cuStreamWaitEvent(c, e, 0)); /* c joins b's capture */
    CUstreamCaptureStatus st;
    FAKE_CU(cuStreamIsCapturing(c, &st));
    fake_check(st == CU_STREAM_CAPTURE_STATUS_ACTIVE);
    FAKE_CU(cuMemAllocAsync(&pc, 2 * KB, c));
    FAKE_CU(cuMemFreeAsync(pb, c));
    FAKE_CU(cuMemFreeAsync(pc, b));
    CUgraph g;
    FAKE_CU(cuStreamEndCapture(b, &g));
    FAKE_CU(cuStreamIsCapturing(c, &st));
    fake_check(st == CU_STREAM_CAPTURE_STATUS_NONE);
    CUstream d = stream_on(0); /* e was recorded in a capture that has ended: waiting on it joins nothing */
    FAKE_CU(cuStreamWaitEvent(d, e, 0));
    FAKE_CU(cuStreamIsCapturing(d, &st));
    fake_check(st == CU_STREAM_CAPTURE_STATUS_NONE);
    FAKE_CU(cuGraphDestroy(g));
    FAKE_CU(cuStreamWaitEvent(d, e, 0)); /* nor once its graph is destroyed */
    FAKE_CU(cuStreamIsCapturing(d, &st));
    fake_check(st == CU_STREAM_CAPTURE_STATUS_NONE);
    leak_on(c, 0, 8 * KB); /* the capture ended: memory again */
    leak_on(a, 0, 12 * KB);
    FAKE_CU(cuEventDestroy(e));
}

static void pairs(long n)
{
    CUstream s = stream_on(0);
    for (long i = 0; i < n; i++)
        FAKE_CU(cuMemFreeAsync(alloc_on(s, 4 * KB), s));
}

int main(int argc, char **argv)
{
    fake_drv_start();
    const char *mode = argc > 1 ? argv[1] : "devices";
    if (!strcmp(mode, "devices"))
        devices(argc > 2 ? argv[2] : NULL);
    else if (!strcmp(mode, "capture") && argc > 2)
        capture(argv[2]);
    else if (!strcmp(mode, "pairs") && argc > 2)
        pairs(atol(argv[2]));
    else
        fake_fail("usage: drv_async_streams devices [future] | capture v1|v2|ptsz|tograph|future | pairs N");
    fake_expect_alloc();
    return 0;
}
