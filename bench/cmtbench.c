/*
 * cmtbench.c — the workload behind `make bench` (bench/run.sh drives it; BENCHMARKS.md is the
 * result). Not a test: it asserts nothing, it prints one line of "key value" figures.
 *
 * It links the CUDA toolkit's stub libcuda.so and so runs on whatever libcuda.so.1 the loader
 * finds: bench/run.sh points LD_LIBRARY_PATH at the fake driver (tests/fakecuda, FAKECUDA_FAST=1)
 * and adds LD_PRELOAD=build/libcumemtrack.so for tracked runs.
 *
 *   cmtbench pairs API DEPTH PAIRS THREADS [LIVE]
 *       API cuda: cuMemAlloc_v2(256) + cuMemFree_v2 pairs; API malloc: malloc(256) + free.
 *       Each thread first recurses through DEPTH noinline frames (so a stack captured in the loop
 *       really is at least DEPTH frames deep), warms up, waits on a barrier, then runs PAIRS pairs.
 *       LIVE (cuda only): allocations made first and kept live to the end (freed before exit).
 *       Prints: ns_per_pair (wall / pairs per thread), mpairs_per_s (all threads), wall_s, user_ns
 *       and sys_ns (CPU time per pair over the timed loop), pairs_total (every alloc+free pair the
 *       process made, warm-up included; LIVE allocations count as one pair each).
 *   cmtbench live N
 *       Keeps N cuMemAlloc_v2(256) allocations live and prints how the process's anonymous RSS,
 *       file-backed RSS and malloc arena grew over them (anon_delta, file_delta, heap_delta bytes).
 *   cmtbench exec CMD [ARG]...
 *       Runs CMD (stdout to /dev/null) and prints its wall time and peak RSS (wait4's ru_maxrss):
 *       wall_s, maxrss_kb, status. Used for the analyzer, so nothing else needs to be installed.
 */
#include <cuda.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *api;
static long pairs, live_n;
static int depth;
static pthread_barrier_t start_bar, end_bar;
static CUcontext ctx;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define CK(call)                                                                                   \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            fprintf(stderr, "cmtbench: %s failed: %d\n", #call, (int)r_);                          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

__attribute__((noinline)) static void loop_cuda(long n) {
    for (long i = 0; i < n; i++) {
        CUdeviceptr p;
        CK(cuMemAlloc_v2(&p, 256));
        CK(cuMemFree_v2(p));
    }
}

__attribute__((noinline)) static void loop_malloc(long n) {
    for (long i = 0; i < n; i++) {
        void *p = malloc(256);
        __asm__ volatile("" : : "r"(p) : "memory"); /* keeps the pair from being elided */
        free(p);
    }
}

static void run_loop(long n) {
    if (strcmp(api, "cuda") == 0)
        loop_cuda(n);
    else
        loop_malloc(n);
}


static int cmd_exec(char **argv) {
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout)) _exit(127);
        execvp(argv[0], argv);
        _exit(127);
    }
    int st = 0;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &st, 0, &ru) < 0) return 1;
    printf("wall_s %.4f maxrss_kb %ld status %d\n", now_s() - t0, ru.ru_maxrss,
           WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    return 0;
}

struct tstat {
    double t0, t1, cpu_user, cpu_sys;
};
static __thread struct tstat *my_stat;

static void thread_cpu(double *user, double *sys) {
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    *user = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6;
    *sys = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

/* The measured part, called at the bottom of the recursion. Each thread times itself (the main
 * thread may be descheduled on a loaded machine). */
__attribute__((noinline)) static void bottom(void) {
    struct tstat *st = my_stat;
    double u0, s0, u1, s1;
    run_loop(pairs / 100 + 1000); /* warm-up: per-thread blocks, stack cache, free lists */
    pthread_barrier_wait(&start_bar);
    thread_cpu(&u0, &s0);
    st->t0 = now_s();
    run_loop(pairs);
    st->t1 = now_s();
    thread_cpu(&u1, &s1);
    st->cpu_user = u1 - u0;
    st->cpu_sys = s1 - s0;
    pthread_barrier_wait(&end_bar);
}

/* DEPTH noinline frames; the barrier after the call keeps it from becoming a tail call. */
__attribute__((noinline)) static void descend(int d) {
    if (d <= 1)
        bottom();
    else
        descend(d - 1);
    __asm__ volatile("" ::: "memory");
}

static void *thread_main(void *arg) {
    my_stat = arg;
    if (strcmp(api, "cuda") == 0)
        CK(cuCtxSetCurrent(ctx));
    descend(depth);
    return NULL;
}

static long status_kb(const char *key) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t k = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, k) == 0 && line[k] == ':') v = strtol(line + k + 1, NULL, 10);
    if (f) fclose(f);
    return v;
}

static void cuda_setup(void) {
    CUdevice dev;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
}

static int cmd_live(long n) {
    cuda_setup();
    CUdeviceptr *v = malloc((size_t)n * sizeof *v);
    if (!v) return 1;
    memset(v, 0, (size_t)n * sizeof *v); /* touch the vector before the first reading */
    CUdeviceptr warm;                     /* first call: tracker initialisation, dump creation */
    CK(cuMemAlloc_v2(&warm, 256));
    CK(cuMemFree_v2(warm));
    long a0 = status_kb("RssAnon"), f0 = status_kb("RssFile");
    struct mallinfo2 m0 = mallinfo2();
    for (long i = 0; i < n; i++) CK(cuMemAlloc_v2(&v[i], 256));
    long a1 = status_kb("RssAnon"), f1 = status_kb("RssFile");
    struct mallinfo2 m1 = mallinfo2();
    printf("anon_delta %ld file_delta %ld heap_delta %ld n %ld\n", (a1 - a0) * 1024, (f1 - f0) * 1024,
           (long)(m1.arena + m1.hblkhd) - (long)(m0.arena + m0.hblkhd), n);
    for (long i = 0; i < n; i++) CK(cuMemFree_v2(v[i]));
    free(v);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[1], "live") == 0) return cmd_live(atol(argv[2]));
    if (argc >= 3 && strcmp(argv[1], "exec") == 0) return cmd_exec(argv + 2);
    if (argc < 6 || strcmp(argv[1], "pairs") != 0) {
        fprintf(stderr, "usage: cmtbench pairs cuda|malloc DEPTH PAIRS THREADS [LIVE] | live N\n");
        return 2;
    }
    api = argv[2];
    depth = atoi(argv[3]);
    pairs = atol(argv[4]);
    int threads = atoi(argv[5]);
    live_n = argc > 6 ? atol(argv[6]) : 0;
    if (depth < 1) depth = 1;
    CUdeviceptr *live = NULL;
    if (strcmp(api, "cuda") == 0) {
        cuda_setup();
        if (live_n) {
            live = calloc((size_t)live_n, sizeof *live);
            for (long i = 0; i < live_n; i++) CK(cuMemAlloc_v2(&live[i], 256));
        }
    }
    pthread_barrier_init(&start_bar, NULL, (unsigned)threads + 1);
    pthread_barrier_init(&end_bar, NULL, (unsigned)threads + 1);
    pthread_t *t = calloc((size_t)threads, sizeof *t);
    struct tstat *ts = calloc((size_t)threads, sizeof *ts);
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, thread_main, &ts[i]);
    pthread_barrier_wait(&start_bar);
    pthread_barrier_wait(&end_bar);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    double first = ts[0].t0, last = ts[0].t1, user = 0, sys = 0;
    for (int i = 0; i < threads; i++) {
        if (ts[i].t0 < first) first = ts[i].t0;
        if (ts[i].t1 > last) last = ts[i].t1;
        user += ts[i].cpu_user;
        sys += ts[i].cpu_sys;
    }
    double wall = last - first; /* from the first thread's start to the last one's end */
    for (long i = 0; i < live_n; i++) CK(cuMemFree_v2(live[i]));
    /* user/sys: CPU time of all threads over the timed loop, per pair made by any thread */
    double total = (double)pairs * threads;
    printf("ns_per_pair %.2f mpairs_per_s %.3f wall_s %.4f user_ns %.2f sys_ns %.2f pairs_total %.0f\n",
           wall * 1e9 / (double)pairs, total / wall / 1e6, wall, user * 1e9 / total, sys * 1e9 / total,
           (double)(pairs + pairs / 100 + 1000) * threads + 2.0 * live_n);
    return 0;
}
