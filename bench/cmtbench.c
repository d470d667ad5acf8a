/*
 * cmtbench.c — the workload behind `make bench` (bench/run.sh drives it; BENCHMARKS.md is the
 * result). Not a test: it asserts nothing, it prints one line of "key value" figures.
 *
 * It links the CUDA toolkit's stub libcuda.so and so runs on whatever libcuda.so.1 the loader
 * finds: bench/run.sh points LD_LIBRARY_PATH at the fake driver (tests/fakecuda, FAKECUDA_FAST=1)
 * and adds LD_PRELOAD=build/libcumemtrack.so for tracked runs.
 *
 *   cmtbench pairs API DEPTH PAIRS THREADS [LIVE [PATTERN]]
 *       API cuda: cuMemAlloc_v2(256) + cuMemFree_v2 pairs; API malloc: malloc(256) + free;
 *       API async: cuMemAllocAsync(256) + cuMemFreeAsync pairs on a stream each thread creates
 *       (the stream-ordered path of a runtime's cudaMallocAsync; the fake driver's async path is
 *       its locked one, not FAKECUDA_FAST's).
 *       Each thread first recurses through DEPTH noinline frames (so a stack captured in the loop
 *       really is at least DEPTH frames deep), warms up, waits on a barrier, then runs PAIRS pairs.
 *       LIVE (cuda only): allocations made first and kept live to the end (freed before exit).
 *       PATTERN (default one):
 *         one       every pair from one call site (one stack);
 *         sites:N   pair i from call site i mod N (N <= 16384 distinct stacks: 14 levels of noinline
 *                   calls, each level from one of two call instructions, below the DEPTH frames);
 *         depths:N  pair i made i mod N frames deeper than DEPTH (the caller's depth changes on every
 *                   call, N stacks);
 *         random    one thread, LIVE > 0: each pair frees a live allocation chosen at random
 *                   (xorshift, fixed seed) and allocates its replacement (random-order frees with
 *                   LIVE allocations live; the untracked run has the same pattern).
 *         rising    as random, but the replacement is the freed allocation's size + 1 byte: the
 *                   live bytes rise by one with every pair, so every pair sets a new peak (a job
 *                   that leaks a little every iteration).
 *         walk      as random, but the replacement is 256 + a random 0-255 bytes: the live bytes
 *                   walk at random and the peak moves now and then.
 *       Every pattern does the same extra work untracked, so tracked - untracked is the tracker's.
 *       Prints: ns_per_pair (wall / pairs per thread), mpairs_per_s (all threads), wall_s, user_ns
 *       and sys_ns (CPU time per pair over the timed loop), pairs_total (every alloc+free pair the
 *       process made, warm-up included; LIVE allocations count as one pair each).
 *   cmtbench live N
 *       Keeps N cuMemAlloc_v2(256) allocations live and prints how the process's anonymous RSS,
 *       file-backed RSS and malloc arena grew over them (anon_delta, file_delta, heap_delta bytes).
 *   cmtbench prims
 *       What this machine charges for the two primitives the tracker uses twice per pair, each
 *       timed back to back in a loop of 10 M: rdtsc_ns (one rdtsc) and xchg_ns (an uncontended
 *       lock exchange and the release store after it, a stripe lock's acquire + release); "-"
 *       where there is no rdtsc. A slower guest shows here before it shows in the rows.
 *   cmtbench exec CMD [ARG]...
 *       Runs CMD (stdout to /dev/null) and prints its wall time and peak RSS (wait4's ru_maxrss):
 *       wall_s, maxrss_kb, status. Used for the analyzer, so nothing else needs to be installed.
 */
#include <cuda.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *api;
static int is_cuda, is_async; /* is_cuda: any CUDA API (cuda, async) */
static __thread CUstream my_stream; /* API async: this thread's stream */
static long pairs, live_n;
enum pattern { PAT_ONE, PAT_SITES, PAT_DEPTHS, PAT_RANDOM, PAT_RISING, PAT_WALK };
static enum pattern pattern;
static unsigned pat_n = 1;
static CUdeviceptr *live;
static uint32_t *live_size; /* rising: each live allocation's size */
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

__attribute__((noinline)) static void loop_async(long n) {
    for (long i = 0; i < n; i++) {
        CUdeviceptr p;
        CK(cuMemAllocAsync(&p, 256, my_stream));
        CK(cuMemFreeAsync(p, my_stream));
    }
}

__attribute__((noinline)) static void loop_malloc(long n) {
    for (long i = 0; i < n; i++) {
        void *p = malloc(256);
        __asm__ volatile("" : : "r"(p) : "memory"); /* keeps the pair from being elided */
        free(p);
    }
}

/* one pair, from whatever stack the caller built */
__attribute__((noinline)) static void one_pair(void) {
    if (is_async) {
        loop_async(1);
    } else if (is_cuda) {
        CUdeviceptr p;
        CK(cuMemAlloc_v2(&p, 256));
        CK(cuMemFree_v2(p));
    } else {
        void *p = malloc(256);
        __asm__ volatile("" : : "r"(p) : "memory");
        free(p);
    }
    __asm__ volatile("" ::: "memory");
}

/* sites: the bits of k pick, level by level, which of two call instructions makes the next call */
__attribute__((noinline)) static void site_b(int lvl, unsigned k);
__attribute__((noinline)) static void site_a(int lvl, unsigned k) {
    if (lvl == 0)
        one_pair();
    else if (k & 1)
        site_b(lvl - 1, k >> 1);
    else
        site_a(lvl - 1, k >> 1);
    __asm__ volatile("" ::: "memory");
}
__attribute__((noinline)) static void site_b(int lvl, unsigned k) {
    if (lvl == 0)
        one_pair();
    else if (k & 1)
        site_b(lvl - 1, k >> 1);
    else
        site_a(lvl - 1, k >> 1);
    __asm__ volatile("" ::: "memory");
}
#define SITE_LEVELS 14

__attribute__((noinline)) static void deeper(unsigned d) {
    if (d == 0)
        one_pair();
    else
        deeper(d - 1);
    __asm__ volatile("" ::: "memory");
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static inline uint64_t xorshift(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

__attribute__((noinline)) static void loop_random(long n) {
    for (long i = 0; i < n; i++) {
        CUdeviceptr *p = &live[xorshift() % (uint64_t)live_n];
        CK(cuMemFree_v2(*p));
        CK(cuMemAlloc_v2(p, 256));
    }
}

/* random with a replacement one byte bigger than the allocation it replaces (rising), or of 256 +
 * a random 0-255 bytes (walk) */
__attribute__((noinline)) static void loop_random_sized(long n) {
    for (long i = 0; i < n; i++) {
        uint64_t x = xorshift();
        size_t k = (size_t)(x % (uint64_t)live_n);
        CK(cuMemFree_v2(live[k]));
        size_t size = pattern == PAT_RISING ? ++live_size[k] : 256 + (size_t)(x >> 56);
        CK(cuMemAlloc_v2(&live[k], size));
    }
}

static void run_loop(long n) {
    switch (pattern) {
    case PAT_ONE:
        if (is_async)
            loop_async(n);
        else if (is_cuda)
            loop_cuda(n);
        else
            loop_malloc(n);
        break;
    case PAT_SITES:
        for (long i = 0; i < n; i++)
            site_a(SITE_LEVELS, (unsigned)(i % pat_n));
        break;
    case PAT_DEPTHS:
        for (long i = 0; i < n; i++)
            deeper((unsigned)(i % pat_n));
        break;
    case PAT_RANDOM:
        loop_random(n);
        break;
    case PAT_RISING:
    case PAT_WALK:
        loop_random_sized(n);
        break;
    }
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

static long warmup_pairs(void) {
    long w = pairs / 100 + 1000;
    return pattern == PAT_SITES || pattern == PAT_DEPTHS ? w + (long)pat_n : w;
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
    run_loop(warmup_pairs()); /* warm-up: per-thread blocks, stack cache, free lists, every site */
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
    if (is_cuda) CK(cuCtxSetCurrent(ctx));
    if (is_async) CK(cuStreamCreate(&my_stream, CU_STREAM_NON_BLOCKING));
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

static int cmd_prims(void) {
    enum { N = 10000000 };
    static _Atomic int lock;
    unsigned acc = 0;
    double t0 = now_s();
#if defined(__x86_64__)
    for (int i = 0; i < N; i++) {
        unsigned lo, hi;
        __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
        acc += lo;
    }
#endif
    double t1 = now_s();
    for (int i = 0; i < N; i++) {
        acc += (unsigned)atomic_exchange_explicit(&lock, 1, memory_order_acquire);
        atomic_store_explicit(&lock, 0, memory_order_release);
    }
    double t2 = now_s();
#if defined(__x86_64__)
    printf("rdtsc_ns %.2f ", (t1 - t0) * 1e9 / N);
#else
    printf("rdtsc_ns - ");
#endif
    printf("xchg_ns %.2f check %u\n", (t2 - t1) * 1e9 / N, acc & 1);
    return 0;
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
    if (argc == 2 && strcmp(argv[1], "prims") == 0) return cmd_prims();
    if (argc < 6 || strcmp(argv[1], "pairs") != 0) {
        fprintf(stderr, "usage: cmtbench pairs cuda|async|malloc DEPTH PAIRS THREADS [LIVE "
                        "[one|sites:N|depths:N|random|rising|walk]]"
                        " | live N | prims | exec CMD...\n");
        return 2;
    }
    api = argv[2];
    depth = atoi(argv[3]);
    pairs = atol(argv[4]);
    int threads = atoi(argv[5]);
    live_n = argc > 6 ? atol(argv[6]) : 0;
    is_async = strcmp(api, "async") == 0;
    is_cuda = is_async || strcmp(api, "cuda") == 0;
    const char *pat = argc > 7 ? argv[7] : "one";
    if (strncmp(pat, "sites:", 6) == 0) {
        pattern = PAT_SITES;
        pat_n = (unsigned)atoi(pat + 6);
    } else if (strncmp(pat, "depths:", 7) == 0) {
        pattern = PAT_DEPTHS;
        pat_n = (unsigned)atoi(pat + 7);
    } else if (strcmp(pat, "random") == 0)
        pattern = PAT_RANDOM;
    else if (strcmp(pat, "rising") == 0)
        pattern = PAT_RISING;
    else if (strcmp(pat, "walk") == 0)
        pattern = PAT_WALK;
    else if (strcmp(pat, "one") != 0)
        pat_n = 0;
    if (pat_n < 1 || (pattern == PAT_SITES && pat_n > (1u << SITE_LEVELS)) ||
        (pattern >= PAT_RANDOM && (threads != 1 || live_n < 1 || !is_cuda || is_async))) {
        fprintf(stderr, "cmtbench: bad pattern %s (random, rising, walk: cuda, 1 thread, LIVE > 0; sites:N: N <= %u)\n",
                pat, 1u << SITE_LEVELS);
        return 2;
    }
    if (depth < 1) depth = 1;
    if (is_cuda) {
        cuda_setup();
        if (live_n) {
            live = calloc((size_t)live_n, sizeof *live);
            live_size = calloc((size_t)live_n, sizeof *live_size);
            if (!live || !live_size) return 1;
            for (long i = 0; i < live_n; i++)
                live_size[i] = 256;
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
           (double)(pairs + warmup_pairs()) * threads + (double)live_n);
    return 0;
}
