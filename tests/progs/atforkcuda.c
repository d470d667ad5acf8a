/* atforkcuda.c — libatforkcuda.so: "another library" whose constructor registers a
 * pthread_atfork child handler that calls CUDA (a 4242-byte cuMemAlloc). It is initialised before
 * the preloaded tracker, so in a forked child its handler runs before the tracker's own. */
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>

static void child_alloc(void)
{
    CUdeviceptr p;
    CUresult r = cuMemAlloc(&p, 4242);
    if (r != CUDA_SUCCESS)
        fprintf(stderr, "atforkcuda: cuMemAlloc in the child handler -> %d\n", (int)r);
}

__attribute__((constructor)) static void atforkcuda_init(void) { pthread_atfork(NULL, NULL, child_alloc); }
