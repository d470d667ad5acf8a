/*
 * rel_app.c — the reliability test program (runtime double, shared). Modes:
 *
 *   stress THREADS OPS SEED     THREADS threads, OPS random alloc/free each, random sizes, random
 *                               devices, every family (cudaMalloc, Pitch, Managed, Async, HostAlloc,
 *                               HostRegister); an allocation is handed to the NEXT thread's locked
 *                               queue, so every free happens on a different thread than its
 *                               allocation. At the end ~1/16 of what is left is leaked. Prints
 *                               `expect-alloc N` and `rel-dev ORD allocs A frees F leaked B`
 *                               (ORD -1: host) from its own counts.
 *   short WAVES PER_WAVE        WAVES waves of PER_WAVE short-lived threads, each allocating 3
 *                               times, freeing 2 and leaking 1, then exiting.
 *   crash MODE N SEED           allocates in a loop (frees 1 in 4), printing `done PTR SIZE` (fflush)
 *                               after each completed allocation; after N allocations: MODE loop:
 *                               pause() (waits for kill -9); abort: abort(); segv: writes to NULL;
 *                               oom: cudaMallocHost(1 MiB) until it fails, then raise(SIGKILL).
 *   checksum [EXIT]             device data through cudaMemset/cudaMemcpy on every device, prints
 *                               checksums; exits EXIT (default 0).
 *   closefds N / dupfds N       checksum, then close_range(3, ~0) / dup2 of /dev/null over every
 *                               descriptor from 3 to 4095, then N more alloc/free pairs, checksum.
 *   fork THREADS OPS            THREADS threads allocate while the main thread forks a child that
 *                               allocates (two leaks of 4 MiB + 5555 bytes, sizes the parent never uses) and exits; prints parent-pid,
 *                               child-pid, expect-alloc.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../progs/fake_prog.h"

#define MAXT 64
#define MAXDEV 8
#define QCAP 1024

enum { K_DEVICE, K_PITCH, K_MANAGED, K_ASYNC, K_HOST, K_REGISTER, K_COUNT };

struct item {
    void *p;
    int kind, dev;
    size_t bytes; /* as the report counts them (pitch: pitch * height) */
};

struct queue {
    pthread_mutex_t lock;
    struct item q[QCAP];
    int head, n;
};

static struct queue queues[MAXT];
static int nthreads, ndev;
static atomic_long ops_done, ops_skipped; /* skipped: nothing to free and nowhere to hand an allocation */
static long nops;
static unsigned seed0;
static pthread_barrier_t bar;
/* per device (index dev + 1; 0 is host) */
static atomic_long t_allocs[MAXDEV + 1], t_frees[MAXDEV + 1], t_leaked[MAXDEV + 1];
static atomic_long total_allocs;

static unsigned rnd(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xffffff;
}

static int push(struct queue *q, const struct item *it) {
    pthread_mutex_lock(&q->lock);
    int ok = q->n < QCAP;
    if (ok) q->q[(q->head + q->n++) % QCAP] = *it;
    pthread_mutex_unlock(&q->lock);
    return ok;
}

static int pop(struct queue *q, struct item *it) {
    pthread_mutex_lock(&q->lock);
    int ok = q->n > 0;
    if (ok) {
        *it = q->q[q->head];
        q->head = (q->head + 1) % QCAP;
        q->n--;
    }
    pthread_mutex_unlock(&q->lock);
    return ok;
}

static size_t rand_size(unsigned *s) {
    unsigned r = rnd(s);
    if ((r & 63) == 0) return 1 + rnd(s) % (4u << 20); /* now and then up to 4 MiB */
    return 1 + rnd(s) % 65536;
}

static int do_alloc(unsigned *s, struct item *it) {
    it->kind = (int)(rnd(s) % K_COUNT);
    it->dev = (int)(rnd(s) % (unsigned)ndev);
    size_t n = rand_size(s);
    FAKE_RT(cudaSetDevice(it->dev));
    switch (it->kind) {
    case K_DEVICE: FAKE_RT(cudaMalloc(&it->p, n)); it->bytes = n; break;
    case K_PITCH: {
        size_t pitch = 0, w = 1 + n % 4096, h = 1 + rnd(s) % 16;
        FAKE_RT(cudaMallocPitch(&it->p, &pitch, w, h));
        it->bytes = pitch * h;
        break;
    }
    case K_MANAGED: FAKE_RT(cudaMallocManaged(&it->p, n, cudaMemAttachGlobal)); it->bytes = n; break;
    case K_ASYNC: FAKE_RT(cudaMallocAsync(&it->p, n, 0)); it->bytes = n; break;
    case K_HOST: FAKE_RT(cudaHostAlloc(&it->p, n, 0)); it->bytes = n; it->dev = -1; break;
    case K_REGISTER:
        it->p = malloc(n);
        if (!it->p) fake_fail("malloc");
        FAKE_RT(cudaHostRegister(it->p, n, 0));
        it->bytes = n;
        it->dev = -1;
        break;
    }
    atomic_fetch_add(&t_allocs[it->dev + 1], 1);
    atomic_fetch_add(&total_allocs, 1);
    return 1;
}

static void do_free(unsigned *s, const struct item *it) {
    /* free from whatever device this thread is on (often not the allocation's) */
    FAKE_RT(cudaSetDevice((int)(rnd(s) % (unsigned)ndev)));
    switch (it->kind) {
    case K_DEVICE:
    case K_PITCH:
    case K_MANAGED: FAKE_RT(cudaFree(it->p)); break;
    case K_ASYNC: FAKE_RT(cudaFreeAsync(it->p, 0)); break;
    case K_HOST: FAKE_RT(cudaFreeHost(it->p)); break;
    case K_REGISTER:
        FAKE_RT(cudaHostUnregister(it->p));
        free(it->p);
        break;
    }
    atomic_fetch_add(&t_frees[it->dev + 1], 1);
}

static void leak(const struct item *it) { atomic_fetch_add(&t_leaked[it->dev + 1], (long)it->bytes); }

static _Atomic int finished[MAXT];

static void *stress_worker(void *arg) {
    int t = (int)(long)arg, nx = (t + 1) % nthreads;
    unsigned s = seed0 * 7919u + (unsigned)t * 104729u + 1;
    struct queue *mine = &queues[t], *next = &queues[nx];
    struct item it;
    long done = 0, skipped = 0;
    pthread_barrier_wait(&bar);
    for (long i = 0; i < nops;) {
        if (rnd(&s) % 2 && pop(mine, &it)) {
            do_free(&s, &it);
            i++, done++;
            continue;
        }
        if (__atomic_load_n(&next->n, __ATOMIC_RELAXED) >= QCAP) {
            /* the next thread is behind: free one of ours, or wait for it (skip if it finished) */
            if (pop(mine, &it)) {
                do_free(&s, &it);
                i++, done++;
            } else if (atomic_load(&finished[nx])) {
                i++, skipped++;
            } else {
                sched_yield();
            }
            continue;
        }
        do_alloc(&s, &it);
        if (!push(next, &it)) /* raced full: the next thread frees it through our queue later */
            while (!push(mine, &it)) sched_yield();
        i++, done++;
    }
    atomic_store(&finished[t], 1);
    atomic_fetch_add(&ops_done, done);
    atomic_fetch_add(&ops_skipped, skipped);
    pthread_barrier_wait(&bar);
    /* drain: what the previous thread allocated; every 16th is leaked */
    int k = 0;
    while (pop(mine, &it)) {
        if (++k % 16 == 0)
            leak(&it);
        else
            do_free(&s, &it);
    }
    return NULL;
}

static void print_totals(void) {
    printf("expect-alloc %ld\n", atomic_load(&total_allocs));
    printf("rel-ops %ld\n", atomic_load(&ops_done) + atomic_load(&ops_skipped));
    printf("rel-skipped %ld\n", atomic_load(&ops_skipped));
    for (int d = -1; d < ndev; d++)
        printf("rel-dev %d allocs %ld frees %ld leaked %ld\n", d, atomic_load(&t_allocs[d + 1]),
               atomic_load(&t_frees[d + 1]), atomic_load(&t_leaked[d + 1]));
    fflush(stdout);
}

static int run_stress(int argc, char **argv) {
    nthreads = argc > 2 ? atoi(argv[2]) : 8;
    nops = argc > 3 ? atol(argv[3]) : 20000;
    seed0 = argc > 4 ? (unsigned)atoi(argv[4]) : 1;
    if (nthreads < 2 || nthreads > MAXT) fake_fail("threads: 2..%d", MAXT);
    pthread_t th[MAXT];
    pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
    for (int t = 0; t < nthreads; t++) pthread_mutex_init(&queues[t].lock, NULL);
    for (long t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, stress_worker, (void *)t);
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    print_totals();
    return 0;
}

/* ---- short-lived threads ---- */

static void *short_worker(void *arg) {
    unsigned s = (unsigned)(uintptr_t)arg * 2654435761u + 7;
    struct item a, b, c;
    do_alloc(&s, &a);
    do_alloc(&s, &b);
    do_free(&s, &a);
    do_alloc(&s, &c);
    do_free(&s, &b);
    leak(&c);
    return NULL;
}

static int run_short(int argc, char **argv) {
    int waves = argc > 2 ? atoi(argv[2]) : 50, per = argc > 3 ? atoi(argv[3]) : 16;
    if (per > MAXT) per = MAXT;
    pthread_t th[MAXT];
    for (int w = 0; w < waves; w++) {
        for (int i = 0; i < per; i++)
            if (pthread_create(&th[i], NULL, short_worker, (void *)(uintptr_t)(w * per + i)))
                fake_fail("pthread_create");
        for (int i = 0; i < per; i++) pthread_join(th[i], NULL);
    }
    print_totals();
    return 0;
}

/* ---- crashes ---- */

static int run_crash(int argc, char **argv) {
    const char *mode = argc > 2 ? argv[2] : "loop";
    long n = argc > 3 ? atol(argv[3]) : 100;
    unsigned s = argc > 4 ? (unsigned)atoi(argv[4]) : 1;
    struct item live[64];
    int nlive = 0;
    for (long i = 0; i < n; i++) {
        struct item it;
        do_alloc(&s, &it);
        printf("done %p %zu\n", it.p, it.bytes);
        fflush(stdout);
        if (nlive == 64 || rnd(&s) % 4 == 0) {
            int j = (int)(rnd(&s) % (unsigned)(nlive ? nlive : 1));
            if (nlive) {
                do_free(&s, &live[j]);
                live[j] = live[--nlive];
            }
        }
        live[nlive++] = it;
    }
    printf("ready\n");
    fflush(stdout);
    if (!strcmp(mode, "abort")) abort();
    if (!strcmp(mode, "segv")) {
        *(volatile int *)(uintptr_t)0 = 1;
        return 99;
    }
    if (!strcmp(mode, "oom")) {
        for (;;) {
            void *p;
            if (cudaMallocHost(&p, 1 << 20) != cudaSuccess) break;
            memset(p, 1, 1 << 20);
            printf("done %p %d\n", p, 1 << 20);
            fflush(stdout);
        }
        printf("exhausted\n");
        fflush(stdout);
        raise(SIGKILL);
    }
    for (;;) pause();
}

/* ---- results ---- */

static uint64_t fnv(const unsigned char *p, size_t n, uint64_t h) {
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static void checksums(int round) {
    const size_t n = 1 << 16;
    unsigned char *h = malloc(n), *back = malloc(n);
    for (int d = 0; d < ndev; d++) {
        FAKE_RT(cudaSetDevice(d));
        void *a, *b;
        FAKE_RT(cudaMalloc(&a, n));
        FAKE_RT(cudaMalloc(&b, n));
        for (size_t i = 0; i < n; i++) h[i] = (unsigned char)(i * 31 + (size_t)d * 7 + (size_t)round);
        FAKE_RT(cudaMemset(a, d + 1, n));
        FAKE_RT(cudaMemcpy((char *)a + n / 2, h, n / 4, cudaMemcpyHostToDevice));
        FAKE_RT(cudaMemcpy(b, a, n, cudaMemcpyDeviceToDevice));
        FAKE_RT(cudaMemset((char *)b + 100, 0xab, 50));
        FAKE_RT(cudaMemcpy(back, b, n, cudaMemcpyDeviceToHost));
        printf("checksum round %d dev %d %016llx\n", round, d, (unsigned long long)fnv(back, n, 14695981039346656037ull));
        FAKE_RT(cudaFree(a));
        FAKE_RT(cudaFree(b));
    }
    free(h);
    free(back);
    fflush(stdout);
}

static void pairs(long n) {
    unsigned s = 99;
    for (long i = 0; i < n; i++) {
        struct item it;
        do_alloc(&s, &it);
        do_free(&s, &it);
    }
}

static int run_fds(int argc, char **argv) {
    long n = argc > 2 ? atol(argv[2]) : 5000;
    checksums(0);
    pairs(100);
    if (!strcmp(argv[1], "closefds")) {
        if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0) fake_fail("close_range");
        /* reuse the low numbers */
        for (int i = 0; i < 8; i++) open("/dev/null", O_RDONLY);
    } else {
        int fd = open("/dev/null", O_RDWR);
        for (int i = 3; i < 4096; i++)
            if (i != fd) dup2(fd, i);
    }
    pairs(n);
    checksums(1);
    printf("expect-alloc %ld\n", atomic_load(&total_allocs) - 4 * ndev);
    fflush(stdout);
    return 0;
}

/* ---- fork while other threads allocate ---- */

static _Atomic int fork_stop;

static void *fork_worker(void *arg) {
    unsigned s = (unsigned)(uintptr_t)arg + 3;
    while (!atomic_load(&fork_stop)) {
        struct item it;
        do_alloc(&s, &it);
        do_free(&s, &it);
    }
    return NULL;
}

static int run_fork(int argc, char **argv) {
    int nt = argc > 2 ? atoi(argv[2]) : 4, forks = argc > 3 ? atoi(argv[3]) : 1;
    if (nt > MAXT) nt = MAXT;
    void *warm;
    FAKE_RT(cudaMalloc(&warm, 3333)); /* the parent's own leak */
    atomic_fetch_add(&total_allocs, 1);
    pthread_t th[MAXT];
    for (long t = 0; t < nt; t++) pthread_create(&th[t], NULL, fork_worker, (void *)t);
    printf("parent-pid %d\n", (int)getpid());
    fflush(stdout);
    for (int f = 0; f < forks; f++) {
        usleep(20000);
        pid_t pid = fork();
        if (pid == 0) {
            void *p, *q;
            if (cudaSetDevice(0) != cudaSuccess || cudaMalloc(&p, 4199859) != cudaSuccess ||
                cudaMalloc(&q, 4199860) != cudaSuccess || cudaFree(q) != cudaSuccess ||
                cudaMalloc(&q, 4199859) != cudaSuccess)
                _exit(3);
            printf("child-pid %d\n", (int)getpid());
            fflush(stdout);
            exit(0);
        }
        int st;
        if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
            fake_fail("child %d ended with status %#x", (int)pid, st);
    }
    atomic_store(&fork_stop, 1);
    for (int t = 0; t < nt; t++) pthread_join(th[t], NULL);
    printf("expect-alloc %ld\n", atomic_load(&total_allocs));
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    fake_stdout_lines();
    if (argc < 2) fake_fail("usage: rel_app stress|short|crash|checksum|closefds|dupfds|fork ...");
    FAKE_RT(cudaGetDeviceCount(&ndev));
    if (ndev > MAXDEV) ndev = MAXDEV;
    if (ndev < 1) fake_fail("no devices");
    if (!strcmp(argv[1], "stress")) return run_stress(argc, argv);
    if (!strcmp(argv[1], "short")) return run_short(argc, argv);
    if (!strcmp(argv[1], "crash")) return run_crash(argc, argv);
    if (!strcmp(argv[1], "closefds") || !strcmp(argv[1], "dupfds")) return run_fds(argc, argv);
    if (!strcmp(argv[1], "fork")) return run_fork(argc, argv);
    if (!strcmp(argv[1], "checksum")) {
        checksums(0);
        pairs(200);
        checksums(1);
        return argc > 2 ? atoi(argv[2]) : 0;
    }
    fake_fail("unknown mode %s", argv[1]);
}
