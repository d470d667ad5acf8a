/* rt_threads.c — N threads allocate on devices t%4; each allocation is freed by ANOTHER thread;
 * every thread leaks one allocation in thread_leak(). */
#include <cuda_runtime_api.h>
#include <pthread.h>

#include "fake_prog.h"

#define NT 8
#define PER 200

static void *slots[NT][PER];
static pthread_barrier_t bar;
static int allocs[NT];

static void thread_leak(int t)
{
    void *p;
    FAKE_RT(cudaMalloc(&p, 1000 + (size_t)t));
    allocs[t]++;
    fake_expect_leak("device", t % 4, 1000 + t);
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    FAKE_RT(cudaSetDevice(t % 4));
    for (int i = 0; i < PER; i++) {
        FAKE_RT(cudaMalloc(&slots[t][i], 256 + (size_t)i));
        allocs[t]++;
    }
    thread_leak(t);
    pthread_barrier_wait(&bar);
    /* free the other thread's allocations (on a different device than this thread's current) */
    int o = (t + 1) % NT;
    for (int i = 0; i < PER; i++)
        FAKE_RT(cudaFree(slots[o][i]));
    return NULL;
}

int main(void)
{
    fake_stdout_lines();
    pthread_t th[NT];
    pthread_barrier_init(&bar, NULL, NT);
    for (long t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < NT; t++) {
        pthread_join(th[t], NULL);
        fake_allocs += allocs[t];
    }
    fake_expect_alloc();
    return 0;
}
