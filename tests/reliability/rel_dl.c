/*
 * rel_dl.c — a runtime loaded late: THREADS threads are started and wait; then the main thread
 * dlopen()s libcudart.so.13 (MODE deepbind: with RTLD_DEEPBIND, the tracker must strip it and
 * warn once; MODE late: RTLD_NOW | RTLD_LOCAL) and releases the threads, which allocate PER times
 * each at once (freeing every other allocation on another thread's behalf at the end, leaking 1
 * per thread). Not linked with any CUDA library. Prints `expect-alloc N`.
 *   usage: rel_dl deepbind|late THREADS PER
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*malloc_fn)(void **, size_t);
typedef int (*free_fn)(void *);
typedef int (*setdev_fn)(int);
static malloc_fn rt_malloc;
static free_fn rt_free;
static setdev_fn rt_setdev;
static _Atomic int go;
static int per;
static void **slots;
static pthread_barrier_t bar;
static int nthreads;

static void *worker(void *arg) {
    int t = (int)(long)arg;
    while (!atomic_load(&go)) ;
    if (rt_setdev(t % 4) != 0) { printf("setdev failed\n"); exit(1); }
    for (int i = 0; i < per; i++)
        if (rt_malloc(&slots[t * per + i], 512 + (size_t)i) != 0) { printf("malloc failed\n"); exit(1); }
    pthread_barrier_wait(&bar);
    int o = (t + 1) % nthreads; /* free the next thread's, all but its first */
    for (int i = 1; i < per; i++)
        if (rt_free(slots[o * per + i]) != 0) { printf("free failed\n"); exit(1); }
    return NULL;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 4) { fprintf(stderr, "usage: rel_dl deepbind|late THREADS PER\n"); return 2; }
    nthreads = atoi(argv[2]);
    per = atoi(argv[3]);
    slots = calloc((size_t)nthreads * (size_t)per, sizeof *slots);
    pthread_t *th = calloc((size_t)nthreads, sizeof *th);
    pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
    for (long t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, worker, (void *)t);
    int mode = RTLD_NOW | RTLD_LOCAL | (strcmp(argv[1], "deepbind") ? 0 : RTLD_DEEPBIND);
    void *h = dlopen("libcudart.so.13", mode);
    if (!h) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 1; }
    rt_malloc = (malloc_fn)dlsym(h, "cudaMalloc");
    rt_free = (free_fn)dlsym(h, "cudaFree");
    rt_setdev = (setdev_fn)dlsym(h, "cudaSetDevice");
    if (!rt_malloc || !rt_free || !rt_setdev) { fprintf(stderr, "dlsym: %s\n", dlerror()); return 1; }
    atomic_store(&go, 1);
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    printf("expect-alloc %d\n", nthreads * per);
    return 0;
}
