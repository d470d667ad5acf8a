/* stack_thread_exit.c — allocations from a thread-specific-data destructor that runs after the
 * tracker's own (its key is created after the tracker's, which the first allocation makes, and
 * glibc runs destructors in key order): the thread's stack caches are gone by then, and the
 * allocation must still be recorded with its stack. 8 threads, each allocating 4 times while
 * running and 4 times from the destructor; every allocation is freed. Prints "ok". */
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>

#define THREADS 8

static volatile int sink;
static pthread_key_t key;

__attribute__((noinline)) static void alloc_here(size_t size) {
    CUdeviceptr p;
    if (cuMemAlloc(&p, size) != CUDA_SUCCESS || cuMemFree(p) != CUDA_SUCCESS) sink = 1;
}

__attribute__((noinline)) static void at_exit_of_thread(void *arg) {
    for (int i = 0; i < 4; i++)
        alloc_here(4096 + (size_t)arg);
}

__attribute__((noinline)) static void *worker(void *arg) {
    CUcontext c;
    cuDevicePrimaryCtxRetain(&c, 0);
    cuCtxSetCurrent(c);
    for (int i = 0; i < 4; i++)
        alloc_here(1024 + (size_t)arg);
    pthread_setspecific(key, arg);
    return NULL;
}

int main(void) {
    CUcontext c;
    cuInit(0);
    cuDevicePrimaryCtxRetain(&c, 0);
    cuCtxSetCurrent(c);
    alloc_here(512); /* the tracker's key first */
    pthread_key_create(&key, at_exit_of_thread);
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)(t + 1));
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    if (sink) return 1;
    printf("ok\n");
    return 0;
}
